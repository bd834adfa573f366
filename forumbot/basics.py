"""Small things the parts of the moderator share."""
from __future__ import annotations

from datetime import datetime, timezone

from . import store
from .store import Inbound


class Deferred(Exception):
    """A message comes after a deadline of its game that cannot close yet (the forum was not
    read up to it, or an earlier message waits): it is put back, to be handled after it."""

    def __init__(self, game: int):
        super().__init__(f"G{game}: a deadline before this message waits")
        self.game = game


def at_or_now(row: Inbound, clock) -> datetime:
    """When a reply was caused: the message's own time (deterministic on a re-run)."""
    return store.aware(row.created) if row.created else clock()


def cause(e: BaseException) -> BaseException:
    """The error that counts: after a full disk SQLite has rolled back already, and the
    rollback that follows fails, hiding what happened."""
    if "no transaction is active" in str(e) and e.__context__ is not None:
        return e.__context__
    return e


def utcnow() -> datetime:
    """The bot's own clock (the moderator's default; tests give theirs)."""
    return datetime.now(timezone.utc)
