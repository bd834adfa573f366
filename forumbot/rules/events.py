"""The append-only event log: the truth of a game.

Each event type is a frozen, slotted dataclass, registered under its name with `@event`:

    @event("vote_cast")
    class VoteCast(Event):
        player: str          # a seat (its id: see state.Seat)
        vote: str
        via: str
        critical: bool = opt(False)   # only written when not the default

`to_json()` is its form in the store and in `export` ({"type", "at", "data"}); `data` is
that form's data, and `from_json` reads it back (a type no module registers comes back as
a `RawEvent`, which keeps its data as it was). Fields are written in their order; a field
made with `opt()` is left out while it has its default, as the log has always had it.

A module's own events live in the module (rules/excalibur.py's `ExcaliburUsed`, say); the
core's are here. `tx.emit(ExcaliburUsed, holder=..., ...)` makes one (the engine adds the
time), and `tx.emit("excalibur_used", ...)` does the same by name.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, Callable, ClassVar, TypeVar, dataclass_transform

from .makers import BUILD as BUILD
from .makers import MAKE as MAKE
from .makers import generate, quick_init
from .makers import maker as maker

_T = TypeVar("_T")

TYPES: dict[str, type["Event"]] = {}  # event type -> its class


def opt(default: Any = None) -> Any:
    """A field the JSON form leaves out while it holds `default`."""
    return field(default=default, metadata={"omit": True})


@dataclass(frozen=True, kw_only=True, slots=True)
class Event:
    """One thing that happened in a game, at `at` (the forum's time of its cause)."""

    type: ClassVar[str] = ""
    FORM: ClassVar[tuple] = ()  # (name, omitted while it is this default?, default) per field
    at: datetime

    def json_data(self) -> dict:
        out = {}
        for name, omit, default in self.FORM:
            value = getattr(self, name)
            if omit and (value is default or value == default):
                continue
            out[name] = value
        return out

    @property
    def data(self) -> dict:
        """The data of the JSON form (a new dict: the store, export and tests read it)."""
        return self.json_data()

    def to_json(self) -> dict:
        return {"type": self.type, "at": iso(self.at), "data": self.json_data()}


class RawEvent(Event):
    """An event of a type no module registers (a module switched off, a newer bot's log):
    kept as it was written."""

    __slots__ = ("type", "raw")
    raw: dict[str, Any]

    def __init__(self, type: str, at: datetime, data: dict | None = None):  # noqa: A002
        object.__setattr__(self, "at", at)
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "raw", {} if data is None else data)

    def json_data(self) -> dict:
        return self.raw

    def get(self, key: str, default: Any = None) -> Any:
        """A field of its data, if it has it (for readers that take any event)."""
        return self.raw.get(key, default)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, RawEvent) and (self.type, self.at, self.raw)
                == (other.type, other.at, other.raw))

    def __hash__(self) -> int:
        return hash((self.type, self.at))

    def __repr__(self) -> str:
        return f"RawEvent({self.type!r}, {self.at!r}, {self.raw!r})"


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field, opt))
def event(name: str) -> Callable[[type[_T]], type[_T]]:
    """Register an event type: the decorated class (a subclass of `Event`) becomes a frozen
    dataclass with keyword fields, named `name` in the log."""
    def register(cls: type[_T]) -> type[_T]:
        if name in TYPES:
            raise ValueError(f"two classes for the event {name}")
        made: Any = dataclass(frozen=True, kw_only=True, slots=True)(cls)
        made.type = name
        made.FORM = tuple((f.name, bool(f.metadata.get("omit")), f.default)
                          for f in fields(made) if f.name != "at")
        quick_init(made)
        TYPES[name] = made
        return made
    return register


def builder(cls: type[Event]) -> Callable[[datetime, dict], Event]:
    """How Tx.emit builds an event of class `cls` from its dict of fields (BUILD keeps it)."""
    made = BUILD.get(cls)
    if made is None:
        made = BUILD[cls] = ((generate(cls, "build") if TYPES.get(getattr(cls, "type", "")) is cls else None)
                             or (lambda at, data: cls(at=at, **data)))
    return made


