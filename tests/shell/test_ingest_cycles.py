"""The inbox loop and the reading of the forum, through whole cycles: a sender's share of
one cycle, a message that must wait behind a deadline, a thread read only in part, which
messages are marked read, and the edit re-check taking turns."""
from __future__ import annotations

import dataclasses
from datetime import timedelta

from adapters.base import Fetched, TransientError
from forumbot import store
from forumbot.limits import PER_AUTHOR_PER_CYCLE
from forumbot.render import ops
from forumbot.rules import deadlines
from tests.fakes.forums import Bbforum, pms
from tests.fakes.table import config_text
from tests.support.ingest import VOTE, plant_bug


def test_a_sender_writing_her_full_share_has_every_message_handled_in_that_cycle(local_game, clock):
    """alice writes exactly PER_AUTHOR_PER_CYCLE comments, her vote the last, a few minutes
    before the deadline; the bot reads them all after it. Her share of the cycle takes them
    all: the vote closes in that same cycle, with her vote counted."""
    t = local_game(extra=VOTE)
    t.propose()
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=55)
    for i in range(PER_AUTHOR_PER_CYCLE - 1):
        t.say("alice", f"thinking out loud, part {i}")
    t.say("alice", "**APPROVE**")
    clock.advance(minutes=6)
    report = t.cycle()
    assert report.handled == PER_AUTHOR_PER_CYCLE
    assert t.state.phase != "team_vote", "the deadline waited for a message already handled"
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "approve" and v["defaulted"] == [], v


def test_a_vote_read_behind_more_messages_than_one_transaction_takes_still_counts(local_game, clock):
    """A busy thread: six onlookers write their full share of a cycle each (more messages
    than the bot handles in one transaction, ingest.BATCH), then alice votes, all before the
    deadline; the bot reads them all after it. Every one of them is handled in that cycle,
    hers too: the vote closes with her vote counted."""
    from forumbot.shell.ingest import BATCH

    t = local_game(extra=VOTE)
    t.propose()
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=55)
    onlookers = [f"fan{k}" for k in range(6)]
    for i in range(PER_AUTHOR_PER_CYCLE):
        for n in onlookers:
            t.say(n, f"go team, part {i}")
    assert len(onlookers) * PER_AUTHOR_PER_CYCLE > BATCH
    t.say("alice", "**APPROVE**")
    clock.advance(minutes=6)
    report = t.cycle()
    assert report.handled == len(onlookers) * PER_AUTHOR_PER_CYCLE + 1
    assert t.state.phase != "team_vote"
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "approve" and v["defaulted"] == [], v


def test_two_votes_stamped_the_same_second_are_handled_in_the_order_the_forum_lists_them(local_game, clock):
    """A forum stamps comments to the second (Reddit's created_utc): alice approves, then
    rejects, within one second. The bot handles them in the order the forum lists them,
    also when the second's comment id has one digit more (c10 after c9, which sorts first
    as text): her REJECT stands."""
    t = local_game(extra=VOTE)
    t.propose()

    def next_id():
        return max(c["id"] for c in t.forum.thread_comments(t.game.thread)) + 1

    clock.advance(seconds=30)
    while len(str(next_id() + 1)) == len(str(next_id())):
        t.say("bob", "waiting for the votes")
    first = next_id()
    t.say("alice", "**APPROVE**")
    t.say("alice", "no, **REJECT**")  # (the same second)
    assert first in (9, 99) and next_id() == first + 2, first
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=61)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "reject", v


