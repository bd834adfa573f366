"""A game's state, and `fold`: how one event changes it. Nothing here decides; it records."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

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
    "hand_out": "the hand-out of the Plot Cards",
    "plot_choice": "a Plot Card's choice",
    "card_window": "the chance to play a Plot Card",
    "prep_window": "Mission Prep, the chance to play a kept Mission Card",
    "prep_card": "Mission Prep, following the drawn Mission Cards",
    "lady": "the Lady of the Lake",
    "assassination": "the assassination",
}


def phase_words(phase: str) -> str:
    """A phase in words, with its article: "the hand-out of the Plot Cards"."""
    return PHASE_WORDS.get(phase, "the " + phase.replace("_", " "))


@dataclass
class Seat:
    name: str
    role: str
    side: str  # resistance | spies
    disqualified: bool = False
    missed: int = 0  # missed votes in a row


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
    missions: list[dict] = field(default_factory=list)
    vote_history: list[dict] = field(default_factory=list)
    winner: str | None = None
    win_reason: str | None = None
    last_event_at: datetime | None = None
    extra: dict = field(default_factory=dict)  # what plug-ins keep (the Lady's holder, ...)
    actors: list[str] = field(default_factory=list)  # who must act in a plug-in's phase
    seed: int = 0
    extension: int = 0  # seconds added to the open phase's deadline (EXTEND, PAUSE)
    paused_at: datetime | None = None
    paused_until: datetime | None = None  # PAUSE ... UNTIL
    reminded: int = -1  # the phase id whose reminders went out
    last_vote_at: datetime | None = None  # the latest team vote cast in the open vote
    replaced: dict[str, str] = field(default_factory=dict)  # old name -> who plays that seat now
    missed_proposals: int = 0  # proposal deadlines missed in a row (any proposal resets it)
    stall_warned_at: int = 0  # missed_proposals when the host was told the table stalls (0: not yet)

    # --- questions about the state -------------------------------------------------
    def seat(self, name: str) -> Seat | None:
        for s in self.seats:
            if s.name == name:
                return s
        return None

    def aliases(self) -> dict[str, str]:
        """Extra names the bot accepts for a seat: the host's aliases, and replaced players'
        names for whoever took their seat."""
        out = {a: self.replaced.get(t, t) for a, t in self.config.aliases.items()}
        out.update(self.replaced)
        return out

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def running(self) -> bool:
        return self.phase not in (SETUP, FINISHED)

    def active(self) -> list[Seat]:
        return [s for s in self.seats if not s.disqualified]

    def spies(self) -> list[str]:
        return [s.name for s in self.seats if s.side == SPIES]

    def team_size(self) -> int:
        return team_size(len(self.seats), self.mission)

    def fails_needed(self) -> int:
        return fails_needed(self.config.rules, len(self.seats), self.mission)

    def next_leader(self, after: str) -> str:
        """The next seat after `after` in leader order, skipping disqualified seats."""
        names = self.names
        i = names.index(after)
        for step in range(1, len(names) + 1):
            s = self.seats[(i + step) % len(names)]
            if not s.disqualified:
                return s.name
        return names[(i + 1) % len(names)]

    def leader_rotation(self) -> int:
        """How many seats lead in one full turn of the leadership: the seats that are not
        disqualified (the others are skipped), or every seat if all are disqualified (then
        the leadership passes over them all in turn)."""
        return len(self.active()) or len(self.seats)

    def successes(self) -> int:
        return sum(1 for m in self.missions if m["result"] == "success")

    def failures(self) -> int:
        return sum(1 for m in self.missions if m["result"] == "fail")

    def waiting_for(self) -> list[str]:
        """Who still has to act in the open phase (names; a mission's list is secret)."""
        if self.phase == PROPOSAL:
            return [self.leader] if self.leader else []
        if self.phase == TEAM_VOTE:
            return [s.name for s in self.active() if s.name not in self.votes
                    and s.name not in self.not_voting]
        if self.phase == MISSION:
            return [n for n in self.team if n not in self.orders and not self.seat(n).disqualified]
        if self.running:
            return list(self.actors)
        return []


# Plug-ins register how their own events change the state: event type -> fn(state, event).
EXTRA_FOLDS: dict = {}


def register_fold(event_type: str):
    def deco(fn):
        EXTRA_FOLDS[event_type] = fn
        return fn
    return deco


def fold(state: GameState, event: ev.Event) -> GameState:
    """Apply one event to the state, in place, and return it."""
    d = event.data
    t = event.type
    state.last_event_at = event.at
    if t in EXTRA_FOLDS:
        EXTRA_FOLDS[t](state, event)
    elif t == ev.GAME_STARTED:
        state.seats = [Seat(n, d["roles"][n], d["sides"][n]) for n in d["order"]]
        state.seed = d.get("seed", 0)
    elif t == ev.PROPOSAL_OPENED:
        if d["mission"] != state.mission:
            state.mission = d["mission"]
            state.attempt = 0
            state.rejections = 0
        state.attempt += 1
        state.leader = d["leader"]
        state.team = ()
        state.public = None
        state.votes, state.vote_via, state.orders = {}, {}, {}
        _open(state, PROPOSAL, event)
    elif t == ev.TEAM_PROPOSED:
        state.team = tuple(d["team"])
        state.public = d.get("public")
        state.not_voting = list(d.get("not_voting", []))
        state.proxied = {}
        state.last_vote_at = None
        state.votes, state.vote_via, state.critical = {}, {}, set()
        state.missed_proposals = state.stall_warned_at = 0
        _open(state, TEAM_VOTE, event)
    elif t == ev.VOTE_CAST:
        state.last_vote_at = event.at
        state.votes[d["player"]] = d["vote"]
        state.vote_via[d["player"]] = d["via"]
        if d.get("critical"):
            state.critical.add(d["player"])
        else:
            state.critical.discard(d["player"])
    elif t == ev.VOTE_CLOSED:
        state.vote_history.append(d)
        state.critical_spent |= set(d["critical"])
        defaulted = set(d["defaulted"])
        barred = set(d.get("not_voting", [])) | set(d.get("proxied", {}))
        for s in state.seats:
            if s.disqualified or s.name in barred:
                continue
            s.missed = s.missed + 1 if s.name in defaulted else 0
        if not d["approved"]:
            state.rejections += 1
    elif t == ev.PROPOSAL_MISSED:
        state.missed_proposals += 1
        if d.get("counts_as_rejection"):
            state.rejections += 1
    elif t == ev.PROPOSALS_STALLED:
        state.stall_warned_at = state.missed_proposals
    elif t == ev.MISSION_OPENED:
        state.orders = {}
        _open(state, MISSION, event)
    elif t == ev.ORDER_CAST:
        state.orders[d["player"]] = d["order"]
    elif t == ev.MISSION_RESOLVED:
        state.missions.append(d)
        if state.config.missed.orders_count:
            defaulted = set(d["defaulted"])
            for n in d["team"]:
                s = state.seat(n)
                if not s.disqualified:
                    s.missed = s.missed + 1 if n in defaulted else 0
    elif t == ev.PLAYER_DISQUALIFIED:
        state.seat(d["player"]).disqualified = True
    elif t == ev.DEADLINE_EXTENDED:
        state.extension += d["seconds"]
    elif t == ev.DEADLINE_MOVED:  # the whole open deadline moves by `seconds`, close_grace too
        state.extension += d["seconds"]
        if state.last_vote_at is not None:
            state.last_vote_at += timedelta(seconds=d["seconds"])
    elif t == ev.GAME_PAUSED:
        state.paused_at = event.at
        state.paused_until = datetime.fromisoformat(d["until"]) if d.get("until") else None
    elif t == ev.GAME_RESUMED:
        state.extension += d["paused_seconds"]
        state.paused_at = None
        state.paused_until = None
    elif t == ev.REMINDERS_SENT:
        state.reminded = d["phase_id"]
    elif t == ev.HOST_ACTION:
        pass
    elif t == ev.GAME_ENDED:
        state.winner = d["winner"]
        state.win_reason = d["reason"]
        _open(state, FINISHED, event)
    return state


def open_phase(state: GameState, phase: str, event: ev.Event, actors: list[str] | None = None) -> None:
    """Open a phase (a plug-in's too): a new phase id, and its clock starts now."""
    _open(state, phase, event)
    state.actors = list(actors or [])


def _open(state: GameState, phase: str, event: ev.Event) -> None:
    state.actors = []
    state.extension = 0
    state.phase = phase
    state.phase_id += 1
    state.phase_opened_at = event.at
