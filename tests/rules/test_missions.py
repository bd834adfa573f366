"""A mission with teeth (issue 22): scripted games through the pure engine that assert what a
team member is told word for word when an order is refused (and that it goes by PM), and the
mission's result as the log keeps it: every order counted, the defaults of missing orders by
the game's rule, who was defaulted, the sabotages against the fails needed, whether the count
is shown, the public order, and what follows (disqualification, the next mission, the end)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from forumbot.rules import MissionOrder, Refusal, make_config
from forumbot.rules.commands import said
from forumbot.rules.plugin import RulePlugin
from tests.support.pure import NAMES
from tests.support.pure import PluginGame as Game

SPIES5 = ["alice", "bob"]  # the spies of the 5-player resistance game, seed 1


def approved(g: Game, team, public=None, via="thread"):
    g.propose(team, public=public)
    for n in g.state.ids:
        if g.state.phase == "team_vote":
            g.vote(n, "approve", via=via)
    assert g.state.phase == "mission"


def resolved(g: Game) -> dict:
    return g.last("mission_resolved")


def result(number=1, leader="alice", team=("alice", "bob"), sabotages=0, fails_needed=1, res="success",
           orders=None, defaulted=(), count_shown=True, **kw) -> dict:
    return dict(number=number, leader=leader, team=list(team), sabotages=sabotages, fails_needed=fails_needed,
                result=res, orders=orders, defaulted=list(defaulted), count_shown=count_shown, **kw)


def test_every_order_refusal_word_for_word_and_by_pm():
    g = Game(5)
    assert g.state.spies() == SPIES5
    approved(g, ["alice", "carol"])
    before = list(g.log)
    assert g.order("dave", "support") == Refusal("You are not on the team of mission 1.", private=True)
    assert g.order("carol", "support", via="thread") == Refusal(
        "Mission orders go by PM only. Your comment was not counted.",
        "PM the bot " + said("SUPPORT") + " or " + said("SABOTAGE"), private=True)
    assert g.order("carol", "sabotage") == Refusal(
        "Members of the Resistance can only SUPPORT a mission. Your SABOTAGE was not counted.",
        "PM the bot " + said("SUPPORT"), private=True)
    assert g.log == before
    assert g.new(MissionOrder(g.tick(), "carol", "support", "pm")) == [
        ("order_cast", {"player": "carol", "order": "support"})]
    assert g.state.phase == "mission"  # alice's order is missing
    assert g.vote("alice", "approve") == Refusal("No team vote is open now: mission 1 is under way.")
    events = g.new(MissionOrder(g.tick(), "alice", "sabotage", "pm"))
    assert events[:2] == [
        ("order_cast", {"player": "alice", "order": "sabotage"}),
        ("mission_resolved", result(team=["alice", "carol"], sabotages=1, res="fail",
                                    orders={"alice": "sabotage", "carol": "support"}))]
    assert g.state.phase == "proposal" and g.state.mission == 2 and g.state.leader == "bob"
    assert g.order("alice", "support") == Refusal(
        "No mission is open now: the leader, bob, is choosing a team for mission 2.", private=True)


def test_an_order_may_change_until_the_last_one_is_in():
    g = Game(5)
    approved(g, ["alice", "bob"])
    g.order("alice", "sabotage")
    g.order("alice", "support")
    assert g.state.phase == "mission"
    g.order("bob", "support")
    assert resolved(g) == result(orders={"alice": "support", "bob": "support"})
    assert g.state.mission == 2


@pytest.mark.parametrize("rule,spy_order", [("by-side", "sabotage"), ("sabotage", "sabotage"),
                                            ("support", "support")])
def test_missing_orders_take_the_games_default_and_the_resistance_always_supports(rule, spy_order):
    base = make_config("resistance", NAMES[:5]).missed
    g = Game(5, missed=replace(base, mission=rule))
    approved(g, ["alice", "carol"])
    g.expire()
    fails = spy_order == "sabotage"
    assert resolved(g) == result(team=["alice", "carol"], sabotages=int(fails), res="fail" if fails else "success",
                                 orders={"alice": spy_order, "carol": "support"}, defaulted=["alice", "carol"])
    assert not any(e.type == "player_disqualified" for e in g.log)


def test_missed_orders_count_toward_disqualification_when_the_game_says_so():
    base = make_config("resistance", NAMES[:5]).missed
    g = Game(5, missed=replace(base, mission="support", disqualify_after=1, orders_count=True))
    approved(g, ["alice", "carol"])
    g.order("alice", "sabotage")
    g.expire()
    assert resolved(g) == result(team=["alice", "carol"], sabotages=1, res="fail",
                                 orders={"alice": "sabotage", "carol": "support"}, defaulted=["carol"])
    assert [(t, d) for t, d in ((e.type, e.data) for e in g.log) if t == "player_disqualified"] == [
        ("player_disqualified", {"player": "carol", "missed": 1, "reason": "missed 1 votes in a row"})]
    # and without orders_count the same miss disqualifies no one
    g = Game(5, missed=replace(base, mission="support", disqualify_after=1, orders_count=False))
    approved(g, ["alice", "carol"])
    g.order("alice", "sabotage")
    g.expire()
    assert resolved(g)["defaulted"] == ["carol"]
    assert not any(e.type == "player_disqualified" for e in g.log)


def test_a_member_disqualified_by_the_vote_is_not_waited_for_and_takes_the_default():
    """carol missed the team vote (disqualify_after 1) but was on the approved team: her
    order is refused, the mission closes without it, and it counts as her default."""
    base = make_config("resistance", NAMES[:5]).missed
    g = Game(5, missed=replace(base, team_vote="approve", mission="sabotage", disqualify_after=1))
    g.propose(["alice", "carol"])
    for n in ["alice", "bob", "dave", "erin"]:
        g.vote(n, "approve")
    g.expire()
    assert g.state.phase == "mission" and g.state.seat("carol").disqualified
    assert g.order("carol", "support") == Refusal("You are disqualified: your order takes the default.",
                                                  private=True)
    g.order("alice", "support")
    assert resolved(g) == result(team=["alice", "carol"], orders={"alice": "support", "carol": "support"},
                                 defaulted=["carol"])


def test_a_disqualified_spys_order_already_in_is_not_counted():
    """bob (a spy) sabotages, then the host disqualifies him: his order is void and he
    takes the default (support here), so the mission succeeds."""
    from forumbot.rules.commands import HostDisqualify

    base = make_config("resistance", NAMES[:5]).missed
    g = Game(5, missed=replace(base, mission="support"))
    approved(g, ["alice", "bob"])
    g.order("bob", "sabotage")
    g.new(HostDisqualify(g.tick(), "host", "bob"))
    assert g.state.seat("bob").disqualified and g.state.phase == "mission"
    g.order("alice", "support")
    assert resolved(g) == result(orders={"alice": "support", "bob": "support"}, defaulted=["bob"])


@pytest.mark.parametrize("sabotages,res", [(1, "success"), (2, "fail")])
def test_the_fourth_mission_of_seven_needs_two_sabotages(sabotages, res):
    g = Game(7)
    spies = g.state.spies()
    assert spies == ["alice", "bob", "erin"]
    for _ in range(3):  # success, fail, success
        team = g.state.ids[:g.state.team_size()]
        approved(g, team)
        for n in team:
            g.order(n, "sabotage" if g.state.mission == 2 and n == "alice" else "support")
    assert [m.result for m in g.state.missions] == ["success", "fail", "success"]
    assert g.state.mission == 4
    leader = g.state.leader
    team = ["alice", "bob", "carol", "dave"]
    approved(g, team)
    for n in team:
        g.order(n, "sabotage" if n in spies[:sabotages] else "support")
    assert resolved(g) == result(number=4, leader=leader, team=team, sabotages=sabotages, fails_needed=2, res=res,
                                 orders={n: "sabotage" if n in spies[:sabotages] else "support" for n in team})
    winner = "resistance" if res == "success" else None
    assert (g.state.winner if not g.state.running else None) == winner


def test_three_failures_end_the_game_for_the_spies():
    g = Game(5)
    for m in range(1, 4):
        team = ["alice"] + [x for x in g.state.ids if x != "alice"][:g.state.team_size() - 1]
        approved(g, team)
        for n in team:
            g.order(n, "sabotage" if n == "alice" else "support")
        assert resolved(g)["number"] == m and resolved(g)["result"] == "fail"
    assert (g.state.winner, g.state.win_reason) == ("spies", "missions")


def test_so_say_we_all_public_order_hidden_count_and_the_humans():
    g = Game(5, preset="so-say-we-all", seed=3)
    ids = g.state.ids
    assert g.state.spies() == ["bob", "erin"]
    approved(g, ["alice", "carol"], via="pm")
    assert g.order("carol", "sabotage") == Refusal(
        "Members of the Humans can only SUPPORT a mission. Your SABOTAGE was not counted.",
        "PM the bot " + said("SUPPORT"), private=True)
    for n in ["alice", "carol"]:
        g.order(n, "support")
    assert resolved(g)["count_shown"] is True and "public" not in resolved(g)
    # mission 2: bob plays his order in the thread
    leader = g.state.leader
    approved(g, ["bob", "carol", "dave"], public="bob")
    assert g.state.public == "bob"
    assert g.order("bob", "sabotage") == Refusal(
        "Your order on this mission is public: post it in the thread.",
        said("SUPPORT") + " or " + said("SABOTAGE") + " in a bold comment", private=True)
    assert g.order("carol", "support", via="thread") == Refusal(
        "Mission orders go by PM only. Your comment was not counted.",
        "PM the bot " + said("SUPPORT") + " or " + said("SABOTAGE"), private=True)
    g.order("carol", "support")
    g.order("dave", "support")
    g.order("bob", "sabotage", via="thread")
    assert resolved(g) == result(number=2, leader=leader, team=["bob", "carol", "dave"], sabotages=1, res="fail",
                                 orders={"bob": "sabotage", "carol": "support", "dave": "support"}, public="bob")
    # mission 3: only success or failure is shown
    leader = g.state.leader
    approved(g, ["alice", "carol"], via="pm")
    for n in ["alice", "carol"]:
        g.order(n, "support")
    assert resolved(g) == result(number=3, leader=leader, team=["alice", "carol"],
                                 orders={"alice": "support", "carol": "support"}, count_shown=False)
    assert ids == g.state.ids


class Holder(RulePlugin):
    """A rule module that refuses an order on cue and holds the count once."""

    name = "holder"

    def __init__(self):
        self.seen: list[tuple] = []
        self.refuse = None
        self.hold = True

    def before_mission(self, state, command):
        self.seen.append(("before_mission", state.phase, command.author, command.choice))
        return self.refuse

    def before_resolve(self, tx):
        self.seen.append(("before_resolve", tx.state.phase, dict(tx.state.orders)))
        return self.hold


def test_a_module_may_refuse_an_order_or_hold_the_count():
    from forumbot.rules.missions import resolve_mission

    h = Holder()
    g = Game(5, plugins=[h])
    approved(g, ["alice", "carol"])
    h.refuse = Refusal("not yet", private=True)
    assert g.order("alice", "sabotage") == Refusal("not yet", private=True)
    h.refuse = None
    g.order("alice", "sabotage")
    assert h.seen == [("before_mission", "mission", "alice", "sabotage")] * 2
    g.order("carol", "support")
    assert h.seen[-2:] == [("before_mission", "mission", "carol", "support"),
                           ("before_resolve", "mission", {"alice": "sabotage", "carol": "support"})]
    assert g.state.phase == "mission" and not any(e.type == "mission_resolved" for e in g.log)

    class Release(Holder):
        def before_resolve(self, tx):
            resolve_mission(tx)
            return True

    g = Game(5, plugins=[Release()])
    approved(g, ["alice", "carol"])
    g.order("alice", "sabotage")
    g.order("carol", "support")
    assert resolved(g) == result(team=["alice", "carol"], sabotages=1, res="fail",
                                 orders={"alice": "sabotage", "carol": "support"})
