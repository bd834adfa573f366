"""The Mission Cards' table, events, state and folds (the plug-in: rules/mission_cards.py)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..events import Event, event, opt
from ..state import GameState, open_phase, register_copy, register_fold

WINDOW = "prep_window"
FOLLOW = "prep_card"


@dataclass(frozen=True)
class MissionCard:
    key: str
    name: str
    action: str  # choose | give | keep | auto
    copies: int = 1


CARDS = (
    MissionCard("establish-confidence", "Establish Confidence", "choose"),
    MissionCard("interrogation", "'Vigorous' Interrogation", "choose"),
    MissionCard("counterespionage", "Counterespionage", "give"),
    MissionCard("badge", "Badge of Merit", "give", 2),
    MissionCard("tracker", "Secret Tracker", "choose"),
    MissionCard("delayed", "Delayed by Bureaucracy", "auto", 2),
    MissionCard("counterfeit", "Counterfeit Equipment", "auto"),
    MissionCard("prepare", "Prepare for the Future", "keep"),
)
BY_KEY = {c.key: c for c in CARDS}
DRAW = 2
KEPT = {"prepare", "counterespionage"}  # the cards a holder may play in Mission Prep's window

EV_SHUFFLED = "mc_shuffled"
EV_DRAWN = "mc_drawn"
EV_WINDOW = "mc_window"
EV_PLAYED = "mc_played"
EV_PASSED = "mc_passed"
EV_FOLLOW = "mc_follow"
EV_DONE = "mc_done"  # a drawn card has been followed (or goes unused)
EV_REVEAL = "mc_reveal"
EV_BADGE = "mc_badge"


def find_card(text: str) -> MissionCard | None:
    want = re.sub(r"[^a-z]", "", text.casefold())
    if len(want) < 3:
        return None
    hits = [c for c in CARDS if re.sub(r"[^a-z]", "", c.name.casefold()).startswith(want)
            or re.sub(r"[^a-z]", "", c.name.casefold()).removeprefix("vigorous").startswith(want)
            or c.key.startswith(want)]
    return hits[0] if len(hits) == 1 else None


# --- the events (players by their seats' ids, cards by their keys) --------------------


@event(EV_SHUFFLED)
class McShuffled(Event):
    deck: list[str]


@event(EV_DRAWN)
class McDrawn(Event):
    cards: list[str]
    mission: int
    leader: str
    commander: str | None


@event(EV_WINDOW)
class McWindow(Event):
    holders: list[str]
    mission: int
    cards: dict[str, list[str]] | None = opt()  # holder -> the kept cards they may play (a log
    # from before it was written has none: then what the holders held)


@event(EV_PLAYED)
class McPlayed(Event):
    card: str
    holder: str
    index: int | None = opt()  # Prepare for the Future: the drawn card it acts on
    target: str | None = opt()  # Counterespionage


@event(EV_PASSED)
class McPassed(Event):
    holder: str


@event(EV_FOLLOW)
class McFollow(Event):
    index: int
    card: str
    commander: str
    action: str  # choose | give


@event(EV_DONE)
class McDone(Event):
    index: int
    card: str
    commander: str
    applied: bool = opt(False)  # an auto card took effect
    to: str | None = opt()  # who keeps the card
    target: str | None = opt()  # who was chosen
    result: str


@event(EV_REVEAL)
class McReveal(Event):
    """`viewer` learns `subject`'s allegiance (`side`), or, Secret Tracker, their `order`
    on `mission`."""

    card: str
    viewer: str
    subject: str
    side: str | None = opt()
    order: str | None = opt()
    mission: int | None = opt()


@event(EV_BADGE)
class McBadge(Event):
    holder: str
    after: str  # the leader the holder moves to follow


# --- the state ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tracker:
    """Secret Tracker: the Commander who placed it, and on whom."""

    commander: str
    target: str


@dataclass(slots=True)
class Mc:
    """Everything the Mission Cards keep. The hands, `acting` and the lists are changed in
    place by the folds (only through `own`); the deck is only ever replaced."""

    deck: list[str] = field(default_factory=list)
    hands: dict[str, list[str]] = field(default_factory=dict)  # seat -> kept cards
    drawn: list[str] = field(default_factory=list)  # this mission's drawn cards
    acting: list[str | None] = field(default_factory=list)  # per drawn card: who acts as its Commander
    # (Prepare for the Future's holder; None: the Commander)
    done: list[int] = field(default_factory=list)  # the drawn cards followed
    tracker: Tracker | None = None
    delayed: int = 0  # Delayed by Bureaucracy drawn this mission
    delayed_commander: str | None = None
    window: bool | None = None  # Mission Prep's window is open
    mission: int = 0
    current: int = 0  # the drawn card being followed


def mc(state: GameState) -> Mc:
    return state.extra["mc"]


def own(state: GameState) -> Mc:
    """The plug-in's data, this state's own, to change (in a fold), or to hold on to while
    events change it (in a step given the transaction: `tx.state`)."""
    return state.own_extra("mc")


@register_copy("mc")
def _copy(m: Mc) -> Mc:
    """A copy of the plug-in's data: every container a fold changes in place is copied."""
    return Mc(deck=m.deck, hands={n: h[:] for n, h in m.hands.items()}, drawn=m.drawn[:],
              acting=m.acting.copy(), done=m.done[:], tracker=m.tracker, delayed=m.delayed,
              delayed_commander=m.delayed_commander, window=m.window, mission=m.mission,
              current=m.current)


