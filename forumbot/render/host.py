"""What the host does, and what the host is told: CLOSE, SKIP and RECORD, EXTEND, PAUSE and
RESUME, REPLACE (with the newcomer's PM), DISQUALIFY, and the stall of the proposals."""
from __future__ import annotations

from datetime import datetime

from ..rules import events as ev
from ..rules.deadlines import due, format_duration, stamp
from ..rules.events import (
    DeadlineExtended,
    GamePaused,
    GameResumed,
    HostAction,
    PlayerDisqualified,
    PlayerReplaced,
    ProposalsStalled,
)
from ..rules.hooks import phase_words
from ..rules.state import GameState
from .markup import Markup
from .opening import _role_pm
from .registry import private, public
from .words import Message, free_reserves, left_seat, listed, propose_form
from .words import card as _card
from .words import mc as _mc


@public(ev.HOST_ACTION)
def _host_action(state: GameState, e: HostAction, tag: str, m: Markup) -> str:
    action = e.action or "close"
    if action == "skip":
        return (f"The host skipped {phase_words(e.phase)}: it ends now, as if its deadline "
                "had passed.")
    if action == "record":
        if e.kind == "MissionOrder":  # never who has ordered: that would narrow the spies down
            return "The host recorded a mission order that was sent to them privately."
        what = {"TeamVote": "vote", "Propose": "proposal"}.get(e.kind or "", "choice")
        return f"The host recorded {state.shown(e.player or '')}'s {what}, sent to them privately."
    what = "team vote" if e.phase == "team_vote" else "mission"
    return f"The host closed the {what} now; what is missing takes its default."


@public(ev.DEADLINE_EXTENDED)
def _deadline_extended(state: GameState, e: DeadlineExtended, tag: str, m: Markup) -> str:

    when = due(state)
    new = f" It is now {stamp(when, state.config)}." if when and state.phase == e.phase else ""
    return f"The host extended the deadline by {format_duration(e.seconds)}.{new}"


@public(ev.GAME_PAUSED)
def _game_paused(state: GameState, e: GamePaused, tag: str, m: Markup) -> str:
    if e.until:
        return ("The host paused the game: every clock is stopped until "
                f"{stamp(datetime.fromisoformat(e.until), state.config)}, when it resumes by itself.")
    return "The host paused the game: every clock is stopped until it resumes."


@public(ev.GAME_RESUMED)
def _game_resumed(state: GameState, e: GameResumed, tag: str, m: Markup) -> str:

    when = due(state)
    new = f" The deadline is now {stamp(when, state.config)}." if when else ""
    return f"The game resumes, with the time that was left when it was paused.{new}"


@public(ev.PLAYER_REPLACED)
def _replaced(state: GameState, e: PlayerReplaced, tag: str, m: Markup) -> str:
    old = left_seat(state, e)
    back = " The seat was disqualified; it plays again from now on." if e.was_disqualified else ""
    return (f"{m.bold(e.by)} replaces {old}: {e.by} takes over that seat, with "
            f"everything {old} did so far in this game (votes and orders stand). From now on "
            f"only {e.by} answers for it.{back}")


@private(ev.PLAYER_REPLACED)
def _replaced_pms(state: GameState, e: PlayerReplaced, tag: str, m: Markup) -> list[Message]:
    old = left_seat(state, e)  # (the username that left: the PM goes to them, not to the seat)
    return [Message(f"newcomer:{e.by}", _newcomer_pm(state, e, tag, m), to=e.by,
                    subject=f"{tag}: you are in the game", priority=0),
            Message(f"replaced:{old}", f"{tag}: the host has given your seat to "
                    f"{e.by}. You no longer play in this game; thank you for playing.",
                    to=old, subject=f"{tag}: you were replaced")]


