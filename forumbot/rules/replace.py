"""REPLACE: a newcomer takes a seat: its role, cards, votes, orders and history.

The seat is renamed everywhere the state names it, so that everything the old player did
stands under the new name, and the old name no longer belongs to anyone in the game.
"""
from __future__ import annotations

import re
from dataclasses import fields, is_dataclass, replace

from . import events as ev
from .commands import Refusal
from .mission_cards import CARDS as MISSION_CARDS
from .plot_deck import CARDS as PLOT_CARDS
from .state import GameState, register_fold

PLAYER_REPLACED = "player_replaced"

USERNAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")

# The words the state itself uses as values (votes, orders, results, sides, roles, card
# keys, phases, ways in). A seat named exactly like one of them cannot be renamed safely,
# since the rename goes by value; `test_replace` checks this list against real games.
RESERVED = frozenset({
    'abstain', 'acting', 'after', 'after_result', 'after_veto', 'approve', 'approved', 'assassin',
    'assassinated', 'assassination', 'at', 'auto', 'avalon', 'badge', 'by', 'card', 'card_window',
    'cards', 'commander', 'count_shown', 'critical', 'current', 'data', 'deadlines', 'deck',
    'declared', 'default', 'defaulted', 'delayed', 'delayed_commander', 'discard', 'done', 'drawn',
    'fail', 'fails_needed', 'finished', 'give', 'given_to', 'hand_out', 'hands', 'holder',
    'holders', 'host', 'immediate', 'index', 'keep', 'kind', 'lady', 'lady_past', 'leader',
    'listed', 'loyal', 'mc', 'merlin', 'minion', 'missed', 'mission', 'missions', 'mordred',
    'morgana', 'not_voting', 'number', 'oberon', 'opinion', 'order', 'orders', 'paused_seconds',
    'percival', 'permanent', 'phase_id', 'picked', 'player', 'players', 'plays', 'plot',
    'plot_choice', 'pm', 'preloads', 'proxy', 'prep_window', 'proposal', 'proxied', 'public', 'queue',
    'reason', 'reject', 'rejections', 'resistance', 'result', 'roles', 'round', 'round_start',
    'sabotage', 'sabotages', 'seconds', 'servant', 'setup', 'shuffles', 'sides', 'source', 'spies',
    'spotlight', 'spy', 'strong_at', 'subject', 'success', 'support', 'target', 'team',
    'team_vote', 'thread', 'to', 'type', 'via', 'viewer', 'vote', 'votes', 'waiting_forever',
    'window', 'winner',
} | {c.key for c in PLOT_CARDS} | {c.key for c in MISSION_CARDS})

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
    seat = state.seat(old)
    if seat is None:
        return Refusal(f"{old} is not a player in this game.")
    if not USERNAME.match(new):
        return Refusal(f"{new!r} is not a forum username.")
    taken = {n.casefold() for n in state.names}
    if new.casefold() in taken:
        return Refusal(f"{new} already plays in this game.")
    if old in RESERVED or new in RESERVED:
        word = old if old in RESERVED else new
        return Refusal(f"{word!r} is also a word the bot uses in its records, so that seat "
                       "cannot change hands; DISQUALIFY the player instead.")
    return None


@register_fold(PLAYER_REPLACED)
def _replaced(state: GameState, e: ev.Event) -> None:
    old, new = e.data["player"], e.data["by"]
    state.own("seats")
    seat = state.player(old)
    seat.name = new
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