def test_a_vote_changed_after_the_deadline_waits_behind_an_earlier_flood_and_does_not_count(local_game, clock):
    """alice floods the thread before the deadline, her vote behind her share of the cycle;
    bob changes his vote after the deadline, read in the same cycle. bob's change waits
    (the deadline before it cannot close while alice's vote waits), the other games' and
    messages are handled; the next cycle counts alice's vote, closes the deadline, and
    bob's late change counts for nothing."""
    t = local_game(extra=VOTE)
    t.propose()
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=55)
    for i in range(PER_AUTHOR_PER_CYCLE):
        t.say("alice", f"thinking out loud, part {i}")
    t.say("alice", "**APPROVE**")
    clock.advance(minutes=6)
    t.say("bob", "too late, but **REJECT**")
    report = t.cycle()
    assert report.handled == PER_AUTHOR_PER_CYCLE
    assert t.state.phase == "team_vote"
    (late,) = store.Inbound.select().where(store.Inbound.body.contains("too late"))
    assert late.state == "new"
    clock.advance(seconds=30)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "approve" and v["votes"]["bob"] == "approve" and v["defaulted"] == [], v


class Partforum(Bbforum):
    """Bbforum whose threads in `partial` are read only in part; it records what the bot
    marks read."""

    def __init__(self, clock):
        super().__init__(clock)
        self.partial: set[str] = set()
        self.marked: list[str] = []

    def fetch(self, threads, cursor):
        got = super().fetch(threads, cursor)
        return Fetched(got.inbound, got.cursor, failed=got.failed,
                       partial={t for t in threads if t in self.partial})

    def mark_read(self, ids):
        self.marked += list(ids)
        super().mark_read(ids)


def _part(clock):
    from tests.fakes.table import LocalPeople, Table
    forum = Partforum(clock)
    return Table(forum, LocalPeople(forum), clock), forum