def _newcomer_pm(state: GameState, e: PlayerReplaced, tag: str, m: Markup) -> str:

    old = left_seat(state, e)
    new = e.player if e.keeps_id else e.by  # the seat (a log from before ids renamed it)
    parts = [f"You now play in {tag} in place of {old}: the seat, its role, its cards and "
             f"everything {old} did so far are yours.", _role_pm(state, tag, new, m)]
    hands = [card_key for key in ("plot", "mc") if key in state.extra
             for card_key in _hands(state, key).get(new, [])]
    if hands:
        names = [(_card(k) if "plot" in state.extra else _mc(k)) for k in hands]
        parts.append("Your cards: " + ", ".join(m.bold(n) for n in names) + ".")
    deadline = due(state)
    by = f" by {stamp(deadline, state.config)}" if deadline else ""
    if state.phase == "mission" and new in state.team:
        if new in state.orders:
            parts.append(f"Your seat's order for mission {state.mission} is in: "
                         f"{m.bold(state.orders[new].upper())}. You may change it{by}.")
        else:
            parts.append(f"You are on the team for mission {state.mission}: PM me "
                         f"{m.bold('SUPPORT')} or {m.bold('SABOTAGE')}{by}.")
    elif state.phase == "team_vote" and new not in state.not_voting:
        if new in state.votes:
            parts.append(f"Your seat's vote on the team is {m.bold(state.votes[new].upper())}. "
                         f"You may change it{by}.")
        else:
            parts.append(f"Vote on the team {listed(state, state.team)}: {m.bold('APPROVE')} or "
                         f"{m.bold('REJECT')}{by}.")
    elif state.phase == "proposal" and state.leader == new:
        parts.append(f"You lead now: post {m.bold(propose_form(state))} in the thread "
                     f"({state.team_size()} players){by}.")
    elif new in state.actors:
        parts.append(f"It is your turn to act; see the thread{by}.")
    return "\n\n".join(parts)


@public(ev.PLAYER_DISQUALIFIED)
def _disqualified(state: GameState, e: PlayerDisqualified, tag: str, m: Markup) -> str:
    return (f"{state.shown(e.player)} is disqualified ({e.reason}). The slot stays in the game and "
            "plays the default from now on.")


@private(ev.PLAYER_DISQUALIFIED)
def _host_dq_pm(state: GameState, e: PlayerDisqualified, tag: str, m: Markup) -> list[Message]:
    return [Message(f"host-dq:{e.player}", _host_disqualified(state, e, tag, m),
                    to=state.config.host, subject=f"{tag}: a player was disqualified")]


def _host_disqualified(state: GameState, e: PlayerDisqualified, tag: str, m: Markup) -> str:
    name = state.shown(e.player)
    reserves = free_reserves(state)
    command = m.code(f"REPLACE {tag} {name} WITH {reserves[0] if reserves else 'newname'}")
    offer = f" Your reserves: {', '.join(reserves)}." if reserves else ""
    return (f"{name} was disqualified in {tag} ({e.reason}). To put someone in the "
            f"slot, PM me: {command}{offer}")


@public(ev.PROPOSALS_STALLED)
def _proposals_stalled(state: GameState, e: ProposalsStalled, tag: str, m: Markup) -> str:
    return (f"Nobody has proposed a team for a full turn of the leadership: each of the "
            f"{e.turn} leaders in turn let the proposal deadline pass. The host has been "
            "told. If another full turn passes with no proposal, the bot ends the game as "
            "abandoned.")


@private(ev.PROPOSALS_STALLED)
def _host_stalled_pm(state: GameState, e: ProposalsStalled, tag: str, m: Markup) -> list[Message]:
    return [Message("host-stalled", _host_stalled(state, e, tag, m), to=state.config.host,
                    subject=f"{tag}: nobody proposes", priority=0)]


def _host_stalled(state: GameState, e: ProposalsStalled, tag: str, m: Markup) -> str:
    """The host's PM after one full turn with no proposal: the ways to step in."""
    reserves = free_reserves(state)
    newcomer = reserves[0] if reserves else "newname"
    offer = f" Your reserves: {', '.join(reserves)}." if reserves else ""
    seat = state.seat(state.leader) if state.leader else None
    leader = seat.name if seat is not None else "name"
    target = "name" if seat is None or seat.disqualified else leader  # (every seat out: REPLACE helps)
    return (f"{tag}: nobody has proposed a team for a full turn of the leadership: each of the "
            f"{e.turn} leaders in turn missed the proposal deadline ({e.missed} in a row). "
            f"If another full turn passes with no proposal, I end the game as abandoned and "
            f"reveal the roles. A human GM would step in; you can, by PM:\n\n"
            f"- {m.code(f'SKIP {tag}')}: the leader now, {leader}, is passed over at once (it "
            "counts as a missed proposal);\n"
            f"- {m.code(f'REPLACE {tag} {leader} WITH {newcomer}')}: someone else takes a seat, "
            f"role and all;{offer}\n"
            f"- {m.code(f'DISQUALIFY {tag} {target}')}: the seat stays but never leads again;\n"
            f"- {m.code(f'ABORT {tag}')}: the game ends now, with no winner.")


def _hands(state: GameState, key: str) -> dict[str, list[str]]:
    """The cards each seat keeps, of the plug-in at `extra[key]` (the Plot Cards, the Mission
    Cards): seat id -> card keys."""
    return state.extra[key].hands
