"""Host commands by PM, and reminders, through the moderator on the local forum."""
from datetime import datetime, timedelta

import pytest


@pytest.fixture
def make(local_game):
    return local_game


def host(t, text):
    t.people.pm("host", f"{t.game.tag} host", text)
    t.cycle()
    return t.people.pms_to("host")[-1]


def due(t) -> datetime:
    from forumbot.rules.deadlines import due as d
    return d(t.state)


@pytest.mark.parametrize("command", ["CLOSE", "EXTEND 6h", "PAUSE", "RESUME", "DISQUALIFY alice", "ABORT",
                                     "REPLACE alice WITH zed"])
def test_only_the_host_may_use_host_commands(make, command):
    t = make()
    t.propose()
    events = t.export()["events"]
    tag = t.game.tag
    t.people.pm("bob", "host", f"{command.split()[0]} {tag} {' '.join(command.split()[1:])}")
    t.cycle()
    assert f"Only the host of {tag}" in t.people.pms_to("bob")[-1]
    assert t.export()["events"] == events


def test_close_takes_the_defaults_now(make):
    t = make()
    t.propose()
    t.vote_all(True, skip=["dave", "erin"])
    reply = host(t, f"CLOSE {t.game.tag}")
    assert "CLOSE done" in reply
    v = t.export()["votes"][0]
    assert v["defaulted"] == ["dave", "erin"] and v["approved"]
    assert any(e["type"] == "host_action" and e["data"]["action"] == "close" for e in t.export()["events"])
    assert "The host closed the team vote" in "\n".join(t.people.thread(t.game.thread))
    assert t.state.phase == "mission"
    host(t, f"CLOSE {t.game.tag}")  # CLOSE closes a mission too: missing orders take the defaults
    m = t.export()["missions"][0]
    assert sorted(m["defaulted"]) == sorted(m["team"]) and t.state.phase == "proposal"
    assert "no open vote" in host(t, f"CLOSE {t.game.tag}").lower()


def test_extend_pushes_the_deadline(make, clock):
    t = make(extra="deadlines: {proposal: 1h}\n")
    before = due(t)
    host(t, f"EXTEND {t.game.tag} 6h")
    assert due(t) == before + timedelta(hours=6)
    ext = [e for e in t.export()["events"] if e["type"] == "deadline_extended"]
    assert ext[0]["data"]["seconds"] == 6 * 3600
    clock.advance(hours=2)
    t.cycle()
    assert t.state.phase == "proposal" and t.state.leader == "alice"  # not closed at the old time
    assert "needs a duration" in host(t, f"EXTEND {t.game.tag} soon")


def test_pause_five_hours_across_a_deadline(make, clock):
    t = make(extra="deadlines: {team_vote: 2h}\n")
    t.propose()
    t.vote_all(True, skip=["erin"])
    before = due(t)
    clock.advance(hours=1)
    host(t, f"PAUSE {t.game.tag}")
    clock.advance(hours=5)  # across the deadline
    t.cycle()
    assert t.state.phase == "team_vote"  # nothing closed while paused
    host(t, f"RESUME {t.game.tag}")
    assert due(t) == before + timedelta(hours=5)
    clock.advance(minutes=59)
    t.cycle()
    assert t.state.phase == "team_vote"
    clock.advance(minutes=2)
    t.cycle()
    assert t.export()["votes"][0]["defaulted"] == ["erin"]
    assert "paused" in "\n".join(t.people.thread(t.game.thread))


def test_disqualify_by_the_host(make):
    t = make()
    t.propose()
    t.vote_all(True, skip=["erin"])
    host(t, f"DISQUALIFY {t.game.tag} eri")
    e = t.export()
    assert next(p for p in e["players"] if p["name"] == "erin")["disqualified"]
    assert e["votes"][0]["defaulted"] == ["erin"]  # the vote stopped waiting for erin
    assert "DISQUALIFY done" in t.people.pms_to("host")[-2] or "DISQUALIFY done" in t.people.pms_to("host")[-1]


def test_disqualifying_the_leader_passes_the_leadership_without_a_rejection(make):
    t = make()
    host(t, f"DISQUALIFY {t.game.tag} alice")
    assert t.state.leader == "bob" and t.state.rejections == 0


def test_abort_reveals_every_role(make):
    t = make()
    host(t, f"ABORT {t.game.tag}")
    e = t.export()
    assert (e["status"], e["winner"], e["win_reason"]) == ("aborted", None, "aborted")
    end = t.people.thread(t.game.thread)[-1]
    assert "aborted" in end and all(f"| {p['name']} |" in end for p in e["players"])


def test_status_for_the_host_shows_roles_unless_the_host_plays(make):
    t = make()
    reply = host(t, f"STATUS {t.game.tag}")
    spy = t.spies()[0]
    assert f"{spy}: spy (spies)" in reply
    t2 = make()
    t2.people.pm("alice", "new game", "preset: resistance\nplayers: [alice, bob, carol, dave, erin]\n")
    t2.cycle()
    from forumbot import store
    game = store.Game.select().order_by(store.Game.id.desc()).first()
    t2.people.pm("alice", "st", f"STATUS {game.tag}")
    t2.cycle()
    reply = t2.people.pms_to("alice")[-1]
    assert "Roles" not in reply and "spy" not in reply.lower()


