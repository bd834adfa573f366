"""The command line: demo, check-config, export, run --once."""
import json
import subprocess
import sys

import pytest

from forumbot.cli.main import main


def forumbot(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "forumbot", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


@pytest.mark.parametrize("n", range(5, 11))
def test_demo_finishes_with_a_winner_for_every_table_size(n, capsys):
    assert main(["demo", "--players", str(n), "--seed", str(n * 3)]) == 0
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-1]
    assert last.startswith("winner: resistance") or last.startswith("winner: spies")
    assert "Your role" not in out  # the demo prints the thread, never a PM


@pytest.mark.parametrize("preset,n", [("resistance-plot", 8), ("avalon", 5), ("avalon", 7),
                                      ("avalon", 10), ("avalon-2020", 8),
                                      ("so-say-we-all", 5), ("so-say-we-all", 9)])
def test_demo_plays_every_playable_preset(preset, n, capsys):
    assert main(["demo", "--preset", preset, "--players", str(n), "--seed", "2"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("winner: ")


def test_demo_same_seed_same_game(capsys):
    main(["demo", "--players", "6", "--seed", "11"])
    first = capsys.readouterr().out
    main(["demo", "--players", "6", "--seed", "11"])
    assert capsys.readouterr().out == first
    main(["demo", "--players", "6", "--seed", "12"])
    assert capsys.readouterr().out != first


def test_demo_refuses_what_it_cannot_play(capsys):
    assert main(["demo", "--players", "11"]) == 2
    assert main(["demo", "--preset", "nope"]) == 2
    assert main(["demo", "--preset", "avalon-2020", "--players", "7"]) == 2


def test_check_config_lists_every_mistake(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("preset: resistance\nplayers: [alice, bob, carol, dave]\n"
                   "deadlines: {team_vote: 12 hours}\nmissed: {team_vote: perhaps}\n")
    r = forumbot("check-config", str(bad))
    assert r.returncode != 0
    assert "3 problems" in r.stdout
    for key in ("players", "deadlines.team_vote", "missed.team_vote"):
        assert key in r.stdout
    good = tmp_path / "good.yaml"
    good.write_text("preset: resistance\nplayers: [alice, bob, carol, dave, erin]\n")
    r = forumbot("check-config", str(good))
    assert r.returncode == 0 and "OK" in r.stdout


def test_run_once_and_export_on_the_embedded_defaults(tmp_path):
    from adapters.local import LocalForum

    forum = LocalForum(str(tmp_path / "forumbot-local.db"))
    forum.send_pm("host", "forumbot", "new game",
                  "preset: resistance\nplayers: [alice, bob, carol, dave, erin]\nseed: 5\n")
    r = forumbot("run", "--once", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "handled 1" in r.stdout
    forum.comment("mallory", "t1", "**nonsense** that is **not a command**")
    r = forumbot("run", "--once", cwd=tmp_path)
    assert r.returncode == 0
    r = forumbot("export", "G1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    e = json.loads(r.stdout)
    assert e["game"] == "G1" and e["status"] == "running" and len(e["players"]) == 5
    assert {p["side"] for p in e["players"]} == {"resistance", "spies"}
    assert e["events"][0]["type"] == "game_started"
    assert forumbot("export", "G9", cwd=tmp_path).returncode == 1
