"""Deadlines with teeth (issue 22): scripted games on the local forum whose clock is driven
the way the scheduler drives it (woken at the bot's next deadline), each with a bound on the
wake-ups, so that a vote closed while votes are missing, a deadline that closes early, a
reminder sent twice or a clock that never rests fails here, and never hangs."""
from datetime import datetime, timedelta, timezone

import pytest

from forumbot import store
from tests.fakes.table import NAMES, config_text

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


# --- durations as the host writes them, and the clock the players read -----------------

LIKE = "is not a duration like 90s, 30m, 12h or 2d (at most 30d), or none"


def host_says(t, body: str) -> str:
    t.people.pm("host", "x", body)
    t.cycle()
    return t.people.pms_to("host")[-1]


def test_a_configs_durations_as_written_and_as_the_opening_post_shows_them(make):
    """Leading zeros, capitals, a plain number of seconds, the 30-day bound itself, one
    second, none in capitals: all taken, and shown back in the largest whole unit."""
    t = make(extra="deadlines: {proposal: 0090s, team_vote: 150m, mission: 129600, choice: 2592000s, "
                   "card_window: 1s, remind_before: NONE, signup: 0000000000000000000002D}\n")
    d = t.state.config.deadlines
    assert (d.proposal, d.team_vote, d.mission, d.choice, d.card_window, d.remind_before, d.signup) == \
        (90, 9000, 129600, 30 * 86400, 1, None, 2 * 86400)
    opening = t.people.public_texts()[0]
    assert "**Deadlines**: proposal 90s, team vote 150m, mission 36h. A missed team vote" in opening


def test_a_deadline_of_none_is_shown_as_none(make):
    t = make(extra="deadlines: {proposal: 2d, team_vote: none, mission: 86400}\n")
    assert "**Deadlines**: proposal 2d, team vote none, mission 1d. A missed team vote" \
        in t.people.public_texts()[0]


def test_a_configs_bad_durations_are_each_named_to_the_host(make):
    t = make()
    spaces = " " * 98  # 98 spaces and 90s: the first 100 characters hold no duration
    t.people.pm("host", "new game", config_text(NAMES[:5], extra=(
        f"deadlines: {{proposal: \"{spaces}90s\", team_vote: true, mission: [5m], choice: 0.5h, "
        "card_window: 0m, remind_before: 31d, signup: 99999999999999999999d, close_grace: 2592001s}\n")))
    t.cycle()
    t.cycle()
    assert t.people.pms_to("host")[-1] == (
        "No game was created. Your config has 8 problems:\n\n"
        f"- `deadlines.proposal`: `90s` {LIKE}\n"
        f"- `deadlines.team_vote`: `true` {LIKE}\n"
        f"- `deadlines.mission`: `['5m']` {LIKE}\n"
        f"- `deadlines.choice`: `0.5h` {LIKE}\n"
        "- `deadlines.card_window`: `0m` must be positive (or none)\n"
        "- `deadlines.remind_before`: `31d` is longer than 30d\n"
        "- `deadlines.signup`: `99999999999999999999d` is longer than 30d\n"
        "- `deadlines.close_grace`: `2592001s` is longer than 30d")
    assert len(store.Game.select()) == 1


def test_extend_as_the_thread_reads_it_and_the_clock_keeps_it(make, clock, machine_in_new_york):
    t = make(extra="timezone: Europe/Berlin\ndeadlines: {proposal: 1h, remind_before: none}\n")
    opened = t.state.phase_opened_at
    assert host_says(t, f"EXTEND {t.game.tag}").startswith(
        "EXTEND needs a duration of at most 30d. The right form: `EXTEND G1 6h`")
    assert host_says(t, f"EXTEND {t.game.tag} 31d").startswith("EXTEND needs a duration of at most 30d.")
    assert host_says(t, f"EXTEND {t.game.tag} 90m").startswith("G1: EXTEND done.")
    assert t.people.thread(t.game.thread)[-1] == (
        "The host extended the deadline by 90m. It is now 2026-11-29 22:30 UTC (2026-11-29 23:30 CET).")
    assert wake(t, lambda: t.state.leader == "bob", most=1) == [opened + timedelta(minutes=150)]


