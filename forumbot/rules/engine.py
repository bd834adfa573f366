"""The game as pure code: `start` deals, `apply` turns a command into events, `replay`
folds a log back into a state. No I/O, no clock (time comes in on each command), no
global randomness (the deal is seeded)."""
from __future__ import annotations

import random
from datetime import datetime
from typing import Any, Callable

from . import events as ev
from . import hooks
from .commands import (
    Command,
    Expire,
    HostAbort,
    HostClose,
    HostDisqualify,
    HostExtend,
    HostPause,
    HostRecord,
    HostReplace,
    HostResume,
    HostSkip,
    MissionOrder,
    Postpone,
    Propose,
    Refusal,
    Remind,
    TeamVote,
)
from .config import GameConfig
from .events import Event
from .hooks import plugin_classes, plugins_for
from .host import (
    expire,
    host_abort,
    host_close,
    host_disqualify,
    host_extend,
    host_pause,
    host_replace,
    host_resume,
    host_skip,
    postpone,
    remind,
)
from .missions import order
from .plugin import RulePlugin, Tx
from .roles import role_set
from .state import FINISHED, SETUP, GameState, fold
from .steps import (
    begin_proposal,
    first_leader,
)
from .team import propose, vote


def _deal(config: GameConfig, seed: int) -> dict:
    roles_ = role_set(config)
    order, roles = roles_.deal(config, random.Random(seed))
    sides = {n: roles_.side(config, r) for n, r in roles.items()}
    return dict(order=order, roles=roles, sides=sides, seed=seed)


def _start(config: GameConfig, seed: int, at: datetime) -> Tx:
    tx = _new(Tx)  # Tx(GameState(config), ...), without cloning a state no one else holds
    tx.state = GameState(config)
    tx.at = at
    tx.plugins = plugins_for(config)
    tx.events = []
    deal = _deal(config, seed)
    tx.emit(ev.GameStarted, **deal)
    for p in tx.plugins:
        p.after_start(tx)
    begin_proposal(tx, 1, first_leader(tx, deal["order"][0]))
    return tx


def start(config: GameConfig, seed: int, at: datetime) -> list[Event]:
    """Deal the game from its seed and open the first proposal."""
    return _start(config, seed, at).events


def started(config: GameConfig, seed: int, at: datetime) -> tuple[GameState, list[Event]]:
    """`start`, with the state after its events (each folded once)."""
    tx = _start(config, seed, at)
    return tx.state, tx.events


def replay(config: GameConfig, seed: int, events: list[Event]) -> GameState:
    """The state after `events`. Refuses a log whose deal is not the seed's."""
    state = GameState(config)
    if events:
        first = events[0]
        if first != ev.GameStarted(at=first.at, **_deal(config, seed)):
            raise ValueError("the event log does not start with this seed's deal")
    for e in events:
        fold(state, e)
    return state


_new = object.__new__

# How players write each command: for a refusal of one the game does not have.
COMMAND_WORDS: dict[str, str] = {}  # (the rule modules declare theirs: RulePlugin.command_words)
for _cls in plugin_classes():
    COMMAND_WORDS.update(_cls.command_words)


def apply(
    state: GameState, command: Command, plugins: list[RulePlugin] | None = None
) -> list[Event] | Refusal:
    """The events a command causes, or why it is refused. `state` is not changed (fold
    the events into it; or use `advance`, which returns the state after them)."""
    owned = state._owned
    try:
        result = advance(state, command, plugins)
    finally:
        state._owned = owned  # the working state is gone: what `state` held is its own again
    return result if result.__class__ is Refusal else result[1]  # type: ignore[index]  # (not a Refusal)


class Spent(RuntimeError):
    """A command given a state to change in place (`advance(..., in_place=True)`) was refused
    after it had emitted events: the state holds a part of the command. The caller rebuilds
    it from its log (`replay`)."""


def advance(
    state: GameState, command: Command, plugins: list[RulePlugin] | None = None, in_place: bool = False
) -> tuple[GameState, list[Event]] | Refusal:
    """The state after a command and the events it caused (each folded once), or why it
    is refused. `state` is not changed; the new state shares with it, copy on write, what
    the command did not change.

    `in_place`: the caller gives `state` up (it keeps only what is returned), so the
    command's events are folded into `state` itself, with no copy; a refusal leaves it as it
    was, as the handlers refuse before they emit. One that refuses after it emitted raises
    `Spent`. (The random player plays its games so: `random_play.play_out`.)"""
    phase = state.phase
    if phase == SETUP or phase == FINISHED:  # (phase in _OVER)
        return Refusal("This game is over.")
    if plugins is None:
        cached = hooks._last  # plugins_for(state.config), its cache inline
        plugins = cached[1] if cached[0] is state.config else plugins_for(state.config)
    handler = _handler(command, plugins) if plugins else _HANDLERS.get(type(command))
    if handler is None:
        word = COMMAND_WORDS.get(type(command).__name__, type(command).__name__.upper())
        return Refusal(f"{word} is not part of this game ({state.config.rules.title}).")
    at, last = command.at, state.last_event_at
    if last and last > at:
        at = last
    tx = _new(Tx)  # Tx(state, at, plugins), without the class call (one per command)
    if in_place:
        tx.state = state
    else:
        new = _new(GameState)  # state.clone(), inline
        new.__dict__ = state.__dict__.copy()
        state._owned = set()
        new._owned = set()
        tx.state = new
    tx.at = at
    tx.plugins = plugins
    tx.events = []
    refusal = handler(tx, command)
    if refusal is not None:
        if in_place and tx.events:
            raise Spent(f"{type(command).__name__} was refused after it emitted {tx.events[0].type}")
        return refusal
    return tx.state, tx.events


def _handler(command: Command, plugins: list[RulePlugin]) -> Callable[[Tx, Any], Refusal | None] | None:
    handler = _HANDLERS.get(type(command))
    for p in plugins:
        if type(command) in p.handles:
            handler = p.handle
    return handler


def _record(tx: Tx, cmd: HostRecord) -> Refusal | None:
    """The host's RECORD: a player's command the host enters for them, answered as the
    player's own would be (by the table below, or a plug-in)."""
    inner = cmd.inner
    handler = _handler(inner, tx.plugins)
    if handler is None:
        word = COMMAND_WORDS.get(type(inner).__name__, type(inner).__name__.upper())
        return Refusal(f"{word} is not part of this game.")
    tx.emit(ev.HostAction, action="record", by=cmd.author, phase=tx.state.phase,
            player=inner.author, kind=type(inner).__name__)
    return handler(tx, inner)


_HANDLERS: dict[type, Callable[[Tx, Any], Refusal | None]] = {
    HostClose: host_close,
    HostExtend: host_extend,
    Postpone: postpone,
    HostPause: host_pause,
    HostResume: host_resume,
    HostDisqualify: host_disqualify,
    HostAbort: host_abort,
    HostReplace: host_replace,
    HostSkip: host_skip,
    HostRecord: _record,
    Remind: remind,
    Propose: propose,
    TeamVote: vote,
    MissionOrder: order,
    Expire: expire,
}


__all__ = ["start", "started", "replay", "apply", "advance", "Spent", "COMMAND_WORDS"]
