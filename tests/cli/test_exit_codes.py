"""Exit codes follow one rule for every command (issue 25, item 8; docs/reference.md, "Exit
codes", and `forumbot --help`): 0 done; 1 the work failed (the forum, the database, a check
that found a problem); 2 the command or a file it was given is unusable (usage, a missing or
unwritable file, a bad setting); 3 another bot holds the database. And `--settings FILE`
works before the command as after it."""
from __future__ import annotations

import pytest

from forumbot import botlock, store
from forumbot.cli.main import main

CONFIG = "preset: resistance\nplayers: [alice, bob, carol, dave, erin]\n"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A folder where the bot ran on the local forum: game G1 runs in thread t1. Beside it:
    ok.ini (these settings), bad.ini (no section header), pgdown.ini (a PostgreSQL server
    that is not there), good.yaml and wrong.yaml (a config with a problem)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORUMBOT_SETTINGS", raising=False)
    (tmp_path / "ok.ini").write_text("[bot]\nforum = local\n")
    (tmp_path / "bad.ini").write_text("forum = local\n")
    (tmp_path / "pgdown.ini").write_text(
        "[bot]\nforum = local\n[database]\nurl = postgresql://postgres@127.0.0.1:1/test?connect_timeout=2\n")
    for name in ("ok.ini", "bad.ini", "pgdown.ini"):
        (tmp_path / name).chmod(0o600)
    (tmp_path / "good.yaml").write_text(CONFIG)
    (tmp_path / "wrong.yaml").write_text(CONFIG.replace("resistance", "no_such_preset"))
    assert main(["local", "pm", "alice", "--subject", "new game", "--file", "good.yaml"]) == 0
    assert main(["run", "--once"]) == 0
    store.close()
    yield tmp_path
    store.close()


CASES = [
    # 0: done
    (["run", "--once"], 0),
    (["export", "G1"], 0),
    (["export", "G1", "--html", "page.html"], 0),
    (["check-config", "good.yaml"], 0),
    (["doctor"], 0),
    (["local", "read", "t1"], 0),
    (["local", "say", "alice", "t1", "hello"], 0),
    (["local", "say", "alice", "t1", "bytes \udcff that are no UTF-8 (a lone surrogate)"], 0),
    (["local", "pm", "alice", "\udcff\ud800"], 0),
    (["demo", "--players", "5", "--seed", "3"], 0),
    # 1: the work failed (the database server; a check that found a problem)
    (["run", "--once", "--settings", "pgdown.ini"], 1),
    (["export", "G1", "--settings", "pgdown.ini"], 1),
    (["doctor", "--settings", "pgdown.ini"], 1),
    (["export", "G9"], 1),
    (["check-config", "wrong.yaml"], 1),
    (["local", "say", "alice", "t9", "hello"], 1),
    # 2: the command or a file it was given is unusable
    (["run", "--no-such-option"], 2),
    ([], 2),
    (["export", "G1", "--html", "/nonexistent/dir/x.html"], 2),
    (["demo", "--with", "excalibur"], 2),
    (["demo", "--players", "5", "--seed", "3", "--html", "/nonexistent/dir/x.html"], 2),
    (["demo", "--preset", "no_such_preset"], 2),
    (["check-config", "missing.yaml"], 2),
    (["run", "--once", "--settings", "bad.ini"], 2),
    (["export", "G1", "--settings", "bad.ini"], 2),
    (["check-config", "good.yaml", "--settings", "bad.ini"], 2),
    (["doctor", "--settings", "bad.ini"], 2),
    (["doctor", "--settings", "missing.ini"], 2),
    (["local", "read", "--settings", "bad.ini"], 2),
    (["local", "say", "not a name!", "t1", "hello"], 2),
    (["export", "G1", "--settings", "elsewhere.ini"], 2),
]


@pytest.mark.parametrize("argv, code", CASES, ids=[" ".join(a) or "(nothing)" for a, _ in CASES])
def test_exit_code(folder, capsys, argv, code):
    if argv and argv[-1] == "elsewhere.ini":  # settings whose database is not there: 2
        (folder / "elsewhere.ini").write_text(f"[bot]\nforum = local\n[database]\nurl = sqlite:///{folder}/none.db\n")
    assert main(argv) == code, capsys.readouterr()
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err


def test_exit_code_3_when_another_bot_holds_the_database(folder, capsys):
    with botlock.acquire(f"sqlite:///{folder}/forumbot.db"):
        assert main(["run", "--once"]) == 3
    assert "another bot is working on this database" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["doctor"], ["run", "--once"], ["export", "G1"],
                                     ["check-config", "good.yaml"], ["local", "read"]])
def test_settings_before_the_command(folder, capsys, command):
    assert main(["--settings", "ok.ini", *command]) == 0, capsys.readouterr()
    capsys.readouterr()
    assert main(["--settings", "bad.ini", *command]) == 2  # (so they were read)
    out = capsys.readouterr()
    assert "section header" in out.out + out.err  # (doctor's FAIL line is on stdout)
    assert main(["--settings", "bad.ini", *command, "--settings", "ok.ini"]) == 0  # the later one wins


def test_the_rule_is_in_the_help_and_the_reference(capsys):
    from pathlib import Path

    assert main(["--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    for words in ("0 done", "1 the work failed", "2 the command or a file it was given is unusable",
                  "3 another bot holds the database"):
        assert words in shown, shown
    reference = (Path(__file__).resolve().parents[2] / "docs" / "reference.md").read_text()
    section = reference[reference.index("## Exit codes"):]
    section = section[:section.index("\n## ", 3)]
    for words in ("| 1 | the work failed", "| 2 | the command or a file it was given is unusable",
                  "| 3 | another bot holds the database", "forumbot --settings FILE doctor"):
        assert words in section, section
