"""so-say-we-all's Mission Cards: every card and its edge cases, on rigged decks."""
from datetime import timedelta

import pytest

from forumbot.render import render_events
from forumbot.rules import MissionOrder, Propose, Refusal, TeamVote, replay
from forumbot.rules.commands import Choose, GiveCard, PassCard, PlayCard
from forumbot.rules.deadlines import expired
from forumbot.rules.modules.mission_card_folds import EV_SHUFFLED, find_card
from forumbot.rules.modules.mission_cards import MissionCards
from tests.support.pure import Game

ALL = ["establish-confidence", "interrogation", "counterespionage", "badge", "badge", "tracker",
       "delayed", "delayed", "counterfeit", "prepare"]


@pytest.fixture
def rigged(monkeypatch):
    def make(top, n=6, **kw):
        def after_start(self, tx):
            rest = list(ALL)
            for c in top:
                rest.remove(c)
            tx.emit(EV_SHUFFLED, deck=list(top) + rest)
        monkeypatch.setattr(MissionCards, "after_start", after_start)
        return Game(n, preset="so-say-we-all", mission_cards=True, **kw)
    return make


def M(g):
    return g.state.extra["mc"]


def commander(g):
    return g.state.extra["commander"]


def vote_pm(g, choice="approve"):
    for s in g.state.active():
        if g.state.phase == "team_vote" and s.name not in g.state.not_voting:
            g.do(TeamVote(g.tick(), s.name, choice, "pm"))


def mission(g, team=None, sabotage=()):
    team = team or [s.name for s in g.state.active() if s.name not in g.state.not_voting][: g.state.team_size()]
    public = team[0] if g.state.mission == 2 else None
    r = g.do(Propose(g.tick(), g.state.leader, tuple(team), public))
    assert not isinstance(r, Refusal), r
    vote_pm(g)
    for n in list(g.state.team):
        if g.state.phase == "mission":
            g.do(MissionOrder(g.tick(), n, "sabotage" if n in sabotage else "support",
                              "thread" if n == g.state.public else "pm"))


def pass_window(g):
    while g.state.phase == "prep_window":
        g.do(PassCard(g.tick(), g.state.actors[0]))


def follow_all(g):
    while g.state.phase == "prep_card":
        g.do(expired(g.state, g.at + timedelta(days=2)))


def test_card_names():
    assert find_card("vigorous").key == "interrogation"
    assert find_card("Badge of Merit").key == "badge"
    assert find_card("prepare").key == "prepare"


def test_establish_confidence_and_interrogation(rigged):
    g = rigged(["establish-confidence", "interrogation"])
    c = commander(g)
    assert g.state.phase == "prep_card" and g.state.actors == [c]
    assert isinstance(g.do(Propose(g.tick(), g.state.names[1], tuple(g.state.names[:2]))), Refusal)
    assert isinstance(g.do(Choose(g.tick(), g.state.names[3], g.state.names[4])), Refusal)  # not the Commander
    assert isinstance(g.do(Choose(g.tick(), c, c)), Refusal)
    a, b = g.state.names[3], g.state.names[4]
    g.do(Choose(g.tick(), c, a))
    g.do(Choose(g.tick(), c, b))
    reveals = [(e.data["card"], e.data["viewer"], e.data["subject"]) for e in g.log if e.type == "mc_reveal"]
    assert reveals == [("establish-confidence", a, c), ("interrogation", c, b)]
    assert g.state.phase == "proposal" and g.state.leader == g.state.next_leader(c)
    msgs = render_events(g.state, [e for e in g.log if e.type == "mc_reveal"], "G1")
    assert sorted(m.to for m in msgs if m.to) == sorted([a, c])
    assert all("one of" not in m.body for m in msgs if m.to is None)


def test_counterespionage_given_kept_and_used_in_a_later_prep(rigged):
    g = rigged(["counterespionage", "tracker", "badge", "establish-confidence"])
    c = commander(g)
    holder = g.state.names[3]
    r = g.do(Choose(g.tick(), c, holder))
    assert isinstance(r, Refusal) and "GIVE" in r.hint
    g.do(GiveCard(g.tick(), c, "Counterespionage", holder))
    assert M(g).hands[holder] == ["counterespionage"]
    g.do(Choose(g.tick(), c, g.state.names[4]))  # the Secret Tracker
    mission(g)
    assert g.state.phase == "prep_window" and g.state.actors == [holder]
    target = g.state.names[5]
    g.do(PlayCard(g.tick(), holder, "Counterespionage", target))
    rev = [e.data for e in g.log if e.type == "mc_reveal"][-1]
    assert (rev["viewer"], rev["subject"], rev["side"]) == (holder, target, g.state.seat(target).side)
    assert g.state.phase == "prep_card"


