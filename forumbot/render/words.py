"""What every render module shares: the Message a batch turns into, deadlines as posts show
them, role and side names, the mission track, card names, and the PM footer."""
from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime

from ..rules.deadlines import aligned, clamped, stamp
from ..rules.events import PlayerReplaced
from ..rules.modules.mission_card_folds import BY_KEY as MISSION_CARDS
from ..rules.modules.plot_deck import BY_KEY as PLOT_CARDS
from ..rules.presets import TEAM_SIZES, Deadlines, Missed
from ..rules.state import SPIES, GameState, Seat
from . import registry
from .markup import Markup

THREAD = "thread"


@dataclass(frozen=True)
class Message:
    slot: str  # unique within one batch: becomes part of the outbox key
    body: str
    to: str | None = None  # None: the game thread
    subject: str = ""
    opening: bool = False  # the game's opening post (a new thread, or a first comment)
    title: str = ""
    priority: int = 1  # 0: results and prompts; 1: replies; 2: reminders; 3: status


# When the posts being rendered go out (render_events' `now`): "in 12h" counts from then.
_NOW: ContextVar[datetime | None] = ContextVar("render_now", default=None)


def relative(seconds: int) -> str:
    """A wait as posts say it: 1d 2h, 3h 5m, 10m."""
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    mins = rest // 60
    parts = ([f"{d}d"] if d else []) + ([f"{h}h"] if h else []) + ([f"{mins}m"] if mins or not (d or h) else [])
    return " ".join(parts)


def when(at: datetime, seconds: int | None, state: GameState | None = None) -> str:
    """A deadline `seconds` after `at`, as posts show it (aligned and in the game's zone). The
    relative part counts from when the post is made, if render_events was told, since a
    command read late opens its phase at the time it was written, not when it is answered."""
    if seconds is None:
        return "no deadline"
    config = state.config if state is not None else None
    due = at + clamped(seconds)  # (a config stored before the bounds may say 9999999d)
    if config is not None:
        due = aligned(due, config)
    now = _NOW.get()
    start = max(at, now) if now is not None else at
    return f"{stamp(due, config)} (in {relative(max(0, int((due - start).total_seconds())))})"


ROLE_NAMES = {
    "servant": "Loyal Servant of Arthur", "minion": "Minion of Mordred",
    "merlin-or-morgana": "Merlin or Morgana", "human": "Human", "cylon": "Cylon",
}


def role_name(state: GameState, role: str) -> str:
    return ROLE_NAMES.get(role, role.replace("-", " ").title())


def propose_form(state: GameState, size: int = 2) -> str:
    """A proposal as the leader writes it, with `size` names, and what a rule module adds to
    it (Excalibur's holder: registry.propose_tail)."""
    registry.load()
    tails = "".join(tail for fn in registry.PROPOSE_TAILS if (tail := fn(state)))
    return "PROPOSE: " + ", ".join(["name"] * size) + tails


def side_name(state: GameState, side: str) -> str:
    p = state.config.rules
    return p.spies_name if side == SPIES else p.resistance_name


# The presets' side names (rules/presets.py) are groups ("the Spies", "the Resistance", "the
# Minions of Mordred": "the Spies win", "one of the Spies"), except avalon-2020's Good and
# Evil, which are causes, not groups: "Good wins", "on the side of Good".
CAUSES = frozenset({"Good", "Evil"})


def side_wins(state: GameState, side: str) -> str:
    """"the Spies win", "Good wins" (lower case as the name is: a heading capitalises it)."""
    name = side_name(state, side)
    return f"{name} wins" if name in CAUSES else f"{name} win"


def side_member(state: GameState, side: str) -> str:
    """What a player of `side` is: "one of the Spies", "on the side of Good"."""
    name = side_name(state, side)
    return f"on the side of {name}" if name in CAUSES else f"one of {name}"


def track(state: GameState, m: Markup) -> str:
    marks = []
    for i in range(1, 6):
        done = next((x for x in state.missions if x.number == i), None)
        if done:
            marks.append("✔" if done.result == "success" else "✘")
        else:
            marks.append(str(TEAM_SIZES[len(state.seats)][i - 1]))
    return f"Missions: {' '.join(marks)} (✔ success, ✘ fail, a number: team size still to play)"


