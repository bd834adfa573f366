"""The words around the modules beyond the seeds, and wording that contradicted the game
(issue 24, items 7, 8, 10, 11 and 12): the lovers' double shot is told wherever the
assassination is; Excalibur is explained and its forms are the ones the bot accepts; the
card window offers only cards someone holds; side names read as English; the end-of-game
vote table shows a seat barred by a card as the live table does."""
from datetime import timedelta

import pytest

from forumbot.render import render_events
from forumbot.render.help import help_for
from forumbot.rules import MissionOrder, Propose, Refusal, TeamVote
from forumbot.rules import events as ev
from forumbot.rules.commands import GiveCard
from forumbot.rules.deadlines import expired
from forumbot.rules.modules.excalibur import OPENED
from forumbot.rules.modules.mission_card_folds import EV_SHUFFLED
from forumbot.rules.modules.mission_cards import MissionCards
from forumbot.rules.modules.plot import PlotCards
from forumbot.rules.modules.plot_deck import deck_for
from tests.support.pure import Game

DOUBLE = "**ASSASSINATE: name, name**"


def ok(g, command):
    r = g.do(command)
    assert not isinstance(r, Refusal), r
    return r


def opening(g):
    msgs = render_events(g.state, [e for e in g.log if e.type == ev.GAME_STARTED], "G1")
    return next(m.body for m in msgs if m.opening), {m.to: m.body for m in msgs if m.to}


def public(g, events):
    return "\n".join(m.body for m in render_events(g.state, events, "G1") if m.to is None)


def approve(g):
    for s in g.state.active():
        if g.state.phase == "team_vote" and s.id not in g.state.not_voting:
            ok(g, TeamVote(g.tick(), s.id, "approve", "pm"))


# --- item 7: the lovers' double shot -------------------------------------------------------


def to_the_assassination(g):
    while g.state.phase != "assassination":
        g.propose()
        g.vote_all()
        for name in list(g.state.team):
            if g.state.phase == "mission":
                ok(g, MissionOrder(g.tick(), name, "support", "pm"))
    return next(s.id for s in g.state.seats if s.role == "assassin")


def test_the_double_shot_is_told_in_the_opening_the_prompt_the_assassins_pm_and_help():
    g = Game(7, preset="avalon", roles=("tristan", "isolde"))
    post, pms = opening(g)
    assert "**Tristan and Isolde**" in post and DOUBLE in post
    assert "the Minions of Mordred win" in post
    shooter = next(s for s in g.state.seats if s.role == "assassin")
    assert DOUBLE in pms[shooter.name] and "instead of Merlin you may name both lovers" in pms[shooter.name]
    assert all(DOUBLE not in body for to, body in pms.items() if to != shooter.name)  # the Assassin's alone
    assert DOUBLE not in help_for(g.state, "G1", shooter.name, shooter.id)  # not before the assassination
    to_the_assassination(g)
    opened = [e for e in g.log if e.type == ev.ASSASSINATION_OPENED]
    prompt = public(g, opened)
    assert "**ASSASSINATE: name**" in prompt and DOUBLE in prompt
    assert "instead of Merlin, the Assassin may name both lovers" in prompt
    text = help_for(g.state, "G1", shooter.name, shooter.id)
    assert "**ASSASSINATE: name**" in text and DOUBLE in text
    other = next(s for s in g.state.seats if s.role != "assassin")
    assert DOUBLE not in help_for(g.state, "G1", other.name, other.id)


def test_without_the_lovers_nothing_speaks_of_them():
    g = Game(7, preset="avalon", roles=("percival",))
    post, pms = opening(g)
    assert "Tristan" not in post and all(DOUBLE not in body for body in pms.values())
    shooter = to_the_assassination(g)
    assert DOUBLE not in public(g, [e for e in g.log if e.type == ev.ASSASSINATION_OPENED])
    assert DOUBLE not in help_for(g.state, "G1", shooter, shooter)


# --- item 8: Excalibur's words ------------------------------------------------------------


def test_excalibur_is_explained_and_its_forms_are_the_accepted_ones():
    g = Game(7, preset="avalon", excalibur=True)
    post, _ = opening(g)
    assert "**Excalibur**: with each team the leader also names a team member" in post
    assert "the leader posts **PROPOSE: name, name; EXCALIBUR: name**." in post  # "How to play"
    assert "**EXCALIBUR: name**, or **PASS**, within 1d" in post
    plain, _ = opening(Game(7, preset="avalon"))
    assert "the leader posts **PROPOSE: name, name**." in plain and "Excalibur" not in plain
    leader = g.state.leader
    assert "post **PROPOSE: name, name; EXCALIBUR: name** in the thread" in help_for(g.state, "G1", leader, leader)
    # mission 1 (a team of 2): the holder's PM names the one other member
    team = [leader, g.state.names[1]]
    ok(g, Propose(g.tick(), leader, tuple(team), more=(("excalibur", team[1]),)))
    approve(g)
    for x in team:
        ok(g, MissionOrder(g.tick(), x, "support", "pm"))
    msgs = render_events(g.state, [e for e in g.log if e.type == OPENED], "G1")
    pm = next(m.body for m in msgs if m.to == team[1])
    assert f"To switch {leader}'s order (SUPPORT becomes SABOTAGE, and back), PM me **EXCALIBUR: {leader}**" in pm
    assert "(one of" not in pm
    ok(g, expired(g.state, g.at + timedelta(days=2)))  # the holder passes
    # mission 2 (a team of 3): the prompt's example has three names
    assert g.state.mission == 2 and g.state.team_size() == 3
    prompt = public(g, [e for e in g.log if e.type == ev.PROPOSAL_OPENED][-1:])
    assert "name who holds Excalibur: **PROPOSE: name, name, name; EXCALIBUR: name**." in prompt


