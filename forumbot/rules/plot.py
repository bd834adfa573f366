"""Plot Cards (resistance-plot's rules; avalon plays the same deck). See variants.md.

A round: a Strong Leader window (only if someone holds one) -> the bot draws the round's
cards and shows them -> the leader hands each to a different player (`GIVE:`), Establish
Confidence staying with the leader -> the immediate cards are resolved in the order given
(`CHOOSE:`, `TAKE:`) -> only then the first proposal. After a team is approved, holders
of No Confidence and In the Spotlight get a window. After the result, holders of Keeping
a Close Eye on You name a team member by PM. Opinion Maker holders vote in the thread only.

Everything the plug-in keeps is in `state.extra["plot"]`, changed only by its events.
"""
from __future__ import annotations

import random

from . import events as ev
from .commands import Choose, GiveCard, PassCard, PlayCard, ProxyVote, Refusal, TakeCard
from .hooks import RulePlugin
from .lady import decided
from .plot_deck import BY_KEY, DRAW, deck_for, find_card
from .state import GameState, open_phase, register_copy, register_fold

WINDOW = "card_window"  # optional cards: play or PASS
HAND_OUT = "hand_out"  # the leader gives the drawn cards
CHOICE = "plot_choice"  # an immediate card's holder chooses


def plot(state: GameState) -> dict:
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


def own(state: GameState) -> dict:
    """The plug-in's data, this state's own, to change (in a fold), or to hold on to while
    events change it (in a step given the transaction: `tx.state`)."""
    return state.own_extra("plot")


@register_copy("plot")
def _copy(p: dict) -> dict:
    """A copy of the plug-in's data: every container a fold changes in place is copied."""
    q = p.copy()
    q["hands"] = {n: h[:] for n, h in p["hands"].items()}
    for key in ("discard", "opinion", "queue", "drawn", "spotlight", "given_to", "picked", "declared"):
        if key in q:
            q[key] = q[key][:]
    if q.get("round") is not None:
        q["round"] = q["round"].copy()
    if q.get("window") is not None:
        q["window"] = {**q["window"], "plays": q["window"]["plays"][:]}
    return q


@register_fold(ev.PLOT_SHUFFLED)
def _shuffled(state, e):
    if "plot" not in state.extra:
        state.put_extra("plot", {"hands": {}, "discard": [], "opinion": [], "queue": [], "drawn": [],
                                 "spotlight": [], "strong_at": -1, "shuffles": 0, "window": None})
    p = own(state)
    p["deck"] = list(e.data["deck"])
    p["discard"] = []
    p["shuffles"] += 1


@register_fold(ev.PLOT_ROUND)
def _round(state, e):
    p = own(state)
    p["round"] = {"mission": e.data["mission"], "leader": e.data["leader"]}
    p["given_to"], p["drawn"], p["queue"], p["spotlight"] = [], [], [], []


@register_fold(ev.PLOT_WINDOW)
def _window(state, e):
    p = own(state)
    p["window"] = {"kind": e.data["window"], "plays": []}
    if e.data["window"] == "after_result":
        p["picked"] = []
        p["declared"] = []
    open_phase(state, WINDOW, e, e.data["holders"])


@register_fold(ev.PLOT_PASSED)
def _passed(state, e):
    state.own("actors").remove(e.data["holder"])


@register_fold(ev.PLOT_PLAYED)
def _played(state, e):
    p = own(state)
    d = e.data
    p["hands"][d["holder"]].remove(d["card"])
    p["discard"].append(d["card"])
    if d["holder"] in state.actors:
        state.own("actors").remove(d["holder"])
    if p["window"] is not None:
        p["window"]["plays"].append([d["holder"], d["card"], d.get("target")])
    if d["card"] == "strong-leader":
        p["round"]["leader"] = d["holder"]
        p["strong_at"] = len(state.vote_history)
    if d["card"] == "chicago-proxy":
        state.own("proxied")[d["target"]] = d["holder"]
        state.own("votes").pop(d["target"], None)
        state.own("vote_via").pop(d["target"], None)