def test_reminders_once_per_player_per_deadline_only_to_who_has_not_acted(make, clock):
    t = make(extra="deadlines: {team_vote: 3h, remind_before: 1h}\n")
    t.propose()
    t.vote_all(True, skip=["dave", "erin"])

    def reminders(name):
        return [p for p in t.people.pms_to(name) if "reminder" in p]

    clock.advance(hours=1, minutes=59)
    t.cycle()
    assert not reminders("dave")
    clock.advance(minutes=2)
    t.cycle()
    assert len(reminders("dave")) == 1 and len(reminders("erin")) == 1
    assert "APPROVE" in reminders("dave")[0]
    assert not reminders("alice")  # voted already
    clock.advance(minutes=30)
    t.cycle()
    t.cycle(fresh=True)
    assert len(reminders("dave")) == 1  # once
    # the mission: only team members who have not sent an order, each by their own PM
    clock.advance(hours=1)
    t.cycle()
    assert t.state.phase == "mission"
    team = list(t.state.team)
    t.pm(team[0], "SUPPORT")
    t.cycle()
    clock.advance(hours=23, minutes=1)
    t.cycle()
    assert len([p for p in t.people.pms_to(team[1]) if "reminder" in p and "SUPPORT" in p]) == 1
    assert not [p for p in t.people.pms_to(team[0]) if "reminder" in p and "SUPPORT" in p]
    public = "\n".join(t.people.public_texts())
    assert "reminder" not in public.lower()


def test_skip_ends_what_is_open_as_if_its_deadline_passed(make):
    t = make()
    tag = t.game.tag
    assert "SKIP done" in host(t, f"SKIP {tag}")  # the proposal: leadership passes
    assert t.state.leader == "bob" and t.state.phase == "proposal"
    t.propose(["bob", "carol"])
    t.vote_all(True, skip=["erin"])
    host(t, f"SKIP {tag}")  # the vote closes with the defaults
    assert t.export()["votes"][0]["defaulted"] == ["erin"]
    host(t, f"SKIP {tag}")  # the mission: every missing order takes its default
    assert t.export()["missions"][0]["defaulted"] == ["bob", "carol"]
    skips = [e for e in t.export()["events"] if e["type"] == "host_action" and e["data"]["action"] == "skip"]
    assert [s["data"]["phase"] for s in skips] == ["proposal", "team_vote", "mission"]
    assert "The host skipped the team vote" in "\n".join(t.people.thread(t.game.thread))


def test_record_casts_for_a_player_and_the_thread_is_told(make):
    t = make()
    tag = t.game.tag
    host(t, f"RECORD {tag} alice PROPOSE: alice, bob")
    assert t.state.team == ("alice", "bob")
    assert "REJECT" not in host(t, f"RECORD {tag} dave REJECT")
    assert t.state.votes["dave"] == "reject"
    thread = "\n".join(t.people.thread(t.game.thread))
    assert "The host recorded dave's vote" in thread
    assert "recorded" in t.people.pms_to("dave")[-1]  # dave hears that his vote is in
    t.vote_all(True)
    spy = next(n for n in t.state.team if t.state.seat(n).side == "spies")
    host(t, f"RECORD {tag} {spy} SABOTAGE")
    assert t.state.orders[spy] == "sabotage"
    assert spy not in t.people.thread(t.game.thread)[-1]  # who ordered is not told
    recs = [e for e in t.export()["events"] if e["type"] == "host_action" and e["data"]["action"] == "record"]
    assert [(r["data"]["player"], r["data"]["kind"]) for r in recs] == [
        ("alice", "Propose"), ("dave", "TeamVote"), (spy, "MissionOrder")]
    events = t.export()["events"]
    assert "right form" in host(t, f"RECORD {tag} erin")
    assert "not on the team" in host(t, f"RECORD {tag} erin SUPPORT")
    assert t.export()["events"] == events


@pytest.mark.parametrize("command", ["SKIP", "RECORD alice APPROVE", "PAUSE UNTIL 2030-01-01 10:00"])
def test_skip_and_record_are_for_the_host_only(make, command):
    t = make()
    events = t.export()["events"]
    t.people.pm("bob", "host", f"{command.split()[0]} {t.game.tag} {' '.join(command.split()[1:])}")
    t.cycle()
    assert "Only the host" in t.people.pms_to("bob")[-1]
    assert t.export()["events"] == events


def test_pause_until_resumes_by_itself(make, clock):
    t = make(extra="timezone: Europe/Berlin\ndeadlines: {proposal: 2h}\n")
    before = due(t)
    start = clock()
    local = (start + timedelta(hours=5)).astimezone(__import__("zoneinfo").ZoneInfo("Europe/Berlin"))
    reply = host(t, f"PAUSE {t.game.tag} UNTIL {local:%Y-%m-%d %H:%M}")
    assert "PAUSE done" in reply
    assert "resumes by itself" in t.people.thread(t.game.thread)[-1]
    clock.advance(hours=4, minutes=59)
    t.cycle()
    assert t.state.paused_at is not None and t.state.phase == "proposal"
    clock.advance(minutes=2)
    t.cycle()
    assert t.state.paused_at is None
    assert due(t) == before + timedelta(hours=5)  # every clock moved by the pause
    resumed = [e for e in t.export()["events"] if e["type"] == "game_resumed"]
    assert resumed and resumed[0]["data"]["by"] == "the clock"
    assert "right form" in host(t, f"PAUSE {t.game.tag} UNTIL someday")
    assert "passed already" in host(t, f"PAUSE {t.game.tag} UNTIL 2020-01-01 10:00")
