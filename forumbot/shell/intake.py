"""Intake: a player's parsed command -> the rules' command, or the refusal that says why it
cannot be (the rules' own type, which render/ puts in the forum's markup). Pure: the game's
state, the parsed text, the seat, the channel and the time in; nothing out but the answer.
A rule module reads its own commands (`RulePlugin.reads`/`command`): intake asks each module
of the table first, then reads the core's. What a player typed and
a refusal repeats (a name, a card) is marked `heard()`: the answer shows it as text."""
from __future__ import annotations

from datetime import datetime

from ..limits import TARGET_COMMANDS
from ..parsing import NameProblem, resolve_name
from ..render import replies as words
from ..render.markup import heard
from ..rules.commands import (
    Choose,
    Command,
    GiveCard,
    MissionOrder,
    PassCard,
    PlayCard,
    Propose,
    ProxyVote,
    Refusal,
    TakeCard,
    TeamVote,
    said,
)
from ..rules.hooks import MODULES, plugin_class
from ..rules.plugin import Parsed
from ..rules.state import GameState


def command_for(state: GameState, parsed: Parsed, seat: str, via: str, at: datetime) -> Command | Refusal:
    """The rules' command for a parsed one from `seat`, or the reason it cannot be."""
    core = _Reading(state, seat, via, at)
    for row in MODULES:
        cls = plugin_class(row)
        if cls.reads(state, parsed):
            if not row.on(state.config):
                return Refusal(words.not_part_of_game(parsed.text, state.config.rules.title))
            return cls.command(state, parsed, seat, via, at, core)
    if parsed.more:  # a suffix no module of the table reads (cannot be: parsing knows them)
        return Refusal(words.not_available(parsed.text))
    return core(parsed)


class _Reading:
    """The `core` a rule module's `command` is given (rules.hooks.Reading)."""

    def __init__(self, state: GameState, seat: str, via: str, at: datetime) -> None:
        self.state, self.seat, self.via, self.at = state, seat, via, at

    def __call__(self, parsed: Parsed) -> Command | Refusal:
        return core_command(self.state, parsed, self.seat, self.via, self.at)

    def names(self, raws: tuple[str, ...] | list[str]) -> list[str] | Refusal:
        return names_of(self.state, raws)


def core_command(state: GameState, parsed: Parsed, seat: str, via: str, at: datetime) -> Command | Refusal:
    """The core's reading of `parsed` (a rule module's `command` may build on it)."""
    command: Command
    if parsed.verb == "propose":
        team = []
        for raw in parsed.names:
            name = seat_named(state, raw)
            if isinstance(name, NameProblem):
                return problem(name, said("PROPOSE: name, name"))
            team.append(name)
        public = None
        if parsed.extra:
            found = seat_named(state, parsed.extra)
            if isinstance(found, NameProblem):
                return problem(found)
            public = found
        command = Propose(at=at, author=seat, team=tuple(team), public=public)
    elif parsed.verb == "vote" and parsed.extra == "pass" and seat in state.actors \
            and state.phase not in ("proposal", "team_vote", "mission"):
        command = PassCard(at=at, author=seat)  # PASS on an optional card
    elif parsed.verb == "vote":
        command = TeamVote(at=at, author=seat, choice=parsed.choice, via=via,
                           critical=parsed.extra == "critical", passed=parsed.extra == "pass")
    elif parsed.verb in ("give", "take", "play", "choose", "proxy"):
        names = []
        for raw in parsed.names:
            typed = seat_named(state, raw)
            if isinstance(typed, NameProblem) and parsed.verb == "play" and not typed.candidates:
                typed = heard(raw)  # PLAY may name a card (Prepare for the Future -> card): the card decides
            if isinstance(typed, NameProblem):
                return problem(typed)
            names.append(typed)
        card = heard(parsed.extra)  # a card as typed: the rules find it, or repeat it as text
        if parsed.verb == "give":
            command = GiveCard(at=at, author=seat, card=card, target=names[0])
        elif parsed.verb == "take":
            command = TakeCard(at=at, author=seat, card=card, source=names[0])
        elif parsed.verb == "play":
            command = PlayCard(at=at, author=seat, card=card,
                               target=names[0] if names else None, choice=parsed.choice)
        elif parsed.verb == "proxy":
            command = ProxyVote(at=at, author=seat, target=names[0], choice=parsed.choice)
        else:
            command = Choose(at=at, author=seat, target=names[0], via=via)
    elif parsed.verb == "order":
        command = MissionOrder(at=at, author=seat, choice=parsed.choice, via=via)
    elif parsed.verb in TARGET_COMMANDS:
        target = seat_named(state, parsed.names[0])
        if isinstance(target, NameProblem):
            return problem(target)
        command = TARGET_COMMANDS[parsed.verb](at=at, author=seat, target=target)
    else:
        return Refusal(words.not_available(parsed.text))
    return command


def seat_named(state: GameState, raw: str) -> str | NameProblem:
    """A typed name -> the id of the seat it names (`state.Seat.id`): the username on a
    seat now, a host's alias, or the username of a player who left the seat (see
    `parsing.resolve_name` for how a typed name is read)."""
    seats = {s.name: s.id for s in state.seats}
    aliases = {alias: state.shown(seat) for alias, seat in state.aliases().items()}
    found = resolve_name(raw, list(seats), aliases)
    return found if isinstance(found, NameProblem) else seats[found]


def problem(found: NameProblem, hint: str = "") -> Refusal:
    """The refusal of a typed name that names no one (or several): what was typed is marked
    `heard`, to be shown as text in the forum's markup."""
    if found.candidates:
        return Refusal(f"{words.ambiguous_name(found.name, found.candidates)} {words.nothing_changed()}", hint)
    return Refusal(f"{words.no_such_player(found.name)} {words.nothing_changed()}", hint)


def names_of(state: GameState, raws: tuple[str, ...] | list[str]) -> list[str] | Refusal:
    """Typed names -> the ids of the seats they name, or the refusal of the first that is
    no one's."""
    out = []
    for raw in raws:
        name = seat_named(state, raw)
        if isinstance(name, NameProblem):
            return problem(name)
        out.append(name)
    return out
