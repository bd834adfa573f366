"""Pure games driven by commands, with no database, no network and no clock: the engine's
own tests (tests/rules/) play them. `Game` keeps the log as the store does; `PluginGame`
also takes the rule modules to use (`plugins`) and tells the events a command caused."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from forumbot.rules import MissionOrder, Propose, Refusal, TeamVote, apply, fold, make_config, replay, start
from forumbot.rules.deadlines import expired

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy"]


class Game:
    """A pure game driven by commands, keeping the log like the store does."""

    def __init__(self, n=5, seed=1, preset="resistance", **kw):
        kw.setdefault("leader_order", "listed")
        self.config = make_config(preset, NAMES[:n], **kw)
        self.seed = seed
        self.at = T0
        self.log = start(self.config, seed, T0)
        self.state = replay(self.config, seed, self.log)

    def do(self, command):
        result = apply(self.state, command)
        if not isinstance(result, Refusal):
            for e in result:
                fold(self.state, e)
            self.log += result
        return result

    def tick(self, **kw):
        self.at += timedelta(**kw)
        return self.at

    def propose(self, team=None):
        team = team or [s.id for s in self.state.active()][: self.state.team_size()]  # (seat ids)
        return self.do(Propose(self.tick(minutes=1), self.state.leader, tuple(team)))

    def vote(self, name, choice, via="thread"):
        return self.do(TeamVote(self.tick(minutes=1), name, choice, via))

    def vote_all(self, choice="approve"):
        for s in self.state.active():
            if self.state.phase == "team_vote":
                self.vote(s.id, choice)

    def order(self, name, choice):
        return self.do(MissionOrder(self.tick(minutes=1), name, choice, "pm"))

    def mission(self, sabotage=()):
        self.propose()
        self.vote_all()
        for n in list(self.state.team):
            if self.state.phase == "mission":
                self.order(n, "sabotage" if n in sabotage else "support")


class PluginGame:
    """A pure game driven by commands; `plugins` replaces the config's rule modules."""

    def __init__(self, n=5, preset="resistance", seed=1, plugins=None, names=None, **kw):
        kw.setdefault("leader_order", "listed")
        self.config = make_config(preset, names or NAMES[:n], **kw)
        self.at = T0
        self.plugins = plugins
        self.log = start(self.config, seed, T0)
        self.state = replay(self.config, seed, self.log)

    def do(self, command):
        result = apply(self.state, command, self.plugins)
        if not isinstance(result, Refusal):
            for e in result:
                fold(self.state, e)
            self.log += result
        return result

    def new(self, command) -> list[tuple[str, dict]]:
        """Do `command`; the events it caused as (type, data)."""
        before = len(self.log)
        result = self.do(command)
        assert not isinstance(result, Refusal), result
        return [(e.type, e.data) for e in self.log[before:]]

    def tick(self):
        self.at += timedelta(minutes=1)
        return self.at

    def propose(self, team, author=None, public=None):
        return self.do(Propose(self.tick(), author or self.state.leader, tuple(team), public))

    def vote(self, name, choice, via="thread", critical=False):
        return self.do(TeamVote(self.tick(), name, choice, via, critical))

    def order(self, name, choice, via="pm"):
        return self.do(MissionOrder(self.tick(), name, choice, via))

    def expire(self):
        return self.new(expired(self.state, self.at + timedelta(days=40)))

    def last(self, type_: str) -> dict:
        return [e for e in self.log if e.type == type_][-1].data
