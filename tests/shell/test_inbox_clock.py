"""Issue 21, item 9: the clock of a command (variants.md). A command counts at the forum's
stamp, capped at the time the bot read it: a forum clock ahead of the bot's never moves a
vote past a deadline it was read before. Through the cycle, on the fake Reddit (real praw)
and the local forum, whose clocks are skewed from the bot's."""
from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot import store
from forumbot.rules import deadlines
from tests.fakes.bots import make_bot
from tests.fakes.clock import Clock
from tests.fakes.table import Table

VOTE = "deadlines: {team_vote: 20s, close_early: false}\nmissed: {team_vote: abstain}\n"


def skewed_table(kind: str, clock: Clock, skew: float, extra: str = VOTE) -> Table:
    """A table whose forum's clock is `skew` seconds ahead of the bot's (behind if < 0)."""
    b = make_bot(kind, clock, forum_clock=lambda: clock() + timedelta(seconds=skew))
    return b.table(5, extra=extra)


@pytest.fixture(params=["local", "reddit"])
def skewed(request, db, clock):
    made = []

    def make(skew, extra=VOTE):
        t = skewed_table(request.param, clock, skew, extra)
        made.append(t)
        return t

    yield make
    for t in made:
        if t.fake is not None:
            t.fake.stop()


def _vote_late_in_the_window(t: Table, clock: Clock, before: float) -> None:
    """bob and carol approve, dave and erin reject at once; alice (the leader) approves
    `before` seconds before the deadline, by the bot's clock; then the deadline passes."""
    t.propose()
    for n, word in (("bob", "APPROVE"), ("carol", "APPROVE"), ("dave", "REJECT"), ("erin", "REJECT")):
        t.say(n, f"**{word}**")
    t.cycle()
    due = deadlines.due(t.state)
    assert due is not None and t.state.phase == "team_vote"
    clock.at = due - timedelta(seconds=before)
    t.say("alice", "**APPROVE**")
    t.cycle()
    for _ in range(4):
        clock.advance(seconds=30)
        t.cycle()


def test_a_forum_clock_ahead_never_moves_a_vote_past_its_deadline(skewed, clock):
    t = skewed(60)
    _vote_late_in_the_window(t, clock, before=15)
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "approve" and v["defaulted"] == []
    assert v["approved"] is True  # 3 to 2, not 2 to 2


def test_a_stored_command_counts_at_the_forum_stamp_capped_at_its_read(skewed, clock):
    t = skewed(60)
    t.say("bob", "**APPROVE**")
    read = clock()
    t.cycle()
    row = store.Inbound.select().where(store.Inbound.body == "**APPROVE**").get()
    assert store.aware(row.created) == read  # not the forum's stamp, a minute in the bot's future


def test_a_forum_clock_behind_still_counts_a_vote_sent_in_time(skewed, clock):
    """The other direction: the forum stamps a minute early. A vote sent before the deadline
    counts at its (earlier) stamp, even when the bot reads it only after the deadline."""
    t = skewed(-60, extra="deadlines: {team_vote: 2m, close_early: false}\nmissed: {team_vote: abstain}\n")
    t.propose()
    for n, word in (("bob", "APPROVE"), ("carol", "APPROVE"), ("dave", "REJECT"), ("erin", "REJECT")):
        t.say(n, f"**{word}**")
    t.cycle()
    due = deadlines.due(t.state)
    clock.at = due - timedelta(seconds=10)  # by the bot's clock: and 70 s early by the forum's
    t.say("alice", "**APPROVE**")
    clock.at = due + timedelta(seconds=30)  # the bot reads it after the deadline
    for _ in range(3):
        t.cycle()
        clock.advance(seconds=30)
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "approve" and v["approved"] is True


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(skew=st.integers(min_value=0, max_value=3600), before=st.integers(min_value=1, max_value=19))
def test_property_a_vote_read_before_its_deadline_counts_whatever_the_forum_clock_ahead(tmp_path_factory, skew,
                                                                                         before):
    """Invariants: whatever the skew ahead, a vote read before the deadline (by the bot's
    clock) counts, the cycle raises nothing, and the vote's result is posted once."""
    from tests.conftest import _reset

    path = tmp_path_factory.mktemp("skew")
    _reset(f"sqlite:///{path}/bot.db")
    clock = Clock()
    try:
        t = skewed_table("local", clock, skew)
        _vote_late_in_the_window(t, clock, before=before)
        v = t.export()["votes"]
        assert len(v) == 1 and v[0]["votes"]["alice"] == "approve" and v[0]["approved"] is True
        closed = [p for p in t.people.thread(t.game.thread) if "is closed" in p]
        assert len(closed) == 1
    finally:
        store.close()



def test_a_forum_clock_behind_holds_a_deadline_until_the_forum_was_read_up_to_it(skewed, clock):
    """The forum stamps a minute early and the vote lasts 20 s: by the bot's clock its
    deadline has passed when the bot reads the PROPOSE. It still closes only once the
    forum has been read up to it in the forum's own time, so the votes sent in the
    next seconds (in time by the forum's stamps) count."""
    t = skewed(-60)
    t.propose()
    assert t.state.phase == "team_vote"  # not closed at once, with every vote missing
    behind = timedelta(seconds=t.mod.horizon.behind)
    assert behind >= timedelta(seconds=55)
    assert t.mod.next_deadline() == t.mod.clockwork.next_deadline() + behind  # when `run` wakes for it
    clock.advance(seconds=5)
    for n, word in (("alice", "APPROVE"), ("bob", "APPROVE"), ("carol", "APPROVE"), ("dave", "REJECT"),
                    ("erin", "REJECT")):
        t.say(n, f"**{word}**")
    for _ in range(3):
        t.cycle()
        clock.advance(seconds=30)
    (v,) = t.export()["votes"]
    assert v["defaulted"] == [] and v["approved"] is True


def test_a_message_read_again_is_no_sign_of_a_clock_behind(db, clock, local_game):
    """A PM the forum lists again (its mark-read was lost) or a comment read again in an
    overlap carries an old stamp: only what is new to the inbox tells the forum's clock."""
    t = local_game(extra=VOTE)
    t.forum.mark_read = lambda ids: None  # every PM stays unread, and is listed again
    t.pm("bob", "STATUS")
    for _ in range(4):
        t.cycle()
        clock.advance(seconds=60)
    assert t.mod.horizon.behind == 0
