"""A random legal player for the pure engine: given a state, one command that some player
could legally send now (or a deadline). For property tests and the engine benchmark; it
never touches a forum or a store. `play_out` plays a whole game; where no player's move
can go on (a disqualified Assassin), it plays the host's REPLACE or SKIP, so every game
ends."""
from __future__ import annotations

import random
from datetime import datetime, timedelta
from random import Random
from typing import Any

from .commands import (
    Choose,
    Expire,
    GiveCard,
    HostAbort,
    HostReplace,
    HostSkip,
    MissionOrder,
    PassCard,
    PlayCard,
    Propose,
    ProxyVote,
    Refusal,
    TakeCard,
    TeamVote,
    maker,
)
from .deadlines import due
from .engine import Spent, advance, replay, started
from .hooks import plugins_for
from .modules.assassin import PHASE as ASSASSINATION
from .modules.assassin import Assassinate, known_to
from .modules.mission_card_folds import BY_KEY as MC
from .modules.plot_deck import BY_KEY
from .plugin import RulePlugin
from .replace import check
from .state import FINISHED, MISSION, PROPOSAL, RESISTANCE, SETUP, TEAM_VOTE, GameState


def random_command(state: GameState, rng: random.Random, at: datetime, patience: float = 0.97,
                   modules: bool = True):
    """A legal command, or the open phase's deadline now and then (1 - patience).
    `modules=False`: the core's move alone (and the card decks')."""
    s = state
    config = s.config
    table = _TABLE if _TABLE.config is config else table_of(config)
    if modules:
        if rng.random() > patience and (when := due(s)) is not None:
            return Expire(at=when, author="", phase_id=s.phase_id)
        if table.moves:  # a rule module with random moves of its own
            return _module_move(s, rng, at, table.movers, table.amenders)
    if table.plain and rng.__class__ is Random:
        extra = s.extra
        if "mc" not in extra and "plot" not in extra and not s.proxied:
            return _core_move(s, rng, at, table)
    return _any_move(s, rng, at)