def test_badge_of_merit_moves_the_holder_next_at_any_time(rigged):
    g = rigged(["badge", "badge"])
    c = commander(g)
    holder = g.state.names[4]
    g.do(GiveCard(g.tick(), c, "badge", holder))
    g.do(GiveCard(g.tick(), c, "badge", g.state.names[5]))
    leader = g.state.leader
    g.do(Propose(g.tick(), leader, tuple(g.state.names[:2])))
    g.do(PlayCard(g.tick(), holder, "Badge of Merit"))  # mid-round, during the vote
    assert g.state.names[g.state.names.index(leader) + 1] == holder
    assert len(g.state.seats) == 6 and "badge" not in M(g).hands[holder]
    vote_pm(g, "reject")
    assert g.state.leader == holder
    assert isinstance(g.do(PlayCard(g.tick(), holder, "Badge of Merit")), Refusal)  # used up


def test_secret_tracker_reports_the_order_to_the_commander(rigged):
    g = rigged(["tracker", "interrogation"])
    c = commander(g)
    target = next(n for n in g.state.names if n != c)
    g.do(Choose(g.tick(), c, target))
    g.do(Choose(g.tick(), c, g.state.names[5] if g.state.names[5] != c else g.state.names[4]))
    team = [target] + [n for n in g.state.names if n not in (target,)][: g.state.team_size() - 1]
    mission(g, team=team)
    rev = [e.data for e in g.log if e.type == "mc_reveal" and e.data["card"] == "tracker"]
    assert rev == [{"card": "tracker", "viewer": c, "subject": target, "order": "support", "mission": 1}]


def test_both_delayed_by_bureaucracy_bar_the_commander_from_two_proposals(rigged):
    g = rigged(["delayed", "delayed"])
    c = commander(g)
    assert g.state.phase == "proposal"
    team_with_c = tuple([c] + [n for n in g.state.names if n != c][:1])
    r = g.do(Propose(g.tick(), g.state.leader, team_with_c))
    assert isinstance(r, Refusal) and "Delayed by Bureaucracy" in r.reason
    for _attempt in (1, 2):
        g.do(Propose(g.tick(), g.state.leader, tuple(n for n in g.state.names if n != c)[:2]))
        assert g.state.not_voting == [c]
        r = g.do(TeamVote(g.tick(), c, "approve", "pm"))
        assert isinstance(r, Refusal)
        vote_pm(g, "reject")  # closes early without waiting for c
        v = [e.data for e in g.log if e.type == "vote_closed"][-1]
        assert v["not_voting"] == [c] and v["votes"][c] == "abstain" and c not in v["defaulted"]
    # the third proposal: c may be on it and vote again
    r = g.do(Propose(g.tick(), g.state.leader, team_with_c))
    assert not isinstance(r, Refusal) and g.state.not_voting == []


def test_counterfeit_equipment_discards_the_other_card(rigged):
    g = rigged(["counterfeit", "interrogation"])
    assert g.state.phase == "proposal"  # nothing to follow
    done = [e.data for e in g.log if e.type == "mc_done"]
    assert [d["card"] for d in done] == ["counterfeit", "interrogation"]
    assert done[1]["result"] == "discarded by Counterfeit Equipment"
    assert not [e for e in g.log if e.type == "mc_reveal"]


def test_prepare_for_the_future_makes_its_holder_commander_for_a_drawn_card(rigged):
    g = rigged(["prepare", "badge", "interrogation", "establish-confidence"])
    c = commander(g)
    assert M(g).hands[c] == ["prepare"]  # the Commander keeps it
    g.do(GiveCard(g.tick(), c, "badge", g.state.names[5] if c != g.state.names[5] else g.state.names[4]))
    mission(g)
    holder = c
    assert g.state.phase == "prep_window" and g.state.actors == [holder]
    r = g.do(PlayCard(g.tick(), holder, "Prepare for the Future", "Strong Leader"))
    assert isinstance(r, Refusal) and "drawn cards" in r.reason
    g.do(PlayCard(g.tick(), holder, "Prepare for the Future", "Interrogation"))
    new_c = commander(g)
    assert g.state.phase == "prep_card"
    assert g.state.actors == [holder]  # the holder follows the Interrogation
    target = next(n for n in g.state.names if n not in (holder, new_c))
    g.do(Choose(g.tick(), holder, target))
    assert g.state.actors == [new_c]  # the real Commander follows the other card
    g.do(Choose(g.tick(), new_c, holder if holder != new_c else target))
    rev = [e.data for e in g.log if e.type == "mc_reveal"]
    assert rev[0]["card"] == "interrogation" and rev[0]["viewer"] == holder


def test_a_missed_choice_goes_unused(rigged):
    g = rigged(["interrogation", "establish-confidence"])
    g.do(expired(g.state, g.at + timedelta(days=2)))
    g.do(expired(g.state, g.at + timedelta(days=4)))
    assert g.state.phase == "proposal"
    assert [e.data["result"] for e in g.log if e.type == "mc_done"] == ["unused: the deadline passed"] * 2


def test_replay_of_a_mission_card_game(rigged):
    g = rigged(["badge", "tracker", "prepare", "interrogation"])
    c = commander(g)
    g.do(GiveCard(g.tick(), c, "badge", g.state.names[4]))
    g.do(Choose(g.tick(), c, g.state.names[3]))
    g.do(PlayCard(g.tick(), g.state.names[4], "Badge of Merit"))
    mission(g)
    pass_window(g)
    follow_all(g)
    mission(g)
    assert len(g.state.missions) == 2
    assert replay(g.config, g.seed, g.log) == g.state
