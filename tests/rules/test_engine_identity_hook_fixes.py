"""The rework of issue 13 changed the engine's logs in two places only: the two hook-order
fixes (tests/rules/test_hook_order.py). With both switched back, and `said` writing Markdown's
bold as the rules' refusals did before, every game of the identity fixtures recorded before
the rework (a copy in tests/fixtures/engine_logs_before_13/) comes out byte-identical: its
event log and its refusals. Two things of the same rework show and are accounted for:

- seats have ids now: after a REPLACE the log names the seat by its id, where the old one
  renamed it by value; such a log is compared in the old form (`log_before_seat_ids`), and
  the two games where a player who had left took another seat differ (`CAME_BACK`);
- the final state is not compared: its shape changed (typed plug-in state, `Seat.id`).

tests/rules/test_engine_identity.py pins the fixed engine."""
import dataclasses
import json
from pathlib import Path

import pytest

from forumbot.rules import commands, hooks
from forumbot.rules.modules.plot import PlotCards
from tests.support.identity import PRESETS, log_before_seat_ids, play, replaces, sha, summary

BEFORE = Path(__file__).parents[1] / "fixtures" / "engine_logs_before_13"


@pytest.fixture
def as_before(monkeypatch):
    monkeypatch.setattr(commands, "SAID_OPEN", "**")
    monkeypatch.setattr(commands, "SAID_CLOSE", "**")
    rows = tuple(dataclasses.replace(r, hook_orders={}) if r.module == "plot" else r for r in hooks.MODULES)
    monkeypatch.setattr(hooks, "MODULES", rows)
    monkeypatch.setattr(hooks, "_PLUGINS", {})
    monkeypatch.setattr(hooks, "_last", (None, None))
    monkeypatch.setattr(PlotCards, "_strong_holders", lambda self, s, leader: self._holders(s, "strong-leader"))
    yield
    hooks._PLUGINS.clear()


EVERY = [3, pytest.param(1, marks=pytest.mark.long)]
# Games in which a player who had left a seat took another one later (the host's REPLACE
# ... WITH alice, after alice was replaced): since seats have ids, REPLACE refuses that
# ("played in this game before"), so these two go on differently from there.
CAME_BACK = {("avalon-2020", "host", 12), ("avalon-2020", "host", 88)}


@pytest.mark.parametrize("every", EVERY)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_only_the_two_fixes_changed_the_logs(as_before, preset, every):
    with open(BEFORE / f"{preset}.jsonl") as f:
        lines = [json.loads(x) for x in f]
    wrong = []
    for line in lines[::every]:
        _, (state, events, refusals, crash) = play(preset, line)
        if "crash" in line:
            continue  # (tests/rules/test_engine_identity.py checks what comes before a recorded crash)
        got = summary(state, events, refusals)
        del got["state"]  # (the state's shape changed since: typed plug-in state, seat ids)
        if got["log"] != line["log"] and replaces(events):
            got["log"] = sha(log_before_seat_ids(events))  # a REPLACE: as seats were renamed then
        diff = {k: (line[k], v) for k, v in got.items() if line[k] != v}
        if (preset, line["kind"], line["i"]) in CAME_BACK:
            assert diff, "a game where a player who left came back to another seat must differ"
            continue
        if diff:
            wrong.append((line["kind"], line["i"], diff))
    assert not wrong, f"{len(wrong)} games differ; the first: {wrong[:3]}"


def test_the_fixes_do_change_games():
    """(The switch above is not a no-op: with the fixes, some of those games differ.)"""
    hooks._PLUGINS.clear()
    for preset in ("resistance-plot", "avalon"):
        with open(BEFORE / f"{preset}.jsonl") as f:
            lines = [json.loads(x) for x in f][:30]
        differ = [x["i"] for x in lines if summary(*play(preset, x)[1][:3])["log"] != x["log"]]
        assert differ, preset
