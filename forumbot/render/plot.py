"""Plot Cards: the draw, the hand-out, the windows to play a card, and what the cards show
(in the thread, and by PM to the one who looks)."""
from __future__ import annotations

from ..rules import events as ev
from ..rules.events import Event
from ..rules.state import GameState
from .markup import Markup
from .registry import private, public
from .words import Message, limits, side_name, when
from .words import card as _card


@public(ev.PLOT_WINDOW)
def _plot_window(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    holders = ", ".join(d["holders"])
    wait = when(e.at, limits(state).card_window, state)
    if d["window"] == "round_start":
        return (f"Before this round's Plot Cards are drawn, {holders} may play Strong Leader "
                f"({m.bold('PLAY: Strong Leader')}) and lead the round, or {m.bold('PASS')}, by {wait}.")
    if d["window"] == "after_veto":
        return (f"After the No Confidence, {holders} may play Strong Leader "
                f"({m.bold('PLAY: Strong Leader')}) and lead the next proposal, or {m.bold('PASS')}, by {wait}.")
    if d["window"] == "approved":
        return (f"Before the orders: {holders} may play a card now: {m.bold('PLAY: No Confidence')} "
                f"(the team is rejected) or {m.bold('PLAY: In the Spotlight -> name')} (that team "
                f"member's order is shown with the result), or {m.bold('PASS')}, by {wait}.")
    return (f"Keeping a Close Eye on You: {holders}, you may now name one member of the team by PM "
            f"({m.bold('CHOOSE: name')}) and learn their order, or {m.bold('PASS')}, by {wait}.")


@private(ev.PLOT_WINDOW)
def _window_pms(state: GameState, e: Event, tag: str, m: Markup) -> list[Message]:
    how = (f"by PM: {m.bold('CHOOSE: name')} or {m.bold('PASS')}." if e.data["window"] == "after_result"
           else f"in the thread, or {m.bold('PASS')}.")
    return [Message(f"window:{holder}", f"{tag}: you may play a card now; see the thread. Answer {how}",
                    to=holder, subject=f"{tag}: your card", priority=0)
            for holder in e.data["holders"]]


@public(ev.PLOT_DRAWN)
def _plot_drawn(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    cards = ", ".join(m.bold(_card(c)) for c in d["cards"])
    own = "establish-confidence" in d["cards"]
    given = [c for c in d["cards"] if c != "establish-confidence"]
    if not given:  # only the leader's own card: nothing to hand out
        return (f"Plot Cards for mission {d['mission']}: {cards}. Establish Confidence stays with "
                f"the leader, {d['leader']}.")
    each = "hand it to another player" if len(given) == 1 else "hand each to a different player"
    return (f"Plot Cards for mission {d['mission']}: {cards}. {d['leader']}, {each}, not "
            f"yourself: {m.bold('GIVE: card -> name')}, by "
            f"{when(e.at, limits(state).choice, state)}."
            + (" Establish Confidence stays with the leader." if own else "")
            + (" A card not given in time is discarded." if len(given) == 1
               else " Cards not given in time are discarded."))


@public(ev.PLOT_GIVEN)
def _plot_given(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    if d.get("own"):
        return f"{m.bold('Establish Confidence')} is the leader's own card: {d['to']} resolves it."
    return f"{d['by']} gives {m.bold(_card(d['card']))} to {m.bold(d['to'])}."


@public(ev.PLOT_CHOICE_OPENED)
def _plot_choice_opened(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    wait = when(e.at, limits(state).choice, state)
    if d["card"] == "take-responsibility":
        return (f"{d['holder']}: Take Responsibility lets you take one Plot Card from another "
                f"player: {m.bold('TAKE: card FROM name')}, by {wait}.")
    if d["card"] == "overheard":
        a, b = d["neighbours"]
        return (f"{d['holder']}: Overheard Conversation: choose a neighbour, {a} or {b} "
                f"({m.bold('CHOOSE: name')}), by {wait}; you will learn their allegiance by PM.")
    what = {"open-up": "who will learn your allegiance by PM",
            "establish-confidence": "who will learn your allegiance by PM"}[d["card"]]
    return f"{d['holder']}: {_card(d['card'])}: choose a player {what} ({m.bold('CHOOSE: name')}), by {wait}."


@public(ev.PLOT_REVEAL)
def _plot_reveal(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    if d["card"] == "close-eye":
        return ""
    return f"{d['holder']} chooses {m.bold(d['target'])} for {_card(d['card'])}."


@private(ev.PLOT_REVEAL)
def _reveal_pm(state: GameState, e: Event, tag: str, m: Markup) -> list[Message]:
    d = e.data
    if d["card"] == "close-eye":
        text = (f"{tag}: Keeping a Close Eye on You: {m.bold(d['subject'])} played "
                f"{m.bold(d['order'].upper())} on mission {d['mission']}.")
    else:
        text = (f"{tag}: {_card(d['card'])}: {m.bold(d['subject'])} is one of "
                f"{side_name(state, d['side'])}.")
    return [Message(f"reveal:{d['viewer']}", text, to=d["viewer"],
                    subject=f"{tag}: {_card(d['card'])}", priority=0)]


@public(ev.PLOT_PLAYED)
def _plot_played(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    if d["card"] == "strong-leader":
        return f"{d['holder']} plays {m.bold('Strong Leader')} and leads this round."
    if d["card"] == "chicago-proxy":
        return (f"{d['holder']} plays {m.bold('Chicago Proxy')} on {m.bold(d['target'])}: "
                f"{d['holder']} casts {d['target']}'s vote on this team "
                f"({m.bold('PROXY: name APPROVE')} to change it).")
    target = f" on {m.bold(d['target'])}" if d.get("target") else ""
    return f"{d['holder']} plays {m.bold(_card(d['card']))}{target}."


@public(ev.PLOT_DECLARED)
def _plot_declared(state: GameState, e: Event, tag: str, m: Markup) -> str:
    return f"{e.data['holder']} plays {m.bold('Keeping a Close Eye on You')}, and names a team member by PM."


@public(ev.TEAM_VETOED)
def _team_vetoed(state: GameState, e: Event, tag: str, m: Markup) -> str:
    return (f"{m.bold('No Confidence')}: the approved team is rejected after all. It counts as "
            f"a rejected team ({e.data['rejections']} of 5 this mission).")


@public(ev.PLOT_SPOTLIGHT)
def _plot_spotlight(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    return (f"In the Spotlight: {m.bold(d['target'])}'s order on mission {d['mission']} "
            f"was {m.bold(d['order'].upper())}.")


@public(ev.PLOT_CHOICE_SKIPPED)
def _plot_skipped(state: GameState, e: Event, tag: str, m: Markup) -> str:
    return f"{_card(e.data['card'])} goes unused ({e.data['reason']})."


@public(ev.PLOT_DISCARDED)
def _plot_discarded(state: GameState, e: Event, tag: str, m: Markup) -> str:
    return f"{_card(e.data['card'])} is discarded ({e.data['reason']})."


@public(ev.PLOT_TAKEN)
def _plot_taken(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    return f"{d['by']} takes {m.bold(_card(d['card']))} from {d['source']}."
