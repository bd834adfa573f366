"""What adapters share about a forum's "wait" and trying a read again: how long a forum's
answer is believed to ask for (a number of seconds, or a Retry-After header's HTTP date),
and tenacity's wait between a read's tries."""
from __future__ import annotations

import calendar
import math
import time
from email.utils import parsedate_tz
from typing import Any, Callable

from tenacity import wait_random_exponential

DEFAULT_WAIT = 60.0  # seconds, after a 429 that says no usable wait
LONGEST_WAIT = 3600.0  # the longest wait a forum's answer is believed for


def wait_seconds(*said) -> float:
    """The first of the forum's waits that is a number of seconds (a number, or a numeric
    string such as a Retry-After header), from 0 up, bounded by LONGEST_WAIT; DEFAULT_WAIT
    if none is."""
    for value in said:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            continue
        try:
            seconds = float(value)
        except (ValueError, OverflowError):
            continue
        if math.isfinite(seconds) and seconds >= 0:
            return min(seconds, LONGEST_WAIT)
    return DEFAULT_WAIT


def http_date(text) -> float | None:
    """An HTTP date (RFC 9110: IMF-fixdate, RFC 850 or asctime) in seconds since the epoch;
    None where `text` is not one (or names no day a calendar has)."""
    if not isinstance(text, str) or len(text) > 200:
        return None
    try:
        parts = parsedate_tz(text)
        if parts is None:
            return None
        return float(calendar.timegm(parts[:9]) - (parts[9] or 0))
    except (ValueError, TypeError, IndexError, OverflowError):
        return None


def header_wait(value, date=None, now: float | None = None) -> float | str | None:
    """A Retry-After header as the wait it asks for: its number of seconds as given (for
    wait_seconds to judge), or, where it is an HTTP date, the seconds from the answer's own
    `date` (its Date header; else `now`, the bot's clock in seconds since the epoch) until
    then, from 0 (a date already past) up to LONGEST_WAIT. None where it is neither."""
    if not isinstance(value, str):
        return None
    try:
        float(value)
        return value  # delay-seconds (a negative or endless one is wait_seconds' to refuse)
    except (ValueError, OverflowError):
        pass
    until = http_date(value)
    if until is None:
        return None
    start = http_date(date)
    if start is None:
        start = time.time() if now is None else now
    return min(max(until - start, 0.0), LONGEST_WAIT)


def read_wait(backoff: float, max_wait: float) -> Callable[[Any], float]:
    """A tenacity wait: the forum's own Retry-After (an error's `retry_after`, a number or a
    numeric string, capped at `max_wait`, and from 0 up) when it sent one, else exponential
    backoff with jitter."""
    exponential = wait_random_exponential(multiplier=backoff, max=max_wait)

    def wait(state: Any) -> float:
        error = state.outcome.exception() if state.outcome else None
        after = getattr(error, "retry_after", None)
        if isinstance(after, (int, float, str)) and not isinstance(after, bool):
            try:
                seconds = float(after)
            except (ValueError, OverflowError):
                return exponential(state)
            if math.isfinite(seconds):
                return min(max(seconds, 0.0), max_wait)
        return exponential(state)
    return wait