@register_fold(ev.PLOT_WINDOW_CLOSED)
def _window_closed(state, e):
    p = own(state)
    if p["window"]["kind"] == "approved":  # In the Spotlight targets, for this mission's result
        p["spotlight"] = [x[2] for x in p["window"]["plays"] if x[1] == "spotlight"]
    p["window"] = None
    state.put("actors", [])


@register_fold(ev.PLOT_DRAWN)
def _drawn(state, e):
    p = own(state)
    n = len(e.data["cards"])
    p["deck"] = p["deck"][n:]
    p["drawn"] = list(e.data["cards"])
    open_phase(state, HAND_OUT, e, [e.data["leader"]])


@register_fold(ev.PLOT_GIVEN)
def _given(state, e):
    p = own(state)
    d = e.data
    p["drawn"].remove(d["card"])
    if not d.get("own"):
        p["given_to"].append(d["to"])
    if kind_of(state, d["card"]) == "immediate":
        p["queue"].append([d["card"], d["to"]])
    else:
        p["hands"].setdefault(d["to"], []).append(d["card"])
        if d["card"] == "opinion-maker":
            p["opinion"].append(d["to"])


@register_fold(ev.PLOT_DISCARDED)
def _discarded(state, e):
    p = own(state)
    if e.data["card"] in p["drawn"]:
        p["drawn"].remove(e.data["card"])
    p["discard"].append(e.data["card"])


@register_fold(ev.PLOT_CHOICE_OPENED)
def _choice_opened(state, e):
    p = own(state)
    p["current"] = p["queue"].pop(0)
    open_phase(state, CHOICE, e, [e.data["holder"]])


@register_fold(ev.PLOT_CHOICE_SKIPPED)
def _choice_skipped(state, e):
    p = own(state)
    if p["queue"] and p["queue"][0] == [e.data["card"], e.data["holder"]]:
        p["queue"].pop(0)
    p["current"] = None
    p["discard"].append(e.data["card"])


@register_fold(ev.PLOT_REVEAL)
def _reveal(state, e):
    p = own(state)
    if e.data["card"] == "close-eye":
        p["hands"][e.data["viewer"]].remove("close-eye")
        p["picked"].append(e.data["subject"])
        state.own("actors").remove(e.data["viewer"])
    else:
        p["current"] = None
    p["discard"].append(e.data["card"])


@register_fold(ev.PLOT_DECLARED)
def _declared(state, e):
    own(state).setdefault("declared", []).append(e.data["holder"])


@register_fold(ev.PLOT_TAKEN)
def _taken(state, e):
    p = own(state)
    d = e.data
    if d.get("from_hand"):  # avalon-2020: a kept Take Responsibility, played when liked
        p["hands"][d["by"]].remove("take-responsibility")
        p["hands"][d["source"]].remove(d["card"])
        p["hands"][d["by"]].append(d["card"])
        p["discard"].append("take-responsibility")
        return
    p["hands"][d["source"]].remove(d["card"])
    p["hands"].setdefault(d["by"], []).append(d["card"])
    if d["card"] == "opinion-maker":
        p["opinion"].remove(d["source"])
        p["opinion"].append(d["by"])
    p["current"] = None
    p["discard"].append("take-responsibility")


@register_fold(ev.PLOT_SPOTLIGHT)
def _spotlight(state, e):
    pass


@register_fold(ev.TEAM_VETOED)
def _vetoed(state, e):
    state.rejections += 1
    own(state)["spotlight"] = []


@register_fold(ev.PLOT_ORDER_SEEN)
def _order_seen(state, e):
    pass


# --- the plug-in ------------------------------------------------------------------------


