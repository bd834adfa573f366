"""Plot Cards: the draw, the hand-out, the windows to play a card, and what the cards show
(in the thread, and by PM to the one who looks). The events name seats by their ids; a
reader sees the username on the seat now (`state.shown`), and a PM goes to it."""
from __future__ import annotations

from ...rules import events as ev
from ...rules.modules.plot_deck import BY_KEY
from ...rules.modules.plot_events import (
    PlotChoiceOpened,
    PlotChoiceSkipped,
    PlotDeclared,
    PlotDiscarded,
    PlotDrawn,
    PlotGiven,
    PlotPlayed,
    PlotReveal,
    PlotSpotlight,
    PlotTaken,
    PlotWindow,
    TeamVetoed,
)
from ...rules.state import GameState
from ..markup import Markup
from ..registry import moment, private, public, undoes_vote
from ..words import Message, limits, side_member, when
from ..words import card as _card


@public(ev.PLOT_WINDOW)
def _plot_window(state: GameState, e: PlotWindow, tag: str, m: Markup) -> str:
    holders = ", ".join(state.shown(h) for h in e.holders)
    wait = when(e.at, limits(state).card_window, state)
    if e.window == "round_start":
        return (f"Before this round's Plot Cards are drawn, {holders} may play Strong Leader "
                f"({m.bold('PLAY: Strong Leader')}) and lead the round, or {m.bold('PASS')}, by {wait}.")
    if e.window == "after_veto":
        return (f"After the No Confidence, {holders} may play Strong Leader "
                f"({m.bold('PLAY: Strong Leader')}) and lead the next proposal, or {m.bold('PASS')}, by {wait}.")
    if e.window == "approved":
        offers = {"no-confidence": f"{m.bold('PLAY: No Confidence')} (the team is rejected)",
                  "spotlight": f"{m.bold('PLAY: In the Spotlight -> name')} (that team member's order "
                               "is shown with the result)"}
        held = [text for card, text in offers.items() if _held(state, e.holders, card)]
        return (f"Before the orders: {holders} may play a card now: {' or '.join(held or offers.values())}, "
                f"or {m.bold('PASS')}, by {wait}.")
    return (f"Keeping a Close Eye on You: {holders}, you may now name one member of the team by PM "
            f"({m.bold('CHOOSE: name')}) and learn their order, or {m.bold('PASS')}, by {wait}.")


def _held(state: GameState, holders: list[str], card: str) -> bool:
    """Whether one of `holders` holds `card` (in the state the window's post is made from;
    a state that has moved past the window offers both cards, as before)."""
    plot = state.extra.get("plot")
    return plot is not None and any(card in plot.hands.get(h, []) for h in holders)


@private(ev.PLOT_WINDOW)
def _window_pms(state: GameState, e: PlotWindow, tag: str, m: Markup) -> list[Message]:
    how = (f"by PM: {m.bold('CHOOSE: name')} or {m.bold('PASS')}." if e.window == "after_result"
           else f"in the thread, or {m.bold('PASS')}.")
    return [Message(f"window:{holder}", f"{tag}: you may play a card now; see the thread. Answer {how}",
                    to=state.shown(holder), subject=f"{tag}: your card", priority=0)
            for holder in e.holders]


@public(ev.PLOT_DRAWN)
def _plot_drawn(state: GameState, e: PlotDrawn, tag: str, m: Markup) -> str:
    cards = ", ".join(m.bold(_card(c)) for c in e.cards)
    own = "establish-confidence" in e.cards
    given = [c for c in e.cards if c != "establish-confidence"]
    leader = state.shown(e.leader)
    if not given:  # only the leader's own card: nothing to hand out
        return (f"Plot Cards for mission {e.mission}: {cards}. Establish Confidence stays with "
                f"the leader, {leader}.")
    each = "hand it to another player" if len(given) == 1 else "hand each to a different player"
    return (f"Plot Cards for mission {e.mission}: {cards}. {leader}, {each}, not "
            f"yourself: {m.bold('GIVE: card -> name')}, by "
            f"{when(e.at, limits(state).choice, state)}."
            + (" Establish Confidence stays with the leader." if own else "")
            + (" A card not given in time is discarded." if len(given) == 1
               else " Cards not given in time are discarded."))


@public(ev.PLOT_GIVEN)
def _plot_given(state: GameState, e: PlotGiven, tag: str, m: Markup) -> str:
    if e.own:
        return f"{m.bold('Establish Confidence')} is the leader's own card: {state.shown(e.to)} resolves it."
    return f"{state.shown(e.by)} gives {m.bold(_card(e.card))} to {m.bold(state.shown(e.to))}."


@public(ev.PLOT_CHOICE_OPENED)
def _plot_choice_opened(state: GameState, e: PlotChoiceOpened, tag: str, m: Markup) -> str:
    wait = when(e.at, limits(state).choice, state)
    holder = state.shown(e.holder)
    if e.card == "take-responsibility":
        return (f"{holder}: Take Responsibility lets you take one Plot Card from another "
                f"player: {m.bold('TAKE: card FROM name')}, by {wait}.")
    if e.card == "overheard":
        a, b = (state.shown(n) for n in e.neighbours)
        return (f"{holder}: Overheard Conversation: choose a neighbour, {a} or {b} "
                f"({m.bold('CHOOSE: name')}), by {wait}; you will learn their allegiance by PM.")
    what = {"open-up": "who will learn your allegiance by PM",
            "establish-confidence": "who will learn your allegiance by PM"}[e.card]
    return f"{holder}: {_card(e.card)}: choose a player {what} ({m.bold('CHOOSE: name')}), by {wait}."


