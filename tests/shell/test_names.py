"""Names that end in `_` or `-`, the settings file, sign-ups from deleted authors and
spectators, the bot's own account in a config, and reminders in short phases."""
from dataclasses import replace
from datetime import timedelta

import pytest

from adapters.local import LocalForum
from forumbot import store
from forumbot.cli.main import main
from forumbot.gameconfig import parse_config
from forumbot.parsing import NameProblem, clean_name, parse_comment, parse_pm, resolve_name
from forumbot.rules import deadlines
from forumbot.rules.config import default_deadlines
from forumbot.rules.presets import PRESETS
from forumbot.settings import SettingsError, load_settings
from forumbot.shell.moderator import Moderator
from forumbot.shell.signups import joined
from tests.fakes.table import LocalPeople, Table

# --- names ---------------------------------------------------------------------------

PLAYERS = ["alice", "bob", "bob_", "carol", "dave", "dave-"]


@pytest.mark.parametrize("raw,expected", [
    ("bob_", "bob_"), ("BOB_", "bob_"), ("u/bob_", "bob_"), ("/u/bob_", "bob_"), ("@bob_", "bob_"),
    ("bob\\_", "bob_"),  # Reddit's editor escapes the underscore
    ("bob_.", "bob_"), ("bob_,", "bob_"), ("(u/bob_)", "bob_"), ("*bob_*", "bob_"),
    ("bob", "bob"), ("u/bob", "bob"), ("@Bob", "bob"), ("bob,", "bob"), ("bob.", "bob"),
    ("dave-", "dave-"), ("@dave-", "dave-"), ("u/dave-!", "dave-"), ("dave", "dave"), ("dave.", "dave"),
])
def test_an_exact_name_wins_over_one_with_its_last_character_dropped(raw, expected):
    assert resolve_name(raw, PLAYERS) == expected


def test_the_old_conveniences_still_hold_when_no_name_matches_exactly():
    names = ["alice", "bob", "carol"]
    assert resolve_name("bob_", names) == "bob"  # no player bob_: the underscore is markup
    assert resolve_name("_bob_", names) == "bob"
    assert resolve_name("bob.", names) == "bob" and resolve_name("u/bob!", names) == "bob"
    assert resolve_name("car", names) == "carol"
    assert resolve_name("al", names, {"al": "alice"}) == "alice"
    assert isinstance(resolve_name("zed_", names), NameProblem)
    assert isinstance(resolve_name("u/", names), NameProblem)


def test_bold_commands_name_bob_underscore():
    (cmd,) = parse_comment("**ASSASSINATE: bob_**")
    assert [resolve_name(n, PLAYERS) for n in cmd.names] == ["bob_"]
    (cmd,) = parse_comment("**PROPOSE: bob_, @bob, u/dave-**")
    assert [resolve_name(n, PLAYERS) for n in cmd.names] == ["bob_", "bob", "dave-"]
    (cmd,) = parse_pm("ASSASSINATE: @bob_")
    assert resolve_name(cmd.names[0], PLAYERS) == "bob_"


def test_a_pm_keeps_a_double_underscore_that_belongs_to_a_name():
    (cmd,) = parse_pm("ASSASSINATE: bob__")
    assert cmd.names == ("bob__",)
    (cmd,) = parse_pm("**LADY: a__b**")
    assert cmd.names == ("a__b",)
    (cmd,) = parse_pm("__APPROVE__")  # __bold__ around a whole command still reads as bold
    assert (cmd.verb, cmd.choice) == ("vote", "approve")


def test_clean_name_keeps_a_legal_last_underscore_or_dash():
    assert clean_name("zed_") == "zed_" and clean_name("u/zed_") == "zed_"
    assert clean_name("@zed-") == "zed-" and clean_name("zed_.") == "zed_"
    assert clean_name("zed.") == "zed" and clean_name(" **u/Zed** ") == "Zed"


def _table(db, clock, players, **kw):
    forum = LocalForum(":memory:", clock=clock)
    return Table(forum, LocalPeople(forum), clock, players=players).start(**kw)


def test_propose_in_a_game_names_bob_underscore(db, clock):
    t = _table(db, clock, ["alice", "bob", "bob_", "carol", "dave"])
    assert t.state.leader == "alice"
    t.say("alice", "**PROPOSE: bob_, u/bob**")
    t.cycle()
    assert t.state.phase == "team_vote" and list(t.state.team) == ["bob_", "bob"]


