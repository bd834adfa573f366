"""The game's start: the opening post (with its status block), each player's role PM, and
the spectators' PMs."""
from __future__ import annotations

from ..rules import events as ev
from ..rules.deadlines import format_duration
from ..rules.events import GameStarted
from ..rules.presets import TEAM_SIZES, fails_needed
from ..rules.roles import role_set
from ..rules.state import SPIES, GameState
from . import registry
from .markup import Markup
from .registry import private
from .status import status_block
from .words import (
    Message,
    block_separator,
    limits,
    missed_rules,
    order_forms,
    propose_form,
    role_name,
    seat_of,
    side_member,
    side_name,
    vote_forms,
)


@private(ev.GAME_STARTED)
def _started(state: GameState, e: GameStarted, tag: str, m: Markup) -> list[Message]:
    """The opening post is a message of its own (a new thread, or the game's first comment),
    not a text in the batch's post; the role PMs and the spectators' follow it."""

    body = status_block(state, tag, m) + block_separator(m) + _opening(state, e, tag, m)
    out = [Message("opening", body, opening=True, title=f"{state.config.title} ({tag})", priority=0)]
    for seat in state.seats:
        out.append(Message(f"role:{seat.id}", _role_pm(state, tag, seat.id, m), to=seat.name,
                           subject=f"{tag}: your role", priority=0))
    for name in state.config.spectators:
        out.append(Message(f"spectator:{name}", _spectator_pm(state, tag, m), to=name,
                           subject=f"{tag}: you are watching", priority=0))
    return out


def _opening(state: GameState, e: GameStarted, tag: str, m: Markup) -> str:
    c = state.config
    p = c.rules
    n = len(state.seats)
    d = limits(state)
    missed = missed_rules(state)
    rows = [[str(i), str(TEAM_SIZES[n][i - 1]) + (" (2 SABOTAGEs to fail)" if fails_needed(p, n, i) == 2 else "")]
            for i in range(1, 6)]
    votes_where = "by PM to the bot only" if c.team_votes == "pm" else "in a bold comment here, or by PM"
    parts = [
        m.heading(f"{c.title} ({tag})"),
        *([c.intro] if c.intro else []),
        f"{p.title}. Host: {c.host}. {n} players, {len(state.spies())} of them {p.spies_name.removeprefix('the ')}.",
        p.summary,
        m.bold("Leader order") + ": " + ", ".join(state.names),
        m.table(["Mission", "Team size"], rows),
        m.bold("Deadlines") + f": proposal {format_duration(d.proposal)}, team vote "
        f"{format_duration(d.team_vote)}, mission {format_duration(d.mission)}. A missed team "
        f"vote counts as {missed.team_vote.upper()}; a missed mission order as "
        + (f"SUPPORT for {p.resistance_name} and SABOTAGE for {p.spies_name}"
           if missed.mission == "by-side" else missed.mission.upper()) + "."
        + (f" Missing {missed.disqualify_after} votes in a row disqualifies a player."
           if missed.disqualify_after else ""),
        m.bold("How to play") + ": the leader posts " + m.bold(propose_form(state)) + ". "
        f"Everyone votes {vote_forms(c, m)} {votes_where}; you may change "
        f"your vote until it closes. Team members PM the bot {order_forms(c, m)}"
        f" (put {tag} in the subject if you play several games). Only "
        "bold text counts; quotes and code never do. Editing a comment does not change a vote: "
        "post a new comment. Everyone has been sent their role by PM.",
    ]
    roster = getattr(role_set(c), "roster", None)  # (a role set without special roles has none)
    if roster is not None and (c.roles or c.rules.fixed_roster or c.preset.startswith("avalon")):
        good, evil = roster(c, n)
        parts.append(m.bold("Roles in play") + ": " + ", ".join(role_name(state, r) for r in good + evil) + ".")
    registry.load()
    parts += [note for fn in registry.OPENING_NOTES if (note := fn(state, e, tag, m))]  # a module's own
    return "\n\n".join(parts)


def _role_pm(state: GameState, tag: str, seat_id: str, m: Markup) -> str:
    """The role PM of seat `seat_id` (a seat's id), for whoever plays it now: what it knows,
    by the usernames on the seats now."""
    registry.load()
    seat = seat_of(state, seat_id)
    c = state.config
    lines = [f"Your role in {c.title} ({tag}): {m.bold(role_name(state, seat.role))}, "
             f"{side_member(state, seat.side)}."]
    known = role_set(c).knowledge(state, seat.id)
    if known:
        lines.append("You know: " + ", ".join(f"{state.shown(k.name)} ({role_name(state, k.label)})"
                                              for k in known) + ".")
    elif seat.side == SPIES and not c.rules.spies_know_each_other:
        lines.append("In this game the spies do not know each other.")
    lines += [note for fn in registry.ROLE_NOTES if (note := fn(state, seat.id, m))]  # a module's own lines
    if seat.side == SPIES:
        lines.append("On a mission you may PM me SUPPORT or SABOTAGE.")
    else:
        lines.append("On a mission you can only SUPPORT.")
    lines += [note for fn in registry.ROLE_END_NOTES if (note := fn(state, seat.id, m))]
    lines.append("Keep this message secret. The game thread will say what to do and when.")
    return "\n\n".join(lines)


def _spectator_pm(state: GameState, tag: str, m: Markup) -> str:
    rows = [[s.name, role_name(state, s.role), side_name(state, s.side)] for s in state.seats]
    return (f"You are watching {state.config.title} ({tag}). The roles, which nobody else is told:"
            f"\n\n{m.table(['Player', 'Role', 'Side'], rows)}\n\nKeep them secret. Spectators "
            "cannot vote or act.")
