"""The assassination on the archive page: the open step, a deadline that passed, and the
shot under the spies at the reveal."""
from __future__ import annotations

from ...rules.modules.assassin import PHASE, Assassinated, AssassinationOverdue
from ...rules.state import GameState
from ..registry import now_text, reveal_note, timeline_item

now_text(PHASE, "The assassination: the Assassin names the player they believe is Merlin.")


@timeline_item(AssassinationOverdue)
def _overdue(state: GameState, e: AssassinationOverdue, name) -> dict:
    return {"kind": "bot", "label": "Bot", "symbol": "⟳",
            "text": "The assassination's deadline passed; the game waited for the shot."}


@reveal_note
def _shot(state: GameState, events) -> str | None:
    shot = next((e for e in events if isinstance(e, Assassinated)), None)
    if shot is None:
        return None
    return (f"{state.shown(shot.assassin)}, the Assassin, named {state.shown(shot.target)}: "
            + ("Merlin, a hit." if shot.hit else "a miss, they were not Merlin."))