def test_assassinate_bob_underscore_hits_bob_underscore(db, clock):
    # seed 2: bob_ is Merlin, bob a servant, dave the Assassin
    t = _table(db, clock, ["alice", "bob", "bob_", "carol", "dave"], preset="avalon", seed=2,
               extra="plot_cards: false\n")
    roles = {p["name"]: p["role"] for p in t.export()["players"]}
    assert (roles["bob_"], roles["bob"], roles["dave"]) == ("merlin", "servant", "assassin")
    for _ in range(3):  # three successes: the teams name bob and bob_ side by side
        t.mission()
    assert t.state.phase == "assassination"
    t.say("dave", "**ASSASSINATE: bob_**")
    t.cycle()
    e = t.export()
    assert (e["winner"], e["win_reason"]) == ("spies", "assassination")


def test_replace_keeps_a_newcomer_named_with_a_last_underscore(db, clock):
    t = _table(db, clock, ["alice", "bob", "carol", "dave", "erin"])
    t.people.pm("host", "replace", f"REPLACE {t.game.tag} bob WITH zed_")
    t.cycle()
    assert "zed_" in t.state.names and "zed" not in t.state.names


# --- settings ------------------------------------------------------------------------


def test_a_percent_in_a_setting_is_taken_as_written(tmp_path):
    f = tmp_path / "s.ini"
    f.write_text("[reddit]\nusername = thebot\npassword = ab%cd\nuser_agent = bot 100%\n")
    s = load_settings(str(f))
    assert s.reddit["password"] == "ab%cd" and s.reddit["user_agent"] == "bot 100%"


def test_outage_grace(tmp_path):
    f = tmp_path / "s.ini"
    f.write_text("[bot]\nforum = local\n")
    assert load_settings(str(f)).outage_grace == 3600
    f.write_text("[bot]\noutage_grace = 30m\n")
    assert load_settings(str(f)).outage_grace == 1800
    f.write_text("[bot]\noutage_grace =\n")
    assert load_settings(str(f)).outage_grace == 3600
    for bad in ("soon", "none", "0s"):
        f.write_text(f"[bot]\noutage_grace = {bad}\n")
        with pytest.raises(SettingsError, match="outage_grace"):
            load_settings(str(f))


def test_the_example_settings_document_outage_grace():
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "settings.example.ini"
    assert "outage_grace" in path.read_text()
    assert load_settings(str(path)).outage_grace == 3600


@pytest.mark.parametrize("text", ["no section header here\n", "[bot]\nforum = local\nforum = reddit\n",
                                  "[bot]\n[bot]\n"])
def test_a_broken_settings_file_is_a_settings_error(tmp_path, text):
    f = tmp_path / "s.ini"
    f.write_text(text)
    with pytest.raises(SettingsError):
        load_settings(str(f))


# --- sign-ups ------------------------------------------------------------------------

SIGNUP = ("preset: resistance\nleader_order: listed\nplayers: signup\nmin_players: 5\n"
          "max_players: 7\ndeadlines: {{signup: 2d}}\n{extra}")


@pytest.fixture
def signup(db, clock):
    forum = LocalForum(":memory:", clock=clock)
    people = LocalPeople(forum)
    mod = Moderator(forum, clock=clock)

    def make(extra=""):
        people.pm("host", "new game", SIGNUP.format(extra=extra))
        mod.cycle()
        mod.cycle()
        game = store.Game.select().order_by(store.Game.id.desc()).first()
        assert game.status == "signup"
        return game, forum, people, mod
    return make


def test_a_deleted_author_gets_no_seat_and_no_reply(signup):
    game, forum, people, mod = signup()
    before = store.Outbox.select().count()
    forum.comment("[deleted]", game.thread, "**JOIN**")
    forum.comment("[Deleted]", game.thread, "**JOIN**")
    mod.cycle()
    assert joined(store.Game.get_by_id(game.id)) == []
    assert not people.pms_to("[deleted]") and not people.pms_to("[Deleted]")
    assert not [b for b in people.thread(game.thread) if "deleted" in b.lower()]
    replies = store.Outbox.select().where(store.Outbox.key.startswith("re:"))
    assert replies.count() == 0 and store.Outbox.select().count() == before
    forum.comment("zoe", game.thread, "**JOIN**")  # a real author still joins
    mod.cycle()
    assert joined(store.Game.get_by_id(game.id)) == ["zoe"]