def make(type_: str | type[Event], at: datetime, data: dict) -> Event:
    """An event of `type_` (a class or its name) at `at` with these fields."""
    cls = TYPES.get(type_) if isinstance(type_, str) else type_
    if cls is None:
        return RawEvent(type_ if isinstance(type_, str) else type_.type, at, data)
    return cls(at=at, **data)


def from_json(type_: str, at: datetime, data: dict) -> Event:
    """An event read back from its JSON form (the store's row)."""
    cls = TYPES.get(type_)
    if cls is None:
        return RawEvent(type_, at, data)
    try:
        return cls(at=at, **data)
    except TypeError:  # a shape this bot does not know: keep it as it was written
        return RawEvent(type_, at, data)


def iso(at: datetime) -> str:
    """An instant as the log and `export` write it: UTC, with its `Z` (a naive time is UTC already)."""
    if at.tzinfo is not None:
        at = at.astimezone(timezone.utc)
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- the core's events ---------------------------------------------------------------
# A player is named by the id of their seat (state.Seat.id: the name the seat was dealt
# under), never by whoever plays it now; render shows the username on the seat.

GAME_STARTED = "game_started"
PROPOSAL_OPENED = "proposal_opened"
TEAM_PROPOSED = "team_proposed"
VOTE_CAST = "vote_cast"
VOTE_CLOSED = "vote_closed"
PROPOSAL_MISSED = "proposal_missed"
PROPOSALS_STALLED = "proposals_stalled"  # a full turn of leaders missed their proposals
MISSION_OPENED = "mission_opened"
ORDER_CAST = "order_cast"
MISSION_RESOLVED = "mission_resolved"
PLAYER_DISQUALIFIED = "player_disqualified"
PLAYER_REPLACED = "player_replaced"
GAME_ENDED = "game_ended"
HOST_ACTION = "host_action"
DEADLINE_EXTENDED = "deadline_extended"
DEADLINE_MOVED = "deadline_moved"  # after the bot was not running (Postpone)
GAME_PAUSED = "game_paused"
GAME_RESUMED = "game_resumed"
REMINDERS_SENT = "reminders_sent"


@event(GAME_STARTED)
class GameStarted(Event):
    order: list[str]  # the seats in leader order
    roles: dict[str, str]  # seat -> role
    sides: dict[str, str]  # seat -> resistance | spies
    seed: int = 0


@event(PROPOSAL_OPENED)
class ProposalOpened(Event):
    mission: int
    leader: str
    attempt: int
    rejections: int = 0
    team_size: int
    fails_needed: int


@event(TEAM_PROPOSED)
class TeamProposed(Event):
    mission: int
    proposal: int
    leader: str
    team: list[str]
    public: str | None = opt()  # who plays their order in the thread (a preset's mission)
    revised: bool = opt(False)  # the leader changed the proposal before any vote
    not_voting: list[str] | None = opt()  # barred from this vote by a card


@event(VOTE_CAST)
class VoteCast(Event):
    player: str
    vote: str  # approve | reject | abstain
    via: str  # thread | pm
    by: str | None = opt()  # the proxy who cast it (a card)
    critical: bool = opt(False)
    passed: bool = opt(False)  # written PASS (no card window open): an abstention


@event(VOTE_CLOSED)
class VoteClosed(Event):
    mission: int
    proposal: int
    leader: str
    team: list[str]
    votes: dict[str, str]  # every seat -> the vote counted for it
    defaulted: list[str]
    critical: list[str] = field(default_factory=list)  # (older logs may lack these three)
    proxied: dict[str, str] = field(default_factory=dict)
    not_voting: list[str] = field(default_factory=list)
    approve: int
    reject: int
    approved: bool
    rejections: int


