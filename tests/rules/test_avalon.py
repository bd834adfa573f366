"""Avalon's roles, knowledge, assassination and Lady of the Lake; the other presets' rows."""
import itertools
from datetime import timedelta

import pytest

from forumbot.gameconfig import parse_config
from forumbot.rules import Refusal, make_config, replay, start
from forumbot.rules.deadlines import expired
from forumbot.rules.modules.assassin import Assassinate
from forumbot.rules.modules.lady import LadyTarget
from forumbot.rules.presets import SPIES
from forumbot.rules.roles import role_set
from tests.support.pure import NAMES, T0, Game

OPTIONAL = ["percival", "morgana", "mordred", "oberon"]
EVIL = {"minion", "assassin", "morgana", "mordred", "oberon"}  # the spies' roles (not read from the declarations)


def role_sets(n):
    """Every optional role set that fits n players."""
    for k in range(len(OPTIONAL) + 1):
        for combo in itertools.combinations(OPTIONAL, k):
            if 1 + len([r for r in combo if r in EVIL]) <= SPIES[n]:
                yield combo


def expected_knowledge(state, name, with_roles=False):
    me = state.seat(name)
    seats = {s.name: s.role for s in state.seats if s.name != name}
    if me.role in EVIL and me.role != "oberon":
        return {n: (r if with_roles else "minion") for n, r in seats.items() if r in EVIL and r != "oberon"}
    if me.role == "merlin":
        return {n: "minion" for n, r in seats.items() if r in EVIL and r != "mordred"}
    if me.role == "percival":
        seen = {n for n, r in seats.items() if r in ("merlin", "morgana")}
        return {n: ("merlin-or-morgana" if len(seen) == 2 else "merlin") for n in seen}
    return {}


@pytest.mark.parametrize("n", range(5, 11))
def test_knowledge_table_every_role_set_and_size(n):
    for roles in role_sets(n):
        for seed in range(3):
            cfg = make_config("avalon", NAMES[:n], roles=roles, plot_cards=False)
            state = replay(cfg, seed, start(cfg, seed, T0))
            dealt = sorted(s.role for s in state.seats)
            assert dealt.count("merlin") == 1 and dealt.count("assassin") == 1
            assert sum(1 for r in dealt if r in EVIL) == SPIES[n]
            for r in roles:
                assert r in dealt
            for s in state.seats:
                got = {k.name: k.label for k in role_set(cfg).knowledge(state, s.name)}
                assert got == expected_knowledge(state, s.name), (roles, s.role)


def test_avalon_2020_roster_and_evil_knows_roles():
    cfg = make_config("avalon-2020", NAMES[:8])
    for seed in range(5):
        state = replay(cfg, seed, start(cfg, seed, T0))
        assert sorted(s.role for s in state.seats) == sorted(
            ["merlin", "percival", "servant", "servant", "servant", "morgana", "assassin", "mordred"])
        for s in state.seats:
            got = {k.name: k.label for k in role_set(cfg).knowledge(state, s.name)}
            assert got == expected_knowledge(state, s.name, with_roles=True)


def avalon(n=5, lady=False, roles=("percival", "morgana"), **kw):
    return Game(n, preset="avalon", roles=roles, lady_of_the_lake=lady, plot_cards=False, **kw)


def who(g, role):
    return next(s.name for s in g.state.seats if s.role == role)


def three_successes(g):
    while g.state.phase not in ("assassination", "finished"):
        if g.state.phase == "lady":
            past = g.state.extra["lady"].past
            g.do(LadyTarget(g.tick(), g.state.extra["lady"].holder, next(n for n in g.state.names if n not in past)))
            continue
        g.mission()


def test_assassination_hits_merlin_and_the_spies_win():
    g = avalon()
    three_successes(g)
    assert g.state.phase == "assassination" and g.state.winner is None
    assassin = who(g, "assassin")
    assert g.state.waiting_for() == [assassin]
    r = g.do(Assassinate(g.tick(), who(g, "merlin"), who(g, "percival")))
    assert isinstance(r, Refusal) and "Only the Assassin" in r.reason
    r = g.do(Assassinate(g.tick(), assassin, assassin))
    assert isinstance(r, Refusal)
    r = g.do(Assassinate(g.tick(), assassin, who(g, "morgana")))  # a known fellow spy
    assert isinstance(r, Refusal) and r.private
    g.do(Assassinate(g.tick(), assassin, who(g, "merlin")))
    assert (g.state.winner, g.state.win_reason) == ("spies", "assassination")
    assert isinstance(g.do(Assassinate(g.tick(), assassin, who(g, "percival"))), Refusal)


def test_assassination_misses_and_the_servants_win():
    g = avalon()
    three_successes(g)
    g.do(Assassinate(g.tick(), who(g, "assassin"), who(g, "percival")))
    assert (g.state.winner, g.state.win_reason) == ("resistance", "missions")
    shot = [e for e in g.log if e.type == "assassinated"][0].data
    assert shot["hit"] is False


