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

The session, the retries and what a write's failure means are the HTTP forums' own
(adapters/http_forum.py); this module says what XenForo's answers mean.
"""
from __future__ import annotations

import re
import time
from typing import Callable

import requests

from .base import ForumError, LoginFailed, PermanentError, TransientError
from .http_forum import HTTPForum, _Retry
from .retries import wait_seconds

FLOOD = "must_wait_x_seconds_before_performing_this_action"
_WAIT = re.compile(r"must wait at least (\d{1,6}) seconds", re.I)


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
    its English words where an add-on or a version names it otherwise), at least 1."""
    for e in errors_of(payload):
        words = _WAIT.search(str(e.get("message") or ""))
        if e.get("code") != FLOOD and words:
            return max(1.0, wait_seconds(words.group(1)))
        if e.get("code") == FLOOD:
            params = e.get("params")
            params = params if isinstance(params, dict) else {}
            return max(1.0, wait_seconds(params.get("count", 30), 30))
    return None


class XenForoHTTP(HTTPForum):
    """Requests to one XenForo site's API as the bot's account."""

    WAITING = "the forum asked to wait {:.0f}s more"

    def __init__(self, url: str, api_key: str, api_user: str, user_id: int | None = None,
                 session: requests.Session | None = None, read_attempts: int = 3, backoff: float = 1.0,
                 max_wait: float = 60.0, timeout: float = 30.0, requests_per_minute: int | None = None,
                 monotonic: Callable[[], float] = time.monotonic):
        self.base = url.rstrip("/")
        self.api = self.base + "/api"
        self.bot_name = api_user
        headers = {"XF-Api-Key": api_key, "Accept": "application/json", "User-Agent": "forumbot (XenForo adapter)"}
        if user_id:
            headers["XF-Api-User"] = str(int(user_id))
        super().__init__(self.api, headers, session=session, read_attempts=read_attempts, backoff=backoff,
                         max_wait=max_wait, timeout=timeout, requests_per_minute=requests_per_minute,
                         monotonic=monotonic)

    def _refusal(self, method: str, path: str, r: requests.Response, payload) -> ForumError | _Retry | None:
        """The error an answer means, or None for a success. 5xx and 429 come back as _Retry."""
        status = r.status_code
        words = said(payload)
        codes = {str(e.get("code") or "") for e in errors_of(payload)}
        wait = flood_wait(payload)
        if wait is not None:  # (on a read: never, but not a retry)
            return TransientError(f"{method} {path}: the flood check: {words}", self._wait(wait))
        if status == 429:
            after = self._wait(self._header_wait(r))
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

    def _write(self, path: str, data: dict | list):
        """A POST, sent once: what may have landed is uncertain, never tried again here."""
        return self._send("POST", path, data)
