"""Reddit's errors as the adapter's kinds (transient, uncertain, permanent, login), and the
one-shot POSTs that keep prawcore from posting a reply twice."""
from __future__ import annotations

import re
import time
from typing import Any, Callable
from urllib.parse import urlsplit

import praw
import prawcore
from praw.exceptions import RedditAPIException
from prawcore.sessions import FiniteRetryStrategy

from .base import ForumError, LoginFailed, PermanentError, TransientError, UncertainError
from .retries import header_wait, wait_seconds

PERMANENT_PREFIXES = ("SUBMIT_VALIDATION",)  # the title or body breaks a rule of the subreddit
PERMANENT_API_ERRORS = {
    "THREAD_LOCKED", "TOO_OLD", "DELETED_LINK", "DELETED_COMMENT", "USER_DOESNT_EXIST",
    "NOT_WHITELISTED_BY_USER_MESSAGE", "USER_BLOCKED_MESSAGE", "SUBREDDIT_NOEXIST",
    "SUBREDDIT_NOTALLOWED", "NO_TEXT", "TOO_LONG", "BAD_SR_NAME", "INVALID_USER",
}


def write_error(e: Exception) -> ForumError:
    """What a failed write means, from praw's or prawcore's error."""
    if isinstance(e, RedditAPIException):
        return _api_error(e)
    if isinstance(e, prawcore.TooManyRequests):
        return TransientError(str(e), wait_seconds(e.retry_after))
    if isinstance(e, prawcore.OAuthException):  # the login failed: nothing was sent
        return LoginFailed(f"login failed: {e}")
    if isinstance(e, prawcore.ResponseException):
        if _at_token_endpoint(e):  # a revoked refresh token, a wrong client id: nothing sent
            return LoginFailed(f"login failed: {e}")
        if isinstance(e, (prawcore.Forbidden, prawcore.NotFound)):
            return PermanentError(str(e))
        if isinstance(e, prawcore.BadRequest):  # a 400: Reddit will not take this as it is
            return PermanentError(f"Reddit refused it: {_reason(e)}")
        return UncertainError(str(e))  # a 5xx: it may have landed
    return UncertainError(one_line(e))  # a timeout, a dropped connection


def one_line(e: BaseException) -> str:
    """praw's or prawcore's error in one short line: a request that got no answer (refused,
    timed out, no such host) as "cannot connect to HOST (why)", naming the host that failed
    (www.reddit.com for the login, oauth.reddit.com for the rest), not urllib3's
    "error with request HTTPConnectionPool(...): Max retries exceeded ..." paragraph."""
    if isinstance(e, prawcore.RequestException):
        return f"cannot connect to {failed_host(e)} ({network_reason(e)})"
    return re.sub(r"\s+", " ", str(e)).strip() or type(e).__name__


def failed_host(e: BaseException) -> str:
    """The host (and port, unless the scheme's own) a request without an answer went to."""
    args: tuple = getattr(e, "request_args", None) or ()
    url = str(args[1]) if len(args) > 1 else ""
    parts = urlsplit(url) if "://" in url else None
    if parts is not None and parts.hostname:
        default = {"https": 443, "http": 80}.get(parts.scheme)
        port = parts.port
        return parts.hostname if port in (None, default) else f"{parts.hostname}:{port}"
    m = re.search(r"host='([^']+)', port=(\d+)", str(getattr(e, "original_exception", None) or e))
    if m:
        return m.group(1) if m.group(2) in ("443", "80") else f"{m.group(1)}:{m.group(2)}"
    return "Reddit"


def network_reason(e: BaseException) -> str:
    """Why a request got no answer, in a few words ("Connection refused", "timed out")."""
    original = getattr(e, "original_exception", None) or e
    text = str(original)
    m = re.search(r"\[Errno -?\d+\] ([^'\")\]]+)", text)
    if m:
        return m.group(1).strip()
    for phrase in ("timed out", "Name or service not known", "Temporary failure in name resolution",
                   "Connection refused", "certificate verify failed"):
        if phrase.lower() in text.lower():
            return phrase
    return type(original).__name__


