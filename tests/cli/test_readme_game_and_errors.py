"""A new operator's first hour: a game on the local forum as the README tells it, errors that
are one line and never a traceback, the command line's small promises (version, help, the
demo, check-config, a greeting before a fenced config), and the log settings. What the
players of those games see: tests/render/test_what_players_see.py."""
from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from forumbot.cli.main import main
from tests.conftest import PG_URL

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 1)
    return README[start:end if end != -1 else None]


LOCAL = section("A game on the local forum")
GAME_YAML = re.search(r"```yaml\n(.*?)```", LOCAL, re.S).group(1)
COMMANDS = [line for block in re.findall(r"```sh\n(.*?)```", LOCAL, re.S)
            for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@pytest.fixture
def here(tmp_path, monkeypatch):
    """An empty folder as the working directory, with no settings file anywhere."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORUMBOT_SETTINGS", raising=False)
    yield tmp_path
    from forumbot import store

    store.close()


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    err = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert "Traceback" not in captured.err + captured.out
    assert len(err) == 1, err
    return err[0]


# --- the README's game on the local forum ------------------------------------------------------


def test_the_readme_game_is_a_whole_game_from_the_config_pm_to_the_end_post(here, capsys):
    """Every command of "A game on the local forum", as written (through main(), one
    process: the same commands through a real shell are the `long` test below)."""
    assert COMMANDS[0].startswith("forumbot check-config game.yaml")
    assert any("new game" in c and "local pm" in c for c in COMMANDS)
    (here / "game.yaml").write_text(GAME_YAML)
    outputs = []
    for line in COMMANDS:
        argv = shlex.split(line, comments=True)
        assert argv[0] == "forumbot", line
        assert main(argv[1:]) == 0, (line, capsys.readouterr())
        outputs.append(capsys.readouterr().out)
    everything = "\n".join(outputs)
    assert "Game G1 is running" in everything
    assert "Your role in Friday night (G1)" in everything
    argvs = [shlex.split(line, comments=True) for line in COMMANDS]
    end = outputs[max(i for i, a in enumerate(argvs) if a == ["forumbot", "local", "read", "G1"])]
    assert "### The Resistance win, by three missions." in end
    assert "| bob | Spy |" in end and "| carol | Spy |" in end  # as the README says
    assert "**Mission 2 FAILED**: 1 SABOTAGE." in end
    record = json.loads(outputs[-1])
    assert (record["status"], record["winner"]) == ("finished", "resistance")
    assert [m["result"] for m in record["missions"]] == ["success", "fail", "success", "success"]


@pytest.mark.long
def test_the_readme_game_through_a_real_shell(tmp_path):
    """The same commands through bash, as a newcomer types them (about 15 s)."""
    (tmp_path / "game.yaml").write_text(GAME_YAML)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("FORUMBOT_SETTINGS", None)
    r = subprocess.run(["bash", "-e", "-c", "\n".join(COMMANDS)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "### The Resistance win, by three missions." in r.stdout


def test_local_commands_name_threads_by_tag_and_say_what_is_wrong(here, capsys):
    assert main(["local", "read"]) == 0
    assert "No threads yet" in capsys.readouterr().out
    assert main(["local", "say", "alice", "G1", "**APPROVE**"]) == 1
    assert "no thread G1" in one_error_line(capsys)
    assert main(["local", "say", "al ice", "t1", "hi"]) == 2
    assert "not a username" in one_error_line(capsys)
    assert main(["local", "pm", "alice"]) == 2
    assert "write the message" in one_error_line(capsys)
    (here / "game.yaml").write_text(GAME_YAML)
    assert main(["local", "pm", "gm", "--subject", "new game", "--file", "game.yaml"]) == 0
    assert main(["run", "--once"]) == 0
    capsys.readouterr()
    assert main(["local", "read"]) == 0
    assert "t1  Friday night (G1)" in capsys.readouterr().out
    for ref in ("G1", "g1", "t1", "1"):
        assert main(["local", "say", "mallory", ref, "hello"]) == 0
    assert main(["local", "inbox", "alice"]) == 0
    assert "Your role" in capsys.readouterr().out
    assert main(["local", "inbox", "alice"]) == 0  # read now: nothing new
    assert "No new messages for alice" in capsys.readouterr().out
    assert main(["local", "inbox", "alice", "--all"]) == 0
    assert "Your role" in capsys.readouterr().out


# --- no tracebacks: one clear line, a non-zero exit -------------------------------------------


def write_settings(folder: Path, url: str) -> str:
    path = folder / "s.ini"
    path.write_text(f"[bot]\nforum = local\n[database]\nurl = {url}\n[local]\npath = {folder}/forum.db\n")
    return str(path)


BAD_URLS = {
    "not a url": ("notaurl", "not a database URL"),
    "mysql": ("mysql://u@localhost/db", "mysql databases are not supported"),
    "closed port": ("postgresql://postgres@127.0.0.1:1/test?connect_timeout=2", "Connection refused"),
    "missing folder": ("sqlite:///{tmp}/no/such/dir/bot.db", "does not exist"),
    "two slashes": ("sqlite://bot.db", "three slashes"),
}


@pytest.mark.parametrize("case", list(BAD_URLS))
@pytest.mark.parametrize("command", [["run", "--once"], ["export", "G1"], ["doctor"]])
def test_a_bad_database_url_is_one_line(case, command, tmp_path, capsys):
    url, words = BAD_URLS[case]
    settings = write_settings(tmp_path, url.format(tmp=tmp_path))
    assert main([*command, "--settings", settings]) != 0
    if command == ["doctor"]:
        out = capsys.readouterr().out
        assert words in out and "FAIL" in out and "Traceback" not in out
    else:
        assert words in one_error_line(capsys)


@pytest.mark.skipif(not PG_URL, reason="FORUMBOT_TEST_DATABASE_URL is not set")
def test_a_missing_postgresql_database_is_one_line(tmp_path, capsys):
    url = PG_URL.rsplit("/", 1)[0] + "/no_such_database_here"
    # 1: the database failed (the exit-code rule of docs/reference.md; it was 2 before the rule)
    assert main(["run", "--once", "--settings", write_settings(tmp_path, url)]) == 1
    line = one_error_line(capsys)
    assert line.startswith("database: ") and "does not exist" in line


def test_an_ini_file_with_no_section_header_is_one_line(tmp_path, capsys):
    f = tmp_path / "s.ini"
    f.write_text("forum = local\n")
    assert main(["run", "--once", "--settings", str(f)]) == 2
    assert "section header such as [bot]" in one_error_line(capsys)


def test_check_config_on_a_file_that_is_not_utf8_is_one_line(tmp_path, capsys):
    f = tmp_path / "game.yaml"
    f.write_bytes(b"preset: resistance\ntitle: caf\xe9\n\xff\xfe")
    assert main(["check-config", str(f)]) == 2
    assert "is not UTF-8 text" in one_error_line(capsys)
    assert main(["check-config", str(tmp_path / "nope.yaml")]) == 2
    assert "No such file" in one_error_line(capsys)


def test_settings_example_copied_unchanged_names_what_to_fill_in(here, capsys):
    (here / "settings.ini").write_text((ROOT / "settings.example.ini").read_text())
    assert main(["run", "--once"]) == 2
    line = one_error_line(capsys)
    for key in ("client_id", "client_secret", "username", "password (or refresh_token)"):
        assert key in line
    assert "forum = local" in line  # and the way to try it without an account
    assert sorted(p.name for p in here.iterdir()) == ["settings.ini"]  # nothing made


def test_export_into_a_closed_pipe_is_one_line(here):
    """`forumbot export G1 | head -c 600`: the reader is gone before the export is written."""
    (here / "game.yaml").write_text(GAME_YAML)
    assert main(["local", "pm", "gm", "--subject", "new game", "--file", "game.yaml"]) == 0
    assert main(["run", "--once"]) == 0
    read, write = os.pipe()
    os.close(read)  # (head has read its 600 bytes and gone)
    try:
        r = subprocess.run([sys.executable, "-m", "forumbot", "export", "G1"], cwd=here,
                           stdout=write, stderr=subprocess.PIPE, text=True, timeout=60,
                           env=dict(os.environ, PYTHONPATH=str(ROOT)))
    finally:
        os.close(write)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        "export: the output was closed before all of it was written"]


def test_export_in_an_empty_folder_makes_no_database(here, capsys):
    assert main(["export", "G1"]) == 2
    assert "there is no database at" in one_error_line(capsys)
    assert list(here.iterdir()) == []


# --- the command line's small promises ------------------------------------------------------------


def test_version_and_help(capsys):
    from forumbot import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"forumbot {__version__}"
    assert main(["demo", "--help"]) == 0
    text = capsys.readouterr().out
    for preset in ("resistance", "resistance-plot", "so-say-we-all", "avalon", "avalon-2020"):
        assert preset in text
    for command in (["run"], ["demo"], ["export"], ["check-config"], ["doctor"], ["local"],
                    ["local", "say"], ["local", "pm"], ["local", "read"], ["local", "inbox"]):
        assert main([*command, "--help"]) == 0
        assert "usage: forumbot" in capsys.readouterr().out

    def walk(parser):
        for action in parser._actions:
            yield parser.prog, action
            for sub in (getattr(action, "choices", None) or {}).values():
                if isinstance(sub, argparse.ArgumentParser):
                    yield from walk(sub)

    from forumbot.cli.main import _parser

    for prog, action in walk(_parser()):
        assert action.help, (prog, action.option_strings or action.dest)  # each says what it is


def test_demo_takes_the_presets_only_size(capsys):
    assert main(["demo", "--preset", "avalon-2020", "--seed", "3"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("winner: ")


def test_check_config_on_a_signup_config_names_the_table(tmp_path, capsys):
    f = tmp_path / "signup.yaml"
    f.write_text("preset: resistance\nplayers: signup\nmin_players: 5\nmax_players: 8\n")
    assert main(["check-config", str(f)]) == 0
    out = capsys.readouterr().out
    assert "sign-ups for 5 to 8 players" in out and "0 players" not in out


GREETING = """Hi bot! Here is my game, thanks:

```yaml
preset: resistance
players: [alice, bob, carol, dave, erin]
```

See you in the thread.
"""


def test_a_config_pm_with_a_greeting_before_its_fenced_block_is_taken(tmp_path, capsys):
    from forumbot.gameconfig import parse_config

    cfg, problems = parse_config(GREETING, "host")
    assert problems == [] and cfg.players == ("alice", "bob", "carol", "dave", "erin")
    indented = "Hello,\n\n    preset: resistance\n    players: [alice, bob, carol, dave, erin]\n\nBye"
    assert parse_config(indented, "host")[1] == []
    # a plain config whose intro holds a fence of its own is read whole
    plain = "preset: resistance\nplayers: [alice, bob, carol, dave, erin]\nintro: |\n  ```\n  x: 1\n  ```\n"
    cfg, problems = parse_config(plain, "host")
    assert problems == [] and "x: 1" in cfg.intro
    f = tmp_path / "greeting.txt"
    f.write_text(GREETING)
    assert main(["check-config", str(f)]) == 0


def test_a_greeting_config_pm_starts_a_game(here, capsys):
    assert main(["local", "pm", "gm", "--subject", "new game", GREETING]) == 0
    assert main(["run", "--once"]) == 0
    capsys.readouterr()
    assert main(["local", "inbox", "gm"]) == 0
    assert "G1 is running" in capsys.readouterr().out


# --- logs -----------------------------------------------------------------------------------------


def test_log_level_and_log_format_settings(tmp_path):
    from forumbot.settings import SettingsError, load_settings

    f = tmp_path / "s.ini"
    f.write_text("[bot]\nforum = local\nlog_level = DEBUG\nlog_format = json\n")
    s = load_settings(str(f))
    assert (s.log_level, s.log_format) == ("debug", "json")
    for bad in ("log_level = loud", "log_format = xml"):
        f.write_text(f"[bot]\n{bad}\n")
        with pytest.raises(SettingsError, match=bad.split()[0]):
            load_settings(str(f))


def test_json_logs_and_apscheduler_routine_lines_are_debug(capsys):
    from forumbot.logs import configure_logging

    try:
        configure_logging("info", "json")
        logging.getLogger("forumbot").error("the forum is down")
        logging.getLogger("apscheduler.executors.default").info('Running job "tick"')
        logging.getLogger("apscheduler.scheduler").warning("a real warning")
        lines = [json.loads(x) for x in capsys.readouterr().err.splitlines()]
        assert [(x["level"], x["message"]) for x in lines] == [
            ("error", "the forum is down"), ("warning", "a real warning")]
        assert lines[0]["logger"] == "forumbot" and lines[0]["time"].endswith("Z")
        configure_logging("debug", "text")
        logging.getLogger("apscheduler.executors.default").info('Running job "tick"')
        assert 'DEBUG Running job "tick"' in capsys.readouterr().err
    finally:
        configure_logging("info", "text")
