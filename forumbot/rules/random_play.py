"""A random legal player for the pure engine: given a state, one command that some player
could legally send now (or a deadline). For property tests and the engine benchmark; it
never touches a forum or a store."""
from __future__ import annotations

import random
from datetime import datetime, timedelta

from ..deadlines import due
from .commands import (Assassinate, Choose, Expire, GiveCard, LadyTarget, MissionOrder, PassCard,
                       PlayCard, Propose, ProxyVote, TakeCard, TeamVote)
from .plot_deck import BY_KEY
from .roles import role_set
from .state import MISSION, PROPOSAL, RESISTANCE, TEAM_VOTE, GameState


def random_command(state: GameState, rng: random.Random, at: datetime, patience: float = 0.97):
    """A legal command, or the open phase's deadline now and then (1 - patience)."""
    if rng.random() > patience and due(state) is not None:
        return Expire(at=due(state), author="", phase_id=state.phase_id)
    s = state
    rules = s.config.rules
    active = [x.name for x in s.active()]
    badges = [n for n, h in s.extra.get("mc", {}).get("hands", {}).items() if "badge" in h and n != s.leader]
    if badges and s.leader and rng.random() < 0.05:
        return PlayCard(at, rng.choice(badges), "Badge of Merit")
    hands = s.extra.get("plot", {}).get("hands", {})
    if s.config.preset == "avalon-2020" and rng.random() < 0.03:  # a kept Take Responsibility
        takers = [n for n, h in hands.items() if "take-responsibility" in h]
        options = [(n, c) for n, h in hands.items() for c in h]
        if takers and options:
            taker = rng.choice(takers)
            mine = [(n, c) for n, c in options if n != taker]
            if mine:
                source, card = rng.choice(mine)
                return TakeCard(at, taker, BY_KEY[card].name, source)
    if s.phase == TEAM_VOTE and rng.random() < 0.2:
        proxies = [n for n, h in hands.items() if "chicago-proxy" in h and n not in s.proxied]
        targets = [n for n in active if n not in s.proxied and n not in s.not_voting]
        if proxies and targets:
            holder = rng.choice(proxies)
            target = rng.choice([t for t in targets if t != holder] or [holder])
            return PlayCard(at, holder, "Chicago Proxy", target, rng.choice(["approve", "reject", ""]))
        if s.proxied:
            target, holder = rng.choice(sorted(s.proxied.items()))
            return ProxyVote(at, holder, target, rng.choice(["approve", "reject"]))
    if s.phase == PROPOSAL:
        team = tuple(rng.sample(active, s.team_size())) if len(active) >= s.team_size() else tuple(active)
        public = rng.choice(team) if s.mission in rules.public_order_missions else None
        return Propose(at, s.leader, team, public)
    if s.phase == TEAM_VOTE:
        voter = rng.choice([n for n in (s.waiting_for() or active) if n not in s.proxied] or active)
        opinion = voter in s.extra.get("plot", {}).get("opinion", [])
        pm_only = s.config.team_votes == "pm" or s.mission in rules.pm_vote_missions
        via = "thread" if opinion and s.mission not in rules.pm_vote_missions else ("pm" if pm_only or rng.random() < 0.5 else "thread")
        critical = rules.critical_votes and voter not in s.critical_spent and rng.random() < 0.1
        return TeamVote(at, voter, rng.choice(["approve", "approve", "reject"]), via, critical)
    if s.phase == MISSION:
        member = rng.choice(s.waiting_for())
        side = s.seat(member).side
        order = "support" if side == RESISTANCE or rng.random() < 0.4 else "sabotage"
        return MissionOrder(at, member, order, "thread" if member == s.public else "pm")
    if s.phase == "assassination":
        assassin = s.actors[0]
        known = {k.name for k in role_set(s.config).knowledge(s, assassin)}
        return Assassinate(at, assassin, rng.choice([n for n in s.names if n != assassin and n not in known]))
    if s.phase == "lady":
        holder = s.actors[0]
        return LadyTarget(at, holder, rng.choice([n for n in s.names if n not in s.extra["lady_past"]]))
    if s.phase in ("prep_window", "prep_card"):
        return _mission_card_move(s, rng, at)
    plot = s.extra.get("plot")
    if s.phase == "hand_out":
        leader = s.actors[0]
        targets = [n for n in active if n != leader and n not in plot["given_to"]]
        return GiveCard(at, leader, BY_KEY[plot["drawn"][0]].name, rng.choice(targets))
    if s.phase == "plot_choice":
        card, holder = plot["current"]
        if card == "take-responsibility":
            source, taken = rng.choice([(n, c) for n, h in plot["hands"].items() if n != holder for c in h])
            return TakeCard(at, holder, BY_KEY[taken].name, source)
        i = s.names.index(holder)
        pool = ([s.names[i - 1], s.names[(i + 1) % len(s.names)]] if card == "overheard"
                else [n for n in s.names if n != holder])
        return Choose(at, holder, rng.choice(pool))
    if s.phase == "card_window":
        holder = rng.choice(s.actors)
        kind = plot["window"]["kind"]
        hand = plot["hands"].get(holder, [])
        if rng.random() < 0.5:
            return PassCard(at, holder)
        if kind in ("round_start", "after_veto"):
            return PlayCard(at, holder, "Strong Leader")
        if kind == "approved" and "no-confidence" in hand and rng.random() < 0.5:
            return PlayCard(at, holder, "No Confidence")
        if kind == "approved" and "spotlight" in hand:
            return PlayCard(at, holder, "In the Spotlight", rng.choice(s.team))
        if kind == "after_result" and s.config.preset == "avalon-2020" and holder not in plot.get("declared", []):
            return PlayCard(at, holder, "Keeping a Close Eye on You")
        if kind == "after_result":
            team = [n for n in s.missions[-1]["team"] if n != holder and n not in plot.get("picked", [])]
            if team:
                return Choose(at, holder, rng.choice(team), via="pm")
        return PassCard(at, holder)
    raise AssertionError(f"no random move for phase {s.phase}")


