"""What a rule module plugs in: its plug-in class (`RulePlugin`: the named points where the
engine calls it, and what it declares for the rest of the bot), the transaction each point is
given (`Tx`), and the kinds of thing a module declares (`ConfigKey`, `Word`, `Role`, `Sight`)
and reads (`Parsed`, `Reading`).

Which modules a game has, and the order each point runs them in, is the table in hooks.py.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, ClassVar, Protocol, TypeVar, overload

from .commands import Command, Refusal
from .events import BUILD, TYPES, Event, GameEnded, MissionResolved, RawEvent, TeamProposed, VoteClosed, builder
from .state import FOLDS, GameState


@dataclass(frozen=True)
class Parsed:
    """A command as typed (parsing makes it; a module's `reads` and `command` take it): a verb
    and its raw arguments (names not yet resolved)."""

    verb: str  # propose | vote | order | status | help | join | leave | host:<verb> ...
    names: tuple[str, ...] = ()
    choice: str = ""
    extra: str = ""
    text: str = ""  # the span or line it came from
    more: tuple[tuple[str, str], ...] = ()  # a rule module's "; WORD: value" after a PROPOSE


class Reading(Protocol):
    """What the shell gives a module's `command`: the core's reading of a parsed command
    (`core(parsed)`, a Propose say, to build on) and the seats that typed names name
    (`core.names(raws)`: their ids, or the refusal of the first that names no one)."""

    def __call__(self, parsed: Parsed) -> "Command | Refusal": ...

    def names(self, raws: tuple[str, ...] | list[str]) -> "list[str] | Refusal": ...


@dataclass(frozen=True)
class ConfigKey:
    """A top-level config key a module adds (`excalibur: true`). `check(value, preset)` is
    the value to keep, or raises ValueError with the words the host reads."""

    name: str
    presets: frozenset[str]
    check: Callable[[Any, Any], Any]
    doc: str = ""


@dataclass(frozen=True)
class Word:
    """A command word a module reads: a pattern over one bold span or PM line (whitespace
    already collapsed), and the Parsed it makes of a match. Module words are tried before
    the core's."""

    pattern: re.Pattern
    parse: Callable[[re.Match, str], "Parsed"]


class RulePlugin:
    """What a rule module's plug-in class subclasses: the points the engine calls it at (each
    does nothing here), and what the module declares (class attributes)."""

    name = "plugin"
    handles: tuple[type, ...] = ()  # command types this plug-in answers

    # --- what the module declares (class attributes: read before any game exists) -----
    config_keys: ClassVar[tuple[ConfigKey, ...]] = ()
    words: ClassVar[tuple[Word, ...]] = ()
    suffixes: ClassVar[tuple[str, ...]] = ()  # "; EXCALIBUR: b" after a PROPOSE
    phases: ClassVar[dict[str, str]] = {}  # phase -> the config deadline that times it
    phase_words: ClassVar[dict[str, str]] = {}  # phase -> its words ("the use of Excalibur")
    command_words: ClassVar[dict[str, str]] = {}  # command class name -> how players write it
    roles: ClassVar[tuple["Role", ...]] = ()  # the roles it adds: side, what each sees (Role)
    demo: ClassVar[dict[str, Any]] = {}  # config keys the demo sets to play it

    @classmethod
    def check_config(cls, preset, names: list[str], size: int, kw: dict, bad) -> None:
        """Rules across keys (both lovers or neither, 7+ players): `bad(key, message)`."""

    @classmethod
    def reads(cls, state: "GameState", parsed: "Parsed") -> bool:
        """True if this module turns `parsed` into a command (intake asks it first)."""
        return False

    @classmethod
    def command(cls, state: "GameState", parsed: "Parsed", seat: str, via: str,
                at: "datetime", core: Reading) -> "Command | Refusal":
        """The module's command for `parsed` (which `reads` claimed), or its refusal.
        `core(parsed)` is the core's reading, to build on (a Propose, say); `core.names`
        reads typed names as seats."""
        return core(parsed)

    # --- the hooks ------------------------------------------------------------------
    def handle(self, tx: "Tx", command: Any) -> "Refusal | None":
        """Answer one of the commands in `handles`."""
        return None

    def on_expire(self, tx: "Tx") -> bool:
        """The deadline of a phase this plug-in opened has passed. True if it was ours."""
        return False

    def after_start(self, tx: "Tx") -> None:
        """The roles are dealt; the first proposal is not open yet."""

    def before_proposal(self, state: "GameState", command: "Command") -> "Refusal | None":
        return None

    def after_proposal(self, tx: "Tx", proposal: "TeamProposed", command: "Command") -> None:
        """A team has been proposed; `proposal` is its `TeamProposed` event (`proposal.team`,
        `proposal.public`, ...), `command` the Propose (with a module's part of it in `more`)."""

    def barred_voters(self, state: "GameState") -> set[str]:
        """The seats (ids) a card bars from voting on the proposal being made now."""
        return set()

    def votes_in_thread(self, state: "GameState", seat: str) -> bool:
        """True if the team votes of seat `seat` (an id) go in the thread even in a PM-only game."""
        return False

    def before_vote(self, state: "GameState", command: "Command") -> "Refusal | None":
        return None

    def after_vote(self, tx: "Tx", record: "VoteClosed") -> None:
        """A team vote has closed; `record` is its `VoteClosed` event (`record.approved`,
        `record.votes`, ...), as `state.vote_history[-1]` holds it."""

    def before_round(self, tx: "Tx", mission: int, leader: str) -> bool:
        """A new mission round is about to open its first proposal, led by seat `leader` (an
        id). Return True to hold it;
        call `steps.open_proposal(tx, mission, leader)` when done."""
        return False

    def before_mission_opens(self, tx: "Tx") -> bool:
        """A team was approved. Return True to hold a window first; then call
        `team.open_mission(tx)`, or reject the team and call `team.after_rejection(tx)`."""
        return False

    def after_mission_opened(self, tx: "Tx") -> None:
        """A team was approved and its mission is open (orders may already be in)."""

    def first_leader(self, state: "GameState") -> "str | None":
        """The first leader (a seat's id) of the mission about to start (None: the next in order)."""
        return None

    def before_mission(self, state: "GameState", command: "Command") -> "Refusal | None":
        return None

    def before_resolve(self, tx: "Tx") -> bool:
        """Every order of the mission is in; it is about to be counted. Return True to hold
        it for a phase of this plug-in; then call `missions.resolve_mission(tx)`."""
        return False

    def after_mission(self, tx: "Tx", record: "MissionResolved") -> bool | None:
        """A mission has been resolved; `record` is its `MissionResolved` event
        (`record.number`, `record.result`, ...), as `state.missions[-1]` holds it. Return True
        to hold the game for a phase of this plug-in; when it is over, call
        `steps.resume_after_mission(tx, after=self)`."""
        return None

    def before_game_end(self, tx: "Tx", winner: str, reason: str) -> bool:
        """Return False to hold the end back (an assassination still to come, say)."""
        return True

    def after_game_end(self, tx: "Tx", end: "GameEnded") -> None:
        """The game has ended; `end` is its `GameEnded` event (`end.winner`, `end.reason`)."""

    # --- random play (property tests, the bench, the demo) ----------------------------
    def random_move(self, state: "GameState", rng: "random.Random", at: "datetime") -> "Command | None":
        """A legal move in a phase of this plug-in (None: not its phase, the core's move)."""
        return None

    def random_amend(self, state: "GameState", rng: "random.Random", command: "Command") -> "Command":
        """The core's random move, with what this module adds to it (an Excalibur holder)."""
        return command

    def written(self, state: "GameState", command: "Command") -> "tuple[str, str] | None":
        """How a player writes one of this module's commands, and where: (text, "pm" or
        "thread"), naming players by the usernames on their seats (`state.shown`); for the
        demo's players. None: the core writes it."""
        return None


@dataclass(frozen=True)
class Sight:
    """What a role learns at the start: the seats of the side `side` (or of the roles in
    `roles`), except those of the roles in `unless`, each told as `label` (as `several` when
    it sees more than one; as their own roles when `named` and the preset tells the spies
    their roles)."""

    label: str
    side: str = ""
    roles: frozenset[str] = frozenset()
    unless: frozenset[str] = frozenset()
    several: str = ""
    named: bool = False


@dataclass(frozen=True)
class Role:
    """A role of Avalon: its side, what it sees of the others at the start, and whether
    every game deals it (`always`; else only when the host lists it). The core's roles are
    in AVALON_ROLES; a rule module declares its own (RulePlugin.roles)."""

    name: str
    side: str
    sees: tuple[Sight, ...] = ()
    always: bool = False


_E = TypeVar("_E", bound=Event)


class Tx:
    """One command's transaction: a working state and the events emitted so far. The
    working state is a copy-on-write clone of the state the command came to (it shares
    the config and every container no event of this command changes), so a refusal, or
    an exception, leaves the original as it was; unless the caller gave that state up
    (`engine.advance(..., in_place=True)`): then it is the working state itself."""

    __slots__ = ("state", "at", "plugins", "events")

    def __init__(self, state: GameState, at: datetime, plugins: list[RulePlugin]):
        self.state = state.clone()  # copy on write: see GameState.own
        self.at = at
        self.plugins = plugins
        self.events: list[Event] = []

    @overload
    def emit(self, type_: type[_E], **fields: Any) -> _E: ...

    @overload
    def emit(self, type_: str, **fields: Any) -> Event: ...

    def emit(self, type_: str | type[Event], **fields: Any) -> Event:
        """Emit an event of `type_` (its class, or its name) with these fields, now."""
        cls = TYPES.get(type_) if isinstance(type_, str) else type_
        if cls is not None:
            build = BUILD.get(cls) or builder(cls)
            event = build(self.at, fields)  # (cls(at=self.at, **fields), without the class call)
        else:
            event = RawEvent(str(type_), self.at, fields)
        return self.add(event)

    def add(self, event: _E) -> _E:
        """Emit `event`, made already at `tx.at` (the engine's hot paths: `events.maker`)."""
        state = self.state
        state.last_event_at = self.at  # (fold(state, event), inline)
        f = FOLDS.get(event.type)
        if f is not None:
            f(state, event)
        self.events.append(event)
        return event