def test_a_spectator_cannot_join_and_a_reserve_can(signup):
    game, forum, people, mod = signup(extra="spectators: [Sam]\nreserves: [yan]\n")
    forum.comment("sam", game.thread, "**JOIN**")
    forum.comment("yan", game.thread, "**JOIN**")
    mod.cycle()
    assert joined(store.Game.get_by_id(game.id)) == ["yan"]
    refusal = people.pms_to("sam")[-1]
    assert "spectator" in refusal and "cannot play" in refusal


def test_a_config_refuses_one_person_as_player_and_spectator():
    text = "preset: resistance\nplayers: [alice, bob, carol, dave, erin]\nspectators: [u/ALICE]\n"
    cfg, problems = parse_config(text, "host")
    assert cfg is None and [p.key for p in problems] == ["spectators"]
    assert "alice" in problems[0].message.lower()


def test_a_config_refuses_one_person_as_spectator_and_reserve():
    text = ("preset: resistance\nplayers: [alice, bob, carol, dave, erin]\nspectators: [sam]\n"
            "reserves: [yan, SAM]\n")
    cfg, problems = parse_config(text, "host")
    assert cfg is None and [p.key for p in problems] == ["reserves"]
    assert "SAM" in problems[0].message and "spectator" in problems[0].message


# --- the bot's own account -----------------------------------------------------------

BASE = "preset: resistance\n"


@pytest.mark.parametrize("lines,key", [
    ("players: [alice, bob, carol, dave, u/ForumBot]\n", "players"),
    ("players: [alice, bob, carol, dave, erin]\ncohosts: [forumbot]\n", "cohosts"),
    ("players: [alice, bob, carol, dave, erin]\nspectators: [FORUMBOT]\n", "spectators"),
    ("players: [alice, bob, carol, dave, erin]\nreserves: [yan, '@forumbot']\n", "reserves"),
    ("players: [alice, bob, carol, dave, erin]\naliases: {forumbot: alice}\n", "aliases"),
    ("players: signup\nreserves: [forumbot]\n", "reserves"),
])
def test_a_config_may_not_name_the_bot(lines, key):
    text = BASE + lines
    assert parse_config(text, "host")[1] == []  # without the bot's name: nothing to see
    cfg, problems = parse_config(text, "host", bot_name="forumbot")
    assert cfg is None and [p.key for p in problems] == [key]
    assert "bot's own account" in problems[0].message
    assert parse_config(text, "host", bot_name="otherbot")[1] == []


@pytest.fixture
def no_settings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORUMBOT_SETTINGS", raising=False)
    return tmp_path


def test_check_config_refuses_the_default_bot_account(no_settings, capsys):
    f = no_settings / "game.yaml"
    f.write_text(BASE + "players: [alice, bob, carol, dave, forumbot]\n")
    assert main(["check-config", str(f)]) == 1
    out = capsys.readouterr().out
    assert "players: forumbot is the bot's own account" in out


def test_check_config_takes_the_bot_name_from_the_settings(no_settings, capsys):
    settings = no_settings / "s.ini"
    settings.write_text("[bot]\nforum = reddit\n[reddit]\nusername = GameBot\npassword = a%b\n")
    f = no_settings / "game.yaml"
    f.write_text(BASE + "players: [alice, bob, carol, dave, erin]\ncohosts: [gamebot]\n")
    assert main(["check-config", str(f), "--settings", str(settings)]) == 1
    assert "cohosts: GameBot is the bot's own account" in capsys.readouterr().out
    f.write_text(BASE + "players: [alice, bob, carol, dave, forumbot]\n")  # not this bot's name
    assert main(["check-config", "--settings", str(settings), str(f)]) == 0
    assert "OK" in capsys.readouterr().out


@pytest.mark.parametrize("settings_text", [None, "garbage without a section\n", "[bot]\nforum = myspace\n"])
def test_check_config_with_bad_settings_says_one_line(no_settings, capsys, settings_text):
    f = no_settings / "game.yaml"
    f.write_text(BASE + "players: [alice, bob, carol, dave, erin]\n")
    path = no_settings / "s.ini"
    if settings_text is not None:
        path.write_text(settings_text)
    assert main(["check-config", str(f), "--settings", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("settings: ") and len(err.splitlines()) == 1 and "Traceback" not in err


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
