"""The Mission Cards on the archive page: each card played, and the Badge of Merit's move."""
from __future__ import annotations

from ...rules.modules.mission_cards import BY_KEY, McBadge, McPlayed
from ...rules.state import GameState
from ..registry import moment


def card_name(key: str) -> str:
    card = BY_KEY.get(key)
    return card.name if card else key.replace("-", " ").title()


@moment(McPlayed)
def _played(state: GameState, e: McPlayed, reveal: bool, name) -> dict:
    target = f" on {name(e.target)}" if e.target else ""
    return {"symbol": "▣", "kind": "Mission Card", "text": f"{name(e.holder)} plays {card_name(e.card)}{target}."}


@moment(McBadge)
def _badge(state: GameState, e: McBadge, reveal: bool, name) -> dict:
    return {"symbol": "▣", "kind": "Mission Card",
            "text": f"{name(e.holder)} plays Badge of Merit and moves to just after {name(e.after)}."}
