"""The write budget, rate limits, read retries and the gap fallback."""

import pytest

from forumbot import store
from forumbot.shell.outbox.budget import WriteBudget, backoff
from tests.fakes.bots import NO_WAITS
from tests.fakes.table import NAMES, Table


def test_budget_shares_by_priority(clock):
    b = WriteBudget(10, clock)
    for _ in range(5):
        b.spend()
    assert b.allow(0) and b.allow(1) and b.allow(2) and not b.allow(3)  # edits: half the budget
    for _ in range(4):
        b.spend()
    assert b.allow(0) and not b.allow(1)
    b.spend()
    assert not b.allow(0)
    clock.advance(seconds=61)
    assert b.allow(3) and b.room() == 10
    assert not b.allow(1, forum_left=5) and b.allow(0, forum_left=5) and not b.allow(0, forum_left=1)


def test_backoff_grows_with_jitter_and_honours_retry_after():
    assert backoff(3, retry_after=7) == 7
    waits = [backoff(1) for _ in range(50)]
    assert all(0 <= w <= 30 for w in waits) and len(set(waits)) > 1  # jitter
    assert max(backoff(20) for _ in range(50)) <= 1800  # capped


def test_a_busy_minute_slows_status_edits_never_the_game(db, bot, clock):
    b = bot("local")
    forum, people = b.forum, b.people
    mod = b.moderator(writes_per_minute=12)
    tables = []
    for _g in range(4):
        t = Table(forum, people, clock, players=NAMES[:5], make_moderator=lambda: mod)
        t.mod = mod
        for _ in range(12):  # starting four games is more than a minute's budget
            clock.advance(seconds=61)
            mod.cycle()
        tables.append(t.start(host=f"host{_g}"))  # (the same `new game` PM again would name G1)
    for _ in range(10):
        clock.advance(seconds=61)
        mod.cycle()
    assert store.Outbox.select().where(store.Outbox.state == "pending").count() == 0
    for t in tables:
        t.say("alice", "**PROPOSE: alice, bob**")
    mod.cycle()
    for t in tables:
        for n in t.players:
            t.say(n, "**APPROVE**")
    mod.cycle()  # one cycle: the four games move on at once, whatever the outbox holds
    assert all(t.state.phase == "mission" for t in tables)
    pending = list(store.Outbox.select().where(store.Outbox.state == "pending"))
    sent = store.Outbox.select().where((store.Outbox.state == "posted") &
                                       (store.Outbox.posted_at >= store.naive(clock()))).count()
    assert sent <= 12 and pending  # the budget held
    assert {p.priority for p in pending} >= {3}  # status edits wait; results went first
    posted_now = list(store.Outbox.select().where((store.Outbox.state == "posted") &
                                                  (store.Outbox.posted_at >= store.naive(clock()))))
    assert all(p.priority <= min(x.priority for x in pending) for p in posted_now)
    for _ in range(10):
        clock.advance(seconds=61)
        mod.cycle()
    assert store.Outbox.select().where(store.Outbox.state == "pending").count() == 0  # none lost
    for t in tables:
        assert "Orders in: 0 of 2" in forum.threads()[tables.index(t)]["body"]  # the latest edit


@pytest.fixture
def reddit_table(db, bot, fake_reddit, monkeypatch):
    """A game on the test's fake Reddit (prawcore never sleeps); `kw` goes to its moderator."""
    import prawcore.sessions

    monkeypatch.setattr(prawcore.sessions.FiniteRetryStrategy, "_sleep_seconds", lambda self: None)

    def make(**kw):
        return bot("reddit", fake=fake_reddit, forum_kw=NO_WAITS, **kw).table(5)
    return make


def test_few_requests_left_lets_only_results_out(reddit_table, fake_reddit, clock):
    t = reddit_table(writes_per_minute=60)
    fake_reddit.ratelimit = {"x-ratelimit-remaining": "5", "x-ratelimit-used": "595",
                             "x-ratelimit-reset": "1"}
    t.say("alice", "**PROPOSE: alice, bob**")
    t.say("zed", "**APPROVE**")  # a non-player: a reply (priority 1) is due
    t.cycle()
    assert t.forum.requests_left() == 5
    pending = list(store.Outbox.select().where(store.Outbox.state == "pending"))
    assert pending and all(p.priority >= 1 for p in pending)
    bot = [c["body"] for c in fake_reddit.thread_comments(t.game.thread) if c["author"] == "forumbot"]
    assert "alice, bob" in bot[-1]  # the proposal (a prompt, priority 0) went out
    fake_reddit.ratelimit = {"x-ratelimit-remaining": "500", "x-ratelimit-used": "100",
                             "x-ratelimit-reset": "1"}
    clock.advance(seconds=61)
    t.cycle()
    t.cycle()
    assert store.Outbox.select().where(store.Outbox.state == "pending").count() == 0


def test_reads_are_retried_after_transient_failures(reddit_table, fake_reddit):
    t = reddit_table()
    t.say("alice", "**PROPOSE: alice, bob**")
    fails = [503, 500, 503, 500, 429]  # more than prawcore's own retries

    def flaky(method, path):
        if method == "GET" and path.endswith("/comments") and fails:
            status = fails.pop(0)
            return status, {"message": "error", "error": status}
        return None
    fake_reddit.faults.extend([flaky] * 5)
    report = t.cycle()
    assert not report.errors and t.state.phase == "team_vote"


def test_a_gap_in_the_listing_is_filled_from_the_thread(reddit_table, fake_reddit, monkeypatch):
    import adapters.reddit as reddit

    t = reddit_table()
    other = fake_reddit.submit("someone", "resistancegames", "chatter", "hi")
    t.cycle()
    t.say("alice", "**PROPOSE: alice, bob**")  # then a flood elsewhere in the subreddit
    for i in range(150):
        fake_reddit.comment("chatty", other["id"], f"comment {i}")
    monkeypatch.setattr(reddit, "MAX_PAGES", 1)  # the listing reaches back 100 comments only
    t.cycle()
    assert t.forum.gaps == 1 and t.forum.gap_threads == 1  # the game thread had a comment missed
    assert t.state.phase == "team_vote"
    t.cycle()  # (the bot's own answer in the game thread is seen and counted)
    for i in range(150):  # a gap again, and no game thread missed anything
        fake_reddit.comment("chatty", other["id"], f"more {i}")
    n = len(fake_reddit.requests)
    t.cycle()
    # Issue 11: a comment count alone can hide a new comment behind a deleted one, so after
    # a gap every game thread is read (those whose count changed first). Before, this test
    # asserted that an unchanged count meant no read.
    assert t.forum.gaps == 2 and t.forum.gap_threads == 2
    assert any(p.startswith("/comments/") for _, p in fake_reddit.requests[n:])
