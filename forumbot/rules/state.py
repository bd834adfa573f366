"""A game's state, and `fold`: how one event changes it. Nothing here decides; it records."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from . import events as ev
from .config import GameConfig
from .presets import fails_needed, team_size

# Phases
SETUP = "setup"
PROPOSAL = "proposal"
TEAM_VOTE = "team_vote"
MISSION = "mission"
FINISHED = "finished"

RESISTANCE = "resistance"
SPIES = "spies"

# Each phase as posts name it ("Now: mission 2, the hand-out of the Plot Cards.").
PHASE_WORDS = {
    SETUP: "the deal of the roles",
    PROPOSAL: "the proposal",
    TEAM_VOTE: "the team vote",
    MISSION: "the mission",
}  # (the rule modules declare theirs: RulePlugin.phase_words; hooks.phase_words reads both)


@dataclass(slots=True)
class Seat:
    """A place at the table. `id` is the seat's identity: the name it was dealt under, which
    never changes; the rules, the state and the events name a seat by it. `name` is the
    forum username of whoever plays it now (REPLACE changes it, and only it); render shows it."""

    id: str
    role: str
    side: str  # resistance | spies
    disqualified: bool = False
    missed: int = 0  # missed votes in a row
    name: str = ""  # the username shown ("": the id)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = self.id


@dataclass
class GameState:
    config: GameConfig
    seats: list[Seat] = field(default_factory=list)  # in leader order
    phase: str = SETUP
    phase_id: int = 0
    phase_opened_at: datetime | None = None
    mission: int = 0
    leader: str | None = None
    attempt: int = 0  # proposals opened in this mission
    rejections: int = 0  # rejected teams in this mission
    team: tuple[str, ...] = ()
    public: str | None = None  # the designated public order of this proposal
    not_voting: list[str] = field(default_factory=list)  # barred from this vote by a card
    proxied: dict[str, str] = field(default_factory=dict)  # seat -> who casts its vote (a card)
    critical: set[str] = field(default_factory=set)  # critical votes standing in this vote
    critical_spent: set[str] = field(default_factory=set)
    votes: dict[str, str] = field(default_factory=dict)
    vote_via: dict[str, str] = field(default_factory=dict)
    orders: dict[str, str] = field(default_factory=dict)
    missions: list[ev.MissionResolved] = field(default_factory=list)
    vote_history: list[ev.VoteClosed] = field(default_factory=list)
    winner: str | None = None
    win_reason: str | None = None
    last_event_at: datetime | None = None
    extra: dict = field(default_factory=dict)  # what plug-ins keep (the Lady's holder, ...)
    actors: list[str] = field(default_factory=list)  # who must act in a plug-in's phase
    seed: int = 0
    extension: float = 0  # seconds added to the open phase's deadline (EXTEND, PAUSE)
    paused_at: datetime | None = None
    paused_until: datetime | None = None  # PAUSE ... UNTIL
    reminded: int = -1  # the phase id whose reminders went out
    last_vote_at: datetime | None = None  # the latest team vote cast in the open vote
    replaced: dict[str, str] = field(default_factory=dict)  # a replaced player's username -> their seat
    missed_proposals: int = 0  # proposal deadlines missed in a row (any proposal resets it)
    stall_warned_at: int = 0  # missed_proposals when the host was told the table stalls (0: not yet)

    # --- copy on write -------------------------------------------------------------
    # A state may share its containers (the seats, the vote dicts, the histories, each
    # plug-in's part of `extra`) with the states it was cloned from or into: `clone` is a
    # new state object over the same containers (each command's transaction works on one),
    # and a fold copies a container the first time it changes it in place (`own`), so that
    # the other states never see the change. So a command costs what it changes, not the
    # size of the game. The config is frozen and always shared. `_owned` names what this
    # state alone holds (None: everything, a state that was never cloned).
    #
    # The rule for code that changes a state (the folds; nothing else should): change a
    # container in place only as `state.own("votes")[...] = ...` or through
    # `state.own_extra(key)`; set a new one with `put`/`put_extra` (or assign it and call
    # `fresh`); plain values (str, int, tuples, datetimes) are assigned as before. And a
    # step given the transaction holds on to a plug-in's data across `tx.emit` only as
    # `state.own_extra(key)` (what it read before may be copied away by the emit).

    def __post_init__(self) -> None:
        self._owned: set | None = None

    def clone(self) -> "GameState":
        """A new state equal to this one that shares its containers, copy on write: a
        fold into either leaves the other as it was. (engine.advance clones inline, as
        here: keep the two alike.)"""
        new = object.__new__(GameState)
        new.__dict__ = self.__dict__.copy()
        self._owned = set()
        new._owned = set()
        return new

    def own(self, name: str):
        """The container in field `name`, this state's own (copied first if shared), to
        change in place."""
        value = self.__dict__[name]
        owned = self._owned
        if owned is None or name in owned:
            return value
        if name == "seats":
            value = [_copy_seat(s) for s in value]
        elif name == "extra":
            value = dict(value)  # its keys' values are owned one by one: own_extra
        else:
            value = value.copy()
        self.__dict__[name] = value
        owned.add(name)
        return value

    def put(self, name: str, value) -> None:
        """Set field `name` to a container no other state holds."""
        self.__dict__[name] = value
        if self._owned is not None:
            self._owned.add(name)

    def fresh(self, *names: str) -> None:
        """Fields `names` were just set to containers no other state holds."""
        if self._owned is not None:
            self._owned.update(names)

    def own_extra(self, key: str):
        """A plug-in's part of `extra` (`extra[key]`), this state's own, to change in place."""
        extra = self.own("extra")
        owned = self._owned
        if owned is None or (key,) in owned:
            return extra[key]
        value = extra[key] = COPIERS.get(key, _dup)(extra[key])
        owned.add((key,))
        return value

    def put_extra(self, key: str, value) -> None:
        """Set `extra[key]` to a value no other state holds."""
        self.own("extra")[key] = value
        if self._owned is not None:
            self._owned.add((key,))

    # --- questions about the state -------------------------------------------------
    def seat(self, seat_id: str) -> Seat | None:
        """The seat `seat_id` (a seat's id, as the rules and events name it), if there is one."""
        for s in self.seats:
            if s.id == seat_id:
                return s
        return None

    def player(self, seat_id: str) -> Seat:
        """The seat `seat_id`, a seat of this game (`seat` when it may be no one's)."""
        for s in self.seats:
            if s.id == seat_id:
                return s
        raise ValueError(f"{seat_id!r} is not a player in this game")

    def seat_of(self, username: str) -> Seat | None:
        """The seat the forum user `username` plays now (case-insensitive), if any."""
        folded = username.casefold()
        for s in self.seats:
            if s.name.casefold() == folded:
                return s
        return None

    def shown(self, seat_id: str) -> str:
        """The username on seat `seat_id` now (what players read); anything else as it is."""
        for s in self.seats:
            if s.id == seat_id:
                return s.name
        return seat_id

    def aliases(self) -> dict[str, str]:
        """Extra names the bot accepts for a seat (name -> the seat's id): the host's
        aliases, and replaced players' usernames for the seat they left."""
        out = dict(self.config.aliases)
        out.update(self.replaced)
        return out

    @property
    def ids(self) -> list[str]:
        """The seats' ids, in leader order."""
        return [s.id for s in self.seats]

    @property
    def names(self) -> list[str]:
        """The usernames on the seats now, in leader order (`ids` for the seats themselves)."""
        return [s.name for s in self.seats]

    @property
    def running(self) -> bool:
        return self.phase not in (SETUP, FINISHED)

    def active(self) -> list[Seat]:
        return [s for s in self.seats if not s.disqualified]

    def spies(self) -> list[str]:
        return [s.id for s in self.seats if s.side == SPIES]

    def team_size(self) -> int:
        return team_size(len(self.seats), self.mission)

    def fails_needed(self) -> int:
        return fails_needed(self.config.rules, len(self.seats), self.mission)

    def next_leader(self, after: str | None) -> str:
        """The next seat after `after` in leader order, skipping disqualified seats."""
        seats = self.seats
        n = len(seats)
        for i in range(n):
            if seats[i].id == after:
                break
        else:
            raise ValueError(f"{after!r} is not in list")  # (as names.index(after))
        for step in range(1, n + 1):
            s = seats[(i + step) % n]
            if not s.disqualified:
                return s.id
        return seats[(i + 1) % n].id

    def leader_rotation(self) -> int:
        """How many seats lead in one full turn of the leadership: the seats that are not
        disqualified (the others are skipped), or every seat if all are disqualified (then
        the leadership passes over them all in turn)."""
        return len(self.active()) or len(self.seats)

    def successes(self) -> int:
        return [m.result for m in self.missions].count("success")

    def failures(self) -> int:
        return [m.result for m in self.missions].count("fail")

    def waiting_for(self) -> list[str]:
        """Who still has to act in the open phase (names; a mission's list is secret)."""
        if self.phase == PROPOSAL:
            return [self.leader] if self.leader else []
        if self.phase == TEAM_VOTE:
            votes, barred = self.votes, self.not_voting
            return [s.id for s in self.seats if not s.disqualified and s.id not in votes
                    and s.id not in barred]
        if self.phase == MISSION:
            return [n for n in self.team if n not in self.orders and not self.player(n).disqualified]
        if self.running:
            return list(self.actors)
        return []


# The state's methods the engine calls on every command, as plain functions:
# `state_own(state, "votes")` is `state.own("votes")`. (Python 3.11 does not specialise a
# method's lookup on an object whose dict is its own, as every state's is since `clone`;
# a module's function is found at once.)
state_own, state_put, state_fresh = GameState.own, GameState.put, GameState.fresh
state_player, state_team_size = GameState.player, GameState.team_size
state_fails_needed, state_next_leader = GameState.fails_needed, GameState.next_leader


def _copy_seat(s: Seat, _new=object.__new__) -> Seat:
    """A copy of seat `s` (its fields as they are: no __init__, no __post_init__)."""
    new = _new(Seat)
    new.id = s.id
    new.role = s.role
    new.side = s.side
    new.disqualified = s.disqualified
    new.missed = s.missed
    new.name = s.name
    return new


def _dup(value):
    """A copy of a plug-in's data (dicts, lists and sets of plain values), all the way down."""
    if isinstance(value, dict):
        return {k: _dup(v) if isinstance(v, _NESTED) else v for k, v in value.items()}
    if isinstance(value, list):
        return [_dup(v) if isinstance(v, _NESTED) else v for v in value]
    if isinstance(value, set):
        return set(value)
    return value


_NESTED = (dict, list, set)

# How a plug-in's part of `extra` is copied (key -> fn(value) -> copy), when a plug-in knows
# a quicker way than `_dup`: it must copy every container its folds change in place.
COPIERS: dict = {}


def register_copy(key: str):
    def deco(fn):
        COPIERS[key] = fn
        return fn
    return deco

# Plug-ins register how their own events change the state: event type -> fn(state, event).
# A fold changes a container in place only through `state.own(...)` / `state.own_extra(...)`
# (copy on write), and sets new ones with `state.put(...)` / `state.put_extra(...)`.
EXTRA_FOLDS: dict = {}
# Every event type's fold: the core's (folds.py registers them), and the plug-ins'. A plug-in's
# fold of a core event comes first (folds.py leaves it). Tx.emit folds through it inline.
FOLDS: dict = {}


def register_fold(event_type: str | type[ev.Event]):
    """A plug-in's fold of an event type (its class, or its name)."""
    event_type = event_type if isinstance(event_type, str) else event_type.type

    def deco(fn):
        EXTRA_FOLDS[event_type] = fn
        FOLDS[event_type] = fn
        return fn
    return deco


def fold(state: GameState, event: ev.Event) -> GameState:
    """Apply one event to the state, in place, and return it."""
    state.last_event_at = event.at
    f = FOLDS.get(event.type)
    if f is not None:
        f(state, event)
    return state


def open_phase(state: GameState, phase: str, event: ev.Event, actors: list[str] | None = None) -> None:
    """Open a phase (a plug-in's too): a new phase id, its clock starts now, and `actors` are
    who must act in it (a plug-in's phase; the core's phases name none)."""
    state_put(state, "actors", list(actors or []))
    state.extension = 0
    state.phase = phase
    state.phase_id += 1
    state.phase_opened_at = event.at
