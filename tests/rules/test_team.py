"""A mission's team with teeth (issue 22): scripted games through the pure engine that assert
what the players are told word for word (every refusal of a proposal or a vote, its hint and
whether it goes by PM), the events the log keeps (the proposal, each vote, the closed vote's
table: votes, defaults, critical votes, tallies, rejections) and what follows (the mission
opens, the leadership passes, five rejections end the game)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from forumbot.rules import Expire, Propose, Refusal, TeamVote, make_config
from forumbot.rules.commands import said
from forumbot.rules.plugin import RulePlugin
from tests.support.pure import NAMES
from tests.support.pure import PluginGame as Game

AR = said("APPROVE") + " or " + said("REJECT")


def closed_vote(**kw) -> dict:
    base = dict(mission=1, proposal=1, leader="alice", team=["alice", "bob"], critical=[], proxied={},
                not_voting=[])
    base.update(kw)
    return base


# --- proposals ---------------------------------------------------------------------


def test_every_proposal_refusal_word_for_word_and_nothing_logged():
    g = Game(5)
    before = list(g.log)
    hint = said("PROPOSE: alice, bob")
    assert g.propose(["alice", "bob"], author="bob") == Refusal("Only the leader, alice, may propose a team now.")
    assert g.propose(["alice", "alice"]) == Refusal("A player can be on the team only once.", hint)
    assert g.propose(["alice", "bob", "carol"]) == Refusal("Mission 1 needs a team of 2; you named 3.", hint)
    assert g.propose(["alice"]) == Refusal("Mission 1 needs a team of 2; you named 1.", hint)
    assert g.propose(["alice", "zed"]) == Refusal("zed is not a player in this game.", hint)
    assert g.propose(["alice", "bob"], public="bob") == Refusal("PUBLIC: is not part of mission 1 in this game.",
                                                                hint)
    assert g.log == before
    assert g.vote("alice", "approve") == Refusal(
        "No team vote is open now: the leader, alice, is choosing a team for mission 1.")
    assert g.order("alice", "support") == Refusal(
        "No mission is open now: the leader, alice, is choosing a team for mission 1.", private=True)
    assert g.log == before


def test_the_leader_may_revise_until_the_first_vote_then_it_stands():
    g = Game(5)
    assert g.new(Propose(g.tick(), "alice", ("alice", "bob"))) == [
        ("team_proposed", {"mission": 1, "proposal": 1, "leader": "alice", "team": ["alice", "bob"]})]
    # someone else: there is no team to propose (the vote is open)
    assert g.propose(["carol", "dave"], author="bob") == Refusal(
        "There is no team to propose now: the team for mission 1 is being voted on.")
    assert g.new(Propose(g.tick(), "alice", ("carol", "dave"))) == [
        ("team_proposed", {"mission": 1, "proposal": 1, "leader": "alice", "team": ["carol", "dave"],
                           "revised": True})]
    assert list(g.state.team) == ["carol", "dave"]
    assert g.new(TeamVote(g.tick(), "erin", "approve", "pm")) == [
        ("vote_cast", {"player": "erin", "vote": "approve", "via": "pm"})]
    assert g.propose(["alice", "bob"]) == Refusal("Votes have come in on your team, so it stands.")
    assert g.propose(["alice", "bob"], author="carol") == Refusal(
        "There is no team to propose now: the team for mission 1 is being voted on.")
    assert list(g.state.team) == ["carol", "dave"]


def test_a_disqualified_player_cannot_go_and_the_hint_names_active_players():
    g = Game(5, missed=make_config("resistance", NAMES[:5]).missed.__class__(
        team_vote="reject", mission="by-side", disqualify_after=1, orders_count=False))
    g.propose(["bob", "carol"])
    for n in ["bob", "carol", "dave", "erin"]:
        g.vote(n, "approve")
    g.expire()  # alice never voted: disqualified
    assert g.state.seat("alice").disqualified
    assert g.last("vote_closed") == closed_vote(
        team=["bob", "carol"], votes={"alice": "reject", "bob": "approve", "carol": "approve", "dave": "approve",
                                      "erin": "approve"},
        defaulted=["alice"], approve=4, reject=1, approved=True, rejections=0)
    for n in ["bob", "carol"]:
        g.order(n, "support")
    assert g.state.mission == 2 and g.state.leader == "bob"
    hint = said("PROPOSE: bob, carol, dave")
    assert g.propose(["alice", "bob", "carol"]) == Refusal(
        "alice is disqualified and cannot go on a mission.", hint)
    assert g.vote("alice", "approve") == Refusal(
        "No team vote is open now: the leader, bob, is choosing a team for mission 2.")
    g.propose(["bob", "carol", "dave"])
    assert g.vote("alice", "approve") == Refusal("You are disqualified: your vote takes the default.",
                                                 private=True)
    assert g.vote("mallory", "approve") == Refusal("Only the players of this game can vote.")
    # alice's seat is not waited for: the four votes close it at once
    for n in ["bob", "carol", "dave"]:
        g.vote(n, "reject")
    assert g.state.phase == "team_vote"
    g.vote("erin", "approve")
    assert g.last("vote_closed") == closed_vote(
        mission=2, leader="bob", team=["bob", "carol", "dave"],
        votes={"alice": "reject", "bob": "reject", "carol": "reject", "dave": "reject", "erin": "approve"},
        defaulted=["alice"], approve=1, reject=4, approved=False, rejections=1)
    assert g.state.phase == "proposal" and g.state.leader == "carol"


def test_the_hint_repeats_the_active_seats_when_fewer_than_the_team():
    """Four of five seats disqualified: the example team is the one active seat, twice."""
    missed = make_config("resistance", NAMES[:5]).missed.__class__(
        team_vote="reject", mission="by-side", disqualify_after=1, orders_count=False)
    g = Game(5, missed=missed)
    g.propose(["alice", "bob"])
    g.vote("erin", "approve")
    g.expire()
    assert [s.id for s in g.state.active()] == ["erin"]
    assert g.state.leader == "erin"
    assert g.propose(["erin"]) == Refusal("Mission 1 needs a team of 2; you named 1.",
                                          said("PROPOSE: erin, erin"))


def test_the_hint_shows_the_active_seats_at_most_twice():
    """The team approved by default as four of five seats are disqualified: mission 2 needs
    three, and the example team is the one active seat, twice."""
    missed = make_config("resistance", NAMES[:5]).missed.__class__(
        team_vote="approve", mission="by-side", disqualify_after=1, orders_count=False)
    g = Game(5, missed=missed)
    g.propose(["alice", "bob"])
    g.vote("erin", "approve")
    g.expire()
    assert g.last("mission_resolved")["defaulted"] == ["alice", "bob"]
    assert (g.state.mission, g.state.leader) == (2, "erin")
    assert g.propose(["erin"]) == Refusal("Mission 2 needs a team of 3; you named 1.",
                                          said("PROPOSE: erin, erin"))


# --- votes -------------------------------------------------------------------------


def test_a_vote_closes_when_the_last_one_is_in_with_its_whole_table():
    g = Game(6)
    g.propose(["alice", "bob"])
    assert g.new(TeamVote(g.tick(), "alice", "approve", "thread")) == [
        ("vote_cast", {"player": "alice", "vote": "approve", "via": "thread"})]
    g.vote("bob", "reject", via="pm")
    g.vote("carol", "abstain")
    g.vote("dave", "approve")
    g.vote("erin", "reject")
    events = g.new(TeamVote(g.tick(), "frank", "approve", "pm"))
    assert events[:2] == [
        ("vote_cast", {"player": "frank", "vote": "approve", "via": "pm"}),
        ("vote_closed", closed_vote(
            votes={"alice": "approve", "bob": "reject", "carol": "abstain", "dave": "approve",
                   "erin": "reject", "frank": "approve"},
            defaulted=[], approve=3, reject=2, approved=True, rejections=0))]
    assert events[2] == ("mission_opened", {"mission": 1, "leader": "alice", "team": ["alice", "bob"],
                                            "fails_needed": 1, "public": None})
    assert len(events) == 3 and g.state.phase == "mission"


def test_a_tie_rejects_and_five_rejections_end_the_game():
    g = Game(6)
    leaders = []
    for attempt in range(1, 6):
        leaders.append(g.state.leader)
        g.propose(["alice", "bob"])
        for i, n in enumerate(NAMES[:6]):
            g.vote(n, "approve" if i % 2 else "reject")
        assert g.last("vote_closed") == closed_vote(
            proposal=attempt, leader=leaders[-1],
            votes={n: "approve" if i % 2 else "reject" for i, n in enumerate(NAMES[:6])},
            defaulted=[], approve=3, reject=3, approved=False, rejections=attempt)
        if attempt < 5:
            assert (g.state.phase, g.state.leader, g.state.rejections) == ("proposal", NAMES[attempt], attempt)
    assert leaders == NAMES[:5]
    assert (g.state.winner, g.state.win_reason) == ("spies", "rejections")
    assert g.log[-1].type == "game_ended"


def test_four_rejections_then_an_approval_goes_on():
    g = Game(5)
    for _ in range(4):
        g.propose(["alice", "bob"])
        for n in NAMES[:5]:
            g.vote(n, "reject")
    assert g.state.running and g.state.rejections == 4 and g.state.leader == "erin"
    g.propose(["alice", "bob"])
    for n in NAMES[:5]:
        g.vote(n, "approve")
    assert g.last("vote_closed")["rejections"] == 4 and g.last("vote_closed")["approved"] is True
    assert g.state.phase == "mission"


def test_defaults_at_the_deadline_and_no_abstain_when_the_game_forbids_it():
    missed = make_config("resistance", NAMES[:5]).missed
    g = Game(5, missed=replace(missed, team_vote="approve", allow_abstain=False))
    g.propose(["alice", "bob"])
    assert g.vote("carol", "abstain") == Refusal(
        "This game does not allow ABSTAIN: vote APPROVE or REJECT.", AR)
    assert g.vote("carol", "approve", critical=True) == Refusal("Critical votes are not part of this game.", AR)
    g.vote("carol", "reject")
    g.vote("dave", "reject")
    g.expire()
    assert g.last("vote_closed") == closed_vote(
        votes={"alice": "approve", "bob": "approve", "carol": "reject", "dave": "reject", "erin": "approve"},
        defaulted=["alice", "bob", "erin"], approve=3, reject=2, approved=True, rejections=0)
    assert g.state.phase == "mission"


def test_an_explicit_abstain_counts_as_the_preset_says():
    """avalon-2020: an ABSTAIN is an APPROVE; a missing vote is the default (approve)."""
    g = Game(8, preset="avalon-2020")
    leader = g.state.leader
    team = [s.id for s in g.state.seats][:3]
    g.propose(team)
    g.vote("alice", "abstain")
    for n in NAMES[1:5]:
        g.vote(n, "reject")
    assert g.state.phase == "team_vote"  # close_early is off in this preset
    g.expire()
    assert g.last("vote_closed") == closed_vote(
        leader=leader, team=team,
        votes={"alice": "approve", "bob": "reject", "carol": "reject", "dave": "reject", "erin": "reject",
               "frank": "approve", "gina": "approve", "hank": "approve"},
        defaulted=["frank", "gina", "hank"], approve=4, reject=4, approved=False, rejections=1)


def test_a_plain_abstain_stays_an_abstain():
    g = Game(5)
    g.propose(["alice", "bob"])
    for n in NAMES[:4]:
        g.vote(n, "abstain")
    g.vote("erin", "reject")
    assert g.last("vote_closed")["votes"] == {"alice": "abstain", "bob": "abstain", "carol": "abstain",
                                              "dave": "abstain", "erin": "reject"}
    assert (g.last("vote_closed")["approve"], g.last("vote_closed")["reject"]) == (0, 1)


def test_close_early_off_waits_for_the_deadline():
    g = Game(5, deadlines=replace(make_config("resistance", NAMES[:5]).deadlines, close_early=False))
    g.propose(["alice", "bob"])
    for n in NAMES[:5]:
        g.vote(n, "approve")
    assert g.state.phase == "team_vote"
    g.expire()
    assert g.last("vote_closed")["approve"] == 5 and g.state.phase == "mission"


def test_close_grace_leaves_the_closing_to_the_clock():
    g = Game(5, deadlines=replace(make_config("resistance", NAMES[:5]).deadlines, close_grace=600))
    g.propose(["alice", "bob"])
    for n in NAMES[:5]:
        g.vote(n, "approve")
    assert g.state.phase == "team_vote"
    assert g.do(Expire(g.tick(), "", g.state.phase_id)) is not None
    assert g.state.phase == "mission"


# --- so say we all: PM-only mission 1, public order on mission 2, critical votes ------


def so_say(n=5):
    return Game(n, preset="so-say-we-all", seed=3)


def test_so_say_we_all_votes_public_orders_and_critical_votes():
    g = so_say()
    leader = g.state.leader
    team = [x for x in g.state.ids if x != leader][:2]
    g.propose(team)
    assert g.vote(team[0], "approve") == Refusal(
        "Team votes on mission 1 go by PM only. Your comment was not counted.",
        "PM the bot " + AR, private=True)
    assert g.vote(team[0], "abstain", via="pm", critical=True) == Refusal(
        "A Critical Vote is an APPROVE or a REJECT.", said("CRITICAL APPROVE"))
    assert g.new(TeamVote(g.tick(), team[0], "reject", "pm", True)) == [
        ("vote_cast", {"player": team[0], "vote": "reject", "via": "pm", "critical": True})]
    others = [x for x in g.state.ids if x != team[0]]
    for n in others[:-1]:
        g.vote(n, "approve", via="pm")
    g.vote(others[-1], "approve", via="pm", critical=True)
    v = g.last("vote_closed")
    assert v["critical"] == [x for x in g.state.ids if x in (team[0], others[-1])]
    # 4 approve (one of them critical: 5) against one critical reject (2)
    assert (v["approve"], v["reject"], v["approved"], v["rejections"]) == (5, 2, True, 0)
    assert v["votes"] == {**{n: "approve" for n in others}, team[0]: "reject"}
    assert g.state.phase == "mission"
    for n in team:
        g.order(n, "support")
    g.propose(g.state.ids[:3], public=g.state.ids[0])
    assert g.vote(team[0], "approve", critical=True) == Refusal("You have spent your Critical Vote already.", AR)
    assert g.new(TeamVote(g.tick(), g.state.ids[1], "reject", "thread", True)) == [
        ("vote_cast", {"player": g.state.ids[1], "vote": "reject", "via": "thread", "critical": True})]


def test_so_say_we_all_two_critical_rejects_outweigh_three_approves():
    g = so_say()
    ids = g.state.ids
    team = ids[:2]
    g.propose(team)
    g.vote(ids[0], "reject", via="pm", critical=True)
    g.vote(ids[1], "reject", via="pm", critical=True)
    for n in ids[2:]:
        g.vote(n, "approve", via="pm")
    v = g.last("vote_closed")
    assert (v["approve"], v["reject"], v["approved"], v["rejections"]) == (3, 4, False, 1)
    assert v["critical"] == ids[:2]


def test_so_say_we_all_a_defaulted_critical_vote_counts_once():
    """A critical vote is spent, but a seat whose vote was defaulted is not counted double."""
    g = so_say()
    ids = g.state.ids
    g.propose(ids[:2])
    g.vote(ids[0], "approve", via="pm", critical=True)
    g.vote(ids[1], "reject", via="pm")
    g.expire()
    v = g.last("vote_closed")
    assert v["critical"] == [ids[0]] and v["defaulted"] == ids[2:]
    assert (v["approve"], v["reject"]) == (2, 1)


def test_so_say_we_all_mission_two_names_a_public_order():
    g = so_say()
    ids = g.state.ids
    g.propose(ids[:2])
    for n in ids:
        g.vote(n, "approve", via="pm")
    for n in ids[:2]:
        g.order(n, "support")
    assert g.state.mission == 2
    leader = g.state.leader
    shown = [g.state.shown(x) for x in ids]
    team = ids[:3]
    pub_hint = said("PROPOSE: " + ", ".join(shown[:3]) + "; PUBLIC: " + shown[0])
    assert g.propose(team) == Refusal(
        "On mission 2 the leader names one team member who plays their order in the thread.", pub_hint)
    assert g.propose(team, public=ids[4]) == Refusal(f"{shown[4]} is not on the team you proposed.", pub_hint)
    assert g.new(Propose(g.tick(), leader, tuple(team), ids[1])) == [
        ("team_proposed", {"mission": 2, "proposal": 1, "leader": leader, "team": team, "public": ids[1]})]
    # mission 2 votes may go in the thread
    for n in ids:
        g.vote(n, "approve")
    opened = [e for e in g.log if e.type == "mission_opened"][-1].data
    assert opened == {"mission": 2, "leader": leader, "team": team, "fails_needed": 1, "public": ids[1]}


def test_a_pm_only_game_refuses_thread_votes():
    g = Game(5, team_votes="pm")
    g.propose(["alice", "bob"])
    assert g.vote("carol", "approve") == Refusal(
        "Team votes in this game go by PM only, so that they stay secret until the vote closes. "
        "Your comment was not counted.", "PM the bot " + AR, private=True)
    g.vote("carol", "approve", via="pm")
    assert g.state.votes == {"carol": "approve"}


# --- the rule modules' hooks -------------------------------------------------------


class Recorder(RulePlugin):
    """A rule module that bars a voter, lets one vote in the thread, refuses on cue and
    records what the engine hands it."""

    name = "recorder"

    def __init__(self, barred=(), in_thread=(), hold_mission=False):
        self.barred, self.in_thread, self.hold_mission = set(barred), set(in_thread), hold_mission
        self.seen: list[tuple] = []
        self.refuse_vote = self.refuse_proposal = None

    def before_proposal(self, state, command):
        self.seen.append(("before_proposal", state.phase, command.team))
        return self.refuse_proposal

    def after_proposal(self, tx, proposal, command):
        self.seen.append(("after_proposal", tx.state.phase, proposal.team, command.team))

    def barred_voters(self, state):
        self.seen.append(("barred_voters", state.phase))
        return self.barred

    def votes_in_thread(self, state, seat):
        self.seen.append(("votes_in_thread", state.phase, seat))
        return seat in self.in_thread

    def before_vote(self, state, command):
        self.seen.append(("before_vote", state.phase, command.author))
        return self.refuse_vote

    def after_vote(self, tx, record):
        self.seen.append(("after_vote", tx.state.phase, record.approved))

    def before_mission_opens(self, tx):
        self.seen.append(("before_mission_opens", tx.state.phase))
        return self.hold_mission

    def after_mission_opened(self, tx):
        self.seen.append(("after_mission_opened", tx.state.phase, list(tx.state.team)))


def test_hooks_see_the_proposal_the_votes_and_a_barred_voter():
    """Seats in the order erin, dave, carol, bob, alice: the barred are listed in seat order."""
    r = Recorder(barred={"erin", "carol"}, in_thread={"bob"})
    g = Game(plugins=[r], team_votes="pm", names=NAMES[:5][::-1])
    assert g.state.leader == "erin"
    r.refuse_proposal = Refusal("not this team")
    assert g.propose(["alice", "bob"]) == Refusal("not this team")
    r.refuse_proposal = None
    assert g.new(Propose(g.tick(), "erin", ("alice", "bob"))) == [
        ("team_proposed", {"mission": 1, "proposal": 1, "leader": "erin", "team": ["alice", "bob"],
                           "not_voting": ["erin", "carol"]})]
    assert g.vote("erin", "approve", via="pm") == Refusal("A card bars you from voting on this proposal.",
                                                          private=True)
    assert g.vote("erin", "approve") == Refusal("A card bars you from voting on this proposal.")
    assert g.vote("alice", "approve") == Refusal(
        "Team votes in this game go by PM only, so that they stay secret until the vote closes. "
        "Your comment was not counted.", "PM the bot " + AR, private=True)
    r.refuse_vote = Refusal("not now")
    assert g.vote("bob", "approve") == Refusal("not now")
    r.refuse_vote = None
    g.vote("bob", "reject")  # bob's votes go in the thread
    g.vote("alice", "approve", via="pm")
    assert g.state.phase == "team_vote"
    g.vote("dave", "reject", via="pm")
    assert g.last("vote_closed") == closed_vote(
        leader="erin",
        votes={"erin": "abstain", "dave": "reject", "carol": "abstain", "bob": "reject", "alice": "approve"},
        defaulted=[], not_voting=["erin", "carol"], approve=1, reject=2, approved=False, rejections=1)
    assert r.seen == [
        ("before_proposal", "proposal", ("alice", "bob")),
        ("before_proposal", "proposal", ("alice", "bob")),
        ("barred_voters", "proposal"),
        ("after_proposal", "team_vote", ["alice", "bob"], ("alice", "bob")),
        ("votes_in_thread", "team_vote", "alice"),
        ("votes_in_thread", "team_vote", "bob"),
        ("before_vote", "team_vote", "bob"),
        ("votes_in_thread", "team_vote", "bob"),
        ("before_vote", "team_vote", "bob"),
        ("before_vote", "team_vote", "alice"),
        ("before_vote", "team_vote", "dave"),
        ("after_vote", "team_vote", False),
    ]
    assert g.state.leader == "dave"


def test_hooks_hold_the_mission_or_see_it_open():
    r = Recorder()
    g = Game(5, plugins=[r])
    g.propose(["alice", "bob"])
    for n in NAMES[:5]:
        g.vote(n, "approve")
    assert r.seen[-3:] == [("after_vote", "team_vote", True), ("before_mission_opens", "team_vote"),
                           ("after_mission_opened", "mission", ["alice", "bob"])]
    assert g.state.phase == "mission"
    held = Recorder(hold_mission=True)
    g = Game(5, plugins=[held])
    g.propose(["alice", "bob"])
    for n in NAMES[:5]:
        g.vote(n, "approve")
    assert held.seen[-1] == ("before_mission_opens", "team_vote")
    assert g.state.phase == "team_vote" and not any(e.type == "mission_opened" for e in g.log)
    # a plain game, no modules: the mission opens
    g = Game(5, plugins=[])
    g.propose(["alice", "bob"])
    for n in NAMES[:5]:
        g.vote(n, "approve")
    assert g.state.phase == "mission"


@pytest.mark.parametrize("choice", ["approve", "reject"])
def test_a_vote_may_change_until_it_closes(choice):
    g = Game(5)
    g.propose(["alice", "bob"])
    g.vote("alice", "reject" if choice == "approve" else "approve")
    g.vote("alice", choice)
    assert g.state.votes == {"alice": choice}
    for n in NAMES[1:5]:
        g.vote(n, "approve")
    assert g.last("vote_closed")["votes"]["alice"] == choice
