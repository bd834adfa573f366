"""XenForo's HTTP side: one session with the API key, reads tried again (tenacity) and
writes sent once, and what each answer means in the adapters' error kinds.

What XenForo's REST API documentation and source say (docs.xenforo.com/api,
xenforo.com/docs/dev/rest-api, XF\\Api\\Controller\\*), and how it is read here:

- Every request carries `XF-Api-Key`; a super user key acts as the user whose id is in
  `XF-Api-User` (else as a guest). Bodies are `application/x-www-form-urlencoded`.
- Success is 200; an error is a 400-range status with `{"errors": [{code, message,
  params}]}` (more than one may come); a 500 means the server could not process it.
  The `code` is the phrase's name and is what is matched, never the message.
- A missing scope is a 403 (`assertApiScope`: phrase `api_error.missing_scope`); a key
  that is not found, a 401 or 403 with an `api_key_*` code: the login failed.
- The flood check (`assertNotFlooding`, for users without the `bypassFloodCheck`
  permission) is a 400 with code `must_wait_x_seconds_before_performing_this_action` and
  `params.count` the seconds left: transient, nothing landed.
- A page past the last is a 400 `invalid_page` with `params.max` (assertValidApiPage).

Guessed (the documentation is silent; the safe reading is taken): no API-wide rate limit
(a 429 is still honoured, with Retry-After); a 5xx after a write may have landed
(uncertain); a redirect is never followed (a login page, a moved site).
"""
from __future__ import annotations

import re
import threading
import time
from collections import deque
from typing import Callable

import requests
import urllib3
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt

from .base import ForumError, LoginFailed, PermanentError, TransientError, UncertainError
from .retries import read_wait

FLOOD = "must_wait_x_seconds_before_performing_this_action"
_WAIT = re.compile(r"must wait at least (\d{1,6}) seconds", re.I)


class _Retry(Exception):
    """A read that may work if tried again (a 5xx, a 429, a dropped connection)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


def errors_of(payload) -> list[dict]:
    """XenForo's `errors` entries of an answer (none if it has none)."""
    if isinstance(payload, dict) and isinstance(payload.get("errors"), list):
        return [e for e in payload["errors"] if isinstance(e, dict)]
    return []


def said(payload) -> str:
    """XenForo's own words for a refusal, in one line."""
    return " ".join(str(e.get("message") or e.get("code") or "") for e in errors_of(payload)).strip()[:500]


def flood_wait(payload) -> float | None:
    """The seconds the flood check asks to wait, if this answer is one (by its code, or by
    its English words where an add-on or a version names it otherwise)."""
    for e in errors_of(payload):
        words = _WAIT.search(str(e.get("message") or ""))
        if e.get("code") != FLOOD and words:
            return max(1.0, float(words.group(1)))
        if e.get("code") == FLOOD:
            params = e.get("params")
            params = params if isinstance(params, dict) else {}
            try:
                return max(1.0, float(params.get("count", 30)))
            except (TypeError, ValueError):
                return 30.0
    return None


