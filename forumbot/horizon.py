"""How far the bot has read the forum: a deadline at T closes only once everything its game
depends on was read, successfully, up to T (variants.md, "Time of a command").

Two things hold a game's horizon back:
- a read that failed: the game's thread (its subreddit on Reddit) or the inbox. The time
  of the last complete read is kept in the store, and per failing thread the time it was
  last read, so a restarted bot knows as much as the one before it;
- messages read but not yet handled: a sender's flood waiting for its turn, a message
  put back after a database error, or one deferred because a deadline before it could
  not close yet. Those are counted per cycle (`hold`).
"""
from __future__ import annotations

import json
from datetime import datetime

from . import store
from .store import Cursor

ALL = "read:all"  # the start of the last fetch that read everything it was asked for
FAILING = "read:failing"  # thread -> the start of the last fetch that read it


def _place(forum: str) -> str:
    return f"{forum}#bot"  # the bot's own rows, apart from the adapter's bookmarks


class Horizon:
    def __init__(self, forum: str):
        self.forum = forum
        self._all: datetime | None = None
        self._failing: dict[str, datetime] = {}
        self._errors: dict[str, str] = {}
        self._down = ""  # why the last fetch failed as a whole ("" once one succeeds)
        self._hold: dict[int | None, datetime] = {}
        self._loaded = False

    # --- reads ---------------------------------------------------------------------

    def forget(self) -> None:
        """After a rolled-back transaction: read again from the store when next asked."""
        self._loaded = False

    def load(self) -> None:
        rows = {r.name: json.loads(r.value) for r in
                Cursor.select().where(Cursor.forum == _place(self.forum))}
        self._all = store.aware(rows[ALL]) if rows.get(ALL) else None
        self._failing = {t: store.aware(v) for t, v in (rows.get(FAILING) or {}).items()}
        self._loaded = True

    def read(self, started: datetime, threads: list[str], failed: dict[str, str]) -> dict[str, datetime]:
        """A fetch that began at `started` returned: every thread but `failed` (and the inbox)
        was read up to then. Call inside the transaction that stores what it read. Returns
        the failing threads with the time each was last read."""
        if not self._loaded:
            self.load()
        before = self._all
        for t in threads:
            if t in failed:
                if t not in self._failing and before is not None:
                    self._failing[t] = before
                elif t not in self._failing:
                    self._failing[t] = datetime.min.replace(tzinfo=started.tzinfo)
            else:
                self._failing.pop(t, None)
        for t in list(self._failing):
            if t not in threads:
                self._failing.pop(t)  # its game is over
        self._errors = dict(failed)
        self._down = ""
        self._all = started
        store.set_cursor(_place(self.forum), {
            ALL: started.isoformat(),
            FAILING: {t: v.isoformat() for t, v in self._failing.items()}})
        return {t: self._failing[t] for t in threads if t in failed}

    def fetch_failed(self, why: str) -> None:
        """The whole fetch failed: nothing was read (the horizon stays where it was)."""
        self._down = why

    # --- messages waiting ----------------------------------------------------------

    def reset_hold(self) -> None:
        self._hold = {}

    def hold(self, game: int | None, created: datetime) -> None:
        """A message created at `created` is not handled yet: the deadlines it could concern
        (one game's, or with None every game's) wait for it."""
        if game not in self._hold or created < self._hold[game]:
            self._hold[game] = created

    # --- the answer ----------------------------------------------------------------

    def of(self, thread: str | None, game: int | None) -> datetime | None:
        """Up to when this game's world is known; None: nothing read yet."""
        if not self._loaded:
            self.load()
        times = [self._failing.get(thread, self._all) if thread else self._all,
                 self._hold.get(None), self._hold.get(game)]
        if times[0] is None:
            return None
        return min(t for t in times if t is not None)

    def why(self, thread: str | None) -> str:
        """What holds a game back, for the host (the read error if there is one)."""
        if self._down:
            return f"the forum could not be read ({self._down})"
        if thread and thread in self._errors:
            return f"the forum could not be read ({self._errors[thread]})"
        if thread and thread in self._failing:
            return "the forum could not be read"
        return "messages sent before the deadline are still being handled"