def test_a_holder_of_a_three_person_team_gets_the_list():
    g = Game(8, preset="avalon", excalibur=True)
    leader = g.state.leader
    team = [leader, g.state.names[1], g.state.names[2]]
    ok(g, Propose(g.tick(), leader, tuple(team), more=(("excalibur", team[1]),)))
    approve(g)
    for x in team:
        ok(g, MissionOrder(g.tick(), x, "support", "pm"))
    msgs = render_events(g.state, [e for e in g.log if e.type == OPENED], "G1")
    pm = next(m.body for m in msgs if m.to == team[1])
    assert f"PM me **EXCALIBUR: name** (one of {leader}, {team[2]})" in pm


# --- item 10: the card window offers the cards someone holds ---------------------------


@pytest.fixture
def rigged(monkeypatch):
    def make(n, top, preset="resistance-plot", **kw):
        def after_start(self, tx):
            rest = list(deck_for(len(tx.state.seats)))
            for c in top:
                rest.remove(c)
            tx.emit(ev.PLOT_SHUFFLED, deck=list(top) + rest)
        monkeypatch.setattr(PlotCards, "after_start", after_start)
        return Game(n, preset=preset, plot_cards=True, **kw)
    return make


def window_post(g, top):
    leader = g.state.extra["plot"].round.leader
    for card, to in zip(top, [x for x in g.state.names if x != leader]):
        ok(g, GiveCard(g.tick(), leader, card, to))
    g.propose()
    before = len(g.log)
    approve(g)
    assert g.state.phase == "card_window"
    return public(g, [e for e in g.log[before:] if e.type == ev.PLOT_WINDOW])


def test_the_window_after_an_approved_team_offers_only_no_confidence_when_no_one_holds_the_spotlight(rigged):
    g = rigged(7, ["no-confidence", "strong-leader"])  # (7 players: the deck has no In the Spotlight)
    post = window_post(g, ["no-confidence", "strong-leader"])
    assert "**PLAY: No Confidence** (the team is rejected), or **PASS**" in post
    assert "Spotlight" not in post


def test_the_window_offers_only_the_spotlight_when_no_one_holds_no_confidence(rigged):
    g = rigged(8, ["spotlight", "strong-leader"])
    post = window_post(g, ["spotlight", "strong-leader"])
    assert "**PLAY: In the Spotlight -> name** (that team member's order is shown with the result)" in post
    assert "No Confidence" not in post


def test_the_window_offers_both_when_both_are_held(rigged):
    g = rigged(8, ["spotlight", "no-confidence"])
    post = window_post(g, ["spotlight", "no-confidence"])
    assert "**PLAY: No Confidence** (the team is rejected) or **PLAY: In the Spotlight -> name**" in post


# --- item 11: side names as English ------------------------------------------------------


def end_post(g, winner):
    end = ev.GameEnded(at=g.at, winner=winner, reason="missions", roles={s.id: s.role for s in g.state.seats})
    return public(g, [end])


def test_good_and_evil_are_causes_and_the_others_groups():
    g = Game(8, preset="avalon-2020", plot_cards=True)
    _, pms = opening(g)
    assert all("one of Good" not in b and "one of Evil" not in b for b in pms.values())
    good = next(s for s in g.state.seats if s.side == "resistance")
    evil = next(s for s in g.state.seats if s.side == "spies")
    assert ", on the side of Good." in pms[good.name] and ", on the side of Evil." in pms[evil.name]
    assert "Good wins, by three missions." in end_post(g, "resistance")
    assert "Evil wins, by three missions." in end_post(g, "spies")
    r = Game(5)
    _, pms = opening(r)
    assert any(", one of the Resistance." in b for b in pms.values())
    assert "The Spies win, by three missions." in end_post(r, "spies")
    a = Game(7, preset="avalon")
    assert "The Minions of Mordred win, by three missions." in end_post(a, "spies")


# --- item 12: a seat barred by a card in the end-of-game vote table ------------------------


def test_the_end_table_shows_a_seat_barred_by_a_card_as_the_live_table_does(monkeypatch):
    def after_start(self, tx):
        rest = ["establish-confidence", "interrogation", "counterespionage", "badge", "badge", "tracker",
                "counterfeit", "prepare"]
        tx.emit(EV_SHUFFLED, deck=["delayed", "delayed"] + rest)
    monkeypatch.setattr(MissionCards, "after_start", after_start)
    g = Game(6, preset="so-say-we-all", mission_cards=True)
    c = g.state.extra["commander"]
    ok(g, Propose(g.tick(), g.state.leader, tuple(n for n in g.state.names if n != c)[:2]))
    assert g.state.not_voting == [c]
    before = len(g.log)
    approve(g)
    live = public(g, [e for e in g.log[before:] if e.type == ev.VOTE_CLOSED])
    assert f"| {c} | — (barred by a card) |" in live
    end = end_post(g, "resistance")
    row = next(line for line in end.splitlines() if line.startswith("| 1 | 1 |"))
    cells = [x.strip() for x in row.strip("|").split("|")]
    assert cells[5 + g.state.names.index(c)] == "—"  # not ABS: it was no abstention
    assert "ABS abstain; — barred by a card; * a default" in end
    assert "barred by a card" not in end_post(Game(6, preset="so-say-we-all"), "resistance")
