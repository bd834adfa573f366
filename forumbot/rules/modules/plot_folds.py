"""The Plot Cards' state, `state.extra["plot"]` (a `Plot`), and how their events change it
(copy on write: a fold changes the data through `own`, see GameState.own_extra).

Players are named by their seats' ids: the hands, the queue, the window's plays."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from .. import events as ev
from ..state import GameState, open_phase, register_copy, register_fold
from .plot_deck import BY_KEY
from .plot_events import (
    PlotChoiceOpened,
    PlotChoiceSkipped,
    PlotDeclared,
    PlotDiscarded,
    PlotDrawn,
    PlotGiven,
    PlotOrderSeen,
    PlotPassed,
    PlotPlayed,
    PlotReveal,
    PlotRound,
    PlotShuffled,
    PlotSpotlight,
    PlotTaken,
    PlotWindow,
    PlotWindowClosed,
    TeamVetoed,
)

WINDOW = "card_window"  # optional cards: play or PASS
HAND_OUT = "hand_out"  # the leader gives the drawn cards
CHOICE = "plot_choice"  # an immediate card's holder chooses


@dataclass(frozen=True, slots=True)
class Round:
    """The round's draw: its mission, and who leads it (a Strong Leader's holder, maybe)."""

    mission: int
    leader: str


@dataclass(frozen=True, slots=True)
class Play:
    """A card played in a window (`target`: In the Spotlight's)."""

    holder: str
    card: str
    target: str | None = None


@dataclass(frozen=True, slots=True)
class Window:
    """The open window to play a kept card, and what was played in it so far."""

    kind: str  # round_start | after_veto | approved | after_result
    plays: tuple[Play, ...] = ()


@dataclass(slots=True)
class Plot:
    """Everything the Plot Cards keep. Lists and the hands are changed in place by the
    folds (only through `own`); `Round`, `Window` and the pairs are replaced whole."""

    deck: list[str] = field(default_factory=list)
    hands: dict[str, list[str]] = field(default_factory=dict)  # seat -> kept cards
    discard: list[str] = field(default_factory=list)
    opinion: list[str] = field(default_factory=list)  # Opinion Maker's holders
    queue: list[tuple[str, str]] = field(default_factory=list)  # (card, holder): immediate cards to resolve
    drawn: list[str] = field(default_factory=list)  # this round's cards still to give
    spotlight: list[str] = field(default_factory=list)  # In the Spotlight's targets, this mission
    given_to: list[str] = field(default_factory=list)  # who has a card from this round
    picked: list[str] = field(default_factory=list)  # Keeping a Close Eye on You's picks, this window
    declared: list[str] = field(default_factory=list)  # avalon-2020: Close Eye played in the thread
    strong_at: int = -1  # len(vote_history) when a Strong Leader was last played
    shuffles: int = 0
    window: Window | None = None
    round: Round | None = None
    current: tuple[str, str] | None = None  # (card, holder): the immediate card being resolved


def plot(state: GameState) -> Plot:
    return state.extra["plot"]


def card_name(key: str) -> str:
    return BY_KEY[key].name


def kind_of(state: GameState, key: str) -> str:
    """avalon-2020 keeps Take Responsibility to play when its holder likes."""
    if key == "take-responsibility" and state.config.preset == "avalon-2020":
        return "one-use"
    return BY_KEY[key].kind


# --- how the events change the state ----------------------------------------------------
# (copy on write: a fold changes the plug-in's data through `own`, see GameState.own_extra)


def own(state: GameState) -> Plot:
    """The plug-in's data, this state's own, to change (in a fold), or to hold on to while
    events change it (in a step given the transaction: `tx.state`)."""
    return state.own_extra("plot")


@register_copy("plot")
def _copy(p: Plot) -> Plot:
    """A copy of the plug-in's data: every container a fold changes in place is copied (the
    deck is only ever replaced; Round, Window and the pairs are immutable)."""
    return Plot(deck=p.deck, hands={n: h[:] for n, h in p.hands.items()}, discard=p.discard[:],
                opinion=p.opinion[:], queue=p.queue[:], drawn=p.drawn[:], spotlight=p.spotlight[:],
                given_to=p.given_to[:], picked=p.picked[:], declared=p.declared[:],
                strong_at=p.strong_at, shuffles=p.shuffles, window=p.window, round=p.round,
                current=p.current)


@register_fold(ev.PLOT_SHUFFLED)
def _shuffled(state: GameState, e: PlotShuffled) -> None:
    if "plot" not in state.extra:
        state.put_extra("plot", Plot())
    p = own(state)
    p.deck = list(e.deck)
    p.discard = []
    p.shuffles += 1


@register_fold(ev.PLOT_ROUND)
def _round(state: GameState, e: PlotRound) -> None:
    p = own(state)
    p.round = Round(e.mission, e.leader)
    p.given_to, p.drawn, p.queue, p.spotlight = [], [], [], []


@register_fold(ev.PLOT_WINDOW)
def _window(state: GameState, e: PlotWindow) -> None:
    p = own(state)
    p.window = Window(e.window)
    if e.window == "after_result":
        p.picked = []
        p.declared = []
    open_phase(state, WINDOW, e, e.holders)


@register_fold(ev.PLOT_PASSED)
def _passed(state: GameState, e: PlotPassed) -> None:
    state.own("actors").remove(e.holder)


@register_fold(ev.PLOT_PLAYED)
def _played(state: GameState, e: PlotPlayed) -> None:
    p = own(state)
    p.hands[e.holder].remove(e.card)
    p.discard.append(e.card)
    if e.holder in state.actors:
        state.own("actors").remove(e.holder)
    if p.window is not None:
        p.window = replace(p.window, plays=p.window.plays + (Play(e.holder, e.card, e.target),))
    if e.card == "strong-leader":
        assert p.round is not None
        p.round = replace(p.round, leader=e.holder)
        p.strong_at = len(state.vote_history)
    if e.card == "chicago-proxy":
        assert e.target is not None
        state.own("proxied")[e.target] = e.holder
        state.own("votes").pop(e.target, None)
        state.own("vote_via").pop(e.target, None)


@register_fold(ev.PLOT_WINDOW_CLOSED)
def _window_closed(state: GameState, e: PlotWindowClosed) -> None:
    p = own(state)
    assert p.window is not None
    if p.window.kind == "approved":  # In the Spotlight targets, for this mission's result
        p.spotlight = [x.target for x in p.window.plays if x.card == "spotlight" and x.target]
    p.window = None
    state.put("actors", [])


@register_fold(ev.PLOT_DRAWN)
def _drawn(state: GameState, e: PlotDrawn) -> None:
    p = own(state)
    p.deck = p.deck[len(e.cards):]
    p.drawn = list(e.cards)
    open_phase(state, HAND_OUT, e, [e.leader])


@register_fold(ev.PLOT_GIVEN)
def _given(state: GameState, e: PlotGiven) -> None:
    p = own(state)
    p.drawn.remove(e.card)
    if not e.own:
        p.given_to.append(e.to)
    if kind_of(state, e.card) == "immediate":
        p.queue.append((e.card, e.to))
    else:
        p.hands.setdefault(e.to, []).append(e.card)
        if e.card == "opinion-maker":
            p.opinion.append(e.to)


@register_fold(ev.PLOT_DISCARDED)
def _discarded(state: GameState, e: PlotDiscarded) -> None:
    p = own(state)
    if e.card in p.drawn:
        p.drawn.remove(e.card)
    p.discard.append(e.card)


@register_fold(ev.PLOT_CHOICE_OPENED)
def _choice_opened(state: GameState, e: PlotChoiceOpened) -> None:
    p = own(state)
    p.current = p.queue.pop(0)
    open_phase(state, CHOICE, e, [e.holder])


@register_fold(ev.PLOT_CHOICE_SKIPPED)
def _choice_skipped(state: GameState, e: PlotChoiceSkipped) -> None:
    p = own(state)
    if p.queue and p.queue[0] == (e.card, e.holder):
        p.queue.pop(0)
    p.current = None
    p.discard.append(e.card)


@register_fold(ev.PLOT_REVEAL)
def _reveal(state: GameState, e: PlotReveal) -> None:
    p = own(state)
    if e.card == "close-eye":
        p.hands[e.viewer].remove("close-eye")
        p.picked.append(e.subject)
        state.own("actors").remove(e.viewer)
    else:
        p.current = None
    p.discard.append(e.card)


@register_fold(ev.PLOT_DECLARED)
def _declared(state: GameState, e: PlotDeclared) -> None:
    own(state).declared.append(e.holder)


@register_fold(ev.PLOT_TAKEN)
def _taken(state: GameState, e: PlotTaken) -> None:
    p = own(state)
    if e.from_hand:  # avalon-2020: a kept Take Responsibility, played when liked
        p.hands[e.by].remove("take-responsibility")
        p.hands[e.source].remove(e.card)
        p.hands[e.by].append(e.card)
        p.discard.append("take-responsibility")
        return
    p.hands[e.source].remove(e.card)
    p.hands.setdefault(e.by, []).append(e.card)
    if e.card == "opinion-maker":
        p.opinion.remove(e.source)
        p.opinion.append(e.by)
    p.current = None
    p.discard.append("take-responsibility")


@register_fold(ev.PLOT_SPOTLIGHT)
def _spotlight(state: GameState, e: PlotSpotlight) -> None:
    pass


@register_fold(ev.TEAM_VETOED)
def _vetoed(state: GameState, e: TeamVetoed) -> None:
    state.rejections += 1
    own(state).spotlight = []


@register_fold(ev.PLOT_ORDER_SEEN)
def _order_seen(state: GameState, e: PlotOrderSeen) -> None:
    pass
