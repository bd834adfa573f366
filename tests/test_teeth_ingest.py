"""Issue 22 ("tests with teeth"): the inbox loop, through whole cycles. Each test here was
seen to fail with a mutant of forumbot/ingest.py: a message the database (or a bug)
refused that no longer holds the deadline it could concern, later messages handled before
an earlier one the database refused, a flood's excess that no longer holds the deadline."""
from __future__ import annotations

import peewee

from forumbot import store
from forumbot.limits import PER_AUTHOR_PER_CYCLE
from forumbot.moderator import Moderator

VOTE = "deadlines: {team_vote: 1h, close_early: false}\nmissed: {team_vote: reject}\n"


def _refuse(monkeypatch, when):
    """The database refuses the handling of the messages `when(row)` picks (a lock: not
    the message's fault), while `on["on"]`."""
    handle = Moderator._handle
    on = {"on": True, "refused": 0}

    def locked(self, row):
        if on["on"] and when(row):
            on["refused"] += 1
            raise peewee.OperationalError("database is locked")
        return handle(self, row)

    monkeypatch.setattr(Moderator, "_handle", locked)
    return on


def test_a_changed_vote_stands_when_the_database_refused_the_first_one(local_game, clock, monkeypatch):
    """alice approves, then changes her mind and rejects. The database refuses her first
    comment in that cycle: her second waits behind it, so that the next cycle handles them
    in the order she wrote them, and the vote counts her REJECT."""
    t = local_game(extra=VOTE)
    t.propose()
    on = _refuse(monkeypatch, lambda row: row.author == "alice" and "APPROVE" in row.body)
    t.say("alice", "**APPROVE**")
    clock.advance(seconds=5)
    t.say("alice", "I changed my mind: **REJECT**")
    t.cycle()
    assert on["refused"] >= 1
    on["on"] = False
    clock.advance(seconds=30)
    t.cycle()
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    clock.advance(minutes=61)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "reject", v
    assert v["defaulted"] == []


def test_a_vote_the_database_refused_before_the_deadline_still_counts(local_game, clock, monkeypatch):
    """alice votes a minute before the deadline; the bot reads it after the deadline, and
    the database refuses its handling in that cycle. The deadline waits for it: the next
    cycle counts her vote instead of defaulting it."""
    t = local_game(extra=VOTE)
    t.propose()
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=59)
    on = _refuse(monkeypatch, lambda row: row.author == "alice")
    t.say("alice", "**APPROVE**")
    clock.advance(minutes=2)
    t.cycle()
    assert on["refused"] >= 1
    assert t.state.phase == "team_vote", "the deadline closed without a vote cast in time"
    on["on"] = False
    clock.advance(seconds=30)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "approve" and v["defaulted"] == [] and v["approved"] is True


def test_a_vote_behind_a_senders_flood_still_counts_at_the_deadline(local_game, clock):
    """A player's many comments in one cycle: the bot handles PER_AUTHOR_PER_CYCLE of them
    and leaves the rest for the next cycles. Her vote, the last of them and written before
    the deadline, holds the deadline until its turn comes: it counts."""
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
    t.cycle()
    assert t.state.phase == "team_vote", "the deadline closed before her vote's turn came"
    clock.advance(seconds=30)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "approve" and v["defaulted"] == [], v


def test_a_bug_on_a_vote_before_the_deadline_holds_it_one_cycle_only(local_game, clock, monkeypatch):
    """A vote whose handling raises (a bug, not the database): the deadline waits one cycle
    for its retry, then closes without it; the message is not tried a third time."""
    t = local_game(extra=VOTE)
    t.propose()
    handle = Moderator._handle
    tried = []

    def buggy(self, row):
        if row.author == "alice":
            tried.append(row.ext_id)
            raise KeyError("a bug")
        return handle(self, row)

    monkeypatch.setattr(Moderator, "_handle", buggy)
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=59)
    t.say("alice", "**APPROVE**")  # (alone in its cycle: no batch to fall back from)
    clock.advance(minutes=2)
    t.cycle()
    assert t.state.phase == "team_vote"  # held for the retry
    for _ in range(4):
        clock.advance(seconds=30)
        t.cycle()
    assert len(tried) == 2
    v = t.export()["votes"][0]
    assert v["defaulted"] == ["alice"] and v["approved"] is True
    (row,) = store.Inbound.select().where((store.Inbound.author == "alice") & (store.Inbound.kind == "comment")
                                          & store.Inbound.body.contains("APPROVE"))
    assert row.state == "error"


def test_a_pm_vote_changed_by_a_later_comment_counts_the_comment(local_game, clock):
    """alice votes by PM, then changes her mind in the thread; the bot reads both in one
    cycle (the forum lists the thread's comments before the inbox). They are handled in
    the order she wrote them: her REJECT stands."""
    t = local_game(extra=VOTE)
    t.propose()
    t.pm("alice", "APPROVE")
    clock.advance(seconds=20)
    t.say("alice", "on second thought, **REJECT**")
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=61)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "reject", v


def test_a_hosts_message_set_aside_tells_the_host_once(local_game, clock, monkeypatch):
    """The host's own command raises (a bug) until it is set aside: the host hears of it
    once, not once as the host and again as its sender."""
    t = local_game()
    handle = Moderator._handle

    def buggy(self, row):
        if row.author == "host" and "EXTEND" in row.body:
            raise KeyError("a bug")
        return handle(self, row)

    monkeypatch.setattr(Moderator, "_handle", buggy)
    before = len(t.people.pms_to("host"))
    t.pm("host", f"EXTEND {t.game.tag} 6h")
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    (row,) = store.Inbound.select().where(store.Inbound.body.contains("EXTEND"))
    assert row.state == "error"
    told = t.people.pms_to("host")[before:]
    assert len(told) == 1 and "could not handle a PM from host" in told[0], told
