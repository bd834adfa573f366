"""Mutation testing of the modules that keep the bot's promises (`make test-mutation`):

    python tests/mutation/run.py               # a sample of 50 mutants a module (seed 22), ~20 minutes
    python tests/mutation/run.py --sample 150  # make test-long: a bigger sample
    python tests/mutation/run.py --all         # every mutant (hours on two cores)
    python tests/mutation/run.py --report      # only the report of the last run (mutants/)
    python tests/mutation/run.py --module forumbot/shell/routing.py   # one module
    python tests/mutation/run.py --again       # after new tests: only what the last run did not kill

mutmut (pinned in the test extra) makes the mutants and runs them; its settings are
`[tool.mutmut]` in pyproject.toml: which modules, and which tests are the suite (the fast
behaviour tests: golden logs and identity hashes are left out, because a mutant only they notice
is not caught by a test of behaviour). Each module's mutants meet only the tests listed for it in
`suites.toml` (the plugin `suite.py`): a survivor then costs seconds, not minutes. The sample is
drawn per module with a fixed seed, so two runs on the same code try the same mutants; the
mutants are numbered per function, so a changed function draws new ones. This script prints, per module, the mutants, how many the
tests killed, and every survivor as the one line it changes; then it exits 1 when a module's
kill rate is under the target (90% of the mutants that change behaviour).

What does not count as killed: a survivor, a mutant no test reaches, and a timeout of mutmut's
own (the whole run went over its CPU limit). A mutant that makes one test hang for 180 s fails
that test (pytest-timeout, in [tool.mutmut]'s arguments only): parsing and the cycle promise
bounded time, so a mutant that loops forever breaks a promise and is caught. Mutants judged equivalent (no behaviour can tell
them apart) are listed with the reason in `equivalent/<module>.toml` beside this file, keyed by
the function and the line the mutant writes, and left out of the rate.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from difflib import unified_diff

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
TARGET = 0.90
KILLED = {1, 3}  # a test failed (3: pytest's internal error, raised by the mutant)
TIMEOUT = {24, -24, 36, 152, 255}


def modules() -> list[str]:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    return list(conf["only_mutate"])


def equivalents() -> dict[tuple[str, str], str]:
    """(function, the line the mutant writes) -> why no behaviour can tell it apart."""
    found: dict[tuple[str, str], str] = {}
    for path in sorted((HERE / "equivalent").glob("*.toml")):
        for e in tomllib.loads(path.read_text()).get("mutant", []):
            found[(e["function"], e["line"].strip())] = e["why"]
    return found


def survivors(only: list[str]) -> list[str]:
    """The mutants the last run tried and did not kill (new tests cannot revive a killed one)."""
    sample = drawn()
    left: list[str] = []
    for module in only:
        meta = ROOT / "mutants" / (module + ".meta")
        if not meta.exists():
            continue
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        left += [k for k, code in codes.items() if code not in KILLED and (sample is None or k in sample)]
    return left


_GENERATE = """
from mutmut.__main__ import create_mutants, store_lines_covered_by_tests
from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths
import os
os.makedirs("mutants", exist_ok=True)
copy_src_dir(); copy_also_copy_files(); setup_source_paths(); store_lines_covered_by_tests()
create_mutants(2)
"""


def draw(only: list[str], per_module: int, seed: int) -> list[str]:
    """Make the mutants (as mutmut run does first) and draw up to per_module of each module's."""
    subprocess.run([sys.executable, "-c", _GENERATE], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    names: list[str] = []
    for module in only:
        keys = sorted(json.loads((ROOT / "mutants" / (module + ".meta")).read_text())["exit_code_by_key"])
        names += random.Random(f"{seed}:{module}").sample(keys, min(per_module, len(keys)))
    (ROOT / "mutants" / "sample.json").write_text(json.dumps(names))
    return names


def drawn() -> set[str] | None:
    """The last run's sample; None when it tried every mutant."""
    path = ROOT / "mutants" / "sample.json"
    return set(json.loads(path.read_text())) if path.exists() else None


def run_mutmut(names: list[str], children: int) -> int:
    env = {k: v for k, v in os.environ.items() if k != "FORUMBOT_TEST_DATABASE_URL"}  # SQLite: no shared server
    args = [sys.executable, "-m", "mutmut", "run", "--max-children", str(children), *names]
    return subprocess.run(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL).returncode


def _functions(source: str) -> dict[str, str]:
    """The mutated module's functions by name (mutmut writes `x_f__mutmut_orig` and `x_f__mutmut_N`)."""
    import ast
    lines = source.splitlines()
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and "__mutmut_" in node.name:
            found[node.name] = "\n".join(lines[node.lineno - 1:node.end_lineno])
    return found


def changed_line(functions: dict[str, str], key: str) -> tuple[str, str]:
    """(the original line, the mutant's line) of one mutant."""
    name = key.rpartition(".")[2]
    stem = name.rpartition("__mutmut_")[0]
    orig = functions.get(stem + "__mutmut_orig", "").splitlines()[1:]
    mutant = functions.get(name, "").splitlines()[1:]
    minus = [x[1:].strip() for x in unified_diff(orig, mutant, lineterm="", n=0)
             if x.startswith("-") and not x.startswith("---")]
    plus = [x[1:].strip() for x in unified_diff(orig, mutant, lineterm="", n=0)
            if x.startswith("+") and not x.startswith("+++")]
    return " / ".join(minus), " / ".join(plus)


def report(only: list[str]) -> int:
    sample = drawn()
    known = equivalents()
    used: set[tuple[str, str]] = set()
    below: list[str] = []
    rows = []
    survivors: dict[str, list[str]] = defaultdict(list)
    for module in only:
        meta = ROOT / "mutants" / (module + ".meta")
        if not meta.exists():
            print(f"{module}: no results (run without --report first)")
            below.append(module)
            continue
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if sample is not None:
            codes = {k: v for k, v in codes.items() if k in sample}
        functions = _functions((ROOT / "mutants" / module).read_text())
        count: Counter[str] = Counter()
        for key, code in sorted(codes.items(), key=lambda kv: (kv[0].rpartition("__mutmut_")[0],
                                                                 int(kv[0].rpartition("_")[2]))):
            if code in KILLED:
                count["killed"] += 1
                continue
            if code == 34:
                count["skipped"] += 1
                continue
            before, after = changed_line(functions, key)
            function = key.rpartition("__mutmut_")[0]
            if (function, after) in known:
                used.add((function, after))
                count["equivalent"] += 1
                continue
            what = ("not run" if code is None else "timeout" if code in TIMEOUT
                    else "no test reaches it" if code in (5, 33) else "survived" if code == 0 else f"exit {code}")
            count["not killed"] += 1
            survivors[module].append(f"  {key} [{what}]\n      - {before}\n      + {after}")
        counted = count["killed"] + count["not killed"]
        rate = count["killed"] / counted if counted else 1.0
        if rate < TARGET:
            below.append(module)
        rows.append((module, sum(count.values()), count["killed"], count["not killed"], count["equivalent"], rate))
    for module, lines in survivors.items():
        print(f"\n{module}: {len(lines)} not killed")
        print("\n".join(lines))
    print(f"\n{'module':34} {'mutants':>7} {'killed':>6} {'not':>5} {'equiv':>5} {'rate':>6}")
    for module, total, killed, missed, equiv, rate in rows:
        mark = "" if rate >= TARGET else "   < target"
        print(f"{module:34} {total:7d} {killed:6d} {missed:5d} {equiv:5d} {rate:6.1%}{mark}")
    all_killed = sum(r[2] for r in rows)
    all_counted = sum(r[2] + r[3] for r in rows)
    if all_counted:
        print(f"{'all':34} {sum(r[1] for r in rows):7d} {all_killed:6d} {all_counted - all_killed:5d} "
              f"{sum(r[4] for r in rows):5d} {all_killed / all_counted:6.1%}")
    stale = [] if sample is not None else [k for k in known if k not in used and any(k[0].startswith(m.removesuffix('.py').replace('/', '.'))
                                                       for m in only)]
    if stale:
        print(f"\n{len(stale)} entries of equivalent/*.toml match no mutant now (the code moved): "
              + "; ".join(f"{f} `{line}`" for f, line in stale))
    if sample is not None:
        print(f"(a sample: {len(sample)} mutants drawn; `--all` tries every one)")
    print(f"\ntarget: {TARGET:.0%} of the mutants that change behaviour, in each module"
          + (f"; under it: {', '.join(below)}" if below else "; met"))
    return 1 if below else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--report", action="store_true", help="only report the last run")
    parser.add_argument("--module", action="append", default=[], help="only this module (repeatable)")
    parser.add_argument("--again", action="store_true", help="re-run only what the last run did not kill")
    parser.add_argument("--sample", type=int, default=50, metavar="N", help="mutants a module (default 50)")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--all", action="store_true", help="every mutant, not a sample")
    parser.add_argument("--children", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args(argv)
    only = args.module or modules()
    unknown = [m for m in only if m not in modules()]
    if unknown:
        print(f"not a module [tool.mutmut] mutates: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if not args.report:
        try:
            import mutmut  # noqa: F401  (the test extra has it)
        except ImportError:
            print("mutmut is not installed: pip install -e '.[test]'", file=sys.stderr)
            return 2
        if args.again:
            names = survivors(only)
            print(f"trying again the {len(names)} mutants the last run did not kill")
            if not names:
                return report(only)
        elif args.all:
            (ROOT / "mutants" / "sample.json").unlink(missing_ok=True)
            names = [m.removesuffix(".py").replace("/", ".") + ".*" for m in only]  # every one, tried again
        else:
            names = draw(only, args.sample, args.seed)
        rc = run_mutmut(names, args.children)
        if rc not in (0, 1):
            print(f"mutmut stopped with exit code {rc}", file=sys.stderr)
            return rc
    return report(only)


if __name__ == "__main__":
    sys.exit(main())
