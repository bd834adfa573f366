"""What the forums behind a JSON API over HTTP share (Discourse, XenForo): one session, the
request allowance and a forum's "wait" (429, a flood check), reads tried again (tenacity)
and writes sent once, the invisible marker's token, and the steps of `find_posted` and
`own_marks` around each forum's own reads. What each answer means is the forum's own
(`_refusal`, in discourse_http.py and xenforo_http.py); so are its ids, reads and writes.

- A read that fails in a way that may pass (a 5xx, a 429, a dropped connection, a redirect,
  an answer that is not JSON) is tried again, waiting the forum's own wait where it gave
  one, else backing off; after the last try it is transient.
- A write is sent once: refused whole (a 429, a connection that never opened) it is
  transient, nothing landed; a 5xx or a broken connection after it was sent is uncertain
  (it may have landed, and the outbox looks for its marker before sending it again).
- A forum's wait is believed only as a number of seconds from 0 to LONGEST_WAIT: a
  string, null, a negative or endless one is not a wait (DEFAULT_WAIT is taken), and a
  longer one is cut to LONGEST_WAIT, so that no answer can raise or stop writes for good.
  A Retry-After header may give an HTTP date instead: its wait is the seconds from the
  answer's Date header (else the bot's clock, `wall`) until then, from 0 to LONGEST_WAIT.
"""
from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import deque
from typing import Callable, Iterable
from urllib.parse import urlparse

import requests
import urllib3
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt

from .base import ForumBase, ForumError, LoginFailed, Outgoing, Posted, TransientError, UncertainError
from .retries import header_wait, read_wait, wait_seconds

CUT = "\n\n(The rest of this message was cut: it was longer than the forum takes.)"


class _Retry(Exception):
    """A read that may work if tried again (a 5xx, a 429, a dropped connection)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


def token(out: Outgoing | str) -> str:
    """The token of an outbox item's invisible marker (keyed with the database's secret)."""
    if isinstance(out, str):
        return hashlib.sha256(out.encode()).hexdigest()[:16]
    return out.token or hashlib.sha256(out.key.encode()).hexdigest()[:16]


def cut(body: str, limit: int, room: int) -> str:
    """`body` cut to fit `limit` with `room` to spare for the marker (a backstop: the outbox
    fits every body before), saying it was cut."""
    if len(body) > limit - room:
        body = body[:limit - room - len(CUT)].rstrip() + CUT
    return body


def norm_title(title: str) -> str:
    """A title as compared when looking for a post: letters and digits, casefolded."""
    return re.sub(r"[^0-9a-z]+", "", (title or "").casefold())


def mention(body: str) -> str:
    """A reply written before replies used the forum's own mention (`u/name:`, in an outbox
    of an older version) starts with an @mention instead, which tells them."""
    return re.sub(r"^u/([^\s:]+):", r"@\1:", body, count=1)


def web_address(s: dict[str, str], needs: Iterable[str]) -> str:
    """The settings' `url`, after checking that every needed key is filled in."""
    missing = [k for k in needs if not s.get(k)]
    if missing:
        raise ValueError(f"fill in {', '.join(missing)}")
    url = s["url"].strip()
    if urlparse(url).scheme not in ("http", "https") or not urlparse(url).netloc:
        raise ValueError(f"url = {url[:80]}: not a web address like https://forum.example.org")
    return url


def never_sent(e: requests.ConnectionError) -> bool:
    """Did the connection fail before the request went out (refused, no route, DNS)?"""
    reason = e.args[0] if e.args else None
    reason = getattr(reason, "reason", reason)
    return isinstance(reason, (urllib3.exceptions.NewConnectionError, urllib3.exceptions.NameResolutionError))


