"""Roles: who is dealt what, and what each role learns at the start.

One role set per preset family. A preset with special roles (Avalon) adds a role set
here and a row in ROLE_SETS; the engine only calls `deal` and `knowledge`.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .config import GameConfig
from .presets import spy_count
from .state import RESISTANCE, SPIES, GameState


@dataclass(frozen=True)
class Knowledge:
    """One thing a seat learns at the start: a player (`name`: the seat's id; render shows
    `state.shown(name)`), and what it is told about them."""

    name: str
    label: str  # e.g. "spy"


class PlainRoles:
    """The base game: the resistance knows nothing; spies may know each other."""

    def deal(self, config: GameConfig, rng: random.Random) -> tuple[list[str], dict[str, str]]:
        order = list(config.players)
        if config.leader_order != "listed":
            rng.shuffle(order)
        spies = set(rng.sample(order, spy_count(len(order), config.rules)))
        p = config.rules
        roles = {n: (p.spy_role if n in spies else p.resistance_role) for n in order}
        return order, roles

    def side(self, config: GameConfig, role: str) -> str:
        return SPIES if role == config.rules.spy_role else RESISTANCE

    def knowledge(self, state: GameState, seat_id: str) -> list[Knowledge]:
        """What seat `seat_id` learns at the start (the seats it names by their ids)."""
        me = state.player(seat_id)
        if me.side != SPIES or not state.config.rules.spies_know_each_other:
            return []
        label = state.config.rules.spy_role
        return [Knowledge(s.id, label) for s in state.seats if s.side == SPIES and s.id != seat_id]


EVIL = {"minion", "assassin", "morgana", "mordred", "oberon"}
MERLIN_OR_MORGANA = "merlin-or-morgana"


class AvalonRoles:
    """Merlin and the Assassin always; Percival, Morgana, Mordred and Oberon as the host
    lists them (or the preset's fixed roster). Knowledge as in variants.md."""

    def roster(self, config: GameConfig, players: int) -> tuple[list[str], list[str]]:
        p = config.rules
        if p.fixed_roster:
            return list(p.fixed_roster[0]), list(p.fixed_roster[1])
        spies = spy_count(players)
        evil = ["assassin"] + sorted(r for r in config.roles if r in EVIL and r != "assassin")
        good = ["merlin"] + (["percival"] if "percival" in config.roles else [])
        good += sorted(r for r in config.roles if module_roles().get(r) == RESISTANCE)
        evil += ["minion"] * (spies - len(evil))
        good += ["servant"] * (players - spies - len(good))
        return good, evil

    def deal(self, config: GameConfig, rng: random.Random) -> tuple[list[str], dict[str, str]]:
        order = list(config.players)
        if config.leader_order != "listed":
            rng.shuffle(order)
        good, evil = self.roster(config, len(order))
        spies = rng.sample(order, len(evil))
        rng.shuffle(evil)
        rng.shuffle(good)
        roles = dict(zip(spies, evil, strict=True))
        roles.update(zip([n for n in order if n not in roles], good, strict=True))
        return order, {n: roles[n] for n in order}

    def side(self, config: GameConfig, role: str) -> str:
        return SPIES if role in EVIL else RESISTANCE

    def knowledge(self, state: GameState, seat_id: str) -> list[Knowledge]:
        """What seat `seat_id` learns at the start (the seats it names by their ids)."""
        me = state.player(seat_id)
        others = [s for s in state.seats if s.id != seat_id]
        if me.role in EVIL and me.role != "oberon":
            with_roles = state.config.rules.spies_know_roles
            return [Knowledge(s.id, s.role if with_roles else "minion")
                    for s in others if s.role in EVIL and s.role != "oberon"]
        if me.role == "merlin":
            return [Knowledge(s.id, "minion") for s in others if s.role in EVIL and s.role != "mordred"]
        if me.role == "percival":
            seen = [s for s in others if s.role in ("merlin", "morgana")]
            label = MERLIN_OR_MORGANA if len(seen) > 1 else "merlin"
            return [Knowledge(s.id, label) for s in seen]
        return []


ROLE_SETS: dict[str, PlainRoles | AvalonRoles] = {
    "resistance": PlainRoles(),
    "resistance-plot": PlainRoles(),
    "so-say-we-all": PlainRoles(),
    "avalon": AvalonRoles(),
    "avalon-2020": AvalonRoles(),
}


def module_roles() -> dict[str, str]:
    """The roles the rule modules add (RulePlugin.roles): role -> side."""
    from .hooks import plugin_classes

    return {r: side for cls in plugin_classes() for r, side in cls.roles.items()}


def role_set(config: GameConfig) -> PlainRoles | AvalonRoles:
    return ROLE_SETS[config.preset]
