"""Deadlines as pure functions of a game's state: when the open phase is due, and the
command that closes it. The scheduler only decides when to ask."""
from __future__ import annotations

import re
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from .rules.commands import Expire, Remind
from .rules.state import MISSION, PROPOSAL, TEAM_VOTE, GameState

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"^\s*(\d+)\s*([smhd])\s*$", re.I)


def parse_duration(text: str | int | None) -> int | None:
    """'90s', '30m', '12h', '2d' -> seconds; 'none' -> None. Raises ValueError."""
    if text is None:
        return None
    if isinstance(text, bool):
        raise ValueError("a duration like 90s, 30m, 12h or 2d, or none")
    if isinstance(text, int):
        if text <= 0:
            raise ValueError("a duration must be positive")
        return text
    if str(text).strip().lower() == "none":
        return None
    m = _DURATION.match(str(text))
    if not m or int(m.group(1)) <= 0:
        raise ValueError(f"{text!r} is not a duration like 90s, 30m, 12h or 2d, or none")
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


def extension(text: str) -> int | None:
    """A host's EXTEND argument in seconds, or None if it is not a positive duration."""
    try:
        return parse_duration(text or "x")
    except ValueError:
        return None


def format_duration(seconds: int | None) -> str:
    if seconds is None:
        return "none"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


# A plug-in's phase and the config deadline that times it.
# (the rule modules declare theirs: RulePlugin.phases)
PHASE_DEADLINES: dict[str, str] = {PROPOSAL: "proposal", TEAM_VOTE: "team_vote", MISSION: "mission"}


_MODULE_PHASES: dict[str, str] = {}


def _module_phases() -> dict[str, str]:
    """The rule modules' phases and their deadlines (RulePlugin.phases)."""
    if not _MODULE_PHASES:
        from .rules.hooks import plugin_classes

        for cls in plugin_classes():
            _MODULE_PHASES.update(cls.phases)
        _MODULE_PHASES.setdefault("", "")
    return _MODULE_PHASES


def window(state: GameState) -> int | None:
    """The length of the open phase's window, in seconds (None: it waits forever)."""
    if state.extra.get("waiting_forever") == state.phase_id:
        return None  # its deadline passed and it has no default (the assassination)
    name = PHASE_DEADLINES.get(state.phase) or _module_phases().get(state.phase)
    return getattr(state.config.deadlines, name) if name else None


def due(state: GameState) -> datetime | None:
    """When the open phase closes by itself (never while the game is paused): its window,
    rounded up to `align_to` in the game's time zone, plus EXTENDs and pauses. With
    `close_grace`, a team vote that everyone has voted in closes that long after the last
    vote, if that comes first."""
    if not state.running or state.phase_opened_at is None or state.paused_at is not None:
        return None
    length = window(state)
    if length is None:
        return None
    d = state.config.deadlines
    at = aligned(state.phase_opened_at + timedelta(seconds=length), state.config)
    at += timedelta(seconds=state.extension)
    if (state.phase == TEAM_VOTE and d.close_early and d.close_grace and state.last_vote_at
            and not state.waiting_for()):
        at = min(at, state.last_vote_at + timedelta(seconds=d.close_grace))
    return at


def aligned(at: datetime, config) -> datetime:
    """`at` rounded up to the config's `align_to` time of day, in its time zone (UTC if none).
    The wall-clock time holds across a daylight-saving change."""
    align = config.deadlines.align_to if config.deadlines else None
    if not align:
        return at
    zone = ZoneInfo(config.timezone or "UTC")
    local = at.astimezone(zone)
    hour, minute = (int(x) for x in align.split(":"))
    day = local.date()
    for _ in range(3):
        candidate = datetime.combine(day, time(hour, minute), tzinfo=zone)
        if candidate >= local:
            return candidate.astimezone(timezone.utc)
        day += timedelta(days=1)
    raise AssertionError("unreachable")


def stamp(at: datetime, config=None) -> str:
    """A moment as posts show it: UTC, and the game's own time zone next to it."""
    text = f"{at.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC"
    tz = getattr(config, "timezone", None)
    if tz:
        local = at.astimezone(ZoneInfo(tz))
        text += f" ({local:%Y-%m-%d %H:%M} {local.tzname()})"
    return text


def remind_at(state: GameState) -> datetime | None:
    """When the players who still have to act are reminded, once per deadline: `remind_before`
    the deadline; when the phase is no longer than that, at half the phase's length (never
    at the moment it opened)."""
    when, before = due(state), state.config.deadlines.remind_before
    if when is None or not before or state.reminded == state.phase_id or not state.waiting_for():
        return None
    opened = state.phase_opened_at
    if opened is None:
        return None
    if when - opened <= timedelta(seconds=before):
        return opened + timedelta(seconds=(when - opened).total_seconds() // 2)
    return when - timedelta(seconds=before)


def reminder(state: GameState, now: datetime) -> Remind | None:
    at = remind_at(state)
    if at is None or at > now:
        return None
    return Remind(at=at, author="", phase_id=state.phase_id)


def resume(state: GameState, now: datetime):
    """A PAUSE ... UNTIL that has run out: the command that resumes the game."""
    from .rules.commands import HostResume

    if state.paused_at is None or state.paused_until is None or state.paused_until > now:
        return None
    return HostResume(at=state.paused_until, author="the clock")


def next_wakeup(state: GameState) -> datetime | None:
    """The next time the clock has something to do for this game."""
    until = state.paused_until if state.paused_at is not None else None
    times = [t for t in (due(state), remind_at(state), until) if t is not None]
    return min(times) if times else None


def expired(state: GameState, now: datetime) -> Expire | None:
    """The command that closes the open phase, if its deadline is at or before `now`.
    It is stamped with the deadline itself, so a late tick changes nothing."""
    when = due(state)
    if when is None or when > now:
        return None
    return Expire(at=when, author="", phase_id=state.phase_id)
