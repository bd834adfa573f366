"""A bot on any forum, wired once for every test: the forum's adapter (the local forum in
SQLite, real praw against the fake Reddit, the Discourse adapter against the fake
Discourse), the people who post and send PMs there, the test's clock, and the moderator the
bot runs. `make_bot(kind, clock)` builds one (kind: one of FORUMS); the `bot` fixture (conftest.py) builds them
for a test and stops their fake servers after it.

    b = make_bot("discourse", clock)
    t = b.table(players=7, preset="avalon")   # a game started there, as a host would
    mod = b.moderator(hosts={"trusted"})      # a moderator of the bot's own (a new process)
"""
from __future__ import annotations

import praw

from adapters.discourse_checks import RECOMMENDED_SITE_SETTINGS
from adapters.local import LocalForum
from adapters.reddit import RedditForum
from forumbot.shell.moderator import Moderator
from tests.fakes.clock import Clock
from tests.fakes.discourse import FakeDiscourse
from tests.fakes.reddit import FakeReddit
from tests.fakes.table import (
    NAMES,
    DiscoursePeople,
    DiscourseTable,
    LocalPeople,
    RedditPeople,
    Table,
    discourse_forum,
)
from tests.fakes.xenforo import FakeXenForo, XenForoPeople, XenForoTable, xenforo_forum

FORUMS = ("local", "reddit", "discourse", "xenforo")
NO_WAITS = {"backoff": 0, "max_wait": 0}  # forum_kw of a Reddit adapter that never sleeps between tries


class Bot:
    """The bot on one forum: `forum` (its adapter), `people` (who act on the forum), `fake`
    (the fake server; None on the local forum), `clock`, and the moderator's keywords."""

    def __init__(self, kind: str, forum, people, clock, fake=None, own_fake: bool = False, **mod_kw):
        self.kind, self.forum, self.people, self.clock, self.fake = kind, forum, people, clock, fake
        self.own_fake = own_fake  # a fake server the bot started, and stops
        self.mod_kw = mod_kw

    def moderator(self, **kw) -> Moderator:
        """A fresh moderator on the forum (no cache: as a new process would start)."""
        return Moderator(self.forum, clock=self.clock, **{**self.mod_kw, **kw})

    def table(self, players=5, start: bool = True, **kw) -> Table:
        """A scripted table of `players` (a number of NAMES, or the names), its game started by
        a `new game` PM with the config's `kw` (preset, extra, seed, host) unless start=False."""
        names = NAMES[:players] if isinstance(players, int) else list(players)
        cls = {"discourse": DiscourseTable, "xenforo": XenForoTable}.get(self.kind, Table)
        t = cls(self.forum, self.people, self.clock, players=names, make_moderator=self.moderator)
        t.fake = self.fake
        return t.start(**kw) if start else t

    def stop(self) -> None:
        """Stops the fake server the bot started (one it was given is stopped by its owner)."""
        if self.own_fake:
            self.fake.stop()


def make_bot(kind: str = "local", clock=None, *, fake=None, forum_clock=None, path: str = ":memory:",
             forum_kw=None, rules: bool = True, **mod_kw) -> Bot:
    """The bot on a forum of `kind` ("local", "reddit", "discourse" or "xenforo") at `clock`. On
    the real forums a fake server is started unless `fake` is given (the Discourse one with the
    hosting guide's site settings). `forum_clock` is the time the forum stamps posts with (the
    bot's clock unless given: a forum whose clock is ahead or behind); `path` is the local
    forum's database; `forum_kw` goes to the adapter, `rules=False` lets players on the fake
    Discourse past the site's checks, and the rest goes to every Moderator the bot makes."""
    clock = clock or Clock()
    stamps = forum_clock or clock
    forum_kw = dict(forum_kw or {})
    if kind == "local":
        forum = LocalForum(path, clock=stamps, **forum_kw)
        return Bot(kind, forum, LocalPeople(forum), clock, **mod_kw)
    own = fake is None
    if kind == "reddit":
        fake = fake or FakeReddit(clock=lambda: stamps().timestamp()).start()
        forum = RedditForum(praw.Reddit(**fake.praw_kwargs()), **forum_kw)
        return Bot(kind, forum, RedditPeople(fake), clock, fake, own, **mod_kw)
    if kind == "discourse":
        if own:
            fake = FakeDiscourse(clock=lambda: stamps().timestamp()).start()
            fake.site.update(RECOMMENDED_SITE_SETTINGS)  # the hosting guide's settings
        forum_kw.setdefault("monotonic", lambda: clock().timestamp())
        forum = discourse_forum(fake, **forum_kw)
        return Bot(kind, forum, DiscoursePeople(fake, rules), clock, fake, own, **mod_kw)
    if kind == "xenforo":
        fake = fake or FakeXenForo(clock=lambda: stamps().timestamp()).start()
        forum_kw.setdefault("monotonic", lambda: clock().timestamp())
        forum = xenforo_forum(fake, **forum_kw)
        return Bot(kind, forum, XenForoPeople(fake), clock, fake, own, **mod_kw)
    raise ValueError(f"no such forum: {kind}")
