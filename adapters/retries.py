"""What adapters share about trying a read again."""
from __future__ import annotations

from typing import Any, Callable

from tenacity import wait_random_exponential


def read_wait(backoff: float, max_wait: float) -> Callable[[Any], float]:
    """A tenacity wait: the forum's own Retry-After (an error's `retry_after`, capped at
    `max_wait`) when it sent one, else exponential backoff with jitter."""
    exponential = wait_random_exponential(multiplier=backoff, max=max_wait)

    def wait(state: Any) -> float:
        error = state.outcome.exception() if state.outcome else None
        after = getattr(error, "retry_after", None)
        if after is not None:
            return min(float(after), max_wait)
        return exponential(state)
    return wait
