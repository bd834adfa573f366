"""Deadlines through the moderator with an injected clock, and when a reminder goes out."""

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from forumbot.rules import deadlines
from forumbot.rules.config import default_deadlines
from forumbot.rules.deadlines import format_duration, parse_duration
from forumbot.rules.presets import PRESETS


@pytest.fixture
def make(local_game):
    return local_game


@pytest.mark.parametrize("text,seconds", [("90s", 90), ("30m", 1800), ("12h", 43200), ("2d", 172800),
                                          ("none", None), ("1S", 1)])
def test_durations(text, seconds):
    assert parse_duration(text) == seconds
    if seconds:
        assert parse_duration(format_duration(seconds)) == seconds


@pytest.mark.parametrize("bad", ["12", "h", "-1h", "0s", "1.5h", "soon", True])
def test_bad_durations(bad):
    with pytest.raises(ValueError):
        parse_duration(bad)


def test_early_close_when_every_vote_is_in(make, clock):
    t = make()
    t.propose()
    t.vote_all(True)
    e = t.export()
    assert len(e["votes"]) == 1 and e["votes"][0]["defaulted"] == []
    assert t.state.phase == "mission"


def test_no_early_close_when_disabled(make, clock):
    t = make(extra="deadlines: {close_early: false, team_vote: 2h}\n")
    t.propose()
    t.vote_all(True)
    assert t.state.phase == "team_vote"
    clock.advance(hours=1, minutes=59)
    t.cycle()
    assert t.state.phase == "team_vote"
    clock.advance(minutes=2)
    t.cycle()
    assert t.state.phase == "mission" and t.export()["votes"][0]["defaulted"] == []


def test_default_votes_at_the_deadline(make, clock):
    t = make(extra="deadlines: {team_vote: 90s}\nmissed: {team_vote: reject}\n")
    t.propose()
    t.vote_all(True, skip=["dave", "erin"])
    assert t.state.phase == "team_vote"
    clock.advance(seconds=89)
    t.cycle()
    assert t.state.phase == "team_vote"
    clock.advance(seconds=2)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["defaulted"] == ["dave", "erin"]
    assert v["votes"]["dave"] == "reject" and v["approved"] is True  # 3 to 2
    table_post = [p for p in t.people.thread(t.game.thread) if "is closed" in p][0]
    assert "| dave | REJECT (default) |" in table_post


def test_default_orders_at_the_deadline(make, clock):
    t = make(extra="deadlines: {mission: 30m}\n")
    spies = t.spies()
    team = [spies[0], next(n for n in t.players if n not in spies)]
    t.propose(team)
    t.vote_all(True)
    t.cycle()
    clock.advance(minutes=31)
    t.cycle()
    m = t.export()["missions"][0]
    assert m["sabotages"] == 1 and m["result"] == "fail"  # by-side: the spy's default is SABOTAGE
    posts = t.people.thread(t.game.thread)
    assert any("Mission 1 FAILED" in p for p in posts)
    # the result never says who was defaulted or who sabotaged
    result = [p for p in posts if "Mission 1 FAILED" in p][0]
    assert spies[0] not in result.split("Mission 1 FAILED")[1].split("Mission 2")[0]


def test_vote_posted_before_the_deadline_counts_even_if_read_after(make, clock):
    t = make(extra="deadlines: {team_vote: 1h}\n")
    t.propose()
    t.vote_all(True, skip=["erin"])
    clock.advance(minutes=59)
    t.say("erin", "**REJECT**")  # posted in time; the bot only reads it later
    clock.advance(hours=3)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["erin"] == "reject" and v["defaulted"] == []


def test_vote_posted_after_the_deadline_is_too_late(make, clock):
    t = make(extra="deadlines: {team_vote: 1h}\n")
    t.propose()
    t.vote_all(True, skip=["erin"])
    clock.advance(minutes=61)
    t.say("erin", "**REJECT**")
    t.cycle()
    v = t.export()["votes"][0]
    assert v["defaulted"] == ["erin"]
    assert any("No team vote is open" in r for r in t.people.thread(t.game.thread))


def test_disqualification_after_missed_votes(make, clock):
    t = make(extra="deadlines: {team_vote: 1h}\nmissed: {disqualify_after: 2}\n")
    for _ in range(2):
        t.propose()
        t.vote_all(False, skip=["erin"])
        clock.advance(hours=2)
        t.cycle()
    e = t.export()
    assert next(p for p in e["players"] if p["name"] == "erin")["disqualified"] is True
    assert all(not p["disqualified"] for p in e["players"] if p["name"] != "erin")
    assert any("erin is disqualified" in p for p in t.people.thread(t.game.thread))
    host_pm = t.people.pms_to("host")[-1]
    assert "erin" in host_pm and f"REPLACE {t.game.tag} erin WITH" in host_pm
    # from now on erin's slot votes by default and the vote does not wait for it
    t.propose()
    t.vote_all(True)
    v = t.export()["votes"][-1]
    assert "erin" in v["defaulted"] and t.state.phase == "mission"


def test_voting_resets_the_missed_streak(make, clock):
    t = make(extra="deadlines: {team_vote: 1h}\nmissed: {disqualify_after: 2}\n")
    t.propose()
    t.vote_all(False, skip=["erin"])
    clock.advance(hours=2)
    t.cycle()
    t.propose()
    t.vote_all(False)  # erin votes this time
    t.propose()
    t.vote_all(False, skip=["erin"])
    clock.advance(hours=2)
    t.cycle()
    assert not any(p["disqualified"] for p in t.export()["players"])


