"""Issue 22 ("tests with teeth"): the outbox's error ladder, through whole cycles on the
local forum. Each test was seen to fail with a mutant of forumbot/delivery.py: a failed PM
to the host that spawns PMs to the host without end (bounded here by a cycle count), a
thread held back a cycle behind a post the forum refused for good, posts of a thread
overtaking one still in doubt, role PMs sent for a game whose opening post was refused."""
from __future__ import annotations

from collections import Counter

from adapters.base import ForumError, Markup, PermanentError, TransientError, UncertainError
from adapters.local import LocalForum
from forumbot import store
from forumbot.render import ops
from forumbot.render import replies as words
from forumbot.render.markup import BBCode
from tests.table import LocalPeople, Table, config_text

VOTE = "deadlines: {team_vote: 1h}\n"


class Refusing(LocalForum):
    """A local forum that records every post the bot tries, and answers some of them with
    an error: `faults` are callables (Outgoing) -> Exception | None, each used once unless
    `keep` is set."""

    def __init__(self, clock):
        super().__init__(":memory:", clock=clock)
        self.tried: list = []
        self.faults: list = []
        self.keep = False

    def post(self, out):
        self.tried.append(out)
        for i, f in enumerate(self.faults):
            if (e := f(out)) is not None:
                if not self.keep:
                    del self.faults[i]
                raise e
        return super().post(out)


def times(n, fault):
    """`fault` for its first `n` hits (a fault of `Refusing` kept with `keep`)."""
    left = [n]

    def f(out):
        if left[0] and (e := fault(out)) is not None:
            left[0] -= 1
            return e
        return None
    return f


def _table(clock) -> tuple[Table, Refusing]:
    forum = Refusing(clock)
    return Table(forum, LocalPeople(forum), clock), forum


def test_a_host_who_refuses_pms_is_not_sent_a_pm_about_each_refused_pm(db, clock):
    """The host does not accept the bot's PMs: the PM that says the game runs fails for
    good, and so would any PM telling the host of it. Over ten quiet cycles the bot tries
    no further PM to the host (a loop of "undelivered" PMs is cut off at the bound)."""
    t, forum = _table(clock)
    forum.keep = True
    forum.faults = [lambda out: PermanentError("host does not accept PMs")
                    if out.kind == "pm" and (out.to or "").casefold() == "host" else None]
    t.start()
    assert t.state.phase == "proposal"  # the game runs without the host's PMs
    first = [o.key for o in forum.tried if o.kind == "pm" and o.to == "host"]
    assert first, "the host was sent nothing: the test proves nothing"
    for _ in range(10):  # the bound: a loop of PMs would add one a cycle
        clock.advance(seconds=30)
        t.cycle()
    again = [o.key for o in forum.tried if o.kind == "pm" and o.to == "host"]
    assert again == first, f"PMs to the host that refuses them: {again[len(first):]}"
    assert not store.Outbox.select().where((store.Outbox.to == "host") & (store.Outbox.state == "pending")).count()
    assert len(t.people.pms_to("host")) == 0


def test_a_player_who_refuses_pms_is_reported_to_the_host_once(db, clock):
    """The counterpart: a refused PM to a player is told to the host, once, and the game
    goes on (the check that spares the host is for PMs to the host only)."""
    t, forum = _table(clock)
    forum.keep = True
    forum.faults = [lambda out: PermanentError("bob does not accept PMs")
                    if out.kind == "pm" and out.to == "bob" else None]
    t.start()
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    told = [p for p in t.people.pms_to("host") if "bob" in p and "could not deliver" in p]
    assert len(told) == 1
    assert t.state.phase == "proposal"


