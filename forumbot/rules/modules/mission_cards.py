"""The Mission Cards of so-say-we-all (variants.md): Mission Prep at the start of each
mission. The bot shows the top 2 cards; holders of Prepare for the Future and
Counterespionage get a window; then the Commander follows the drawn cards in order
(`GIVE:` to hand one over, `CHOOSE:` to name a target, by the `choice` deadline); only
then may the first leader propose. Targets are public; what a card reveals goes by PM.

Everything kept is `state.extra["mc"]`, an `Mc`, changed only by the module's events
(the cards, the events, the state and the folds: rules/mission_card_folds.py).
Players are named by their seats' ids; words for them show `state.shown(id)`.
"""
from __future__ import annotations

import random

from ..commands import Choose, GiveCard, PassCard, PlayCard, Refusal, said
from ..events import MissionResolved
from ..plugin import RulePlugin
from ..state import GameState
from ..steps import open_proposal
from .commander import commander as the_commander
from .mission_card_folds import (
    BY_KEY,
    CARDS,
    DRAW,
    FOLLOW,
    KEPT,
    WINDOW,
    McBadge,
    McDone,
    McDrawn,
    McFollow,
    McPassed,
    McPlayed,
    McReveal,
    McShuffled,
    McWindow,
    find_card,
    mc,
    own,
)

__all__ = ["MissionCards", "PLUGIN"]

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