@pytest.mark.parametrize("zone,hours,local", [
    ("", 2, "2026-11-30 21:30 UTC"),
    ("Europe/Berlin", 2, "2026-11-30 20:30 UTC (2026-11-30 21:30 CET)"),
    ("America/New_York", 2, "2026-11-30 02:30 UTC (2026-11-29 21:30 EST)"),
    ("America/New_York", 5, "2026-11-30 02:30 UTC (2026-11-29 21:30 EST)"),  # 01:00 UTC is 20:00 EST
])
def test_align_to_rounds_up_to_the_next_such_time_of_day(make, clock, zone, hours, local):
    """The game opens at 20:00 UTC; the proposal's end is rounded up to the next 21:30 in
    the game's zone (UTC if none), counted from its own date there."""
    tz = f"timezone: {zone}\n" if zone else ""
    t = make(extra=tz + f"deadlines: {{proposal: {hours}h, remind_before: none, align_to: \"21:30\"}}\n")
    post = t.people.thread(t.game.thread)[0]
    assert f"alice, post **PROPOSE: name, name** by {local} (in " in post
    due = t.mod.next_deadline()
    assert f"{due.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC" == local[:20]
    assert wake(t, lambda: t.state.leader == "bob", most=1) == [due]


def test_align_to_keeps_a_deadline_already_on_the_time(make, clock):
    """Opened 20:00 UTC with 90s: 20:01:30 is rounded up to 21:30 the same day; the team
    vote opened at 21:30 with 1d ends on 21:30 itself, and stays there."""
    t = make(extra="deadlines: {proposal: 90s, team_vote: 1d, remind_before: none, align_to: \"21:30\"}\n")
    opened = t.state.phase_opened_at
    assert wake(t, lambda: t.state.leader == "bob", most=1) == [opened + timedelta(hours=1, minutes=30)]
    t.propose(["bob", "carol"])
    opened = t.state.phase_opened_at
    assert f"{opened:%H:%M}" == "21:30"
    assert wake(t, lambda: t.state.leader == "carol", most=1) == [opened + timedelta(days=1)]


@pytest.fixture
def machine_in_new_york(monkeypatch):
    """The bot's machine keeps its clock in New York (not UTC): no time may come out local."""
    import time

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("align,closes", [("", "2026-11-29T21:00:00Z"), ("21:30", "2026-11-29T21:30:00Z")])
def test_a_late_tick_closes_the_vote_at_the_deadline_itself(make, clock, machine_in_new_york, align, closes):
    aligned = f", align_to: \"{align}\"" if align else ""
    t = make(extra=f"deadlines: {{team_vote: 1h, remind_before: none{aligned}}}\n")
    t.propose(["alice", "bob"])
    t.vote_all(True, skip=["erin"])
    clock.advance(hours=5)  # the bot was down: it wakes long after the deadline
    t.cycle()
    closed = [e for e in t.export()["events"] if e["type"] == "vote_closed"]
    assert [e["at"] for e in closed] == [closes]
    assert closed[0]["data"]["defaulted"] == ["erin"]


def test_pause_until_wakes_the_bot_at_that_minute_and_moves_the_deadline(make, clock):
    """Paused, nobody is reminded and nothing is due: the bot wakes at the UNTIL minute
    only; then the deadline and its reminder have moved by the pause."""
    t = make(extra="deadlines: {proposal: 2h, remind_before: 20m}\n")
    opened = t.state.phase_opened_at
    clock.advance(minutes=30)
    assert host_says(t, f"PAUSE {t.game.tag} UNTIL 2026-11-30 03:00").startswith("G1: PAUSE done.")
    until = datetime(2026, 11, 30, 3, 0, tzinfo=timezone.utc)
    assert t.mod.next_deadline() == until  # paused: no deadline, no reminder, only the resume
    assert wake(t, lambda: t.state.paused_at is None, most=1) == [until]
    resumed = [e for e in t.export()["events"] if e["type"] == "game_resumed"]
    assert [e["data"]["by"] for e in resumed] == ["the clock"]
    assert not reminders(t, "alice")
    moved = opened + timedelta(hours=2) + (until - (opened + timedelta(minutes=30)))
    assert wake(t, lambda: t.state.leader == "bob", most=2) == [moved - 20 * MINUTE, moved]
    assert len(reminders(t, "alice", "post your team")) == 1


def test_a_plain_pause_stops_every_clock_until_resume(make, clock):
    t = make(extra="deadlines: {proposal: 2h, remind_before: 20m}\n")
    opened = t.state.phase_opened_at
    clock.advance(minutes=30)
    assert host_says(t, f"PAUSE {t.game.tag}").startswith("G1: PAUSE done.")
    assert t.mod.next_deadline() is None  # nothing to wake up for while paused
    clock.advance(hours=5)  # across the deadline and the reminder
    t.cycle()
    assert t.state.paused_at is not None and t.state.leader == "alice" and not reminders(t, "alice")
    assert host_says(t, f"RESUME {t.game.tag}").startswith("G1: RESUME done.")
    moved = opened + timedelta(hours=7)
    assert wake(t, lambda: t.state.leader == "bob", most=2) == [moved - 20 * MINUTE, moved]


