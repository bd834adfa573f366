"""Excalibur (variants.md, "Beyond the seeds"): one rules module (forumbot/rules/modules/excalibur.py),
one render module, one row of the table. A scripted game, the edge cases, the parsing and
intake of its commands, its config key, and a random-play sweep with it on."""
import random
from datetime import timedelta

import pytest

from forumbot.gameconfig import parse_config
from forumbot.parsing import parse_comment, parse_pm
from forumbot.rules import MissionOrder, Propose, Refusal, TeamVote, make_config, replay
from forumbot.rules.commands import SAID_CLOSE, SAID_OPEN, HostDisqualify, HostSkip
from forumbot.rules.deadlines import due, expired
from forumbot.rules.modules.excalibur import GIVEN, OPENED, PASSED, USED, WieldExcalibur
from forumbot.rules.plugin import Parsed
from forumbot.rules.random_play import play_out
from forumbot.shell.intake import command_for
from tests.support.pure import NAMES, T0, Game


def game(n=7, **kw):
    return Game(n, preset="avalon", excalibur=True, **kw)


def team_of(g):
    """The leader and the next players; the holder: the first of them who does not lead."""
    s = g.state
    i = s.names.index(s.leader)
    order = [n for n in s.names[i:] + s.names[:i] if not s.seat(n).disqualified]
    team = order[: s.team_size()]
    return team, team[1]


def propose(g, team, holder):
    r = g.do(Propose(g.tick(), g.state.leader, tuple(team), more=(("excalibur", holder),)))
    assert not isinstance(r, Refusal), r
    return r


def approve(g):
    for s in g.state.active():
        if g.state.phase == "team_vote":
            g.do(TeamVote(g.tick(), s.name, "approve", "pm"))


def orders(g, sabotage=()):
    for n in list(g.state.team):
        if g.state.phase == "mission":
            g.do(MissionOrder(g.tick(), n, "sabotage" if n in sabotage else "support", "pm"))


def wield(g, author, target, via="pm"):
    return g.do(WieldExcalibur(g.tick(), author, target, via))


def to_the_window(g, sabotage=()):
    team, holder = team_of(g)
    propose(g, team, holder)
    approve(g)
    orders(g, sabotage)
    return team, holder


def test_a_scripted_game_switches_an_order_and_counts_it():
    g = game()
    team, holder = to_the_window(g)
    assert g.state.leader == team[0] and holder != g.state.leader
    assert g.state.phase == "excalibur" and g.state.actors == [holder]
    assert g.state.waiting_for() == [holder] and due(g.state) is not None
    target = next(n for n in team if n != holder)
    assert g.state.seat(target).side == "resistance" or True
    wield(g, holder, target)
    used = [e for e in g.log if e.type == USED]
    assert [e.data for e in used] == [{"holder": holder, "target": target, "was": "support", "mission": 1}]
    m = g.state.missions[-1]
    assert m.orders[target] == "sabotage" and m.sabotages == 1
    assert m.result == "fail"  # a loyal member's SABOTAGE made by Excalibur counts
    assert g.state.phase == "proposal" and g.state.mission == 2
    assert replay(g.config, g.seed, g.log) == g.state


def test_a_sabotage_switched_back_to_support():
    g = game()
    team, holder = team_of(g)
    spy = g.state.spies()[0]
    team = [spy] + [n for n in team if n != spy][: len(team) - 1]
    holder = next(n for n in team if n not in (spy, g.state.leader))
    propose(g, team, holder)
    approve(g)
    orders(g, sabotage=[spy])
    wield(g, holder, spy)
    assert [e.data["was"] for e in g.log if e.type == USED] == ["sabotage"]
    assert g.state.missions[-1].result == "success"


def test_pass_and_a_missed_choice_count_the_orders_as_cast():
    g = game()
    team, holder = to_the_window(g)
    wield(g, holder, None)
    assert [e.data["reason"] for e in g.log if e.type == PASSED] == ["passed"]
    assert g.state.missions[-1].result == "success"
    to_the_window(g)
    assert g.state.phase == "excalibur"
    g.do(expired(g.state, g.at + timedelta(days=3)))  # deadlines.choice
    assert [e.data["reason"] for e in g.log if e.type == PASSED][-1] == "the deadline passed"
    assert g.state.mission == 3 and g.state.missions[-1].result == "success"


