"""Discourse's HTTP side: one session, the site-wide request allowance, reads tried again
(tenacity) and writes sent once, and what each answer means in the adapters' error kinds.

- 429 is transient, with Discourse's `extras.wait_seconds` (or `Retry-After`); a write is
  not sent while the site's wait runs, a read waits it out in its retries.
- A 5xx or a dropped connection after a write was sent is uncertain (it may have landed);
  a connection that never opened is transient; a read-only site refuses a write whole.
- 403, 404 and 422 are permanent, with Discourse's own `errors`; "The API username or key
  is invalid" is a failed login.

pydiscourse is not used: it sleeps inside a call and retries on 429 (up to four times,
blocking the cycle for minutes), sends with no timeout by default and no session, and
folds a 5xx on a POST and one on a GET into the same error, where the outbox must know
which writes may have landed.
"""
from __future__ import annotations

import re
import threading
import time
from collections import deque
from datetime import datetime, timezone
from typing import Callable

import requests
import urllib3
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt

from .base import ForumError, LoginFailed, PermanentError, TransientError, UncertainError
from .retries import read_wait

INVALID_KEY = "API username or key is invalid"


class _Retry(Exception):
    """A read that may work if tried again (a 5xx, a 429, a dropped connection)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


_read_wait = read_wait  # (the name the Discourse modules knew it by)


def topic_of(thread: str | None) -> int | None:
    """The topic id of a thread id `topic:<id>` (None if it is not one)."""
    m = re.fullmatch(r"topic:(\d+)", str(thread or ""))
    return int(m.group(1)) if m else None


def post_ref(ref: str | None) -> tuple[int, int, int] | None:
    """(topic, post number, post id) of a post id `<topic>/<number>/<id>`."""
    m = re.fullmatch(r"(\d+)/(\d+)/(\d+)", str(ref or ""))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def _utc(stamp: str | None) -> datetime:
    if not stamp:
        return datetime.now(timezone.utc)
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(timezone.utc)


def _errors(payload) -> str:
    """Discourse's own words for a refusal, in one line."""
    if isinstance(payload, dict):
        errs = payload.get("errors")
        if isinstance(errs, list) and errs:
            return " ".join(str(e) for e in errs)[:500]
        if isinstance(errs, dict):
            return " ".join(f"{k} {v}" for k, v in errs.items())[:500]
        for k in ("error", "message"):
            if payload.get(k):
                return str(payload[k])[:500]
    return ""



