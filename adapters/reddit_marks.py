"""The invisible mark at the end of every post the bot makes on Reddit: an empty link
`[](#fb-<token>)`, which Reddit renders as nothing. After an uncertain failure the bot's own
recent posts are searched for it, so a post that landed is never posted again."""
from __future__ import annotations

import hashlib
import re

from .base import Outgoing


def marker(out: Outgoing | str) -> str:
    """The invisible mark of an outbox item: its token, keyed with the database's secret, so
    that no player can plant it and a new database never adopts an old one's posts."""
    return "[](#fb-" + _token(out) + ")"


def _token(out: Outgoing | str) -> str:
    if isinstance(out, str):  # a bare key (tests, tools): unkeyed
        return hashlib.sha256(out.encode()).hexdigest()[:16]
    return out.token or hashlib.sha256(out.key.encode()).hexdigest()[:16]


_PLANTED = re.compile(r"\[[^\]\n]*\]\(\s*#fb-[^)\n]*\)")


def _unmarked(body: str) -> str:
    """A body with any marker-shaped link taken out: only the adapter writes markers."""
    return _PLANTED.sub("", body)