# --- folds --------------------------------------------------------------------------


@register_fold(EV_SHUFFLED)
def _shuffled(state: GameState, e: McShuffled) -> None:
    state.put_extra("mc", Mc(deck=list(e.deck)))


@register_fold(EV_DRAWN)
def _drawn(state: GameState, e: McDrawn) -> None:
    m = own(state)
    m.deck = m.deck[len(e.cards):]
    m.drawn = list(e.cards)
    m.acting, m.done, m.tracker, m.delayed = [None] * len(e.cards), [], None, 0
    m.mission = e.mission


@register_fold(EV_WINDOW)
def _window(state: GameState, e: McWindow) -> None:
    own(state).window = True
    open_phase(state, WINDOW, e, e.holders)


@register_fold(EV_PLAYED)
def _played(state: GameState, e: McPlayed) -> None:
    m = own(state)
    m.hands[e.holder].remove(e.card)
    if e.card == "prepare":
        assert e.index is not None
        m.acting[e.index] = e.holder
    if e.holder in state.actors and e.card != "badge":
        state.own("actors").remove(e.holder)


@register_fold(EV_PASSED)
def _passed(state: GameState, e: McPassed) -> None:
    state.own("actors").remove(e.holder)


@register_fold(EV_FOLLOW)
def _follow(state: GameState, e: McFollow) -> None:
    m = own(state)
    m.window = None
    open_phase(state, FOLLOW, e, [e.commander])
    m.current = e.index


@register_fold(EV_DONE)
def _done(state: GameState, e: McDone) -> None:
    m = own(state)
    m.done.append(e.index)
    m.window = None
    if e.to:
        m.hands.setdefault(e.to, []).append(e.card)
    if e.card == "tracker" and e.target:
        m.tracker = Tracker(e.commander, e.target)
    if e.card == "delayed" and e.applied:
        m.delayed += 1
        m.delayed_commander = e.commander


@register_fold(EV_REVEAL)
def _reveal(state: GameState, e: McReveal) -> None:
    pass


@register_fold(EV_BADGE)
def _badge(state: GameState, e: McBadge) -> None:
    own(state).hands[e.holder].remove("badge")
    seats = state.own("seats")
    seat = state.player(e.holder)
    seats.remove(seat)
    i = [s.id for s in seats].index(e.after)
    seats.insert(i + 1, seat)
