"""Discourse's HTTP side: one session, the site-wide request allowance, reads tried again
(tenacity) and writes sent once, and what each answer means in the adapters' error kinds.

- 429 is transient, with Discourse's `extras.wait_seconds` (or `Retry-After`); a write is
  not sent while the site's wait runs, a read waits it out in its retries.
- A 5xx or a dropped connection after a write was sent is uncertain (it may have landed);
  a connection that never opened is transient; a read-only site refuses a write whole.
- 403, 404 and 422 are permanent, with Discourse's own `errors`; "The API username or key
  is invalid" is a failed login.

The session, the allowance, the retries and what a write's failure means are the HTTP
forums' own (adapters/http_forum.py); this module says what Discourse's answers mean.

pydiscourse is not used: it sleeps inside a call and retries on 429 (up to four times,
blocking the cycle for minutes), sends with no timeout by default and no session, and
folds a 5xx on a POST and one on a GET into the same error, where the outbox must know
which writes may have landed.
"""
from __future__ import annotations

import re
import time
from datetime import datetime, timezone
from typing import Callable

import requests

from .base import ForumError, LoginFailed, PermanentError
from .http_forum import HTTPForum, _Retry

INVALID_KEY = "API username or key is invalid"


def topic_of(thread: str | None) -> int | None:
    """The topic id of a thread id `topic:<id>` (None if it is not one)."""
    m = re.fullmatch(r"topic:(\d+)", str(thread or ""))
    return int(m.group(1)) if m else None


def post_ref(ref: str | None) -> tuple[int, int, int] | None:
    """(topic, post number, post id) of a post id `<topic>/<number>/<id>`."""
    m = re.fullmatch(r"(\d+)/(\d+)/(\d+)", str(ref or ""))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def _utc(stamp: str | None) -> datetime:
    """A post's time as Discourse writes it (ISO 8601); now, where it is missing or not one
    (as on XenForo)."""
    try:
        return datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return datetime.now(timezone.utc)


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


def _read_only(payload) -> bool:
    return isinstance(payload, dict) and payload.get("error_type") == "read_only"


class DiscourseHTTP(HTTPForum):
    """Requests to one Discourse site as one API user."""

    def __init__(self, url: str, api_key: str, api_username: str, session: requests.Session | None = None,
                 read_attempts: int = 3, backoff: float = 1.0, max_wait: float = 60.0,
                 timeout: float = 30.0, requests_per_minute: int | None = 60,
                 monotonic: Callable[[], float] = time.monotonic):
        self.base = url.rstrip("/")
        self.bot_name = api_username
        # (Discourse counts 60 requests a minute for all of a site's admin API keys together)
        super().__init__(self.base, {"Api-Key": api_key, "Api-Username": api_username,
                                     "Accept": "application/json", "User-Agent": "forumbot (Discourse adapter)"},
                         session=session, read_attempts=read_attempts, backoff=backoff, max_wait=max_wait,
                         timeout=timeout, requests_per_minute=requests_per_minute, monotonic=monotonic)

    def _refusal(self, method: str, path: str, r: requests.Response, payload) -> ForumError | _Retry | None:
        """The error an answer means, or None for a success. 5xx and 429 come back as _Retry."""
        status = r.status_code
        said = _errors(payload)
        if status == 429:
            extras = payload.get("extras") if isinstance(payload, dict) else None
            wait = self._wait((extras if isinstance(extras, dict) else {}).get("wait_seconds"),
                              self._header_wait(r))
            return _Retry(f"{method} {path}: rate limited ({said or 'too many requests'})", wait)
        if status >= 500:
            if _read_only(payload):
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

    def _refused_whole(self, r: requests.Response, payload) -> bool:
        return r.status_code == 429 or _read_only(payload)  # a read-only site refuses a write whole

    _write = HTTPForum._send
