"""The Mission Commander (So Say We All)."""
from __future__ import annotations

from ...rules.modules.commander import CommanderNamed
from ...rules.state import GameState
from ..markup import Markup
from ..registry import moment, public


@public(CommanderNamed.type)
def _commander_named(state: GameState, e: CommanderNamed, tag: str, m: Markup) -> str:
    return (f"{m.bold(state.shown(e.commander))} is the Mission Commander for mission {e.mission}; the "
            "mission's first leader is the player after them.")


# --- the archive page


@moment(CommanderNamed)
def _page_named(state: GameState, e: CommanderNamed, reveal: bool, name) -> dict:
    return {"symbol": "✪", "kind": "Commander", "text": f"{name(e.commander)} is the Mission Commander."}
