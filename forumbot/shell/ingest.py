"""Reading the forum: fetch, store, mark read; the inbox loop, oldest first, one
transaction a message; what cannot be handled now stays `new`; edit checks."""
from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import cast

from adapters.base import Forum, Outgoing

from .. import db_trouble, store
from ..basics import Deferred, cause
from ..cpubudget import CpuBudget, OverBudget
from ..limits import MAX_TRIES, MESSAGE_CPU_SECONDS, PER_AUTHOR_PER_CYCLE, RECHECK_LIMIT, UNREADABLE_NOTICE
from ..parsing import game_tags
from ..render import ops
from ..render import replies as words
from ..render.subjects import subject
from ..store import Game, Inbound, db
from .games import GameBook
from .horizon import Horizon
from .inbox import Inbox
from .replies import Answers
from .watched import Watched

BATCH = 100  # messages handled in one transaction (one falls back to its own on trouble)

log = logging.getLogger("forumbot")


def fair_share(rows: list[Inbound], per_author: int) -> list[Inbound]:
    """At most `per_author` messages of each sender, in time order: one sender's flood must
    not hold up everyone else's votes (the rest wait for the next cycles)."""
    taken: dict[str, int] = {}
    out = []
    for r in rows:
        n = taken.get(r.author.casefold(), 0)
        if n < per_author:
            taken[r.author.casefold()] = n + 1
            out.append(r)
    return out