def test_assassination_has_no_default_it_waits():
    g = avalon()
    three_successes(g)
    cmd = expired(g.state, g.at + timedelta(days=2))
    g.do(cmd)
    assert g.state.phase == "assassination" and g.log[-1].type == "assassination_overdue"
    assert expired(g.state, g.at + timedelta(days=30)) is None  # it waits for good
    g.do(Assassinate(g.tick(days=40), who(g, "assassin"), who(g, "merlin")))
    assert g.state.win_reason == "assassination"


def test_spies_winning_by_missions_need_no_assassination():
    g = avalon()
    for _ in range(3):
        spy = who(g, "assassin")
        team = [spy] + [n for n in g.state.names if n != spy][: g.state.team_size() - 1]
        g.propose(team)
        g.vote_all()
        for n in list(g.state.team):
            g.order(n, "sabotage" if n == spy else "support")
        if g.state.phase == "lady":
            break
    assert g.state.winner == "spies" and not any(e.type == "assassination_opened" for e in g.log)


def test_lady_of_the_lake_after_missions_two_three_four():
    g = avalon(7, lady=True)
    holder = g.state.names[-1]
    assert g.state.extra["lady"].holder == holder
    g.mission()
    assert g.state.phase == "proposal"  # not after mission 1
    g.mission()
    assert g.state.phase == "lady" and g.state.waiting_for() == [holder]
    other = next(n for n in g.state.names if n != holder)
    assert isinstance(g.do(LadyTarget(g.tick(), other, holder)), Refusal)  # not the holder
    assert isinstance(g.do(LadyTarget(g.tick(), holder, holder)), Refusal)  # not yourself
    g.do(LadyTarget(g.tick(), holder, other))
    used = [e for e in g.log if e.type == "lady_used"][-1].data
    assert used == {"holder": holder, "target": other, "side": g.state.seat(other).side}
    assert g.state.extra["lady"].holder == other and g.state.phase == "proposal" and g.state.mission == 3
    # mission 3 fails so that mission 4 is still played
    spy = who(g, "assassin")
    g.propose([spy] + [n for n in g.state.names if n != spy][: g.state.team_size() - 1])
    g.vote_all()
    for n in list(g.state.team):
        g.order(n, "sabotage" if n == spy else "support")
    assert g.state.phase == "lady" and g.state.waiting_for() == [other]
    r = g.do(LadyTarget(g.tick(), other, holder))  # a past holder
    assert isinstance(r, Refusal) and "held the Lady already" in r.reason
    g.do(expired(g.state, g.at + timedelta(days=2)))  # the deadline skips it
    assert g.log[-2].type == "lady_skipped" and g.state.extra["lady"].holder == other
    assert g.state.phase == "proposal" and g.state.mission == 4


def test_lady_is_skipped_once_the_game_is_decided():
    g = avalon(5, lady=True)
    g.mission()
    g.mission()
    g.do(LadyTarget(g.tick(), g.state.extra["lady"].holder, g.state.names[0]))
    g.mission()  # the third success: the Lady does not come, the assassination does
    assert g.state.phase == "assassination"


def test_avalon_2020_rules():
    g = Game(8, preset="avalon-2020", plot_cards=False)
    assert g.config.deadlines.team_vote == 12 * 3600 and not g.config.deadlines.close_early
    g.propose()
    for s in g.state.seats[:5]:
        g.vote(s.name, "reject")
    g.vote(g.state.seats[5].name, "abstain")  # an explicit abstention is an APPROVE
    assert g.state.phase == "team_vote"  # no early close
    g.do(expired(g.state, g.at + timedelta(hours=13)))
    v = [e for e in g.log if e.type == "vote_closed"][-1].data
    assert v["votes"][g.state.seats[5].name] == "approve"
    assert sorted(v["defaulted"]) == sorted(s.name for s in g.state.seats[6:])
    assert v["approve"] == 3 and v["reject"] == 5
    # a missed proposal counts toward the five leadership changes
    g.do(expired(g.state, g.at + timedelta(days=3)))
    assert g.state.rejections == 2


def test_avalon_2020_missed_quest_votes_are_success_even_for_a_spy_and_count_toward_dq():
    g = Game(8, preset="avalon-2020", plot_cards=False)
    spy = who(g, "assassin")
    team = [spy] + [n for n in g.state.names if n != spy][: g.state.team_size() - 1]
    g.propose(team)
    for s in g.state.seats:
        g.vote(s.name, "approve" if s.name != spy else "approve")
    g.do(expired(g.state, g.at + timedelta(hours=13)))
    g.do(expired(g.state, g.at + timedelta(days=3)))  # nobody sends an order
    m = g.state.missions[0]
    assert m.sabotages == 0 and m.result == "success"
    # every team member missed one vote (the quest); missing the next team vote disqualifies
    g.propose()
    g.do(expired(g.state, g.at + timedelta(days=5)))
    dq = {e.data["player"] for e in g.log if e.type == "player_disqualified"}
    assert set(team) <= dq


