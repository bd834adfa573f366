"""`make test-mutation`'s own parts: each module's suite names tests that exist, the plugin keeps
only a mutant's module's tests, and the report counts what it should (tests/mutation/)."""
from __future__ import annotations

import json
import pathlib
import re
import tomllib

import pytest

from tests.mutation import run, suite

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_mutated_module_has_a_suite_of_tests_that_exist():
    mutated = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]["only_mutate"]
    assert set(suite.SUITES) == set(mutated)
    for module, prefixes in suite.SUITES.items():
        assert (ROOT / module).exists(), module
        for prefix in prefixes:
            path, _, name = prefix.partition("::")
            assert (ROOT / path).exists(), f"{module}: {path} does not exist"
            if name:  # (a test's name, or one of its parameters: `name[forum-preset]`)
                name = name.partition("[")[0]
                assert re.search(rf"^def {re.escape(name)}\(", (ROOT / path).read_text(), re.M), prefix


@pytest.mark.parametrize("mutant, module", [
    ("forumbot.shell.routing.x_pm_game__mutmut_3", "forumbot/shell/routing.py"),
    ("forumbot.shell.outbox.delivery.xǁDeliveryǁ_not_started__mutmut_12", "forumbot/shell/outbox/delivery.py"),
    ("forumbot.rules.team.x_tally__mutmut_1", "forumbot/rules/team.py"),
    ("adapters.discourse_reads.xǁReadsǁpage__mutmut_40", "adapters/discourse_reads.py"),
])
def test_a_mutant_meets_its_modules_tests(mutant, module):
    assert suite.suite_for(mutant) == suite.SUITES[module]


@pytest.mark.parametrize("name", ["", "stats", "fail", "list_all_tests", "mutant_generation"])
def test_outside_a_mutants_run_the_plugin_keeps_every_test(name):
    assert suite.suite_for(name) is None


class _Item:
    def __init__(self, nodeid):
        self.nodeid = nodeid


class _Config:
    def __init__(self):
        self.deselected = []
        outer = self

        class Hook:
            def pytest_deselected(self, items):
                outer.deselected += items
        self.hook = Hook()


def test_the_plugin_deselects_the_other_modules_tests(monkeypatch):
    monkeypatch.setenv("MUTANT_UNDER_TEST", "forumbot.rules.deadlines.x_due__mutmut_4")
    items = [_Item("tests/rules/test_deadlines.py::test_a"), _Item("tests/rules/test_deadlines_x.py::test_b"),
             _Item("tests/shell/test_parsing.py::test_c"), _Item("tests/rules/test_deadlines.py::test_d[1]")]
    config = _Config()
    suite.pytest_collection_modifyitems(config, items)
    assert [i.nodeid for i in items] == ["tests/rules/test_deadlines.py::test_a", "tests/rules/test_deadlines.py::test_d[1]"]
    assert len(config.deselected) == 2


_MUTANTS = '''
def x_f__mutmut_orig(a):
    if a > 1:
        return 1
    return 0
def x_f__mutmut_1(a):
    if a >= 1:
        return 1
    return 0
def x_f__mutmut_2(a):
    if a > 2:
        return 1
    return 0
def x_f__mutmut_3(a):
    if a > 1:
        return 2
    return 0
def x_f__mutmut_4(a):
    if a > 1:
        return 1
    return 1
'''


def test_the_report_counts_kills_and_leaves_out_equivalents(tmp_path, monkeypatch, capsys):
    (tmp_path / "mutants" / "forumbot").mkdir(parents=True)
    (tmp_path / "mutants" / "forumbot" / "m.py").write_text(_MUTANTS)
    codes = {"forumbot.m.x_f__mutmut_1": 1, "forumbot.m.x_f__mutmut_2": 0, "forumbot.m.x_f__mutmut_3": 36,
             "forumbot.m.x_f__mutmut_4": 0}
    (tmp_path / "mutants" / "forumbot" / "m.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))
    (tmp_path / "equivalent").mkdir()
    (tmp_path / "equivalent" / "m.toml").write_text(
        '[[mutant]]\nfunction = "forumbot.m.x_f"\nline = "return 1"\nwhy = "test"\n')
    monkeypatch.setattr(run, "ROOT", tmp_path)
    monkeypatch.setattr(run, "HERE", tmp_path)
    assert run.report(["forumbot/m.py"]) == 1  # 1 of 3 killed: under the target
    out = capsys.readouterr().out
    assert re.search(r"forumbot/m.py\s+4\s+1\s+2\s+1\s+33.3%", out), out
    assert "x_f__mutmut_2 [survived]\n      - if a > 1:\n      + if a > 2:" in out
    assert "x_f__mutmut_3 [timeout]" in out  # a hang is not a kill
    assert "x_f__mutmut_4" not in out  # the equivalent one
    assert run.survivors(["forumbot/m.py"]) == ["forumbot.m.x_f__mutmut_2", "forumbot.m.x_f__mutmut_3",
                                                 "forumbot.m.x_f__mutmut_4"]
