"""One cycle: fetch -> store -> parse -> apply -> render -> outbox -> flush -> deadlines.

The imperative shell around the pure core. Every inbound message is handled in one
transaction that appends its events and outbox items and marks it done; PMs are marked
read on the forum only after they are stored; an outbox item is marked `uncertain` before
it is posted, so that after a crash the forum is searched for it before posting again.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

from adapters.base import Forum, ForumError

from . import store
from .basics import cause
from .budget import WriteBudget
from .clockwork import Clockwork
from .delivery import Delivery
from .games import Games
from .horizon import Horizon
from .hosting import Hosting
from .ingest import Ingest, fair_share  # noqa: F401 - re-exported
from .limits import HOST_COMMANDS, OUTAGE_AFTER, RECHECK_LIMIT  # noqa: F401 - HOST_COMMANDS re-exported
from .playing import Playing
from .replies import Replies
from .routing import Routing
from .rules.state import GameState
from .signups import Signups

log = logging.getLogger("forumbot")


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class CycleReport:
    fetched: int = 0
    handled: int = 0
    posted: int = 0
    deadlines: int = 0
    errors: list[str] = field(default_factory=list)


class Moderator(Ingest, Routing, Playing, Hosting, Games, Replies, Clockwork, Delivery):
    """The cycle, and the parts it wires together (each in its own module)."""

    def __init__(self, forum: Forum, clock: Callable[[], datetime] = utcnow,
                 hosts: set[str] | None = None, writes_per_minute: int | None = None,
                 outage_grace: int | None = None, poll_interval: int = 30):
        self.forum = forum
        self.clock = clock
        # `run` passes `[bot] outage_grace` (1h by default). None (tests, the demo, whose
        # clocks jump while the bot is taken to be running): no outage is ever detected.
        self.outage_grace = outage_grace
        self.recheck_limit = RECHECK_LIMIT  # (read here, so that a test may change it)
        self.outage_after = max(OUTAGE_AFTER, 10 * poll_interval)
        self.horizon = Horizon(forum.name)
        self._opened: set[tuple[int, int]] = set()  # (game, phase) opened in this cycle
        self._dirty: set[int] = set()  # games whose cached state the open transaction changed
        self._people_cache: tuple[set[str], set[str]] | None = None  # see _people
        self.budget = WriteBudget(writes_per_minute, clock)  # None: no budget (tests, the demo)
        self.hosts = {h.casefold() for h in hosts} if hosts else set()
        self._states: dict[int, GameState] = {}
        self._recheck_from = 0  # where the next cycle's edit re-check starts
        self.signups = Signups(self)

    def cycle(self) -> CycleReport:
        report = CycleReport()
        self._opened = set()
        self._people_cache = None
        try:
            try:
                self.read_failures = {}
                report.fetched = self.fetch()
                report.errors += [f"read {t}: {why}" for t, why in self.read_failures.items()]
            except ForumError as e:  # the forum is down: still post what waits; deadlines wait
                log.error("fetch failed: %s", e)
                report.errors.append(f"fetch: {e}")
                self.horizon.fetch_failed(str(e))
            self.catch_up(self.clock())
            report.handled = self.process_inbox()
            try:
                self.notice_edits()
            except ForumError as e:
                report.errors.append(f"recheck: {e}")
            report.posted += self.flush()
            report.deadlines = self.fire_deadlines(self.clock())
            report.posted += self.flush()
            store.set_cursor(f"{self.forum.name}#bot", {"alive": self.clock().isoformat()})
        except Exception as e:
            if not store.is_db_trouble(e):
                raise
            # A lock, a full disk, a lost connection: nothing is lost (every message stays
            # `new`, every post stays in the outbox); the next cycle tries again.
            log.error("database: %s (the next cycle tries again)", cause(e))
            report.errors.append(f"database: {cause(e)}")
            self._states.clear()
            self.horizon.forget()
            store.recover()
        return report