def test_resistance_plot_rows():
    g = Game(8, preset="resistance-plot", plot_cards=False)
    spy = g.state.spies()[0]
    from forumbot.rules.roles import role_set as rs
    assert rs(g.config).knowledge(g.state, spy) == []  # spies do not know each other
    g.propose()
    r = g.vote(g.state.names[0], "approve", via="thread")
    assert isinstance(r, Refusal) and r.private and "PM" in r.reason
    assert not isinstance(g.vote(g.state.names[0], "approve", via="pm"), Refusal)
    assert Game(7, preset="resistance-plot").state.config.rules.two_fail_from == 8


@pytest.mark.parametrize("text,key,words", [
    ("preset: avalon\nplayers: [a1, b1, c1, d1, e1]\nplot_cards: false\nroles: [cylon]\n", "roles", "not a role"),
    ("preset: avalon\nplayers: [a1, b1, c1, d1, e1]\nplot_cards: false\nroles: [spy]\n", "roles", "not a role"),
    ("preset: avalon\nplayers: [a1, b1, c1, d1, e1]\nplot_cards: false\nroles: [morgana, mordred]\n", "roles", "do not fit"),
    ("preset: resistance\nplayers: [a1, b1, c1, d1, e1]\nplot_cards: false\n", "plot_cards", "does not belong"),
    ("preset: resistance\nplayers: [a1, b1, c1, d1, e1]\nlady_of_the_lake: true\n", "lady_of_the_lake", "does not belong"),
    ("preset: avalon-2020\nplayers: [a1, b1, c1, d1, e1]\nplot_cards: false\n", "players", "exactly 8"),
    ("preset: avalon-2020\nplayers: [a1, b1, c1, d1, e1, f1, g1, h1]\nplot_cards: false\nroles: [oberon]\n", "roles", "does not belong"),
    ("preset: avalon-2020\nplayers: [a1, b1, c1, d1, e1, f1, g1, h1]\nplot_cards: false\nlady_of_the_lake: true\n", "lady_of_the_lake", "does not belong"),
    ("preset: avalon-2020\nplayers: [a1, b1, c1, d1, e1, f1, g1, h1]\nplot_cards: often\n", "plot_cards", "true or false"),
    ("preset: avalon\nplayers: [a1, b1, c1, d1, e1]\nplot_cards: false\nlady_of_the_lake: yes please\n", "lady_of_the_lake", "true or false"),
])
def test_config_knows_each_preset(text, key, words):
    cfg, problems = parse_config(text, "host")
    assert cfg is None
    hits = [p for p in problems if p.key == key]
    assert hits and words in hits[0].message, problems


def test_avalon_plays_with_plot_cards_by_default():
    cfg, problems = parse_config("preset: avalon\nplayers: [a1, b1, c1, d1, e1]\n", "host")
    assert problems == [] and cfg.plot_cards is True
    cfg, problems = parse_config("preset: avalon\nplayers: [a1, b1, c1, d1, e1]\nplot_cards: false\n", "host")
    assert cfg.plot_cards is False


def test_config_avalon_ok():
    cfg, problems = parse_config("preset: avalon\nplayers: [a1, b1, c1, d1, e1, f1, g1]\nplot_cards: false\n"
                                 "roles: [Percival, morgana, merlin]\nlady_of_the_lake: true\n", "host")
    assert problems == []
    assert cfg.roles == ("morgana", "percival") and cfg.lady_of_the_lake


def test_avalon_2020_shows_the_quest_cards_shuffled_without_names():
    from forumbot.render import render_events

    g = Game(8, preset="avalon-2020", plot_cards=False)
    spy = who(g, "assassin")
    team = [spy] + [n for n in g.state.names if n != spy][:2]
    g.propose(team)
    for s in g.state.seats:
        g.vote(s.name, "approve")
    g.do(expired(g.state, g.at + timedelta(hours=13)))
    for n in team:
        g.order(n, "sabotage" if n == spy else "support")
    post = render_events(g.state, [e for e in g.log if e.type == "mission_resolved"], "G1")[0].body
    cards = post.split("The quest cards: ")[1].split(".")[0].split(", ")
    assert sorted(cards) == ["FAIL", "SUCCESS", "SUCCESS"]
    assert not any(n in post.split("The quest cards")[1].split("Missions:")[0] for n in g.state.names)
    again = render_events(g.state, [e for e in g.log if e.type == "mission_resolved"], "G1")[0].body
    assert again == post  # the same order every time: a re-render posts nothing new
