"""Deadlines as pure functions of a game's state: when the open phase is due, and the
command that closes it. The scheduler only decides when to ask."""
from __future__ import annotations

import re
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from .commands import Expire, HostResume, Remind
from .hooks import plugin_classes
from .state import MISSION, PROPOSAL, TEAM_VOTE, GameState

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"^\s*(\d+)\s*([smhd])\s*$", re.I)
MAX_DURATION = 30 * 86400  # a deadline, an EXTEND, a config's duration: at most 30 days
# What the clock waits at most, whatever a stored config says (one from before the bound):
# far enough never to matter, near enough that no date overflows.
_LONGEST_WAIT = 3650 * 86400


def parse_duration(text: str | int | None, most: int = MAX_DURATION) -> int | None:
    """'90s', '30m', '12h', '2d' -> seconds, at most `most`; 'none' -> None. Raises
    ValueError with words that follow the value ("`5x` is not a duration ...")."""
    like = f"is not a duration like 90s, 30m, 12h or 2d (at most {format_duration(most)}), or none"
    if text is None:
        return None
    if isinstance(text, bool):
        raise ValueError(like)
    if isinstance(text, int):
        seconds = text
    else:
        if not isinstance(text, str):
            raise ValueError(like)
        if text.strip().lower() == "none":
            return None
        m = _DURATION.match(text[:100])
        if not m:
            raise ValueError(like)
        digits = m.group(1).lstrip("0") or "0"
        if len(digits) > len(str(most)):  # (int() of thousands of digits is refused)
            raise ValueError(f"is longer than {format_duration(most)}")
        seconds = int(digits) * _UNITS[m.group(2).lower()]
    if seconds <= 0:
        raise ValueError("must be positive (or none)")
    if seconds > most:
        raise ValueError(f"is longer than {format_duration(most)}")
    return seconds


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
    at = aligned(state.phase_opened_at + clamped(length), state.config)
    at += clamped(state.extension)
    if (state.phase == TEAM_VOTE and d.close_early and d.close_grace and state.last_vote_at
            and not state.waiting_for()):
        at = min(at, state.last_vote_at + clamped(d.close_grace))
    return at


def clamped(seconds) -> timedelta:
    """A stored number of seconds as a wait the clock can hold (a config from before the
    bounds may hold 9999999d: no OverflowError, ever)."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds != seconds:
        return timedelta(0)
    return timedelta(seconds=max(0, min(seconds, _LONGEST_WAIT)))


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
    if when - opened <= clamped(before):
        return opened + timedelta(seconds=(when - opened).total_seconds() // 2)
    return when - clamped(before)


def reminder(state: GameState, now: datetime) -> Remind | None:
    at = remind_at(state)
    if at is None or at > now:
        return None
    return Remind(at=at, author="", phase_id=state.phase_id)


def resume(state: GameState, now: datetime):
    """A PAUSE ... UNTIL that has run out: the command that resumes the game."""
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
