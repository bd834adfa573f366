"""The plug-in seams for roles and the archive (issue 23): a rule module declares its roles
(side, what each sees, whether every game deals it) and registers its part of the archive
page; the deal, the sides, the knowledge, the config's checks and the page read those, and
roles.py, gameconfig.py and archive/'s core name no module."""
import ast
from pathlib import Path

import pytest

from forumbot.archive import story
from forumbot.gameconfig import parse_config
from forumbot.render import registry
from forumbot.rules import make_config, replay, start
from forumbot.rules.modules.assassin import Assassination
from forumbot.rules.modules.lady import LadyUsed
from forumbot.rules.modules.lovers import TristanAndIsolde
from forumbot.rules.plugin import Role, Sight
from forumbot.rules.roles import FELLOW_SPIES, always_dealt, declared, role_set, side_of
from forumbot.rules.state import RESISTANCE, SPIES
from tests.support.pure import NAMES, T0

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def lancelot(monkeypatch):
    """A module's new evil role that sees its fellow spies, and a loyal one who sees it as an
    enemy: declared on a plug-in, nothing else changed."""
    monkeypatch.setattr(TristanAndIsolde, "roles", (
        *TristanAndIsolde.roles,
        Role("lancelot", SPIES, (FELLOW_SPIES,)),
        Role("galahad", RESISTANCE, (Sight("enemy", roles=frozenset({"lancelot"})),)),
    ))


def test_the_modules_declare_their_roles():
    roles = declared()
    assert roles["assassin"].side == SPIES and roles["assassin"].always
    assert roles["tristan"].side == roles["isolde"].side == RESISTANCE
    assert [r.name for r in always_dealt()] == ["merlin", "assassin"]
    assert [r.name for r in always_dealt(make_config("avalon", NAMES[:5]))] == ["merlin", "assassin"]
    assert Role("assassin", SPIES, (FELLOW_SPIES,), always=True) in Assassination.roles


def test_a_declared_role_is_dealt_on_its_side_and_sees_as_declared(lancelot):
    assert side_of("lancelot") == SPIES and side_of("galahad") == RESISTANCE
    cfg = make_config("avalon", NAMES[:7], roles=("lancelot", "galahad", "percival"), plot_cards=False)
    good, evil = role_set(cfg).roster(cfg, 7)
    assert good == ["merlin", "percival", "galahad", "servant"]  # the core's first, then the modules' by name
    assert evil == ["assassin", "lancelot", "minion"]
    for seed in range(5):
        state = replay(cfg, seed, start(cfg, seed, T0))
        by_role = {s.role: s for s in state.seats}
        assert by_role["lancelot"].side == SPIES
        knows = {s.role: {k.name: k.label for k in role_set(cfg).knowledge(state, s.id)} for s in state.seats}
        lancelot_, assassin = by_role["lancelot"].id, by_role["assassin"].id
        assert knows["lancelot"] == {assassin: "minion", by_role["minion"].id: "minion"}
        assert knows["assassin"][lancelot_] == "minion"
        assert knows["merlin"][lancelot_] == "minion"  # Merlin sees every spy but Mordred
        assert knows["galahad"] == {lancelot_: "enemy"}
        assert knows["percival"] == {by_role["merlin"].id: "merlin"}


def test_the_config_takes_a_declared_role_and_counts_it_on_its_side(lancelot):
    five = "preset: avalon\nplayers: [a1, b1, c1, d1, e1]\nplot_cards: false\n"
    cfg, problems = parse_config(five + "roles: [lancelot]\n", host="h")
    assert not problems and cfg is not None and cfg.roles == ("lancelot",)
    _, problems = parse_config(five + "roles: [lancelot, morgana]\n", host="h")
    assert [str(p) for p in problems] == [
        "roles: 3 special spies (the Assassin included) do not fit: 5 players have 2 spies"]
    cfg, problems = parse_config(five + "roles: [galahad, merlin, assassin, morgana]\n", host="h")
    assert not problems and cfg is not None and cfg.roles == ("galahad", "morgana")


def test_a_module_tells_its_moments_on_the_archive_page(monkeypatch):
    registry.load()
    assert LadyUsed.type in registry.MOMENTS
    e = LadyUsed(at=T0, holder="s1", target="s2", side=SPIES)
    cfg = make_config("avalon", NAMES[:7], lady_of_the_lake=True, plot_cards=False)
    state = replay(cfg, 1, start(cfg, 1, T0))
    told = story._moment(state, e, False, None)
    assert told is not None and told["kind"] == "Lady of the Lake"
    monkeypatch.setitem(registry.MOMENTS, LadyUsed.type, lambda state, e, reveal, name: {"text": name(e.target)})
    assert story._moment(state, e, False, None) == {"text": state.shown("s2")}


def test_two_modules_may_not_tell_one_event():
    with pytest.raises(ValueError, match="two moments"):
        registry.moment(LadyUsed)(lambda state, e, reveal, name: None)


@pytest.mark.parametrize("path", ["forumbot/rules/roles.py", "forumbot/gameconfig.py",
                                  "forumbot/archive/story.py", "forumbot/archive/page.py"])
def test_the_core_imports_no_rule_module(path):
    tree = ast.parse((ROOT / path).read_text())
    imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names]
    assert not [m for m in imported if "modules" in m.split(".")], imported
