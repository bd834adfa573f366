"""The fuzz targets without atheris: every seed input passes every check, the harness
catches what escapes and what takes too long, and the runner works (when atheris is there)."""
from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys
import threading
import time

import pytest

from tests.fuzz import fuzz_targets
from tests.fuzz.fuzz_targets import CHECKS, Stats, harness

HERE = pathlib.Path(__file__).parent
SEEDS = [(t, p) for t in CHECKS for p in sorted((HERE / "corpus" / t).iterdir())]
# the harness's CPU alarm (SIGPROF) can be set from the main thread only
pytestmark = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                                reason="signals need the main thread")


def test_every_target_has_seeds():
    assert {t for t, _ in SEEDS} == set(CHECKS)


@pytest.mark.parametrize("target,path", SEEDS, ids=[f"{t}-{p.name}" for t, p in SEEDS])
def test_the_seeds_pass(target, path):
    stats = Stats(None, None, keep_going=False)
    harness(CHECKS[target], stats)(path.read_bytes())  # raises on a failure or a slow input
    assert stats.inputs == 1 and not stats.found


def test_the_harness_records_an_escape_and_a_slow_input(tmp_path, monkeypatch):
    monkeypatch.setattr(fuzz_targets, "LIMIT", 0.05)
    stats = Stats(str(tmp_path / "stats.json"), str(tmp_path / "crashes"), keep_going=True)

    def check(data: bytes) -> None:
        if data == b"boom":
            raise KeyError(data)
        if data == b"slow":
            end = time.process_time() + 1
            while time.process_time() < end:
                pass

    one = harness(check, stats)
    for data in [b"fine", b"boom", b"slow", b"boom"]:
        one(data)
    assert stats.inputs == 4 and stats.worst < 0.5
    assert len(stats.found) == 2 and "slow" in stats.found
    assert any(w.startswith("KeyError ") for w in stats.found)
    assert sorted(p.suffix for p in (tmp_path / "crashes").iterdir()) == ["", "", ".txt", ".txt"]
    with pytest.raises(KeyError):  # without keep_going the first failure stops the run
        harness(check, Stats(None, None, keep_going=False))(b"boom")


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris is not installed")
def test_the_runner_fuzzes_each_target(tmp_path):
    out = subprocess.run([sys.executable, str(HERE / "run.py"), "pm", "--runs", "300", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "fuzz pm            300 inputs" in out.stdout, out.stdout
