"""Plot Cards (resistance-plot; avalon uses the same deck): every card and its edge cases.

Decks are rigged through the plug-in's shuffle, so the rigged order is in the event log
(the pre-init hook idea of Razdva122/avalon), never by poking at the state."""
from collections import Counter
from datetime import timedelta

import pytest

from forumbot.render import render_events
from forumbot.rules import Propose, Refusal, TeamVote, replay
from forumbot.rules import events as ev
from forumbot.rules.commands import Choose, GiveCard, PassCard, PlayCard, TakeCard
from forumbot.rules.deadlines import expired
from forumbot.rules.modules.plot import PlotCards
from forumbot.rules.modules.plot_deck import DRAW, deck_for, find_card
from tests.support.plot import P, give, orders, propose, vote_pm
from tests.support.pure import Game


@pytest.fixture
def rigged(monkeypatch):
    """rigged(n, top=[...], only=False): a resistance-plot game whose deck starts with `top`
    (and holds nothing else with only=True)."""
    def make(n=8, top=(), only=False, **kw):
        def after_start(self, tx):
            rest = list(deck_for(len(tx.state.seats)))
            for c in top:
                rest.remove(c)
            tx.emit(ev.PLOT_SHUFFLED, deck=list(top) + ([] if only else rest))
        monkeypatch.setattr(PlotCards, "after_start", after_start)
        return Game(n, preset="resistance-plot", plot_cards=True, **kw)
    return make


def names(g, *i):
    return [g.state.names[k] for k in i]


def pass_all(g):
    while g.state.phase == "card_window":
        for h in list(g.state.actors):
            g.do(PassCard(g.tick(), h))


def test_deck_counts_and_draws():
    assert Counter(deck_for(7)) == {"strong-leader": 2, "close-eye": 2, "no-confidence": 1,
                                    "opinion-maker": 1, "take-responsibility": 1}
    big = Counter(deck_for(8))
    assert big["no-confidence"] == 3 and big["overheard"] == 2 and sum(big.values()) == 15
    assert [DRAW[n] for n in range(5, 11)] == [1, 1, 2, 2, 3, 3]
    for n in range(5, 11):
        g = Game(n, preset="resistance-plot", plot_cards=True)
        assert len(P(g).drawn) + len(P(g).queue) == DRAW[n]


@pytest.mark.parametrize("typed,key", [("Strong Leader", "strong-leader"), ("strong", "strong-leader"),
                                       ("no conf", "no-confidence"), ("Spotlight", "spotlight"),
                                       ("keeping a close eye on you", "close-eye"), ("open up", "open-up")])
def test_card_names(typed, key):
    assert find_card(typed).key == key


def test_no_proposal_until_every_card_is_given(rigged):
    g = rigged(8, top=["no-confidence", "strong-leader"])
    leader, a, b = names(g, 0, 1, 2)
    assert g.state.phase == "hand_out" and P(g).drawn == ["no-confidence", "strong-leader"]
    assert isinstance(g.do(Propose(g.tick(), leader, (leader, a, b))), Refusal)
    assert isinstance(g.do(GiveCard(g.tick(), a, "no confidence", b)), Refusal)  # not the leader
    assert isinstance(g.do(GiveCard(g.tick(), leader, "no confidence", leader)), Refusal)  # not himself
    assert isinstance(g.do(GiveCard(g.tick(), leader, "open up", a)), Refusal)  # not drawn
    give(g, "No Confidence", a)
    r = g.do(GiveCard(g.tick(), leader, "strong leader", a))
    assert isinstance(r, Refusal) and "different player" in r.reason
    give(g, "strong", b)
    assert g.state.phase == "proposal" and P(g).hands == {a: ["no-confidence"], b: ["strong-leader"]}


def test_a_card_not_given_in_time_is_discarded(rigged):
    g = rigged(8, top=["no-confidence", "strong-leader"])
    give(g, "No Confidence", g.state.names[1])
    g.do(expired(g.state, g.at + timedelta(days=2)))
    assert P(g).discard == ["strong-leader"] and g.state.phase == "proposal"


def hand_out(g):
    """The leader gives every drawn card to a different player; choices time out."""
    leader = P(g).round.leader
    for card, to in zip(list(P(g).drawn), [x for x in g.state.names if x != leader]):
        give(g, card, to)
    while g.state.phase == "plot_choice":
        g.do(expired(g.state, g.at + timedelta(days=2)))


