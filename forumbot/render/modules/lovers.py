"""Tristan and Isolde: each lover's role PM names the other; the Assassin is told of the
double shot; the thread hears whom the Assassin named."""
from __future__ import annotations

from typing import Any

from ...rules.modules.assassin import AssassinationOpened
from ...rules.modules.lovers import LoversShot, lover_of, lovers
from ...rules.state import GameState
from ..registry import private, public, role_note
from ..words import Message


@role_note
def _your_lover(state: GameState, seat: str, m: Any) -> str | None:
    other = lover_of(state, seat)  # (`seat`: the id of the seat whose role PM this is)
    if other is None:
        return None
    return (f"Your lover: {m.bold(state.shown(other))}. You know each other, and nothing else. If the "
            "Assassin names you both, your side loses.")


@private(AssassinationOpened.type)
def _double_shot(state: GameState, e: AssassinationOpened, tag: str, m: Any) -> list[Message]:
    if len(lovers(state)) < 2:
        return []
    return [Message("assassin:lovers", f"{tag}: Tristan and Isolde are in this game. Instead of "
                    f"Merlin you may name both lovers: {m.bold('ASSASSINATE: name, name')}. If both "
                    "are the lovers, your side wins.",
                    to=state.shown(e.assassin), subject=f"{tag}: or name the lovers", priority=0)]


@public(LoversShot.type)
def _shot(state: GameState, e: LoversShot, tag: str, m: Any) -> str:
    a, b = (state.shown(t) for t in e.targets)
    verdict = "and finds the lovers" if e.hit else "and misses: they were not both lovers"
    return (f"The Assassin, {state.shown(e.assassin)}, names {m.bold(a)} and {m.bold(b)} as Tristan "
            f"and Isolde {verdict}.")
