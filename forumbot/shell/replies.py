"""Answers to a sender: in the thread or by PM, with the flood guard (which never mutes
a host); and who the bot knows (People)."""
from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from adapters.base import Outgoing

from .. import store
from ..basics import at_or_now
from ..limits import REPLIES_PER_AUTHOR, REPLY_WINDOW, STATUS_EVERY
from ..render.markup import shown_as_text
from ..render.ops import defuse
from ..render.status import public_status
from ..render.words import with_footer
from ..store import Game, Inbound, Outbox
from .games import GameBook

log = logging.getLogger("forumbot")


class People:
    """(hosts and cohosts, everyone else the bot knows) of the games that run or take
    sign-ups, case-folded; worked out once a cycle (and after a new game or seat)."""

    def __init__(self, book: GameBook, hosts: set[str] | None = None):
        self.book = book
        self.hosts = {h.casefold() for h in hosts} if hosts else set()  # the allow-list
        self._cache: tuple[set[str], set[str]] | None = None
        self._version = -1

    def forget(self) -> None:
        self._cache = None

    def _people(self) -> tuple[set[str], set[str]]:
        if self._cache is None or self._version != self.book.people_version:
            hosts: set[str] = set()
            known: set[str] = set()
            dealt = {}
            for g in self.book.running() + self.book.signup_games():
                cfg = g.game_config()
                hosts.update(h.casefold() for h in (cfg.host, *cfg.cohosts))
                known.update(r.casefold() for r in (*cfg.reserves, *cfg.spectators))
                if g.status == "running":
                    dealt[g.id] = cfg.players
            for names in self.book.seated(dealt).values():  # (no game replayed for it)
                known.update(n.casefold() for n in names)
            self._cache = (hosts, known | hosts)
            self._version = self.book.people_version
        return self._cache

    def known(self, user: str) -> bool:
        """Someone the bot answers whatever they write: a player, host, cohost, spectator
        or reserve of a running game, or a host on the allow-list."""
        folded = user.casefold()
        return folded in self.hosts or folded in self._people()[1]

    def hosts_any(self, user: str) -> bool:
        """A host or cohost of a game that runs or takes sign-ups: always answered."""
        return user.casefold() in self._people()[0]

    def may_start(self, user: str) -> bool:
        return not self.hosts or user.casefold() in self.hosts


class Answers:
    """Replies to the sender of a message, by the message's own time."""

    def __init__(self, forum_name: str, clock: Callable[[], datetime], people: People, book: GameBook,
                 mention: Callable[[str], str]):
        self.forum_name = forum_name
        self.mention = mention  # how a public reply names whom it answers (the forum's way)
        self.clock = clock
        self.people = people
        self.book = book

    def public_status_recently(self, game: Game, at: datetime) -> bool:
        since = store.naive(at - timedelta(seconds=STATUS_EVERY))
        return bool(Outbox.select().where(Outbox.key.startswith(f"{game.tag}:status:") &
                                          (Outbox.created_at > since)).exists())

    def reply(self, row: Inbound, game: Game | None, text: str, i: int, private: bool = True,
              key: str | None = None) -> None:
        if not self.people.hosts_any(row.author) and self.flooding(row):
            log.info("not answering %s: %d answers in %ds already", row.author, REPLIES_PER_AUTHOR, REPLY_WINDOW)
            return
        # what a player typed (marked heard()) as text in the forum's markup; the rest defused,
        # as it may quote what the sender wrote
        text = shown_as_text(text, self.book.markup, around=defuse)
        key = key or f"re:{self.forum_name}:{row.ext_id}:{i}"
        tag = game.tag if game else None
        if row.kind == "comment" and not private:
            out = Outgoing(key=key, kind="comment", body=f"{self.mention(row.author)}: {text}",
                           thread=row.thread, reply_to=row.ext_id)
        else:
            subject = f"{tag}: re: your message" if tag else "re: your message"
            body = with_footer(text, tag) if tag else text
            out = Outgoing(key=key, kind="pm", body=body, to=row.author, subject=subject)
        if self.said_already(row, out):
            return  # one message with several commands refused alike: the answer once
        store.enqueue(out, game.id if game else None, at_or_now(row, self.clock))

    def said_already(self, row: Inbound, out: Outgoing) -> bool:
        """Has this message had this very answer already (from the outbox, so a retried
        message is answered as the first try was)?"""
        return bool(Outbox.select().where(Outbox.key.startswith(f"re:{self.forum_name}:{row.ext_id}:")
                                          & (Outbox.kind == out.kind) & (Outbox.body == out.body)).exists())

    def flooding(self, row: Inbound) -> bool:
        """Has this sender had REPLIES_PER_AUTHOR answers in the last REPLY_WINDOW seconds?"""
        since = store.naive(at_or_now(row, self.clock) - timedelta(seconds=REPLY_WINDOW))
        answered = Outbox.select().where(
            (Outbox.key.startswith(f"re:{self.forum_name}:") | Outbox.key.startswith(f"pointer:{self.forum_name}:"))
            & (Outbox.created_at > since)
            & ((Outbox.to == row.author) | Outbox.body.startswith(f"{self.mention(row.author)}:"))).count()
        return int(answered) >= REPLIES_PER_AUTHOR

    def status_text(self, game: Game) -> str:
        return public_status(self.book.state(game), game.tag)