def play_out(config, seed: int, rng: random.Random, start_at: datetime, max_steps: int = 5000):
    """Play a whole game with random legal moves: (state, events, refusals)."""
    from .commands import Refusal
    from .engine import apply, start
    from .state import GameState, fold

    events = start(config, seed, start_at)
    state = GameState(config)
    for e in events:
        fold(state, e)
    at = start_at
    refusals = 0
    for _ in range(max_steps):
        if not state.running:
            break
        at += timedelta(minutes=rng.randint(1, 90))
        cmd = random_command(state, rng, at)
        result = apply(state, cmd)
        if isinstance(result, Refusal):
            refusals += 1
            continue
        for e in result:
            fold(state, e)
        events += result
        at = max(at, state.last_event_at)
    return state, events, refusals


def _mission_card_move(s: GameState, rng: random.Random, at: datetime):
    from .mission_cards import BY_KEY as MC

    m = s.extra["mc"]
    if s.phase == "prep_window":
        holder = rng.choice(s.actors)
        hand = m["hands"].get(holder, [])
        if "counterespionage" in hand and rng.random() < 0.5:
            return PlayCard(at, holder, "Counterespionage", rng.choice([n for n in s.names if n != holder]))
        if "prepare" in hand and rng.random() < 0.5:
            return PlayCard(at, holder, "Prepare for the Future", MC[rng.choice(m["drawn"])].name)
        return PassCard(at, holder)
    card = m["drawn"][m["current"]]
    commander = s.actors[0]
    target = rng.choice([n for n in s.names if n != commander])
    if MC[card].action == "give":
        return GiveCard(at, commander, MC[card].name, target)
    return Choose(at, commander, target)
