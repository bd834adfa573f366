"""Plot Cards on pure games (tests/support/pure.py): a deck rigged through the plug-in's
shuffle, so that the rigged order is in the event log, and the moves a test makes on the
way to a card: the leader gives a card, a team is proposed, voted (by PM where an Opinion
Maker does not make it public) and sent on its mission."""
from forumbot.rules import MissionOrder, Propose, Refusal, TeamVote
from forumbot.rules import events as ev
from forumbot.rules.commands import GiveCard
from forumbot.rules.modules.plot import PlotCards
from forumbot.rules.modules.plot_deck import deck_for


def rig(monkeypatch, top):
    """The plot deck of the next game starts with the cards `top`, the rest of it after them."""
    def after_start(self, tx):
        rest = list(deck_for(len(tx.state.seats), self.preset))
        for c in top:
            rest.remove(c)
        tx.emit(ev.PLOT_SHUFFLED, deck=list(top) + rest)
    monkeypatch.setattr(PlotCards, "after_start", after_start)


def P(g):
    """The Plot Cards' part of the game's state."""
    return g.state.extra["plot"]


def give(g, card, to):
    r = g.do(GiveCard(g.tick(), P(g).round.leader, card, to))
    assert not isinstance(r, Refusal), r


def vote_pm(g, choice="approve"):
    for s in g.state.active():
        if g.state.phase == "team_vote":
            via = "thread" if s.name in P(g).opinion else "pm"
            g.do(TeamVote(g.tick(), s.name, choice, via))


def propose(g, team=None):
    team = team or [s.name for s in g.state.active()][: g.state.team_size()]
    r = g.do(Propose(g.tick(), g.state.leader, tuple(team)))
    assert not isinstance(r, Refusal), r
    return team


def orders(g, sabotage=()):
    for n in list(g.state.team):
        if g.state.phase == "mission":
            g.do(MissionOrder(g.tick(), n, "sabotage" if n in sabotage else "support", "pm"))
