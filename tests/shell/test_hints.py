"""Votes never dropped in silence (issue 21 item 10): a spoiler is not a quote, and a bold
span that is almost a command gets one private "did you mean" answer a phase, through
the cycle, on the local forum and the fake Reddit. (The finder itself:
tests/sweeps/test_hints_corpus.py.)"""
import pytest

from forumbot import store


def at_vote(t):
    t.propose()
    assert t.state.phase == "team_vote"


def pms(t, who):
    return t.people.pms_to(who)


def test_a_vote_in_a_reddit_spoiler_counts(table):
    t = table()
    at_vote(t)
    t.say("dave", ">!**APPROVE**!<")
    t.say("erin", "my vote, hidden:\n\n>! **REJECT** !<")
    t.cycle()
    assert t.state.votes.get("dave") == "approve"
    assert t.state.votes.get("erin") == "reject"


def test_a_quoted_spoiler_is_still_a_quote(table):
    t = table()
    at_vote(t)
    t.say("dave", "> >!**APPROVE**!<\n\nthat is what bob wrote")
    t.say("erin", ">!**REJECT**")  # no closing !<: a quote starting with "!"
    t.cycle()
    assert "dave" not in t.state.votes and "erin" not in t.state.votes


@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_a_cyrillic_vote_is_not_counted_and_gets_one_private_hint(table):
    t = table()
    at_vote(t)
    before = pms(t, "dave")
    thread_before = t.people.thread(t.game.thread)
    t.say("dave", "**\u0410\u0420\u0420ROVE**")  # А, Р, Р: Cyrillic
    t.cycle()
    assert "dave" not in t.state.votes
    new = pms(t, "dave")[len(before):]
    assert len(new) == 1, new
    assert "did you mean **APPROVE**" in new[0] and "not counted" in new[0] and "plain letters" in new[0]
    assert "\u0410" not in new[0]  # what was typed is not repeated
    assert t.people.thread(t.game.thread)[len(thread_before):] == ["**\u0410\u0420\u0420ROVE**"]  # private
    t.say("dave", "**APROVE**")  # a second near miss in the same phase: no second hint
    t.cycle()
    assert pms(t, "dave")[len(before):] == new
    assert "dave" not in t.state.votes
    t.say("dave", "**APPROVE**")
    t.cycle()
    assert t.state.votes.get("dave") == "approve"


def test_the_hint_is_once_a_phase_even_after_a_restart(local_game):
    t = local_game()
    at_vote(t)
    t.say("dave", "**APROVE**")
    t.cycle()
    assert len(pms(t, "dave")) and "did you mean **APPROVE**" in pms(t, "dave")[-1]
    n = len(pms(t, "dave"))
    t.say("dave", "**I vote approve**")
    t.cycle(fresh=True)  # a new process
    assert len(pms(t, "dave")) == n
    t.vote_all(False)  # rejected: a new proposal, then a new vote (a new phase)
    t.propose()
    t.say("dave", "**Aprove**")
    t.cycle()
    assert len(pms(t, "dave")) == n + 1


def test_plain_bold_talk_gets_nothing(table):
    t = table()
    at_vote(t)
    before = {n: len(pms(t, n)) for n in ("alice", "bob", "dave")}
    said = len(t.people.thread(t.game.thread))
    t.say("dave", "**this is sus**")
    t.say("bob", "**I think bob is a spy**")
    t.say("alice", "**lol** ok then")
    t.cycle()
    assert {n: len(pms(t, n)) for n in before} == before
    assert len(t.people.thread(t.game.thread)) == said + 3  # the three comments, no answer
    assert not t.state.votes


def test_the_leaders_bold_list_of_names_gets_the_propose_form(local_game):
    t = local_game()
    leader = t.state.shown(t.state.leader)
    size = t.state.team_size()
    team = [n for n in t.players if n != leader][:size]
    t.say(leader, "**" + " and ".join(team) + "**")
    t.cycle()
    assert t.state.phase == "proposal"  # not taken for a proposal: never a guess
    assert f"**PROPOSE: {', '.join(team)}**" in pms(t, leader)[-1]


def test_an_order_almost_written_in_a_pm_gets_the_hint_and_counts_nothing(local_game):
    t = local_game()
    team = t.propose()
    t.vote_all(True)
    assert t.state.phase == "mission"
    who = team[0]
    n = len(pms(t, who))
    t.pm(who, "SABOTAJE")
    t.cycle()
    new = pms(t, who)[n:]
    assert len(new) == 1 and "did you mean **SABOTAGE**" in new[0], new
    assert "no command" not in new[0]
    assert not t.state.orders
    t.pm(who, "SUPORT")  # the second near miss in the phase: nothing more
    t.cycle()
    assert len(pms(t, who)) == n + 1
    assert store.Inbound.select().where(store.Inbound.state != "done").count() == 0


def test_a_pm_with_no_command_from_a_player_is_still_pointed_to_help(local_game):
    t = local_game()
    at_vote(t)
    n = len(pms(t, "dave"))
    t.pm("dave", "what is going on in this game?")
    t.cycle()
    new = pms(t, "dave")[n:]
    assert len(new) == 1 and "no command" in new[0]


# --- what issue 22's mutants of parsing.py showed no test caught -----------------------------

def test_a_vote_quoted_inside_a_quote_is_not_the_quoters(table):
    t = table()
    at_vote(t)
    t.say("dave", "[quote=erin][quote=bob]hm[/quote]**APPROVE**[/quote]\n\nerin said that, not me")
    t.cycle()
    assert "dave" not in t.state.votes


def test_a_tag_among_the_names_of_a_team_is_refused_not_dropped(local_game):
    t = local_game()
    s = t.state
    leader = s.shown(s.leader)
    team = [n for n in t.players if n != leader][:s.team_size()]
    t.say(leader, f"**PROPOSE: {', '.join(team)} G1**")
    t.cycle()
    assert t.state.phase == "proposal" and not t.state.team  # refused: G1 is no player
    assert any("'G1' is not a player" in b for b in t.people.thread(t.game.thread) + pms(t, leader))


def test_a_host_command_in_the_thread_is_answered_by_pm_and_changes_nothing(local_game):
    t = local_game()
    at_vote(t)
    before = t.export()["events"]
    t.say("host", "**CLOSE G1**")
    t.say("dave", "**CLOSE G1**")
    t.cycle()
    assert t.export()["events"] == before and t.state.phase == "team_vote"
    assert "host commands go by PM" in pms(t, "host")[-1] and "**CLOSE G1**" in pms(t, "host")[-1]
    assert "Only the host of G1 may use CLOSE" in pms(t, "dave")[-1]


def test_a_comment_counts_its_first_twenty_commands(local_game):
    t = local_game()
    at_vote(t)
    t.say("erin", "**APPROVE** " * 19 + "**REJECT** " + "**APPROVE** " * 5)
    t.cycle()
    assert t.state.votes.get("erin") == "reject"  # the 20th; the five after it are not read
