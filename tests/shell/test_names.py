"""Names that end in `_` or `-` (a legal last character of a Reddit username) or hold a
double underscore: the exact name wins over one with its last character dropped, in the
parser, in bold commands and PMs, and through whole games (PROPOSE, ASSASSINATE, REPLACE)."""
import pytest

from forumbot.parsing import NameProblem, clean_name, parse_comment, parse_pm, resolve_name

PLAYERS = ["alice", "bob", "bob_", "carol", "dave", "dave-"]


@pytest.mark.parametrize("raw,expected", [
    ("bob_", "bob_"), ("BOB_", "bob_"), ("u/bob_", "bob_"), ("/u/bob_", "bob_"), ("@bob_", "bob_"),
    ("bob\\_", "bob_"),  # Reddit's editor escapes the underscore
    ("bob_.", "bob_"), ("bob_,", "bob_"), ("(u/bob_)", "bob_"), ("*bob_*", "bob_"),
    ("bob", "bob"), ("u/bob", "bob"), ("@Bob", "bob"), ("bob,", "bob"), ("bob.", "bob"),
    ("dave-", "dave-"), ("@dave-", "dave-"), ("u/dave-!", "dave-"), ("dave", "dave"), ("dave.", "dave"),
])
def test_an_exact_name_wins_over_one_with_its_last_character_dropped(raw, expected):
    assert resolve_name(raw, PLAYERS) == expected


def test_the_old_conveniences_still_hold_when_no_name_matches_exactly():
    names = ["alice", "bob", "carol"]
    assert resolve_name("bob_", names) == "bob"  # no player bob_: the underscore is markup
    assert resolve_name("_bob_", names) == "bob"
    assert resolve_name("bob.", names) == "bob" and resolve_name("u/bob!", names) == "bob"
    assert resolve_name("car", names) == "carol"
    assert resolve_name("al", names, {"al": "alice"}) == "alice"
    assert isinstance(resolve_name("zed_", names), NameProblem)
    assert isinstance(resolve_name("u/", names), NameProblem)


def test_bold_commands_name_bob_underscore():
    (cmd,) = parse_comment("**ASSASSINATE: bob_**")
    assert [resolve_name(n, PLAYERS) for n in cmd.names] == ["bob_"]
    (cmd,) = parse_comment("**PROPOSE: bob_, @bob, u/dave-**")
    assert [resolve_name(n, PLAYERS) for n in cmd.names] == ["bob_", "bob", "dave-"]
    (cmd,) = parse_pm("ASSASSINATE: @bob_")
    assert resolve_name(cmd.names[0], PLAYERS) == "bob_"


def test_a_pm_keeps_a_double_underscore_that_belongs_to_a_name():
    (cmd,) = parse_pm("ASSASSINATE: bob__")
    assert cmd.names == ("bob__",)
    (cmd,) = parse_pm("**LADY: a__b**")
    assert cmd.names == ("a__b",)
    (cmd,) = parse_pm("__APPROVE__")  # __bold__ around a whole command still reads as bold
    assert (cmd.verb, cmd.choice) == ("vote", "approve")


def test_clean_name_keeps_a_legal_last_underscore_or_dash():
    assert clean_name("zed_") == "zed_" and clean_name("u/zed_") == "zed_"
    assert clean_name("@zed-") == "zed-" and clean_name("zed_.") == "zed_"
    assert clean_name("zed.") == "zed" and clean_name(" **u/Zed** ") == "Zed"


def _table(bot, players, **kw):
    return bot("local").table(players, **kw)


def test_propose_in_a_game_names_bob_underscore(db, bot):
    t = _table(bot, ["alice", "bob", "bob_", "carol", "dave"])
    assert t.state.leader == "alice"
    t.say("alice", "**PROPOSE: bob_, u/bob**")
    t.cycle()
    assert t.state.phase == "team_vote" and list(t.state.team) == ["bob_", "bob"]


def test_assassinate_bob_underscore_hits_bob_underscore(db, bot):
    # seed 2: bob_ is Merlin, bob a servant, dave the Assassin
    t = _table(bot, ["alice", "bob", "bob_", "carol", "dave"], preset="avalon", seed=2,
               extra="plot_cards: false\n")
    roles = {p["name"]: p["role"] for p in t.export()["players"]}
    assert (roles["bob_"], roles["bob"], roles["dave"]) == ("merlin", "servant", "assassin")
    for _ in range(3):  # three successes: the teams name bob and bob_ side by side
        t.mission()
    assert t.state.phase == "assassination"
    t.say("dave", "**ASSASSINATE: bob_**")
    t.cycle()
    e = t.export()
    assert (e["winner"], e["win_reason"]) == ("spies", "assassination")


def test_replace_keeps_a_newcomer_named_with_a_last_underscore(db, bot):
    t = _table(bot, ["alice", "bob", "carol", "dave", "erin"])
    t.people.pm("host", "replace", f"REPLACE {t.game.tag} bob WITH zed_")
    t.cycle()
    assert "zed_" in t.state.names and "zed" not in t.state.names
