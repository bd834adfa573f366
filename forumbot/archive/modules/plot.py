"""The Plot Cards on the archive page: each card played, taken or chosen for, In the
Spotlight's order, and the vote No Confidence undoes."""
from __future__ import annotations

from ...rules.modules.plot_deck import BY_KEY
from ...rules.modules.plot_events import PlotDeclared, PlotPlayed, PlotReveal, PlotSpotlight, PlotTaken, TeamVetoed
from ...rules.state import GameState
from ..registry import moment, undoes_vote


def card_name(key: str) -> str:
    card = BY_KEY.get(key)
    return card.name if card else key.replace("-", " ").title()


def _card(text: str) -> dict:
    return {"symbol": "▤", "kind": "Plot Card", "text": text}


@moment(PlotPlayed)
def _played(state: GameState, e: PlotPlayed, reveal: bool, name) -> dict:
    if e.card == "chicago-proxy":
        return _card(f"{name(e.holder)} plays Chicago Proxy on {name(e.target or '')}.")
    target = f" on {name(e.target)}" if e.target else ""
    return _card(f"{name(e.holder)} plays {card_name(e.card)}{target}.")


@moment(PlotDeclared)
def _declared(state: GameState, e: PlotDeclared, reveal: bool, name) -> dict:
    return _card(f"{name(e.holder)} plays Keeping a Close Eye on You.")


@moment(PlotTaken)
def _taken(state: GameState, e: PlotTaken, reveal: bool, name) -> dict:
    return _card(f"{name(e.by)} takes {card_name(e.card)} from {name(e.source)}.")


@moment(PlotReveal)
def _reveal(state: GameState, e: PlotReveal, reveal: bool, name) -> dict | None:
    if e.card == "close-eye":
        return None
    return _card(f"{name(e.holder)} chooses {name(e.target)} for {card_name(e.card)}.")


@moment(TeamVetoed)
def _vetoed(state: GameState, e: TeamVetoed, reveal: bool, name) -> dict:
    return _card(f"{name(e.holder)} plays No Confidence: proposal {e.proposal} is rejected after all.")


@moment(PlotSpotlight)
def _spotlight(state: GameState, e: PlotSpotlight, reveal: bool, name) -> dict:
    return {"symbol": "◉", "kind": "Plot Card",
            "text": f"In the Spotlight: {name(e.target)}'s order was {e.order.upper()}."}


@undoes_vote(TeamVetoed)
def _undone(e: TeamVetoed) -> tuple[int, int]:
    return e.mission, e.proposal
