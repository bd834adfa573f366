"""A player's command: from parsed text to the rules' command, or the reason it cannot be."""
from __future__ import annotations

import logging
from datetime import datetime

from ..parsing import Words, game_tags, word_table
from ..render import render_refusal
from ..render import replies as words
from ..render.help import help_for
from ..render.hints import did_you_mean as hint_words
from ..render.hints import host_command_by_pm
from ..rules import Refusal
from ..rules.plugin import Parsed
from ..rules.state import GameState
from ..store import Game, Inbound
from .clockwork import Clockwork
from .games import GameBook
from .hints import HintContext, comment_hint, pm_hint
from .intake import command_for
from .replies import Answers
from .routing import replaced_by, seat_name

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
        if not row.commands:
            self.hint(game, row, "thread", at)

    def pm_hint(self, row: Inbound, games: list[Game], at: datetime) -> bool:
        """A PM with no command: if a line of it is almost a command of the one game the
        sender plays (or tags), the private "did you mean" answer. True: it was answered
        (or was answered already in this phase), so nothing else is said."""
        tags = game_tags(row.subject, row.body)
        games = [g for g in games if not tags or g.id in tags]
        return len(games) == 1 and self.hint(games[0], row, "pm", at)

    def hint(self, game: Game, row: Inbound, via: str, at: datetime) -> bool:
        """The "did you mean" answer (render/hints.py) to a comment or PM that holds no
        command but almost one; at most one a player a phase (its outbox key)."""
        find = comment_hint if via == "thread" else pm_hint
        state = self.book.state(game)
        seat = seat_name(state, row.author)
        if seat is None or not state.running or find(row.body, hint_context(state, seat, anything=True)) is None:
            return False  # talk: no deadline is fired for it (that may put a message back)
        self.clockwork.fire_game_deadlines(game, at, command=True)
        state = self.book.state(game)
        if not state.running or (found := find(row.body, hint_context(state, seat))) is None:
            return False
        vote_by_pm = state.config.team_votes == "pm" or state.mission in state.config.rules.pm_vote_missions
        where = "pm" if found.verb == "vote" and vote_by_pm else via
        said = hint_words(found.kind, found.verb, found.meant, game.tag, where, self.book.markup)
        self.answers.reply(row, game, said, 0, private=True,
                           key=f"{game.tag}:hint:{seat}:{state.phase_id}")
        return True

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
        if parsed.verb.startswith("host:"):  # in a thread (a PM's go to the host's controller)
            verb, typed = parsed.verb.split(":")[1], f"G{parsed.choice}"
            if game.game_config().is_host(row.author):
                reply(row, game, host_command_by_pm(typed, verb, self.book.markup), i, private=True)
            else:
                reply(row, game, words.host_only(typed, verb), i, private=True)
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
        if isinstance(command, Refusal):
            reply(row, game, render_refusal(command, None, self.book.markup.name), i, private=via == "pm")
            return
        result = self.book.apply(game, command)
        if isinstance(result, Refusal):
            reply(row, game, render_refusal(result, tag, self.book.markup.name), i,
                  private=result.private or row.kind == "pm")


def hint_context(state: GameState, seat: str, anything: bool = False) -> HintContext:
    """What `seat` could do now, for the hint finder: vote in an open team vote, give an
    order on the mission's team, propose as the leader (`anything`: all of it)."""
    live = {"vote", "order", "propose"} if anything else set()
    if state.phase == "team_vote" and seat not in state.not_voting:
        live.add("vote")
    if state.phase == "mission" and seat in state.team:
        live.add("order")
    if state.phase == "proposal" and state.leader == seat:
        live.add("propose")
    aliases = {alias: state.shown(s) for alias, s in state.aliases().items()}
    return HintContext(live=frozenset(live), names=tuple(s.name for s in state.active()), aliases=aliases,
                       team_size=state.team_size() if "propose" in live else 0,
                       words=word_table(state.config.words))


def game_words(game: Game) -> Words:
    """The game's own words (the config's `words:`), as the parser reads them."""
    return word_table(game.game_config().words)


def pm_words(row: Inbound, games: list[Game]) -> Words:
    """The own words of the games a PM may be for (`games`: the sender's; those its tags
    name, if it has any). A word two of them read as different commands is read by neither:
    such a PM is for one game, and the game's tag says which."""
    tags = game_tags(row.subject, row.body)
    table: dict[str, str] = {}
    clash: set[str] = set()
    for g in games:
        if tags and g.id not in tags:
            continue
        for word, command in game_words(g).items():
            if table.setdefault(word, command) != command:
                clash.add(word)
    return {w: c for w, c in table.items() if w not in clash}
