"""The write budget: how many posts, PMs and edits go out per minute, in priority order.

A forum allows so many requests a minute, reads included (Traits.requests_per_minute:
100 on Reddit, 60 on Discourse). The bot keeps its writes under a budget below that
(`[bot] writes_per_minute`, whose default each adapter sets), and gives the lower priorities a smaller share of it:
results and prompts (0) may use all of it, replies to players (1) 90%, reminders (2) 75%,
status-block edits (3) half. A busy hour slows the status blocks first, never the game.
When the forum says (X-Ratelimit-Remaining) that few requests are left, only results and
prompts go out.

Status edits are coalesced when writes are short (more edits wait than the edits' share has
room for this minute): a post edited less than COALESCE_WINDOW ago is edited again only after
every other waiting block, so a burst of votes is one edit (with the newest block), and of the
others the blocks out of date the longest go first. With room to spare, an edit goes out at once.
Retries of failed writes wait with exponential backoff and jitter
(tenacity's), or exactly what the forum asked for (Retry-After).
"""
from __future__ import annotations

from collections import deque
from datetime import datetime, timedelta
from typing import Any, Callable, cast

from tenacity import RetryCallState, wait_random_exponential

from ...basics import utcnow

SHARE = {0: 1.0, 1: 0.9, 2: 0.75, 3: 0.5}
LOW_WATER = 10  # requests left in the forum's window below which only priority 0 is written
COALESCE_WINDOW = 120  # seconds: when writes are short, at most one status edit a game in this time
EDIT = 3  # the status edits' priority
_WAIT = wait_random_exponential(multiplier=15, max=1800)


class WriteBudget:
    def __init__(self, per_minute: int | None = 60, clock: Callable[[], datetime] | None = None):
        self.per_minute = per_minute
        self.clock = clock
        self.sent: deque[datetime] = deque()

    def _now(self) -> datetime:
        return (self.clock or utcnow)()

    def used(self) -> int:
        now = self._now()
        while self.sent and self.sent[0] <= now - timedelta(seconds=60):
            self.sent.popleft()
        return len(self.sent)

    def allow(self, priority: int, forum_left: int | None = None) -> bool:
        if forum_left is not None:
            if forum_left <= 1 or (forum_left < LOW_WATER and priority > 0):
                return False
        if self.per_minute is None:
            return True
        return self.used() < self.per_minute * SHARE.get(priority, SHARE[3])

    def short(self, edits: int, forum_left: int | None = None) -> bool:
        """Are writes short for `edits` status edits waiting? More of them than the edits'
        share of this minute still takes, or the forum near its own limit."""
        if forum_left is not None and forum_left < 2 * LOW_WATER:
            return True
        if self.per_minute is None:
            return False
        return edits > self.per_minute * SHARE[EDIT] - self.used()

    def room(self) -> float:
        """How many writes the budget still takes this minute."""
        return float("inf") if self.per_minute is None else self.per_minute - self.used()

    def spend(self) -> None:
        self.sent.append(self._now())


def backoff(attempt: int, retry_after: float | None = None) -> float:
    """Seconds before the next try of a failed write: what the forum asked for, if it did;
    else exponential backoff with jitter, capped at 30 minutes."""
    if retry_after is not None:
        return float(retry_after)
    state = RetryCallState(retry_object=cast(Any, None), fn=None, args=(), kwargs={})
    state.attempt_number = max(1, attempt)
    return _WAIT(state)
