"""What adapters share about trying a read again."""
from __future__ import annotations

import math
from typing import Any, Callable

from tenacity import wait_random_exponential


def read_wait(backoff: float, max_wait: float) -> Callable[[Any], float]:
    """A tenacity wait: the forum's own Retry-After (an error's `retry_after`, capped at
    `max_wait`, and from 0 up) when it sent one, else exponential backoff with jitter."""
    exponential = wait_random_exponential(multiplier=backoff, max=max_wait)

    def wait(state: Any) -> float:
        error = state.outcome.exception() if state.outcome else None
        after = getattr(error, "retry_after", None)
        if isinstance(after, (int, float)) and not isinstance(after, bool) and math.isfinite(after):
            return min(max(float(after), 0.0), max_wait)
        return exponential(state)
    return wait
