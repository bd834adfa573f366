"""Ctrl-C (SIGINT) at any moment (issue 25, item 10): while `forumbot run` loads its modules,
reads its settings, opens its database or runs its cycle, it ends in one line and never
with a traceback; a second Ctrl-C stops it at once, in one line.

The child runs with `-X importtime`, which writes a line to stderr as each import finishes:
the test waits for the import of the package `forumbot` (its __init__ puts the handler in:
the bot's own code runs from there on; a signal before that lands in Python's own start-up,
which no code of the bot can reach), then lets a delay pass before the signal. Two delays run
in `make test`; the sweep of delays over the whole start-up is `long`."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INTERRUPTED = (130, -signal.SIGINT)  # (Python may end by the signal itself: a shell shows 130 too)


def spawn(args: list[str], cwd: Path, importtime: bool = False) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    env.pop("FORUMBOT_SETTINGS", None)
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.Popen([sys.executable, *flags, *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_from_a_terminal)


def as_from_a_terminal() -> None:
    """The child gets Ctrl-C as from a terminal, even when the tests run where SIGINT is
    ignored (a background job of a shell without job control: its children inherit that, and
    the bot rightly leaves an ignored SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Drain:
    """Reads a pipe on a thread (so that the child never blocks on a full pipe) and tells
    when a line with `mark` came."""

    def __init__(self, pipe, mark: str):
        self.lines: list[str] = []
        self.seen = threading.Event()
        self.mark = mark
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe) -> None:
        for line in pipe:
            self.lines.append(line.rstrip("\n"))
            if re.search(self.mark, line):
                self.seen.set()
        self.seen.set()  # (the pipe closed: the child ended)

    def own(self) -> list[str]:
        """The child's own lines (not -X importtime's)."""
        self.thread.join(timeout=30)
        return [x for x in self.lines if not x.startswith("import time:")]


