"""so-say-we-all: the per-mission modifiers, the Commander, the Critical Vote, preloading."""
from datetime import timedelta

import pytest

from forumbot.gameconfig import parse_config
from forumbot.render import render_events
from forumbot.rules import MissionOrder, Propose, Refusal, TeamVote
from forumbot.rules.deadlines import expired
from forumbot.rules.presets import PRESETS, spy_count
from tests.support.pure import Game


def sswa(n=5, **kw):
    return Game(n, preset="so-say-we-all", mission_cards=False, **kw)


def vote_pm(g, choice="approve", skip=()):
    for s in g.state.active():
        if g.state.phase == "team_vote" and s.name not in skip:
            g.vote(s.name, choice, via="pm")


def mission(g, sabotage=(), team=None, public=None):
    team = team or [s.name for s in g.state.active()][: g.state.team_size()]
    if g.state.mission in g.config.rules.public_order_missions and public is None:
        public = team[0]
    r = g.do(Propose(g.tick(), g.state.leader, tuple(team), public))
    assert not isinstance(r, Refusal), r
    vote_pm(g)
    for n in list(g.state.team):
        if g.state.phase == "mission":
            via = "thread" if n == g.state.public else "pm"
            g.do(MissionOrder(g.tick(), n, "sabotage" if n in sabotage else "support", via))


@pytest.mark.parametrize("n,cylons", [(5, 2), (6, 2), (7, 3), (8, 3), (9, 4), (10, 4)])
def test_distribution(n, cylons):
    g = sswa(n)
    assert len(g.state.spies()) == cylons == spy_count(n, PRESETS["so-say-we-all"])
    assert {s.role for s in g.state.seats} == {"human", "cylon"}


def test_commander_and_first_leaders():
    g = sswa(6)
    names = g.state.names
    assert g.state.extra["commander"] == names[0] and g.state.leader == names[1]
    g.propose()
    vote_pm(g, "reject")
    assert g.state.leader == names[2]
    leader = g.state.leader
    mission(g)  # success: the approving leader becomes Commander
    assert g.state.extra["commander"] == leader
    assert g.state.leader == g.state.next_leader(leader)
    leader2 = g.state.leader
    cylon = g.state.spies()[0]
    team = [cylon] + [n for n in names if n != cylon][: g.state.team_size() - 1]
    mission(g, sabotage=[cylon], team=team)  # failure: the player after that leader
    assert g.state.missions[-1].result == "fail"
    assert g.state.extra["commander"] == g.state.next_leader(leader2)


def test_mission_one_votes_by_pm_only():
    g = sswa()
    g.propose()
    r = g.vote(g.state.names[0], "approve", via="thread")
    assert isinstance(r, Refusal) and r.private
    assert not isinstance(g.vote(g.state.names[0], "approve", via="pm"), Refusal)


def test_mission_two_public_order():
    g = sswa(5)
    mission(g)
    leader = g.state.leader
    team = tuple(g.state.names[:3])
    r = g.do(Propose(g.tick(), leader, team))
    assert isinstance(r, Refusal) and "PUBLIC:" in r.hint
    outsider = next(n for n in g.state.names if n not in team)
    assert isinstance(g.do(Propose(g.tick(), leader, team, outsider)), Refusal)
    human = next(n for n in team if g.state.seat(n).side == "resistance")
    g.do(Propose(g.tick(), leader, team, human))
    assert g.state.public == human
    g.vote_all("approve")  # mission 2 votes may be in the thread
    assert g.state.phase == "mission"
    r = g.do(MissionOrder(g.tick(), human, "support", "pm"))
    assert isinstance(r, Refusal) and "public" in r.reason
    r = g.do(MissionOrder(g.tick(), human, "sabotage", "thread"))
    assert isinstance(r, Refusal) and r.private  # a Human's public SABOTAGE
    g.do(MissionOrder(g.tick(), human, "support", "thread"))
    # the others' orders never count from the thread
    other = next(n for n in team if n != human)
    assert isinstance(g.do(MissionOrder(g.tick(), other, "support", "thread")), Refusal)


def test_missed_public_order_takes_the_default_shown_as_defaulted():
    g = sswa(5)
    mission(g)
    cylon = g.state.spies()[0]
    team = [cylon] + [n for n in g.state.names if n != cylon][:2]
    g.do(Propose(g.tick(), g.state.leader, tuple(team), cylon))
    vote_pm(g)
    for n in team[1:]:
        g.do(MissionOrder(g.tick(), n, "support", "pm"))
    g.do(expired(g.state, g.at + timedelta(days=2)))
    m = g.state.missions[-1]
    assert m.public == cylon and m.orders[cylon] == "sabotage" and cylon in m.defaulted
    post = render_events(g.state, [e for e in g.log if e.type == "mission_resolved"][-1:], "G1")[0].body
    assert f"{cylon}'s public order: **SABOTAGE** (default)" in post


