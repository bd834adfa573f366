"""The command comments whose edits the bot looks for: those of each running game's open
phase not noted yet. Read from the store once (no game replayed: each game's row keeps when
its phase opened), then kept: the comments handled since are added, and a game's are
filtered again only when it changed (a new phase, or its end). A first look that wants
only the first few (a restart's first cycle re-checks one batch from the start) reads only
those, and the next look reads them all."""
from __future__ import annotations

from datetime import datetime
from typing import NamedTuple, cast

from .. import store
from ..store import Game, Inbound, db
from .games import GameBook


class Seen(NamedTuple):
    """A watched comment: what the re-check compares (its row is read only when it was edited)."""

    id: int
    ext_id: str
    game: int
    created: datetime | str  # (as the database gave it)
    body: str


def _seen(r: Inbound) -> Seen:
    return Seen(r.id, r.ext_id, cast(int, r.game), r.created, r.body)


class Watched:
    def __init__(self, forum_name: str, book: GameBook):
        self.forum_name = forum_name
        self.book = book
        self._rows: dict[int, Seen] | None = None  # by id (None: read them from the store)
        self._games: dict[int, tuple[datetime | None, set[int]]] = {}  # game -> (its phase's opening, its rows)
        self._handled: list[Seen] = []  # command comments handled since the last look
        self._partial = False  # only the first few are read: the next look reads them all

    def forget(self) -> None:
        """Read them from the store when next needed."""
        self._rows = None
        self._games = {}
        self._handled = []
        self._partial = False

    def handled(self, rows: list[Inbound]) -> None:
        """Messages handled and committed: the command comments among them are watched."""
        if self._rows is not None:
            self._handled += [_seen(r) for r in rows if r.kind == "comment" and r.commands and r.game is not None
                              and not r.note and r.state == "done"]

    def ids(self, games: dict[int, Game], first: int | None = None) -> list[int]:
        """Those of `games` (the running games, by id): their ids, in order (`row` gives each).
        `first`: only the first so many are needed now (and whether there are more): if they
        are not at hand, at most one more than that is read, unless they do not all pass."""
        changed = self.book.take_changed()
        if self._partial:
            self.forget()
        if self._rows is None:  # (those handled meanwhile are in the store too)
            self._read(games, first)
        assert self._rows is not None
        for gid in [gid for gid in self._games if gid not in games]:  # its game is over
            for i in self._games.pop(gid)[1]:
                del self._rows[i]
        for gid in changed:
            if gid in self._games and (opened := self.book.phase_opened(games[gid])) != self._games[gid][0]:
                self._games[gid] = (opened, self._games[gid][1])  # a new phase
                self._keep_open(gid, list(self._games[gid][1]))
        handled, self._handled = self._handled, []
        self._add(handled, games)
        if self._partial and len(self._rows) != cast(int, first) + 1:  # one did not pass (its game, its phase)
            self.forget()
            self._read(games, None)  # (the first ones are those of all of them only if all passed)
        return sorted(self._rows)

    def _read(self, games: dict[int, Game], first: int | None) -> None:
        """From the store: all of them, or (`first`) one more than so many, by id."""
        self._handled = []
        self._rows, self._games = {}, {}
        query = (Inbound.select(Inbound.id, Inbound.ext_id, Inbound.game, Inbound.created, Inbound.body)
                 .join(Game, on=(Inbound.game == Game.id)).where(
            (Inbound.forum == self.forum_name) & (Inbound.kind == "comment") & (Inbound.commands > 0)
            & (Inbound.note == "") & (Game.status == "running") & (Game.forum == self.forum_name)
            & (Game.phase_opened.is_null() | (Inbound.created >= Game.phase_opened))))
        if first is not None:
            query = query.order_by(Inbound.id).limit(first + 1)
        sql, params = query.sql()
        # (the driver's rows as they are, a time maybe as text: a restart reads thousands)
        rows = [Seen(*r) for r in db.execute_sql(sql, params).fetchall()]
        self._add(rows, games)
        self._partial = first is not None and len(rows) > first  # there are more

    def row(self, i: int) -> Seen:
        assert self._rows is not None
        return self._rows[i]

    def drop(self, row: Inbound | Seen) -> None:
        """A comment noted (its edit answered): no longer watched."""
        if self._rows is not None and self._rows.pop(row.id, None) is not None:
            self._games[cast(int, row.game)][1].discard(row.id)

    def _add(self, rows: list[Seen], games: dict[int, Game]) -> None:
        assert self._rows is not None
        for r in rows:
            gid = r.game
            if gid not in self._games:
                if gid not in games:
                    continue  # (a comment that ended its game)
                self._games[gid] = (self.book.phase_opened(games[gid]), set())
            self._rows[r.id] = r
            self._games[gid][1].add(r.id)
            self._keep_open(gid, [r.id])

    def _keep_open(self, gid: int, ids: list[int]) -> None:
        """Of these comments of a game, only those of its open phase stay."""
        assert self._rows is not None
        opened, watched = self._games[gid]
        if opened is None:  # (a phase with no time: every one stays)
            return
        for i in ids:
            if store.aware(self._rows[i].created) < opened:
                del self._rows[i]
                watched.discard(i)
