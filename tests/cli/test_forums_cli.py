"""Whole games through the command line, as an operator runs the bot: `forumbot run --once`
with a settings file (`forum = discourse` and its `[discourse]` section, or `[reddit]`),
once per step, against the fake Discourse and the fake Reddit, players posting and sending
PMs on the fake between runs; then `forumbot export`. The same seeded game, played the
same way, must export the same on both forums, apart from the forum's own ids and urls.

The CLI runs in-process (`forumbot.cli.main`), each run a fresh adapter, moderator and
database connection, as a new process would have. Its clock is the test's (the moderator
the CLI makes is given it), so that deadlines can be reached and both forums' games carry
the same times. `poll_interval = 1d`: the clock jumps to a deadline between two runs, as
it would for a bot that polls once a day, and no outage is taken for it."""
from __future__ import annotations

import pytest

from adapters.discourse_checks import RECOMMENDED_SITE_SETTINGS
from forumbot import store
from forumbot.shell import moderator
from tests.fakes.cli_table import CliTable, settings_text, with_clock
from tests.fakes.clock import Clock
from tests.fakes.discourse import FakeDiscourse
from tests.fakes.driver import GAMES, play
from tests.fakes.reddit import FakeReddit
from tests.fakes.table import NAMES, DiscoursePeople, RedditPeople


def cli_game(forum: str, preset: str, seed: int, tmp_path, monkeypatch) -> tuple[dict, dict, CliTable]:
    """A whole game of `preset` on the fake `forum`, the bot run only through the CLI: its
    export as is, and with the forum's ids and urls normalized."""
    clock = Clock()
    monkeypatch.setattr(moderator, "Moderator", with_clock(clock))  # the class `run` makes
    if forum == "discourse":
        fake = FakeDiscourse(clock=lambda: clock().timestamp()).start()
        fake.site.update(RECOMMENDED_SITE_SETTINGS)  # the hosting guide's site settings
        people = DiscoursePeople(fake)
    else:
        fake = FakeReddit(clock=lambda: clock().timestamp()).start()
        people = RedditPeople(fake)
    path = tmp_path / f"{forum}.ini"
    path.write_text(settings_text(forum, fake, f"sqlite:///{tmp_path}/{forum}.db"))
    n, extra = GAMES[preset]
    try:
        t = CliTable(forum, fake, people, clock, str(path), NAMES[:n])
        t.start(preset=preset, extra=extra)
        play(t, seed, act=t.settle)
        t.settle()
        export = t.export()
        return export, normalized(export, t.game), t
    finally:
        fake.stop()
        store.close()


def normalized(export: dict, game: store.Game) -> dict:
    """The export with the forum's own thread id and url put as placeholders, wherever they
    are: nothing else is touched."""
    names = {v: f"<{k}>" for k, v in (("thread", game.thread), ("thread_url", game.thread_url)) if v}

    def norm(x):
        if isinstance(x, dict):
            return {k: norm(v) for k, v in x.items()}
        if isinstance(x, list):
            return [norm(v) for v in x]
        if isinstance(x, str) and x in names:
            return names[x]
        return x
    return norm(export)


PRESETS = [p if p == "resistance" else pytest.param(p, marks=pytest.mark.long) for p in GAMES]


@pytest.mark.parametrize("preset", PRESETS)  # one in `make test`, all five in `make test-long`
def test_a_whole_game_through_run_once_exports_the_same_on_discourse_and_reddit(preset, tmp_path, monkeypatch):
    d_export, d_same, d = cli_game("discourse", preset, 11, tmp_path, monkeypatch)
    r_export, r_same, r = cli_game("reddit", preset, 11, tmp_path, monkeypatch)
    assert d_export["status"] == "finished" and d_export["winner"] in ("resistance", "spies")
    assert d.fake.topics and any(p["raw"].startswith("Your role") or "role" in p["raw"].lower()
                                 for p in d.fake.pms_to(NAMES[0]))  # the roles went out by PM
    assert d_export["thread"].startswith(d.fake.url + "/t/") and r_export["thread"] != d_export["thread"]
    assert d_same == r_same
    assert d.runs > 20 and r.runs > 20  # the game was played one `run --once` at a time
