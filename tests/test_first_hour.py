"""Issue 12, the first hour: a game on the local forum as the README tells it, errors that are
one line and never a traceback, the command line's small promises, and what players see
(the end post, the Mission Commander, the Plot and Mission Card prompts, deadlines counted
from the post, the wording of phases, PM votes in the demo, the tag line of every PM)."""
from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import shlex
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from forumbot.cli.main import main
from forumbot.render import render_events
from forumbot.rules import events as ev
from forumbot.rules import make_config
from forumbot.rules.random_play import play_out
from forumbot.rules.state import GameState, fold
from tests.conftest import PG_URL
from tests.test_rules import NAMES, T0

ROOT = Path(__file__).resolve().parent.parent
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
    assert main(["run", "--once", "--settings", write_settings(tmp_path, url)]) == 2
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
    from forumbot.cli.main import configure_logging

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


# --- what players see -----------------------------------------------------------------------------

GAMES = {
    "resistance": ({}, 7),
    "resistance-plot": ({"plot_cards": True}, 8),
    "so-say-we-all": ({"mission_cards": True}, 7),
    "avalon": ({"plot_cards": True, "lady_of_the_lake": True, "roles": ("percival", "morgana")}, 8),
    "avalon-2020": ({"plot_cards": True}, 8),
}


def played(preset: str, seed: int):
    options, n = GAMES[preset]
    cfg = make_config(preset, NAMES[:n], leader_order="random", title="T", **options)
    return cfg, play_out(cfg, seed, random.Random(seed), T0)[1]


def rendered(cfg, events, now_after: timedelta | None = None):
    """(event, the messages made for it alone, the state after it), for each event."""
    state = GameState(cfg)
    for e in events:
        fold(state, e)
        now = e.at + now_after if now_after is not None else None
        yield e, render_events(state, [e], "G7", now=now), state


@pytest.mark.parametrize("preset", list(GAMES))
def test_the_end_post_uses_the_presets_side_names_and_no_raw_winner_line(preset):
    from forumbot.render.words import side_wins

    for seed in range(3):
        cfg, events = played(preset, seed)
        for e, msgs, state in rendered(cfg, events):
            if e.type == ev.GAME_ENDED:
                post = next(m.body for m in msgs if m.to is None)
                assert "winner:" not in post
                heading = post.split("\n")[0]
                wins = side_wins(state, e.data["winner"])  # ("Good wins", "the Spies win")
                assert heading == f"### {wins[0].upper()}{wins[1:]}, by " + {
                    "missions": "three missions", "assassination": "the assassination",
                    "rejections": "five rejected teams in one mission"}[e.data["reason"]] + "."
                assert "(0 SABOTAGE)" not in post


def test_an_aborted_game_has_no_raw_winner_line_and_status_speaks_the_presets_words():
    from forumbot.render.status import public_status
    from forumbot.rules import apply
    from forumbot.rules.commands import HostAbort

    cfg = make_config("avalon", NAMES[:7], roles=("percival",))
    from forumbot.rules import start

    events = start(cfg, 1, T0)
    state = GameState(cfg)
    for e in events:
        fold(state, e)
    end = apply(state, HostAbort(T0 + timedelta(hours=1), "host"))
    for e in end:
        fold(state, e)
    post = next(m.body for m in render_events(state, end, "G7") if m.to is None)
    assert "winner:" not in post and "aborted" in post
    cfg, events = played("avalon", 1)
    state = GameState(cfg)
    for e in events:
        fold(state, e)
    words = public_status(state, "G7")
    assert "Minions of Mordred won" in words or "Loyal Servants of Arthur won" in words
    assert "spies won" not in words and "resistance won" not in words


def test_no_mission_commander_is_named_after_the_game_is_decided():
    for seed in range(12):
        cfg, events = played("so-say-we-all", seed)
        played_missions = sum(1 for e in events if e.type == ev.MISSION_RESOLVED)
        named = [e.data["mission"] for e in events if e.type == ev.COMMANDER_NAMED]
        assert max(named) <= played_missions, (seed, named, played_missions)
        assert 6 not in named


def test_establish_confidence_is_mentioned_only_when_it_was_drawn():
    seen = {True: 0, False: 0}
    for seed in range(6):
        cfg, events = played("resistance-plot", seed)
        for e, msgs, _ in rendered(cfg, events):
            if e.type == ev.PLOT_DRAWN:
                post = next(m.body for m in msgs if m.to is None)
                drawn = "establish-confidence" in e.data["cards"]
                assert ("Establish Confidence stays with" in post) == drawn, post
                seen[drawn] += 1
    assert seen[True] and seen[False]


