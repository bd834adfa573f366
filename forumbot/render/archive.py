"""The archive page's words for the core game (each rule module registers its own in
render/modules/, render/registry.py): the names of roles and sides, what a vote's cell says,
the open step, the outcome, the deadlines, and the timeline's items for the host's and the
bot's interruptions. archive/ lays them out on the page."""
from __future__ import annotations

from collections.abc import Callable

from ..rules import events as ev
from ..rules.config import GameConfig
from ..rules.deadlines import format_duration
from ..rules.hooks import phase_words
from ..rules.state import MISSION, PROPOSAL, SPIES, TEAM_VOTE, GameState
from . import registry
from .status import ENDED_WITHOUT_WINNER, WIN_REASONS
from .words import ROLE_NAMES, relative, side_name, side_wins

SHORT_ROLES = {"Loyal Servant of Arthur": "Servant", "Minion of Mordred": "Minion"}
VOTE_WORDS = {"approve": "approve", "reject": "reject", "abstain": "abstain"}
VOTE_SYMBOLS = {"approve": "✓", "reject": "✗", "abstain": "–", "barred": "⊘"}


def lasted(seconds: float) -> str:
    """How long a game lasted, in the largest unit it reached: "12 minutes" under an hour,
    "5 hours" under a day, else "3 days" (hours and days rounded; 23h 40m is "1 day"; a game
    of 40 seconds lasted "less than a minute")."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return "less than a minute"
    if seconds < 3600:
        n, unit = seconds // 60, "minute"
    elif round(seconds / 3600) < 24:
        n, unit = round(seconds / 3600), "hour"
    else:
        n, unit = max(1, round(seconds / 86400)), "day"
    return f"{n} {unit}{'' if n == 1 else 's'}"


def role_name(role: str) -> str:
    return ROLE_NAMES.get(role, role.replace("-", " ").title())


def short_role(role: str) -> str:
    """A role's name in the grid's narrow column."""
    name = role_name(role)
    return SHORT_ROLES.get(name, name)


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def side_title(state: GameState, side: str) -> str:
    """A side's name as a heading: "The Resistance", "Spies"."""
    return capital(side_name(state, side))


def vote_words(kind: str, critical: bool, defaulted: bool, proxy: str | None, leader: bool,
               on_team: bool) -> list[str]:
    """What a cell of the vote grid says of one seat's vote (`kind`: approve, reject, abstain,
    barred); `proxy`: who cast it with Chicago Proxy."""
    words = ["not voting (barred by a card)" if kind == "barred" else VOTE_WORDS.get(kind, kind)]
    if critical:
        words.append("critical, counted double")
    if defaulted:
        words.append("a default (missed)")
    if proxy is not None:
        words.append(f"cast by {proxy} (Chicago Proxy)")
    if leader:
        words.append("leader")
    if on_team:
        words.append("on the team")
    return words


def outcome(state: GameState) -> dict:
    """How a finished game ended: its headline and why."""
    if state.winner is None:
        reason = state.win_reason or ""
        why = ENDED_WITHOUT_WINNER.get(reason, reason)
        return {"side": None, "headline": "No winner", "why": capital(why) + "."}
    return {"side": "spies" if state.winner == SPIES else "resistance",
            "headline": capital(side_wins(state, state.winner)),  # ("Good wins", "The Spies win")
            "why": f"By {WIN_REASONS.get(state.win_reason or '', state.win_reason)}."}


def open_step(state: GameState) -> str:
    """The open step of a running game, in public words: never who must act in the
    assassination (a module's phase says what its module registered)."""
    registry.load()
    if state.paused_at is not None:
        return "The game is paused by the host."
    shown = state.shown
    leader = shown(state.leader) if state.leader else state.leader
    if state.phase == PROPOSAL:
        return (f"Mission {state.mission}, proposal {state.attempt}: {leader} leads and "
                f"proposes a team of {state.team_size()}.")
    if state.phase == TEAM_VOTE:
        return f"Mission {state.mission}: the vote on {leader}'s team ({', '.join(shown(n) for n in state.team)})."
    if state.phase == MISSION:
        return f"Mission {state.mission} is under way with {', '.join(shown(n) for n in state.team)}."
    if state.phase in registry.NOW:  # a rule module's phase
        return registry.NOW[state.phase]
    who = f" Waiting for {', '.join(shown(n) for n in state.actors)}." if state.actors else ""
    return f"Mission {state.mission or 1}: {phase_words(state.phase)}.{who}"


