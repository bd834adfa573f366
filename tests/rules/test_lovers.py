"""Tristan and Isolde (variants.md, "Beyond the seeds"): one rules module
(forumbot/rules/modules/lovers.py), one render module, one row of the table. The deal, the config's
rules (both or neither, 7+ players), the Assassin's double shot and its refusals, parsing
and intake, and a random-play sweep with the lovers in."""
import random

import pytest

from forumbot.gameconfig import parse_config
from forumbot.parsing import parse_comment
from forumbot.rules import MissionOrder, Refusal, make_config, replay
from forumbot.rules.modules.assassin import Assassinate
from forumbot.rules.modules.lovers import SHOT, ShootLovers, lover_of, lovers
from forumbot.rules.random_play import play_out
from forumbot.rules.roles import role_set
from forumbot.shell.intake import command_for
from tests.support.pure import NAMES, T0, Game


def game(n=7, roles=("tristan", "isolde"), seed=1):
    return Game(n, seed=seed, preset="avalon", roles=roles)


def to_the_assassination(g):
    while g.state.phase != "assassination":
        g.propose()
        g.vote_all()
        for name in list(g.state.team):
            if g.state.phase == "mission":
                g.do(MissionOrder(g.tick(), name, "support", "pm"))
    return next(s.name for s in g.state.seats if s.role == "assassin")


def test_the_deal_and_what_the_lovers_know():
    for seed in range(20):
        g = game(seed=seed)
        roles = {s.role: s for s in g.state.seats}
        assert {"tristan", "isolde", "merlin", "assassin"} <= set(roles)
        assert roles["tristan"].side == roles["isolde"].side == "resistance"
        t, i = roles["tristan"].name, roles["isolde"].name
        assert lovers(g.state) == [t, i] and lover_of(g.state, t) == i and lover_of(g.state, i) == t
        assert lover_of(g.state, roles["merlin"].name) is None
        knows = role_set(g.config).knowledge
        assert knows(g.state, t) == [] and knows(g.state, i) == []  # the lover: render's role note
        assert {k.name for k in knows(g.state, roles["merlin"].name)} <= set(g.state.spies())


def test_without_the_lovers_the_deal_is_as_before():
    a, b = Game(7, preset="avalon", roles=("percival",)), Game(7, preset="avalon", roles=("percival",))
    assert a.log == b.log and not lovers(a.state)


def test_both_lovers_named_win_for_the_spies():
    g = game()
    shooter = to_the_assassination(g)
    t, i = lovers(g.state)
    r = g.do(ShootLovers(g.tick(), shooter, (i, t)))
    assert not isinstance(r, Refusal), r
    assert (g.state.winner, g.state.win_reason) == ("spies", "assassination")
    assert [e.data for e in g.log if e.type == SHOT] == [{"assassin": shooter, "targets": [i, t], "hit": True}]
    assert replay(g.config, g.seed, g.log) == g.state


def test_one_lover_named_wins_for_the_resistance():
    g = game()
    shooter = to_the_assassination(g)
    t, _ = lovers(g.state)
    other = next(s.name for s in g.state.seats if s.side == "resistance" and s.name != t)
    g.do(ShootLovers(g.tick(), shooter, (t, other)))
    assert (g.state.winner, g.state.win_reason) == ("resistance", "missions")
    assert [e.data["hit"] for e in g.log if e.type == SHOT] == [False]


def test_a_single_name_is_still_a_shot_at_merlin():
    g = game()
    shooter = to_the_assassination(g)
    merlin = next(s.name for s in g.state.seats if s.role == "merlin")
    g.do(Assassinate(g.tick(), shooter, merlin))
    assert (g.state.winner, g.state.win_reason) == ("spies", "assassination")
    assert not [e for e in g.log if e.type == SHOT]


def test_refusals_change_nothing():
    g = game(8, roles=("tristan", "isolde", "morgana"))
    t, i = lovers(g.state)
    assassin = next(s.name for s in g.state.seats if s.role == "assassin")
    assert isinstance(g.do(ShootLovers(g.tick(), assassin, (t, i))), Refusal)  # not yet
    shooter = to_the_assassination(g)
    morgana = next(s.name for s in g.state.seats if s.role == "morgana")
    other = next(s.name for s in g.state.seats if s.side == "resistance")
    before = len(g.log)
    cases = [(other, (t, i), "Only the Assassin"), (shooter, (t, t), "two different"),
             (shooter, (shooter, t), "yourself"), (shooter, (morgana, t), "one of your own")]
    for author, targets, words in cases:
        r = g.do(ShootLovers(g.tick(), author, targets))
        assert isinstance(r, Refusal) and words in r.reason, (targets, r)
    assert len(g.log) == before and g.state.phase == "assassination"


def test_oberon_is_no_one_the_assassin_knows():
    g = game(8, roles=("tristan", "isolde", "oberon"))
    shooter = to_the_assassination(g)
    oberon = next(s.name for s in g.state.seats if s.role == "oberon")
    t, _ = lovers(g.state)
    r = g.do(ShootLovers(g.tick(), shooter, (oberon, t)))
    assert not isinstance(r, Refusal) and g.state.winner == "resistance"


