"""Runs the fuzz targets of `fuzz_targets.py`, each in a subprocess, for N inputs or T seconds:

    python tests/fuzz/run.py --runs 20000 --jobs 2   # CI: a fixed number of inputs a target, two at a time
    python tests/fuzz/run.py --seconds 180 config    # `make test-long`: a time a target

Prints per target the inputs tried, the failures found (each input saved under --out, with
its traceback beside it) and the worst CPU time one input took. Exits 1 if anything was
found, 0 otherwise; 0 with a note when atheris is not installed (it has wheels up to
Python 3.11 only): the seed corpus still runs in tests/fuzz/test_fuzz_targets.py.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = pathlib.Path(__file__).resolve().parent
TARGETS = ["config", "settings", "comment", "pm"]


def run_target(target: str, runs: int | None, seconds: int | None, out: pathlib.Path, max_len: int) -> dict:
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"fuzz-{target}-"))  # new inputs go here, not in the seeds
    stats_file = work / "stats.json"
    crashes = out / target
    env = dict(os.environ, FUZZ_STATS=str(stats_file), FUZZ_CRASHES=str(crashes), FUZZ_KEEP_GOING="1")
    flags = [f"-max_len={max_len}", "-timeout=30", "-rss_limit_mb=3072", f"-artifact_prefix={crashes}/",
             "-print_final_stats=1"]
    words = HERE / "dicts" / f"{target}.dict"  # tokens the mutator splices in (keys, verbs, markup)
    flags += [f"-dict={words}"] if words.exists() else []
    flags += [f"-runs={runs}"] if runs else []
    flags += [f"-max_total_time={seconds}"] if seconds else []
    crashes.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(HERE / "fuzz_targets.py"), target, str(work / "corpus"),
           str(HERE / "corpus" / target)] + flags
    (work / "corpus").mkdir()
    start = time.monotonic()
    wall = (seconds or 0) + 120 + (runs or 0) // 50  # a hard stop, beyond libFuzzer's own
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, errors="replace", timeout=wall)
        log, code = proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as e:
        log, code = (e.stderr or b"").decode("utf-8", "replace") if isinstance(e.stderr, bytes) else (e.stderr or ""), -1
    (out / f"{target}.log").write_text(log)
    stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
    done = re.search(r"Done (\d+) runs", log)
    inputs = int(done.group(1)) if done else stats.get("inputs", 0)
    found = dict(stats.get("found", {}))
    if code not in (0,) and not found:  # libFuzzer stopped on something the harness did not catch
        found[f"exit {code}"] = "see " + str(out / f"{target}.log")
    shutil.rmtree(work, ignore_errors=True)
    return {"target": target, "inputs": inputs, "worst": stats.get("worst", 0.0),
            "worst_len": stats.get("worst_len", 0), "found": found, "seconds": time.monotonic() - start}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("targets", nargs="*", metavar="TARGET", help=f"any of {', '.join(TARGETS)} (all by default)")
    ap.add_argument("--runs", type=int, help="inputs per target")
    ap.add_argument("--seconds", type=int, help="seconds per target")
    ap.add_argument("--max-len", type=int, default=16384, help="the longest input, in bytes")
    ap.add_argument("--out", default="fuzz-findings", help="where found inputs and logs go")
    ap.add_argument("--jobs", type=int, default=1, help="targets fuzzed at the same time (one process each)")
    a = ap.parse_args(argv)
    if importlib.util.find_spec("atheris") is None:
        print("fuzz: atheris is not installed (pip install atheris; Python < 3.12): skipped")
        return 0
    unknown = [t for t in a.targets if t not in TARGETS]
    if unknown:
        ap.error(f"no target {', '.join(unknown)}; the targets: {', '.join(TARGETS)}")
    if not a.runs and not a.seconds:
        a.runs = 20000
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    bad = False
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:  # each target is its own process
        results = pool.map(lambda t: run_target(t, a.runs, a.seconds, out, a.max_len), a.targets or TARGETS)
        for r in results:  # in the targets' order, each as it is done
            bad |= report(r, out)
    return 1 if bad else 0


def report(r: dict, out: pathlib.Path) -> bool:
    """Prints one target's figures and findings; True when it found something."""
    print(f"fuzz {r['target']:8} {r['inputs']:>8} inputs in {r['seconds']:.0f}s; worst input "
          f"{r['worst'] * 1000:.1f} ms CPU ({r['worst_len']} bytes); found {len(r['found'])}", flush=True)
    for where, name in r["found"].items():
        print(f"    {where}: {out / r['target'] / name}", flush=True)
    return bool(r["found"])


if __name__ == "__main__":
    sys.exit(main())
