"""The host's guide (docs/hosting.md, once the README's "Hosting a game"): every config in it
passes check-config, the five seed games are there, and every host and player command.
tests/test_docs.py checks every page of docs/ and the README as a whole."""
import pathlib
import re
import subprocess

import pytest

from forumbot.gameconfig import parse_config

ROOT = pathlib.Path(__file__).parents[2]
GUIDE = (ROOT / "docs" / "hosting.md").read_text()
HOSTING = GUIDE[GUIDE.index("## Starting a game"):GUIDE.index("## What players type")]
CONFIGS = re.findall(r"```yaml\n(.*?)```", HOSTING, re.S)


def test_there_is_a_config_for_every_preset():
    presets = {re.search(r"^preset: (\S+)", c, re.M).group(1) for c in CONFIGS}
    assert presets == {"resistance", "resistance-plot", "so-say-we-all", "avalon", "avalon-2020"}


@pytest.mark.parametrize("config", CONFIGS)
def test_guide_config_passes(config, tmp_path):
    cfg, problems = parse_config(config, "host")
    assert problems == []
    from forumbot.cli.main import main

    path = tmp_path / "game.yaml"
    path.write_text(config)
    assert main(["check-config", str(path)]) == 0  # the command a host would run


def test_the_five_seed_games_are_in_the_guide():
    seeds = HOSTING[HOSTING.index("### The five seed games"):]
    titles = {re.search(r"^title: (.+)$", c, re.M).group(1) for c in re.findall(r"```yaml\n(.*?)```", seeds, re.S)}
    assert titles == {"The Resistance - First test game", "The Resistance Game 60 - So say we all",
                      "The Resistance - Game 49 (Avalon)", "The Resistance",
                      "2020 Match 4 of The Resistance - Avalon"}


def test_every_host_command_is_in_the_guide():
    from forumbot.limits import HOST_COMMANDS

    for verb in HOST_COMMANDS:
        assert f"`{verb.upper()} G12" in HOSTING, verb


def test_every_player_command_is_in_the_guide():
    playing = GUIDE[GUIDE.index("## What players type"):GUIDE.index("## What players see")]
    for word in ("JOIN", "LEAVE", "PROPOSE", "APPROVE", "REJECT", "ABSTAIN", "CRITICAL", "SUPPORT",
                 "SABOTAGE", "GIVE", "PLAY", "PROXY", "TAKE", "CHOOSE", "PASS", "LADY", "ASSASSINATE",
                 "STATUS", "HELP"):
        assert word in playing, word


def test_make_demo_installs_only_what_the_bot_needs(tmp_path):
    """`make demo` on a fresh machine: the bot alone, no test or lint tools (`make test` adds them)."""
    demo = subprocess.run(["make", "-n", "demo", f"VENV={tmp_path}/venv"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert demo.returncode == 0, demo.stderr
    installs = [line for line in demo.stdout.splitlines() if "pip install" in line and "--upgrade pip" not in line]
    assert installs == [f"{tmp_path}/venv/bin/python -m pip install -q -e ."], demo.stdout
    test = subprocess.run(["make", "-n", "test", f"VENV={tmp_path}/venv"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert "-e '.[test]'" in test.stdout