def test_half_a_phase_is_counted_in_whole_seconds(make, clock):
    t = make(extra="deadlines: {team_vote: 61s, remind_before: 1h}\n")
    t.propose(["alice", "bob"])
    opened = t.state.phase_opened_at
    t.vote_all(True, skip=["erin"])
    assert wake(t, phase_is(t, "mission"), most=2) == [opened + timedelta(seconds=30),
                                                       opened + timedelta(seconds=61)]
    assert len(reminders(t, "erin", "vote on the team")) == 1


@pytest.mark.parametrize("fresh", [False, True])
def test_a_rule_modules_phase_has_its_deadline_and_the_assassination_then_waits(db, bot, clock, monkeypatch, fresh):
    """The assassination (avalon's module phase) closes at the `choice` deadline; having no
    default it then waits for good, and the bot has nothing to wake up for. The modules'
    phases are learnt once a process: a bot started afresh (`fresh`) times them too."""
    from forumbot.rules import deadlines

    if fresh:
        monkeypatch.setattr(deadlines, "_MODULE_PHASES", {})  # as in a process that has timed nothing yet
    t = bot("local").table(5, preset="avalon", extra="plot_cards: false\ndeadlines: {choice: 3h, remind_before: none}\n")
    for _ in range(3):
        t.mission()
    assert t.state.phase == "assassination"
    opened = t.state.phase_opened_at
    assert t.mod.next_deadline() == opened + timedelta(hours=3)
    assert wake(t, lambda: t.export()["events"][-1]["type"] == "assassination_overdue", most=1) == \
        [opened + timedelta(hours=3)]
    assert t.state.phase == "assassination" and t.mod.next_deadline() is None


@pytest.mark.parametrize("stored", [True, "10m", float("nan"), None])
def test_a_stored_close_grace_that_is_no_number_waits_nothing(make, clock, stored):
    """An older bot's stored config may hold anything where close_grace is (defence in
    depth, as for 9999999d): what is no number of seconds is no wait. With every vote in,
    the vote closes at the last vote, as without a grace."""
    import json

    t = make(extra="deadlines: {team_vote: 2h, remind_before: none}\n")
    game = t.game
    data = json.loads(game.config)
    data["deadlines"]["close_grace"] = stored
    game.config = json.dumps(data)
    game.save()
    t.cycle(fresh=True)
    t.propose(["alice", "bob"])
    opened = t.state.phase_opened_at
    t.vote_all(True, skip=["erin"])
    clock.advance(minutes=20)
    t.say("erin", "**REJECT**")
    t.cycle()
    last = clock()
    assert t.state.phase == "mission"  # in the cycle that read the last vote
    v = t.export()["votes"][0]
    assert v["defaulted"] == [] and v["votes"]["erin"] == "reject"
    assert [e["at"] for e in t.export()["events"] if e["type"] == "vote_closed"] == \
        [f"{last:%Y-%m-%dT%H:%M:%S}Z"]
    assert opened + timedelta(hours=2) > last


def test_the_host_is_told_in_utc_when_a_deadline_waits_for_the_forum(db, clock):
    """The forum cannot be read an hour past the deadline: the host hears when it was due
    (in UTC: the note is the bot's, not the game's) and that it waits; once read, it closes."""
    from tests.fakes.forums import flaky_table

    t = flaky_table(clock, extra="timezone: Europe/Berlin\ndeadlines: {team_vote: 1h, remind_before: none}\n")
    t.propose(["alice", "bob"])
    due = t.state.phase_opened_at + timedelta(hours=1)
    t.forum.down = True
    clock.advance(hours=2, minutes=5)
    t.cycle()
    assert t.state.phase == "team_vote"
    told = [p for p in t.people.pms_to("host") if "has not closed yet" in p]
    assert len(told) == 1
    assert told[0].startswith(f"G1: the deadline of {due:%Y-%m-%d %H:%M} UTC has not closed yet, because ")
    t.forum.down = False
    t.cycle()
    assert t.state.phase == "proposal" and t.export()["votes"][0]["defaulted"] == NAMES[:5]