def test_refusals_change_nothing():
    g = game()
    team, holder = team_of(g)
    leader = g.state.leader
    for more, words in (((), "names a team member"), ((("excalibur", g.state.names[6]),), "not on the team"),
                        ((("excalibur", leader),), "not himself")):
        r = g.do(Propose(g.tick(), leader, tuple(team), more=more))
        assert isinstance(r, Refusal) and words in r.reason, r
        assert r.hint == f"{SAID_OPEN}PROPOSE: a, b, c; EXCALIBUR: b{SAID_CLOSE}"
    assert g.state.phase == "proposal"
    propose(g, team, holder)
    approve(g)
    assert isinstance(wield(g, holder, team[0]), Refusal)  # not yet: orders are not in
    orders(g)
    before = len(g.log)
    other = next(n for n in team if n != holder)
    cases = [(other, team[0], "pm", "Only the holder"), (holder, team[0], "thread", "by PM"),
             (holder, holder, "pm", "another member"), (holder, g.state.names[6], "pm", "another member")]
    for author, target, via, words in cases:
        r = wield(g, author, target, via)
        assert isinstance(r, Refusal) and words in r.reason, (author, target, r)
    r = wield(g, holder, team[0], "thread")
    assert r.private
    assert len(g.log) == before and g.state.phase == "excalibur"


def test_a_disqualified_holder_passes():
    g = game()
    team, holder = team_of(g)
    propose(g, team, holder)
    approve(g)
    g.do(HostDisqualify(g.tick(), "host", holder))
    orders(g)
    assert g.state.phase == "proposal"  # no window: the holder is disqualified
    assert [e.data["reason"] for e in g.log if e.type == PASSED] == ["the holder is disqualified"]
    assert not [e for e in g.log if e.type == OPENED]


def test_the_holder_disqualified_in_the_window_passes():
    g = game()
    team, holder = to_the_window(g)
    g.do(HostDisqualify(g.tick(), "host", holder))
    assert g.state.phase == "proposal" and g.state.mission == 2
    assert [e.type for e in g.log].count(PASSED) == 1 and not [e for e in g.log if e.type == USED]


def test_the_host_skips_the_window():
    g = game()
    team, holder = to_the_window(g)
    g.do(HostSkip(g.tick(), "host"))
    assert g.state.mission == 2 and [e.type for e in g.log].count(PASSED) == 1


def test_a_mission_closed_by_its_deadline_still_gives_the_holder_the_window():
    """(variants.md, "Excalibur after a mission closed early": once the defaults fill the
    missing orders, the holder gets the window; this test pinned the old skip before.)"""
    g = game()
    team, holder = team_of(g)
    propose(g, team, holder)
    approve(g)
    g.do(MissionOrder(g.tick(), team[0], "support", "pm"))
    g.do(expired(g.state, g.at + timedelta(days=5)))
    assert g.state.phase == "excalibur" and g.state.actors == [holder] and g.state.mission == 1
    assert [e.data for e in g.log if e.type == OPENED] == [{"holder": holder, "mission": 1, "closed": True}]
    g.do(expired(g.state, g.at + timedelta(days=9)))  # missed: PASS
    assert [e.data["reason"] for e in g.log if e.type == PASSED] == ["the deadline passed"]
    assert g.state.mission == 2 and g.state.missions[-1].defaulted == [n for n in team if n != team[0]]


def test_a_revised_proposal_names_a_new_holder():
    g = game()
    team, holder = team_of(g)
    propose(g, team, holder)
    team2 = [team[0], g.state.names[5]]
    propose(g, team2, team2[1])
    approve(g)
    orders(g)
    assert g.state.actors == [team2[1]]
    assert [e.data["holder"] for e in g.log if e.type == GIVEN] == [holder, team2[1]]


def test_a_game_without_excalibur_refuses_its_commands():
    g = Game(7, preset="avalon")
    r = g.do(WieldExcalibur(g.tick(), g.state.names[0], g.state.names[1]))
    assert isinstance(r, Refusal) and r.reason.startswith("EXCALIBUR is not part of this game")
    state = g.state
    seat = state.leader
    p = parse_comment(f"**PROPOSE: {seat}, bob; EXCALIBUR: bob**")[0]
    assert "not part of this game" in command_for(state, p, seat, "thread", g.tick()).reason


