"""Whom a game config may name: one person in one part only (player, spectator, reserve),
and never the bot's own account (its name from the settings, or the default one), in the
config reader and through `forumbot check-config`."""
import pytest

from forumbot.cli.main import main
from forumbot.gameconfig import parse_config


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
