"""Host conveniences: cohosts, spectators, a host who plays, reserves, missed-vote notices,
the intro, HELP and forwarded PMs."""
import pytest

from forumbot.gameconfig import parse_config


def host(t, text, who="host"):
    t.people.pm(who, f"{t.game.tag} host", text)
    t.cycle()
    return t.people.pms_to(who)[-1]


def test_a_cohost_has_every_host_command(local_game):
    t = local_game(extra="cohosts: [zed]\n")
    assert "EXTEND done" in host(t, f"EXTEND {t.game.tag} 2h", who="zed")
    ext = [e for e in t.export()["events"] if e["type"] == "deadline_extended"]
    assert ext[0]["data"]["by"] == "zed"  # the export says which host did it
    assert "Roles:" in host(t, f"STATUS {t.game.tag}", who="zed")
    assert "Only the host" in host(t, f"EXTEND {t.game.tag} 2h", who="yan")


def test_spectators_learn_the_roles_and_cannot_act(local_game):
    t = local_game(extra="spectators: [yan]\n")
    pm = t.people.pms_to("yan")[0]
    for s in t.state.seats:
        assert s.name in pm
    assert "Spy" in pm and "cannot vote" in pm
    events = t.export()["events"]
    t.say("yan", "**PROPOSE: alice, bob**")
    t.people.pm("yan", t.game.tag, "APPROVE")
    t.cycle()
    assert t.export()["events"] == events
    assert "not one of them" in t.people.thread(t.game.thread)[-1]


def test_a_host_who_plays_learns_no_hidden_role_from_host_commands(local_game):
    t = local_game(extra="cohosts: [alice]\n")  # alice plays and co-hosts
    tag = t.game.tag
    status = host(t, f"STATUS {tag}", who="alice")
    assert "Roles:" not in status and "spy" not in status.lower()
    t.propose(["alice", "bob"])
    t.vote_all(True)
    resistance = next(n for n in t.state.team if t.state.seat(n).side == "resistance" and n != "alice") \
        if any(t.state.seat(n).side == "resistance" and n != "alice" for n in t.state.team) else None
    for n in t.state.team:
        if n == "alice":
            continue
        reply = host(t, f"RECORD {tag} {n} SABOTAGE", who="alice")
        assert "Resistance" not in reply and "SUPPORT" not in reply  # no side told
    assert resistance is None or resistance not in t.state.orders


def test_the_host_is_offered_reserves_when_a_player_is_disqualified(local_game):
    t = local_game(extra="reserves: [yan, xu]\n")
    host(t, f"DISQUALIFY {t.game.tag} carol")
    notice = next(p for p in t.people.pms_to("host") if "was disqualified" in p)
    assert "REPLACE" in notice and "yan, xu" in notice


def test_the_host_hears_of_missed_votes_without_a_disqualification(local_game, clock):
    t = local_game(extra="missed: {notify_host_after: 2}\ndeadlines: {team_vote: 1h}\n")
    for _ in range(2):
        t.propose()
        t.vote_all(False, skip=["erin"])
        clock.advance(hours=1, minutes=1)
        t.cycle()
    notes = [p for p in t.people.pms_to("host") if "erin has missed 2 in a row" in p]
    assert len(notes) == 1 and not t.state.seat("erin").disqualified


def test_the_intro_opens_the_post(local_game):
    t = local_game(extra="intro: |\n  Welcome to **Game 61**! House rule: no quoting PMs.\n")
    opening = t.people.public_texts()[0]
    assert "Welcome to **Game 61**! House rule: no quoting PMs." in opening
    assert opening.index("Welcome") < opening.index("Leader order")


@pytest.mark.parametrize("text, key", [
    ("timezone: Mars/Olympus\n", "timezone"),
    ("cohosts: alice bob!\n", "cohosts"),
    ("spectators: [alice]\n", "spectators"),
    ("deadlines: {align_to: \"25:00\"}\n", "deadlines.align_to"),
    ("forward_pms: maybe\n", "forward_pms"),
    ("signup_thread: t1\n", "signup_thread"),
])
def test_bad_host_options(text, key):
    cfg, problems = parse_config("preset: resistance\nplayers: [alice, bob, carol, dave, erin]\n" + text, "h")
    assert cfg is None and key in [p.key for p in problems]