def settle(p: subprocess.Popen, timeout: float = 60) -> int:
    try:
        return p.wait(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


SCRIPT = """import sys
from forumbot.cli.main import main
sys.exit(main())
"""  # (what pip writes as bin/forumbot: an import, then main())


def interrupt_during_start_up(tmp_path, delay: float, entry: str) -> None:
    (tmp_path / "settings.ini").write_text("[bot]\nforum = local\npoll_interval = 1s\n")
    (tmp_path / "bin").mkdir(exist_ok=True)
    (tmp_path / "bin" / "forumbot").write_text(SCRIPT)
    args = ["-m", "forumbot", "run"] if entry.startswith("python") else [str(tmp_path / "bin" / "forumbot"), "run"]
    p = spawn(args, tmp_path, importtime=True)
    err = Drain(p.stderr, r"\| +forumbot$")
    assert err.seen.wait(60), "the child never imported forumbot"
    time.sleep(delay)
    p.send_signal(signal.SIGINT)
    code = settle(p, 20)  # (one Ctrl-C ends it: lost on the way, the bot would run on)
    lines = err.own()
    assert not [x for x in err.lines if "Traceback" in x or "KeyboardInterrupt" in x
                or "Exception ignored" in x], lines
    if code == 0:  # the scheduler was running: the cycle under way finished, then it stopped
        assert lines[-1].endswith("INFO stopped"), lines
    else:
        assert code in INTERRUPTED, (code, lines)
        assert lines == ["forumbot: interrupted"], lines


@pytest.mark.parametrize("entry, delay", [("python -m forumbot", 0.0), ("the forumbot script", 0.15)])
def test_ctrl_c_during_start_up_is_one_line(tmp_path, delay, entry):
    interrupt_during_start_up(tmp_path, delay, entry)


@pytest.mark.long
@pytest.mark.parametrize("entry", ["python -m forumbot", "the forumbot script"])
@pytest.mark.parametrize("delay", [i * 0.025 for i in range(48)])
def test_ctrl_c_at_any_moment_of_start_up(tmp_path, delay, entry):
    interrupt_during_start_up(tmp_path, delay, entry)


SWALLOWING = """import sys, time
from forumbot.cli import main as cli
def swallowing(args):  # (as a C extension's import does with an exception it did not expect)
    print("starting", flush=True)
    for _ in range(60):
        try:
            time.sleep(1)
        except BaseException:
            pass
    return 0
cli._run = swallowing
sys.exit(cli.main(["run"]))
"""


def test_one_ctrl_c_stops_the_command_line_even_where_an_exception_would_be_swallowed(tmp_path):
    """Before the scheduler runs, Ctrl-C does not raise KeyboardInterrupt in the command line:
    it stops at once, wherever it lands."""
    (tmp_path / "forumbot").write_text(SWALLOWING)  # (a script named forumbot: the command line)
    p = spawn([str(tmp_path / "forumbot")], tmp_path)
    out = Drain(p.stdout, "starting")
    err = Drain(p.stderr, "interrupted")
    assert out.seen.wait(60)
    p.send_signal(signal.SIGINT)
    code = settle(p, 20)
    assert code == 130 and err.own() == ["forumbot: interrupted"], (code, err.lines)


SLOW_CYCLE = """
import logging, sys, time
from forumbot.shell.scheduler import run_forever
from forumbot.shell.moderator import CycleReport
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
class Mod:
    def cycle(self):
        print("cycle start", flush=True)
        time.sleep(60)
        return CycleReport()
    def next_deadline(self):
        return None
run_forever(Mod(), 60)
"""


def test_a_second_ctrl_c_stops_the_running_bot_at_once(tmp_path):
    """The first lets the cycle under way finish; the second does not wait for it."""
    p = spawn(["-c", SLOW_CYCLE], ROOT)
    out = Drain(p.stdout, "cycle start")
    err = Drain(p.stderr, "stopping: the cycle under way finishes first")
    assert out.seen.wait(60)
    p.send_signal(signal.SIGINT)
    assert err.seen.wait(30), err.lines
    assert p.poll() is None  # the cycle under way goes on
    started = time.monotonic()
    p.send_signal(signal.SIGINT)
    code = settle(p)
    assert time.monotonic() - started < 20  # (the cycle had 60 seconds to go)
    assert code == 130
    lines = err.own()
    assert lines[-1] == ("forumbot: interrupted again: stopped at once, without waiting for "
                         "the cycle under way"), lines
    assert not [x for x in lines if "Traceback" in x], lines


SLOW_START = """
import os, signal, sys, time
from forumbot.cli import main as cli
def slow(args):
    try:
        print("starting", flush=True)
        time.sleep(60)  # (the database opening, say)
    except KeyboardInterrupt:
        print("cleaning up", flush=True)
        time.sleep(60)  # (a clean-up that hangs)
        raise
    return 0
cli._run = slow
sys.exit(cli.main(["run"]))
"""


def test_a_second_ctrl_c_during_start_up_stops_at_once(tmp_path):
    """The first interrupts; while its clean-up hangs, the second ends the process."""
    p = spawn(["-c", SLOW_START], tmp_path)
    out = Drain(p.stdout, "starting")
    err = Drain(p.stderr, "interrupted")
    assert out.seen.wait(60)
    out.seen.clear()
    out.mark = "cleaning up"
    p.send_signal(signal.SIGINT)
    assert out.seen.wait(30) and "cleaning up" in out.lines, (out.lines, err.lines)
    p.send_signal(signal.SIGINT)
    code = settle(p)
    assert code == 130
    assert err.own() == ["forumbot: interrupted again: stopped at once"], (out.lines, err.lines)


def test_a_program_that_imports_the_command_line_keeps_pythons_handler():
    code = ("import signal, forumbot.cli.demo; "
            "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                       preexec_fn=as_from_a_terminal)
    assert p.stdout.strip() == "True", p.stderr


def test_main_puts_back_the_handler_it_replaced():
    from forumbot.cli.main import main

    before = signal.getsignal(signal.SIGINT)
    assert main(["--version"]) == 0
    assert signal.getsignal(signal.SIGINT) is before
