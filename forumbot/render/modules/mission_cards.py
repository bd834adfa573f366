"""Mission Cards (So Say We All): Mission Prep's draw, the kept cards, and what they show.
The events name seats by their ids; a reader sees the username on the seat now
(`state.shown`), and a PM goes to it."""
from __future__ import annotations

from ...rules.modules.mission_card_folds import (
    BY_KEY,
    EV_BADGE,
    EV_DONE,
    EV_DRAWN,
    EV_FOLLOW,
    EV_PLAYED,
    EV_REVEAL,
    EV_WINDOW,
    McBadge,
    McDone,
    McDrawn,
    McFollow,
    McPlayed,
    McReveal,
    McWindow,
    mc,
)
from ...rules.state import GameState
from ..markup import Markup
from ..registry import moment, private, public
from ..words import Message, limits, side_member, when
from ..words import mc as _mc


@public(EV_DRAWN)
def _mc_drawn(state: GameState, e: McDrawn, tag: str, m: Markup) -> str:
    cards = " and ".join(m.bold(_mc(c)) for c in e.cards)
    commander = state.shown(e.commander) if e.commander else None
    return (f"Mission Prep for mission {e.mission}: the Mission Commander, {commander}, "
            f"draws {cards}. The first proposal waits until the cards are followed.")


@public(EV_WINDOW)
def _mc_window(state: GameState, e: McWindow, tag: str, m: Markup) -> str:
    """Each holder is offered the kept cards they hold, and no other."""
    hands = e.cards or ({h: mc(state).hands.get(h, []) for h in e.holders} if "mc" in state.extra else {})
    forms = {"prepare": m.bold("PLAY: Prepare for the Future -> drawn card")
             + " (you act as Commander for it)",
             "counterespionage": m.bold("PLAY: Counterespionage -> name")
             + " (you learn their allegiance by PM)"}
    offers = []
    for holder in e.holders:
        options = [forms[c] for c in dict.fromkeys(hands.get(holder, [])) if c in forms]
        who = state.shown(holder)
        offers.append(f"{who}: you may play your kept card now, " if len(options) == 1 else
                      f"{who}: you may play one of your kept cards now, ")
        offers[-1] += " or ".join(options) + f", or {m.bold('PASS')}."
    return ("\n\n".join(offers) + " Answer by "
            f"{when(e.at, limits(state).card_window, state)}.")


@public(EV_PLAYED)
def _mc_played(state: GameState, e: McPlayed, tag: str, m: Markup) -> str:
    holder = state.shown(e.holder)
    if e.card == "prepare" and e.index is not None:
        drawn = mc(state).drawn[e.index]
        return f"{holder} plays Prepare for the Future and acts as Commander for {m.bold(_mc(drawn))}."
    return f"{holder} plays Counterespionage on {m.bold(state.shown(e.target or ''))}."


@public(EV_FOLLOW)
def _mc_follow(state: GameState, e: McFollow, tag: str, m: Markup) -> str:
    form = f"GIVE: {_mc(e.card)} -> name" if e.action == "give" else "CHOOSE: name"
    return (f"{state.shown(e.commander)}: follow {m.bold(_mc(e.card))} with {m.bold(form)}, by "
            f"{when(e.at, limits(state).choice, state)}.")


def _result(state: GameState, e: McDone) -> str:
    """What came of a drawn card, in words (the log's `result` names the seat by its id)."""
    if e.to and e.result == f"given to {e.to}":
        return f"given to {state.shown(e.to)}"
    if e.target and e.result == f"{e.target} chosen":
        return f"{state.shown(e.target)} chosen"
    return e.result


@public(EV_DONE)
def _mc_done(state: GameState, e: McDone, tag: str, m: Markup) -> str:
    if e.card == "delayed" and e.applied:
        return (f"{m.bold('Delayed by Bureaucracy')}: {state.shown(e.commander)} may neither be proposed for "
                "nor vote on the first proposal of this mission (the first two, if both copies are drawn).")
    if e.card == "counterfeit":
        return f"{m.bold('Counterfeit Equipment')}: the other card is discarded without effect."
    if e.result == "kept" and e.to:
        return f"{m.bold(_mc(e.card))}: kept by {m.bold(state.shown(e.to))}, to play in a later Mission Prep."
    return f"{m.bold(_mc(e.card))}: {_result(state, e)}."


@public(EV_BADGE)
def _mc_badge(state: GameState, e: McBadge, tag: str, m: Markup) -> str:
    return (f"{state.shown(e.holder)} plays {m.bold('Badge of Merit')} and moves to just after "
            f"{state.shown(e.after)}. Leader order now: {', '.join(state.shown(i) for i in state.ids)}.")


@private(EV_REVEAL)
def _mc_reveal_pm(state: GameState, e: McReveal, tag: str, m: Markup) -> list[Message]:
    subject = m.bold(state.shown(e.subject))
    if e.card == "tracker":
        text = (f"{tag}: Secret Tracker: {subject} played "
                f"{m.bold((e.order or '').upper())} on mission {e.mission}.")
    else:
        text = f"{tag}: {_mc(e.card)}: {subject} is {side_member(state, e.side or '')}."
    return [Message(f"mc-reveal:{e.viewer}", text, to=state.shown(e.viewer),
                    subject=f"{tag}: {_mc(e.card)}", priority=0)]


# --- the archive page: each card played, and the Badge of Merit's move


def _page_card(key: str) -> str:
    card = BY_KEY.get(key)
    return card.name if card else key.replace("-", " ").title()


@moment(McPlayed)
def _page_played(state: GameState, e: McPlayed, reveal: bool, name) -> dict:
    target = f" on {name(e.target)}" if e.target else ""
    return {"symbol": "▣", "kind": "Mission Card", "text": f"{name(e.holder)} plays {_page_card(e.card)}{target}."}


@moment(McBadge)
def _page_badge(state: GameState, e: McBadge, reveal: bool, name) -> dict:
    return {"symbol": "▣", "kind": "Mission Card",
            "text": f"{name(e.holder)} plays Badge of Merit and moves to just after {name(e.after)}."}
