"""One cycle: fetch -> store -> parse -> apply -> render -> outbox -> flush -> deadlines.

The imperative shell around the pure core, wired from parts with one job each: ingest
(fetch, store, mark read; the inbox loop), the inbox (routing a message to a controller),
the players' and the host's controllers, sign-ups, the clockwork (deadlines), the games
(one path to `apply`) and the outbox (delivery). Inbound messages are handled in
transactions that append their events and outbox items and mark them done; PMs are marked
read on the forum only after they are stored; an outbox item is marked `uncertain` before
it is posted, so that after a crash the forum is searched for it before posting again.
"""
from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from adapters.base import Forum, ForumError

from .. import db_trouble, store
from ..basics import cause, utcnow
from ..botlock import Keeper
from ..limits import OUTAGE_AFTER, RECHECK_LIMIT
from ..render import render_refusal
from ..rules import Refusal
from ..rules.commands import Command
from ..rules.state import GameState
from ..store import Cursor, Game, Inbound
from .clockwork import Clockwork
from .games import GameBook
from .horizon import Horizon
from .hosting import Hosting
from .inbox import Inbox
from .ingest import Ingest
from .outbox.budget import WriteBudget
from .outbox.delivery import Delivery
from .playing import Playing
from .replies import Answers, People
from .signups import Signups

log = logging.getLogger("forumbot")


@dataclass
class CycleReport:
    fetched: int = 0
    handled: int = 0
    posted: int = 0
    deadlines: int = 0
    errors: list[str] = field(default_factory=list)


class Moderator:
    """The cycle, and the parts it wires together (each in its own module)."""

    def __init__(self, forum: Forum, clock: Callable[[], datetime] = utcnow,
                 hosts: set[str] | None = None, writes_per_minute: int | None = None,
                 outage_grace: int | None = None, poll_interval: int = 30):
        self.forum = forum
        self.clock = clock
        self.horizon = Horizon(forum.name)
        self.budget = WriteBudget(writes_per_minute, clock)  # None: no budget (tests, the demo)
        self.book = GameBook(forum, clock)
        self.people = People(self.book, hosts)
        self.answers = Answers(forum.name, clock, self.people, self.book, mention=forum.mention)
        self.signups = Signups(self.book, self.answers, forum.thread_id)
        # `run` passes `[bot] outage_grace` (1h by default). None (tests, the demo, whose
        # clocks jump while the bot is taken to be running): no outage is ever detected.
        self.clockwork = Clockwork(forum.name, self.book, self.horizon, self.signups, clock,
                                   outage_grace, max(OUTAGE_AFTER, 10 * poll_interval))
        self.players = Playing(self.book, self.answers, self.clockwork)
        self.host = Hosting(forum, self.book, self.people, self.answers, self.clockwork, self.signups)
        self.signups.on_comment = self.players.comment
        self.signups.on_host = self.host.command_on
        self.inbox = Inbox(forum, clock, self.book, self.people, self.answers, self.players,
                           self.host, self.signups, self.clockwork)
        self.ingest = Ingest(forum, self.book, self.horizon, self.answers, self.inbox, clock)
        # Comments re-checked for edits in one cycle: what the forum reads in one request,
        # unless the bot's own limit is lower (read here, so that a test may change it).
        self.ingest.recheck_limit = min(RECHECK_LIMIT or forum.traits.recheck_batch, forum.traits.recheck_batch)
        self.delivery = Delivery(forum, self.book, self.budget, clock)
        self.keeper: Keeper | None = None  # `run` checks the bot lock before each cycle with it
        # This moderator's mark in the store, written with `alive`: another mark there means
        # that another bot (a process before this one, a test's second moderator) worked on
        # the database since this one's last cycle, and every cache is read again.
        self.mark = secrets.token_hex(8)
        self._marked: dict = {}

    def cycle(self) -> CycleReport:
        report = CycleReport()
        self.book.opened = set()
        self.people.forget()
        try:
            self._caches()
            try:
                report.fetched = self.ingest.fetch()
                report.errors += [f"read {t}: {why}" for t, why in self.ingest.read_failures.items()]
            except ForumError as e:  # the forum is down: still post what waits; deadlines wait
                log.error("fetch failed: %s", e)
                report.errors.append(f"fetch: {e}")
                self.horizon.fetch_failed(str(e))
            self.clockwork.catch_up(self.clock())
            report.handled = self.ingest.process_inbox()
            try:
                self.ingest.notice_edits()
            except ForumError as e:
                report.errors.append(f"recheck: {e}")
            report.posted += self.delivery.flush()
            report.deadlines = self.clockwork.fire_deadlines(self.clock())
            report.posted += self.delivery.flush()
            mine = {"alive": self.clock().isoformat(), "moderator": self.mark}
            store.set_cursor(f"{self.forum.name}#bot", mine, before=self._marked)
            self._marked = mine
        except Exception as e:
            if not db_trouble.is_db_trouble(e):
                raise
            # A lock, a full disk, a lost connection: nothing is lost (every message stays
            # `new`, every post stays in the outbox); the next cycle tries again.
            log.error("database: %s (the next cycle tries again)", cause(e))
            report.errors.append(f"database: {cause(e)}")
            self.forget()
            db_trouble.recover()
        return report

    def forget(self) -> None:
        """Every cache read again from the store when next needed."""
        self.book.clear()
        self.horizon.forget()
        self.ingest.forget()
        self._marked = {}

    def _caches(self) -> None:
        """The caches kept from the last cycle, unless another bot wrote to the database
        since (its mark, not this one's, is in the store): then they are read again."""
        row = Cursor.get_or_none((Cursor.forum == f"{self.forum.name}#bot") & (Cursor.name == "moderator"))
        if row is None or json.loads(row.value) != self.mark:
            self.forget()
        self.book.new_cycle()

    # --- what callers (the CLI, the demo, tests) use of the parts ---------------------

    @property
    def recheck_limit(self) -> int:
        return self.ingest.recheck_limit

    @recheck_limit.setter
    def recheck_limit(self, n: int) -> None:
        self.ingest.recheck_limit = n

    def state(self, game: Game) -> GameState:
        return self.book.state(game)

    def _running_games(self) -> list[Game]:
        return self.book.running()

    def _apply(self, game: Game, command: Command, row: Inbound | None = None, i: int = 0) -> bool:
        """A command applied to a game (outside a cycle: its own transaction)."""
        with self.book.unit():
            result = self.book.apply(game, command)
            if isinstance(result, Refusal) and row is not None:

                self.answers.reply(row, game, render_refusal(result, game.tag, self.book.markup.name), i,
                                   private=result.private or row.kind == "pm")
        return not isinstance(result, Refusal)

    def next_deadline(self) -> datetime | None:
        """When the next deadline can close: its time, or later by as much as the forum's
        clock is behind the bot's (it closes once the forum was read up to it)."""
        due = self.clockwork.next_deadline()
        return None if due is None else due + timedelta(seconds=self.horizon.behind)