class HTTPForum(ForumBase):
    """Requests to one forum's JSON API as the bot's account. A forum's module gives its
    `_refusal` (what an answer means) and, where it has one, `_refused_whole`."""

    WAITING = "rate limited for {:.0f}s more"  # a write held back while the forum's wait runs

    def __init__(self, root: str, headers: dict[str, str], session: requests.Session | None = None,
                 read_attempts: int = 3, backoff: float = 1.0, max_wait: float = 60.0, timeout: float = 30.0,
                 requests_per_minute: int | None = 60, monotonic: Callable[[], float] = time.monotonic):
        self.root = root  # what every request's path follows
        self.timeout = timeout
        self.session = session or requests.Session()
        self.session.headers.update(headers)
        self.requests_per_minute = requests_per_minute
        self._monotonic = monotonic
        self._sent: deque[float] = deque()  # when each request went out (the last minute)
        self._blocked_until = 0.0  # after a 429 or a flood check: no write before this
        self._lock = threading.Lock()
        self._retrying = Retrying(retry=retry_if_exception_type(_Retry), wait=read_wait(backoff, max_wait),
                                  stop=stop_after_attempt(read_attempts), reraise=True)
        self.requests: list[tuple[str, str]] = []  # (method, path) of every request (tests, bench)
        self.wall: Callable[[], float] = time.time  # the bot's clock, for a Retry-After date

    def _header_wait(self, r: requests.Response) -> float | str | None:
        """The wait an answer's Retry-After header asks for (retries.header_wait)."""
        return header_wait(r.headers.get("Retry-After"), r.headers.get("Date"), self.wall())

    def requests_left(self) -> int | None:
        """How many requests the last minute leaves of the forum's allowance, by our own
        count (None: no allowance known); none while the forum's wait runs."""
        now = self._monotonic()
        if now < self._blocked_until:
            return 0
        if self.requests_per_minute is None:
            return None
        with self._lock:
            while self._sent and self._sent[0] <= now - 60:
                self._sent.popleft()
            return max(0, self.requests_per_minute - len(self._sent))

    def _wait(self, *said) -> float:
        """The forum asked to wait (`said`: its words for how long, best first): the wait
        believed, and no write goes out before it has passed."""
        wait = wait_seconds(*said)
        self._blocked_until = max(self._blocked_until, self._monotonic() + wait)
        return wait

    def _request(self, method: str, path: str, params=None, data=None) -> requests.Response:
        now = self._monotonic()
        if method != "GET" and now < self._blocked_until:  # (a read waits in its retries instead)
            left = self._blocked_until - now
            raise TransientError(f"{method} {path}: {self.WAITING.format(left)}", left)
        with self._lock:
            self._sent.append(now)
        self.requests.append((method, path))
        return self.session.request(method, self.root + path, params=params, data=data,
                                    timeout=self.timeout, allow_redirects=False)

    @staticmethod
    def _payload(r: requests.Response):
        try:
            return r.json()
        except ValueError:
            return None

    def _refusal(self, method: str, path: str, r: requests.Response, payload) -> ForumError | _Retry | None:
        """The error an answer means, or None for a success; what may pass if tried again
        (a 5xx, a 429) comes back as _Retry."""
        raise NotImplementedError

    def _refused_whole(self, r: requests.Response, payload) -> bool:
        """Whether a write's answer that reads as _Retry means nothing landed (a 429 does)."""
        return r.status_code == 429

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

    def _send(self, method: str, path: str, data):
        """A write, sent once: what may have landed is uncertain, never tried again here."""
        try:
            r = self._request(method, path, data=data)
        except (requests.ConnectTimeout, requests.exceptions.SSLError) as e:
            raise TransientError(f"{method} {path}: {type(e).__name__}: {e}") from e
        except requests.ConnectionError as e:
            if never_sent(e):
                raise TransientError(f"{method} {path}: cannot connect: {e}") from e
            raise UncertainError(f"{method} {path}: the connection broke: {e}") from e
        except requests.RequestException as e:
            raise UncertainError(f"{method} {path}: {type(e).__name__}: {e}") from e
        payload = self._payload(r)
        error = self._refusal(method, path, r, payload)
        if isinstance(error, _Retry):
            if self._refused_whole(r, payload):
                raise TransientError(str(error), error.retry_after)  # refused: nothing landed
            raise UncertainError(str(error))  # a 5xx after the write was sent: it may have landed
        if error is not None:
            raise error
        return payload

    # --- after an uncertain failure, and doctor's marker check --------------------------

    def find_posted(self, out: Outgoing) -> Posted | None:
        """After an uncertain failure: the item, if it landed after all (the forum's
        `_find`); a read that fails is transient, a failed login stays one."""
        try:
            return self._find(out)
        except LoginFailed:
            raise
        except ForumError as e:
            raise TransientError(f"looking for {out.key}: {e}") from e

    def _find(self, out: Outgoing) -> Posted | None:
        raise NotImplementedError

    @staticmethod
    def _marks_in(reads: Iterable[Callable[[], list[str]]], pattern: re.Pattern) -> list[str]:
        """The marker tokens in the texts each read gives; a read that fails is left out,
        unless every one does."""
        tokens, errors, tried = [], [], 0
        for read in reads:
            tried += 1
            try:
                tokens += [tok for text in read() for tok in pattern.findall(text)]
            except LoginFailed:
                raise
            except ForumError as e:
                errors.append(str(e))
        if errors and len(errors) == tried:
            raise TransientError(f"reading the bot's own posts: {errors[0]}")
        return tokens


# --- doctor's login check, the same on each forum -------------------------------------------


def login(read_me: Callable[[], dict], where: str, skipped: Iterable[str]):
    """`forumbot doctor`'s first check: yields its failure where the key cannot be used (and
    each check in `skipped` as skipped where the login itself failed), and returns who the
    key acts as (None: the checks stop there)."""
    try:
        return read_me()
    except LoginFailed as e:
        yield "fail", "login", str(e)
        for name in skipped:
            yield "skip", name, "not checked: the login failed"
    except ForumError as e:
        yield "fail", "login", f"cannot use {where}: {e}"
    return None


def acts_as(name: str, username: str | None, setting: str, mention: str = "") -> tuple[str, str, str]:
    """doctor's line on whom the key acts as (`name`, shown after the forum's `mention`),
    against the name the settings give (`setting`: where)."""
    shown = mention + name
    if username and name.casefold() != username.casefold():
        return "fail", "login", (f"the key acts as {shown}, but {setting} is {username}: the bot would take "
                                 "its own posts for players'")
    return "ok", "login", f"the API key acts as {shown}"