def test_missed_proposal_passes_the_leadership(make, clock):
    t = make(extra="deadlines: {proposal: 10m}\n")
    first = t.state.leader
    clock.advance(minutes=11)
    t.cycle()
    assert t.state.leader != first and t.state.rejections == 0
    assert any(f"{first} did not propose" in p for p in t.people.thread(t.game.thread))


def _aligned_state(start_at, timezone_name="Europe/Berlin", align="21:00", hours=24):
    from dataclasses import replace

    from forumbot.rules import make_config, replay, start
    from forumbot.rules.config import default_deadlines
    from forumbot.rules.presets import PRESETS

    d = replace(default_deadlines(PRESETS["resistance"]), proposal=hours * 3600, align_to=align)
    cfg = make_config("resistance", ["a1", "b1", "c1", "d1", "e1"], deadlines=d, timezone=timezone_name)
    return replay(cfg, 1, start(cfg, 1, start_at))


@pytest.mark.parametrize("start_at, local_day", [
    (datetime(2026, 10, 23, 10, 0, tzinfo=timezone.utc), "2026-10-24"),  # CEST, before the change
    (datetime(2026, 10, 24, 20, 0, tzinfo=timezone.utc), "2026-10-25"),  # across it (night of 24/25)
    (datetime(2026, 10, 25, 10, 0, tzinfo=timezone.utc), "2026-10-26"),  # CET, after it
    (datetime(2026, 3, 28, 10, 0, tzinfo=timezone.utc), "2026-03-29"),  # into summer time
])
def test_align_to_holds_21_00_local_across_daylight_saving(start_at, local_day):
    from zoneinfo import ZoneInfo

    from forumbot.rules.deadlines import due

    state = _aligned_state(start_at)
    local = due(state).astimezone(ZoneInfo("Europe/Berlin"))
    assert (local.hour, local.minute) == (21, 0)
    assert str(local.date()) == local_day
    assert due(state) >= start_at + timedelta(hours=24)  # rounded up, never down


def test_align_to_shows_both_clocks_in_posts(local_game):
    t = local_game(extra="timezone: America/New_York\ndeadlines: {align_to: \"21:00\"}\n")
    post = t.people.thread(t.game.thread)[0]
    assert " EST)" in post and "21:00 EST" in post


def test_close_grace_waits_after_the_last_vote(local_game, clock):
    t = local_game(extra="deadlines: {close_grace: 10m}\n")
    t.propose(["alice", "bob"])
    t.vote_all(True)
    assert t.state.phase == "team_vote"  # everyone voted: still open for the grace
    clock.advance(minutes=5)
    t.say("dave", "**REJECT**")  # a change of mind restarts the grace
    t.cycle()
    clock.advance(minutes=9)
    t.cycle()
    assert t.state.phase == "team_vote"
    clock.advance(minutes=2)
    t.cycle()
    assert t.state.phase == "mission" and t.export()["votes"][0]["votes"]["dave"] == "reject"


def test_abstain_can_be_forbidden(local_game):
    t = local_game(extra="missed: {allow_abstain: false}\n")
    t.propose(["alice", "bob"])
    events = t.export()["events"]
    t.say("carol", "**ABSTAIN**")
    t.cycle()
    assert "does not allow ABSTAIN" in t.people.thread(t.game.thread)[-1]
    assert t.export()["events"] == events


# --- reminders -----------------------------------------------------------------------


def _pure_game(**d):
    from tests.support.pure import Game

    return Game(deadlines=replace(default_deadlines(PRESETS["resistance"]), **d))


@pytest.mark.parametrize("team_vote,before,after", [
    (3 * 3600, 1 * 3600, 2 * 3600),       # a long phase: remind_before the deadline
    (3 * 3600, 4 * 3600, 90 * 60),        # shorter than remind_before: at half its length
    (3 * 3600, 3 * 3600, 90 * 60),        # as long as remind_before: not at the opening either
    (61, 3600, 30),
])
def test_remind_at_half_a_phase_shorter_than_remind_before(team_vote, before, after):
    g = _pure_game(team_vote=team_vote, remind_before=before)
    g.propose()
    s = g.state
    assert s.phase == "team_vote"
    assert deadlines.remind_at(s) == s.phase_opened_at + timedelta(seconds=after)
    assert deadlines.remind_at(s) > s.phase_opened_at


def test_a_short_phase_reminds_at_half_its_length_in_a_game(local_game, clock):
    t = local_game(extra="deadlines: {team_vote: 3h, remind_before: 4h}\n")

    def reminded(name):
        return [p for p in t.people.pms_to(name) if "reminder" in p]

    t.propose()
    assert t.state.phase == "team_vote"
    t.say("alice", "**APPROVE**")
    clock.advance(minutes=1)
    t.cycle()
    t.cycle()
    assert not reminded("dave")
    clock.advance(hours=1, minutes=28)  # 1h29 after the opening
    t.cycle()
    assert not reminded("dave")
    clock.advance(minutes=2)  # 1h31: half of the 3h phase has passed
    t.cycle()
    assert len(reminded("dave")) == 1 and not reminded("alice")
    clock.advance(hours=1)
    t.cycle()
    assert len(reminded("dave")) == 1
