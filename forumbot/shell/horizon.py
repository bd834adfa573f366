"""How far the bot has read the forum: a deadline at T closes only once everything its game
depends on was read, successfully, up to T (variants.md, "Time of a command").

Two things hold a game's horizon back:
- a read that failed: the game's thread (its subreddit on Reddit) or the inbox. The time
  of the last complete read is kept in the store, and per failing thread the time it was
  last read, so a restarted bot knows as much as the one before it;
- messages read but not yet handled: a sender's flood waiting for its turn, a message
  put back after a database error, or one deferred because a deadline before it could
  not close yet. Those are counted per cycle (`hold`).

A command counts at the forum's stamp (capped at when the bot read it), and the deadlines
are reckoned from those stamps: so "read up to T" is in the forum's time. A forum clock
behind the bot's has been read, at the bot's time S, only up to its own S - behind.
`behind` is learned from what is read: a message that was not there when the previous
fetch began (at P, by the bot's clock) was sent after P, so a stamp below P tells that the
forum's clock is at least P - stamp behind. The largest such lag (up to MAX_BEHIND: more
is an old message found late, not a clock) is kept for a day.
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta

from .. import store
from ..store import Cursor

ALL = "read:all"  # the start of the last fetch that read everything it was asked for
FAILING = "read:failing"  # thread -> the start of the last fetch that read it
BEHIND = "read:behind"  # [seconds the forum's clock is behind the bot's, when that was last seen]
THREADS = "read:threads"  # the threads the last fetch read in full
MAX_BEHIND = 600  # seconds: a larger lag is taken for a message found late, not for a clock
BEHIND_KEPT = timedelta(days=1)  # a lag not seen again for this long is forgotten


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
        self._behind: tuple[float, datetime | None] = (0.0, None)  # (seconds, last seen)
        self._threads: set[str] = set()  # the threads the last fetch read in full
        self._written: dict = {}  # the rows as the store holds them (only those that change are written)
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
        behind = rows.get(BEHIND) or [0.0, None]
        self._behind = (float(behind[0]), store.aware(behind[1]) if behind[1] else None)
        self._threads = set(rows.get(THREADS) or ())
        self._written = rows
        self._loaded = True

    def read(self, started: datetime, threads: list[str], failed: dict[str, str],
             stamps: list[tuple[str | None, datetime]] | None = None) -> dict[str, datetime]:
        """A fetch that began at `started` returned: every thread but `failed` (and the inbox)
        was read up to then; `stamps` are the (thread, or None for a PM; the forum's stamp)
        of what it read. Call inside the transaction that stores what it read. Returns the
        failing threads with the time each was last read."""
        if not self._loaded:
            self.load()
        before = self._all
        self._learn_behind(started, before, stamps or [], set(failed))
        if failed or self._failing:  # (none failing before or now, as mostly: no pass over the threads)
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
        self._threads = {t for t in threads if t not in failed} if failed else set(threads)
        seconds, seen = self._behind
        # (the threads as given, sorted, when they are those kept: sorting a sorted list is one pass)
        kept = sorted(threads) if len(threads) == len(self._threads) else sorted(self._threads)
        rows = {ALL: started.isoformat(), FAILING: {t: v.isoformat() for t, v in self._failing.items()},
                BEHIND: [seconds, seen.isoformat() if seen else None], THREADS: kept}
        self._loaded = False  # (read again, unless the caller commits: see `wrote`)
        store.set_cursor(_place(self.forum), rows, before=self._written)
        self._written = {**self._written, **rows}
        return {t: self._failing[t] for t in threads if t in failed} if failed else {}

    def _learn_behind(self, started: datetime, before: datetime | None,
                      stamps: list[tuple[str | None, datetime]], failed: set[str]) -> None:
        """How far behind the forum's clock is, from what this fetch read that the last one
        (begun at `before`) would have read had it been there: PMs, and comments of threads
        the last fetch read in full and this one too."""
        seconds, seen = self._behind
        if seen is not None and started - seen > BEHIND_KEPT:
            seconds, seen = 0.0, None
        if before is not None:
            for thread, stamp in stamps:
                if thread is not None and (thread not in self._threads or thread in failed):
                    continue
                lag = (before - stamp).total_seconds()
                if seconds < lag <= MAX_BEHIND:
                    seconds, seen = lag, started
                elif 0 < lag <= seconds:
                    seen = started
        self._behind = (seconds, seen)

    @property
    def behind(self) -> float:
        """Seconds the forum's clock is known to be behind the bot's (0: not behind)."""
        if not self._loaded:
            self.load()
        return self._behind[0]

    def wrote(self) -> None:
        """What `read` wrote is committed."""
        self._loaded = True

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
        read = self._failing.get(thread, self._all) if thread else self._all
        if read is None:
            return None
        read -= timedelta(seconds=self._behind[0])  # (in the forum's time)
        return min(t for t in (read, self._hold.get(None), self._hold.get(game)) if t is not None)

    def why(self, thread: str | None) -> str:
        """What holds a game back, for the host (the read error if there is one)."""
        if self._down:
            return f"the forum could not be read ({self._down})"
        if thread and thread in self._errors:
            return f"the forum could not be read ({self._errors[thread]})"
        if thread and thread in self._failing:
            return "the forum could not be read"
        return "messages sent before the deadline are still being handled"
