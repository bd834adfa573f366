"""The Mission Cards of so-say-we-all (variants.md): Mission Prep at the start of each
mission. The bot shows the top 2 cards; holders of Prepare for the Future and
Counterespionage get a window; then the Commander follows the drawn cards in order
(`GIVE:` to hand one over, `CHOOSE:` to name a target, by the `choice` deadline); only
then may the first leader propose. Targets are public; what a card reveals goes by PM.

Everything kept is in `state.extra["mc"]`, changed only by this module's events.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from .commands import Choose, GiveCard, PassCard, PlayCard, Refusal, said
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


def mc(state: GameState) -> dict:
    return state.extra["mc"]


def own(state: GameState) -> dict:
    """The plug-in's data, this state's own, to change (in a fold), or to hold on to while
    events change it (in a step given the transaction: `tx.state`)."""
    return state.own_extra("mc")


@register_copy("mc")
def _copy(m: dict) -> dict:
    """A copy of the plug-in's data: every container a fold changes in place is copied."""
    q = m.copy()
    q["hands"] = {n: h[:] for n, h in m["hands"].items()}
    q["acting"] = m["acting"].copy()
    q["done"] = m["done"][:]
    q["drawn"] = m["drawn"][:]
    return q


# --- folds --------------------------------------------------------------------------


@register_fold(EV_SHUFFLED)
def _shuffled(state, e):
    state.put_extra("mc", {"deck": list(e.data["deck"]), "hands": {}, "drawn": [], "acting": {},
                           "done": [], "tracker": None, "delayed": 0, "window": None})


@register_fold(EV_DRAWN)
def _drawn(state, e):
    m = own(state)
    m["deck"] = m["deck"][len(e.data["cards"]):]
    m["drawn"] = list(e.data["cards"])
    m["acting"], m["done"], m["tracker"], m["delayed"] = {}, [], None, 0
    m["mission"] = e.data["mission"]


@register_fold(EV_WINDOW)
def _window(state, e):
    own(state)["window"] = True
    open_phase(state, WINDOW, e, e.data["holders"])


@register_fold(EV_PLAYED)
def _played(state, e):
    m = own(state)
    d = e.data
    m["hands"][d["holder"]].remove(d["card"])
    if d["card"] == "prepare":
        m["acting"][str(d["index"])] = d["holder"]
    if d["holder"] in state.actors and d["card"] != "badge":
        state.own("actors").remove(d["holder"])


@register_fold(EV_PASSED)
def _passed(state, e):
    state.own("actors").remove(e.data["holder"])


@register_fold(EV_FOLLOW)
def _follow(state, e):
    m = own(state)
    m["window"] = None
    open_phase(state, FOLLOW, e, [e.data["commander"]])
    m["current"] = e.data["index"]


@register_fold(EV_DONE)
def _done(state, e):
    m = own(state)
    d = e.data
    m["done"].append(d["index"])
    m["window"] = None
    if d.get("to"):
        m["hands"].setdefault(d["to"], []).append(d["card"])
    if d["card"] == "tracker" and d.get("target"):
        m["tracker"] = {"commander": d["commander"], "target": d["target"]}
    if d["card"] == "delayed" and d.get("applied"):
        m["delayed"] += 1
        m["delayed_commander"] = d["commander"]


@register_fold(EV_REVEAL)
def _reveal(state, e):
    pass


