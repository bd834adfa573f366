"""Intake (forumbot/shell/intake.py): parsed text -> the rules' command, or why not. Pure: a state,
a Parsed, the seat, the channel and the time."""
from forumbot.parsing import parse_comment, parse_pm
from forumbot.render import render_refusal
from forumbot.rules import MissionOrder, Propose, TeamVote
from forumbot.rules.commands import Choose, GiveCard, PassCard, PlayCard, ProxyVote, TakeCard
from forumbot.rules.modules.assassin import Assassinate
from forumbot.shell.intake import command_for
from tests.support.pure import Game


def test_the_core_commands():
    g = Game(7, preset="avalon", aliases={"al": "alice"})
    s, at = g.state, g.tick()
    leader = s.leader
    assert command_for(s, parse_comment("**PROPOSE: al, bob**")[0], leader, "thread", at) == \
        Propose(at, leader, ("alice", "bob"))
    assert command_for(s, parse_comment("**PROPOSE: alice, bob; PUBLIC: bob**")[0], leader, "thread", at) == \
        Propose(at, leader, ("alice", "bob"), public="bob")
    bad = command_for(s, parse_comment("**PROPOSE: alice, zed**")[0], leader, "thread", at)
    assert render_refusal(bad, None) == \
        "'zed' is not a player in this game. Nothing was changed. The right form: **PROPOSE: name, name**"
    assert command_for(s, parse_pm("APPROVE")[0], "bob", "pm", at) == TeamVote(at, "bob", "approve", "pm")
    assert command_for(s, parse_pm("PASS")[0], "bob", "pm", at) == TeamVote(at, "bob", "abstain", "pm", passed=True)
    assert command_for(s, parse_pm("SABOTAGE")[0], "bob", "pm", at) == MissionOrder(at, "bob", "sabotage", "pm")
    assert command_for(s, parse_comment("**ASSASSINATE: carol**")[0], "bob", "thread", at) == Assassinate(at, "bob", "carol")
    assert command_for(s, parse_comment("**GIVE: Strong Leader -> carol**")[0], "bob", "thread", at) == \
        GiveCard(at, "bob", "Strong Leader", "carol")
    assert command_for(s, parse_comment("**TAKE: Strong Leader FROM carol**")[0], "bob", "thread", at) == \
        TakeCard(at, "bob", "Strong Leader", "carol")
    assert command_for(s, parse_comment("**PLAY: Prepare for the Future -> Badge**")[0], "bob", "thread", at) == \
        PlayCard(at, "bob", "Prepare for the Future", "Badge")  # a card, not a name: the card decides
    assert command_for(s, parse_comment("**PLAY: Chicago Proxy -> carol REJECT**")[0], "bob", "thread", at) == \
        PlayCard(at, "bob", "Chicago Proxy", "carol", "reject")  # the vote it casts for carol goes with it
    assert command_for(s, parse_comment("**PROXY: carol APPROVE**")[0], "bob", "thread", at) == \
        ProxyVote(at, "bob", "carol", "approve")
    assert command_for(s, parse_pm("CHOOSE: carol")[0], "bob", "pm", at) == Choose(at, "bob", "carol", "pm")
    join = command_for(s, parse_comment("**JOIN**")[0], "bob", "thread", at)
    assert render_refusal(join, None) == "JOIN is not available in this game."


def test_pass_on_a_card_window_is_a_pass(monkeypatch):
    from tests.support.plot import give, orders, propose, rig, vote_pm

    rig(monkeypatch, ["strong-leader", "opinion-maker"])
    g = Game(8, preset="resistance-plot", plot_cards=True)
    holder = g.state.names[3]
    give(g, "strong", holder)
    give(g, "opinion", g.state.names[4])
    propose(g)
    vote_pm(g)
    orders(g)
    assert g.state.phase == "card_window" and g.state.actors == [holder]
    assert command_for(g.state, parse_pm("PASS")[0], holder, "pm", g.tick()) == PassCard(g.at, holder)
    other = g.state.names[5]  # no card waiting: PASS is an abstention
    assert command_for(g.state, parse_pm("PASS")[0], other, "pm", g.at) == TeamVote(g.at, other, "abstain", "pm", passed=True)