def test_a_post_refused_for_good_does_not_hold_its_thread_for_a_cycle(db, clock):
    """In one cycle the leader proposes and everyone votes: the proposal's post and the
    vote's result queue in one thread. The forum refuses the first for good; the result
    goes out in that same cycle, not a cycle (a poll interval) later."""
    t, forum = _table(clock)
    t.start(extra=VOTE)
    s = t.state
    forum.faults = [lambda out: PermanentError("too long") if out.kind == "comment" and "proposes" in out.body
                    else None]
    t.say(s.shown(s.leader), "**PROPOSE: alice, bob**")
    for n in ("alice", "bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    assert any("proposes" in o.body for o in forum.tried if o.kind == "comment")  # it was refused
    posts = t.people.thread(t.game.thread)
    assert not any("proposes" in p for p in posts)
    assert any("is closed" in p for p in posts), "the vote's result waits behind a post that will never go"
    assert {o.to for o in forum.tried if o.kind == "pm" and "on the team" in o.body} == {"alice", "bob"}


def test_a_post_in_doubt_is_not_overtaken_by_the_next_post_of_its_thread(db, clock):
    """The proposal's post times out, three times (it did not land); the vote's result,
    written in the same cycle, waits behind it, and the thread reads in order once both
    are out; nothing is posted twice."""
    t, forum = _table(clock)
    t.start(extra=VOTE)
    s = t.state
    forum.keep = True  # (a search finds nothing: each flush looks, then sends again)
    timeout = UncertainError("timeout " + "(a long story) " * 40)
    forum.faults = [times(3, lambda out: timeout if out.kind == "comment" and "proposes" in out.body else None)]
    t.say(s.shown(s.leader), "**PROPOSE: alice, bob**")
    for n in ("alice", "bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    assert not any("is closed" in p for p in t.people.thread(t.game.thread))
    (row,) = store.Outbox.select().where(store.Outbox.body.contains("proposes") & (store.Outbox.kind == "comment"))
    assert (row.state, row.uncertain, row.error) == ("pending", True, str(timeout)[:500])
    # only its thread waits: the team's PMs, written after it, go out in that same cycle
    assert {o.to for o in forum.tried if o.kind == "pm" and "on the team" in o.body} == {"alice", "bob"}
    for _ in range(3):
        clock.advance(seconds=61)
        t.cycle()
    posts = t.people.thread(t.game.thread)
    proposed = [i for i, p in enumerate(posts) if "proposes" in p]
    closed = [i for i, p in enumerate(posts) if "is closed" in p]
    assert len(proposed) == 1 and len(closed) == 1 and proposed[0] < closed[0], posts


def test_a_rate_limited_post_waits_and_the_thread_keeps_its_order(db, clock):
    """A transient refusal (a rate limit for 20 s): the post waits out the 20 s, and the one
    written after it in its thread waits behind it."""
    t, forum = _table(clock)
    t.start(extra=VOTE)
    s = t.state
    forum.faults = [lambda out: TransientError("RATELIMIT", 20) if out.kind == "comment" and "proposes" in out.body
                    else None]
    t.say(s.shown(s.leader), "**PROPOSE: alice, bob**")
    for n in ("alice", "bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    assert not any("proposes" in p or "is closed" in p for p in t.people.thread(t.game.thread))
    clock.advance(seconds=5)
    t.cycle()
    assert not any("proposes" in p or "is closed" in p for p in t.people.thread(t.game.thread))
    clock.advance(seconds=30)
    t.cycle()
    posts = t.people.thread(t.game.thread)
    proposed = [i for i, p in enumerate(posts) if "proposes" in p]
    closed = [i for i, p in enumerate(posts) if "is closed" in p]
    assert len(proposed) == 1 and len(closed) == 1 and proposed[0] < closed[0], posts
    keys = Counter(forum.keys_posted())
    assert not [k for k, n in keys.items() if n > 1]


def test_a_post_refused_for_good_at_a_deadline_does_not_hold_its_thread_until_the_next_cycle(db, clock):
    """The bot comes back after two deadlines fell (the vote's, then the mission's): in the
    cycle's deadline flush the vote's result is refused for good, and the post written
    after it in the thread still goes out in that cycle (not a whole poll interval later,
    behind a post that will never go)."""
    t, forum = _table(clock)
    t.start(extra="deadlines: {team_vote: 1h, mission: 1h}\nmissed: {team_vote: approve, mission: support}\n")
    t.propose()
    forum.faults = [lambda out: PermanentError("too long") if out.kind == "comment" and "is closed" in out.body
                    else None]
    before = t.people.thread(t.game.thread)
    clock.advance(minutes=125)
    t.cycle()
    assert any(o.kind == "comment" and "is closed" in o.body for o in forum.tried)  # it was refused
    new = t.people.thread(t.game.thread)[len(before):]
    assert not any("is closed" in p for p in new)
    assert len(new) == 1, "the post behind the refused one waits for the next cycle"
    pending = store.Outbox.select().where((store.Outbox.state == "pending") & (store.Outbox.kind == "comment"))
    assert pending.count() == 0


def test_an_opening_post_refused_for_good_deals_no_role_and_posts_nothing_more(db, clock):
    """The forum refuses a game's opening post for good (a word it does not allow in the
    title): no one is dealt a role by PM, the host is told that the game did not start,
    and over the next cycles nothing more of that game goes out or is tried again."""
    t, forum = _table(clock)
    forum.keep = True
    forum.faults = [lambda out: PermanentError("that is not allowed here") if out.kind == "thread" else None]
    t.people.pm("host", "new game", config_text(t.players, extra="deadlines: {proposal: 1h}\n"))
    for _ in range(6):
        t.cycle()
        clock.advance(minutes=30)
    assert [o.kind for o in forum.tried].count("thread") == 1  # not tried again
    for n in t.players:  # no one was dealt a role for a game that never started
        assert not t.people.pms_to(n), n
    told = [p for p in t.people.pms_to("host") if "did not start" in p]
    assert len(told) == 1 and "not allowed here" in told[0]
    assert not [o for o in forum.tried if o.kind == "comment"]
    game = store.Game.get()
    assert game.status == "aborted"
    assert not store.Outbox.select().where(store.Outbox.state == "pending").count()


def test_role_pms_wait_for_the_opening_post_and_are_not_sent_if_it_is_refused_later(db, clock):
    """The opening post is rate-limited first, then refused for good: while it waits, no
    role goes out; once it is refused, none ever does."""
    t, forum = _table(clock)
    forum.faults = [lambda out: TransientError("RATELIMIT", 60) if out.kind == "thread" else None,
                    lambda out: PermanentError("that is not allowed here") if out.kind == "thread" else None]
    t.people.pm("host", "new game", config_text(t.players))
    for _ in range(6):
        t.cycle()
        clock.advance(seconds=45)
    assert [o.kind for o in forum.tried].count("thread") == 2
    assert not [o for o in forum.tried if o.kind == "pm" and o.to in t.players]
    assert store.Game.get().status == "aborted"


# --- what the host is told when something fails (wave 2) ----------------------------------------

class Told(Refusing):
    """`Refusing` in BBCode (the host's notices carry the forum's markup), with the forum's
    requests left as `left` says (None: not known), and a look-up of the sent PMs that fails
    as `lookup` says (an exception, or None: it works)."""

    markup = Markup.BBCODE

    def __init__(self, clock):
        super().__init__(clock)
        self.left: int | None = None
        self.lookup: Exception | None = None
        self.looked: list[str] = []  # the keys of the posts looked for
        self.landed = 0  # posts, PMs and edits that went out

    def post(self, out):
        posted = super().post(out)
        self.landed += 1
        return posted

    def requests_left(self):
        return self.left

    def find_posted(self, out):
        self.looked.append(out.key)
        if self.lookup is not None and out.kind == "pm":
            raise self.lookup
        return super().find_posted(out)


class Counted(Table):
    """A table whose every cycle's report counts what went out (`posted`, which the operator
    reads), checked against the forum."""

    def cycle(self, fresh: bool = False):
        before = self.forum.landed
        report = super().cycle(fresh)
        assert report.posted == self.forum.landed - before, (report.posted, self.forum.landed - before)
        return report


def _told(clock) -> tuple[Table, Told]:
    forum = Told(clock)
    return Counted(forum, LocalPeople(forum), clock), forum


def pms(forum, user) -> list[tuple[str, str]]:
    """(subject, body) of every PM `user` received from the bot, in order."""
    return [(r["subject"], r["body"]) for r in forum.messages_to(user) if r["sender"] == forum.bot_name]


def test_a_game_refused_its_opening_post_tells_its_host_and_leaves_the_other_game_alone(db, clock):
    """Two hosts start a game in the same cycle, while the forum has few requests left (only
    results and notices go out). The forum refuses G2's opening post for good; G1's role PM
    to alice is rate-limited. G2's host is told once, at once, in the forum's markup, what
    the forum said and the title it refused; G2's other posts are failed as "the game did
    not start" and its players get nothing. G1 goes on: alice gets her role when the rate
    limit is over; G1's host hears nothing of G2."""
    t, forum = _told(clock)
    forum.left = 5
    forum.faults = [lambda out: PermanentError("that word is not allowed here")
                    if out.kind == "thread" and "Forbidden" in out.title else None,
                    lambda out: TransientError("RATELIMIT", 120) if out.kind == "pm" and out.to == "alice" else None]
    others = ["frank", "gina", "hank", "ivan", "judy"]
    t.people.pm("host", "new game", config_text(t.players))
    t.people.pm("host2", "new game", config_text(others).replace("title: Test game", "title: Forbidden game"))
    t.cycle()
    g1, g2 = store.Game.select().order_by(store.Game.id)
    assert (g1.tag, g1.status, g2.tag, g2.status) == ("G1", "running", "G2", "aborted")
    assert pms(forum, "host2") == [("G2: the game could not start",
                                    ops.not_started("G2", "Forbidden game (G2)", "that word is not allowed here",
                                                    BBCode()))]
    assert "[font=monospace]new game[/font]" in pms(forum, "host2")[0][1]
    rows = list(store.Outbox.select().where(store.Outbox.game == g2.id).order_by(store.Outbox.id))
    assert [(r.kind, r.state, r.error) for r in rows] == (
        [("thread", "failed", "that word is not allowed here")]
        + [(r.kind, "failed", "the game did not start") for r in rows[1:]]), rows
    assert len(rows) > 3
    assert not pms(forum, "alice")  # (her role waits out the rate limit)
    for _ in range(6):
        clock.advance(seconds=30)
        t.cycle()
    for n in others:
        assert not forum.messages_to(n), n
    for n in t.players:
        assert [s for s, _ in pms(forum, n)] == ["G1: your role"], (n, pms(forum, n))
    assert [s for s, _ in pms(forum, "host")] == ["G1: your game is running"]
    assert pms(forum, "host")[0][1].startswith("Game G1 is running: local:t1\n")  # its link
    assert len(pms(forum, "host2")) == 1
    assert store.Game.get_by_id(g1.id).status == "running"


def test_a_pm_and_a_post_refused_for_good_are_each_told_to_the_host_once(db, clock):
    """bob does not accept PMs, and the forum refuses the leader's proposal post for good:
    the host is told of each, once, with the game's tag in the subject, what could not go
    out and what the forum said."""
    t, forum = _told(clock)
    forum.keep = True
    refused = PermanentError("bob does not accept PMs " + "(a long story) " * 40)
    forum.faults = [lambda out: refused if out.kind == "pm" and out.to == "bob" else None,
                    lambda out: PermanentError("that post is too long") if out.kind == "comment"
                    and "proposes" in out.body else None]
    t.start(extra=VOTE)
    s = t.state
    t.say(s.shown(s.leader), "**PROPOSE: alice, bob**")
    for _ in range(4):
        t.cycle()
        clock.advance(seconds=30)
    assert pms(forum, "host") == [
        ("G1: your game is running", pms(forum, "host")[0][1]),
        ("G1: a message could not be delivered", words.undelivered("G1", "pm", "bob", str(refused))),
        ("G1: a message could not be delivered", words.undelivered("G1", "comment", None, "that post is too long")),
    ]
    assert "a PM to bob" in pms(forum, "host")[1][1] and "a post in the game thread" in pms(forum, "host")[2][1]
    (row,) = store.Outbox.select().where(store.Outbox.key == "G1:1:role:bob")
    assert (row.state, row.uncertain, row.error) == ("failed", False, str(refused)[:500])
    assert not pms(forum, "bob")


def test_a_pm_in_doubt_that_cannot_be_looked_for_is_sent_again_and_the_host_told_once(db, clock):
    """The role PMs to bob and carol time out (did they land?), and the bot cannot read its
    sent PMs to check. It looks again every RECHECK_AFTER (not every cycle), for
    PM_RESEND_AFTER, then sends them again (a PM twice beats a role never sent; to the
    second), and tells the host once, at once even with few requests left: whom it may have
    reached twice, and why. Each gets the role once here (the first try did not land); the
    cycles' reports count what went out."""
    t, forum = _told(clock)
    forum.lookup = ForumError("the sent messages redirect to a login page " + "(a long story) " * 40)
    forum.faults = [lambda out: UncertainError("timeout") if out.kind == "pm" and out.to == "bob" else None,
                    lambda out: UncertainError("timeout") if out.kind == "pm" and out.to == "carol" else None]
    forum.left = 5
    t.start()
    assert not pms(forum, "bob") and not pms(forum, "carol")
    reports = []
    for _ in range(59):  # 9 minutes 50 s, a cycle every 10 s: it waits for the look-up
        clock.advance(seconds=10)
        reports.append(t.cycle())
    assert [r.posted for r in reports] == [0] * 59
    assert not pms(forum, "bob") and not pms(forum, "carol")
    assert [s for s, _ in pms(forum, "host")] == ["G1: your game is running"]
    assert 18 <= forum.looked.count("G1:1:role:bob") <= 21, forum.looked.count("G1:1:role:bob")
    (row,) = store.Outbox.select().where(store.Outbox.key == "G1:1:role:bob")
    assert (row.state, row.uncertain, row.error) == ("pending", True, f"could not look for it: {forum.lookup}"[:500])
    clock.advance(seconds=10)  # PM_RESEND_AFTER since it was written: it goes
    report = t.cycle()
    assert [s for s, _ in pms(forum, "bob")] == ["G1: your role"]
    assert [s for s, _ in pms(forum, "carol")] == ["G1: your role"]
    assert pms(forum, "host")[1:] == [
        ("G1: a PM may have gone out twice", ops.pm_resent("G1", "bob", str(forum.lookup)))]
    assert report.posted == 3
    for _ in range(3):
        clock.advance(seconds=30)
        assert t.cycle().posted == 0
    assert len(pms(forum, "host")) == 2 and len(pms(forum, "bob")) == len(pms(forum, "carol")) == 1


def test_a_rate_limited_pm_is_sent_again_without_a_may_get_it_twice_notice(db, clock):
    """A PM the forum rate-limited did not go out: it is sent again when the limit is over
    (to the second; after a backoff where the forum gave no time), without a look-up, and
    the host is not told that the player may get it twice (even though the sent PMs cannot
    be read)."""
    t, forum = _told(clock)
    forum.lookup = ForumError("the sent messages redirect to a login page")
    limited = TransientError("RATELIMIT " + "(a long story) " * 40, 700)
    forum.faults = [times(1, lambda out: limited if out.kind == "pm" and out.to == "dave" else None),
                    times(1, lambda out: TransientError("503 Service Unavailable")  # (no Retry-After: a backoff)
                          if out.kind == "pm" and out.to == "erin" else None)]
    forum.keep = True
    t.start()
    for _ in range(23):
        clock.advance(seconds=30)
        t.cycle()
    assert not pms(forum, "dave")
    (row,) = store.Outbox.select().where(store.Outbox.key == "G1:1:role:dave")
    assert (row.state, row.uncertain, row.error) == ("pending", False, str(limited)[:500])
    clock.advance(seconds=10)  # the 700 s the forum asked for
    t.cycle()
    assert [s for s, _ in pms(forum, "dave")] == ["G1: your role"]
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    assert [s for s, _ in pms(forum, "dave")] == ["G1: your role"]
    assert [s for s, _ in pms(forum, "erin")] == ["G1: your role"]
    assert [s for s, _ in pms(forum, "host")] == ["G1: your game is running"]


def test_pms_to_one_player_keep_their_order_whatever_the_case_of_the_name(db, clock):
    """bob's role PM is rate-limited for two minutes; meanwhile he writes to the bot as
    "Bob", and its answer goes to "Bob": the same person, so the answer waits behind his
    role, and he reads them in the order they were written."""
    t, forum = _told(clock)
    forum.faults = [lambda out: TransientError("RATELIMIT", 120) if out.kind == "pm" and out.to == "bob" else None]
    t.start()
    assert not forum.messages_to("bob")
    t.people.pm("Bob", "G1", "STATUS")
    for _ in range(5):
        clock.advance(seconds=30)
        t.cycle()
    got = [(r["recipient"], r["subject"]) for r in forum.messages_to("bob")]
    assert len(got) == 2 and got[0] == ("bob", "G1: your role"), got
    assert got[1][0] == "Bob", got


def test_the_status_block_follows_the_game_through_a_rate_limit_and_a_refusal(db, clock):
    """The opening post's status block is edited as the game moves. A rate-limited edit
    waits what the forum asked, then the newest block goes; an edit refused for good is
    told to the host (once), and the next block still goes out. Each cycle's report counts
    the edits that went out."""
    t, forum = _told(clock)
    t.start()

    def block() -> str:
        return forum.threads()[0]["body"].split("\n---\n")[0]

    assert "Now: mission 1, proposal 1. The leader, alice, proposes a team of 2." in block()
    t.propose()
    assert "Now: the vote on alice's team for mission 1 (alice, bob)." in block()
    assert "Still to vote: alice, bob, carol, dave, erin." in block()
    forum.faults = [lambda out: TransientError("RATELIMIT", 60) if out.kind == "edit" else None]
    t.say("bob", "**APPROVE**")
    t.cycle()
    assert "Still to vote: alice, bob, carol, dave, erin." in block()
    clock.advance(seconds=30)
    t.say("carol", "**APPROVE**")
    t.cycle()
    assert "Still to vote: alice, bob, carol, dave, erin." in block()
    clock.advance(seconds=30)
    t.cycle()
    assert "Still to vote: alice, dave, erin." in block()
    before = pms(forum, "host")
    forum.faults = [lambda out: PermanentError("the post is archived") if out.kind == "edit" else None]
    t.say("dave", "**APPROVE**")
    clock.advance(seconds=30)
    t.cycle()
    assert "Still to vote: alice, dave, erin." in block()
    t.say("erin", "**REJECT**")
    for _ in range(2):
        clock.advance(seconds=30)
        t.cycle()
    assert "Still to vote: alice." in block()
    edits = len([o for o in forum.tried if o.kind == "edit"])
    for _ in range(2):  # quiet cycles: the block that went out is not sent again
        clock.advance(seconds=30)
        t.cycle()
    assert len([o for o in forum.tried if o.kind == "edit"]) == edits
    assert pms(forum, "host")[len(before):] == [
        ("G1: a message could not be delivered", words.undelivered("G1", "edit", None, "the post is archived"))]
    assert "an update of the status block in the opening post" in pms(forum, "host")[-1][1]