# --- parsing and intake ---------------------------------------------------------------


def test_parsing():
    p = parse_comment("**PROPOSE: alice, bob, carol; EXCALIBUR: bob**")[0]
    assert p == Parsed("propose", names=("alice", "bob", "carol"), text=p.text, more=(("excalibur", "bob"),))
    p = parse_comment("**PROPOSE: alice, bob; EXCALIBUR: bob; PUBLIC: alice**")[0]
    assert p.names == ("alice", "bob") and p.extra == "alice" and p.more == (("excalibur", "bob"),)
    p = parse_comment("**PROPOSE: alice, bob; PUBLIC: alice**")[0]  # as before
    assert p == Parsed("propose", names=("alice", "bob"), extra="alice", text=p.text)
    assert parse_pm("excalibur: carol")[0] == Parsed("excalibur", names=("carol",), text="excalibur: carol")
    assert parse_pm("G3 EXCALIBUR carol")[0].verb == "excalibur"


def test_intake():
    g = game()
    s = g.state
    leader = s.leader
    team, holder = team_of(g)
    text = f"**PROPOSE: {', '.join(team)}; EXCALIBUR: {holder[:3]}**"
    cmd = command_for(s, parse_comment(text)[0], leader, "thread", g.tick())
    assert isinstance(cmd, Propose) and cmd.team == tuple(team) and cmd.more == (("excalibur", holder),)
    bad = command_for(s, parse_comment(f"**PROPOSE: {', '.join(team)}; EXCALIBUR: zed**")[0], leader, "thread", g.at)
    assert isinstance(bad, Refusal) and "'zed' is not a player" in bad.reason
    to_the_window(g)
    s = g.state
    cmd = command_for(s, parse_pm(f"EXCALIBUR: {team[0]}")[0], holder, "pm", g.tick())
    assert cmd == WieldExcalibur(g.at, holder, team[0], "pm")
    cmd = command_for(s, parse_pm("PASS")[0], holder, "pm", g.tick())
    assert cmd == WieldExcalibur(g.at, holder, None, "pm")
    assert isinstance(command_for(s, parse_pm("EXCALIBUR: zed")[0], holder, "pm", g.at), Refusal)


def test_the_config_key():
    base = "preset: avalon\nplayers: [a1, b2, c3, d4, e5, f6, g7]\n"
    cfg, problems = parse_config(base + "excalibur: true\n", host="h")
    assert not problems and cfg.options == {"excalibur": True}
    assert cfg.to_json()["options"] == {"excalibur": True}
    assert type(cfg).from_json(cfg.to_json()) == cfg
    cfg, problems = parse_config(base, host="h")
    assert not problems and cfg.options == {} and "options" not in cfg.to_json()
    _, problems = parse_config(base + "excalibur: 3\n", host="h")
    assert [str(p) for p in problems] == ["excalibur: must be true or false"]
    _, problems = parse_config("preset: resistance\nplayers: [a1, b2, c3, d4, e5]\nexcalibur: true\n", host="h")
    assert [str(p) for p in problems] == ["excalibur: does not belong to the resistance preset"]
    _, problems = parse_config("preset: avalon-2020\nplayers: [a1, b2, c3, d4, e5, f6, g7, h8]\nexcalibur: true\n",
                               host="h")
    assert [str(p) for p in problems] == ["excalibur: does not belong to the avalon-2020 preset"]


# --- random play ------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(5, 11))
def test_random_play_with_excalibur(n):
    used = closed = 0
    for seed in range(25):
        cfg = make_config("avalon", NAMES[:n], leader_order="random", excalibur=True,
                          plot_cards=seed % 2 == 0, lady_of_the_lake=seed % 3 == 0)
        state, events, _ = play_out(cfg, seed, random.Random(seed), T0)
        assert not state.running or state.phase == "assassination", (n, seed, state.phase)
        assert replay(cfg, seed, events) == state
        types = [e.type for e in events]
        used += types.count(USED)
        for i, e in enumerate(events):  # every window ends in a use or a pass before the count
            if e.type == OPENED:
                assert next(t for t in types[i + 1:] if t in (USED, PASSED, "mission_resolved")) != "mission_resolved"
                # once every order is in, or the mission closed and the defaults filled the rest
                assert types[i - 1] == "order_cast" or e.data.get("closed"), (types[i - 1], e.data)
                closed += bool(e.data.get("closed"))
            if e.type == GIVEN:
                assert e.data["holder"] != events[i - 1].data["leader"]
                assert e.data["holder"] in events[i - 1].data["team"]
    assert used > 10 and closed > 0


