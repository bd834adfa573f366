"""Answers to a sender: in the thread or by PM, with the flood guard (which never mutes
a host)."""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

from adapters.base import Outgoing

from . import store
from .basics import at_or_now
from .limits import REPLIES_PER_AUTHOR, REPLY_WINDOW, STATUS_EVERY
from .render.ops import defuse
from .render.posts import with_footer
from .store import Game, Inbound, Outbox

log = logging.getLogger("forumbot")



class Replies:
    """Answers to a sender: in the thread or by PM, with the flood guard (which never mutes
a host)."""

    def _public_status_recently(self, game: Game, at: datetime) -> bool:
        since = store.naive(at - timedelta(seconds=STATUS_EVERY))
        return Outbox.select().where(Outbox.key.startswith(f"{game.tag}:status:") &
                                     (Outbox.created_at > since)).exists()

    def _reply(self, row: Inbound, game: Game | None, text: str, i: int, private: bool = True,
               key: str | None = None) -> None:
        if not self._hosts_any(row.author) and self._flooding(row):
            log.info("not answering %s: %d answers in %ds already", row.author, REPLIES_PER_AUTHOR, REPLY_WINDOW)
            return
        text = defuse(text)  # it may quote what the sender wrote
        key = key or f"re:{self.forum.name}:{row.ext_id}:{i}"
        tag = game.tag if game else None
        if row.kind == "comment" and not private:
            out = Outgoing(key=key, kind="comment", body=f"u/{row.author}: {text}",
                           thread=row.thread, reply_to=row.ext_id)
        else:
            subject = f"{tag}: re: your message" if tag else "re: your message"
            body = with_footer(text, tag) if tag else text
            out = Outgoing(key=key, kind="pm", body=body, to=row.author, subject=subject)
        store.enqueue(out, game.id if game else None, at_or_now(row, self.clock))

    def _hosts_any(self, user: str) -> bool:
        """A host or cohost of a game that runs or takes sign-ups: always answered."""
        return user.casefold() in self._people()[0]

    def _flooding(self, row: Inbound) -> bool:
        """Has this sender had REPLIES_PER_AUTHOR answers in the last REPLY_WINDOW seconds?"""
        since = store.naive(at_or_now(row, self.clock) - timedelta(seconds=REPLY_WINDOW))
        answered = Outbox.select().where(
            (Outbox.key.startswith(f"re:{self.forum.name}:") | Outbox.key.startswith(f"pointer:{self.forum.name}:"))
            & (Outbox.created_at > since)
            & ((Outbox.to == row.author) | Outbox.body.startswith(f"u/{row.author}:"))).count()
        return answered >= REPLIES_PER_AUTHOR

    def status_text(self, game: Game) -> str:
        state = self.state(game)
        from .status import public_status
        return public_status(state, game.tag)