def help_of(t, who):
    t.people.pm(who, t.game.tag, "HELP")
    t.cycle()
    return t.people.pms_to(who)[-1]


def test_help_fits_the_situation(local_game):
    t = local_game(extra="spectators: [yan]\n")
    assert "**PROPOSE: name, name**" in help_of(t, "alice")  # the leader
    assert "PROPOSE" not in help_of(t, "bob") and "wait" in help_of(t, "bob")
    t.propose(["alice", "bob"])
    assert "**APPROVE** or **REJECT**" in help_of(t, "carol")
    t.vote_all(True)
    s = t.state
    for n in s.team:
        text = help_of(t, n)
        assert "SUPPORT" in text
        assert ("SABOTAGE" in text) == (s.seat(n).side == "spies")  # a PM to them alone
    assert "not on it" in help_of(t, "erin")
    spectator = help_of(t, "yan")
    assert "cannot vote or act" in spectator
    for form in ("PROPOSE", "APPROVE", "SUPPORT", "SABOTAGE", "PLAY", "LADY", "ASSASSINATE"):
        assert form not in spectator
    assert "new game" in help_of(t, "stranger")


def test_a_pm_with_no_command_goes_to_the_host_when_asked(local_game):
    t = local_game(extra="forward_pms: true\n")
    t.people.pm("bob", "question", "Hi, I'll be away this weekend, sorry!")
    t.cycle()
    assert "passed it on to the host" in t.people.pms_to("bob")[-1]
    fwd = t.people.pms_to("host")[-1]
    assert "bob wrote" in fwd and "> Hi, I'll be away this weekend, sorry!" in fwd
    t2 = local_game(extra="")  # without forward_pms: a pointer only
    t2.people.pm("zed", "question", "hello?")
    t2.cycle()
    assert "HELP" in t2.people.pms_to("zed")[-1]


def test_no_host_command_tells_a_playing_host_a_hidden_side(local_game):
    """Every host command, sent by a cohost who plays: no answer names a side or a role."""
    t = local_game(n=7, extra="cohosts: [alice]\n")
    tag = t.game.tag
    secret_words = ("spy", "spies", "resistance", "merlin", "assassin", "morgana", "percival")

    def clean(reply):
        low = reply.lower()
        return not any(w in low for w in secret_words)

    others = [n for n in t.players if n != "alice"]
    commands = [f"STATUS {tag}", f"EXTEND {tag} 1h", f"PAUSE {tag}", f"RESUME {tag}"]
    for c in commands:
        assert clean(host(t, c, who="alice")), c
    t.propose()
    for n in others:
        assert clean(host(t, f"RECORD {tag} {n} REJECT", who="alice"))
    host(t, f"CLOSE {tag}", who="alice")
    if t.state.phase == "mission":
        for n in t.state.team:
            if n != "alice":
                assert clean(host(t, f"RECORD {tag} {n} SABOTAGE", who="alice")), n
        assert clean(host(t, f"SKIP {tag}", who="alice"))
    assert clean(host(t, f"DISQUALIFY {tag} {others[0]}", who="alice"))
    assert clean(host(t, f"REPLACE {tag} {others[1]} WITH newbie", who="alice"))
    assert clean(host(t, f"STATUS {tag}", who="alice"))


@pytest.mark.parametrize("command", ["DISQUALIFY {tag} {name}", "RECORD {tag} {name} APPROVE",
                                     "REPLACE {tag} {name} with yan"])
def test_a_name_the_host_typed_wrong_is_repeated_as_text(local_game, command):
    """The host's typed name comes back as text, never as a live link or heading, whichever
    host command names no seat (it was repeated raw, as NameProblem.message)."""
    t = local_game()
    name = "[evil](https://e.vil)"
    reply = host(t, command.format(tag=t.game.tag, name=name))
    assert "is not a player in this game" in reply, reply
    assert "](https://" not in reply and "e.vil" in reply, reply
