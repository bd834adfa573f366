"""Mission Cards (So Say We All): Mission Prep's draw, the kept cards, and what they show."""
from __future__ import annotations

from ..rules.events import Event
from ..rules.state import GameState
from .markup import Markup
from .registry import private, public
from .words import Message, limits, side_name, when
from .words import mc as _mc


@public("mc_drawn")
def _mc_drawn(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    cards = " and ".join(m.bold(_mc(c)) for c in d["cards"])
    return (f"Mission Prep for mission {d['mission']}: the Mission Commander, {d['commander']}, "
            f"draws {cards}. The first proposal waits until the cards are followed.")


@public("mc_window")
def _mc_window(state: GameState, e: Event, tag: str, m: Markup) -> str:
    """Each holder is offered the kept cards they hold, and no other."""
    d = e.data
    hands = d.get("cards") or {h: state.extra.get("mc", {}).get("hands", {}).get(h, [])
                               for h in d["holders"]}
    forms = {"prepare": m.bold("PLAY: Prepare for the Future -> drawn card")
             + " (you act as Commander for it)",
             "counterespionage": m.bold("PLAY: Counterespionage -> name")
             + " (you learn their allegiance by PM)"}
    offers = []
    for holder in d["holders"]:
        options = [forms[c] for c in dict.fromkeys(hands.get(holder, [])) if c in forms]
        offers.append(f"{holder}: you may play your kept card now, " if len(options) == 1 else
                      f"{holder}: you may play one of your kept cards now, ")
        offers[-1] += " or ".join(options) + f", or {m.bold('PASS')}."
    return ("\n\n".join(offers) + " Answer by "
            f"{when(e.at, limits(state).card_window, state)}.")


@public("mc_played")
def _mc_played(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    if d["card"] == "prepare":
        drawn = state.extra["mc"]["drawn"][d["index"]]
        return f"{d['holder']} plays Prepare for the Future and acts as Commander for {m.bold(_mc(drawn))}."
    return f"{d['holder']} plays Counterespionage on {m.bold(d['target'])}."


@public("mc_follow")
def _mc_follow(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    form = f"GIVE: {_mc(d['card'])} -> name" if d["action"] == "give" else "CHOOSE: name"
    return (f"{d['commander']}: follow {m.bold(_mc(d['card']))} with {m.bold(form)}, by "
            f"{when(e.at, limits(state).choice, state)}.")


@public("mc_done")
def _mc_done(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    if d["card"] == "delayed" and d.get("applied"):
        return (f"{m.bold('Delayed by Bureaucracy')}: {d['commander']} may neither be proposed for "
                "nor vote on the first proposal of this mission (the first two, if both copies are drawn).")
    if d["card"] == "counterfeit":
        return f"{m.bold('Counterfeit Equipment')}: the other card is discarded without effect."
    if d.get("result") == "kept" and d.get("to"):
        return f"{m.bold(_mc(d['card']))}: kept by {m.bold(d['to'])}, to play in a later Mission Prep."
    return f"{m.bold(_mc(d['card']))}: {d['result']}."


@public("mc_badge")
def _mc_badge(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    return (f"{d['holder']} plays {m.bold('Badge of Merit')} and moves to just after {d['after']}. "
            f"Leader order now: {', '.join(state.names)}.")


@private("mc_reveal")
def _mc_reveal_pm(state: GameState, e: Event, tag: str, m: Markup) -> list[Message]:
    d = e.data
    if d["card"] == "tracker":
        text = (f"{tag}: Secret Tracker: {m.bold(d['subject'])} played "
                f"{m.bold(d['order'].upper())} on mission {d['mission']}.")
    else:
        text = f"{tag}: {_mc(d['card'])}: {m.bold(d['subject'])} is one of {side_name(state, d['side'])}."
    return [Message(f"mc-reveal:{d['viewer']}", text, to=d["viewer"],
                    subject=f"{tag}: {_mc(d['card'])}", priority=0)]