def _every_vote_in(clock):
    """A game on the partial-read forum whose team vote has every vote in, and its deadline."""
    t, forum = _part(clock)
    t.start(extra=VOTE)
    t.propose()
    for n in ("alice", "bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    return t, forum, deadlines.due(t.state)


def test_a_thread_read_in_part_holds_its_deadline_and_its_host_learns_why(db, clock):
    """Every vote is in; then the game thread can be read only in part (no error). Its
    deadline waits: after WAIT_NOTICE its host is told why; once the thread is read in
    full, the vote closes."""
    t, forum, due = _every_vote_in(clock)
    forum.partial = {t.game.thread}
    clock.advance(minutes=61)
    t.cycle()
    assert t.state.phase == "team_vote", "the deadline closed on a thread read in part"
    before = pms(forum, "host")
    clock.advance(minutes=61)
    t.cycle()
    assert t.state.phase == "team_vote"
    assert pms(forum, "host")[len(before):] == [
        ("G1: a deadline is waiting", ops.deadline_waits("G1", due, "the forum could not be read (read in part)"))]
    forum.partial = set()
    clock.advance(seconds=30)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["approved"] is True and v["defaulted"] == [], v


def test_a_thread_failing_and_read_in_part_tells_its_host_the_failure(db, clock):
    """A thread whose read fails (403) while the forum also reports it read in part: the
    host is told the failure, not "read in part"."""
    t, forum, due = _every_vote_in(clock)
    forum.partial = forum.unreadable = {t.game.thread}
    before = pms(forum, "host")
    clock.advance(minutes=61)
    t.cycle()
    clock.advance(minutes=61)
    t.cycle()
    waits = [b for s, b in pms(forum, "host")[len(before):] if "has not closed yet" in b]
    assert waits == [ops.deadline_waits("G1", due, "the forum could not be read (403 Forbidden)")]


def test_only_the_pms_read_are_marked_read(db, clock):
    """A cycle reads comments and PMs: the bot marks the PMs read on the forum (each once),
    never a comment (on Reddit each mark is a request)."""
    t, forum = _part(clock)
    t.start(extra=VOTE)
    t.propose()
    forum.marked.clear()
    t.say("bob", "**APPROVE**")
    t.pm("carol", "APPROVE")
    t.people.pm("zed", "hello", "what is this?")
    t.cycle()
    ids = {r.ext_id: r.kind for r in store.Inbound.select().where(store.Inbound.author.in_(["bob", "carol", "zed"]))}
    assert sorted(ids.values()) == ["comment", "pm", "pm"]
    assert sorted(forum.marked) == sorted(i for i, k in ids.items() if k == "pm")


def test_the_edit_recheck_takes_turns_within_its_limit(local_game, clock):
    """Five votes stand in an open phase and the forum re-checks two comments a cycle: each
    cycle asks for at most two, and in turn all of them, each turn going on where the last
    one stopped; an edit of any of them, made
    after several cycles, is noticed once."""
    t = local_game(extra=VOTE)
    t.propose()
    for n in ("alice", "bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    t.mod.recheck_limit = 2
    asked: list[list[str]] = []
    recheck = t.forum.recheck

    def counted(ids):
        asked.append(list(ids))
        return recheck(ids)

    t.forum.recheck = counted
    for _ in range(6):
        clock.advance(seconds=30)
        t.cycle()
    assert asked and all(len(a) <= 2 for a in asked), asked
    votes = {r.ext_id for r in store.Inbound.select().where(
        (store.Inbound.kind == "comment") & store.Inbound.body.contains("**APPROVE**"))}
    assert votes <= {i for a in asked[-3:] for i in a}, asked
    order = {r.ext_id: n for n, r in enumerate(store.Inbound.select().where(
        store.Inbound.ext_id.in_({i for a in asked for i in a})).order_by(store.Inbound.id))}
    for a, b in zip(asked, asked[1:]):  # each turn goes on where the last one stopped, oldest first
        assert order[b[0]] == (order[a[-1]] + 1) % len(order), asked
    comments = {c["author"]: c["id"] for c in t.forum.thread_comments(t.game.thread)}
    for who in ("erin", "alice"):
        t.forum.edit_comment(f"c{comments[who]}", "**REJECT**")
        for _ in range(4):
            clock.advance(seconds=30)
            t.cycle()
    edits = [p for p in t.people.thread(t.game.thread) if "Editing a comment" in p]
    assert sorted(e.split(":")[0] for e in edits) == ["@alice", "@erin"], edits
    assert all(len(a) <= 2 for a in asked), asked


class Slowforum(Bbforum):
    """Bbforum that refuses, for now, to open new threads (a transient error)."""

    def __init__(self, clock):
        super().__init__(clock)
        self.no_threads = False

    def post(self, out):
        if out.kind == "thread" and self.no_threads:
            raise TransientError("503 Service Unavailable", retry_after=10)
        return super().post(out)


def test_a_pm_set_aside_before_its_games_thread_is_open_is_told_to_the_host_after_it(db, clock, monkeypatch):
    """G2 starts while the forum will not open its thread yet. alice's PM about G2 raises (a
    bug) until it is set aside. The host of G2 hears of it only after G2's opening post is
    out (the game's PMs wait behind it), and then once."""
    from tests.fakes.table import LocalPeople, Table
    forum = Slowforum(clock)
    t = Table(forum, LocalPeople(forum), clock)
    t.start()
    plant_bug(monkeypatch, lambda row: "#bug" in row.body, KeyError("a bug"))
    forum.no_threads = True
    t.people.pm("host2", "new game", config_text(["alice", "frank", "gina", "hank", "ivan"]))
    t.cycle()
    (g2,) = [g for g in store.Game.select() if g.tag == "G2"]
    assert g2.status == "running" and g2.thread is None
    t.people.pm("alice", "G2", "a question #bug")
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    (row,) = store.Inbound.select().where(store.Inbound.body.contains("#bug"))
    assert row.state == "error"
    assert not [b for s, b in pms(forum, "host2") if "could not handle" in b]
    forum.no_threads = False
    for _ in range(2):
        clock.advance(seconds=30)
        t.cycle()
    g2 = store.Game.get_by_id(g2.id)
    assert g2.thread is not None
    told = [b.split(" sent ")[0] for s, b in pms(forum, "host2") if "could not handle" in b]
    assert told == ["G2: I could not handle a PM from alice"], told


def test_a_message_waiting_behind_one_games_deadline_does_not_hold_another_games(db, clock):
    """G1's thread cannot be read, so its deadline waits; bob then votes again in G1 by PM,
    after G1's deadline, and so does carol: their PMs wait too. G2's deadline, due after
    their PMs were written, closes on time: they hold G1 only."""
    t, forum = _part(clock)
    t.start(extra=VOTE)
    g1 = t.game_id
    t.propose()
    clock.advance(minutes=10)
    t.people.pm("host2", "new game", config_text(["frank", "gina", "hank", "ivan", "judy"], extra=VOTE))
    t.cycle()
    t.cycle()
    g2 = store.Game.select().order_by(store.Game.id.desc()).first().id
    t.game_id = g2
    t.propose()
    for n in ("frank", "gina", "hank", "ivan", "judy"):
        t.say(n, "**APPROVE**")
    t.game_id = g1
    for n in ("alice", "bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    forum.unreadable = {t.game.thread}
    clock.advance(minutes=20)
    t.cycle()
    clock.advance(minutes=35)  # past G1's deadline, before G2's
    t.pm("bob", "APPROVE")
    t.pm("carol", "APPROVE")
    clock.advance(minutes=10)  # past both
    t.cycle()
    assert t.state.phase == "team_vote"
    late = store.Inbound.select().where(store.Inbound.author.in_(["bob", "carol"]) & (store.Inbound.kind == "pm"))
    assert [r.state for r in late] == ["new", "new"]
    t.game_id = g2
    assert t.state.phase != "team_vote", "G2's deadline waited for a message of G1"
    assert t.export()["votes"][0]["approved"] is True


def test_a_thread_unreadable_for_exactly_ten_minutes_is_told_to_its_host(db, clock):
    """The game thread was last read at T; from then on it cannot be read. At T+599s its
    host has heard nothing; the read at T+600s, ten minutes on, tells him."""
    t, forum = _part(clock)
    t.start()
    t.cycle()
    forum.unreadable = {t.game.thread}
    before = pms(forum, "host")
    clock.advance(seconds=599)
    t.cycle()
    assert pms(forum, "host") == before
    clock.advance(seconds=1)
    t.cycle()
    assert [s for s, b in pms(forum, "host")[len(before):]] == ["G1: I cannot read the game thread"]


class Askedorder(Bbforum):
    """Bbforum that answers a re-check in the order asked (as Reddit's info() does)."""

    def recheck(self, ids):
        got = {m.id: m for m in super().recheck(ids)}
        return [got[i] for i in ids if i in got]


def test_edits_noticed_in_one_cycle_are_answered_oldest_comment_first(db, clock):
    """The leader's proposal and three votes, then two more votes in a later cycle (the
    re-check takes six comments a cycle), bob chatting before them; then the proposal and
    erin's vote (the last) are edited, and the bot notices both in one cycle: its notices
    follow the order of the comments, the proposal's first (also when erin's comment id has
    more digits than the proposal's, c10 after c2, which sorts first as text)."""
    from tests.fakes.table import LocalPeople, Table
    forum = Askedorder(clock)
    t = Table(forum, LocalPeople(forum), clock)
    t.start(extra=VOTE)
    t.mod.recheck_limit = 6
    t.propose()
    for n in ("alice", "bob", "carol"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(seconds=30)
    t.say("bob", "dave, erin: your turn")
    t.say("bob", "we are waiting")
    for n in ("dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    (proposal,) = [c for c in forum.thread_comments(t.game.thread)
                   if c["body"].startswith("**PROPOSE") and c["author"] != forum.bot_name]
    (erins,) = [c for c in forum.thread_comments(t.game.thread) if c["author"] == "erin"]
    assert len(str(erins["id"])) > len(str(proposal["id"])), (erins["id"], proposal["id"])
    forum.edit_comment(f"c{erins['id']}", "**REJECT**")
    forum.edit_comment(f"c{proposal['id']}", "**PROPOSE: carol, dave**")
    clock.advance(seconds=30)
    t.cycle()
    clock.advance(seconds=30)
    t.cycle()
    edits = [p.split(":")[0] for p in t.people.thread(t.game.thread) if "Editing a comment" in p]
    assert edits == [f"@{proposal['author']}", "@erin"], edits


class Lateforum(Bbforum):
    """Bbforum whose clock is `lag` behind the bot's: it stamps what it lists that much
    earlier."""

    def __init__(self, clock):
        super().__init__(clock)
        self.lag = timedelta(0)

    def fetch(self, threads, cursor):
        got = super().fetch(threads, cursor)
        inbound = [dataclasses.replace(m, created=m.created - self.lag) for m in got.inbound]
        return Fetched(inbound, got.cursor, failed=got.failed)


def _late(clock):
    from tests.fakes.table import LocalPeople, Table
    forum = Lateforum(clock)
    return Table(forum, LocalPeople(forum), clock), forum


def test_a_vote_stamped_in_time_by_a_forum_clock_behind_still_counts(db, clock):
    """The forum's clock is 90 seconds behind the bot's; the bot learns it from a comment it
    reads. alice votes 40 seconds after the deadline by the bot's clock, 50 before it by the
    forum's: the deadline waits for her, and her vote counts."""
    t, forum = _late(clock)
    forum.lag = timedelta(seconds=90)
    t.start(extra=VOTE)
    t.propose()
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(seconds=10)
    t.say("bob", "waiting for alice")
    clock.advance(seconds=20)
    t.cycle()
    due = deadlines.due(t.state)
    clock.advance(seconds=(due - clock()).total_seconds() + 30)
    t.cycle()
    assert t.state.phase == "team_vote", "the deadline closed by a forum clock that is behind"
    clock.advance(seconds=10)
    t.say("alice", "**APPROVE**")
    for _ in range(4):
        clock.advance(seconds=30)
        t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "approve" and v["defaulted"] == [], v


def test_comments_found_after_a_thread_outage_do_not_delay_later_deadlines(db, clock):
    """The game thread cannot be read for five minutes, ten minutes before the deadline;
    bob chats meanwhile. Once the thread is read again, the late-found comment is no sign of
    a forum clock behind: the deadline closes on time."""
    t, forum = _late(clock)
    t.start(extra=VOTE)
    t.propose()
    for n in ("alice", "bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    due = deadlines.due(t.state)
    clock.advance(seconds=(due - clock()).total_seconds() - 600)
    t.cycle()
    forum.unreadable = {t.game.thread}
    for i in range(10):
        clock.advance(seconds=30)
        if i == 1:
            t.say("bob", "still here")
        t.cycle()
    forum.unreadable = set()
    clock.advance(seconds=30)
    t.cycle()
    clock.advance(seconds=(due - clock()).total_seconds() + 30)
    t.cycle()
    assert t.state.phase != "team_vote", "the deadline waited for a clock behind that is not"


def test_a_vote_whose_id_another_forum_used_in_the_same_database_still_counts(local_game, clock):
    """One database serves two forums (a Reddit and a Discourse bot, say) whose ids can be the
    same: a message is "already read" only if this forum's inbox holds it. A vote whose id the
    other forum's inbox holds is stored and counts."""
    t = local_game()
    t.propose()
    at = store.naive(clock())
    store.Inbound.insert_many([dict(forum="elsewhere", ext_id=f"c{n}", kind="comment", author="zed", body="hi",
                                    created=at, state="done") for n in range(1, 400)]).execute()
    t.say("bob", "**APPROVE**")
    t.cycle()
    assert t.state.votes.get("bob") == "approve"
