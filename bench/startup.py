"""What the command line costs before it does anything: instructions and CPU time.

    .venv/bin/python bench/startup.py [--against REF] [--rounds 15] [--no-callgrind]

Two processes are measured, each on this tree and (with `--against REF`) on the commit REF,
checked out with `git worktree` in a temporary folder, so before and after come from one run:

- `import`: `python -c "import forumbot.cli.main"`, the command line loaded and nothing run;
- `run --once`: `forumbot run --once` on a local forum in a temporary folder (made by an
  earlier, unmeasured run, as is the database), stopped at its first request to the forum
  (the adapter's fetch exits the process): Python, the imports, the settings, the database
  and the bot lock, up to the first read.

Instructions are the process's total under `valgrind --tool=callgrind` (no toggles: Python's
own start-up is in it, the same on both sides; PYTHONHASHSEED=0). CPU time is the child's
user + system time, the trees taking turns round after round; it prints the median, the
lowest and highest, and the median of the ratios of each round. A ratio below 1 means this
tree costs less than REF."""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

STOP_AT_FIRST_REQUEST = """import os, sys
import adapters.local


def first_request(self, *args, **kwargs):
    os._exit(0)  # (the measure ends here: everything before the first read of the forum)


adapters.local.LocalForum.fetch = first_request
from forumbot.cli.main import main  # noqa: E402

sys.exit(main(["run", "--once"]))
"""

TARGETS = ("import", "run --once")


def command(target: str, tree: str, folder: str) -> list[str]:
    if target == "import":
        return [sys.executable, "-c", "import forumbot.cli.main"]
    return [sys.executable, os.path.join(folder, "stop_at_first_request.py")]


def environment(tree: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=tree, PYTHONHASHSEED="0")
    env.pop("FORUMBOT_SETTINGS", None)
    return env


def prepare(tree: str) -> str:
    """A folder with settings for a local forum, the forum and the database made (and the
    tree's modules compiled) by one unmeasured `run --once`."""
    folder = tempfile.mkdtemp(prefix="startup-")
    with open(os.path.join(folder, "settings.ini"), "w") as f:
        f.write("[bot]\nforum = local\n")
    with open(os.path.join(folder, "stop_at_first_request.py"), "w") as f:
        f.write(STOP_AT_FIRST_REQUEST)
    subprocess.run([sys.executable, "-m", "forumbot", "run", "--once"], cwd=folder, env=environment(tree),
                   check=True, stdout=subprocess.DEVNULL)
    for target in TARGETS:  # (each once, to warm the caches)
        subprocess.run(command(target, tree, folder), cwd=folder, env=environment(tree), check=True)
    return folder


def cpu_seconds(target: str, tree: str, folder: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command(target, tree, folder), cwd=folder, env=environment(tree), check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def instructions(target: str, tree: str, folder: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command(target, tree, folder)]
        subprocess.run(cmd, cwd=folder, env=environment(tree), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            for line in f:
                if line.startswith(("summary:", "totals:")):
                    return int(line.split()[1])
    raise RuntimeError("no instruction total in callgrind's output")


def worktree(ref: str) -> str:
    path = tempfile.mkdtemp(prefix="startup-ref-")
    subprocess.run(["git", "-C", HERE, "worktree", "add", "--detach", "-f", path, ref], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", metavar="REF", help="a commit to compare with (git worktree)")
    ap.add_argument("--rounds", type=int, default=15, help="CPU-time rounds per tree and target")
    ap.add_argument("--no-callgrind", action="store_true", help="CPU time only")
    args = ap.parse_args(argv)
    trees = {"this tree": HERE}
    made = None
    if args.against:
        made = trees[args.against] = worktree(args.against)
    try:
        folders = {name: prepare(tree) for name, tree in trees.items()}
        names = list(trees)
        counts: dict[tuple[str, str], int] = {}
        if not args.no_callgrind:
            if shutil.which("valgrind") is None:
                print("valgrind is not installed: CPU time only (--no-callgrind)")
            else:
                jobs = [(t, n) for t in TARGETS for n in names]
                with ThreadPoolExecutor(len(jobs)) as pool:
                    found = pool.map(lambda j: instructions(j[0], trees[j[1]], folders[j[1]]), jobs)
                    counts = dict(zip(jobs, found))
        times: dict[tuple[str, str], list[float]] = {(t, n): [] for t in TARGETS for n in names}
        for r in range(args.rounds):
            for t in TARGETS:
                for n in (names if r % 2 == 0 else names[::-1]):  # (taking turns, first and second)
                    times[(t, n)].append(cpu_seconds(t, trees[n], folders[n]))
        print(f"start-up, {args.rounds} rounds of CPU time (user + system) per tree and target")
        for t in TARGETS:
            for n in names:
                xs = times[(t, n)]
                shown = f"{counts[(t, n)] / 1e6:,.0f} M instructions, " if (t, n) in counts else ""
                print(f"  {t:<11} {n:<12} {shown}CPU {statistics.median(xs) * 1000:.0f} ms "
                      f"({min(xs) * 1000:.0f}-{max(xs) * 1000:.0f})")
            if len(names) == 2:
                a, b = names
                per_round = [x / y for x, y in zip(times[(t, a)], times[(t, b)]) if y > 0]
                line = f"  {t:<11} {a} / {b}: CPU {statistics.median(per_round):.2f}x " \
                       f"({min(per_round):.2f}-{max(per_round):.2f})"
                if (t, a) in counts:
                    line += f", instructions {counts[(t, a)] / counts[(t, b)]:.2f}x"
                print(line)
        for folder in folders.values():
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        if made:
            subprocess.run(["git", "-C", HERE, "worktree", "remove", "--force", made],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
