""""Did you mean", never silence (issue 24, item 2), for what issue 21's finder did not read: a
command written without bold during an open vote (plain, colour, italics, a heading: a line
of its own), and the host's own words (`words:`) and their near misses. One private answer a
player a phase; never a change to the game; the same words whatever the player's side."""
import pytest

WORDS = 'words: {approve: [yay, "vote in favor"], reject: [nay]}\n'


def at_vote(t):
    t.propose()
    assert t.state.phase == "team_vote"


@pytest.mark.parametrize("text, meant", [
    ("APPROVE", "APPROVE"),
    ("*Reject*", "REJECT"),
    ("[color=red]APPROVE[/color]", "APPROVE"),
    ("<i>reject</i>", "REJECT"),
    ("Approve.\n\nlow info, first round", "APPROVE"),
])
@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_a_vote_not_in_bold_gets_one_private_answer(table, text, meant, request):
    if request.node.callspec.params["table"] == "discourse" and len(text) < 8:
        pytest.skip("Discourse refuses a post under 8 characters (its min_post_length)")
    t = table()
    at_vote(t)
    before = t.export()["events"]
    n = len(t.people.pms_to("dave"))
    t.say("dave", text)
    t.cycle()
    assert "dave" not in t.state.votes and t.export()["events"] == before
    new = t.people.pms_to("dave")[n:]
    assert len(new) == 1, new
    assert f"did you mean **{meant}**?" in new[0] and "only bold text counts" in new[0]
    assert f"Write **{meant}** in a comment in the thread" in new[0]


def test_talk_that_holds_a_command_word_in_a_sentence_gets_nothing(table):
    t = table()
    at_vote(t)
    n = len(t.people.pms_to("dave"))
    t.say("dave", "I would approve this if carol weren't on it.\n\napprove or reject, can't decide")
    t.say("dave", "*sigh*\n\n> APPROVE\n\nthat's what bob wrote")
    t.cycle()
    assert len(t.people.pms_to("dave")) == n


def test_no_answer_for_a_plain_command_word_outside_an_open_vote(local_game):
    t = local_game()
    leader = t.state.shown(t.state.leader)
    voter = next(n for n in t.players if n != leader)
    n = len(t.people.pms_to(voter))
    t.say(voter, "APPROVE")  # a proposal is open: no vote to cast
    t.cycle()
    assert len(t.people.pms_to(voter)) == n


def test_the_hosts_words_and_their_near_misses(local_game):
    t = local_game(extra=WORDS)
    at_vote(t)
    t.say("dave", "**Vote in favour**")
    t.say("erin", "yay")
    t.say("carol", "**I vote nay**")
    t.cycle()
    assert not t.state.votes
    assert "did you mean **vote in favor**?" in t.people.pms_to("dave")[-1]
    assert "did you mean **APPROVE**?" in t.people.pms_to("erin")[-1]
    assert "did you mean **nay**?" in t.people.pms_to("carol")[-1]
    t.say("dave", "**vote in favor**")
    t.cycle()
    assert t.state.votes == {"dave": "approve"}


def test_the_answer_to_an_order_almost_written_is_the_same_for_either_side(local_game):
    t = local_game(n=7)
    s = t.state
    spy = t.spies()[0]
    loyal = next(x.name for x in s.active() if x.name not in t.spies())
    t.propose([spy, loyal])
    t.vote_all(True)
    assert t.state.phase == "mission"
    team = [t.state.shown(x) for x in t.state.team]
    assert len({t.state.seat_of(n).side for n in team}) == 2
    answers = {}
    for who in team:
        n = len(t.people.pms_to(who))
        t.pm(who, "SABOTAJE")
        t.cycle()
        new = t.people.pms_to(who)[n:]
        assert len(new) == 1, new
        answers[who] = new[0]
    assert len(set(answers.values())) == 1, answers  # nothing in it tells a side
    assert not t.state.orders
    assert s.mission == t.state.mission
