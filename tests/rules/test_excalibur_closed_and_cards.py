"""Excalibur against the other rules (issue 24, items 4-6; variants.md, "Excalibur after a
mission closed early" and "Excalibur and the Plot Cards"): In the Spotlight and Keeping a
Close Eye on You show the order as sent, before Excalibur's switch (the result counts the
switched one); a mission closed by its deadline or the host's CLOSE still gives the holder
the window, after the defaults fill the missing orders."""
from datetime import timedelta

import pytest

from forumbot.render import render_events
from forumbot.rules import MissionOrder, Propose, Refusal, TeamVote, replay
from forumbot.rules import events as ev
from forumbot.rules.commands import Choose, GiveCard, HostClose, HostDisqualify, PlayCard
from forumbot.rules.deadlines import expired
from forumbot.rules.modules.excalibur import OPENED, PASSED, USED, WieldExcalibur
from forumbot.rules.modules.plot import PlotCards
from forumbot.rules.modules.plot_deck import deck_for
from tests.support.pure import Game


@pytest.fixture
def rigged(monkeypatch):
    """rigged(top): an 8-player avalon game with Excalibur and the Plot Cards whose deck
    starts with `top`."""
    def make(top=(), **kw):
        def after_start(self, tx):
            rest = list(deck_for(len(tx.state.seats)))
            for c in top:
                rest.remove(c)
            tx.emit(ev.PLOT_SHUFFLED, deck=list(top) + rest)
        monkeypatch.setattr(PlotCards, "after_start", after_start)
        return Game(8, preset="avalon", excalibur=True, plot_cards=True, **kw)
    return make


def ok(g, command):
    r = g.do(command)
    assert not isinstance(r, Refusal), r
    return r


def approve(g):
    for s in g.state.active():
        if g.state.phase == "team_vote":
            ok(g, TeamVote(g.tick(), s.id, "approve", "pm"))


def public(g, events):
    return "\n".join(m.body for m in render_events(g.state, events, "G1") if m.to is None)


def pms(g, events, to):
    return "\n".join(m.body for m in render_events(g.state, events, "G1") if m.to == to)


def test_the_spotlight_and_a_close_eye_show_the_order_as_sent_before_excalibur(rigged):
    g = rigged(top=["spotlight", "close-eye"])
    n = g.state.names
    leader = g.state.extra["plot"].round.leader
    spot, eye = n[5], n[6]
    ok(g, GiveCard(g.tick(), leader, "spotlight", spot))
    ok(g, GiveCard(g.tick(), leader, "close eye", eye))
    assert g.state.phase == "proposal" and g.state.leader == leader
    team = [leader] + [x for x in n if x not in (leader, spot, eye)][:2]
    holder, target = team[1], team[2]
    ok(g, Propose(g.tick(), leader, tuple(team), more=(("excalibur", holder),)))
    approve(g)
    ok(g, PlayCard(g.tick(), spot, "In the Spotlight", target))
    for x in team:
        ok(g, MissionOrder(g.tick(), x, "support", "pm"))
    before = len(g.log)
    ok(g, WieldExcalibur(g.tick(), holder, target))
    batch = g.log[before:]
    m = g.state.missions[-1]
    assert m.orders[target] == "sabotage" and m.result == "fail"  # the result counts the switch
    shown = [e for e in batch if e.type == ev.PLOT_SPOTLIGHT]
    assert [e.data for e in shown] == [{"target": target, "order": "support", "mission": 1, "switched": True}]
    post = public(g, batch)
    assert f"In the Spotlight: **{target}**'s order on mission 1 was **SUPPORT** before Excalibur switched it." in post
    assert "was **SABOTAGE**" not in post
    assert g.state.phase == "card_window" and g.state.actors == [eye]
    before = len(g.log)
    ok(g, Choose(g.tick(), eye, target, via="pm"))
    seen = [e for e in g.log[before:] if e.type == ev.PLOT_REVEAL]
    assert [(e.data["order"], e.data["switched"]) for e in seen] == [("support", True)]
    text = pms(g, seen, eye)
    assert (f"Keeping a Close Eye on You: **{target}** played **SUPPORT** on mission 1; Excalibur "
            "switched it, and it counted as **SABOTAGE**.") in text
    assert replay(g.config, g.seed, g.log) == g.state


