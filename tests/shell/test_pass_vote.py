"""PASS during a team vote, with no card window open for the player (issue 24, item 3): an
abstention (an APPROVE in avalon-2020), and its confirmation says so in words, by PM, whether
it was written in the thread or by PM, so that a player who meant APPROVE sees it at once."""
import pytest

from tests.fakes.table import NAMES


@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_pass_in_a_team_vote_is_an_abstention_and_the_answer_says_so(table):
    t = table()
    t.propose()
    before = {n: len(t.people.pms_to(n)) for n in ("dave", "erin")}
    t.say("dave", "**PASS**")
    t.pm("erin", "PASS")
    t.cycle()
    assert t.state.votes.get("dave") == "abstain" and t.state.votes.get("erin") == "abstain"
    for who in ("dave", "erin"):
        new = t.people.pms_to(who)[before[who]:]
        assert len(new) == 1, new
        assert "PASS, in a team vote with no card waiting for your answer, is an abstention" in new[0]
        assert "your vote **ABSTAIN** is recorded: it counts neither for nor against the team" in new[0]
        assert "If you meant another vote, send **APPROVE** or **REJECT** before the vote closes" in new[0]


def test_abstain_and_approve_are_acknowledged_as_before(local_game):
    t = local_game()
    t.propose()
    n = len(t.people.pms_to("dave"))
    t.say("dave", "**ABSTAIN**")  # a thread vote: no PM, as before
    t.pm("erin", "ABSTAIN")
    t.cycle()
    assert len(t.people.pms_to("dave")) == n
    assert t.people.pms_to("erin")[-1].startswith("G1: your vote **ABSTAIN** is recorded. You may change it")


def test_pass_in_avalon_2020_counts_as_approve_and_the_answer_says_so(db, clock):
    from adapters.local import LocalForum
    from tests.fakes.table import LocalPeople, Table

    forum = LocalForum(":memory:", clock=clock)
    t = Table(forum, LocalPeople(forum), clock, players=NAMES[:8]).start(preset="avalon-2020",
                                                                               extra="plot_cards: false\n")
    t.propose()
    voter = next(n for n in NAMES[:8] if t.state.seat_of(n).id not in t.state.team)
    t.pm(voter, "PASS")
    t.cycle()
    said = t.people.pms_to(voter)[-1]
    assert "in this game an abstention counts as APPROVE, so your vote is recorded as **APPROVE**" in said
    t.vote_all(False, skip=(voter,))
    t.clock.advance(hours=12, minutes=1)  # (avalon-2020's votes close 12 hours after the proposal)
    t.cycle()
    closed = next(b for b in reversed(t.people.thread(t.game.thread)) if "is closed" in b)
    assert f"| {voter} | APPROVE |" in closed