def test_the_kept_card_prompt_offers_each_holder_only_the_cards_they_hold():
    from forumbot.rules.modules.mission_cards import BY_KEY

    windows = 0
    for seed in range(30):
        cfg, events = played("so-say-we-all", seed)
        state = GameState(cfg)
        for e in events:
            hands = {h: list(c) for h, c in (state.extra["mc"].hands if "mc" in state.extra else {}).items()}
            fold(state, e)
            if e.type != "mc_window":
                continue
            windows += 1
            post = next(m.body for m in render_events(state, [e], "G7") if m.to is None)
            for line in post.split("\n\n"):
                holder = line.split(":")[0]
                offered = set(re.findall(r"PLAY: ([A-Z][\w ]+?) ->", line))
                assert offered, line
                assert offered <= {BY_KEY[c].name for c in hands[holder]}, (line, hands[holder])
    assert windows >= 3


def test_a_kept_card_names_its_keeper():
    for seed in range(30):
        cfg, events = played("so-say-we-all", seed)
        for e, msgs, _ in rendered(cfg, events):
            if e.type == "mc_done" and e.data.get("result") == "kept":
                post = next(m.body for m in msgs if m.to is None)
                assert f"kept by **{e.data['to']}**" in post
                return
    pytest.fail("no kept card in 30 games")


def test_relative_deadlines_count_from_when_the_post_goes_out():
    cfg, events = played("resistance", 2)
    checked = 0
    for _e, msgs, _ in rendered(cfg, events, now_after=timedelta(hours=1, minutes=29)):
        for m in msgs:
            for due, rel in re.findall(r"by (\d{4}-\d\d-\d\d \d\d:\d\d) UTC \(in ([^)]+)\)", m.body):
                assert rel != "1d" and rel == "22h 31m", (m.body, due, rel)
                checked += 1
    assert checked > 5


def test_the_demo_posts_count_deadlines_from_their_own_time(capsys):
    from datetime import datetime

    assert main(["demo", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    checked = 0
    for post in re.split(r"\n(?=\[\d{4}-\d\d-\d\dT\d\d:\d\d\] )", text):
        stamp = re.match(r"\[(\S+)\] ", post)
        if not stamp:
            continue
        at = datetime.fromisoformat(stamp.group(1))
        for due, rel in re.findall(r"by (\d{4}-\d\d-\d\d \d\d:\d\d) UTC \(in ([^)]+)\)", post):
            left = datetime.fromisoformat(due) - at
            d, h, mins = (int(x) if x else 0 for x in re.fullmatch(
                r"(?:(\d+)d)? ?(?:(\d+)h)? ?(?:(\d+)m)?", rel).groups())
            said = timedelta(days=d, hours=h, minutes=mins)
            assert abs(left - said) <= timedelta(minutes=2), (post[:200], due, rel)
            checked += 1
    assert checked > 10


def test_phases_are_named_in_words_not_identifiers():
    from forumbot.render.help import help_for
    from forumbot.render.markup import markup_for
    from forumbot.render.status import public_status, status_block

    for preset in ("resistance-plot", "so-say-we-all", "avalon"):
        cfg, events = played(preset, 1)
        for _e, msgs, state in rendered(cfg, events):
            texts = [m.body for m in msgs] + [public_status(state, "G7"),
                                              status_block(state, "G7", markup_for("markdown"))]
            texts += [help_for(state, "G7", n, n) for n in state.names[:2]]
            for t in texts:
                for bad in ("hand out step", "prep card step", "prep window step",
                            "card window step", "plot choice step", "_"):
                    if bad == "_":
                        assert not re.search(r"\b(hand_out|prep_card|prep_window|card_window|plot_choice)\b", t), t
                    else:
                        assert bad not in t, t


def test_the_demo_marks_votes_that_came_by_pm(capsys):
    assert main(["demo", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    marks = re.findall(r"^\[\S+\] (\w+) \(by PM to forumbot\): (.+)$", out, re.M)
    assert any(what.startswith("a team vote") for _, what in marks)
    assert not re.search(r"by PM to forumbot\): .*(APPROVE|REJECT|SUPPORT|SABOTAGE)", out)
    assert out.count("\nwinner: ") == 1  # the script's last line, once; no raw line in posts


@pytest.mark.parametrize("preset", list(GAMES))
def test_every_pm_about_a_game_asks_for_the_tag(preset):
    cfg, events = played(preset, 4)
    pms = [m for _, msgs, _ in rendered(cfg, events) for m in msgs if m.to is not None]
    assert len(pms) > len(cfg.players)
    for m in pms:
        assert m.body.endswith("Put G7 in any message you send me about this game "
                               "(a chat may drop the subject)."), m.body