@event(PROPOSAL_MISSED)
class ProposalMissed(Event):
    mission: int
    leader: str
    counts_as_rejection: bool = False


@event(PROPOSALS_STALLED)
class ProposalsStalled(Event):
    mission: int
    missed: int
    turn: int


@event(MISSION_OPENED)
class MissionOpened(Event):
    mission: int
    leader: str
    team: list[str]
    fails_needed: int
    public: str | None = None


@event(ORDER_CAST)
class OrderCast(Event):
    player: str
    order: str  # support | sabotage
    preloaded: bool = opt(False)  # a preloaded order, applied as the mission opened


@event(MISSION_RESOLVED)
class MissionResolved(Event):
    number: int
    leader: str
    team: list[str]
    sabotages: int
    fails_needed: int
    result: str  # success | fail
    orders: dict[str, str]
    defaulted: list[str]
    count_shown: bool = True
    public: str | None = opt()


@event(PLAYER_DISQUALIFIED)
class PlayerDisqualified(Event):
    player: str
    missed: int
    reason: str


@event(PLAYER_REPLACED)
class PlayerReplaced(Event):
    player: str  # the seat
    by: str  # the newcomer's username
    was_disqualified: bool = False
    host: str = ""
    keeps_id: bool = opt(False)  # True: the seat keeps its id (a log from before has it renamed)


@event(GAME_ENDED)
class GameEnded(Event):
    winner: str | None  # resistance | spies | None (aborted, abandoned)
    reason: str
    by: str | None = opt()  # the host who aborted it
    missed: int | None = opt()  # proposals missed in a row (abandoned)
    roles: dict[str, str]


@event(HOST_ACTION)
class HostAction(Event):
    action: str  # close | skip | record
    by: str
    phase: str
    mission: int | None = opt()
    player: str | None = opt()  # RECORD: whose command
    kind: str | None = opt()  # RECORD: the command's kind


@event(DEADLINE_EXTENDED)
class DeadlineExtended(Event):
    seconds: int
    by: str
    phase: str


@event(DEADLINE_MOVED)
class DeadlineMoved(Event):
    reason: str  # down | forum
    phase: str
    was: str
    until: str
    down_since: str
    seconds: float


@event(GAME_PAUSED)
class GamePaused(Event):
    by: str
    until: str | None = opt()


@event(GAME_RESUMED)
class GameResumed(Event):
    by: str
    paused_seconds: int


@event(REMINDERS_SENT)
class RemindersSent(Event):
    phase_id: int
    phase: str
    players: list[str]


# The plug-ins' event types, by name (their classes live in their modules).
ASSASSINATION_OPENED = "assassination_opened"
ASSASSINATION_OVERDUE = "assassination_overdue"
ASSASSINATED = "assassinated"
LADY_GIVEN = "lady_given"
LADY_OPENED = "lady_opened"
LADY_USED = "lady_used"
LADY_SKIPPED = "lady_skipped"
COMMANDER_NAMED = "commander_named"
ORDER_PRELOADED = "order_preloaded"
PLOT_SHUFFLED = "plot_shuffled"
PLOT_ROUND = "plot_round"
PLOT_WINDOW = "plot_window"
PLOT_PASSED = "plot_passed"
PLOT_PLAYED = "plot_played"
PLOT_WINDOW_CLOSED = "plot_window_closed"
PLOT_DRAWN = "plot_drawn"
PLOT_GIVEN = "plot_given"
PLOT_DISCARDED = "plot_discarded"
PLOT_CHOICE_OPENED = "plot_choice_opened"
PLOT_CHOICE_SKIPPED = "plot_choice_skipped"
PLOT_REVEAL = "plot_reveal"
PLOT_TAKEN = "plot_taken"
PLOT_SPOTLIGHT = "plot_spotlight"
PLOT_ORDER_SEEN = "plot_order_seen"
TEAM_VETOED = "team_vetoed"
PLOT_DECLARED = "plot_declared"
