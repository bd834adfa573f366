"""The Mission Cards of so-say-we-all (variants.md): Mission Prep at the start of each
mission. The bot shows the top 2 cards; holders of Prepare for the Future and
Counterespionage get a window; then the Commander follows the drawn cards in order
(`GIVE:` to hand one over, `CHOOSE:` to name a target, by the `choice` deadline); only
then may the first leader propose. Targets are public; what a card reveals goes by PM.

Everything kept is `state.extra["mc"]`, an `Mc`, changed only by this module's events.
Players are named by their seats' ids; words for them show `state.shown(id)`.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from .commander import commander as the_commander
from .commands import Choose, GiveCard, PassCard, PlayCard, Refusal, said
from .events import Event, MissionResolved, event, opt
from .hooks import RulePlugin
from .state import GameState, open_phase, register_copy, register_fold

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


# --- the plug-in ----------------------------------------------------------------------


class MissionCards(RulePlugin):
    name = "mission_cards"
    handles = (GiveCard, PlayCard, Choose, PassCard)
    phases = {WINDOW: "card_window", FOLLOW: "choice"}
    phase_words = {WINDOW: "Mission Prep, the chance to play a kept Mission Card",
                   FOLLOW: "Mission Prep, following the drawn Mission Cards"}

    def after_start(self, tx) -> None:
        deck = sorted(c.key for c in CARDS for _ in range(c.copies))
        random.Random(f"{tx.state.seed}:mission-cards").shuffle(deck)
        tx.emit(McShuffled, deck=deck)

    def before_round(self, tx, mission, leader) -> bool:
        s = tx.state
        m = own(s)
        cards = m.deck[:DRAW]
        if not cards:
            return False
        tx.emit(McDrawn, cards=cards, mission=mission, leader=leader,
                commander=the_commander(s))
        hands = own(s).hands
        kept = {x.id: sorted(KEPT & set(hands.get(x.id, []))) for x in s.seats if not x.disqualified}
        holders = [n for n in s.ids if kept.get(n)]
        if holders:  # each holder is offered only the cards they hold
            tx.emit(McWindow, holders=holders, mission=mission, cards={n: kept[n] for n in holders})
        else:
            self._follow_next(tx)
        return True

    def _commander_for(self, s: GameState, index: int) -> str:
        acting = mc(s).acting
        return (acting[index] if index < len(acting) else None) or the_commander(s) or ""

    def _follow_next(self, tx) -> None:
        from .engine import open_proposal

        s = tx.state
        m = own(s)
        cancelled = "counterfeit" in m.drawn
        for index, card in enumerate(m.drawn):
            if index in m.done:
                continue
            commander = self._commander_for(s, index)
            kind = BY_KEY[card].action
            if cancelled and card != "counterfeit":
                tx.emit(McDone, index=index, card=card, commander=commander,
                        result="discarded by Counterfeit Equipment")
            elif kind == "auto":
                tx.emit(McDone, index=index, card=card, commander=commander, applied=True,
                        result="applied")
            elif kind == "keep":
                tx.emit(McDone, index=index, card=card, commander=commander, to=commander,
                        result="kept")
            elif s.player(commander).disqualified:
                tx.emit(McDone, index=index, card=card, commander=commander,
                        result="unused: the Commander is disqualified")
            else:
                tx.emit(McFollow, index=index, card=card, commander=commander, action=kind)
                return
        open_proposal(tx, m.mission, s.next_leader(the_commander(s)))

    # Delayed by Bureaucracy: the Commander sits out the first proposal(s) of the mission
    def _delayed(self, s: GameState) -> str | None:
        m = mc(s)
        if m.delayed and m.mission == s.mission and s.attempt <= m.delayed:
            return m.delayed_commander
        return None

    def before_proposal(self, state, cmd):
        who = self._delayed(state)
        if who and who in cmd.team:
            return Refusal(f"Delayed by Bureaucracy: {state.shown(who)} may not be on this proposal.",
                           said("PROPOSE: name, name"))
        return None

    def barred_voters(self, state) -> set[str]:
        who = self._delayed(state)
        return {who} if who else set()

    def after_mission(self, tx, record: MissionResolved) -> bool:
        t = own(tx.state).tracker
        if t and t.target in record.team:
            tx.emit(McReveal, card="tracker", viewer=t.commander, subject=t.target,
                    order=record.orders[t.target], mission=record.number)
        return False

    # commands
    def handle(self, tx, cmd):
        s = tx.state
        if isinstance(cmd, PlayCard) and (c := find_card(cmd.card)) is not None and c.key == "badge":
            return self._badge(tx, cmd)
        if s.phase == WINDOW:
            if isinstance(cmd, PassCard):
                if cmd.author not in s.actors:
                    return Refusal("You have no card waiting for an answer now.")
                tx.emit(McPassed, holder=cmd.author)
                self._maybe_close(tx)
                return None
            if isinstance(cmd, PlayCard):
                return self._play_in_window(tx, cmd)
        if s.phase == FOLLOW:
            return self._follow(tx, cmd)
        return Refusal("No Mission Card is waiting for that now.")

    def _badge(self, tx, cmd: PlayCard):
        s = tx.state
        if "badge" not in own(s).hands.get(cmd.author, []):
            return Refusal("You do not hold a Badge of Merit.")
        if not s.running or s.leader is None:
            return Refusal("There is no leader to follow now.")
        if cmd.author == s.leader:
            return Refusal("You are the leader now; play the Badge when someone else leads.")
        tx.emit(McBadge, holder=cmd.author, after=s.leader)
        return None

    def _play_in_window(self, tx, cmd: PlayCard):
        s = tx.state
        m = own(s)
        card = find_card(cmd.card)
        if cmd.author not in s.actors or card is None or card.key not in m.hands.get(cmd.author, []):
            return Refusal(f"You do not hold '{cmd.card}' to play now.")
        if card.key == "prepare":
            target = find_card(cmd.target or "")
            drawn = [i for i, c in enumerate(m.drawn) if target and c == target.key
                     and m.acting[i] is None]
            if not drawn:
                names = ", ".join(BY_KEY[c].name for c in m.drawn)
                return Refusal(f"Name one of this mission's drawn cards: {names}.",
                               said("PLAY: Prepare for the Future -> card"))
            tx.emit(McPlayed, card="prepare", holder=cmd.author, index=drawn[0])
        elif card.key == "counterespionage":
            seat = s.seat(cmd.target) if cmd.target else None
            if seat is None or seat.id == cmd.author:
                return Refusal("Name another player.", said("PLAY: Counterespionage -> name"))
            tx.emit(McPlayed, card="counterespionage", holder=cmd.author, target=seat.id)
            tx.emit(McReveal, card="counterespionage", viewer=cmd.author, subject=seat.id,
                    side=seat.side)
        else:
            return Refusal(f"{card.name} is not played in Mission Prep.")
        self._maybe_close(tx)
        return None

    def _maybe_close(self, tx) -> None:
        if not tx.state.actors:
            self._follow_next(tx)

    def _follow(self, tx, cmd):
        s = tx.state
        m = own(s)
        index = m.current
        card = m.drawn[index]
        commander = self._commander_for(s, index)
        if cmd.author != commander:
            return Refusal(f"{BY_KEY[card].name} is {s.shown(commander)}'s to follow now.")
        action = BY_KEY[card].action
        if action == "give":
            if not isinstance(cmd, GiveCard) or (find_card(cmd.card) or BY_KEY["prepare"]).key != card:
                return Refusal(f"Hand {BY_KEY[card].name} to another player.",
                               said(f"GIVE: {BY_KEY[card].name} -> name"))
            target = s.seat(cmd.target)
            if target is None or target.id == commander:
                return Refusal("Give it to another player.", said(f"GIVE: {BY_KEY[card].name} -> name"))
            tx.emit(McDone, index=index, card=card, commander=commander, to=target.id,
                    result=f"given to {target.id}")
        else:
            if not isinstance(cmd, Choose):
                return Refusal(f"{BY_KEY[card].name}: name a player.", said("CHOOSE: name"))
            target = s.seat(cmd.target)
            if target is None or target.id == commander:
                return Refusal("Choose another player.", said("CHOOSE: name"))
            tx.emit(McDone, index=index, card=card, commander=commander, target=target.id,
                    result=f"{target.id} chosen")
            if card == "establish-confidence":
                tx.emit(McReveal, card=card, viewer=target.id, subject=commander,
                        side=s.player(commander).side)
            elif card == "interrogation":
                tx.emit(McReveal, card=card, viewer=commander, subject=target.id,
                        side=target.side)
        self._follow_next(tx)
        return None

    def on_expire(self, tx) -> bool:
        s = tx.state
        if s.phase == WINDOW:
            self._follow_next(tx)
        elif s.phase == FOLLOW:
            index = own(s).current
            tx.emit(McDone, index=index, card=own(s).drawn[index],
                    commander=self._commander_for(s, index), result="unused: the deadline passed")
            self._follow_next(tx)
        else:
            return False
        return True


PLUGIN = MissionCards
