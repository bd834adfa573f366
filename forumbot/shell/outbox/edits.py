"""Status-block edits in batches: the blocks are read again in one statement per BATCH just
before they go out (a newer block the store took meanwhile goes instead, and one no longer
pending not at all), and the edits that went out are marked posted in one statement per
BATCH, each only if its row still holds the block that went out (a newer one goes next).

An edit that went out but whose mark could not be written (the database in trouble) is
kept in memory: the next flush marks it first, and does not send it again."""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from adapters.base import Posted

from ... import store
from ...store import Outbox, db

BATCH = 100  # edits read again, and marked posted, in one statement


class Edits:
    def __init__(self, clock: Callable[[], datetime]):
        self.clock = clock
        self._order: list[int] = []  # this flush's edits, in the order they may go out
        self._at: dict[int, int] = {}  # id -> its place in _order
        self._fresh: dict[int, tuple[str, str]] = {}  # id -> (state, body) as read again
        self._sent: dict[int, tuple[str, Posted]] = {}  # id -> (the block, where) out, not yet marked

    def begin(self, edits: list[Outbox]) -> None:
        """A flush begins, with these edits in the order they may go out (the marks a flush
        before could not write are written first)."""
        self.mark()
        self._order = [i.id for i in edits]
        self._at = {i: n for n, i in enumerate(self._order)}
        self._fresh = {}

    def current(self, item: Outbox) -> str | None:
        """The block to send for `item` as the store holds it now (None: not pending any
        more, or out already and only its mark is waiting)."""
        if item.id not in self._fresh:
            start = self._at.get(item.id, 0)
            ids = [i for i in self._order[start:start + BATCH] if i not in self._fresh] or [item.id]
            if item.id not in ids:
                ids.append(item.id)
            self._fresh.update({i: ("gone", "") for i in ids})
            rows: Any = Outbox.select(Outbox.id, Outbox.state, Outbox.body).where(Outbox.id.in_(ids)).tuples()
            self._fresh.update((i, (state, body)) for i, state, body in rows)
        now, block = self._fresh.pop(item.id)
        if now != "pending" or (item.id in self._sent and self._sent[item.id][0] == block):
            return None
        return block

    def sent(self, item: Outbox, posted: Posted) -> None:
        """An edit went out: marked posted with the next BATCH (or at the flush's end)."""
        self._sent[item.id] = (item.body, posted)
        if len(self._sent) >= BATCH:
            self.mark()

    def mark(self) -> None:
        """The edits that went out, posted, in one statement: each only if its row still
        holds the block that went out. (attempts back to 0: the game's one edit row takes
        every block in turn, and the next block's first failure waits a first failure's
        backoff, not one grown by every block that went out before it.)"""
        if not self._sent:
            return
        _mark_posted(self._sent, store.naive(self.clock()))
        self._sent = {}


def _mark_posted(sent: dict[int, tuple[str, Posted]], at: datetime) -> None:
    """Edits (id -> the block that went out, and where) posted at `at`, each only if its row
    still holds that block, in one statement (written out: peewee takes longer to build its
    three CASEs than the database to run them)."""
    p, ids = db.obj.param, list(sent)
    case = " ".join([f"WHEN {p} THEN {p}"] * len(ids))
    sql = (f'UPDATE "{Outbox._meta.table_name}" SET "state" = {p}, "uncertain" = {p}, "error" = {p}, '
           f'"attempts" = {p}, "posted_at" = {p}, "ext_id" = CASE "id" {case} END, "url" = CASE "id" {case} END '
           f'WHERE "id" IN ({", ".join([p] * len(ids))}) AND "body" = CASE "id" {case} END')
    params: list = ["posted", False, "", 0, at]
    params += [v for i in ids for v in (i, sent[i][1].id)] + [v for i in ids for v in (i, sent[i][1].url)]
    db.execute_sql(sql, params + ids + [v for i in ids for v in (i, sent[i][0])])
