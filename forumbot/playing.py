"""A player's command: from parsed text to the rules' command, or the reason it cannot be."""
from __future__ import annotations

import logging
from datetime import datetime

from .help import help_for
from .limits import TARGET_COMMANDS
from .parsing import NameProblem, Parsed, resolve_name
from .rules import MissionOrder, Propose, TeamVote
from .rules.commands import Choose, GiveCard, PassCard, PlayCard, ProxyVote, TakeCard
from .rules.state import GameState
from .store import Game, Inbound

log = logging.getLogger("forumbot")


class Playing:
    """A player's command: from parsed text to the rules' command, or the reason it cannot be."""

    def _player_command(self, game: Game, row: Inbound, parsed: Parsed, via: str,
                        at: datetime, i: int) -> None:
        self._fire_game_deadlines(game, at, command=True)
        state = self.state(game)
        tag = game.tag
        if parsed.verb == "status":
            public = via == "thread" and not self._public_status_recently(game, at)
            self._reply(row, game, self.status_text(game), i, private=not public,
                        key=f"{tag}:status:{row.ext_id}:{i}" if public else None)
            return
        if parsed.verb == "help":
            self._reply(row, game, help_for(state, tag, row.author, self._seat_name(game, row.author)),
                        i, private=True)
            return
        if not state.running:
            self._reply(row, game, "This game is over.", i)
            return
        seat = self._seat_name(game, row.author)
        if seat is None and (now := self._replaced_by(state, row.author)):
            self._reply(row, game, f"You no longer play in {tag}: {now} took your seat. Nothing "
                        "was changed.", i, private=True)
            return
        if seat is None:
            self._reply(row, game, "Only the players of this game can do that; you are not one "
                        "of them.", i, private=via == "pm")
            return
        command = self._command_for(state, parsed, seat, via, at)
        if isinstance(command, str):
            self._reply(row, game, command, i, private=via == "pm")
            return
        self._apply(game, command, row, i)

    @staticmethod
    def _command_for(state: GameState, parsed: Parsed, seat: str, via: str, at: datetime):
        """The rules' command for a parsed one from `seat`, or the reason it cannot be."""
        if parsed.verb == "propose":
            team = []
            for raw in parsed.names:
                name = resolve_name(raw, state.names, state.aliases())
                if isinstance(name, NameProblem):
                    return name.message + " Nothing was changed. The right form: **PROPOSE: name, name**"
                team.append(name)
            public = None
            if parsed.extra:
                public = resolve_name(parsed.extra, state.names, state.aliases())
                if isinstance(public, NameProblem):
                    return public.message + " Nothing was changed."
            command = Propose(at=at, author=seat, team=tuple(team), public=public)
        elif parsed.verb == "vote" and parsed.extra == "pass" and seat in state.actors \
                and state.phase not in ("proposal", "team_vote", "mission"):
            command = PassCard(at=at, author=seat)  # PASS on an optional card
        elif parsed.verb == "vote":
            command = TeamVote(at=at, author=seat, choice=parsed.choice, via=via,
                               critical=parsed.extra == "critical")
        elif parsed.verb in ("give", "take", "play", "choose", "proxy"):
            names = []
            for raw in parsed.names:
                name = resolve_name(raw, state.names, state.aliases())
                if isinstance(name, NameProblem) and parsed.verb == "play" and not name.candidates:
                    name = raw  # PLAY may name a card (Prepare for the Future -> card): the card decides
                if isinstance(name, NameProblem):
                    return name.message + " Nothing was changed."
                names.append(name)
            if parsed.verb == "give":
                command = GiveCard(at=at, author=seat, card=parsed.extra, target=names[0])
            elif parsed.verb == "take":
                command = TakeCard(at=at, author=seat, card=parsed.extra, source=names[0])
            elif parsed.verb == "play":
                command = PlayCard(at=at, author=seat, card=parsed.extra,
                                   target=names[0] if names else None, choice=parsed.choice)
            elif parsed.verb == "proxy":
                command = ProxyVote(at=at, author=seat, target=names[0], choice=parsed.choice)
            else:
                command = Choose(at=at, author=seat, target=names[0], via=via)
        elif parsed.verb == "order":
            command = MissionOrder(at=at, author=seat, choice=parsed.choice, via=via)
        elif parsed.verb in TARGET_COMMANDS:
            name = resolve_name(parsed.names[0], state.names, state.aliases())
            if isinstance(name, NameProblem):
                return name.message + " Nothing was changed."
            command = TARGET_COMMANDS[parsed.verb](at=at, author=seat, target=name)
        else:
            return f"{parsed.text} is not available in this game."
        return command
