"""The Mission Commander (So Say We All)."""
from __future__ import annotations

from ..rules import events as ev
from ..rules.events import Event
from ..rules.state import GameState
from .markup import Markup
from .registry import public


@public(ev.COMMANDER_NAMED)
def _commander_named(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    return (f"{m.bold(d['commander'])} is the Mission Commander for mission {d['mission']}; the "
            "mission's first leader is the player after them.")
