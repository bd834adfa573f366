"""The Mission Commander on the archive page."""
from __future__ import annotations

from ...rules.modules.commander import CommanderNamed
from ...rules.state import GameState
from ..registry import moment


@moment(CommanderNamed)
def _named(state: GameState, e: CommanderNamed, reveal: bool, name) -> dict:
    return {"symbol": "✪", "kind": "Commander", "text": f"{name(e.commander)} is the Mission Commander."}
