"""A player's command: from parsed text to the rules' command, or the reason it cannot be."""
from __future__ import annotations

import logging
from datetime import datetime

from .clockwork import Clockwork
from .games import GameBook
from .help import help_for
from .intake import command_for
from .parsing import Parsed
from .render import render_refusal
from .render import replies as words
from .replies import Answers
from .routing import replaced_by, seat_name
from .rules import Refusal
from .store import Game, Inbound

log = logging.getLogger("forumbot")


class Playing:
    """A player's command: from parsed text to the rules' command, or the reason it cannot be."""

    def __init__(self, book: GameBook, answers: Answers, clockwork: Clockwork):
        self.book = book
        self.answers = answers
        self.clockwork = clockwork

    def comment(self, game: Game, row: Inbound, commands: list[Parsed], at: datetime) -> None:
        """The commands of a comment in a running game's thread."""
        row.game = game.id
        row.commands = sum(1 for c in commands if c.verb not in ("status", "help"))
        for i, parsed in enumerate(commands):
            self.command(game, row, parsed, "thread", at, i)

    def command(self, game: Game, row: Inbound, parsed: Parsed, via: str,
                at: datetime, i: int) -> None:
        self.clockwork.fire_game_deadlines(game, at, command=True)
        state = self.book.state(game)
        tag = game.tag
        reply = self.answers.reply
        if parsed.verb == "status":
            public = via == "thread" and not self.answers.public_status_recently(game, at)
            reply(row, game, self.answers.status_text(game), i, private=not public,
                  key=f"{tag}:status:{row.ext_id}:{i}" if public else None)
            return
        seat = seat_name(state, row.author)
        if parsed.verb == "help":
            reply(row, game, help_for(state, tag, row.author, seat, self.book.markup), i, private=True)
            return
        if not state.running:
            reply(row, game, words.this_game_over(), i)
            return
        if seat is None and (now := replaced_by(state, row.author)):
            reply(row, game, words.seat_taken(tag, now), i, private=True)
            return
        if seat is None:
            reply(row, game, words.not_a_player(), i, private=via == "pm")
            return
        command = command_for(state, parsed, seat, via, at)
        if isinstance(command, str):
            reply(row, game, command, i, private=via == "pm")
            return
        result = self.book.apply(game, command)
        if isinstance(result, Refusal):
            reply(row, game, render_refusal(result, tag, self.book.markup.name), i,
                  private=result.private or row.kind == "pm")