def test_an_order_excalibur_left_alone_shows_as_before(rigged):
    g = rigged(top=["spotlight", "close-eye"])
    n = g.state.names
    leader = g.state.extra["plot"].round.leader
    spot, eye = n[5], n[6]
    ok(g, GiveCard(g.tick(), leader, "spotlight", spot))
    ok(g, GiveCard(g.tick(), leader, "close eye", eye))
    assert g.state.phase == "proposal" and g.state.leader == leader
    team = [leader] + [x for x in n if x not in (leader, spot, eye)][:2]
    holder, target = team[1], team[2]
    ok(g, Propose(g.tick(), leader, tuple(team), more=(("excalibur", holder),)))
    approve(g)
    ok(g, PlayCard(g.tick(), spot, "In the Spotlight", target))
    for x in team:
        ok(g, MissionOrder(g.tick(), x, "support", "pm"))
    ok(g, WieldExcalibur(g.tick(), holder, leader))  # another member: the target's order stands
    shown = [e.data for e in g.log if e.type == ev.PLOT_SPOTLIGHT]
    assert shown == [{"target": target, "order": "support", "mission": 1}]  # (no "switched": as the log had it)
    ok(g, Choose(g.tick(), eye, target, via="pm"))
    seen = [e for e in g.log if e.type == ev.PLOT_REVEAL and e.data["card"] == "close-eye"]
    assert [(e.data["order"], "switched" in e.data) for e in seen] == [("support", False)]
    assert f"**{target}** played **SUPPORT** on mission 1.\n" in pms(g, seen, eye)


def excalibur_game(seed=1):
    return Game(8, seed=seed, preset="avalon", excalibur=True)


def to_the_mission(g):
    leader = g.state.leader
    team = [leader] + [x for x in g.state.names if x != leader][: g.state.team_size() - 1]
    ok(g, Propose(g.tick(), leader, tuple(team), more=(("excalibur", team[1]),)))
    approve(g)
    return team, team[1]


def test_the_hosts_close_gives_the_holder_the_window_and_a_missed_default_can_be_switched():
    g = excalibur_game()
    team, holder = to_the_mission(g)
    ok(g, MissionOrder(g.tick(), holder, "support", "pm"))
    before = len(g.log)
    ok(g, HostClose(g.tick(), "host"))  # team[0] and team[2] sent nothing: the defaults fill them
    assert g.state.phase == "excalibur" and g.state.actors == [holder] and g.state.mission == 1
    opened = [e for e in g.log[before:] if e.type == OPENED]
    assert [e.data for e in opened] == [{"holder": holder, "mission": 1, "closed": True}]
    post = public(g, g.log[before:])
    assert (f"The mission is closed, and the defaults fill the missing orders. {holder} holds Excalibur "
            "and may now switch one other team member's order, by PM, by") in post
    default = "support"  # (by-side: the resistance's default; the spies' would be SABOTAGE)
    target = team[2]
    if g.state.seat(target).side == "spies":
        default = "sabotage"
    ok(g, WieldExcalibur(g.tick(), holder, target))
    used = [e.data for e in g.log if e.type == USED]
    assert used == [{"holder": holder, "target": target, "was": default, "mission": 1}]
    m = g.state.missions[-1]
    assert m.orders[target] == ("sabotage" if default == "support" else "support")
    assert target in m.defaulted and team[0] in m.defaulted and holder not in m.defaulted  # still missed
    assert replay(g.config, g.seed, g.log) == g.state


def test_a_silent_spy_cannot_block_excalibur():
    """The spy on the team sends nothing; the deadline closes the mission; the holder
    switches the spy's default SABOTAGE and the mission succeeds."""
    g = excalibur_game(seed=3)
    spy = g.state.spies()[0]
    leader = g.state.leader
    assert leader != spy and g.state.seat(leader).side == "resistance"  # (seed 3)
    others = [x for x in g.state.names if x not in (leader, spy) and g.state.seat(x).side == "resistance"]
    team = [leader, others[0], spy]
    ok(g, Propose(g.tick(), leader, tuple(team), more=(("excalibur", others[0]),)))
    approve(g)
    ok(g, MissionOrder(g.tick(), leader, "support", "pm"))
    ok(g, MissionOrder(g.tick(), others[0], "support", "pm"))
    g.do(expired(g.state, g.at + timedelta(days=5)))
    assert g.state.phase == "excalibur"
    ok(g, WieldExcalibur(g.tick(), others[0], spy))
    m = g.state.missions[-1]
    assert m.result == "success" and m.orders[spy] == "support" and m.defaulted == [spy]


def test_a_disqualified_holder_passes_at_once_when_the_mission_closes():
    g = excalibur_game()
    team, holder = to_the_mission(g)
    ok(g, HostDisqualify(g.tick(), "host", holder))
    ok(g, MissionOrder(g.tick(), team[0], "support", "pm"))
    before = len(g.log)
    ok(g, HostClose(g.tick(), "host"))
    assert g.state.mission == 2 and not [e for e in g.log if e.type == OPENED]
    assert [e.data["reason"] for e in g.log[before:] if e.type == PASSED] == ["the holder is disqualified"]
    assert "Excalibur is not used on mission 1 (the holder is disqualified)." in public(g, g.log[before:])


def test_disqualifying_the_last_member_missing_gives_the_holder_the_window():
    g = excalibur_game()
    team, holder = to_the_mission(g)
    for x in team[:-1]:
        ok(g, MissionOrder(g.tick(), x, "support", "pm"))
    ok(g, HostDisqualify(g.tick(), "host", team[-1]))
    assert g.state.phase == "excalibur" and g.state.actors == [holder]
    r = g.do(WieldExcalibur(g.tick(), holder, team[-1]))
    assert isinstance(r, Refusal) and "disqualified" in r.reason  # a disqualified member's default stays