def deadline_words(cfg: GameConfig) -> str:
    d = cfg.deadlines
    return (f"proposal {format_duration(d.proposal)} · team vote {format_duration(d.team_vote)} · "
            f"mission {format_duration(d.mission)}")


def core_item(state: GameState, e, name: Callable[[str], str], when: Callable[[str], str]) -> dict | None:
    """An event of the core game on the timeline, in the words of the thread's post about it:
    `name(seat)` is the username on a seat then, `when(iso)` a moment as the page shows it."""
    if isinstance(e, ev.GameStarted):
        return {"kind": "start", "label": "Start", "symbol": "▶",
                "text": f"The game starts with {len(e.order)} players. Leader order: "
                        f"{', '.join(name(n) for n in e.order)}."}
    if isinstance(e, ev.HostAction):
        action = e.action or "close"
        if action == "skip":
            text = f"The host skipped {phase_words(e.phase)}: it ended as if its deadline had passed."
        elif action == "record":
            if e.kind == "MissionOrder":
                text = "The host recorded a mission order that was sent to them privately."
            else:
                what = {"TeamVote": "vote", "Propose": "proposal"}.get(e.kind or "", "choice")
                text = f"The host recorded {name(e.player or '')}'s {what}, sent to them privately."
        else:
            what = "team vote" if e.phase == "team_vote" else "mission"
            text = f"The host closed the {what} early; what was missing took its default."
        return {"kind": "host", "label": "Host", "symbol": "⚑", "text": text}
    if isinstance(e, ev.DeadlineExtended):
        return {"kind": "host", "label": "Host", "symbol": "⚑",
                "text": f"The host extended the deadline of {phase_words(e.phase)} "
                        f"by {format_duration(e.seconds)}."}
    if isinstance(e, ev.GamePaused):
        until = f" until {when(e.until)}" if e.until else ""
        return {"kind": "host", "label": "Host", "symbol": "‖", "text": f"The host paused the game{until}."}
    if isinstance(e, ev.GameResumed):
        return {"kind": "host", "label": "Host", "symbol": "▷",
                "text": f"The game resumed after {relative(int(e.paused_seconds))}, with the time that was left."}
    if isinstance(e, ev.PlayerReplaced):
        back = " The seat had been disqualified; it played again from then on." if e.was_disqualified else ""
        return {"kind": "seat", "label": "Substitution", "symbol": "⇆",
                "text": f"{e.by} replaces {name(e.player)}, taking over the seat and its history.{back}"}
    if isinstance(e, ev.PlayerDisqualified):
        return {"kind": "seat", "label": "Disqualified", "symbol": "⊘",
                "text": f"{name(e.player)} is disqualified ({e.reason}); the seat plays the defaults."}
    if isinstance(e, ev.DeadlineMoved):
        gone = "The forum could not be read" if e.reason == "forum" else "The bot was not running"
        return {"kind": "bot", "label": "Bot", "symbol": "⟳",
                "text": f"{gone} for a while, so the deadline of {phase_words(e.phase)} moved on."}
    if isinstance(e, ev.ProposalsStalled):
        return {"kind": "bot", "label": "Bot", "symbol": "⟳",
                "text": "A full turn of leaders let the proposal deadline pass; the host was told."}
    if isinstance(e, ev.GameEnded):
        if e.reason == "aborted":
            return {"kind": "host", "label": "Host", "symbol": "■", "text": "The host aborted the game."}
        if e.reason == "abandoned":
            return {"kind": "end", "label": "End", "symbol": "■",
                    "text": "The game was abandoned: nobody proposed a team for two full turns."}
        return {"kind": "end", "label": "End", "symbol": "■",
                "text": f"{capital(side_wins(state, e.winner or ''))}, "
                        f"by {WIN_REASONS.get(e.reason, e.reason)}."}
    return None
