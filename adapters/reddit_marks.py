"""The invisible mark at the end of every post the bot makes on Reddit: an empty link
`[](#fb-<token>)`, which Reddit renders as nothing. After an uncertain failure the bot's own
recent posts are searched for it, so a post that landed is never posted again."""
from __future__ import annotations

import hashlib
import re

import prawcore

from .base import Outgoing, TransientError


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


MARK_TOKEN = re.compile(r"\[\]\(#fb-([0-9a-f]{16,64})\)")


def own_marks(reddit, bot_name: str, page: int) -> list[str]:
    """The marker tokens in the bot's newest comments, threads and sent PMs (three requests).
    A listing that cannot be read (the sent PMs, where Reddit moved them to Chat) is left out;
    if none can be read, the error is raised."""


    me = reddit.redditor(bot_name)
    listings = (lambda: me.comments.new(limit=page), lambda: me.submissions.new(limit=page),
                lambda: reddit.inbox.sent(limit=page))
    tokens: list[str] = []
    errors = []
    for listing in listings:
        try:
            for thing in listing():
                tokens += MARK_TOKEN.findall(getattr(thing, "body", None) or getattr(thing, "selftext", None) or "")
        except prawcore.PrawcoreException as e:
            errors.append(str(e))
    if len(errors) == len(listings):
        raise TransientError(f"reading the bot's own posts: {errors[0]}")
    return tokens