def play_round(g, sabotage=()):
    """Propose, approve, pass any window, play the mission; stops where the next round
    begins (a Strong Leader window or the hand-out)."""
    propose(g)
    vote_pm(g)
    pass_all(g)
    orders(g, sabotage)
    if g.state.phase == "card_window" and P(g).window.kind == "after_result":
        pass_all(g)


def test_strong_leader_window_and_no_second_one_before_a_vote(rigged):
    g = rigged(8, top=["strong-leader", "strong-leader"])
    a, b = names(g, 3, 5)
    give(g, "strong", a)
    give(g, "strong", b)
    assert isinstance(g.do(PlayCard(g.tick(), a, "Strong Leader")), Refusal)  # not its window
    play_round(g)
    assert g.state.phase == "card_window" and g.state.actors == [a, b]  # before the draw
    assert isinstance(g.do(PlayCard(g.tick(), g.state.names[0], "Strong Leader")), Refusal)
    g.do(PlayCard(g.tick(), b, "Strong Leader"))
    assert g.state.phase == "hand_out" and P(g).round.leader == b
    assert P(g).hands[a] == ["strong-leader"]  # a keeps theirs
    hand_out(g)
    assert g.state.leader == b
    propose(g)
    vote_pm(g, "reject")
    assert g.state.leader == g.state.next_leader(b)  # the rotation continues from b


def test_a_second_strong_leader_in_the_same_window_is_refused(rigged):
    g = rigged(8, top=["strong-leader", "strong-leader", "open-up", "overheard"])
    a, b = names(g, 3, 5)
    give(g, "strong", a)
    give(g, "strong", b)
    play_round(g)
    assert g.state.actors == [a, b]
    g.do(PlayCard(g.tick(), a, "Strong Leader"))
    r = g.do(PlayCard(g.tick(), b, "Strong Leader"))
    assert isinstance(r, Refusal) and "keep" in r.reason
    assert P(g).hands[b] == ["strong-leader"] and P(g).round.leader == a


def test_no_confidence_rejects_an_approved_team_and_counts(rigged):
    g = rigged(8, top=["no-confidence", "strong-leader"])
    spy = g.state.spies()[0]
    other = next(n for n in g.state.names[1:] if n != spy)
    give(g, "no conf", spy if spy != g.state.names[0] else other)
    holder = P(g).hands and next(n for n, h in P(g).hands.items() if "no-confidence" in h)
    give(g, "strong", next(n for n in g.state.names[1:] if n != holder))
    propose(g)
    vote_pm(g)
    assert g.state.phase == "card_window" and g.state.actors == [holder]
    g.do(PlayCard(g.tick(), holder, "No Confidence"))
    assert g.state.phase == "proposal" and g.state.rejections == 1 and not g.state.missions
    assert "no-confidence" not in P(g).hands[holder]


def test_no_confidence_on_the_fifth_proposal_wins_for_the_spies(rigged):
    g = rigged(8, top=["no-confidence", "strong-leader"])
    holder = g.state.names[4]
    give(g, "no conf", holder)
    give(g, "strong", g.state.names[5])
    for _ in range(4):
        propose(g)
        vote_pm(g, "reject")
    propose(g)
    vote_pm(g, "approve")
    g.do(PlayCard(g.tick(), holder, "No Confidence"))
    assert (g.state.winner, g.state.win_reason) == ("spies", "rejections")


def test_in_the_spotlight_shows_one_order_with_the_result(rigged):
    g = rigged(8, top=["spotlight", "strong-leader"])
    holder = g.state.names[5]
    give(g, "spotlight", holder)
    give(g, "strong", g.state.names[6])
    team = propose(g)
    vote_pm(g)
    assert isinstance(g.do(PlayCard(g.tick(), holder, "In the Spotlight", g.state.names[7])), Refusal)
    g.do(PlayCard(g.tick(), holder, "In the Spotlight", team[1]))
    assert g.state.phase == "mission"
    orders(g)
    spot = [e for e in g.log if e.type == "plot_spotlight"]
    assert spot[-1].data == {"target": team[1], "order": "support", "mission": 1}
    post = render_events(g.state, spot, "G1")[0].body
    assert f"**{team[1]}**'s order on mission 1 was **SUPPORT**" in post


