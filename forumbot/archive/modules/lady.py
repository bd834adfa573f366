"""The Lady of the Lake on the archive page: its use, and what it showed once the game is over."""
from __future__ import annotations

from ...render.words import side_name
from ...rules.modules.lady import LadySkipped, LadyUsed
from ...rules.state import GameState
from ..registry import moment


@moment(LadyUsed)
def _used(state: GameState, e: LadyUsed, reveal: bool, name) -> dict:
    text = f"{name(e.holder)} uses the Lady of the Lake on {name(e.target)}."
    if reveal:
        text += f" The Lady showed {side_name(state, e.side)}."
    return {"symbol": "◈", "kind": "Lady of the Lake", "text": text}


@moment(LadySkipped)
def _skipped(state: GameState, e: LadySkipped, reveal: bool, name) -> dict:
    return {"symbol": "◈", "kind": "Lady of the Lake", "text": f"Not used ({e.reason})."}
