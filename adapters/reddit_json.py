"""Reddit's answers read as its JSON, with no praw object made: the comment listing that every
cycle reads (page by page, only as far back as the caller reads) and the comments of an
`/api/info` answer (the edit re-check). praw's objects cost far more CPU than the few fields
the bot reads; the requests still go through praw (its session, retries and errors)."""
from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from . import reddit_items as items
from .base import Inbound
from .unnamed import Unnamed

LAST_STAMP = 253402300800  # 10000-01-01: a later created_utc is no time


def children(answer: Any) -> list[dict]:
    """The things of a Listing answer (each with its `kind` and `data`)."""
    data = (answer.get("data") if isinstance(answer, dict) else None) or {}
    return data.get("children") or []


def pages(reddit, path: str, first: int, page: int, most: int) -> Iterator[dict]:
    """A listing's things (their `data`), newest first: a first page of `first`, then pages
    of `page`, each asked for only when the caller reads past the one before, `most` in all."""
    params: dict[str, str | int] = {"limit": min(first, most)}
    read = 0
    while True:
        answer = reddit.request(method="GET", path=path, params=dict(params))
        things = children(answer)
        for child in things:
            yield (child.get("data") if isinstance(child, dict) else None) or {}
            read += 1
            if read >= most:
                return
        after = ((answer.get("data") if isinstance(answer, dict) else None) or {}).get("after")
        if not things or not after or after == params.get("after"):
            return  # the listing ran out
        params = {"limit": min(page, most - read), "after": after}


def named(c: Any) -> bool:
    """Whether a comment's JSON has what the adapter names it by: an id (base 36) and the
    time it was made (seconds since 1970)."""
    if not isinstance(c, dict):
        return False
    cid, t = c.get("id"), c.get("created_utc")
    return (isinstance(cid, str) and re.fullmatch(r"[0-9a-z]{1,16}", cid) is not None
            and isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and 0 <= t < LAST_STAMP)


def live_comments(reddit, names: list[str], unnamed: Unnamed) -> list[Inbound]:
    """The comments `names` (fullnames) as they read now, in one `/api/info` request; a
    deleted or removed one is left out, and one the adapter cannot name (logged once)."""
    out = []
    for child in children(reddit.request(method="GET", path="api/info", params={"id": ",".join(names)})):
        c = (child.get("data") if isinstance(child, dict) else None) or {}
        if child.get("kind") != "t1" or c.get("body") in ("[deleted]", "[removed]"):
            continue
        if not named(c):
            unnamed.left_out(c, "id and created_utc", "the comments read again")
            continue
        out.append(items.comment_json(c, str(c.get("subreddit") or "").lower()))
    return out
