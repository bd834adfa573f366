"""Reddit's things as the adapter's messages: a comment (under the thread id the bot knows its
game by), the mail no one may answer (from Reddit's staff or a subreddit), and Reddit's
timestamps (seconds since 1970, as a float)."""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from .base import Inbound


def comment(c, sub: str) -> Inbound:
    """A comment of the subreddit `sub` (lower case), as read from a listing or info()."""
    return Inbound(id=c.id, kind="comment", author=str(c.author) if c.author else "[deleted]",
                   body=c.body, created=utc(c.created_utc),
                   thread=f"{sub}:{c.link_id.removeprefix('t3_')}", edited=bool(c.edited))


def comment_json(d: dict, sub: str) -> Inbound:
    """The same from Reddit's JSON of the comment (a listing's or info()'s child's `data`):
    no praw object is made (the listing read of every cycle)."""
    author = d.get("author")
    return Inbound(id=d["id"], kind="comment", author=author if author and author != "[deleted]" else "[deleted]",
                   body=d.get("body") or "", created=utc(d["created_utc"]),
                   thread=f"{sub}:{str(d.get('link_id') or '').removeprefix('t3_')}", edited=bool(d.get("edited")))


def by_subreddit(threads) -> dict[str, dict[str, str]]:
    """Game threads ("subreddit:id") by subreddit (one listing each): link -> the thread id."""
    out: dict[str, dict[str, str]] = {}
    for t in threads:
        sub, _, sid = t.partition(":")
        out.setdefault(sub.lower(), {})[f"t3_{sid}"] = t
    return out


def with_thread(c: Inbound, thread: str) -> Inbound:
    """A comment under the thread id the bot knows its game by (however its case)."""
    return replace(c, thread=thread)


def origin(item) -> str:
    """Mail no one may answer: from Reddit's staff, or from a subreddit (its mail, modmail)."""
    if getattr(item, "distinguished", None) == "admin" or str(item.author or "").lower() == "reddit":
        return "admin"
    if item.author is None or getattr(item, "subreddit", None) is not None:
        return "subreddit"
    return ""


def utc(ts: float) -> datetime:
    return datetime.fromtimestamp(float(ts), timezone.utc)
