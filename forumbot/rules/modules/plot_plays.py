"""The Plot Cards a holder plays (PLAY:, PROXY:), and Keeping a Close Eye on You's answer:
the part of the plug-in (plot.PlotCards) that answers them."""
from __future__ import annotations

from ..commands import PlayCard, ProxyVote, Refusal, said
from ..events import VoteCast
from ..steps import open_proposal
from .excalibur import as_sent
from .plot_deck import find_card
from .plot_events import PlotDeclared, PlotPlayed, PlotReveal, PlotWindowClosed
from .plot_folds import WINDOW, own


class CardPlays:
    """PlotCards' answers to a played card (a mixin: the helpers it calls are PlotCards')."""

    y2020: bool

    def _strong_blocked(self, s) -> bool:
        raise NotImplementedError

    def _draw(self, tx) -> None:
        raise NotImplementedError

    def _close_window(self, tx) -> None:
        raise NotImplementedError

    def _play(self, tx, cmd: PlayCard):
        s = tx.state
        p = own(s)
        card = find_card(cmd.card)
        if card is None or card.key not in p.hands.get(cmd.author, []):
            return Refusal(f"You do not hold '{cmd.card}'.")
        if card.key == "chicago-proxy":
            return self._chicago(tx, cmd)
        kind = p.window.kind if s.phase == WINDOW and p.window is not None else None
        if card.key == "close-eye":
            if self.y2020 and kind == "after_result" and cmd.author in s.actors and not cmd.target:
                if cmd.author in p.declared:
                    return Refusal(("You have played it; now name a team member by PM: " + said("CHOOSE: name") + "."),
                                   private=True)
                tx.emit(PlotDeclared, holder=cmd.author, card="close-eye")
                return None
            if kind == "after_result" and cmd.target:
                return self._close_eye(tx, cmd.author, cmd.target, "thread")
            return Refusal("Keeping a Close Eye on You is answered by PM after a mission's result: "
                           + said("CHOOSE: name") + ".", private=True)
        if card.kind == "permanent":
            return Refusal(f"{card.name} works by itself; there is nothing to play.")
        if card.key == "take-responsibility":  # avalon-2020 keeps it, to play with TAKE
            return Refusal("Take Responsibility is played with " + said("TAKE: card FROM name") + ".")
        windows = {card.window} | ({"after_veto"} if card.key == "strong-leader" and self.y2020 else set())
        if kind is None or kind not in windows or cmd.author not in s.actors:
            when = {"round_start": "at the start of a round, before the cards are drawn",
                    "approved": "right after a team is approved"}[card.window or ""]
            return Refusal(f"{card.name} is played {when}. You keep it.")
        if card.key == "strong-leader":
            if self._strong_blocked(s):
                return Refusal("A Strong Leader was played already and no vote has been taken since. "
                               "You keep your card.")
            after_veto = kind == "after_veto"
            tx.emit(PlotPlayed, card=card.key, holder=cmd.author)
            tx.emit(PlotWindowClosed)
            if after_veto:  # avalon-2020: the holder leads the next proposal of this quest
                open_proposal(tx, s.mission, cmd.author)
            else:
                self._draw(tx)
            return None
        target = None
        if card.key == "spotlight":
            seat = s.seat(cmd.target) if cmd.target else None
            if seat is None or seat.id not in s.team:
                return Refusal("In the Spotlight names a member of the approved team.",
                               said("PLAY: In the Spotlight -> name"))
            target = seat.id
        tx.emit(PlotPlayed, card=card.key, holder=cmd.author, target=target)
        if not tx.state.actors:
            self._close_window(tx)
        return None

    def _chicago(self, tx, cmd: PlayCard):
        s = tx.state
        form = said("PLAY: Chicago Proxy -> name APPROVE")
        if s.phase != "team_vote":
            return Refusal("Chicago Proxy is played while a team vote is open. You keep it.", form)
        target = s.seat(cmd.target) if cmd.target else None
        if target is None or target.id == cmd.author:
            return Refusal("Name another player whose vote you will cast.", form)
        if target.disqualified or target.id in s.proxied or target.id in s.not_voting:
            return Refusal(f"{s.shown(target.id)}'s vote cannot be proxied now.", form)
        if cmd.author in s.proxied:
            return Refusal("Your own vote is being cast by someone else.", form)
        tx.emit(PlotPlayed, card="chicago-proxy", holder=cmd.author, target=target.id)
        if cmd.choice:
            tx.emit(VoteCast, player=target.id, vote=cmd.choice, via="proxy", by=cmd.author)
        return None

    def _proxy_vote(self, tx, cmd: ProxyVote):
        s = tx.state
        if s.phase != "team_vote" or s.proxied.get(cmd.target) != cmd.author:
            return Refusal(f"You are not casting {s.shown(cmd.target)}'s vote.", said("PROXY: name APPROVE"))
        tx.emit(VoteCast, player=cmd.target, vote=cmd.choice, via="proxy", by=cmd.author)
        return None

    def _close_eye(self, tx, holder: str, target_id: str, via: str):
        s = tx.state
        p = own(s)
        if holder not in s.actors:
            return Refusal("You have no Keeping a Close Eye on You to answer now.", private=True)
        if "close-eye" not in p.hands.get(holder, []):  # taken by a kept Take Responsibility
            return Refusal(("Your Keeping a Close Eye on You was taken from you: answer " + said("PASS") + "."),
                           private=True)
        if self.y2020 and holder not in p.declared:
            return Refusal(("First play the card in the thread: " + said("PLAY: Keeping a Close Eye on You") + "."),
                           private=True)
        if via != "pm":
            return Refusal("Keeping a Close Eye on You is answered by PM: " + said("CHOOSE: name") + ".",
                           private=True)
        target = s.seat(target_id)
        last = s.missions[-1]
        team = last.team
        if target is None or target.id not in team or target.id == holder:
            return Refusal(f"Name one member of the mission's team: "
                           f"{', '.join(s.shown(n) for n in team if n != holder)}.",
                           said("CHOOSE: name"), private=True)
        if target.id in p.picked:
            return Refusal(f"{s.shown(target.id)} has been picked by another holder; pick someone else.",
                           said("CHOOSE: name"), private=True)
        order, changed = as_sent(s, last.number, target.id, last.orders[target.id])  # as sent; switched?
        tx.emit(PlotReveal, card="close-eye", holder=holder, target=target.id, viewer=holder,
                subject=target.id, order=order, mission=last.number, switched=changed)
        if not tx.state.actors:
            self._close_window(tx)
        return None
