"""Issue 22 ("tests with teeth"): the outbox's error ladder, through whole cycles on the
local forum. Each test was seen to fail with a mutant of forumbot/shell/outbox/delivery.py: a failed PM
to the host that spawns PMs to the host without end (bounded here by a cycle count), a
thread held back a cycle behind a post the forum refused for good, posts of a thread
overtaking one still in doubt, role PMs sent for a game whose opening post was refused; and
(wave 3) a thread's posts held behind one another by urgency when they all fit, the edits'
share given to the same games every minute, a status edit that drops the opening post's
marker (a restored backup then posts the game thread twice), edits not backing off, or
backing off by every block sent before, an overtaken block sent again."""
from __future__ import annotations

import os
import random
import re
import shutil
import sqlite3
from collections import Counter

import pytest

from adapters.base import ForumError, Markup, PermanentError, TransientError, UncertainError
from adapters.local import LocalForum
from forumbot import store
from forumbot.render import ops
from forumbot.render import replies as words
from forumbot.render.markup import BBCode
from forumbot.shell.moderator import Moderator
from tests.fakes.table import LocalPeople, Table, config_text

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
    # it holds no deadline: NULL in the store (an empty text is no date; PostgreSQL refuses it)
    assert store.Game.select().where(store.Game.next_deadline.is_null(True)).count() == 1
    assert game.next_deadline is None
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


# --- the outbox's order within a thread or a recipient, edits and restored backups (wave 3) ------

def bot_comments(forum, thread) -> list[str]:
    """The bot's comments in `thread`, in the order they landed."""
    return [r["body"] for r in forum.thread_comments(thread) if r["author"] == forum.bot_name]