class DiscourseHTTP:
    """Requests to one Discourse site as one API user."""

    def __init__(self, url: str, api_key: str, api_username: str, session: requests.Session | None = None,
                 read_attempts: int = 3, backoff: float = 1.0, max_wait: float = 60.0,
                 timeout: float = 30.0, requests_per_minute: int | None = 60,
                 monotonic: Callable[[], float] = time.monotonic):
        self.base = url.rstrip("/")
        self.bot_name = api_username
        self.timeout = timeout
        self.session = session or requests.Session()
        self.session.headers.update({"Api-Key": api_key, "Api-Username": api_username,
                                     "Accept": "application/json",
                                     "User-Agent": "forumbot (Discourse adapter)"})
        self.requests_per_minute = requests_per_minute
        self._monotonic = monotonic
        self._sent: deque[float] = deque()  # when each request went out (the last minute)
        self._blocked_until = 0.0  # after a 429: no request before this
        self._lock = threading.Lock()
        self._retrying = Retrying(retry=retry_if_exception_type(_Retry), wait=_read_wait(backoff, max_wait),
                                  stop=stop_after_attempt(read_attempts), reraise=True)
        self.requests: list[tuple[str, str]] = []  # (method, path) of every request (tests, bench)

    def requests_left(self) -> int | None:
        """How many requests the last minute leaves of the site's API allowance (Discourse
        counts 60 a minute for all of a site's admin API keys together), by our own count."""
        if self.requests_per_minute is None:
            return None
        now = self._monotonic()
        with self._lock:
            while self._sent and self._sent[0] <= now - 60:
                self._sent.popleft()
            if now < self._blocked_until:
                return 0
            return max(0, self.requests_per_minute - len(self._sent))

    def _request(self, method: str, path: str, params=None, data=None) -> requests.Response:
        now = self._monotonic()
        if method != "GET" and now < self._blocked_until:  # (a read waits in its retries instead)
            raise TransientError(f"{method} {path}: rate limited for {self._blocked_until - now:.0f}s more",
                                 self._blocked_until - now)
        with self._lock:
            self._sent.append(now)
        self.requests.append((method, path))
        return self.session.request(method, self.base + path, params=params, data=data,
                                    timeout=self.timeout, allow_redirects=False)

    def _payload(self, r: requests.Response):
        try:
            return r.json()
        except ValueError:
            return None

    def _refusal(self, method: str, path: str, r: requests.Response, payload) -> ForumError | _Retry | None:
        """The error an answer means, or None for a success. 5xx and 429 come back as _Retry."""
        status = r.status_code
        said = _errors(payload)
        if status == 429:
            wait = None
            if isinstance(payload, dict):
                wait = (payload.get("extras") or {}).get("wait_seconds")
            if wait is None:
                try:
                    wait = float(r.headers.get("Retry-After", ""))
                except ValueError:
                    wait = 60.0
            wait = float(wait)
            self._blocked_until = max(self._blocked_until, self._monotonic() + wait)
            return _Retry(f"{method} {path}: rate limited ({said or 'too many requests'})", wait)
        if status >= 500:
            if isinstance(payload, dict) and payload.get("error_type") == "read_only":
                return _Retry(f"{method} {path}: the site is read-only: {said}", 60.0)
            return _Retry(f"{method} {path}: Discourse answered {status}{': ' + said if said else ''}")
        if status in (401, 403) and (INVALID_KEY in said or status == 401):
            return LoginFailed(f"Discourse refused the API key: {said or status} (check [discourse] "
                               "api_key and api_username)")
        if status in (400, 403, 404, 409, 410, 413, 422):
            return PermanentError(said or f"Discourse answered {status} to {method} {path}")
        if 300 <= status < 400:  # a login page, a moved site
            return _Retry(f"{method} {path}: redirected to {r.headers.get('Location', '?')}")
        if status >= 400:
            return PermanentError(said or f"Discourse answered {status} to {method} {path}")
        if payload is None:
            return _Retry(f"{method} {path}: the answer is not JSON")
        if isinstance(payload, dict) and payload.get("errors") and payload.get("success") is False:
            return PermanentError(said)
        return None

    def _get(self, path: str, params=None):
        """A read, tried again on 5xx, 429 and dropped connections (with backoff)."""
        def once():
            try:
                r = self._request("GET", path, params=params)
            except requests.RequestException as e:
                raise _Retry(f"GET {path}: {type(e).__name__}: {e}") from e
            payload = self._payload(r)
            error = self._refusal("GET", path, r, payload)
            if error is not None:
                raise error
            return payload
        try:
            return self._retrying(once)
        except _Retry as e:
            raise TransientError(str(e), e.retry_after) from e

    def _write(self, method: str, path: str, data: dict):
        """A write, sent once: what may have landed is uncertain, never tried again here."""
        try:
            r = self._request(method, path, data=data)
        except (requests.ConnectTimeout, requests.exceptions.SSLError) as e:
            raise TransientError(f"{method} {path}: {type(e).__name__}: {e}") from e
        except requests.ConnectionError as e:
            if _never_sent(e):
                raise TransientError(f"{method} {path}: cannot connect: {e}") from e
            raise UncertainError(f"{method} {path}: the connection broke: {e}") from e
        except requests.RequestException as e:
            raise UncertainError(f"{method} {path}: {type(e).__name__}: {e}") from e
        payload = self._payload(r)
        error = self._refusal(method, path, r, payload)
        if isinstance(error, _Retry):
            if r.status_code == 429 or (isinstance(payload, dict) and payload.get("error_type") == "read_only"):
                raise TransientError(str(error), error.retry_after)  # refused: nothing landed
            raise UncertainError(str(error))  # a 5xx after the write was sent: it may have landed
        if error is not None:
            raise error
        return payload


def _never_sent(e: requests.ConnectionError) -> bool:
    """Did the connection fail before the request went out (refused, no route, DNS)?"""

    reason = e.args[0] if e.args else None
    reason = getattr(reason, "reason", reason)
    return isinstance(reason, (urllib3.exceptions.NewConnectionError, urllib3.exceptions.NameResolutionError))