class Ingest:
    """Reading the forum: fetch, store, mark read; the inbox loop, oldest first; edit checks.

    The inbox is handled BATCH messages to a transaction, which also marks them done: a
    crash leaves all of them `new`. If one of them cannot be handled now (a deadline before
    it must wait, a bug, the database), the batch is rolled back and its messages are
    handled again one transaction each, as if the batch had never been tried.

    Every message is handled within a budget (MESSAGE_CPU_SECONDS of CPU): one that takes
    longer is set aside at once; one that raises is tried once more in the next cycle
    (holding the deadlines until then), then set aside. Its sender is told (once; a
    stranger at most once a day), and the host of its game."""

    def __init__(self, forum: Forum, book: GameBook, horizon: Horizon, answers: Answers, inbox: Inbox,
                 clock: Callable[[], datetime]):
        self.forum = forum
        self.book = book
        self.horizon = horizon
        self.answers = answers
        self.inbox = inbox  # handles each stored message (and knows whose games are whose)
        self.clock = clock
        self.cpu = CpuBudget(MESSAGE_CPU_SECONDS)
        self.slowest: tuple[float, str] = (0.0, "")  # the most CPU one message took (seconds, which)
        self._over: set[int] = set()  # messages that went over the budget in this cycle's batch
        self.recheck_limit: int = RECHECK_LIMIT or forum.traits.recheck_batch  # (the moderator sets it)
        self.read_failures: dict[str, str] = {}
        self._recheck_from = 0  # where the next cycle's edit re-check starts
        self.watched = Watched(forum.name, book)  # the comments it looks at
        self._cursor: dict | None = None  # the forum's bookmarks as the store holds them (None: read them)

    def forget(self) -> None:
        """What is kept between cycles (the bookmarks, the comments the edit re-check looks
        at) is read from the store when next needed."""
        self.watched.forget()
        self._cursor = None

    def fetch(self) -> int:
        threads = self.book.threads()
        started = self.clock()
        if self._cursor is None:  # (the forum's bookmarks: only this bot writes them)
            self._cursor = store.get_cursor(self.forum.name)
        cursor = self._cursor
        fetched = self.forum.fetch(threads, dict(cursor))
        read_at = self.clock()  # a command counts at the forum's stamp, capped at this (a forum clock ahead)
        self.read_failures = dict(fetched.failed)
        for thread, why in fetched.failed.items():
            log.error("reading %s failed: %s (its deadlines wait)", thread, why)
        self._cursor = None  # (read again, unless what follows is committed)
        with db.atomic():
            stored = self._stored([m.id for m in fetched.inbound])  # (read again: an overlap, a PM left unread)
            store.store_inbound(self.forum.name, [m for m in fetched.inbound if m.kind in ("comment", "pm")],
                                read_at)
            store.set_cursor(self.forum.name, fetched.cursor, before=cursor)
            waiting = dict(fetched.failed)
            waiting.update({t: "read in part" for t in fetched.partial if t not in waiting})
            stamps = [(m.thread if m.kind == "comment" else None, m.created) for m in fetched.inbound
                      if m.id not in stored]
            for thread, since in self.horizon.read(started, threads, waiting, stamps).items():
                if thread in fetched.failed and (started - since).total_seconds() >= UNREADABLE_NOTICE:
                    self._tell_hosts_unreadable(thread, fetched.failed[thread], since)
        self._cursor = {**cursor, **fetched.cursor}
        self.horizon.wrote()
        pms = [m.id for m in fetched.inbound if m.kind != "comment"]
        if pms:
            self.forum.mark_read(pms)  # only now that they are committed
        return len(fetched.inbound)

    def _stored(self, ids: list[str]) -> set[str]:
        """Which of these forum ids are in the inbox already."""
        found: set[str] = set()
        for n in range(0, len(ids), 500):
            found.update(r.ext_id for r in Inbound.select(Inbound.ext_id).where(
                (Inbound.forum == self.forum.name) & Inbound.ext_id.in_(ids[n:n + 500])))
        return found

    def _tell_hosts_unreadable(self, thread: str, why: str, since: datetime) -> None:
        """A game thread that could not be read for UNREADABLE_NOTICE (since it was last
        read at `since`): its hosts are told, once for each such spell."""
        for g in self.book.live():
            if g.thread != thread:
                continue
            out = Outgoing(key=f"{g.tag}:unreadable:{since:%Y%m%d%H%M%S}", kind="pm", to=g.host,
                           subject=subject("unreadable", g.tag),
                           body=ops.thread_unreadable(g.tag, why))
            store.enqueue(out, g.id, since, priority=0)

    def notice_edits(self) -> int:
        """A command comment edited while its phase is open: the edit changes nothing, and
        the bot says so once, asking for a new comment. (A deleted one still counts.)"""
        games = self.book.running_by_id()
        if not games:
            return 0
        rows = self.watched.ids(games, self.recheck_limit if self._recheck_from == 0 else None)
        if not rows:
            return 0
        # One info() request of recheck_limit comments a cycle; with more, they take turns.
        start = self._recheck_from % len(rows) if len(rows) > self.recheck_limit else 0
        window = (rows + rows)[start:start + min(self.recheck_limit, len(rows))]
        self._recheck_from = start + len(window)
        by_id = {r.ext_id: r for r in map(self.watched.row, window)}
        noticed = 0
        for now in self.forum.recheck(list(by_id)):
            seen = by_id[now.id]
            if now.body.strip() == seen.body.strip():
                continue
            row = Inbound.get_or_none(Inbound.id == seen.id)  # (its whole row, only now)
            if row is None:
                self.watched.drop(seen)
                continue
            with db.atomic():
                row.note = "edited"
                row.save()
                self.answers.reply(row, games[cast(int, row.game)], words.edit_ignored(), 99, private=False)
            self.watched.drop(row)
            noticed += 1
        return noticed

    def process_inbox(self) -> int:
        """Every new message, oldest first. What is not handled now (a flood's excess, a
        database error, a message after a deadline that must wait) stays `new` and holds
        back the deadlines it could concern."""
        count = 0
        self.horizon.reset_hold()
        self._over = set()
        pending = list(Inbound.select().where((Inbound.state == "new") & (Inbound.forum == self.forum.name))
                       .order_by(Inbound.created, Inbound.id))
        chosen = fair_share(pending, PER_AUTHOR_PER_CYCLE)
        taken = {r.id for r in chosen}
        for r in pending:
            if r.id not in taken:  # its sender's turn comes in a later cycle
                self.horizon.hold(None, store.aware(r.created))
                break
        for n in range(0, len(chosen), BATCH):
            batch = chosen[n:n + BATCH]
            if self._batch(batch):
                count += len(batch)
                continue
            for row in batch:
                handled = self._one(row)
                if handled is None:
                    return count  # the database: the later ones wait behind it
                count += handled
        return count

    def _batch(self, rows: list[Inbound]) -> bool:
        """The messages in one transaction, marked done in one statement; False (nothing
        done, the caches as they were) if any of them could not be handled."""
        if len(rows) < 2:
            return False
        current = None
        try:
            with self.book.unit():
                for row in rows:
                    current = row
                    self._timed(row)
                current = None
                _mark_done([(r.id, r.game, r.commands) for r in rows])
        except (Exception, OverBudget) as e:
            if isinstance(e, OverBudget) and current is not None:
                self._over.add(current.id)  # set aside when its turn comes, not handled again
                self._interrupted()
            elif db_trouble.is_db_trouble(e):
                db_trouble.recover()
            try:  # read again: the handling may have changed them in memory
                fresh = {r.id: r for r in Inbound.select().where(Inbound.id.in_([r.id for r in rows]))}
            except Exception:
                log.warning("could not read the batch again", exc_info=True)
                return False
            for row in rows:
                if row.id in fresh:
                    store.reload_into(row, fresh[row.id])
            return False
        for row in rows:
            row.state = "done"
        self.watched.handled(rows)
        return True

    def _one(self, row: Inbound) -> int | None:
        """One message in its own transaction: 1 handled (or set aside), 0 put back, None
        the database failed (it stays new)."""
        if row.id in self._over:
            self._set_aside(row, "over its CPU budget")
            return 1
        try:
            with self.book.unit():
                self._timed(row)
                row.state = "done"
                row.save()
            self.watched.handled([row])
        except OverBudget:
            self._interrupted()
            self._set_aside(row, "over its CPU budget")
            return 1
        except Deferred as d:
            self.horizon.hold(d.game, store.aware(row.created))
            return 0
        except Exception as e:
            if db_trouble.is_db_trouble(e):  # not the message's fault: it stays new
                log.error("database: %s; message %s waits for the next cycle", cause(e), row.ext_id)
                db_trouble.recover()
                self.horizon.hold(None, store.aware(row.created))
                return None
            self._failed(row, e)  # a bug must not stop every other game
        return 1

    def _timed(self, row: Inbound) -> None:
        """The inbox's `handle`, within the CPU budget (OverBudget past it); the time it took is logged,
        and the most one message took is kept (`slowest`)."""
        bounded = self.cpu.bound()
        try:
            with bounded:
                self.inbox.handle(row)
        finally:
            took = bounded.seconds
            log.debug("inbound %s took %.3fs of CPU", row.ext_id, took)
            if took > self.slowest[0]:
                self.slowest = (took, f"{self.forum.name} {row.kind} {row.ext_id}")

    def _interrupted(self) -> None:
        """After OverBudget: the transaction is rolled back, but the exception may have come
        in the middle of the bookkeeping of a cache or of a nested transaction: both are
        read afresh."""
        log.warning("a message went over its CPU budget of %ss", self.cpu.seconds)
        if store.db.in_transaction():
            db_trouble.recover()
        self.book.clear()
        self.horizon.forget()

    def _failed(self, row: Inbound, e: Exception) -> None:
        """A message whose handling raised: tried again next cycle (holding the deadlines
        until then), and after MAX_TRIES set aside (a message that is never handled must
        not hold every deadline for more than a cycle)."""
        log.exception("inbound %s failed", row.ext_id)
        tries = (row.tries or 0) + 1
        if tries < MAX_TRIES:
            Inbound.update(tries=tries, note=repr(e)[:500]).where(Inbound.id == row.id).execute()
            self.horizon.hold(None, store.aware(row.created))
            return
        self._set_aside(row, repr(e), tries)

    def _set_aside(self, row: Inbound, why: str, tries: int | None = None) -> None:
        """A message that will not be handled: marked so (`why` stays in the store, for
        the operator), the host of its game told, and its sender answered, each once, in
        one transaction (database trouble raises, and the message stays as it was)."""
        log.error("inbound %s from %s set aside: %s", row.ext_id, row.author, why[:200])
        with db.atomic():  # set aside and told together: the database failing leaves it as it was
            Inbound.update(state="error", tries=tries if tries is not None else (row.tries or 0),
                           note=why[:500]).where(Inbound.id == row.id).execute()
            try:
                with db.atomic():
                    games = self._games_for_failure(row)
                    for game in games:
                        out = Outgoing(key=f"{game.tag}:set-aside:{self.forum.name}:{row.ext_id}", kind="pm",
                                       to=game.host, subject=subject("set_aside", game.tag),
                                       body=ops.set_aside(game.tag, row.author, row.kind, store.aware(row.created),
                                                          self.book.markup))
                        store.enqueue(out, game.id, self.clock(), priority=0)
                    self._answer_sender(row, games)
            except Exception as e:  # the same bug may be in the way: the message stays set aside
                if db_trouble.is_db_trouble(e):
                    raise  # (not set aside: the next cycle tries it again)
                log.exception("could not tell anyone that %s was set aside", row.ext_id)
        row.state = "error"

    def _answer_sender(self, row: Inbound, games: list[Game]) -> None:
        """The sender of a message set aside learns that it was not handled (and nothing
        of why): once for the message, and someone outside every game once a day at most."""
        name = row.author.casefold()
        if row.origin or name == self.forum.bot_name.casefold() or any(g.host.casefold() == name for g in games):
            return  # staff mail, the bot itself, or the host (told above)
        game = games[0] if len(games) == 1 else None
        text = ops.not_handled(row.kind, store.aware(row.created), game.tag if game else None,
                               game.host if game else None)
        if self.answers.people.known(row.author):
            self.answers.reply(row, game, text, 0, key=f"re:{self.forum.name}:{row.ext_id}:set-aside")
        else:  # someone outside every game: at most one answer a day
            self.inbox.to_stranger(row, text)

    def _games_for_failure(self, row: Inbound) -> list[Game]:
        try:
            if row.kind == "comment":
                return [g for g in self.book.running() if g.thread == row.thread]
            tags = game_tags(row.subject, row.body)
            return [g for g in self.inbox.games_of(row.author) if not tags or g.id in tags]
        except Exception:  # the same bug may be in the way: then no one can be told
            log.exception("no game found for the failed message %s", row.ext_id)
            return []


def _mark_done(rows: list[tuple[int, int | None, int]]) -> None:
    """Inbox messages (id, game, commands) handled: `done`, with the game each was for and
    how many commands it held, in one statement (written out: peewee takes longer to build
    its CASE than the database to run it)."""
    p, ids = db.obj.param, [i for i, _, _ in rows]
    sql = f'UPDATE "{Inbound._meta.table_name}" SET "state" = {p}'
    params: list = ["done"]
    for column, cases in (("game", [(i, g) for i, g, _ in rows if g is not None]),
                          ("commands", [(i, n) for i, _, n in rows if n])):
        if cases:
            sql += f', "{column}" = CASE "id"' + f" WHEN {p} THEN {p}" * len(cases) + f' ELSE "{column}" END'
            params += [v for case in cases for v in case]
    db.execute_sql(sql + ' WHERE "id" IN (' + ", ".join([p] * len(ids)) + ")", params + ids)
