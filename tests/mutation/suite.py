"""A pytest plugin for `make test-mutation` only (loaded by `-p tests.mutation.suite` in
[tool.mutmut]): while mutmut runs a mutant, the tests outside that module's suite
(suites.toml) are deselected. Outside a mutant's run (mutmut's stats and clean runs, and every
ordinary pytest run) it does nothing."""
from __future__ import annotations

import os
import pathlib
import re
import tomllib

SUITES = tomllib.loads((pathlib.Path(__file__).resolve().parent / "suites.toml").read_text())
_MODULE = re.compile(r"^(?P<module>[\w.]+?)\.x[_ǁ]")


def suite_for(mutant: str) -> list[str] | None:
    """The node-id prefixes for a mutant's module; None when the name is no mutant's."""
    m = _MODULE.match(mutant) if "__mutmut_" in mutant else None
    return SUITES.get(m["module"].replace(".", "/") + ".py", []) if m else None


def pytest_collection_modifyitems(config, items):
    suite = suite_for(os.environ.get("MUTANT_UNDER_TEST", ""))
    if suite is None:
        return
    keep = [i for i in items if any(i.nodeid == p or i.nodeid.startswith(p + "::") or i.nodeid.startswith(p + "[")
                                    for p in suite)]
    gone = [i for i in items if i not in keep]
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = keep