def test_mission_three_hides_the_count_and_four_needs_two_at_five_players():
    g = sswa(5)
    mission(g)
    mission(g)
    assert g.state.winner is None or g.state.successes() == 2
    g2 = sswa(5)
    cylons = g2.state.spies()
    mission(g2, sabotage=cylons[:1], team=cylons[:2])
    mission(g2)
    mission(g2, sabotage=cylons[:1], team=cylons[:1] + [n for n in g2.state.names if n not in cylons][:1])
    m3 = g2.state.missions[2]
    assert m3.count_shown is False and m3.result == "fail"
    post = render_events(g2.state, [e for e in g2.log if e.type == "mission_resolved"][-1:], "G1")[0].body
    assert "FAILED" in post and "1 SABOTAGE" not in post and "not revealed" in post
    team = cylons[:1] + [n for n in g2.state.names if n not in cylons][:2]
    mission(g2, sabotage=cylons[:1], team=team)
    m4 = g2.state.missions[3]
    assert m4.fails_needed == 2 and m4.sabotages == 1 and m4.result == "success"


def test_critical_vote_counts_double_once_a_game_and_is_spent_only_if_it_stands():
    g = sswa(5)
    g.propose()
    a, b, c, d, e = g.state.names
    g.do(TeamVote(g.tick(), a, "reject", "pm", critical=True))
    g.do(TeamVote(g.tick(), a, "reject", "pm"))  # changed: the token is not spent
    g.do(TeamVote(g.tick(), b, "reject", "pm", critical=True))
    g.vote(c, "approve", "pm")
    g.vote(d, "approve", "pm")
    g.vote(e, "approve", "pm")
    v = [x for x in g.log if x.type == "vote_closed"][-1].data
    assert v["critical"] == [b] and v["reject"] == 3 and v["approve"] == 3 and not v["approved"]
    g.propose()
    r = g.do(TeamVote(g.tick(), b, "approve", "pm", critical=True))
    assert isinstance(r, Refusal) and "spent" in r.reason
    assert not isinstance(g.do(TeamVote(g.tick(), a, "approve", "pm", critical=True)), Refusal)
    assert isinstance(Game(5).do(TeamVote(T0_plus(), "alice", "approve", "thread", critical=True)), Refusal)


def T0_plus():
    from tests.support.pure import T0
    return T0 + timedelta(hours=1)


def test_preloaded_orders_apply_if_approved_and_vanish_if_rejected():
    g = sswa(5)
    team = tuple(g.state.names[:2])
    g.do(Propose(g.tick(), g.state.leader, team))
    outsider = g.state.names[3]
    assert isinstance(g.do(MissionOrder(g.tick(), outsider, "support", "pm")), Refusal)
    g.do(MissionOrder(g.tick(), team[0], "support", "pm"))
    vote_pm(g, "reject")
    g.do(Propose(g.tick(), g.state.leader, team))
    vote_pm(g, "approve")
    assert g.state.phase == "mission" and g.state.orders == {}  # the old preload is gone
    g.do(MissionOrder(g.tick(), team[0], "support", "pm"))
    g.do(MissionOrder(g.tick(), team[1], "support", "pm"))
    assert g.state.missions[0].result == "success"
    # preloaded on the approved proposal: the mission closes as soon as the vote does
    team = tuple(g.state.names[:3])
    g.do(Propose(g.tick(), g.state.leader, team, team[0]))
    for n in team:
        via = "thread" if n == team[0] else "pm"
        assert not isinstance(g.do(MissionOrder(g.tick(), n, "support", via)), Refusal)
    vote_pm(g, "approve")
    assert len(g.state.missions) == 2 and g.state.phase == "proposal"


def test_config():
    cfg, problems = parse_config("preset: so-say-we-all\nplayers: [a1, b1, c1, d1, e1]\n", "h")
    assert problems == [] and cfg.mission_cards is True  # on by default, as in the seed
    cfg, problems = parse_config("preset: so-say-we-all\nplayers: [a1, b1, c1, d1, e1]\n"
                                 "mission_cards: false\nplot_cards: false\n", "h")
    assert [p.key for p in problems] == ["plot_cards"]
