"""Reading the forum: fetch, store, mark read; the inbox loop, oldest first, one
transaction a message; what cannot be handled now stays `new`; edit checks."""
from __future__ import annotations

import logging
from datetime import datetime

from adapters.base import Inbound as ForumInbound
from adapters.base import Outgoing

from . import store
from .basics import Deferred, cause
from .limits import MAX_TRIES, PER_AUTHOR_PER_CYCLE, UNREADABLE_NOTICE
from .parsing import game_tags
from .render import ops
from .store import Game, Inbound, db

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
    """Reading the forum: fetch, store, mark read; the inbox loop, oldest first, one
transaction a message; what cannot be handled now stays `new`; edit checks."""

    def fetch(self) -> int:
        threads = sorted({g.thread for g in Game.select(Game.thread).where(
            Game.status.in_(("running", "signup")) & Game.thread.is_null(False) & (Game.forum == self.forum.name))})
        started = self.clock()
        fetched = self.forum.fetch(threads, store.get_cursor(self.forum.name))
        self.read_failures = dict(fetched.failed)
        for thread, why in fetched.failed.items():
            log.error("reading %s failed: %s (its deadlines wait)", thread, why)
        with db.atomic():
            for m in fetched.inbound:
                if m.kind in ("comment", "pm"):
                    self._store_inbound(m)
            store.set_cursor(self.forum.name, fetched.cursor)
            waiting = dict(fetched.failed)
            waiting.update({t: "read in part" for t in fetched.partial if t not in waiting})
            for thread, since in self.horizon.read(started, threads, waiting).items():
                if thread in fetched.failed and (started - since).total_seconds() >= UNREADABLE_NOTICE:
                    self._tell_hosts_unreadable(thread, fetched.failed[thread], since)
        pms = [m.id for m in fetched.inbound if m.kind != "comment"]
        if pms:
            self.forum.mark_read(pms)  # only now that they are committed
        return len(fetched.inbound)

    def _tell_hosts_unreadable(self, thread: str, why: str, since: datetime) -> None:
        """A game thread that could not be read for UNREADABLE_NOTICE (since it was last
        read at `since`): its hosts are told, once for each such spell."""
        for g in Game.select().where((Game.thread == thread) & (Game.forum == self.forum.name)
                                     & Game.status.in_(("running", "signup"))):
            out = Outgoing(key=f"{g.tag}:unreadable:{since:%Y%m%d%H%M%S}", kind="pm", to=g.host,
                           subject=f"{g.tag}: I cannot read the game thread",
                           body=ops.thread_unreadable(g.tag, why))
            store.enqueue(out, g.id, since, priority=0)

    def _store_inbound(self, m: ForumInbound) -> None:
        (Inbound.insert(forum=self.forum.name, ext_id=m.id, kind=m.kind, author=m.author,
                        subject=m.subject or "", body=m.body, thread=m.thread, parent=m.parent,
                        created=store.naive(m.created), edited=m.edited, origin=m.origin)
         .on_conflict_ignore().execute())

    def notice_edits(self) -> int:
        """A command comment edited while its phase is open: the edit changes nothing, and
        the bot says so once, asking for a new comment. (A deleted one still counts.)"""
        games = {g.id: g for g in self._running_games()}
        if not games:
            return 0
        rows = [r for r in Inbound.select().where(
            (Inbound.forum == self.forum.name) & (Inbound.kind == "comment") & (Inbound.commands > 0)
            & (Inbound.note == "") & Inbound.game.in_(list(games))).order_by(Inbound.id)
            if store.aware(r.created) >= (self.state(games[r.game]).phase_opened_at or store.aware(r.created))]
        if not rows:
            return 0
        # One info() request of recheck_limit comments a cycle; with more, they take turns.
        start = self._recheck_from % len(rows) if len(rows) > self.recheck_limit else 0
        window = (rows + rows)[start:start + min(self.recheck_limit, len(rows))]
        self._recheck_from = start + len(window)
        by_id = {r.ext_id: r for r in window}
        noticed = 0
        for now in self.forum.recheck(list(by_id)):
            row = by_id[now.id]
            if now.body.strip() == row.body.strip():
                continue
            with db.atomic():
                row.note = "edited"
                row.save()
                self._reply(row, games[row.game], "Editing a comment does not change a command: "
                            "the bot takes each command as it read when first seen. To change "
                            "your vote, post a new comment.", 99, private=False)
            noticed += 1
        return noticed

    def process_inbox(self) -> int:
        """Every new message, oldest first, each in its own transaction. What is not handled
        now (a flood's excess, a database error, a message after a deadline that must wait)
        stays `new` and holds back the deadlines it could concern."""
        count = 0
        self.horizon.reset_hold()
        pending = list(Inbound.select().where((Inbound.state == "new") & (Inbound.forum == self.forum.name))
                       .order_by(Inbound.created, Inbound.id))
        chosen = fair_share(pending, PER_AUTHOR_PER_CYCLE)
        taken = {r.id for r in chosen}
        for r in pending:
            if r.id not in taken:  # its sender's turn comes in a later cycle
                self.horizon.hold(None, store.aware(r.created))
                break
        for row in chosen:
            self._dirty = set()
            try:
                with db.atomic():
                    self._handle(row)
                    row.state = "done"
                    row.save()
            except Deferred as d:
                self._forget_dirty()
                self.horizon.hold(d.game, store.aware(row.created))
                continue
            except Exception as e:
                self._forget_dirty()
                if store.is_db_trouble(e):  # not the message's fault: it stays new
                    log.error("database: %s; message %s waits for the next cycle", cause(e), row.ext_id)
                    store.recover()
                    self.horizon.hold(None, store.aware(row.created))
                    break  # the later ones wait behind it
                self._failed(row, e)  # a bug must not stop every other game
            count += 1
        return count

    def _forget_dirty(self) -> None:
        """The transaction was rolled back: the cached states it changed are stale."""
        for g in self._dirty:
            self._states.pop(g, None)
        self._dirty = set()

    def _failed(self, row: Inbound, e: Exception) -> None:
        """A message whose handling raised: tried again next cycle, and after MAX_TRIES set
        aside, with the host of its game told (a message that is never handled must not
        hold every deadline for ever)."""
        log.exception("inbound %s failed", row.ext_id)
        tries = (row.tries or 0) + 1
        if tries < MAX_TRIES:
            Inbound.update(tries=tries, note=repr(e)[:500]).where(Inbound.id == row.id).execute()
            self.horizon.hold(None, store.aware(row.created))
            return
        Inbound.update(state="error", tries=tries, note=repr(e)[:500]).where(Inbound.id == row.id).execute()
        for game in self._games_for_failure(row):
            out = Outgoing(key=f"{game.tag}:set-aside:{self.forum.name}:{row.ext_id}", kind="pm",
                           to=game.host, subject=f"{game.tag}: a message I could not handle",
                           body=ops.set_aside(game.tag, row.author, row.kind, store.aware(row.created)))
            store.enqueue(out, game.id, self.clock(), priority=0)

    def _games_for_failure(self, row: Inbound) -> list[Game]:
        try:
            if row.kind == "comment":
                return [g for g in self._running_games() if g.thread == row.thread]
            tags = game_tags(row.subject, row.body)
            return [g for g in self._games_of(row.author) if not tags or g.id in tags]
        except Exception:  # the same bug may be in the way: then no one can be told
            log.exception("no game found for the failed message %s", row.ext_id)
            return []
