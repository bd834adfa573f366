"""Sign-ups: `players: signup`. Players comment bold JOIN or LEAVE in the game thread; the
game starts when `max_players` have joined, or when the sign-up deadline passes with at
least `min_players`. Below that, the host is asked to EXTEND or ABORT.

Before the start a game has no event log (the rules need a table); who has joined is kept
in the `Signup` table, and the game's status is `signup`.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from .. import store
from ..render import Message, replies
from ..render import signups as words
from ..render.markup import Markup
from ..render.subjects import subject
from ..render.words import block_separator
from ..rules import deadlines, started
from ..rules.plugin import Parsed
from ..store import Game, Inbound, Signup
from .games import GameBook
from .replies import Answers

# How a forum shows the author of a deleted comment or account: no one can take a seat
# (or read a reply) under it.
GONE_AUTHORS = {"", "[deleted]", "[removed]"}


def gone(author: str | None) -> bool:
    return (author or "").strip().casefold() in GONE_AUTHORS


def joined(game: Game) -> list[str]:
    return [s.name for s in Signup.select().where(Signup.game == game).order_by(Signup.id)]


def signup_block(game: Game, m: Markup, at: datetime) -> str:
    deadline = store.aware(game.next_deadline) if game.next_deadline is not None else None
    return words.block(game.tag, game.game_config(), joined(game), deadline, at, m)


def announcement(game: Game, m: Markup) -> str:
    return words.announcement(game.tag, game.game_config(), m)


CommentHandler = Callable[[Game, Inbound, list[Parsed], datetime], None]
HostHandler = Callable[[Game, str, str, Inbound, int, datetime], None]


class Signups:
    """A game taking sign-ups: JOIN, LEAVE, its deadline and the host's few commands. Once
    it starts, what is left of a message goes to `on_comment` / `on_host` (the game's
    controllers, wired by the moderator)."""

    def __init__(self, book: GameBook, answers: Answers, thread_id: Callable[[str], str | None]):
        self.book = book
        self.answers = answers
        self.thread_id = thread_id
        self.on_comment: CommentHandler | None = None
        self.on_host: HostHandler | None = None

    def _reply(self, row: Inbound, game: Game, text: str, i: int) -> None:
        self.answers.reply(row, game, text, i)

    def open(self, game: Game, at: datetime) -> None:
        cfg = game.game_config()
        game.status = "signup"
        game.next_deadline = (store.naive(at + deadlines.clamped(cfg.deadlines.signup))
                              if cfg.deadlines.signup is not None else None)
        game.save()
        m = self.book.markup
        body = signup_block(game, m, at) + block_separator(m) + announcement(game, m)
        self.book.enqueue_message(game, Message("opening", body, opening=True,
                                                title=f"{cfg.title} ({game.tag})", priority=0),
                                  f"{game.tag}:0:opening")

    def comment(self, game: Game, row: Inbound, commands: list[Parsed], at: datetime) -> None:
        self.deadline(game, at)
        if game.status != "signup":  # the deadline started the game: these are game commands
            assert self.on_comment is not None
            return self.on_comment(game, row, commands, at)
        row.game = game.id
        if gone(row.author):  # a deleted author: no seat, and no reply (no one can read it)
            return
        for i, parsed in enumerate(commands):
            if game.status != "signup":
                return
            if parsed.verb == "join":
                self._join(game, row, at, i)
            elif parsed.verb == "leave":
                self._leave(game, row, at, i)
            elif parsed.verb == "status":
                self._reply(row, game, signup_block(game, self.book.markup, at), i)
            else:
                self._reply(row, game, words.not_started(game.tag, self.book.markup), i)

    def _join(self, game: Game, row: Inbound, at: datetime, i: int) -> None:
        cfg = game.game_config()
        names = joined(game)
        if row.author.casefold() in {n.casefold() for n in names}:
            self._reply(row, game, words.joined_already(game.tag), i)
            return
        if any(s.casefold() == row.author.casefold() for s in cfg.spectators):
            self._reply(row, game, words.spectator(game.tag), i)
            return
        room = cfg.max_players or 0
        if len(names) >= room:
            self._reply(row, game, words.full(game.tag), i)
            return
        Signup.create(game=game, name=row.author, folded=row.author.casefold(), joined_at=store.naive(at))
        count = len(names) + 1
        self._reply(row, game, words.welcome(game.tag, count, cfg.max_players, self.book.markup), i)
        if count >= room:
            self.begin(game, at)
        else:
            self.changed(game, at)

    def _leave(self, game: Game, row: Inbound, at: datetime, i: int) -> None:
        gone = Signup.delete().where((Signup.game == game) & (Signup.folded == row.author.casefold())).execute()
        self._reply(row, game, words.left(game.tag, bool(gone)), i)
        if gone:
            self.changed(game, at)

    def changed(self, game: Game, at: datetime) -> None:
        self.book.set_block(game, signup_block(game, self.book.markup, at))

    def deadline(self, game: Game, now: datetime) -> int:
        """The sign-up deadline: start with enough players, else ask the host."""
        if game.status != "signup" or game.next_deadline is None or store.aware(game.next_deadline) > now:
            return 0
        at = store.aware(game.next_deadline)
        cfg = game.game_config()
        names = joined(game)
        if len(names) >= (cfg.min_players or 0):
            self.begin(game, at)
            return 1
        game.next_deadline = None
        game.save()
        tag = game.tag
        self.book.enqueue_message(game, Message(
            "signup-short", words.too_few(tag, len(names), cfg.min_players, self.book.markup), to=cfg.host,
            subject=subject("too_few", tag)), f"{tag}:signup-short:{at:%Y%m%d%H%M%S}")
        self.changed(game, at)
        return 1

    def begin(self, game: Game, at: datetime) -> None:
        cfg = replace(game.game_config(), players=tuple(joined(game)))
        game.config = json.dumps(cfg.to_json())
        game.status = "running"
        if cfg.signup_thread:  # the game gets its own thread (a new one, or `thread:`)
            game.thread = self.thread_id(cfg.thread) if cfg.thread != "new" else None
        game.save()
        self.book.forget(game.id)
        self.book.people_version += 1
        state, events = started(cfg, game.seed, at)
        self.book.commit(game, events, state)

    def host(self, game: Game, verb: str, rest: str, row: Inbound, i: int, at: datetime) -> None:
        tag = game.tag
        self.deadline(game, at)
        if game.status != "signup":
            assert self.on_host is not None
            return self.on_host(game, verb, rest, row, i, at)
        if verb == "extend":
            seconds = deadlines.extension(rest)
            if not seconds:
                self._reply(row, game, replies.extend_form(tag, "1d", self.book.markup), i)
                return
            base = store.aware(game.next_deadline) if game.next_deadline else at
            game.next_deadline = store.naive(max(base, at) + timedelta(seconds=seconds))
            game.save()
            self.changed(game, at)
        elif verb == "abort":
            game.status = "aborted"
            game.next_deadline = None
            game.save()
            self.book.enqueue_message(game, Message("aborted", words.called_off(tag)), f"{tag}:signup-aborted")
            self.changed(game, at)
        elif verb == "status":
            self._reply(row, game, signup_block(game, self.book.markup, at), i)
            return
        elif verb == "signups" and rest.lower() == "close":
            if len(joined(game)) >= (game.game_config().min_players or 0):
                self.begin(game, at)
            else:
                game.next_deadline = store.naive(at)
                game.save()
                self.deadline(game, at)  # too few: the host is asked, as at the deadline
        elif verb == "signups":
            self._reply(row, game, words.close_form(tag, self.book.markup), i)
            return
        else:
            self._reply(row, game, words.host_before_start(tag), i)
            return
        self._reply(row, game, replies.done(tag, verb), i)