def test_keeping_a_close_eye_two_holders_one_target(rigged):
    g = rigged(8, top=["close-eye", "close-eye"])
    a, b = names(g, 6, 7)
    give(g, "close eye", a)
    give(g, "keeping", b)
    team = propose(g)
    vote_pm(g)
    orders(g)
    assert g.state.phase == "card_window" and g.state.actors == [a, b]
    r = g.do(Choose(g.tick(), a, team[0], via="thread"))
    assert isinstance(r, Refusal) and r.private  # by PM only
    g.do(Choose(g.tick(), a, team[0], via="pm"))
    r = g.do(Choose(g.tick(), b, team[0], via="pm"))
    assert isinstance(r, Refusal) and "another holder" in r.reason
    assert isinstance(g.do(Choose(g.tick(), b, g.state.names[5], via="pm")), Refusal)  # not on the team
    g.do(Choose(g.tick(), b, team[1], via="pm"))
    seen = [(x.data["viewer"], x.data["subject"], x.data["order"]) for x in g.log if x.type == "plot_reveal"]
    assert seen == [(a, team[0], "support"), (b, team[1], "support")]
    assert g.state.phase in ("hand_out", "plot_choice", "proposal")  # the next round goes on
    msgs = render_events(g.state, [x for x in g.log if x.type == "plot_reveal"], "G1")
    assert sorted(m.to for m in msgs if m.to) == sorted([a, b])
    assert all("SUPPORT" not in m.body for m in msgs if m.to is None)


def test_overheard_conversation_only_a_neighbour(rigged):
    g = rigged(8, top=["overheard", "strong-leader"])
    holder = g.state.names[3]
    give(g, "overheard", holder)
    give(g, "strong", g.state.names[5])
    assert g.state.phase == "plot_choice" and g.state.actors == [holder]
    r = g.do(Choose(g.tick(), holder, g.state.names[6]))
    assert isinstance(r, Refusal) and g.state.names[2] in r.reason and g.state.names[4] in r.reason
    g.do(Choose(g.tick(), holder, g.state.names[4]))
    rev = [x.data for x in g.log if x.type == "plot_reveal"][-1]
    assert (rev["viewer"], rev["subject"]) == (holder, g.state.names[4])
    assert rev["side"] == g.state.seat(g.state.names[4]).side and g.state.phase == "proposal"
    msgs = render_events(g.state, [x for x in g.log if x.type == "plot_reveal"], "G1")
    public = next(m.body for m in msgs if m.to is None)
    assert "one of" not in public
    private = next(m for m in msgs if m.to is not None)
    assert private.to == holder and "one of" in private.body
    assert not any(w in private.body for w in ("Merlin", "Assassin", "Morgana"))  # allegiance only


def test_overheard_wraps_around_the_leader_order(rigged):
    g = rigged(8, top=["overheard", "strong-leader"])
    last = g.state.names[7]
    give(g, "overheard", last)
    give(g, "strong", g.state.names[5])
    assert not isinstance(g.do(Choose(g.tick(), last, g.state.names[0])), Refusal)


def test_open_up_and_establish_confidence_reveal_the_holder_to_the_target(rigged):
    g = rigged(8, top=["open-up", "strong-leader"])
    holder, target = names(g, 3, 6)
    give(g, "open up", holder)
    give(g, "strong", g.state.names[5])
    g.do(Choose(g.tick(), holder, target))
    rev = [x.data for x in g.log if x.type == "plot_reveal"][-1]
    assert (rev["viewer"], rev["subject"]) == (target, holder)


def test_establish_confidence_is_the_leaders_own(rigged):
    g = rigged(8, top=["establish-confidence", "strong-leader"])
    leader = g.state.names[0]
    assert P(g).drawn == ["strong-leader"] and P(g).queue == [("establish-confidence", leader)]
    give(g, "strong", g.state.names[5])
    assert g.state.phase == "plot_choice" and g.state.actors == [leader]
    assert isinstance(g.do(Choose(g.tick(), leader, leader)), Refusal)
    g.do(Choose(g.tick(), leader, g.state.names[2]))
    rev = [x.data for x in g.log if x.type == "plot_reveal"][-1]
    assert (rev["viewer"], rev["subject"]) == (g.state.names[2], leader)


def test_take_responsibility(rigged):
    g = rigged(8, top=["take-responsibility", "no-confidence"])
    holder, victim = names(g, 3, 6)
    give(g, "take resp", holder)
    assert g.state.phase == "hand_out"  # resolved only after every card is given
    give(g, "no conf", victim)
    assert g.state.phase == "plot_choice" and g.state.actors == [holder]
    r = g.do(TakeCard(g.tick(), holder, "Strong Leader", victim))
    assert isinstance(r, Refusal) and "No Confidence" in r.reason
    assert isinstance(g.do(Choose(g.tick(), holder, victim)), Refusal)
    g.do(TakeCard(g.tick(), holder, "No Confidence", victim))
    assert P(g).hands[holder] == ["no-confidence"] and P(g).hands[victim] == []
    assert g.state.phase == "proposal"