@public(ev.PLOT_REVEAL)
def _plot_reveal(state: GameState, e: PlotReveal, tag: str, m: Markup) -> str:
    if e.card == "close-eye":
        return ""
    return f"{state.shown(e.holder)} chooses {m.bold(state.shown(e.target))} for {_card(e.card)}."


@private(ev.PLOT_REVEAL)
def _reveal_pm(state: GameState, e: PlotReveal, tag: str, m: Markup) -> list[Message]:
    subject = m.bold(state.shown(e.subject))
    if e.card == "close-eye":
        sent = (e.order or "").upper()
        text = f"{tag}: Keeping a Close Eye on You: {subject} played {m.bold(sent)} on mission {e.mission}"
        if e.switched:  # (who used Excalibur on whom is public: the thread said so)
            counted = "SUPPORT" if sent == "SABOTAGE" else "SABOTAGE"
            text += f"; Excalibur switched it, and it counted as {m.bold(counted)}"
        text += "."
    else:
        text = f"{tag}: {_card(e.card)}: {subject} is {side_member(state, e.side or '')}."
    return [Message(f"reveal:{e.viewer}", text, to=state.shown(e.viewer),
                    subject=f"{tag}: {_card(e.card)}", priority=0)]


@public(ev.PLOT_PLAYED)
def _plot_played(state: GameState, e: PlotPlayed, tag: str, m: Markup) -> str:
    holder = state.shown(e.holder)
    if e.card == "strong-leader":
        return f"{holder} plays {m.bold('Strong Leader')} and leads this round."
    if e.card == "chicago-proxy":
        target = state.shown(e.target or "")
        return (f"{holder} plays {m.bold('Chicago Proxy')} on {m.bold(target)}: "
                f"{holder} casts {target}'s vote on this team "
                f"({m.bold('PROXY: name APPROVE')} to change it).")
    target = f" on {m.bold(state.shown(e.target))}" if e.target else ""
    return f"{holder} plays {m.bold(_card(e.card))}{target}."


@public(ev.PLOT_DECLARED)
def _plot_declared(state: GameState, e: PlotDeclared, tag: str, m: Markup) -> str:
    return f"{state.shown(e.holder)} plays {m.bold('Keeping a Close Eye on You')}, and names a team member by PM."


@public(ev.TEAM_VETOED)
def _team_vetoed(state: GameState, e: TeamVetoed, tag: str, m: Markup) -> str:
    return (f"{m.bold('No Confidence')}: the approved team is rejected after all. It counts as "
            f"a rejected team ({e.rejections} of 5 this mission).")


@public(ev.PLOT_SPOTLIGHT)
def _plot_spotlight(state: GameState, e: PlotSpotlight, tag: str, m: Markup) -> str:
    switched = " before Excalibur switched it" if e.switched else ""
    return (f"In the Spotlight: {m.bold(state.shown(e.target))}'s order on mission {e.mission} "
            f"was {m.bold(e.order.upper())}{switched}.")


@public(ev.PLOT_CHOICE_SKIPPED)
def _plot_skipped(state: GameState, e: PlotChoiceSkipped, tag: str, m: Markup) -> str:
    return f"{_card(e.card)} goes unused ({e.reason})."


@public(ev.PLOT_DISCARDED)
def _plot_discarded(state: GameState, e: PlotDiscarded, tag: str, m: Markup) -> str:
    return f"{_card(e.card)} is discarded ({e.reason})."


@public(ev.PLOT_TAKEN)
def _plot_taken(state: GameState, e: PlotTaken, tag: str, m: Markup) -> str:
    return f"{state.shown(e.by)} takes {m.bold(_card(e.card))} from {state.shown(e.source)}."


# --- the archive page: each card played, taken or chosen for, In the Spotlight's order,
# and the vote No Confidence undoes


def _page_card(key: str) -> str:
    card = BY_KEY.get(key)
    return card.name if card else key.replace("-", " ").title()


def _page_moment(text: str) -> dict:
    return {"symbol": "▤", "kind": "Plot Card", "text": text}


@moment(PlotPlayed)
def _page_played(state: GameState, e: PlotPlayed, reveal: bool, name) -> dict:
    if e.card == "chicago-proxy":
        return _page_moment(f"{name(e.holder)} plays Chicago Proxy on {name(e.target or '')}.")
    target = f" on {name(e.target)}" if e.target else ""
    return _page_moment(f"{name(e.holder)} plays {_page_card(e.card)}{target}.")


@moment(PlotDeclared)
def _page_declared(state: GameState, e: PlotDeclared, reveal: bool, name) -> dict:
    return _page_moment(f"{name(e.holder)} plays Keeping a Close Eye on You.")


@moment(PlotTaken)
def _page_taken(state: GameState, e: PlotTaken, reveal: bool, name) -> dict:
    return _page_moment(f"{name(e.by)} takes {_page_card(e.card)} from {name(e.source)}.")


@moment(PlotReveal)
def _page_reveal(state: GameState, e: PlotReveal, reveal: bool, name) -> dict | None:
    if e.card == "close-eye":
        return None
    return _page_moment(f"{name(e.holder)} chooses {name(e.target)} for {_page_card(e.card)}.")


@moment(TeamVetoed)
def _page_vetoed(state: GameState, e: TeamVetoed, reveal: bool, name) -> dict:
    return _page_moment(f"{name(e.holder)} plays No Confidence: proposal {e.proposal} is rejected after all.")


@moment(PlotSpotlight)
def _page_spotlight(state: GameState, e: PlotSpotlight, reveal: bool, name) -> dict:
    return {"symbol": "◉", "kind": "Plot Card",
            "text": f"In the Spotlight: {name(e.target)}'s order was {e.order.upper()}."}


@undoes_vote(TeamVetoed)
def _page_undone(e: TeamVetoed) -> tuple[int, int]:
    return e.mission, e.proposal
