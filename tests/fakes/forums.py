"""Local forums that misbehave as a test needs: `Flaky` (reads fail while it is down, posts
fail as its faults say) and `Bbforum` (BBCode, threads that cannot be read, few requests
left, staff mail); and what the bot sent by PM on a local forum."""
from __future__ import annotations

import dataclasses

from adapters.base import Fetched, Markup, TransientError
from adapters.local import LocalForum
from tests.fakes.bots import Bot
from tests.fakes.table import LocalPeople


class Flaky:
    """A local forum whose reads fail while `down`, and whose posts fail as `faults` say."""

    def __init__(self, forum: LocalForum):
        self.forum = forum
        self.down = False
        self.faults: list = []  # callables (Outgoing) -> Exception | None, each used once

    def __getattr__(self, name):
        return getattr(self.forum, name)

    def fetch(self, threads, cursor):
        if self.down:
            raise TransientError("503 Service Unavailable")
        return self.forum.fetch(threads, cursor)

    def post(self, out):
        for i, f in enumerate(self.faults):
            if (e := f(out)) is not None:
                del self.faults[i]
                raise e
        return self.forum.post(out)


def flaky_table(clock, n=5, host="host", mod_kw=None, **kw):
    """A game started on a `Flaky` local forum (`Moderator` takes `mod_kw`)."""
    local = LocalForum(":memory:", clock=clock)
    return Bot("local", Flaky(local), LocalPeople(local), clock, **(mod_kw or {})).table(n, host=host, **kw)


class Bbforum(LocalForum):
    """The local forum in BBCode, whose threads in `unreadable` cannot be read (the fetch
    fails for them, with `why`), with the forum's requests left as `left` says, and whose
    PMs from "admin" are the forum's staff mail."""

    markup = Markup.BBCODE

    def __init__(self, clock):
        super().__init__(":memory:", clock=clock)
        self.unreadable: set[str] = set()
        self.why = "403 Forbidden"
        self.left: int | None = None

    def requests_left(self):
        return self.left

    def fetch(self, threads, cursor):
        got = super().fetch([t for t in threads if t not in self.unreadable], cursor)
        inbound = [dataclasses.replace(m, origin="admin") if m.author == "admin" else m for m in got.inbound]
        return Fetched(inbound, got.cursor, failed={t: self.why for t in threads if t in self.unreadable})


def pms(forum, user) -> list[tuple[str, str]]:
    """(subject, body) of every PM `user` received from the bot, in order."""
    return [(r["subject"], r["body"]) for r in forum.messages_to(user) if r["sender"] == forum.bot_name]
