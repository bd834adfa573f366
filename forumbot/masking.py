"""Credentials are never printed or logged. `masked(url)` hides the password of a URL
(`postgresql://u:***@host/db`); `masked_text(text)` does it to every URL in a text (an
exception's message may quote a DSN), to a libpq `password=...` and to every secret the
settings hold (`remember_secrets`, called by the settings loader: a Reddit client_secret
or password, a Discourse api_key). `MaskingFilter` applies it to every log record the
bot's log handler writes, as the last line of defence."""
from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from functools import lru_cache

MASK = "***"
# scheme://user:password@ : the password runs to the last @ before a space (within 256
# characters, so that a long text is scanned in linear time), so that an unencoded @ or /
# in it is hidden whole (an over-masked path is the lesser harm)
_URL_CREDENTIALS = re.compile(r"(?P<head>://[^\s:/@]{0,256}:)(?P<pw>\S{0,256})@")
_NOT_A_PORT = re.compile(r"(?P<head>^[A-Za-z][A-Za-z0-9+.\-]*:/*[^:/]*:)(?P<port>[^/]+)")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:/{0,3}")
PLACEHOLDER = "password"  # the examples' postgresql://user:password@host/dbname stays readable
# libpq's key=value DSN (psycopg2 may quote one back): password=pw or password='p w'
_DSN_PASSWORD = re.compile(r"(?P<head>\b(?:password|passwd|sslpassword)\s*=\s*)"
                           r"(?:'(?:[^'\\]|\\.)*'|[^'\"& \t\r\n]+)", re.I)
# ?password=pw in a URL: to the next &key= (an unencoded & is the password's, not a new key)
_QUERY_PASSWORD = re.compile(r"(?P<head>[?&;](?:password|passwd|sslpassword)=)(?:[^&]|&(?![A-Za-z_]\w*=))*", re.I)
SHORTEST_SECRET = 4  # a shorter "secret" would mask ordinary words (and guards little)

_secrets: set[str] = set()


def masked(url: str) -> str:
    """A URL with its password (if any) shown as ***: postgresql://u:***@host/db. Everything
    between the user's colon and the last @ is hidden, even in a URL that does not parse
    (postgresql:/u:pw@host, an unencoded @ or / in the password)."""
    url = _known_secrets(url)
    url = _QUERY_PASSWORD.sub(lambda m: f"{m.group('head')}{MASK}", url)  # ?password=pw
    if "@" not in url:  # scheme://user:pass with the rest cut off (by a ; comment): not a port
        return _NOT_A_PORT.sub(lambda m: m.group(0) if m.group("port").isdigit() else f"{m.group('head')}{MASK}", url)
    head, _, tail = url.rpartition("@")
    m = _SCHEME.match(head)
    prefix = m.group(0) if m else ""
    user, colon, password = head[len(prefix):].partition(":")
    if not colon and prefix.endswith(":"):  # user:password@host, with no scheme: the "scheme" is the user
        user, colon, password, prefix = prefix[:-1], ":", user, ""
    if not colon or password == PLACEHOLDER:
        return url  # no password: a user alone, or a path with an @ in it
    if any(c.isspace() or c == "/" for c in user):
        user = MASK
    return f"{prefix}{user}:{MASK}@{tail}"


def _masked_urls(text: str) -> str:
    return _URL_CREDENTIALS.sub(
        lambda m: m.group(0) if m.group("pw") == PLACEHOLDER else f"{m.group('head')}{MASK}@", text)


def masked_text(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every URL's password, every DSN password, and every known secret (the
    settings' and `secrets`) shown as ***."""
    text = _known_secrets(text, secrets)  # (first: what follows may cut a secret in two)
    text = _masked_urls(text)
    return _DSN_PASSWORD.sub(lambda m: f"{m.group('head')}{MASK}", text)


def _known_secrets(text: str, secrets: Iterable[str] = ()) -> str:
    known = frozenset({*_secrets, *(s for s in secrets if len(s) >= SHORTEST_SECRET)})
    return _secrets_pattern(known).sub(MASK, text) if known else text


@lru_cache(maxsize=16)
def _secrets_pattern(known: frozenset[str]) -> re.Pattern:
    """Any of the secrets, as a whole word (a secret `secret` leaves `client_secret` be)."""
    words = "|".join(re.escape(s) for s in sorted(known, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{words})(?!\w)")


def remember_secrets(values: Iterable[str]) -> None:
    """The secrets of the settings just loaded (in place of the last ones): no log line and
    no message may show them."""
    _secrets.clear()
    _secrets.update(v for v in values if v and len(v) >= SHORTEST_SECRET)


def forget_secrets() -> None:
    _secrets.clear()


class MaskingFilter(logging.Filter):
    """Masks credentials in a record's message and in its traceback text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: let the handler report it
            return True
        clean = masked_text(message)
        if clean != message:
            record.msg, record.args = clean, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = masked_text(record.exc_text)
        if record.stack_info:
            record.stack_info = masked_text(record.stack_info)
        return True


def scrub(exc: BaseException) -> BaseException:
    """Mask the credentials in an exception's text (and in those it was raised from), so
    that no traceback that shows it later shows them; returns it, to be raised again."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        try:
            e.args = tuple(masked_text(a) if isinstance(a, str) else a for a in e.args)
        except Exception:  # an exception type whose args cannot be set: its text stays
            pass
        todo += [e.__cause__, e.__context__, getattr(e, "orig", None)]
    return exc
