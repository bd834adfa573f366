"""Deadlines with teeth (issue 22): scripted games on the local forum whose clock is driven
the way the scheduler drives it (woken at the bot's next deadline), each with a bound on the
wake-ups, so that a vote closed while votes are missing, a deadline that closes early, a
reminder sent twice or a clock that never rests fails here, and never hangs."""
from datetime import datetime, timedelta

import pytest

MINUTE = timedelta(minutes=1)


@pytest.fixture
def make(local_game):
    return local_game


def wake(t, until, most: int) -> list[datetime]:
    """Wake the bot as its scheduler does (`scheduler.plan_deadline`: at its next deadline,
    at the earliest a second from now) until `until()` holds; the times it woke at. Fails
    after `most` wake-ups: a clock that never rests fails here, it does not hang."""
    times = []
    for _ in range(most):
        nxt = t.mod.next_deadline()
        assert nxt is not None, f"the bot has nothing to wake up for (woke at {times})"
        t.clock.at = max(nxt, t.clock.at + timedelta(seconds=1))
        times.append(t.clock.at)
        t.cycle()
        if until():
            return times
    raise AssertionError(f"not done after {most} wake-ups: {times}")


def reminders(t, name: str, words: str = "") -> list[str]:
    return [p for p in t.people.pms_to(name) if "reminder" in p and words in p]


def phase_is(t, phase: str):
    return lambda: t.state.phase == phase


def test_close_grace_never_closes_a_vote_while_votes_are_missing(make, clock):
    t = make(extra="deadlines: {team_vote: 2h, close_grace: 10m, remind_before: none}\n"
                   "missed: {team_vote: reject}\n")
    t.propose(["alice", "bob"])
    opened = t.state.phase_opened_at
    t.vote_all(True, skip=["dave", "erin"])
    clock.advance(minutes=30)
    t.say("dave", "**APPROVE**")  # the last vote so far; erin's is missing
    t.cycle()
    for _ in range(4):  # well past the grace after the last vote: the vote waits for erin
        clock.advance(minutes=11)
        t.cycle()
        assert t.state.phase == "team_vote" and t.export()["votes"] == []
    # and the bot's next wake-up is the deadline itself, not the grace after dave's vote
    assert t.mod.next_deadline() == opened + timedelta(hours=2)
    t.say("erin", "**REJECT**")  # everyone has voted: it closes the grace after this vote
    t.cycle()
    voted = clock()
    assert t.state.phase == "team_vote"  # not at once: the grace first
    assert wake(t, phase_is(t, "mission"), most=1) == [voted + 10 * MINUTE]
    v = t.export()["votes"][0]
    assert v["defaulted"] == [] and v["votes"]["erin"] == "reject" and v["votes"]["dave"] == "approve"


def test_close_grace_without_missing_votes_closes_nothing_early(make, clock):
    """Four of five votes in at once, erin's never: the grace after them ends nothing."""
    t = make(extra="deadlines: {team_vote: 1h, close_grace: 10m, remind_before: none}\n")
    t.propose(["alice", "bob"])
    opened = t.state.phase_opened_at
    t.vote_all(True, skip=["erin"])
    # nobody else votes: the vote closes at its deadline, with erin's default, not before
    assert wake(t, phase_is(t, "mission"), most=1) == [opened + timedelta(hours=1)]
    assert t.export()["votes"][0]["defaulted"] == ["erin"]


def test_close_grace_does_nothing_without_close_early(make, clock):
    t = make(extra="deadlines: {team_vote: 2h, close_early: false, close_grace: 10m, remind_before: none}\n")
    t.propose(["alice", "bob"])
    opened = t.state.phase_opened_at
    t.vote_all(True)  # everyone has voted: still open until the deadline
    assert wake(t, phase_is(t, "mission"), most=1) == [opened + timedelta(hours=2)]
    assert t.export()["votes"][0]["defaulted"] == []


def test_reminders_once_per_phase_and_the_clock_rests_after_each(make, clock):
    """Every phase: one reminder to who has not acted at `remind_before` the deadline, then
    nothing until the deadline (a reminder not marked as sent would wake the bot again
    and again: in the demo, a hang)."""
    t = make(extra="deadlines: {proposal: 1h, team_vote: 1h, mission: 1h, remind_before: 20m}\n")
    opened = t.state.phase_opened_at
    assert wake(t, lambda: t.state.leader == "bob", most=2) == [opened + 40 * MINUTE, opened + 60 * MINUTE]
    assert len(reminders(t, "alice", "post your team")) == 1
    assert not reminders(t, "bob")
    t.propose(["bob", "carol"])
    opened = t.state.phase_opened_at
    t.vote_all(True, skip=["dave", "erin"])
    assert wake(t, phase_is(t, "mission"), most=2) == [opened + 40 * MINUTE, opened + 60 * MINUTE]
    assert [len(reminders(t, n, "vote on the team")) for n in ("alice", "bob", "carol", "dave", "erin")] \
        == [0, 0, 0, 1, 1]
    opened = t.state.phase_opened_at
    t.pm("bob", "SUPPORT")
    t.cycle()
    assert wake(t, phase_is(t, "proposal"), most=2) == [opened + 40 * MINUTE, opened + 60 * MINUTE]
    assert [len(reminders(t, n, "mission order")) for n in ("bob", "carol")] == [0, 1]
    # each player heard one reminder per phase where they had to act, and only then
    assert {n: len(reminders(t, n)) for n in t.players} == {"alice": 1, "bob": 0, "carol": 1, "dave": 1, "erin": 1}


def test_no_reminder_when_nobody_has_to_act(make, clock):
    """close_early off and every vote in: the vote waits for its deadline, nobody is
    reminded, and the bot does not wake up before then."""
    t = make(extra="deadlines: {team_vote: 1h, close_early: false, remind_before: 20m}\n")
    t.propose(["alice", "bob"])
    opened = t.state.phase_opened_at
    t.vote_all(True)
    assert wake(t, phase_is(t, "mission"), most=1) == [opened + timedelta(hours=1)]
    assert not any(reminders(t, n) for n in t.players)


@pytest.mark.parametrize("remind", ["1h", "2h"])
def test_a_phase_no_longer_than_remind_before_reminds_at_its_half(make, clock, remind):
    t = make(extra=f"deadlines: {{team_vote: 1h, remind_before: {remind}}}\n")
    t.propose(["alice", "bob"])
    opened = t.state.phase_opened_at
    t.vote_all(True, skip=["erin"])
    assert not reminders(t, "erin")  # never at the moment it opened
    assert wake(t, phase_is(t, "mission"), most=2) == [opened + 30 * MINUTE, opened + 60 * MINUTE]
    assert len(reminders(t, "erin", "vote on the team")) == 1


def test_no_reminder_without_remind_before(make, clock):
    t = make(extra="deadlines: {team_vote: 1h, remind_before: none}\n")
    t.propose(["alice", "bob"])
    opened = t.state.phase_opened_at
    t.vote_all(True, skip=["erin"])
    assert wake(t, phase_is(t, "mission"), most=1) == [opened + timedelta(hours=1)]
    assert not reminders(t, "erin")