def _any_move(s: GameState, rng: random.Random, at: datetime):
    """The core's move with the card decks' (any generator; `_core_move` is the quick
    path of a game without cards, which must draw exactly as this does)."""
    phase = s.phase
    config = s.config
    extra = s.extra
    if "mc" in extra:
        badges = [n for n, h in extra["mc"].hands.items() if "badge" in h and n != s.leader]
        if badges and s.leader and rng.random() < 0.05:
            return PlayCard(at, rng.choice(badges), "Badge of Merit")
    hands = extra["plot"].hands if "plot" in extra else _NO_HANDS
    if config.preset == "avalon-2020" and rng.random() < 0.03:  # a kept Take Responsibility
        takers = [n for n, h in hands.items() if "take-responsibility" in h]
        options = [(n, c) for n, h in hands.items() for c in h]
        if takers and options:
            taker = rng.choice(takers)
            mine = [(n, c) for n, c in options if n != taker]
            if mine:
                source, card = rng.choice(mine)
                return TakeCard(at, taker, BY_KEY[card].name, source)
    if phase == MISSION:
        member = rng.choice(s.waiting_for())
        side = s.player(member).side
        order = "support" if side == RESISTANCE or rng.random() < 0.4 else "sabotage"
        return MissionOrder(at, member, order, "thread" if member == s.public else "pm")
    rules = config.rules
    active = [x.id for x in s.seats if not x.disqualified]
    if phase == TEAM_VOTE and rng.random() < 0.2:
        proxies = [n for n, h in hands.items() if "chicago-proxy" in h and n not in s.proxied]
        targets = [n for n in active if n not in s.proxied and n not in s.not_voting] if proxies else ()
        if proxies and targets:
            holder = rng.choice(proxies)
            target = rng.choice([t for t in targets if t != holder] or [holder])
            return PlayCard(at, holder, "Chicago Proxy", target, rng.choice(["approve", "reject", ""]))
        if s.proxied:
            target, holder = rng.choice(sorted(s.proxied.items()))
            return ProxyVote(at, holder, target, rng.choice(["approve", "reject"]))
    if phase == PROPOSAL:
        size = s.team_size()
        team = tuple(rng.sample(active, size)) if len(active) >= size else tuple(active)
        public = rng.choice(team) if s.mission in rules.public_order_missions else None
        return Propose(at, s.leader or "", team, public)
    if phase == TEAM_VOTE:
        proxied, votes, barred = s.proxied, s.votes, s.not_voting
        voters = [n for n in active if n not in votes and n not in barred] or active  # s.waiting_for()
        if proxied:
            voters = [n for n in voters if n not in proxied] or active
        below = rng._randbelow  # type: ignore[attr-defined]  # (rng.choice's draw, without its calls)
        voter = voters[below(len(voters))]
        opinion = "plot" in extra and voter in extra["plot"].opinion
        pm_missions = rules.pm_vote_missions
        pm_only = config.team_votes == "pm" or s.mission in pm_missions
        if opinion and s.mission not in pm_missions:
            via = "thread"
        else:
            via = "pm" if pm_only or rng.random() < 0.5 else "thread"
        critical = rules.critical_votes and voter not in s.critical_spent and rng.random() < 0.1
        return TeamVote(at, voter, _VOTES[below(3)], via, critical)
    if s.phase == "assassination":
        assassin = s.actors[0]
        known = known_to(s, assassin)
        return Assassinate(at, assassin, rng.choice([n for n in s.ids if n != assassin and n not in known]))
    if s.phase in ("prep_window", "prep_card"):
        return _mission_card_move(s, rng, at)
    plot: Any = s.extra.get("plot")
    if s.phase == "hand_out":
        leader = s.actors[0]
        targets = [n for n in active if n != leader and n not in plot.given_to]
        return GiveCard(at, leader, BY_KEY[plot.drawn[0]].name, rng.choice(targets))
    if s.phase == "plot_choice":
        card, holder = plot.current
        if card == "take-responsibility":
            source, taken = rng.choice([(n, c) for n, h in plot.hands.items() if n != holder for c in h])
            return TakeCard(at, holder, BY_KEY[taken].name, source)
        ids = s.ids
        i = ids.index(holder)
        pool = [ids[i - 1], ids[(i + 1) % len(ids)]] if card == "overheard" else [n for n in ids if n != holder]
        return Choose(at, holder, rng.choice(pool))
    if s.phase == "card_window":
        holder = rng.choice(s.actors)
        kind = plot.window.kind
        hand = plot.hands.get(holder, [])
        if rng.random() < 0.5:
            return PassCard(at, holder)
        if kind in ("round_start", "after_veto"):
            return PlayCard(at, holder, "Strong Leader")
        if kind == "approved" and "no-confidence" in hand and rng.random() < 0.5:
            return PlayCard(at, holder, "No Confidence")
        if kind == "approved" and "spotlight" in hand:
            return PlayCard(at, holder, "In the Spotlight", rng.choice(s.team))
        if kind == "after_result" and s.config.preset == "avalon-2020" and holder not in plot.declared:
            return PlayCard(at, holder, "Keeping a Close Eye on You")
        if kind == "after_result":
            others = [n for n in s.missions[-1].team if n != holder and n not in plot.picked]
            if others:
                return Choose(at, holder, rng.choice(others), via="pm")
        return PassCard(at, holder)
    raise AssertionError(f"no random move for phase {s.phase}")


def _module_move(s: GameState, rng: random.Random, at: datetime, movers: list, amenders: list):
    """A rule module's own move (RulePlugin.random_move), or the core's with the modules'
    part of it (random_amend)."""
    for p in movers:
        if (move := p.random_move(s, rng, at)) is not None:
            return move
    move = random_command(s, rng, at, modules=False)
    for p in amenders:
        move = p.random_amend(s, rng, move)
    return move


def module_moves(config) -> tuple:
    """The game's plug-ins that offer random moves of their own, and those that add to the
    core's (RulePlugin.random_move, random_amend)."""
    global _LAST
    plugins = plugins_for(config)
    cached = _MOVES.get(id(plugins))
    if cached is None or cached[0] is not plugins:
        movers = [p for p in plugins if type(p).random_move is not RulePlugin.random_move]
        amenders = [p for p in plugins if type(p).random_amend is not RulePlugin.random_amend]
        cached = _MOVES[id(plugins)] = (plugins, movers, amenders)
    _LAST = (config, bool(cached[1] or cached[2]), cached[1], cached[2])
    return _LAST


_MOVES: dict[int, tuple] = {}
_LAST: tuple = (None, False, [], [])  # the config asked for last: any moves?, movers, amenders