def listed(state: GameState, seats: Iterable[str]) -> str:
    """Seats (their ids) as a reader sees them: the usernames on them now, in order."""
    return ", ".join(state.shown(s) for s in seats)


def left_seat(state: GameState, e: PlayerReplaced) -> str:
    """The username that left the seat in REPLACE `e` (`state`: after it, or later)."""
    if not e.keeps_id:  # a log from before seat ids: the seat was named by that player
        return e.player
    # who played the seat, in turn: its id first (it was dealt under it), then whoever
    # took it over, as `replaced` records them, and whoever plays it now
    chain = [n for n, seat in state.replaced.items() if seat == e.player] + [state.shown(e.player)]
    at = max((i for i, n in enumerate(chain) if n == e.by), default=len(chain) - 1)
    return chain[at - 1] if at > 0 else e.player


def free_reserves(state: GameState) -> list[str]:
    """The host's reserves who neither play nor played in this game (usernames: those on
    the seats now, and those who left one)."""
    taken = {n.casefold() for n in state.names} | {n.casefold() for n in state.replaced}
    return [r for r in state.config.reserves if r.casefold() not in taken]


def host_plays(state: GameState) -> bool:
    """Whether the host plays a seat (the usernames on the seats now)."""
    return any(state.config.is_host(n) for n in state.names)


def card(key: str) -> str:
    """A Plot Card's name."""
    return PLOT_CARDS[key].name


def mc(key: str) -> str:
    """A Mission Card's name."""
    return MISSION_CARDS[key].name


def own_words(config, command: str, m: Markup) -> str:
    """" (or **yay**, **aye**)": the host's own words for `command` (the config's `words:`,
    checked by check-config: plain words, never a link), or nothing."""
    said = getattr(config, "words", {}).get(command, ())
    return f" (or {', '.join(m.bold(w) for w in said)})" if said else ""


def vote_forms(config, m: Markup) -> str:
    """**APPROVE** or **REJECT**, with the host's own words for each (and for ABSTAIN, if any)."""
    forms = (f"{m.bold('APPROVE')}{own_words(config, 'approve', m)} or "
             f"{m.bold('REJECT')}{own_words(config, 'reject', m)}")
    if abstain := own_words(config, "abstain", m):
        forms += f", or {m.bold('ABSTAIN')}{abstain} to abstain"
    return forms


def order_forms(config, m: Markup) -> str:
    """**SUPPORT** or **SABOTAGE**, with the host's own words for each."""
    return (f"{m.bold('SUPPORT')}{own_words(config, 'support', m)} or "
            f"{m.bold('SABOTAGE')}{own_words(config, 'sabotage', m)}")


def block_separator(m: Markup) -> str:
    """Between the status block and the rest of the opening post."""
    return f"\n\n{m.rule()}\n\n"


def with_block(opening: str, block: str, m: Markup) -> str:
    """The opening post with its status block replaced by `block`."""
    sep = block_separator(m)
    rest = opening.split(sep, 1)[1] if sep in opening else opening
    return block + sep + rest


def pm_footer(tag: str) -> str:
    """The last line of every PM about a game: a chat (Reddit's) may drop the subject, and the
    tag is how the bot knows which game an answer is for."""
    return f"Put {tag} in any message you send me about this game (a chat may drop the subject)."


def with_footer(body: str, tag: str) -> str:
    footer = pm_footer(tag)
    return body if body.rstrip().endswith(footer) else f"{body}\n\n{footer}"


def limits(state: GameState) -> Deadlines:
    """The game's deadlines (a config always has them once made)."""
    d = state.config.deadlines
    if d is None:
        raise ValueError("a game config without its deadlines")
    return d


def missed_rules(state: GameState) -> Missed:
    """What a missed vote or order does (a config always has it once made)."""
    missed = state.config.missed
    if missed is None:
        raise ValueError("a game config without its missed rules")
    return missed


def seat_of(state: GameState, seat_id: str) -> Seat:
    """The seat `seat_id` (a seat's id, as events and the state name it; not a username)."""
    seat = state.seat(seat_id)
    if seat is None:
        raise KeyError(f"no seat {seat_id!r} in this game")
    return seat
