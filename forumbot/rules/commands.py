"""What players, hosts and the clock ask of a game. Players are already resolved to seats:
a command names a seat by its id (state.Seat.id), whoever plays it now."""
from __future__ import annotations

from dataclasses import MISSING, dataclass, fields, is_dataclass
from datetime import datetime
from typing import Any, Callable, TypeVar

from .makers import generate

# Command text inside a refusal's words ("post PROPOSE: a, b"): rules mark it with `said`,
# and render/ writes it in the forum's bold. The rules never write markup themselves.
SAID_OPEN, SAID_CLOSE = "\ue000", "\ue001"
_C = TypeVar("_C")


def said(text: str) -> str:
    """`text` as a command a player would type, to be shown in bold by render/."""
    return f"{SAID_OPEN}{text}{SAID_CLOSE}"


@dataclass(frozen=True, slots=True)
class Command:
    at: datetime
    author: str  # a seat's id; the host's username for host commands; "" for the clock


@dataclass(frozen=True, slots=True)
class Propose(Command):
    team: tuple[str, ...]  # seats (ids)
    public: str | None = None  # the team member (a seat's id) who plays their order in the thread
    more: tuple[tuple[str, str], ...] = ()  # a rule module's part: (("excalibur", "bob"),)


@dataclass(frozen=True, slots=True)
class TeamVote(Command):
    choice: str  # approve | reject | abstain
    via: str  # thread | pm
    critical: bool = False  # so-say-we-all: counts double, once a game
    passed: bool = False  # written PASS with no card window open: an abstention


@dataclass(frozen=True, slots=True)
class MissionOrder(Command):
    choice: str  # support | sabotage
    via: str  # thread | pm


@dataclass(frozen=True, slots=True)
class Expire(Command):
    """The deadline of phase `phase_id` has passed."""

    phase_id: int


@dataclass(frozen=True, slots=True)
class Refusal:
    """A command the rules do not accept: told to its sender, changes nothing."""

    reason: str
    hint: str = ""
    private: bool = False  # must be answered by PM, never in the thread


@dataclass(frozen=True, slots=True)
class GiveCard(Command):
    card: str  # as typed; the deck's plug-in finds the card
    target: str


@dataclass(frozen=True, slots=True)
class PlayCard(Command):
    card: str
    target: str | None = None
    choice: str = ""  # Chicago Proxy: the vote cast for the target


@dataclass(frozen=True, slots=True)
class TakeCard(Command):
    card: str
    source: str


@dataclass(frozen=True, slots=True)
class Choose(Command):
    target: str
    via: str = "thread"


@dataclass(frozen=True, slots=True)
class PassCard(Command):
    pass


@dataclass(frozen=True, slots=True)
class ProxyVote(Command):
    """Chicago Proxy: the holder casts (or changes) the vote of the player they proxy."""

    target: str
    choice: str


# --- the host's commands (the moderator checks that the sender is the host) --------------


@dataclass(frozen=True, slots=True)
class HostClose(Command):
    """Close the open vote (or mission) now; missing votes take their defaults."""


@dataclass(frozen=True, slots=True)
class HostExtend(Command):
    seconds: int


@dataclass(frozen=True, slots=True)
class HostPause(Command):
    until: datetime | None = None  # PAUSE ... UNTIL: resumes by itself then


@dataclass(frozen=True, slots=True)
class HostResume(Command):
    pass


@dataclass(frozen=True, slots=True)
class HostDisqualify(Command):
    target: str  # a seat's id


@dataclass(frozen=True, slots=True)
class HostReplace(Command):
    """`newcomer` (a forum username) takes seat `target` (its id)."""

    target: str
    newcomer: str


@dataclass(frozen=True, slots=True)
class HostSkip(Command):
    """End whatever is open now, as if its deadline had passed."""


@dataclass(frozen=True, slots=True)
class HostRecord(Command):
    """The host casts `inner` (a player's vote, order or choice sent to the host)."""

    inner: Command


@dataclass(frozen=True, slots=True)
class HostAbort(Command):
    pass


@dataclass(frozen=True, slots=True)
class Postpone(Command):
    """The bot (not a player or the host): the open phase's deadline fell while the bot was
    not running (`down_since` until `at`, its restart), so it moves to `until` (the restart
    plus `[bot] outage_grace`). `reason` is "outage" (the bot was down) or "forum" (the forum
    could not be read)."""

    until: datetime
    down_since: datetime
    reason: str = "outage"


@dataclass(frozen=True, slots=True)
class Remind(Command):
    """The clock: the reminder time of phase `phase_id` has come."""

    phase_id: int


# Each command class's maker: the same arguments as the class (fields in order, defaults),
# and the same command, without the class call (the random player makes one per move). Made
# when asked for (`maker`): none costs the start-up.
MAKE: dict[type, Callable[..., Command]] = {}


def _quick_init(cls) -> None:
    """Give a frozen dataclass an __init__ that fills its slots plainly (the generated one
    sets each field through object.__setattr__, several times slower; the engine makes one or
    two of these per command): makers.generate. Same fields, order and defaults."""
    init = _init(cls)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init


def maker(cls: type[_C]) -> Callable[..., _C]:
    """The maker of command class `cls`: make(*args) is cls(*args), without the class call."""
    made = MAKE.get(cls)
    if made is None:
        klass: Any = cls  # (a rule module's class with no slots: its own __init__)
        made = MAKE[cls] = generate(cls, "make", keywords=False) or (lambda *args: klass(*args))
    return made  # type: ignore[return-value]


def _init(cls) -> Callable:
    """A command class's __init__, made from its fields, in order."""
    for f in fields(cls):
        if f.default_factory is not MISSING or not f.init:
            raise TypeError(f"{cls.__name__}.{f.name}: keep the generated __init__")
    made = generate(cls, "__init__", keywords=False)
    if made is None:
        raise TypeError(f"{cls.__name__}: keep the generated __init__")
    return made


for _cls in [c for c in list(globals().values()) if isinstance(c, type) and is_dataclass(c)
             and c.__module__ == __name__]:
    _quick_init(_cls)