class Table:
    """What the random player reads of a game's config on every move, read once per config
    (a config is frozen)."""

    __slots__ = ("config", "moves", "movers", "amenders", "plain", "public_missions", "pm_missions",
                 "pm_votes", "critical")

    def __init__(self, config) -> None:
        self.config = config
        if config is None:  # (the empty cache)
            return
        _, self.moves, self.movers, self.amenders = module_moves(config)
        rules = config.rules
        self.plain = config.preset != "avalon-2020"  # (avalon-2020 draws for a kept card first)
        self.public_missions = rules.public_order_missions
        self.pm_missions = rules.pm_vote_missions
        self.pm_votes = config.team_votes == "pm"
        self.critical = rules.critical_votes


def table_of(config) -> Table:
    """The random player's reading of `config` (kept for the config asked for last)."""
    global _TABLE
    _TABLE = Table(config)
    return _TABLE


_TABLE = Table(None)


def _core_move(s: GameState, rng: Random, at: datetime, table: Table):
    """`_any_move` for a proposal, a team vote or a mission order in a game with no cards in
    play, drawing from a `random.Random` exactly as `_any_move` does (the same draws in the
    same order: the seeded games are pinned), without its lists and calls. Each
    `getrandbits` loop is `Random._randbelow`, and the proposal's is `Random.sample` (its
    pool branch, for 21 seats or fewer). Anything else: `_any_move`."""
    phase = s.phase
    getrandbits = rng.getrandbits
    if phase == TEAM_VOTE:
        votes, barred = s.votes, s.not_voting
        voters = []  # (a loop, not a list comprehension: no function call)
        for x in s.seats:
            if not x.disqualified and (v := x.id) not in votes and v not in barred:
                voters.append(v)
        if not voters:  # (everyone has voted who may: any active seat)
            voters = [x.id for x in s.seats if not x.disqualified]
        if voters:
            rng.random()  # (the draw for a Chicago Proxy: there is none)
            n = len(voters)
            k = n.bit_length()
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            voter = voters[r]
            pm_only = table.pm_votes or s.mission in table.pm_missions
            via = "pm" if pm_only or rng.random() < 0.5 else "thread"
            critical = table.critical and voter not in s.critical_spent and rng.random() < 0.1
            r = getrandbits(2)
            while r == 3:
                r = getrandbits(2)
            return _TEAM_VOTE(at, voter, _VOTES[r], via, critical)  # TeamVote(...)
    elif phase == MISSION:
        seats = {}  # (loops, not comprehensions: no function calls)
        for x in s.seats:
            if not x.disqualified:
                seats[x.id] = x
        orders = s.orders
        waiting = []  # (s.waiting_for())
        for t in s.team:
            if t not in orders and t in seats:
                waiting.append(t)
        if waiting:
            n = len(waiting)
            k = n.bit_length()
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            member = waiting[r]
            order = "support" if seats[member].side == RESISTANCE or rng.random() < 0.4 else "sabotage"
            return _MISSION_ORDER(at, member, order, "thread" if member == s.public else "pm")  # MissionOrder(...)
    elif phase == PROPOSAL:
        pool = []
        for x in s.seats:
            if not x.disqualified:
                pool.append(x.id)
        size = s.team_size()
        n = len(pool)
        if 0 < size <= n <= 21:
            team = []
            for m in range(n, n - size, -1):
                k = m.bit_length()
                r = getrandbits(k)
                while r >= m:
                    r = getrandbits(k)
                team.append(pool[r])
                pool[r] = pool[m - 1]
            public = None
            if s.mission in table.public_missions:
                k = size.bit_length()
                r = getrandbits(k)
                while r >= size:
                    r = getrandbits(k)
                public = team[r]
            return _PROPOSE(at, s.leader or "", tuple(team), public)  # Propose(...)
    return _any_move(s, rng, at)


_TEAM_VOTE, _MISSION_ORDER, _PROPOSE = maker(TeamVote), maker(MissionOrder), maker(Propose)  # (no class calls)
_EXPIRE = maker(Expire)


