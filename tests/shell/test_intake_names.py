"""Intake with teeth (issue 22): what a typed command means once its names are read, through
whole cycles on the local forum. A name that names no one, or several, is refused with the
exact words (and nothing changes); a module's command in a game without the module is named
as such; a name typed in another form (a prefix, an alias, a left player's) names its seat."""
from __future__ import annotations

import pytest

from tests.fakes.table import Table

PLAYERS = ["alice", "alina", "bob", "carol", "dave"]  # `ali` could be alice or alina
RIGHT_FORM = " The right form: **PROPOSE: name, name**"


@pytest.fixture
def table(db, bot, clock) -> Table:
    t = bot("local").table(PLAYERS, extra="aliases: {al: alina}\n")
    assert t.state.phase == "proposal" and t.state.shown(t.state.leader) == "alice"
    return t


def answers(t, said: list[tuple[str, str]]) -> list[str]:
    """Each (author, comment) in the thread, one cycle each (past the reply window, so no
    answer is held back): the bot's answers in the thread, in order."""
    out = []
    for author, body in said:
        posts = len(t.people.thread(t.game.thread))
        t.say(author, body)
        t.cycle()
        out += t.people.thread(t.game.thread)[posts + 1:]
        t.clock.advance(seconds=601)
    return out


def test_a_name_that_names_no_one_or_several_is_refused_in_every_command(table):
    t = table
    events = t.export()["events"]
    said = answers(t, [
        ("alice", "**PROPOSE: ali, bob**"),
        ("alice", "**PROPOSE: alice, zed**"),
        ("alice", "**PROPOSE: alice, bob; PUBLIC: ali**"),
        ("alice", "**PROPOSE: alice, bob; PUBLIC: zed**"),
        ("bob", "**GIVE: Strong Leader -> zed**"),
        ("bob", "**TAKE: Strong Leader FROM ali**"),
        ("carol", "**PLAY: Strong Leader -> ali**"),
        ("carol", "**PROXY: zed APPROVE**"),
        ("dave", "**CHOOSE: ali**"),
        ("dave", "**ASSASSINATE: zed**"),
        ("alina", "**SHOOT: ali**"),
    ])
    ambiguous = "'ali' could be alice, alina: write more of the name. Nothing was changed."
    nobody = "'zed' is not a player in this game. Nothing was changed."
    assert said == [
        f"@alice: {ambiguous}{RIGHT_FORM}", f"@alice: {nobody}{RIGHT_FORM}",
        f"@alice: {ambiguous}", f"@alice: {nobody}",
        f"@bob: {nobody}", f"@bob: {ambiguous}",
        f"@carol: {ambiguous}", f"@carol: {nobody}",
        f"@dave: {ambiguous}", f"@dave: {nobody}",
        f"@alina: {ambiguous}",
    ]
    assert t.export()["events"] == events and t.state.phase == "proposal"


def test_what_no_module_of_the_game_reads_is_named_as_not_part_of_it(table):
    t = table
    events = t.export()["events"]
    said = answers(t, [
        ("alice", "**PROPOSE: alice, bob; EXCALIBUR: bob**"),
        ("bob", "**EXCALIBUR: carol**"),
        ("carol", "**PLAY: Strong Leader**"),
        ("dave", "**JOIN**"),
    ])
    title = "The Resistance (official base game)"
    assert said == [
        f"@alice: PROPOSE: alice, bob; EXCALIBUR: bob is not part of this game ({title}).",
        f"@bob: EXCALIBUR: carol is not part of this game ({title}).",
        f"@carol: G1: PLAY is not part of this game ({title}).",
        "@dave: JOIN is not available in this game.",
    ]
    assert t.export()["events"] == events and t.state.phase == "proposal"


def test_a_prefix_an_alias_and_a_prefixed_name_each_name_their_seat(table):
    t = table
    said = answers(t, [("alice", "**PROPOSE: @Alic, al; PUBLIC: u/BOB**")])  # no PUBLIC on mission 1
    assert said == ["@alice: G1: PUBLIC: is not part of mission 1 in this game. "
                    "The right form: **PROPOSE: alice, alina**"]
    assert t.state.phase == "proposal"
    t.say("alice", '**PROPOSE: "@Alic", (al)**')  # a prefix, and the host's alias, in quotes and brackets
    t.cycle()
    s = t.state
    assert s.phase == "team_vote" and list(s.team) == ["alice", "alina"]
    said = answers(t, [("carol", "**CRITICAL APPROVE**")])
    assert said == ["@carol: G1: Critical votes are not part of this game. The right form: **APPROVE** or **REJECT**"]
    t.pm("dave", "PASS")  # no card to pass on: an abstention
    t.pm("bob", "APPROVE")
    t.cycle()
    assert t.state.votes == {"bob": "approve", "dave": "abstain"}


def test_a_module_names_its_holder_as_the_core_names_a_team(db, clock):
    """Excalibur's holder is a typed name like a team's: no one's is refused, with the words."""
    from tests.fakes.table import excalibur_table

    t = excalibur_table(db, clock)
    s = t.state
    leader, team = s.shown(s.leader), t.default_team()
    events = t.export()["events"]
    said = answers(t, [(leader, f"**PROPOSE: {', '.join(team)}; EXCALIBUR: zed**")])
    assert said == [f"@{leader}: 'zed' is not a player in this game. Nothing was changed."]
    assert t.export()["events"] == events and t.state.phase == "proposal"