def test_a_game_without_the_lovers_refuses_two_names():
    g = Game(7, preset="avalon")
    shooter = to_the_assassination(g)
    r = g.do(ShootLovers(g.tick(), shooter, tuple(g.state.names[1:3])))
    assert isinstance(r, Refusal) and "not part of this game" in r.reason
    p = parse_comment(f"**ASSASSINATE: {g.state.names[1]}, {g.state.names[2]}**")[0]
    assert "not part of this game" in command_for(g.state, p, shooter, "thread", g.tick()).reason


def test_parsing_and_intake():
    for text in ("**ASSASSINATE: bob, carol**", "**ASSASSINATE: bob and carol**", "**shoot bob carol**",
                 "**ASSASSINATE: bob,carol.**"):
        p = parse_comment(text)[0]
        assert (p.verb, p.names) == ("assassinate", ("bob", "carol")), text
    p = parse_comment("**ASSASSINATE: bob**")[0]
    assert (p.verb, p.names) == ("assassinate", ("bob",))
    g = game()
    shooter = to_the_assassination(g)
    t, i = lovers(g.state)
    cmd = command_for(g.state, parse_comment(f"**ASSASSINATE: {t}, {i[:3]}**")[0], shooter, "thread", g.tick())
    assert cmd == ShootLovers(g.at, shooter, (t, i))
    bad = command_for(g.state, parse_comment(f"**ASSASSINATE: {t}, zed**")[0], shooter, "thread", g.at)
    assert isinstance(bad, Refusal) and "'zed' is not a player" in bad.reason


SEVEN = "preset: avalon\nplayers: [a1, b2, c3, d4, e5, f6, g7]\n"


@pytest.mark.parametrize("text, problem", [
    (SEVEN + "roles: [tristan]\n", "roles: Tristan and Isolde play together: list both or neither"),
    (SEVEN + "roles: [isolde, percival]\n", "roles: Tristan and Isolde play together: list both or neither"),
    ("preset: avalon\nplayers: [a1, b2, c3, d4, e5, f6]\nroles: [tristan, isolde]\n",
     "roles: Tristan and Isolde need 7 players or more; the game has 6"),
    ("preset: avalon\nplayers: [a1, b2, c3, d4, e5]\nroles: [tristan, isolde]\n",
     "roles: Tristan and Isolde need 7 players or more; the game has 5"),
    ("preset: avalon\nplayers: signup\nmin_players: 5\nroles: [tristan, isolde]\n",
     "roles: Tristan and Isolde need 7 players or more; the sign-ups allow 5"),
    ("preset: resistance\nplayers: [a1, b2, c3, d4, e5, f6, g7]\nroles: [tristan, isolde]\n",
     "roles: does not belong to the resistance preset"),
])
def test_the_config_refuses(text, problem):
    cfg, problems = parse_config(text, host="h")
    assert cfg is None and problem in [str(p) for p in problems], problems


def test_the_config_takes_both_lovers():
    cfg, problems = parse_config(SEVEN + "roles: [tristan, isolde, percival, morgana]\n", host="h")
    assert not problems and cfg.roles == ("isolde", "morgana", "percival", "tristan")
    cfg, problems = parse_config("preset: avalon\nplayers: signup\nmin_players: 7\nroles: [tristan, isolde]\n",
                                 host="h")
    assert not problems


@pytest.mark.parametrize("n", range(7, 11))
def test_random_play_with_the_lovers(n):
    shots = 0
    for seed in range(30):
        roles = ("tristan", "isolde") + (("oberon",) if seed % 2 else ())
        cfg = make_config("avalon", NAMES[:n], leader_order="random", roles=roles,
                          plot_cards=seed % 3 == 0, lady_of_the_lake=seed % 2 == 0, excalibur=seed % 4 == 0)
        state, events, _ = play_out(cfg, seed, random.Random(seed), T0)
        assert not state.running or state.phase == "assassination", (n, seed, state.phase)
        assert replay(cfg, seed, events) == state
        for e in events:
            if e.type == SHOT:
                shots += 1
                hit = set(e.data["targets"]) == set(lovers(state))
                assert e.data["hit"] == hit and state.winner == ("spies" if hit else "resistance")
    assert shots >= 1


def test_the_texts():
    from forumbot.render import render_events
    from forumbot.render.markup import markup_for
    from forumbot.render.modules.lovers import _your_lover

    g = game()
    t, i = lovers(g.state)
    m = markup_for("markdown")
    assert f"Your lover: **{i}**" in _your_lover(g.state, t, m)
    assert f"Your lover: **{t}**" in _your_lover(g.state, i, m)
    assert _your_lover(g.state, next(n for n in g.state.names if n not in (t, i)), m) is None
    shooter = to_the_assassination(g)
    opened = [e for e in g.log if e.type == "assassination_opened"]
    pms = [x for x in render_events(g.state, opened, "G1") if x.to == shooter]
    assert any("**ASSASSINATE: name, name**" in x.body for x in pms)
    before = len(g.log)
    g.do(ShootLovers(g.tick(), shooter, (t, i)))
    public = "\n".join(x.body for x in render_events(g.state, g.log[before:], "G1") if x.to is None)
    assert f"names **{t}** and **{i}** as Tristan and Isolde and finds the lovers" in public
