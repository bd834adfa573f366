"""Issue 22 ("tests with teeth"): the outbox's error ladder, through whole cycles on the
local forum. Each test was seen to fail with a mutant of forumbot/delivery.py: a failed PM
to the host that spawns PMs to the host without end (bounded here by a cycle count), a
thread held back a cycle behind a post the forum refused for good, posts of a thread
overtaking one still in doubt, role PMs sent for a game whose opening post was refused."""
from __future__ import annotations

from collections import Counter

from adapters.base import PermanentError, TransientError, UncertainError
from adapters.local import LocalForum
from forumbot import store
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
    forum.faults = [times(3, lambda out: UncertainError("timeout") if out.kind == "comment" and "proposes" in out.body
                          else None)]
    t.say(s.shown(s.leader), "**PROPOSE: alice, bob**")
    for n in ("alice", "bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    assert not any("is closed" in p for p in t.people.thread(t.game.thread))
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
