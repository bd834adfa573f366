"""The public state of a game in a few lines: safe for anyone to read. The state names seats
by their ids; what is shown is the username on each seat now (`state.shown`)."""
from __future__ import annotations

from typing import cast

from ..rules.deadlines import due, stamp
from ..rules.hooks import phase_words
from ..rules.state import MISSION, PROPOSAL, TEAM_VOTE, GameState
from .words import relative, side_name, track

# Why a game ended with no winner.
ENDED_WITHOUT_WINNER = {"aborted": "the host aborted it",
                        "abandoned": "it was abandoned, as nobody proposed a team for two full "
                                     "turns of the leadership"}
# How a side won, as posts say it.
WIN_REASONS = {"missions": "three missions", "rejections": "five rejected teams in one mission",
               "assassination": "the assassination"}


def public_status(state: GameState, tag: str) -> str:
    done = " ".join(("✔" if m.result == "success" else "✘") for m in state.missions) or "none yet"
    lines = [f"{tag}: missions played: {done}."]
    when = due(state)
    deadline = f" Deadline: {stamp(when, state.config)}." if when else ""
    if state.paused_at is not None:
        deadline = " The game is paused."
    leader = state.shown(state.leader or "")
    if state.phase == PROPOSAL:
        lines.append(f"Mission {state.mission}: waiting for the leader, {leader}, to "
                     f"propose a team of {state.team_size()}.{deadline}")
    elif state.phase == TEAM_VOTE:
        waiting = _listed(state, state.waiting_for()) or "nobody"
        lines.append(f"Mission {state.mission}: voting on {leader}'s team "
                     f"({_listed(state, state.team)}). Still to vote: {waiting}.{deadline}")
    elif state.phase == MISSION:
        n = len(state.team)
        lines.append(f"Mission {state.mission} is under way: {len(state.orders)} of {n} orders "
                     f"are in.{deadline}")
    elif state.running:  # a card, the Lady or the assassination: those who must act are public
        who = f" Waiting for: {_listed(state, state.actors)}." if state.actors else ""
        lines.append(f"Mission {state.mission or 1}: {phase_words(state.phase)}.{who}{deadline}")
    elif state.winner is None:
        why = ENDED_WITHOUT_WINNER.get(state.win_reason or "", state.win_reason)
        lines.append(f"The game is over, with no winner: {why}.")
    else:

        why = WIN_REASONS.get(state.win_reason or "", state.win_reason)
        lines.append(f"The game is over: {side_name(state, state.winner)} won, by {why}.")
    return " ".join(lines)


def status_block(state: GameState, tag: str, m) -> str:
    """The block at the top of the opening post, edited in place after every change: the
    mission track, the phase, its deadline (UTC and relative) and who still has to act (for
    a mission only how many orders are in). Never a vote before it is revealed."""

    lines = [m.bold(f"Status of {tag}") + (f" (as of {state.last_event_at:%Y-%m-%d %H:%M} UTC)"
                                           if state.last_event_at else "")]
    lines.append(track(state, m))
    when = due(state)
    if state.paused_at is not None:
        deadline = "The game is paused by the host; every clock has stopped."
    elif when is not None and state.last_event_at is not None:
        left = max(0, int((when - state.last_event_at).total_seconds()))
        deadline = f"Deadline: {stamp(when, state.config)} (in {relative(left)})."
    else:
        deadline = "No deadline."
    leader = state.shown(state.leader or "")
    if state.phase == PROPOSAL:
        lines.append(f"Now: mission {state.mission}, proposal {state.attempt}. The leader, "
                     f"{leader}, proposes a team of {state.team_size()}.")
        lines.append(deadline)
    elif state.phase == TEAM_VOTE:
        lines.append(f"Now: the vote on {leader}'s team for mission {state.mission} "
                     f"({_listed(state, state.team)}).")
        lines.append(deadline + " Still to vote: " + (_listed(state, state.waiting_for()) or "nobody") + ".")
    elif state.phase == MISSION:
        lines.append(f"Now: mission {state.mission} with {_listed(state, state.team)}.")
        lines.append(f"{deadline} Orders in: {len(state.orders)} of {len(state.team)}.")
    elif state.running:
        lines.append(f"Now: mission {state.mission or 1}, {phase_words(state.phase)}.")
        lines.append(deadline + (f" Waiting for: {_listed(state, state.actors)}." if state.actors else ""))
    elif state.phase == "setup":
        lines.append("Now: the roles are being dealt.")
    elif state.win_reason == "aborted":
        lines.append("The game was ended by the host.")
    elif state.win_reason == "abandoned":
        lines.append("The game is abandoned: nobody proposed a team for two full turns of the leadership.")
    else:
        lines.append(f"The game is over: {side_name(state, cast(str, state.winner))} won.")
    return "  \n".join(lines) if m.name == "markdown" else "\n".join(lines)


def _listed(state: GameState, seats) -> str:
    """Seats (their ids) by the usernames on them now."""
    return ", ".join(state.shown(s) for s in seats)


def host_status(state: GameState, tag: str) -> str:
    """The full state for a host who does not play: roles, votes and orders so far."""
    lines = [public_status(state, tag), "", "Roles:"]
    lines += [f"- {s.name}: {s.role} ({s.side})" + (" (disqualified)" if s.disqualified else "")
              for s in state.seats]
    if state.phase == TEAM_VOTE and state.votes:
        lines.append("Votes so far: " + ", ".join(f"{state.shown(n)} {v}" for n, v in state.votes.items()))
    if state.phase == MISSION and state.orders:
        lines.append("Orders so far: " + ", ".join(f"{state.shown(n)} {o}" for n, o in state.orders.items()))
    if state.paused_at is not None:
        lines.append(f"Paused since {state.paused_at:%Y-%m-%d %H:%M} UTC.")
    return "\n".join(lines)
