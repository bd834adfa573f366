"""The order the rule modules' plug-ins run in is declared (hooks.MODULES), and it decides
two rulings of variants.md:

- with the Lady of the Lake and the Plot Cards both in play, the In the Spotlight order is
  in the result post and Keeping a Close Eye on You opens right after the result: both come
  before the Lady's choice, not after it;
- the Strong Leader window is for the players who do not lead already.
"""
from datetime import timedelta

import pytest

from forumbot.rules import Refusal
from forumbot.rules import events as ev
from forumbot.rules.commands import Choose, PassCard, PlayCard
from forumbot.rules.deadlines import expired
from forumbot.rules.hooks import MODULES, for_hook, plugins_for
from forumbot.rules.modules.lady import LadyTarget
from forumbot.rules.modules.plot import PlotCards
from forumbot.rules.modules.plot_deck import deck_for
from tests.support.plot import P, give, orders, propose, rig, vote_pm
from tests.support.pure import Game


def names_of(plugins):
    return [p.name for p in plugins]


def test_the_order_is_declared_by_the_table():
    g = Game(8, preset="avalon", plot_cards=True, lady_of_the_lake=True)
    plugins = plugins_for(g.config)
    assert names_of(plugins) == ["lady_of_the_lake", "plot_cards", "assassination"]
    assert names_of(for_hook(plugins, "after_mission")) == ["plot_cards", "lady_of_the_lake", "assassination"]
    orders_ = [r.order for r in MODULES]
    assert len({r.module for r in MODULES}) == len(MODULES)
    assert all(isinstance(o, int) for o in orders_)
    # so-say-we-all: the Mission Cards before the Commander (a Tracker reports to its own)
    so = Game(7, preset="so-say-we-all", mission_cards=True)
    assert names_of(plugins_for(so.config)) == ["mission_cards", "commander", "preloading"]


def test_spotlight_and_close_eye_come_before_the_lady(monkeypatch):
    rig(monkeypatch, ["spotlight", "close-eye", "opinion-maker", "opinion-maker"])
    g = Game(8, preset="avalon", plot_cards=True, lady_of_the_lake=True)
    names = g.state.names
    a, b = names[3], names[5]
    give(g, "spotlight", a)
    give(g, "close eye", b)
    # mission 1: both keep their cards
    propose(g)
    vote_pm(g)
    assert g.state.actors == [a]
    g.do(PassCard(g.tick(), a))
    orders(g)
    assert g.state.phase == "card_window" and g.state.actors == [b]
    g.do(PassCard(g.tick(), b))
    leader = P(g).round.leader
    for card, to in zip(list(P(g).drawn), [n for n in names if n not in (leader, a, b)]):
        give(g, card, to)
    # mission 2: the Spotlight is played; the Lady comes after mission 2
    team = propose(g)
    vote_pm(g)
    assert g.do(PlayCard(g.tick(), a, "In the Spotlight", team[0])) is not None
    assert g.state.phase == "mission"
    before = len(g.log)
    orders(g)
    batch = [e.type for e in g.log[before:]]
    i = batch.index(ev.MISSION_RESOLVED)
    assert batch[i + 1] == ev.PLOT_SPOTLIGHT  # in the result post
    assert ev.LADY_OPENED not in batch
    assert g.state.phase == "card_window" and g.state.actors == [b]  # Close Eye, first
    assert isinstance(g.do(LadyTarget(g.tick(), names[-1], names[0])), Refusal)
    g.do(Choose(g.tick(), b, next(n for n in team if n != b), via="pm"))
    assert g.state.phase == "lady" and g.state.actors == [names[-1]]
    assert [e.type for e in g.log].count(ev.PLOT_SPOTLIGHT) == 1


def test_the_strong_leader_window_is_not_offered_to_the_leader(monkeypatch):
    rig(monkeypatch, ["strong-leader", "opinion-maker"])
    g = Game(8, preset="resistance-plot", plot_cards=True)
    names = g.state.names
    nxt = names[1]  # leads the next round
    give(g, "strong", nxt)
    give(g, "opinion", names[4])
    propose(g)
    vote_pm(g)
    orders(g)
    assert P(g).round.leader == nxt
    assert g.state.phase == "hand_out" and g.state.actors == [nxt]  # no window: nxt leads
    assert P(g).hands[nxt] == ["strong-leader"]  # and keeps the card


def test_a_window_with_the_leader_among_the_holders_is_the_others(monkeypatch):
    rig(monkeypatch, ["strong-leader", "strong-leader"])
    g = Game(8, preset="resistance-plot", plot_cards=True)
    names = g.state.names
    give(g, "strong", names[1])
    give(g, "strong", names[6])
    propose(g)
    vote_pm(g)
    orders(g)
    assert g.state.phase == "card_window" and g.state.actors == [names[6]]
    r = g.do(PlayCard(g.tick(), names[1], "Strong Leader"))
    assert isinstance(r, Refusal)
    g.do(PlayCard(g.tick(), names[6], "Strong Leader"))
    assert P(g).round.leader == names[6]


@pytest.fixture
def rig2020(monkeypatch):
    def make(top):
        def after_start(self, tx):
            rest = list(deck_for(8, "avalon-2020"))
            for c in top:
                rest.remove(c)
            tx.emit(ev.PLOT_SHUFFLED, deck=list(top) + rest)
        monkeypatch.setattr(PlotCards, "after_start", after_start)
        return Game(8, preset="avalon-2020", plot_cards=True)
    return make


def test_after_a_veto_the_window_is_not_for_the_next_leader(rig2020):
    g = rig2020(["no-confidence", "strong-leader"])
    names = g.state.names
    holder = names[4]
    give(g, "no conf", holder)
    give(g, "strong", names[1])  # names[1] leads the next proposal after a veto anyway
    propose(g)
    vote_pm(g)
    g.do(expired(g.state, g.at + timedelta(hours=13)))
    g.do(PlayCard(g.tick(), holder, "No Confidence"))
    assert g.state.phase == "proposal" and g.state.leader == names[1]
    assert P(g).hands[names[1]] == ["strong-leader"]