def test_replies_and_results_written_in_one_cycle_all_reach_the_thread_in_that_cycle(db, clock):
    """In one cycle carol votes before any team is proposed (the bot answers her), alice
    proposes, dave proposes out of turn (answered too), and everyone votes: two answers
    (replies) and two results (more urgent) are written, alternating, to one thread. With
    room in the budget all four go out in that cycle, in the order they were written; the
    vote's result is not held a whole poll interval behind the answer before it."""
    t, forum = _told(clock)
    t.start(extra=VOTE)
    before = len(bot_comments(forum, t.game.thread))
    t.say("carol", "**APPROVE**")
    t.say("alice", "**PROPOSE: alice, bob**")
    t.say("dave", "**PROPOSE: alice, bob**")
    for n in ("alice", "bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    new = bot_comments(forum, t.game.thread)[before:]
    assert len(new) == 4, new
    assert new[0].startswith("@carol: G1: No team vote is open now"), new
    assert new[1].startswith("alice proposes"), new
    assert new[2].startswith("@dave: G1: There is no team to propose"), new
    assert new[3].startswith("The vote on alice's team (alice, bob) is closed"), new
    assert [s for s, _ in pms(forum, "bob")][-1] == "G1: mission 1 orders"


def _snapshot(url: str, to) -> None:
    """A consistent copy of the SQLite store as it is now (the operator's backup)."""
    src, dst = sqlite3.connect(url.removeprefix("sqlite:///")), sqlite3.connect(str(to))
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def _put_back(url: str, backup) -> None:
    """The backup put back in place of the store (the bot stopped meanwhile)."""
    path = url.removeprefix("sqlite:///")
    store.close()
    for extra in ("-wal", "-shm"):
        if os.path.exists(path + extra):
            os.remove(path + extra)
    shutil.copyfile(str(backup), path)
    store.connect(url)


def test_a_backup_from_before_the_opening_post_posts_no_second_game_thread_after_status_edits(
        db, bot, clock, fake_reddit, tmp_path):
    """On Reddit the operator's backup was taken while the game's opening post was on its way
    (the store holds it as sent, not known to have landed). The game then ran: the status block
    in the opening post was edited as the leader proposed. The backup is put back: the bot
    looks for the opening post before sending it again, and finds it by its invisible marker,
    which the status-block edits kept. There is one game thread, and no role PM twice."""
    b = bot("reddit", fake=fake_reddit)
    forum, t = b.forum, b.table(start=False)
    url = f"sqlite:///{tmp_path}/bot.db"
    backup = tmp_path / "backup.db"
    post, kinds = forum.post, []

    def watched(out):
        if out.kind == "thread" and not backup.exists():
            _snapshot(url, backup)
        kinds.append(out.kind)
        return post(out)

    forum.post = watched  # type: ignore[method-assign]
    t.start(extra=VOTE)
    t.propose(["alice", "bob"])
    clock.advance(seconds=61)
    t.cycle()
    assert backup.exists() and kinds.count("thread") == 1
    assert "edit" in kinds, kinds  # the block was edited after the opening post went out
    thread = t.game.thread
    _put_back(url, backup)
    t.mod = b.moderator()  # the bot starts again on the restored store
    for _ in range(3):
        clock.advance(seconds=61)
        t.cycle()
    bot_threads = [s for s in fake_reddit.submissions.values() if s["author"] == fake_reddit.bot]
    assert len(bot_threads) == 1, [s["title"] for s in bot_threads]
    assert kinds.count("thread") == 1  # found, not sent again
    assert t.game.thread == thread
    for n in t.players:
        assert [m["subject"] for m in fake_reddit.pms_to(n)].count("G1: your role") == 1, n


def test_status_edits_back_off_while_the_forum_keeps_failing_them(db, clock):
    """The forum answers every status-block edit with a 503 (it names no time to wait), for
    five minutes: the bot tries the edit again with a growing wait, not at every 10-second
    cycle; the game's posts go out meanwhile, and when the forum is well again the newest
    block goes out."""
    random.seed(22)  # (the backoff's jitter)
    t, forum = _told(clock)
    t.start()
    forum.keep = True
    forum.faults = [lambda out: TransientError("503 Service Unavailable") if out.kind == "edit" else None]
    t.propose(["alice", "bob"])
    gaps, last = [], clock()
    tried = len([o for o in forum.tried if o.kind == "edit"])
    for _ in range(30):
        clock.advance(seconds=10)
        t.cycle()
        now = len([o for o in forum.tried if o.kind == "edit"])
        if now > tried:
            gaps.append((clock() - last).total_seconds())
            last, tried = clock(), now
    assert any("proposes" in p for p in t.people.thread(t.game.thread))
    assert 2 <= len(gaps) <= 9, gaps  # (at a fixed wait of up to 15 s: 15 tries or more)
    assert "Still to vote: alice, bob, carol, dave, erin." not in forum.threads()[0]["body"]
    forum.faults = []
    clock.advance(minutes=30)
    t.cycle()
    assert "Still to vote: alice, bob, carol, dave, erin." in forum.threads()[0]["body"]


def test_one_failed_status_edit_late_in_a_game_waits_no_longer_than_the_first_one_would(db, clock):
    """Two missions in, the status block has been edited many times; then the forum answers
    the first try of each of the next four blocks with a 503 (no time named). Each is tried
    again within a first failure's backoff (15 s at most), not after the half hour that the
    block's earlier, successful edits would add up to: the players see each block within
    15 s (a cycle every 5 s)."""
    random.seed(22)  # (the backoff's jitter)
    t, forum = _told(clock)
    t.start(extra=VOTE)
    for _ in range(2):
        t.mission()
        clock.advance(seconds=61)
        t.cycle()
    assert len([o for o in forum.tried if o.kind == "edit"]) >= 6

    def block() -> str:
        return forum.threads()[0]["body"].split("\n---\n")[0]

    steps = [(None, "Still to vote: alice, bob, carol, dave, erin."), ("alice", "Still to vote: bob, carol, dave, erin."),
             ("bob", "Still to vote: carol, dave, erin."), ("carol", "Still to vote: dave, erin.")]
    for who, shown in steps:
        forum.faults = [lambda out: TransientError("503 Service Unavailable") if out.kind == "edit" else None]
        if who is None:
            t.propose()
        else:
            t.say(who, "**APPROVE**")
            t.cycle()
        assert not forum.faults and shown not in block()  # (the edit was tried, and failed)
        for _ in range(3):
            clock.advance(seconds=5)
            t.cycle()
        assert shown in block(), (who, block())


def test_a_status_block_another_run_sent_meanwhile_is_not_sent_again(db, clock):
    """While this run's flush is posting the leader's proposal, another run of the bot on the
    same store (an operator's one-off run) sends the status block that waits, and marks it
    sent. This run does not edit the opening post again with it: nothing overtaken goes out."""
    t, forum = _told(clock)
    t.start()
    key = f"{t.game.tag}:status-block"

    def other_run(out):
        if out.kind == "comment" and "proposes" in out.body:
            row = store.Outbox.get(store.Outbox.key == key)
            assert row.state == "pending"  # (the block that waits behind the proposal)
            store.Outbox.update(state="posted").where(store.Outbox.key == key).execute()
        return None

    forum.faults = [other_run]
    forum.keep = True
    edits = len([o for o in forum.tried if o.kind == "edit"])
    t.propose(["alice", "bob"])
    assert any("proposes" in p for p in t.people.thread(t.game.thread))
    assert len([o for o in forum.tried if o.kind == "edit"]) == edits


def test_with_room_for_every_post_the_edits_share_still_goes_to_the_stalest_blocks(db, bot, clock):
    """Three games whose status blocks change every minute, and a budget of 4 writes a
    minute: room for the three edits, but the edits' share is 2. The two stalest blocks go
    out each minute, so no game's block is more than two minutes behind; not the same two
    games every time while the third never moves."""
    b = bot("local")
    forum, people = b.forum, b.people
    mod = b.moderator(writes_per_minute=None)
    for g in range(3):
        people.pm(f"host{g}", "new game", config_text(["alice", "bob", "carol", "dave", "erin"], seed=g))
    for _ in range(3):
        mod.cycle()
        clock.advance(seconds=61)
    games = list(store.Game.select().order_by(store.Game.id))
    assert len(games) == 3 and all(g.thread for g in games)
    mod.budget.per_minute = 4
    block = re.compile(r"Block of G(\d+), change (\d+)\.")
    for change in range(1, 7):
        store.set_status_edits([(g.id, f"G{g.id}:status-block", f"Block of G{g.id}, change {change}.")
                                for g in games], clock())
        mod.cycle()
        shown = {int(m.group(1)): int(m.group(2)) for t in forum.threads() if (m := block.search(t["body"] or ""))}
        if change >= 3:
            assert all(shown.get(g.id, 0) >= change - 2 for g in games), (change, shown)
        assert sorted(shown.values(), reverse=True)[:2] == [change, change], (change, shown)
        clock.advance(seconds=61)


def test_pms_to_a_player_named_edit_keep_their_order(db, clock):
    """A player's username is "Edit" (any name a forum allows is a name): his role PM is
    rate-limited for two minutes, and the answer to the STATUS he sends meanwhile waits
    behind it, as for anyone; he reads them in the order they were written."""
    forum = Told(clock)
    t = Counted(forum, LocalPeople(forum), clock, players=["alice", "Edit", "carol", "dave", "erin"])
    forum.faults = [lambda out: TransientError("RATELIMIT", 120) if out.kind == "pm" and out.to == "Edit" else None]
    t.start()
    assert not forum.messages_to("Edit")
    t.people.pm("Edit", "G1", "STATUS")
    for _ in range(5):
        clock.advance(seconds=30)
        t.cycle()
    got = [r["subject"] for r in forum.messages_to("Edit")]
    assert len(got) == 2 and got[0] == "G1: your role", got


def test_replies_and_results_filling_the_budget_exactly_all_go_out_in_that_cycle(db, clock):
    """As in the test above, two answers and two results alternate in one thread, and with
    them go two players' orders and the status block: seven writes, and a budget of exactly
    seven a minute. Everything fits, so the posts go in the order they were written (the
    status edit, over its share, waits): the vote's result is not held behind an answer."""
    forum = Told(clock)
    t = Counted(forum, LocalPeople(forum), clock,
                make_moderator=lambda: Moderator(forum, clock=clock, writes_per_minute=7))
    t.start(extra=VOTE)
    clock.advance(seconds=61)
    t.cycle()
    before = len(bot_comments(forum, t.game.thread))
    t.say("carol", "**APPROVE**")
    t.say("alice", "**PROPOSE: alice, bob**")
    t.say("dave", "**PROPOSE: alice, bob**")
    for n in ("alice", "bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    clock.advance(seconds=61)
    report = t.cycle()
    new = bot_comments(forum, t.game.thread)[before:]
    assert len(new) == 4, new
    assert new[3].startswith("The vote on alice's team (alice, bob) is closed"), new
    assert report.posted == 6


def test_a_status_block_another_run_wrote_meanwhile_goes_out_in_place_of_the_older_one(db, clock):
    """While this run's flush is posting the leader's proposal, another run of the bot on the
    same store writes a newer status block. The edit this run then makes carries the newer
    block, once: the older one is never shown, and the post is not edited twice."""
    t, forum = _told(clock)
    t.start()
    game = t.game
    key = f"{game.tag}:status-block"

    def other_run(out):
        if out.kind == "comment" and "proposes" in out.body:
            assert store.Outbox.get(store.Outbox.key == key).state == "pending"
            store.set_status_edit(game.id, key, "Block of G1, written by the other run.", clock())
        return None

    forum.faults = [other_run]
    forum.keep = True
    edits = len([o for o in forum.tried if o.kind == "edit"])
    t.propose(["alice", "bob"])
    sent = [o.body for o in forum.tried if o.kind == "edit"][edits:]
    assert len(sent) == 1 and "Block of G1, written by the other run." in sent[0], sent
    assert forum.threads()[0]["body"].startswith("Block of G1, written by the other run.")
    assert store.Outbox.get(store.Outbox.key == key).state == "posted"


def test_a_host_command_while_the_opening_post_waits_is_shown_once_the_post_is_out(db, clock):
    """The game's opening post is rate-limited for two minutes, and meanwhile the host pauses
    the game by PM: the status block that says so waits for the opening post (nothing is
    edited, and each cycle's report counts nothing that did not go out), then shows it."""
    t, forum = _told(clock)
    forum.faults = [lambda out: TransientError("RATELIMIT", 120) if out.kind == "thread" else None]
    t.people.pm("host", "new game", config_text(t.players))
    t.cycle()
    assert not forum.threads()
    t.people.pm("host", "G1", "PAUSE G1")
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()  # (Counted: each report's count is what went out)
    assert not forum.threads()
    assert not [o for o in forum.tried if o.kind == "edit"]
    clock.advance(seconds=60)
    t.cycle()
    assert forum.threads() and "pause" in forum.threads()[0]["body"].split("\n---\n")[0].lower()


def test_a_games_rate_limited_opening_post_does_not_hold_back_another_games(db, clock):
    """Two hosts start a game in the same cycle; the forum rate-limits G1's opening post for
    two minutes. G2's opening post, its roles and its first post go out at once: only G1's
    own posts wait behind its opening post."""
    t, forum = _told(clock)
    others = ["frank", "gina", "hank", "ivan", "judy"]
    forum.faults = [lambda out: TransientError("RATELIMIT", 120)
                    if out.kind == "thread" and "Test game (G1)" == out.title else None]
    t.people.pm("host", "new game", config_text(t.players))
    t.people.pm("host2", "new game", config_text(others).replace("title: Test game", "title: Other game"))
    t.cycle()
    assert [th["title"] for th in forum.threads()] == ["Other game (G2)"]
    for n in others:
        assert [s for s, _ in pms(forum, n)] == ["G2: your role"], n
    for n in t.players:
        assert not pms(forum, n), n
    clock.advance(seconds=125)
    t.cycle()
    assert sorted(th["title"] for th in forum.threads()) == ["Other game (G2)", "Test game (G1)"]


def test_a_status_block_another_run_wrote_while_an_edit_was_rate_limited_goes_out_after(db, clock):
    """This run edits the opening post with the proposal's status block; while the forum
    answers (a rate limit of 30 s), another run of the bot on the same store writes a newer
    block. Once the limit is over, the newer block is what the opening post shows: the
    rate-limited edit's retry does not bring back the older one."""
    t, forum = _told(clock)
    t.start()
    game = t.game
    key = f"{game.tag}:status-block"

    def other_run(out):
        if out.kind == "edit" and "the vote on alice's team" in out.body and forum.faults:
            store.set_status_edit(game.id, key, "Block of G1, written by the other run.", clock())
            forum.faults.clear()
            return TransientError("RATELIMIT", 30)
        return None

    forum.faults = [other_run]
    forum.keep = True
    t.propose(["alice", "bob"])
    assert not forum.faults  # (the edit was tried, and rate-limited)
    assert "Block of G1, written by the other run." not in forum.threads()[0]["body"]
    for _ in range(3):
        clock.advance(seconds=31)
        t.cycle()
    assert forum.threads()[0]["body"].startswith("Block of G1, written by the other run."), forum.threads()[0]["body"]
    assert store.Outbox.get(store.Outbox.key == key).state == "posted"


@pytest.mark.parametrize("prompt_limited", [False, True])
def test_a_new_games_roles_take_a_tight_minute_before_another_games_status_block(db, clock, prompt_limited):
    """A budget of 9 writes a minute. In one cycle G1's leader proposes (a post, and a new
    status block for G1) and a second host starts G2: its opening post, its first prompt,
    five role PMs and the host's notice. The roles wait for G2's opening post, and go out
    in the cycle that posts it (even when G2's first prompt is rate-limited): all nine
    writes fit the minute, and G1's status block, whose share is half the budget, is the
    one that waits."""
    forum = Told(clock)
    t = Counted(forum, LocalPeople(forum), clock,
                make_moderator=lambda: Moderator(forum, clock=clock, writes_per_minute=None))
    t.start()
    clock.advance(seconds=61)
    t.cycle()
    t.mod.budget.per_minute = 9
    second = ["frank", "gina", "hank", "ivan", "judy"]
    t.people.pm("host2", "new game", config_text(second))
    t.say("alice", "**PROPOSE: alice, bob**")
    if prompt_limited:
        forum.faults = [lambda out: TransientError("RATELIMIT", 30)
                        if out.kind == "comment" and "(proposal 1)" in out.body and "proposes" not in out.body
                        else None]
    report = t.cycle()
    assert not forum.faults  # (the prompt was tried, and rate-limited, if it was to be)
    assert len(forum.threads()) == 2 and report.posted == 9 - prompt_limited
    assert any("alice proposes" in p for p in bot_comments(forum, t.game.thread))
    for n in second:
        assert [s for s, _ in pms(forum, n)] == ["G2: your role"], n
    assert [s for s, _ in pms(forum, "host2")] == ["G2: your game is running"]
    assert "the vote on alice's team" not in forum.threads()[0]["body"]  # G1's block waits its turn
    clock.advance(seconds=61)
    t.cycle()
    assert "the vote on alice's team" in forum.threads()[0]["body"]


def test_with_few_requests_left_a_result_still_goes_out_past_a_reply_that_waits(db, clock):
    """The forum says only a few requests are left (under the low-water mark): answers to
    players wait, but results and prompts still go out. Carol's private vote before any team
    is proposed is answered by PM, written before alice's proposal: the answer waits, and the
    proposal reaches the thread in that same cycle all the same; the answer follows once the
    forum has room again."""
    t, forum = _told(clock)
    t.start(extra=VOTE)
    before = len(bot_comments(forum, t.game.thread))
    carol = len(pms(forum, "carol"))
    forum.left = 5
    t.people.pm("carol", "vote", "**APPROVE**")
    clock.advance(seconds=1)
    t.say("alice", "**PROPOSE: alice, bob**")
    t.cycle()
    new = bot_comments(forum, t.game.thread)[before:]
    assert [c for c in new if c.startswith("alice proposes")], new
    assert len(pms(forum, "carol")) == carol  # the answer waits
    forum.left = None
    clock.advance(seconds=61)
    t.cycle()
    answers = pms(forum, "carol")[carol:]
    assert len(answers) == 1 and "No team vote is open now" in answers[0][1], answers


def test_a_restarted_bot_checks_its_posts_before_its_first_post_however_long_only_edits_went_out(db, clock):
    """After a restart the bot reads its own newest posts once, before its first post, to
    learn whether its database is behind the forum (a restored backup): it gives up after a
    few failed reads. While only status-block edits go out (players vote; an edit is never
    sent twice by mistake) the check is not needed and not tried, so a forum whose history
    cannot be read in those cycles does not use up its tries: when the vote's result is
    posted, the check is made first."""
    t, forum = _told(clock)
    t.start(extra=VOTE)
    t.say("alice", "**PROPOSE: alice, bob**")
    t.cycle()
    reads: list[str] = []
    down = [True]

    def own_marks():
        reads.append("down" if down[0] else "read")
        if down[0]:
            raise TransientError("the bot's post history cannot be read")
        return []

    forum.own_marks = own_marks  # type: ignore[method-assign]
    t.cycle(fresh=True)  # a new process
    tried = len(forum.tried)
    for n in ("alice", "bob", "carol"):
        clock.advance(seconds=61)
        t.say(n, "**APPROVE**")
        t.cycle()
    assert {o.kind for o in forum.tried[tried:]} == {"edit"}, forum.tried[tried:]  # only edits went out
    assert reads == []  # and the history was not read for them
    down[0] = False
    tried = len(forum.tried)
    for n in ("dave", "erin"):
        clock.advance(seconds=61)
        t.say(n, "**APPROVE**")
        t.cycle()
    assert any(o.kind == "comment" and "is closed" in o.body for o in forum.tried[tried:])  # the result
    assert "read" in reads, reads  # the check was made before it
