"""A post a forum answers with that the adapter cannot name (no id, or one that is no whole
number): it is left out of the read, the rest of the read goes on, and it is logged once,
not each time a poll reads it again."""
from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("adapters")
LARGEST = 2**63 - 1  # (an id the database could not keep is no id)
REMEMBERED = 1000  # posts left out that are remembered, not to be logged again
# what tells one post from another on each forum (its time and author where its id is wrong)
SIGN = ("id", "post_number", "topic_id", "post_id", "thread_id", "message_id", "conversation_id", "name",
        "link_id", "created_at", "post_date", "message_date", "created_utc", "username", "author")


def whole(value: Any) -> int | None:
    """A whole number from 1 up, as a forum's JSON gives an id (a number, or its digits);
    None for anything else (a bool, a fraction, a word, a list)."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 20:
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= LARGEST:
        return value
    return None


class Unnamed:
    """The posts a forum's adapter left out, each logged once."""

    def __init__(self, forum: str):
        self.forum = forum
        self._logged: set[str] = set()

    def keep(self, posts: Any, keys: tuple[str, ...], where: str) -> list[dict]:
        """The posts (JSON objects) with a whole number in each of `keys`, those put as ints;
        every other entry is left out, and logged once."""
        out = []
        for p in posts if isinstance(posts, list) else []:
            ids = [whole(p.get(k)) for k in keys] if isinstance(p, dict) else [None]
            if None in ids:
                self.left_out(p, " and ".join(keys), where)
            else:
                out.append({**p, **dict(zip(keys, ids))})
        return out

    def left_out(self, post: Any, wanted: str, where: str) -> None:
        """Log, once for this post, that it was left out: it has no usable `wanted`."""
        sign = repr([(k, post[k]) for k in SIGN if k in post] if isinstance(post, dict) else post)[:300]
        if sign in self._logged:
            return
        if len(self._logged) < REMEMBERED:
            self._logged.add(sign)
        log.warning("%s: left out a post in %s with no usable %s: %s", self.forum, where, wanted, sign[:200])
