"""The public state of a game in a few lines: safe for anyone to read."""
from __future__ import annotations

from .deadlines import due
from .rules.state import MISSION, PROPOSAL, TEAM_VOTE, GameState


def public_status(state: GameState, tag: str) -> str:
    done = " ".join(("✔" if m["result"] == "success" else "✘") for m in state.missions) or "none yet"
    lines = [f"{tag}: missions played: {done}."]
    when = due(state)
    deadline = f" Deadline: {when:%Y-%m-%d %H:%M} UTC." if when else ""
    if state.paused_at is not None:
        deadline = " The game is paused."
    if state.phase == PROPOSAL:
        lines.append(f"Mission {state.mission}: waiting for the leader, {state.leader}, to "
                     f"propose a team of {state.team_size()}.{deadline}")
    elif state.phase == TEAM_VOTE:
        waiting = ", ".join(state.waiting_for()) or "nobody"
        lines.append(f"Mission {state.mission}: voting on {state.leader}'s team "
                     f"({', '.join(state.team)}). Still to vote: {waiting}.{deadline}")
    elif state.phase == MISSION:
        n = len(state.team)
        lines.append(f"Mission {state.mission} is under way: {len(state.orders)} of {n} orders "
                     f"are in.{deadline}")
    elif state.running:  # a card, the Lady or the assassination: those who must act are public
        step = state.phase.replace("_", " ")
        who = f" Waiting for: {', '.join(state.actors)}." if state.actors else ""
        lines.append(f"Mission {state.mission or 1}: the {step} step.{who}{deadline}")
    else:
        lines.append(f"The game is over: {state.winner} won ({state.win_reason}).")
    return " ".join(lines)


def host_status(state: GameState, tag: str) -> str:
    """The full state for a host who does not play: roles, votes and orders so far."""
    lines = [public_status(state, tag), "", "Roles:"]
    lines += [f"- {s.name}: {s.role} ({s.side})" + (" (disqualified)" if s.disqualified else "")
              for s in state.seats]
    if state.phase == TEAM_VOTE and state.votes:
        lines.append("Votes so far: " + ", ".join(f"{n} {v}" for n, v in state.votes.items()))
    if state.phase == MISSION and state.orders:
        lines.append("Orders so far: " + ", ".join(f"{n} {o}" for n, o in state.orders.items()))
    if state.paused_at is not None:
        lines.append(f"Paused since {state.paused_at:%Y-%m-%d %H:%M} UTC.")
    return "\n".join(lines)