def single_shot_posts(reddit: praw.Reddit) -> None:
    """Stop prawcore from re-sending a POST after a 5xx or a timeout.

    prawcore retries those, POSTs included, and Reddit sometimes keeps a comment that it
    answered with an error: the retry then posts it twice. Here a failed POST surfaces at
    once as an UncertainError, and the outbox looks for the post's key before trying
    again. GETs keep prawcore's retries. This wraps a private prawcore method; the test
    `test_commit_then_fail_on_a_post_is_not_duplicated` fails if prawcore changes it."""

    class NoRetry(FiniteRetryStrategy):
        def _sleep_seconds(self):
            return None

    cores: tuple[Any, ...] = (reddit._core, reddit._authorized_core)
    for core in {id(c): c for c in cores if c is not None}.values():
        if getattr(core, "_forumbot_single_shot", False):
            continue
        original = core._request_with_retries

        def request(*args, _original=original, method, retry_strategy_state=None, **kw):
            if method != "GET" and retry_strategy_state is None:
                retry_strategy_state = NoRetry(retries=0)
            return _original(*args, method=method, retry_strategy_state=retry_strategy_state, **kw)

        core._request_with_retries = request
        core._forumbot_single_shot = True


def believed_waits(reddit: praw.Reddit, wall: Callable[[], float] = time.time) -> None:
    """Make a 429's Retry-After header the wait the bot believes, before prawcore reads it:
    its seconds from 0 to LONGEST_WAIT, or for an HTTP date the seconds until then (from the
    answer's Date header, else `wall`), or DEFAULT_WAIT where it says neither. prawcore's
    TooManyRequests takes float() of the header, and a date or a word would raise ValueError
    out of every read and write. (A hook on the requests session prawcore sends through.)"""

    def hook(r, *args, **kw):
        said = r.headers.get("Retry-After") if r.status_code == 429 else None
        if said is not None:
            r.headers["Retry-After"] = repr(wait_seconds(header_wait(said, r.headers.get("Date"), wall())))
        return r

    cores: tuple[Any, ...] = (reddit._core, reddit._read_only_core, getattr(reddit, "_authorized_core", None))
    for requestor in {id(c.requestor): c.requestor for c in cores if c is not None}.values():
        hooks = requestor.hooks["response"]  # (prawcore's Requestor passes these to its session)
        if hook.__qualname__ not in {getattr(h, "__qualname__", "") for h in hooks}:
            hooks.append(hook)


def _api_error(e: RedditAPIException) -> ForumError:
    for item in e.items:
        if item.error_type == "RATELIMIT":
            m = re.search(r"(\d+)\s*(second|minute|ms)", item.message or "")
            wait = 60.0
            if m:
                wait = float(m.group(1)) * {"second": 1, "minute": 60, "ms": 0.001}[m.group(2)]
            return TransientError(str(e), wait + 1)
        if item.error_type in PERMANENT_API_ERRORS or item.error_type.startswith(PERMANENT_PREFIXES):
            return PermanentError(item.message or str(e))
    if isinstance(e.__cause__, prawcore.BadRequest):  # a 400 with no JSON (praw wraps its HTML)
        return PermanentError(f"Reddit refused it: {_reason(e.__cause__)}")
    return TransientError(str(e), 60.0)


def _reason(e: prawcore.ResponseException) -> str:
    """Reddit's words for a refusal, from a JSON or an HTML body, in one short line."""
    text = getattr(getattr(e, "response", None), "text", "") or str(e)
    text = re.sub(r"<[^>]+>", " ", text)
    return " ".join(text.split())[:300] or str(e)


def _at_token_endpoint(e: prawcore.ResponseException) -> bool:
    url = str(getattr(getattr(e, "response", None), "url", "") or "")
    return url.rstrip("/").endswith("/api/v1/access_token")
