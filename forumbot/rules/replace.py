"""REPLACE: a newcomer takes a seat: its role, cards, votes, orders and history.

A seat keeps its id (`state.Seat.id`) for the whole game: the state and the events name it
by that, so everything the old player did stands for the seat, and the newcomer simply is
the username on it now (`Seat.name`). The player who left no longer belongs to the game;
their username still names the seat in what others type (`state.aliases`).

Logs written before seats had ids renamed the seat by value everywhere instead; `_replaced`
still reads them that way.
"""
from __future__ import annotations

import re
from dataclasses import fields, is_dataclass, replace

from . import events as ev
from .commands import Refusal
from .state import GameState, register_fold

PLAYER_REPLACED = ev.PLAYER_REPLACED

USERNAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")

# What a log written before seats had ids renamed (see `_replaced`).
_RENAMED = ("leader", "team", "public", "not_voting", "proxied", "critical", "critical_spent",
            "votes", "vote_via", "orders", "missions", "vote_history", "actors", "extra")


def renamed(value, old: str, new: str):
    """`value` with every string equal to `old` (keys included) turned into `new`."""
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, dict):
        return {renamed(k, old, new): renamed(v, old, new) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return type(value)(renamed(v, old, new) for v in value)
    if is_dataclass(value) and not isinstance(value, type):  # a plug-in's typed state
        return replace(value, **{f.name: renamed(getattr(value, f.name), old, new) for f in fields(value)})
    return value


def check(state: GameState, old: str, new: str) -> Refusal | None:
    """Why seat `old` (its id) cannot go to the forum user `new`, if it cannot."""
    seat = state.seat(old)
    if seat is None:
        return Refusal(f"{old} is not a player in this game.")
    if not USERNAME.match(new):
        return Refusal(f"{new!r} is not a forum username.")
    folded = new.casefold()
    if any(n.casefold() == folded for n in state.names):
        return Refusal(f"{new} already plays in this game.")
    if any(n.casefold() == folded for n in (*state.ids, *state.replaced)):
        # a player who left has seen a role: they do not come back to another seat
        return Refusal(f"{new} played in this game before and cannot take another seat.")
    if state.config.is_host(new):  # a host who does not play may see every role (STATUS)
        return Refusal(f"{new} hosts this game and may have seen every role, so they cannot take a seat.")
    return None


@register_fold(ev.PlayerReplaced)
def _replaced(state: GameState, e: ev.PlayerReplaced) -> None:
    old, new = e.player, e.by
    state.own("seats")
    seat = state.player(old)
    if e.keeps_id:  # the seat keeps its id; only the username on it changes
        replaced = dict(state.replaced)
        replaced[seat.name] = seat.id  # whoever played it until now
        state.put("replaced", replaced)
        seat.name = new
        seat.disqualified = False
        seat.missed = 0
        return
    seat.name = seat.id = new  # a log from before seats had ids: renamed by value
    seat.disqualified = False
    seat.missed = 0
    for f in _RENAMED:  # new containers, all the way down (a plug-in's key in `extra` stays)
        value = getattr(state, f)
        state.put(f, {k: renamed(v, old, new) for k, v in value.items()} if f == "extra"
                  else renamed(value, old, new))
    for key in state.extra:
        state.put_extra(key, state.extra[key])
    replaced = {k: (new if v == old else v) for k, v in state.replaced.items()}
    replaced[old] = new
    state.put("replaced", replaced)

