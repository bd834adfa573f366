"""A table whose bot is the command line: `forumbot run --once --settings FILE`, one run per
cycle, in-process (`forumbot.cli.main`), each run a fresh adapter, moderator and database
connection as a new process would have, on the test's clock; and the settings file of the
fake Reddit or the fake Discourse it runs against."""
from __future__ import annotations

import contextlib
import io
import json
import re

from adapters.discourse_checks import RECOMMENDED_SITE_SETTINGS
from forumbot import store
from forumbot.cli.main import main
from forumbot.rules import replay
from forumbot.shell import moderator
from tests.fakes.clock import Clock
from tests.fakes.discourse import FakeDiscourse
from tests.fakes.reddit import FakeReddit
from tests.fakes.table import NAMES, DiscoursePeople, RedditPeople, Table, discourse_config

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


def with_clock(clock):
    """The Moderator class that `run` makes, on the test's clock (the CLI has no clock to give)."""
    class Moderator(moderator.Moderator):
        def __init__(self, forum, **kw):
            kw.setdefault("clock", clock)
            super().__init__(forum, **kw)
    return Moderator


def make_cli_table(forum_kind: str, db_url: str, tmp_path, monkeypatch):
    """A table of five on the fake `forum_kind` ("reddit" or "discourse") whose bot is the CLI
    with a settings file for that forum and the database at `db_url`; and the fake."""
    clock = Clock()
    monkeypatch.setattr(moderator, "Moderator", with_clock(clock))  # the class `run` makes
    if forum_kind == "discourse":
        fake = FakeDiscourse(clock=lambda: clock().timestamp()).start()
        fake.site.update(RECOMMENDED_SITE_SETTINGS)
        people = DiscoursePeople(fake)
    else:
        fake = FakeReddit(clock=lambda: clock().timestamp()).start()
        people = RedditPeople(fake)
    path = tmp_path / f"{forum_kind}.ini"
    path.write_text(settings_text(forum_kind, fake, db_url))
    return CliTable(forum_kind, fake, people, clock, str(path), NAMES[:5]), fake