def test_the_texts():
    from forumbot.render import render_events

    g = game()
    team, holder = to_the_window(g)
    target = next(n for n in team if n != holder)
    before = len(g.log)
    wield(g, holder, target)
    msgs = render_events(g.state, g.log[before:], "G1")
    public = "\n".join(m.body for m in msgs if m.to is None)
    assert f"{holder} uses Excalibur on **{target}**." in public
    assert "SUPPORT" not in public.split("Mission 1")[0]  # (the order it was: the holder's alone)
    pms = [m for m in msgs if m.to is not None and "Excalibur" in m.body]
    assert [m.to for m in pms] == [holder]
    assert f"**{target}**'s order was **SUPPORT**. It counts as SABOTAGE." in pms[0].body
    opened = [e for e in g.log if e.type == OPENED]
    prompt = [m for m in render_events(g.state, opened, "G1") if m.to == holder]
    assert prompt and f"PM me **EXCALIBUR: {target}**;" in prompt[0].body  # a team of two: the other, by name


def test_the_holder_replaced_keeps_excalibur_for_the_newcomer():
    """The seat keeps its id (and Excalibur); the newcomer on it is shown and gets the PMs."""
    from forumbot.render import render_events
    from forumbot.rules.commands import HostReplace

    g = game()
    team, holder = team_of(g)
    propose(g, team, holder)
    approve(g)
    assert not isinstance(g.do(HostReplace(g.tick(), "host", holder, "zed")), Refusal)
    orders(g)
    assert g.state.phase == "excalibur" and g.state.actors == [holder]  # the seat, by its id
    before = len(g.log)
    opened = [e for e in g.log if e.type == OPENED]
    prompt = render_events(g.state, opened, "G1")
    assert [m.to for m in prompt if m.to] == ["zed"] and "zed holds Excalibur" in prompt[0].body
    wield(g, holder, team[0])
    assert [e.data["holder"] for e in g.log if e.type == USED] == [holder]
    msgs = render_events(g.state, g.log[before:], "G1")
    assert "zed uses Excalibur on" in "\n".join(m.body for m in msgs if m.to is None)
    assert [m.to for m in msgs if m.to and "Excalibur" in m.body] == ["zed"]
    assert replay(g.config, g.seed, g.log) == g.state


def test_help_tells_the_leader_and_the_holder_the_words_excalibur_takes():
    from forumbot.render.help import help_for

    g = game()
    leader = g.state.leader
    other = next(n for n in g.state.names if n != leader)
    assert "PROPOSE: name, name; EXCALIBUR: name" in help_for(g.state, "G1", leader, leader)
    assert "EXCALIBUR" not in help_for(g.state, "G1", other, other)  # only the leader proposes
    team, holder = to_the_window(g)
    text = help_for(g.state, "G1", holder, holder, "bbcode")
    assert "[b]EXCALIBUR: name[/b]" in text and "[b]PASS[/b]" in text and "CHOOSE" not in text
    plain = Game(7, preset="avalon")
    assert "EXCALIBUR" not in help_for(plain.state, "G1", plain.state.leader, plain.state.leader)


def test_the_proposal_prompt_names_the_excalibur_form_and_only_with_excalibur():
    from forumbot.render import render_events
    from forumbot.rules import events as ev

    def prompt(g):
        opened = [e for e in g.log if e.type == ev.PROPOSAL_OPENED][-1:]
        return "\n".join(m.body for m in render_events(g.state, opened, "G1") if m.to is None)

    with_it = prompt(game())
    assert "post **PROPOSE: name, name** by" in with_it  # the core's words, as before
    assert with_it.endswith("With the team, name who holds Excalibur: **PROPOSE: name, name; EXCALIBUR: name**.")
    assert "Excalibur" not in prompt(Game(7, preset="avalon"))