def test_take_responsibility_with_nothing_to_take_is_discarded(rigged):
    g = rigged(5, top=["take-responsibility"])
    give(g, "take resp", g.state.names[2])
    assert g.state.phase == "proposal"
    assert [x.data["reason"] for x in g.log if x.type == "plot_choice_skipped"] == ["no one holds a card to take"]


def test_opinion_maker_votes_only_in_the_thread(rigged):
    g = rigged(5, top=["opinion-maker"])
    holder = g.state.names[2]
    give(g, "opinion", holder)
    propose(g)
    r = g.do(TeamVote(g.tick(), holder, "approve", "pm"))
    assert isinstance(r, Refusal) and "thread" in r.hint
    assert not isinstance(g.do(TeamVote(g.tick(), holder, "approve", "thread")), Refusal)
    assert isinstance(g.do(TeamVote(g.tick(), g.state.names[3], "approve", "thread")), Refusal)


def test_the_deck_reshuffles_the_discard_pile_when_short(rigged):
    g = rigged(10, top=["open-up", "overheard", "overheard", "no-confidence"], only=True)
    a, b, c = names(g, 2, 4, 6)
    give(g, "open up", a)
    give(g, "overheard", b)
    give(g, "overheard", c)
    for holder in (a, b, c):
        i = g.state.names.index(holder)
        g.do(Choose(g.tick(), holder, g.state.names[i + 1]))
    play_round(g)
    shuffles = [x.data["deck"] for x in g.log if x.type == "plot_shuffled"]
    assert len(shuffles) == 2 and sorted(shuffles[1]) == sorted(["no-confidence", "open-up", "overheard", "overheard"])


def test_replay_of_a_card_game_equals_the_live_state(rigged):
    g = rigged(8, top=["take-responsibility", "no-confidence", "spotlight", "close-eye"])
    give(g, "take resp", g.state.names[3])
    give(g, "no conf", g.state.names[6])
    g.do(TakeCard(g.tick(), g.state.names[3], "no conf", g.state.names[6]))
    play_round(g)
    hand_out(g)
    play_round(g)
    assert len(g.state.missions) == 2
    assert replay(g.config, g.seed, g.log) == g.state


# --- avalon-2020: its 15-card deck and differences --------------------------------------


@pytest.fixture
def rigged2020(monkeypatch):
    def make(top=(), **kw):
        def after_start(self, tx):
            rest = list(deck_for(8, "avalon-2020"))
            for c in top:
                rest.remove(c)
            tx.emit(ev.PLOT_SHUFFLED, deck=list(top) + rest)
        monkeypatch.setattr(PlotCards, "after_start", after_start)
        return Game(8, preset="avalon-2020", plot_cards=True, **kw)
    return make


def test_avalon_2020_deck():
    d = Counter(deck_for(8, "avalon-2020"))
    assert sum(d.values()) == 15 and d["chicago-proxy"] == 2 and "opinion-maker" not in d


def test_chicago_proxy(rigged2020):
    g = rigged2020(["chicago-proxy", "strong-leader"])
    holder, target = names(g, 3, 5)
    give(g, "chicago", holder)
    give(g, "strong", g.state.names[6])
    propose(g)
    g.do(TeamVote(g.tick(), target, "reject", "thread"))
    r = g.do(PlayCard(g.tick(), holder, "Chicago Proxy", holder, "approve"))
    assert isinstance(r, Refusal)  # another player
    g.do(PlayCard(g.tick(), holder, "Chicago Proxy", target, "approve"))
    assert g.state.votes[target] == "approve" and g.state.proxied == {target: holder}
    r = g.do(TeamVote(g.tick(), target, "reject", "thread"))
    assert isinstance(r, Refusal) and holder in r.reason  # the target's vote is void
    from forumbot.rules.commands import ProxyVote
    assert isinstance(g.do(ProxyVote(g.tick(), g.state.names[1], target, "reject")), Refusal)
    g.do(ProxyVote(g.tick(), holder, target, "reject"))
    for s in g.state.seats:
        if s.name != target:
            g.do(TeamVote(g.tick(), s.name, "approve", "pm"))
    g.do(expired(g.state, g.at + timedelta(hours=13)))
    v = [e.data for e in g.log if e.type == "vote_closed"][-1]
    assert v["votes"][target] == "reject" and v["proxied"] == {target: holder}
    assert target not in v["defaulted"]
    table = render_events(g.state, [e for e in g.log if e.type == "vote_closed"][-1:], "G1")[0].body
    assert f"| {target} (proxied by {holder}) | REJECT |" in table
    assert "chicago-proxy" not in P(g).hands[holder]


