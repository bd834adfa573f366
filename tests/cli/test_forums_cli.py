"""Whole games through the command line, as an operator runs the bot: `forumbot run --once`
with a settings file (`forum = discourse` and its `[discourse]` section, `forum = xenforo`
and `[xenforo]`, or `[reddit]`), once per step, against the fake forum, players posting and
sending PMs on the fake between runs; then `forumbot export`. The same seeded game, played
the same way, must export the same on each forum as on Reddit, apart from the forum's own
ids and urls (tests/support/sweeps.py: cli_game, normalized).

The CLI runs in-process (`forumbot.cli.main`), each run a fresh adapter, moderator and
database connection, as a new process would have. Its clock is the test's (the moderator
the CLI makes is given it), so that deadlines can be reached and both forums' games carry
the same times. `poll_interval = 1d`: the clock jumps to a deadline between two runs, as
it would for a bot that polls once a day, and no outage is taken for it."""
from __future__ import annotations

import pytest

from tests.fakes.driver import GAMES
from tests.fakes.table import NAMES
from tests.support.sweeps import SWEPT, cli_game

# one game on Discourse in `make test`; the rest, and every game on XenForo (a game on it and
# one on Reddit, a process start each step: heavy), in `make test-long`
# (Reddit is what the others are compared with; the local forum's command line plays whole
# games in tests/cli/test_readme_game_and_errors.py, the README's game)
CASES = [pytest.param(f, p, id=f"{f}-{p}", marks=() if (f, p) == ("discourse", "resistance") else pytest.mark.long)
         for f in SWEPT if f not in ("reddit", "local") for p in GAMES]


@pytest.mark.parametrize("forum,preset", CASES)
def test_a_whole_game_through_run_once_exports_the_same_as_on_reddit(forum, preset, tmp_path, monkeypatch):
    export, same, t = cli_game(forum, preset, 11, tmp_path, monkeypatch)
    r_export, r_same, r = cli_game("reddit", preset, 11, tmp_path, monkeypatch)
    assert export["status"] == "finished" and export["winner"] in ("resistance", "spies")
    assert any("role" in m.lower() for m in t.people.pms_to(NAMES[0]))  # the roles went out by PM
    assert export["thread"].startswith(t.fake.url + SWEPT[forum].thread_path) and r_export["thread"] != export["thread"]
    assert same == r_same
    assert t.runs > 20 and r.runs > 20  # the game was played one `run --once` at a time