class PlotCards(RulePlugin):
    name = "plot_cards"
    handles = (GiveCard, PlayCard, TakeCard, Choose, PassCard, ProxyVote)

    def __init__(self, preset: str = "resistance-plot"):
        self.preset = preset
        self.y2020 = preset == "avalon-2020"  # the avalon-2020 differences (variants.md)

    # the deck, at the start and when it runs short
    def after_start(self, tx) -> None:
        self._shuffle(tx, deck_for(len(tx.state.seats), self.preset))

    def _shuffle(self, tx, cards: list[str]) -> None:
        s = tx.state
        shuffles = s.extra["plot"]["shuffles"] if "plot" in s.extra else 0
        cards = sorted(cards)
        random.Random(f"{s.seed}:plot:{shuffles}").shuffle(cards)
        tx.emit(ev.PLOT_SHUFFLED, deck=cards)

    # a round: Strong Leader, the draw, the hand-out, the immediate cards
    def before_round(self, tx, mission, leader) -> bool:
        tx.emit(ev.PLOT_ROUND, mission=mission, leader=leader)
        holders = self._holders(tx.state, "strong-leader")
        if holders and not self._strong_blocked(tx.state):
            tx.emit(ev.PLOT_WINDOW, window="round_start", holders=holders, card="strong-leader")
        else:
            self._draw(tx)
        return True

    def _draw(self, tx) -> None:
        s = tx.state
        p = own(s)
        n = DRAW[len(s.seats)]
        if len(p["deck"]) < n:
            self._shuffle(tx, p["deck"] + p["discard"])
        leader = p["round"]["leader"]
        cards = p["deck"][:n]
        tx.emit(ev.PLOT_DRAWN, cards=cards, leader=leader, mission=p["round"]["mission"])
        for card in cards:
            if card == "establish-confidence":  # the leader's own card
                tx.emit(ev.PLOT_GIVEN, card=card, to=leader, by=leader, own=True)
        self._after_give(tx)

    def _receivers(self, s: GameState) -> list[str]:
        p = plot(s)
        leader = p["round"]["leader"]
        return [n for n in s.names if n != leader and n not in p["given_to"] and not s.seat(n).disqualified]

    def _after_give(self, tx) -> None:
        """Resolve the immediate cards once every drawn card is given; a card no one may
        receive any more (everyone else has one, or is disqualified) is discarded."""
        s = tx.state
        if own(s)["drawn"] and not self._receivers(s):
            for card in list(own(s)["drawn"]):
                tx.emit(ev.PLOT_DISCARDED, card=card, reason="no one is left to receive it")
        if not own(s)["drawn"]:
            self._next_choice(tx)

    def _next_choice(self, tx) -> None:
        from .engine import open_proposal

        s = tx.state
        p = own(s)
        while p["queue"]:
            card, holder = p["queue"][0]
            others_hold = any(h for n, h in p["hands"].items() if n != holder and h)
            if s.seat(holder).disqualified:
                tx.emit(ev.PLOT_CHOICE_SKIPPED, card=card, holder=holder, reason="the holder is disqualified")
            elif card == "take-responsibility" and not others_hold:
                tx.emit(ev.PLOT_CHOICE_SKIPPED, card=card, holder=holder, reason="no one holds a card to take")
            else:
                tx.emit(ev.PLOT_CHOICE_OPENED, card=card, holder=holder,
                        neighbours=self._neighbours(s, holder) if card == "overheard" else [])
                return
        open_proposal(tx, p["round"]["mission"], p["round"]["leader"])

    # windows after an approved team, and after the result
    def before_mission_opens(self, tx) -> bool:
        holders = sorted(set(self._holders(tx.state, "no-confidence") + self._holders(tx.state, "spotlight")),
                         key=tx.state.names.index)
        if not holders:
            return False
        tx.emit(ev.PLOT_WINDOW, window="approved", holders=holders, card="no-confidence")
        return True

    def after_mission(self, tx, record) -> bool:
        s = tx.state
        for target in own(s).get("spotlight", []):
            tx.emit(ev.PLOT_SPOTLIGHT, target=target, order=record["orders"][target],
                    mission=record["number"])
        holders = self._holders(s, "close-eye")
        if not holders or decided(s):
            return False
        tx.emit(ev.PLOT_WINDOW, window="after_result", holders=holders, card="close-eye",
                team=record["team"])
        return True

    def votes_in_thread(self, state, name) -> bool:
        return name in plot(state)["opinion"]

    def before_vote(self, state, cmd):
        if cmd.author in state.proxied:
            return Refusal(f"Your vote on this team is cast by {state.proxied[cmd.author]} "
                           "(Chicago Proxy).", private=cmd.via == "pm")
        if cmd.via == "pm" and cmd.author in plot(state)["opinion"]:
            return Refusal("You hold Opinion Maker: your team votes count only as bold comments "
                           "in the thread.", "**APPROVE** or **REJECT** in the thread", private=True)
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
            if s.phase == WINDOW and own(s)["window"]["kind"] == "after_result":
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
        leader = p["round"]["leader"]
        if cmd.author != leader:
            return Refusal(f"Only the leader, {leader}, hands out this round's cards.")
        card = find_card(cmd.card)
        form = f"**GIVE: {card_name(p['drawn'][0])} -> name**" if p["drawn"] else ""
        if card is None or card.key not in p["drawn"]:
            left = ", ".join(card_name(c) for c in p["drawn"])
            return Refusal(f"'{cmd.card}' is not one of the cards still to give: {left}.", form)
        target = s.seat(cmd.target)
        if target is None:
            return Refusal(f"{cmd.target} is not a player in this game.", form)
        if target.name == leader:
            return Refusal("The leader gives the cards to other players, not to himself.", form)
        if target.name in p["given_to"]:
            return Refusal(f"{target.name} has a card from this round already: each goes to a different player.", form)
        if target.disqualified:
            return Refusal(f"{target.name} is disqualified.", form)
        tx.emit(ev.PLOT_GIVEN, card=card.key, to=target.name, by=leader)
        self._after_give(tx)
        return None

    def _choose(self, tx, cmd: Choose):
        s = tx.state
        p = own(s)
        if s.phase != CHOICE:
            return Refusal("No card is waiting for a choice now.")
        card, holder = p["current"]
        if cmd.author != holder:
            return Refusal(f"{card_name(card)} is {holder}'s to resolve.")
        if card == "take-responsibility":
            return Refusal("Take Responsibility takes a card: **TAKE: card FROM name**.")
        target = s.seat(cmd.target)
        form = "**CHOOSE: name**"
        if target is None:
            return Refusal(f"{cmd.target} is not a player in this game.", form)
        if target.name == holder:
            return Refusal("Choose another player, not yourself.", form)
        if card == "overheard" and target.name not in self._neighbours(s, holder):
            a, b = self._neighbours(s, holder)
            return Refusal(f"Overheard Conversation reaches only your neighbours: {a} or {b}.", form)
        if card == "overheard":  # the holder learns the target's allegiance
            viewer, subject = holder, target.name
        else:  # Open Up and Establish Confidence: the target learns the holder's
            viewer, subject = target.name, holder
        tx.emit(ev.PLOT_REVEAL, card=card, holder=holder, target=target.name, viewer=viewer,
                subject=subject, side=s.seat(subject).side)
        self._next_choice(tx)
        return None

    def _take(self, tx, cmd: TakeCard):
        s = tx.state
        p = own(s)
        form = "**TAKE: card FROM name**"
        if self.y2020 and "take-responsibility" in p["hands"].get(cmd.author, []):
            card = find_card(cmd.card)
            source = s.seat(cmd.source)
            if source is None or source.name == cmd.author:
                return Refusal("Take a card from another player.", form)
            if card is None or card.key not in p["hands"].get(source.name, []):
                held = ", ".join(card_name(c) for c in p["hands"].get(source.name, [])) or "nothing"
                return Refusal(f"{source.name} does not hold that card; they hold: {held}.", form)
            tx.emit(ev.PLOT_TAKEN, card=card.key, by=cmd.author, source=source.name, from_hand=True)
            return None
        if s.phase != CHOICE or p["current"][0] != "take-responsibility":
            return Refusal("Take Responsibility is not being resolved now.")
        holder = p["current"][1]
        if cmd.author != holder:
            return Refusal(f"Take Responsibility is {holder}'s to resolve.")
        card = find_card(cmd.card)
        source = s.seat(cmd.source)
        if source is None or source.name == holder:
            return Refusal("Take a card from another player.", form)
        if card is None or card.key not in p["hands"].get(source.name, []):
            held = ", ".join(card_name(c) for c in p["hands"].get(source.name, [])) or "nothing"
            return Refusal(f"{source.name} does not hold that card; they hold: {held}.", form)
        tx.emit(ev.PLOT_TAKEN, card=card.key, by=holder, source=source.name)
        self._next_choice(tx)
        return None

    def _play(self, tx, cmd: PlayCard):
        s = tx.state
        p = own(s)
        card = find_card(cmd.card)
        if card is None or card.key not in p["hands"].get(cmd.author, []):
            return Refusal(f"You do not hold '{cmd.card}'.")
        if card.key == "chicago-proxy":
            return self._chicago(tx, cmd)
        if card.key == "close-eye":
            if self.y2020 and s.phase == WINDOW and p["window"]["kind"] == "after_result" \
                    and cmd.author in s.actors and not cmd.target:
                if cmd.author in p.get("declared", []):
                    return Refusal("You have played it; now name a team member by PM: **CHOOSE: name**.",
                                   private=True)
                tx.emit(ev.PLOT_DECLARED, holder=cmd.author, card="close-eye")
                return None
            if s.phase == WINDOW and p["window"]["kind"] == "after_result" and cmd.target:
                return self._close_eye(tx, cmd.author, cmd.target, "thread")
            return Refusal("Keeping a Close Eye on You is answered by PM after a mission's result: "
                           "**CHOOSE: name**.", private=True)
        if card.kind == "permanent":
            return Refusal(f"{card.name} works by itself; there is nothing to play.")
        windows = {card.window} | ({"after_veto"} if card.key == "strong-leader" and self.y2020 else set())
        if s.phase != WINDOW or p["window"]["kind"] not in windows or cmd.author not in s.actors:
            when = {"round_start": "at the start of a round, before the cards are drawn",
                    "approved": "right after a team is approved"}[card.window]
            return Refusal(f"{card.name} is played {when}. You keep it.")
        if card.key == "strong-leader":
            if self._strong_blocked(s):
                return Refusal("A Strong Leader was played already and no vote has been taken since. "
                               "You keep your card.")
            after_veto = p["window"]["kind"] == "after_veto"
            tx.emit(ev.PLOT_PLAYED, card=card.key, holder=cmd.author)
            tx.emit(ev.PLOT_WINDOW_CLOSED)
            if after_veto:  # avalon-2020: the holder leads the next proposal of this quest
                from .engine import open_proposal
                open_proposal(tx, s.mission, cmd.author)
            else:
                self._draw(tx)
            return None
        target = None
        if card.key == "spotlight":
            target = s.seat(cmd.target) if cmd.target else None
            if target is None or target.name not in s.team:
                return Refusal("In the Spotlight names a member of the approved team.",
                               "**PLAY: In the Spotlight -> name**")
            target = target.name
        tx.emit(ev.PLOT_PLAYED, card=card.key, holder=cmd.author, target=target)
        if not tx.state.actors:
            self._close_window(tx)
        return None

    def _pass(self, tx, cmd: PassCard):
        s = tx.state
        if s.phase != WINDOW or cmd.author not in s.actors:
            return Refusal("You have no card waiting for an answer now.")
        tx.emit(ev.PLOT_PASSED, holder=cmd.author)
        if not tx.state.actors:
            self._close_window(tx)
        return None

    def _chicago(self, tx, cmd: PlayCard):
        s = tx.state
        form = "**PLAY: Chicago Proxy -> name APPROVE**"
        if s.phase != "team_vote":
            return Refusal("Chicago Proxy is played while a team vote is open. You keep it.", form)
        target = s.seat(cmd.target) if cmd.target else None
        if target is None or target.name == cmd.author:
            return Refusal("Name another player whose vote you will cast.", form)
        if target.disqualified or target.name in s.proxied or target.name in s.not_voting:
            return Refusal(f"{target.name}'s vote cannot be proxied now.", form)
        if cmd.author in s.proxied:
            return Refusal("Your own vote is being cast by someone else.", form)
        tx.emit(ev.PLOT_PLAYED, card="chicago-proxy", holder=cmd.author, target=target.name)
        if cmd.choice:
            tx.emit(ev.VOTE_CAST, player=target.name, vote=cmd.choice, via="proxy", by=cmd.author)
        return None

    def _proxy_vote(self, tx, cmd: ProxyVote):
        s = tx.state
        if s.phase != "team_vote" or s.proxied.get(cmd.target) != cmd.author:
            return Refusal(f"You are not casting {cmd.target}'s vote.", "**PROXY: name APPROVE**")
        tx.emit(ev.VOTE_CAST, player=cmd.target, vote=cmd.choice, via="proxy", by=cmd.author)
        return None

    def _close_eye(self, tx, holder: str, target_name: str, via: str):
        s = tx.state
        p = own(s)
        if holder not in s.actors:
            return Refusal("You have no Keeping a Close Eye on You to answer now.", private=True)
        if "close-eye" not in p["hands"].get(holder, []):  # taken by a kept Take Responsibility
            return Refusal("Your Keeping a Close Eye on You was taken from you: answer **PASS**.",
                           private=True)
        if self.y2020 and holder not in p.get("declared", []):
            return Refusal("First play the card in the thread: **PLAY: Keeping a Close Eye on You**.",
                           private=True)
        if via != "pm":
            return Refusal("Keeping a Close Eye on You is answered by PM: **CHOOSE: name**.", private=True)
        target = s.seat(target_name)
        team = s.missions[-1]["team"]
        if target is None or target.name not in team or target.name == holder:
            return Refusal(f"Name one member of the mission's team: {', '.join(n for n in team if n != holder)}.",
                           "**CHOOSE: name**", private=True)
        if target.name in p.get("picked", []):
            return Refusal(f"{target.name} has been picked by another holder; pick someone else.",
                           "**CHOOSE: name**", private=True)
        tx.emit(ev.PLOT_REVEAL, card="close-eye", holder=holder, target=target.name, viewer=holder,
                subject=target.name, order=s.missions[-1]["orders"][target.name],
                mission=s.missions[-1]["number"])
        if not tx.state.actors:
            self._close_window(tx)
        return None

    def _close_window(self, tx) -> None:
        from .engine import after_rejection, open_mission, resume_after_mission

        s = tx.state
        window = own(s)["window"]
        kind, plays = window["kind"], window["plays"]
        tx.emit(ev.PLOT_WINDOW_CLOSED)
        if kind == "round_start":
            self._draw(tx)
        elif kind == "after_veto":
            after_rejection(tx)
        elif kind == "after_result":
            resume_after_mission(tx, after=self)
        else:  # approved: plays resolve in seat order from the leader
            order = self._from_leader(s)
            plays = sorted(plays, key=lambda x: order.index(x[0]))
            veto = next((x for x in plays if x[1] == "no-confidence"), None)
            if veto is not None:
                tx.emit(ev.TEAM_VETOED, holder=veto[0], card="no-confidence", mission=s.mission,
                        proposal=s.attempt, rejections=s.rejections + 1)
                holders = self._holders(s, "strong-leader")
                if self.y2020 and holders and s.rejections < 5:
                    tx.emit(ev.PLOT_WINDOW, window="after_veto", holders=holders, card="strong-leader")
                    return
                after_rejection(tx)
                return
            open_mission(tx)

    def on_expire(self, tx) -> bool:
        s = tx.state
        if s.phase == WINDOW:
            self._close_window(tx)
        elif s.phase == HAND_OUT:
            for card in list(own(s)["drawn"]):
                tx.emit(ev.PLOT_DISCARDED, card=card, reason="not given in time")
            self._next_choice(tx)
        elif s.phase == CHOICE:
            card, holder = own(s)["current"]
            tx.emit(ev.PLOT_CHOICE_SKIPPED, card=card, holder=holder, reason="the deadline passed")
            self._next_choice(tx)
        else:
            return False
        return True

    # helpers
    def _holders(self, s: GameState, key: str) -> list[str]:
        hands = plot(s)["hands"]
        return [n for n in s.names if key in hands.get(n, []) and not s.seat(n).disqualified]

    def _strong_blocked(self, s: GameState) -> bool:
        return plot(s)["strong_at"] == len(s.vote_history)

    def _neighbours(self, s: GameState, name: str) -> list[str]:
        names = s.names
        i = names.index(name)
        return [names[i - 1], names[(i + 1) % len(names)]]

    def _from_leader(self, s: GameState) -> list[str]:
        i = s.names.index(s.leader)
        return s.names[i:] + s.names[:i]