def test_chicago_proxy_not_cast_takes_the_default(rigged2020):
    g = rigged2020(["chicago-proxy", "strong-leader"])
    holder, target = names(g, 3, 5)
    give(g, "chicago", holder)
    give(g, "strong", g.state.names[6])
    propose(g)
    g.do(PlayCard(g.tick(), holder, "Chicago Proxy", target))
    g.do(expired(g.state, g.at + timedelta(hours=13)))
    v = [e.data for e in g.log if e.type == "vote_closed"][-1]
    assert v["votes"][target] == "approve" and target in v["defaulted"]  # avalon-2020's default
    assert not g.state.seat(target).missed  # a proxied seat did not miss a vote


def test_strong_leader_right_after_a_no_confidence(rigged2020):
    g = rigged2020(["no-confidence", "strong-leader"])
    vetoer, strong = names(g, 3, 5)
    give(g, "no conf", vetoer)
    give(g, "strong", strong)
    propose(g)
    for s in g.state.seats:
        g.do(TeamVote(g.tick(), s.name, "approve", "pm"))
    g.do(expired(g.state, g.at + timedelta(hours=13)))
    g.do(PlayCard(g.tick(), vetoer, "No Confidence"))
    assert g.state.phase == "card_window" and g.state.actors == [strong]
    g.do(PlayCard(g.tick(), strong, "Strong Leader"))
    assert g.state.phase == "proposal" and g.state.leader == strong and g.state.rejections == 1


def test_take_responsibility_is_kept_and_played_at_will(rigged2020):
    g = rigged2020(["take-responsibility", "no-confidence"])
    taker, victim = names(g, 3, 5)
    give(g, "take resp", taker)
    give(g, "no conf", victim)
    assert g.state.phase == "proposal" and P(g).hands[taker] == ["take-responsibility"]
    propose(g)
    g.do(TakeCard(g.tick(), taker, "No Confidence", victim))  # during the vote: any time
    assert P(g).hands[taker] == ["no-confidence"] and P(g).hands[victim] == []


def test_close_eye_is_played_in_the_thread_then_answered_by_pm(rigged2020):
    g = rigged2020(["close-eye", "strong-leader"])
    holder = g.state.names[6]
    give(g, "close eye", holder)
    give(g, "strong", g.state.names[5])
    team = propose(g)
    for s in g.state.seats:
        g.do(TeamVote(g.tick(), s.name, "approve", "pm"))
    g.do(expired(g.state, g.at + timedelta(hours=13)))
    orders(g)
    assert g.state.phase == "card_window" and g.state.actors == [holder]
    r = g.do(Choose(g.tick(), holder, team[0], via="pm"))
    assert isinstance(r, Refusal) and "First play" in r.reason
    g.do(PlayCard(g.tick(), holder, "Keeping a Close Eye on You"))
    g.do(Choose(g.tick(), holder, team[0], via="pm"))
    assert [e.data["subject"] for e in g.log if e.type == "plot_reveal"] == [team[0]]


def test_a_card_no_one_may_receive_is_discarded(rigged2020):
    """With every other player holding a card from this round or disqualified, the rest of
    the drawn cards are discarded at once (found by bench/engine.py)."""
    g = rigged2020(["no-confidence", "strong-leader"])
    from forumbot.rules import events as rev
    from forumbot.rules.hooks import plugins_for
    from forumbot.rules.plugin import Tx

    leader = P(g).round.leader
    others = [n for n in g.state.names if n != leader]
    tx = Tx(g.state, g.tick(), plugins_for(g.config))
    for n in others[1:]:  # all but one are disqualified (avalon-2020 disqualifies after two misses)
        tx.emit(rev.PLAYER_DISQUALIFIED, player=n, missed=2, reason="test")
    g.state = tx.state
    give(g, "no conf", others[0])
    assert P(g).discard == ["strong-leader"] and g.state.phase == "proposal"
