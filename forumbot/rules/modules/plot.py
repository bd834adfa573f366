"""Plot Cards (resistance-plot's rules; avalon plays the same deck). See variants.md.

A round: a Strong Leader window (only if someone holds one) -> the bot draws the round's
cards and shows them -> the leader hands each to a different player (`GIVE:`), Establish
Confidence staying with the leader -> the immediate cards are resolved in the order given
(`CHOOSE:`, `TAKE:`) -> only then the first proposal. After a team is approved, holders
of No Confidence and In the Spotlight get a window. After the result, holders of Keeping
a Close Eye on You name a team member by PM. Opinion Maker holders vote in the thread only.

Everything the plug-in keeps is `state.extra["plot"]`, a `plot_folds.Plot`, changed only by
its events. Players are named by their seats' ids; words for them show `state.shown(id)`.
"""
from __future__ import annotations

import random

from ..commands import Choose, GiveCard, PassCard, PlayCard, ProxyVote, Refusal, TakeCard, said
from ..events import MissionResolved
from ..plugin import RulePlugin
from ..state import GameState
from ..steps import open_proposal, resume_after_mission
from ..team import after_rejection, open_mission
from .excalibur import as_sent
from .lady import decided
from .plot_deck import DRAW, deck_for, find_card
from .plot_events import (
    PlotChoiceOpened,
    PlotChoiceSkipped,
    PlotDiscarded,
    PlotDrawn,
    PlotGiven,
    PlotPassed,
    PlotReveal,
    PlotRound,
    PlotShuffled,
    PlotSpotlight,
    PlotTaken,
    PlotWindow,
    PlotWindowClosed,
    TeamVetoed,
)
from .plot_folds import CHOICE, HAND_OUT, WINDOW, card_name, own, plot
from .plot_plays import CardPlays

# --- the plug-in ------------------------------------------------------------------------


