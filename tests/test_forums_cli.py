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

import contextlib
import io
import json
import re

import pytest

from adapters.discourse import RECOMMENDED_SITE_SETTINGS
from forumbot import store
from forumbot.cli.main import main
from forumbot.rules import replay
from forumbot.shell import moderator
from tests.conftest import Clock
from tests.driver import play
from tests.fakediscourse import FakeDiscourse
from tests.fakereddit import FakeReddit
from tests.table import NAMES, RedditPeople, Table
from tests.test_discourse import GAMES, DiscoursePeople, discourse_config

SUB = "resistancegames"
TITLE = "A game run from the command line"


def settings_text(forum: str, fake, db_url: str) -> str:
    head = f"[bot]\nforum = {forum}\npoll_interval = 1d\n\n[database]\nurl = {db_url}\n\n"
    if forum == "discourse":
        s = fake.settings()
        return head + (f"[discourse]\nurl = {s['url']}\napi_key = {s['api_key']}\n"
                       f"api_username = {s['api_username']}\ncategory = {s['category']}\n")
    k = fake.praw_kwargs()
    return head + (f"[reddit]\nclient_id = {k['client_id']}\nclient_secret = {k['client_secret']}\n"
                   f"username = {k['username']}\npassword = {k['password']}\nuser_agent = {k['user_agent']}\n"
                   f"oauth_url = {k['oauth_url']}\nreddit_url = {k['reddit_url']}\nsubreddit = {SUB}\n")


def cli(*args) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


class CliTable(Table):
    """A table whose bot is `forumbot run --once --settings FILE`, one run per cycle."""

    def __init__(self, forum: str, fake, people, clock, settings: str, players):
        self.forum_kind, self.settings = forum, settings
        self.runs = 0
        super().__init__(None, people, clock, players=players, make_moderator=lambda: None)
        self.fake = fake

    def cycle(self, fresh: bool = False):
        code, out = cli("run", "--once", "--settings", self.settings)
        self.runs += 1
        assert code == 0, out
        m = re.search(r"fetched (\d+), handled (\d+), posted (\d+), deadlines (\d+)", out)
        assert m, out
        return type("Report", (), {"errors": [], "fetched": int(m.group(1)), "handled": int(m.group(2)),
                                   "posted": int(m.group(3))})()

    def settle(self, most: int = 60) -> int:
        """`run --once` until a run reads nothing new and nothing waits to be sent."""
        for n in range(1, most + 1):
            report = self.cycle()
            self.clock.advance(seconds=2)
            busy = (report.fetched or report.posted
                    or store.Outbox.select().where(store.Outbox.state == "pending").exists()
                    or store.Inbound.select().where(store.Inbound.state == "new").exists())
            if not busy:
                return n
        raise AssertionError("the bot never settled")

    def start(self, host="host", preset="resistance", extra="", seed=7) -> "CliTable":
        if self.forum_kind == "discourse":
            for name in [host, *self.players]:  # forum members: a PM to no one is refused
                self.fake.user(name)
        self.people.pm(host, "new game", discourse_config(self.players, preset=preset, seed=seed,
                                                          extra=extra, title=TITLE))
        self.settle()
        game = store.Game.select().order_by(store.Game.id.desc()).first()
        assert game is not None and game.thread, f"no game was started: {self.people.pms_to(host)}"
        self.game_id = game.id
        return self

    @property
    def state(self):  # the store as the last run left it (no moderator's cache in between)
        return replay(self.game.game_config(), self.game.seed, store.game_events(self.game))

    def export(self) -> dict:
        code, out = cli("export", self.game.tag, "--settings", self.settings)
        assert code == 0, out
        return json.loads(out)


def cli_game(forum: str, preset: str, seed: int, tmp_path, monkeypatch) -> tuple[dict, dict, CliTable]:
    """A whole game of `preset` on the fake `forum`, the bot run only through the CLI: its
    export as is, and with the forum's ids and urls normalized."""
    clock = Clock()
    monkeypatch.setattr(moderator, "Moderator", _with_clock(clock))  # the class `run` makes
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


def _with_clock(clock):
    class Moderator(moderator.Moderator):
        def __init__(self, forum, **kw):
            kw.setdefault("clock", clock)
            super().__init__(forum, **kw)
    return Moderator


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


PRESETS = [p if p in ("resistance", "avalon") else pytest.param(p, marks=pytest.mark.long) for p in GAMES]


@pytest.mark.parametrize("preset", PRESETS)  # two in `make test`, all five in `make test-long`
def test_a_whole_game_through_run_once_exports_the_same_on_discourse_and_reddit(preset, tmp_path, monkeypatch):
    d_export, d_same, d = cli_game("discourse", preset, 11, tmp_path, monkeypatch)
    r_export, r_same, r = cli_game("reddit", preset, 11, tmp_path, monkeypatch)
    assert d_export["status"] == "finished" and d_export["winner"] in ("resistance", "spies")
    assert d.fake.topics and any(p["raw"].startswith("Your role") or "role" in p["raw"].lower()
                                 for p in d.fake.pms_to(NAMES[0]))  # the roles went out by PM
    assert d_export["thread"].startswith(d.fake.url + "/t/") and r_export["thread"] != d_export["thread"]
    assert d_same == r_same
    assert d.runs > 20 and r.runs > 20  # the game was played one `run --once` at a time
