"""What players, hosts and the clock ask of a game. Names are already resolved to seats."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Command:
    at: datetime
    author: str  # a seat's name; the host's name for host commands; "" for the clock


@dataclass(frozen=True)
class Propose(Command):
    team: tuple[str, ...]
    public: str | None = None  # the team member who plays their order in the thread


@dataclass(frozen=True)
class TeamVote(Command):
    choice: str  # approve | reject | abstain
    via: str  # thread | pm
    critical: bool = False  # so-say-we-all: counts double, once a game


@dataclass(frozen=True)
class MissionOrder(Command):
    choice: str  # support | sabotage
    via: str  # thread | pm


@dataclass(frozen=True)
class Assassinate(Command):
    target: str


@dataclass(frozen=True)
class LadyTarget(Command):
    target: str


@dataclass(frozen=True)
class Expire(Command):
    """The deadline of phase `phase_id` has passed."""

    phase_id: int


@dataclass(frozen=True)
class Refusal:
    """A command the rules do not accept: told to its sender, changes nothing."""

    reason: str
    hint: str = ""
    private: bool = False  # must be answered by PM, never in the thread


@dataclass(frozen=True)
class GiveCard(Command):
    card: str  # as typed; the deck's plug-in finds the card
    target: str


@dataclass(frozen=True)
class PlayCard(Command):
    card: str
    target: str | None = None
    choice: str = ""  # Chicago Proxy: the vote cast for the target


@dataclass(frozen=True)
class TakeCard(Command):
    card: str
    source: str


@dataclass(frozen=True)
class Choose(Command):
    target: str
    via: str = "thread"


@dataclass(frozen=True)
class PassCard(Command):
    pass


@dataclass(frozen=True)
class ProxyVote(Command):
    """Chicago Proxy: the holder casts (or changes) the vote of the player they proxy."""

    target: str
    choice: str


# --- the host's commands (the moderator checks that the sender is the host) --------------


@dataclass(frozen=True)
class HostClose(Command):
    """Close the open vote (or mission) now; missing votes take their defaults."""


@dataclass(frozen=True)
class HostExtend(Command):
    seconds: int


@dataclass(frozen=True)
class HostPause(Command):
    until: datetime | None = None  # PAUSE ... UNTIL: resumes by itself then


@dataclass(frozen=True)
class HostResume(Command):
    pass


@dataclass(frozen=True)
class HostDisqualify(Command):
    target: str


@dataclass(frozen=True)
class HostReplace(Command):
    """`newcomer` takes `target`'s seat."""

    target: str
    newcomer: str


@dataclass(frozen=True)
class HostSkip(Command):
    """End whatever is open now, as if its deadline had passed."""


@dataclass(frozen=True)
class HostRecord(Command):
    """The host casts `inner` (a player's vote, order or choice sent to the host)."""

    inner: Command


@dataclass(frozen=True)
class HostAbort(Command):
    pass


@dataclass(frozen=True)
class Postpone(Command):
    """The bot (not a player or the host): the open phase's deadline fell while the bot was
    not running (`down_since` until `at`, its restart), so it moves to `until` (the restart
    plus `[bot] outage_grace`). `reason` is "outage" (the bot was down) or "forum" (the forum
    could not be read)."""

    until: datetime
    down_since: datetime
    reason: str = "outage"


@dataclass(frozen=True)
class Remind(Command):
    """The clock: the reminder time of phase `phase_id` has come."""

    phase_id: int