class XenForoHTTP:
    """Requests to one XenForo site's API as the bot's account."""

    def __init__(self, url: str, api_key: str, api_user: str, user_id: int | None = None,
                 session: requests.Session | None = None, read_attempts: int = 3, backoff: float = 1.0,
                 max_wait: float = 60.0, timeout: float = 30.0, requests_per_minute: int | None = None,
                 monotonic: Callable[[], float] = time.monotonic):
        self.base = url.rstrip("/")
        self.api = self.base + "/api"
        self.bot_name = api_user
        self.timeout = timeout
        self.session = session or requests.Session()
        self.session.headers.update({"XF-Api-Key": api_key, "Accept": "application/json",
                                     "User-Agent": "forumbot (XenForo adapter)"})
        if user_id:
            self.session.headers["XF-Api-User"] = str(int(user_id))
        self.requests_per_minute = requests_per_minute
        self._monotonic = monotonic
        self._sent: deque[float] = deque()
        self._blocked_until = 0.0  # after a flood check or a 429: no write before this
        self._lock = threading.Lock()
        self._retrying = Retrying(retry=retry_if_exception_type(_Retry), wait=read_wait(backoff, max_wait),
                                  stop=stop_after_attempt(read_attempts), reraise=True)
        self.requests: list[tuple[str, str]] = []  # (method, path) of every request (tests, bench)

    def requests_left(self) -> int | None:
        now = self._monotonic()
        if now < self._blocked_until:
            return 0
        if self.requests_per_minute is None:
            return None
        with self._lock:
            while self._sent and self._sent[0] <= now - 60:
                self._sent.popleft()
            return max(0, self.requests_per_minute - len(self._sent))

    def _request(self, method: str, path: str, params=None, data=None) -> requests.Response:
        now = self._monotonic()
        if method != "GET" and now < self._blocked_until:
            raise TransientError(f"{method} {path}: the forum asked to wait {self._blocked_until - now:.0f}s more",
                                 self._blocked_until - now)
        with self._lock:
            self._sent.append(now)
        self.requests.append((method, path))
        return self.session.request(method, self.api + path, params=params, data=data,
                                    timeout=self.timeout, allow_redirects=False)

    @staticmethod
    def _payload(r: requests.Response):
        try:
            return r.json()
        except ValueError:
            return None

    def _refusal(self, method: str, path: str, r: requests.Response, payload) -> ForumError | _Retry | None:
        """The error an answer means, or None for a success. 5xx and 429 come back as _Retry."""
        status = r.status_code
        words = said(payload)
        codes = {str(e.get("code") or "") for e in errors_of(payload)}
        wait = flood_wait(payload)
        if wait is not None:
            self._blocked_until = max(self._blocked_until, self._monotonic() + wait)
            return TransientError(f"{method} {path}: the flood check: {words}", wait)
        if status == 429:
            try:
                after = float(r.headers.get("Retry-After", ""))
            except ValueError:
                after = 60.0
            self._blocked_until = max(self._blocked_until, self._monotonic() + after)
            return _Retry(f"{method} {path}: rate limited ({words or 'too many requests'})", after)
        if status >= 500:
            return _Retry(f"{method} {path}: XenForo answered {status}{': ' + words if words else ''}")
        if status == 401 or any(c.startswith(("api_key", "no_api_key")) for c in codes):
            return LoginFailed(f"XenForo refused the API key: {words or status} (check [xenforo] api_key, "
                               "and for a super user key, user_id)")
        if 300 <= status < 400:
            return _Retry(f"{method} {path}: redirected to {r.headers.get('Location', '?')}")
        if status >= 400:
            return PermanentError(words or f"XenForo answered {status} to {method} {path}")
        if payload is None:
            return _Retry(f"{method} {path}: the answer is not JSON")
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
            if isinstance(error, TransientError):  # (the flood check on a read: never, but not a retry)
                raise error
            if error is not None:
                raise error
            return payload
        try:
            return self._retrying(once)
        except _Retry as e:
            raise TransientError(str(e), e.retry_after) from e

    def _write(self, path: str, data: dict | list):
        """A POST, sent once: what may have landed is uncertain, never tried again here."""
        try:
            r = self._request("POST", path, data=data)
        except (requests.ConnectTimeout, requests.exceptions.SSLError) as e:
            raise TransientError(f"POST {path}: {type(e).__name__}: {e}") from e
        except requests.ConnectionError as e:
            if _never_sent(e):
                raise TransientError(f"POST {path}: cannot connect: {e}") from e
            raise UncertainError(f"POST {path}: the connection broke: {e}") from e
        except requests.RequestException as e:
            raise UncertainError(f"POST {path}: {type(e).__name__}: {e}") from e
        payload = self._payload(r)
        error = self._refusal("POST", path, r, payload)
        if isinstance(error, _Retry):
            if r.status_code == 429:
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