def play_out(config, seed: int, rng: random.Random, start_at: datetime, max_steps: int = 5000,
             in_place: bool = True):
    """Play a whole game with random legal moves: (state, events, refusals). Where no move
    of the players can go on (a seat stuck), the host steps in (`host_move`), so that every
    game ends. The game's one state is changed in place, command after command (`advance`'s
    `in_place`: no one else holds it); `in_place=False` plays it on a copy per command, as
    the bot does (the same game: tests compare the two)."""
    state, events = started(config, seed, start_at)
    events = list(events)
    at = start_at
    refusals = 0
    getrandbits, draw = rng.getrandbits, rng.random
    below = None if rng.__class__ is Random else rng._randbelow  # type: ignore[attr-defined]
    table = _TABLE if _TABLE.config is config else table_of(config)
    # random_command inline, where what it checks holds for the whole game: no module's
    # moves, no card kept across moves (avalon-2020), a random.Random
    quick = below is None and table.plain and not table.moves
    cmd: Any
    for _ in range(max_steps):
        phase = state.phase
        if phase == SETUP or phase == FINISHED:  # (phase in _OVER)
            break
        if below is None:  # (rng.randint(1, 90): the same draws, Random._randbelow inline)
            r = getrandbits(7)
            while r >= 90:
                r = getrandbits(7)
        else:
            r = below(90)
        at += _MINUTES[1 + r]
        if (phase == PROPOSAL or phase == ASSASSINATION) and (cmd := host_move(state, at)) is not None:
            pass
        elif not quick:
            cmd = random_command(state, rng, at)
        elif draw() > 0.97 and (when := due(state)) is not None:  # (random_command's patience)
            cmd = _EXPIRE(when, "", state.phase_id)  # (Expire(at=when, author="", phase_id=...))
        elif "mc" not in (extra := state.extra) and "plot" not in extra and not state.proxied:
            cmd = _core_move(state, rng, at, table)
        else:
            cmd = _any_move(state, rng, at)
        try:
            result = advance(state, cmd, None, in_place)
        except Spent:  # (refused after it emitted: the state holds a part of it)
            state = replay(config, seed, events)
            refusals += 1
            continue
        if result.__class__ is Refusal:
            refusals += 1
            continue
        state, new = result  # type: ignore[misc]  # (not a Refusal)
        events += new
        last = state.last_event_at
        if last is not None and last > at:
            at = last
    return state, events, refusals


_VOTES = ("approve", "approve", "reject")
_NO_HANDS: dict = {}  # (read only)
_MINUTES = [timedelta(minutes=m) for m in range(91)]
_HOST_PHASES = (ASSASSINATION, PROPOSAL)  # where host_move may step in (play_out tests them inline)
_STANDINS = tuple(f"standin{k}" for k in range(1, 100))


def host_move(state: GameState, at: datetime):
    """What the host does for a seat that no player's move can serve, or None:

    - the Assassin is disqualified: the shot has no default and waits for the host, who
      REPLACEs the Assassin (with the first of the config's reserves who is free, else a
      stand-in);
    - every seat is disqualified at a proposal: no one may lead, and the host SKIPs it (the
      table stalls, and the game ends abandoned)."""
    phase = state.phase
    if phase == PROPOSAL:
        if state.paused_at is not None:
            return None
        for x in state.seats:
            if not x.disqualified:
                return None
        return HostSkip(at, state.config.host)
    if phase == ASSASSINATION and state.actors and state.player(state.actors[0]).disqualified:
        pool = [*state.config.reserves, *_STANDINS]
        newcomer = next((n for n in pool if check(state, state.actors[0], n) is None), None)
        if newcomer is None:  # (cannot be: a hundred stand-ins)
            return HostAbort(at, state.config.host)
        return HostReplace(at, state.config.host, state.actors[0], newcomer)
    return None


def _mission_card_move(s: GameState, rng: random.Random, at: datetime):
    m = s.extra["mc"]
    if s.phase == "prep_window":
        holder = rng.choice(s.actors)
        hand = m.hands.get(holder, [])
        if "counterespionage" in hand and rng.random() < 0.5:
            return PlayCard(at, holder, "Counterespionage", rng.choice([n for n in s.ids if n != holder]))
        if "prepare" in hand and rng.random() < 0.5:
            return PlayCard(at, holder, "Prepare for the Future", MC[rng.choice(m.drawn)].name)
        return PassCard(at, holder)
    card = m.drawn[m.current]
    commander = s.actors[0]
    target = rng.choice([n for n in s.ids if n != commander])
    if MC[card].action == "give":
        return GiveCard(at, commander, MC[card].name, target)
    return Choose(at, commander, target)