@register_fold(EV_BADGE)
def _badge(state, e):
    d = e.data
    own(state)["hands"][d["holder"]].remove("badge")
    seats = state.own("seats")
    seat = state.seat(d["holder"])
    seats.remove(seat)
    i = [s.name for s in seats].index(d["after"])
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
        tx.emit(EV_SHUFFLED, deck=deck)

    def before_round(self, tx, mission, leader) -> bool:
        s = tx.state
        m = own(s)
        cards = m["deck"][:DRAW]
        if not cards:
            return False
        tx.emit(EV_DRAWN, cards=cards, mission=mission, leader=leader,
                commander=s.extra.get("commander"))
        kept = {n: sorted(KEPT & set(own(s)["hands"].get(n, []))) for n in s.names
                if not s.player(n).disqualified}
        holders = [n for n in s.names if kept.get(n)]
        if holders:  # each holder is offered only the cards they hold
            tx.emit(EV_WINDOW, holders=holders, mission=mission, cards={n: kept[n] for n in holders})
        else:
            self._follow_next(tx)
        return True

    def _commander_for(self, s: GameState, index: int) -> str:
        return mc(s)["acting"].get(str(index)) or s.extra["commander"]

    def _follow_next(self, tx) -> None:
        from .engine import open_proposal

        s = tx.state
        m = own(s)
        cancelled = "counterfeit" in m["drawn"]
        for index, card in enumerate(m["drawn"]):
            if index in m["done"]:
                continue
            commander = self._commander_for(s, index)
            kind = BY_KEY[card].action
            if cancelled and card != "counterfeit":
                tx.emit(EV_DONE, index=index, card=card, commander=commander,
                        result="discarded by Counterfeit Equipment")
            elif kind == "auto":
                tx.emit(EV_DONE, index=index, card=card, commander=commander, applied=True,
                        result="applied")
            elif kind == "keep":
                tx.emit(EV_DONE, index=index, card=card, commander=commander, to=commander,
                        result="kept")
            elif s.player(commander).disqualified:
                tx.emit(EV_DONE, index=index, card=card, commander=commander,
                        result="unused: the Commander is disqualified")
            else:
                tx.emit(EV_FOLLOW, index=index, card=card, commander=commander, action=kind)
                return
        open_proposal(tx, m["mission"], s.next_leader(s.extra["commander"]))

    # Delayed by Bureaucracy: the Commander sits out the first proposal(s) of the mission
    def _delayed(self, s: GameState) -> str | None:
        m = mc(s)
        if m.get("delayed") and m.get("mission") == s.mission and s.attempt <= m["delayed"]:
            return m.get("delayed_commander")
        return None

    def before_proposal(self, state, cmd):
        who = self._delayed(state)
        if who and who in cmd.team:
            return Refusal(f"Delayed by Bureaucracy: {who} may not be on this proposal.",
                           said("PROPOSE: name, name"))
        return None

    def barred_voters(self, state) -> set[str]:
        who = self._delayed(state)
        return {who} if who else set()

    def after_mission(self, tx, record) -> bool:
        t = own(tx.state).get("tracker")
        if t and t["target"] in record["team"]:
            tx.emit(EV_REVEAL, card="tracker", viewer=t["commander"], subject=t["target"],
                    order=record["orders"][t["target"]], mission=record["number"])
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
                tx.emit(EV_PASSED, holder=cmd.author)
                self._maybe_close(tx)
                return None
            if isinstance(cmd, PlayCard):
                return self._play_in_window(tx, cmd)
        if s.phase == FOLLOW:
            return self._follow(tx, cmd)
        return Refusal("No Mission Card is waiting for that now.")

    def _badge(self, tx, cmd: PlayCard):
        s = tx.state
        if "badge" not in own(s)["hands"].get(cmd.author, []):
            return Refusal("You do not hold a Badge of Merit.")
        if not s.running or s.leader is None:
            return Refusal("There is no leader to follow now.")
        if cmd.author == s.leader:
            return Refusal("You are the leader now; play the Badge when someone else leads.")
        tx.emit(EV_BADGE, holder=cmd.author, after=s.leader)
        return None

    def _play_in_window(self, tx, cmd: PlayCard):
        s = tx.state
        m = own(s)
        card = find_card(cmd.card)
        if cmd.author not in s.actors or card is None or card.key not in m["hands"].get(cmd.author, []):
            return Refusal(f"You do not hold '{cmd.card}' to play now.")
        if card.key == "prepare":
            target = find_card(cmd.target or "")
            drawn = [i for i, c in enumerate(m["drawn"]) if target and c == target.key
                     and str(i) not in m["acting"]]
            if not drawn:
                names = ", ".join(BY_KEY[c].name for c in m["drawn"])
                return Refusal(f"Name one of this mission's drawn cards: {names}.",
                               said("PLAY: Prepare for the Future -> card"))
            tx.emit(EV_PLAYED, card="prepare", holder=cmd.author, index=drawn[0])
        elif card.key == "counterespionage":
            target = s.seat(cmd.target) if cmd.target else None
            if target is None or target.name == cmd.author:
                return Refusal("Name another player.", said("PLAY: Counterespionage -> name"))
            tx.emit(EV_PLAYED, card="counterespionage", holder=cmd.author, target=target.name)
            tx.emit(EV_REVEAL, card="counterespionage", viewer=cmd.author, subject=target.name,
                    side=target.side)
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
        index = m["current"]
        card = m["drawn"][index]
        commander = self._commander_for(s, index)
        if cmd.author != commander:
            return Refusal(f"{BY_KEY[card].name} is {commander}'s to follow now.")
        action = BY_KEY[card].action
        if action == "give":
            if not isinstance(cmd, GiveCard) or (find_card(cmd.card) or BY_KEY["prepare"]).key != card:
                return Refusal(f"Hand {BY_KEY[card].name} to another player.",
                               said(f"GIVE: {BY_KEY[card].name} -> name"))
            target = s.seat(cmd.target)
            if target is None or target.name == commander:
                return Refusal("Give it to another player.", said(f"GIVE: {BY_KEY[card].name} -> name"))
            tx.emit(EV_DONE, index=index, card=card, commander=commander, to=target.name,
                    result=f"given to {target.name}")
        else:
            if not isinstance(cmd, Choose):
                return Refusal(f"{BY_KEY[card].name}: name a player.", said("CHOOSE: name"))
            target = s.seat(cmd.target)
            if target is None or target.name == commander:
                return Refusal("Choose another player.", said("CHOOSE: name"))
            tx.emit(EV_DONE, index=index, card=card, commander=commander, target=target.name,
                    result=f"{target.name} chosen")
            if card == "establish-confidence":
                tx.emit(EV_REVEAL, card=card, viewer=target.name, subject=commander,
                        side=s.player(commander).side)
            elif card == "interrogation":
                tx.emit(EV_REVEAL, card=card, viewer=commander, subject=target.name,
                        side=target.side)
        self._follow_next(tx)
        return None

    def on_expire(self, tx) -> bool:
        s = tx.state
        if s.phase == WINDOW:
            self._follow_next(tx)
        elif s.phase == FOLLOW:
            index = own(s)["current"]
            tx.emit(EV_DONE, index=index, card=own(s)["drawn"][index],
                    commander=self._commander_for(s, index), result="unused: the deadline passed")
            self._follow_next(tx)
        else:
            return False
        return True


PLUGIN = MissionCards
