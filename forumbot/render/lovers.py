"""Tristan and Isolde: each lover's role PM names the other; the Assassin is told of the
double shot; the thread hears whom the Assassin named."""
from __future__ import annotations

from typing import Any

from ..rules import events as ev
from ..rules.events import Event
from ..rules.lovers import SHOT, lover_of, lovers
from ..rules.state import GameState
from .registry import private, public, role_note
from .words import Message


@role_note
def _your_lover(state: GameState, name: str, m: Any) -> str | None:
    other = lover_of(state, name)
    if other is None:
        return None
    return (f"Your lover: {m.bold(other)}. You know each other, and nothing else. If the "
            "Assassin names you both, your side loses.")


@private(ev.ASSASSINATION_OPENED)
def _double_shot(state: GameState, e: Event, tag: str, m: Any) -> list[Message]:
    if len(lovers(state)) < 2:
        return []
    return [Message("assassin:lovers", f"{tag}: Tristan and Isolde are in this game. Instead of "
                    f"Merlin you may name both lovers: {m.bold('ASSASSINATE: name, name')}. If both "
                    "are the lovers, your side wins.",
                    to=e.data["assassin"], subject=f"{tag}: or name the lovers", priority=0)]


@public(SHOT)
def _shot(state: GameState, e: Event, tag: str, m: Any) -> str:
    d = e.data
    a, b = d["targets"]
    verdict = "and finds the lovers" if d["hit"] else "and misses: they were not both lovers"
    return f"The Assassin, {d['assassin']}, names {m.bold(a)} and {m.bold(b)} as Tristan and Isolde {verdict}."