class PlotCards(CardPlays, RulePlugin):
    name = "plot_cards"
    handles = (GiveCard, PlayCard, TakeCard, Choose, PassCard, ProxyVote)
    phases = {WINDOW: "card_window", HAND_OUT: "choice", CHOICE: "choice"}
    phase_words = {HAND_OUT: "the hand-out of the Plot Cards", CHOICE: "a Plot Card's choice",
                   WINDOW: "the chance to play a Plot Card"}
    command_words = {"GiveCard": "GIVE", "PlayCard": "PLAY", "TakeCard": "TAKE", "Choose": "CHOOSE",
                     "PassCard": "PASS", "ProxyVote": "PROXY"}

    @classmethod
    def for_config(cls, config) -> "PlotCards":
        return cls(config.preset)

    def __init__(self, preset: str = "resistance-plot"):
        self.preset = preset
        self.y2020 = preset == "avalon-2020"  # the avalon-2020 differences (variants.md)

    # the deck, at the start and when it runs short
    def after_start(self, tx) -> None:
        self._shuffle(tx, deck_for(len(tx.state.seats), self.preset))

    def _shuffle(self, tx, cards: list[str]) -> None:
        s = tx.state
        shuffles = plot(s).shuffles if "plot" in s.extra else 0
        cards = sorted(cards)
        random.Random(f"{s.seed}:plot:{shuffles}").shuffle(cards)
        tx.emit(PlotShuffled, deck=cards)

    # a round: Strong Leader, the draw, the hand-out, the immediate cards
    def before_round(self, tx, mission, leader) -> bool:
        tx.emit(PlotRound, mission=mission, leader=leader)
        holders = self._strong_holders(tx.state, leader)
        if holders and not self._strong_blocked(tx.state):
            tx.emit(PlotWindow, window="round_start", holders=holders, card="strong-leader")
        else:
            self._draw(tx)
        return True

    def _draw(self, tx) -> None:
        s = tx.state
        p = own(s)
        n = DRAW[len(s.seats)]
        if len(p.deck) < n:
            self._shuffle(tx, p.deck + p.discard)
        assert p.round is not None
        leader = p.round.leader
        cards = p.deck[:n]
        tx.emit(PlotDrawn, cards=cards, leader=leader, mission=p.round.mission)
        for card in cards:
            if card == "establish-confidence":  # the leader's own card
                tx.emit(PlotGiven, card=card, to=leader, by=leader, own=True)
        self._after_give(tx)

    def _receivers(self, s: GameState) -> list[str]:
        p = plot(s)
        leader = p.round.leader if p.round else None
        return [x.id for x in s.seats if x.id != leader and x.id not in p.given_to and not x.disqualified]

    def _after_give(self, tx) -> None:
        """Resolve the immediate cards once every drawn card is given; a card no one may
        receive any more (everyone else has one, or is disqualified) is discarded."""
        s = tx.state
        if own(s).drawn and not self._receivers(s):
            for card in list(own(s).drawn):
                tx.emit(PlotDiscarded, card=card, reason="no one is left to receive it")
        if not own(s).drawn:
            self._next_choice(tx)

    def _next_choice(self, tx) -> None:
        s = tx.state
        p = own(s)
        while p.queue:
            card, holder = p.queue[0]
            others_hold = any(h for n, h in p.hands.items() if n != holder and h)
            if s.player(holder).disqualified:
                tx.emit(PlotChoiceSkipped, card=card, holder=holder, reason="the holder is disqualified")
            elif card == "take-responsibility" and not others_hold:
                tx.emit(PlotChoiceSkipped, card=card, holder=holder, reason="no one holds a card to take")
            else:
                tx.emit(PlotChoiceOpened, card=card, holder=holder,
                        neighbours=self._neighbours(s, holder) if card == "overheard" else [])
                return
        assert p.round is not None
        open_proposal(tx, p.round.mission, p.round.leader)

    # windows after an approved team, and after the result
    def before_mission_opens(self, tx) -> bool:
        holders = sorted(set(self._holders(tx.state, "no-confidence") + self._holders(tx.state, "spotlight")),
                         key=tx.state.ids.index)
        if not holders:
            return False
        tx.emit(PlotWindow, window="approved", holders=holders, card="no-confidence")
        return True

    def after_mission(self, tx, record: MissionResolved) -> bool:
        s = tx.state
        for target in own(s).spotlight:  # face up as sent, before any Excalibur (variants.md)
            order, changed = as_sent(s, record.number, target, record.orders[target])
            tx.emit(PlotSpotlight, target=target, order=order, mission=record.number, switched=changed)
        holders = self._holders(s, "close-eye")
        if not holders or decided(s):
            return False
        tx.emit(PlotWindow, window="after_result", holders=holders, card="close-eye",
                team=record.team)
        return True

    def votes_in_thread(self, state, name) -> bool:
        return name in plot(state).opinion

    def before_vote(self, state, cmd):
        if cmd.author in state.proxied:
            return Refusal(f"Your vote on this team is cast by {state.shown(state.proxied[cmd.author])} "
                           "(Chicago Proxy).", private=cmd.via == "pm")
        if cmd.via == "pm" and cmd.author in plot(state).opinion:
            return Refusal("You hold Opinion Maker: your team votes count only as bold comments "
                           "in the thread.", said("APPROVE") + " or " + said("REJECT") + " in the thread",
                           private=True)
        return None

    # commands
    def handle(self, tx, cmd):
        s = tx.state
        if isinstance(cmd, ProxyVote):
            return self._proxy_vote(tx, cmd)
        if isinstance(cmd, GiveCard):
            return self._give(tx, cmd)
        if isinstance(cmd, TakeCard):
            return self._take(tx, cmd)
        if isinstance(cmd, Choose):
            if s.phase == WINDOW and (w := own(s).window) is not None and w.kind == "after_result":
                return self._close_eye(tx, cmd.author, cmd.target, cmd.via)
            return self._choose(tx, cmd)
        if isinstance(cmd, PlayCard):
            return self._play(tx, cmd)
        return self._pass(tx, cmd)

    def _give(self, tx, cmd: GiveCard):
        s = tx.state
        p = own(s)
        if s.phase != HAND_OUT:
            return Refusal("There are no drawn cards to hand out now.")
        assert p.round is not None
        leader = p.round.leader
        if cmd.author != leader:
            return Refusal(f"Only the leader, {s.shown(leader)}, hands out this round's cards.")
        card = find_card(cmd.card)
        form = said(f"GIVE: {card_name(p.drawn[0])} -> name") if p.drawn else ""
        if card is None or card.key not in p.drawn:
            left = ", ".join(card_name(c) for c in p.drawn)
            return Refusal(f"'{cmd.card}' is not one of the cards still to give: {left}.", form)
        target = s.seat(cmd.target)
        if target is None:
            return Refusal(f"{cmd.target} is not a player in this game.", form)
        if target.id == leader:
            return Refusal("The leader gives the cards to other players, not to himself.", form)
        if target.id in p.given_to:
            return Refusal(f"{s.shown(target.id)} has a card from this round already: each goes to a "
                           "different player.", form)
        if target.disqualified:
            return Refusal(f"{s.shown(target.id)} is disqualified.", form)
        tx.emit(PlotGiven, card=card.key, to=target.id, by=leader)
        self._after_give(tx)
        return None

    def _choose(self, tx, cmd: Choose):
        s = tx.state
        p = own(s)
        if s.phase != CHOICE:
            return Refusal("No card is waiting for a choice now.")
        assert p.current is not None
        card, holder = p.current
        if cmd.author != holder:
            return Refusal(f"{card_name(card)} is {s.shown(holder)}'s to resolve.")
        if card == "take-responsibility":
            return Refusal(("Take Responsibility takes a card: " + said("TAKE: card FROM name") + "."))
        target = s.seat(cmd.target)
        form = said("CHOOSE: name")
        if target is None:
            return Refusal(f"{cmd.target} is not a player in this game.", form)
        if target.id == holder:
            return Refusal("Choose another player, not yourself.", form)
        if card == "overheard" and target.id not in self._neighbours(s, holder):
            a, b = self._neighbours(s, holder)
            return Refusal(f"Overheard Conversation reaches only your neighbours: {s.shown(a)} or "
                           f"{s.shown(b)}.", form)
        if card == "overheard":  # the holder learns the target's allegiance
            viewer, subject = holder, target.id
        else:  # Open Up and Establish Confidence: the target learns the holder's
            viewer, subject = target.id, holder
        tx.emit(PlotReveal, card=card, holder=holder, target=target.id, viewer=viewer,
                subject=subject, side=s.player(subject).side)
        self._next_choice(tx)
        return None

    def _take(self, tx, cmd: TakeCard):
        s = tx.state
        p = own(s)
        form = said("TAKE: card FROM name")
        if self.y2020 and "take-responsibility" in p.hands.get(cmd.author, []):
            card = find_card(cmd.card)
            source = s.seat(cmd.source)
            if source is None or source.id == cmd.author:
                return Refusal("Take a card from another player.", form)
            if card is None or card.key not in p.hands.get(source.id, []):
                held = ", ".join(card_name(c) for c in p.hands.get(source.id, [])) or "nothing"
                return Refusal(f"{s.shown(source.id)} does not hold that card; they hold: {held}.", form)
            tx.emit(PlotTaken, card=card.key, by=cmd.author, source=source.id, from_hand=True)
            return None
        if s.phase != CHOICE or p.current is None or p.current[0] != "take-responsibility":
            return Refusal("Take Responsibility is not being resolved now.")
        holder = p.current[1]
        if cmd.author != holder:
            return Refusal(f"Take Responsibility is {s.shown(holder)}'s to resolve.")
        card = find_card(cmd.card)
        source = s.seat(cmd.source)
        if source is None or source.id == holder:
            return Refusal("Take a card from another player.", form)
        if card is None or card.key not in p.hands.get(source.id, []):
            held = ", ".join(card_name(c) for c in p.hands.get(source.id, [])) or "nothing"
            return Refusal(f"{s.shown(source.id)} does not hold that card; they hold: {held}.", form)
        tx.emit(PlotTaken, card=card.key, by=holder, source=source.id)
        self._next_choice(tx)
        return None

    def _pass(self, tx, cmd: PassCard):
        s = tx.state
        if s.phase != WINDOW or cmd.author not in s.actors:
            return Refusal("You have no card waiting for an answer now.")
        tx.emit(PlotPassed, holder=cmd.author)
        if not tx.state.actors:
            self._close_window(tx)
        return None

    def _close_window(self, tx) -> None:
        s = tx.state
        window = own(s).window
        assert window is not None
        kind, plays = window.kind, window.plays
        tx.emit(PlotWindowClosed)
        if kind == "round_start":
            self._draw(tx)
        elif kind == "after_veto":
            after_rejection(tx)
        elif kind == "after_result":
            resume_after_mission(tx, after=self)
        else:  # approved: plays resolve in seat order from the leader
            order = self._from_leader(s)
            veto = next((x for x in sorted(plays, key=lambda x: order.index(x.holder))
                         if x.card == "no-confidence"), None)
            if veto is not None:
                tx.emit(TeamVetoed, holder=veto.holder, card="no-confidence", mission=s.mission,
                        proposal=s.attempt, rejections=s.rejections + 1)
                holders = self._strong_holders(s, s.next_leader(s.leader))
                if self.y2020 and holders and s.rejections < 5:
                    tx.emit(PlotWindow, window="after_veto", holders=holders, card="strong-leader")
                    return
                after_rejection(tx)
                return
            open_mission(tx)

    def on_expire(self, tx) -> bool:
        s = tx.state
        if s.phase == WINDOW:
            self._close_window(tx)
        elif s.phase == HAND_OUT:
            for card in list(own(s).drawn):
                tx.emit(PlotDiscarded, card=card, reason="not given in time")
            self._next_choice(tx)
        elif s.phase == CHOICE:
            current = own(s).current
            assert current is not None
            card, holder = current
            tx.emit(PlotChoiceSkipped, card=card, holder=holder, reason="the deadline passed")
            self._next_choice(tx)
        else:
            return False
        return True

    # helpers
    def _holders(self, s: GameState, key: str) -> list[str]:
        hands = plot(s).hands
        return [x.id for x in s.seats if key in hands.get(x.id, []) and not x.disqualified]

    def _strong_holders(self, s: GameState, leader: str) -> list[str]:
        """Who is offered a Strong Leader window: its holders but the player who leads
        anyway (`leader`)."""
        return [n for n in self._holders(s, "strong-leader") if n != leader]

    def _strong_blocked(self, s: GameState) -> bool:
        return plot(s).strong_at == len(s.vote_history)

    def _neighbours(self, s: GameState, seat: str) -> list[str]:
        ids = s.ids
        i = ids.index(seat)
        return [ids[i - 1], ids[(i + 1) % len(ids)]]

    def _from_leader(self, s: GameState) -> list[str]:
        ids = s.ids
        i = ids.index(s.leader or "")
        return ids[i:] + ids[:i]


PLUGIN = PlotCards
