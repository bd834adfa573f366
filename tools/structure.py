"""The bot's structure in figures, from its own code: what the house layout is measured by.

    python tools/structure.py          # cycles, private names, imports inside functions, sizes
    python tools/structure.py --vote   # also: the modules one vote crosses on its way through a cycle

Run from the repository's root (it reads forumbot/ and adapters/ as they are in this checkout).
An import cycle is a group of modules that import each other, directly or round about
(a strongly connected group of the import graph; imports inside functions included).
"""
from __future__ import annotations

import argparse
import ast
import pathlib
import sys
from collections import defaultdict

ROOT = pathlib.Path.cwd()
PACKAGES = ("forumbot", "adapters")


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(p.relative_to(ROOT).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return found


def _package(files: dict[str, pathlib.Path], m: str) -> str:
    return m if files[m].name == "__init__.py" else m.rpartition(".")[0]


def _target(files, importer: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = _package(files, importer).split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _known(files, name: str) -> str | None:
    while name and name not in files:
        name = name.rpartition(".")[0]
    return name or None


def graph():
    """(files, edges, private imports, imports inside functions)."""
    files = _modules()
    edges: dict[str, set[str]] = defaultdict(set)
    private: list[tuple[str, str, str]] = []
    inside: list[tuple[str, int]] = []
    for m, p in files.items():
        tree = ast.parse(p.read_text())
        in_function = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                       for n in ast.walk(f) if isinstance(n, ast.Import | ast.ImportFrom)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                pairs = [(a.name, None) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _target(files, m, node)
                pairs = [(f"{base}.{a.name}" if f"{base}.{a.name}" in files else base, a.name) for a in node.names]
            else:
                continue
            hit = False
            for name, imported in pairs:
                k = _known(files, name)
                if k is None or k == m:
                    continue
                hit = True
                edges[m].add(k)
                if imported and imported.startswith("_") and not imported.startswith("__"):
                    private.append((m, k, imported))
            if hit and id(node) in in_function:
                inside.append((m, node.lineno))
    return files, edges, private, inside


def cycles(files, edges) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for v in files:
        if v not in index:
            visit(v)
    return sorted(found, key=len, reverse=True)


def vote_path() -> tuple[int, int, list[str]]:
    """The bot's modules that run while one cycle handles one player's vote, and how many times
    a call goes from one module into another (the cycle's other work, such as the clock, included)."""
    sys.path.insert(0, str(ROOT))
    import tempfile

    from adapters.local import LocalForum
    from forumbot import store
    from tests.conftest import Clock, _reset
    from tests.fakes.table import NAMES, LocalPeople, Table

    _reset(f"sqlite:///{tempfile.mkdtemp()}/bot.db")
    clock = Clock()
    forum = LocalForum(":memory:", clock=clock)
    t = Table(forum, LocalPeople(forum), clock, players=NAMES[:5]).start()
    t.propose()
    t.cycle()
    t.say(t.players[0], "**APPROVE**")
    seen: list[str] = []
    crossings = 0
    roots = tuple(str(ROOT / p) for p in PACKAGES)

    def module_of(frame) -> str | None:
        path = frame.f_code.co_filename
        return path if path.startswith(roots) else None

    def profile(frame, event, arg):
        nonlocal crossings
        if event != "call":
            return
        here = module_of(frame)
        if here is None:
            return
        caller = frame.f_back
        while caller is not None and module_of(caller) is None:
            caller = caller.f_back
        if caller is not None and module_of(caller) != here:
            crossings += 1
        if here not in seen:
            seen.append(here)

    sys.setprofile(profile)
    try:
        t.cycle()
    finally:
        sys.setprofile(None)
    store.close()
    names = [str(pathlib.Path(p).relative_to(ROOT)) for p in seen]
    return len(names), crossings, names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vote", action="store_true", help="also trace one vote through a cycle")
    args = parser.parse_args(argv)
    files, edges, private, inside = graph()
    groups = cycles(files, edges)
    print(f"modules: {len(files)}")
    print(f"import cycles: {len(groups)} (sizes {', '.join(str(len(g)) for g in groups) or '-'})")
    for g in groups:
        print("  " + ", ".join(g))
    across = [x for x in private if _package(files, x[0]) != _package(files, x[1])]
    print(f"private names imported from another module: {len(private)} (over {len({x[:2] for x in private})} "
          f"module pairs); from another package: {len(across)}")
    for a, b, name in across:
        print(f"  {a} imports {b}.{name}")
    print(f"imports inside functions: {len(inside)}")
    sizes = sorted(((len(p.read_text().splitlines()), m) for m, p in files.items()), reverse=True)
    print("modules over 400 lines: " + (", ".join(f"{m} ({n})" for n, m in sizes if n > 400) or "none"))
    folders: dict[str, int] = defaultdict(int)
    for p in files.values():
        if p.name != "__init__.py":
            folders[str(p.parent.relative_to(ROOT))] += 1
    print("modules per folder: " + ", ".join(f"{d} {n}" for d, n in sorted(folders.items(), key=lambda x: -x[1])))
    if args.vote:
        count, crossings, names = vote_path()
        print(f"one vote's cycle: {count} modules, {crossings} calls from one module into another")
        print("  " + ", ".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
