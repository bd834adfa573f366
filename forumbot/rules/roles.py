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
    """One thing a seat learns at the start: a player, and what it is told about them."""

    name: str
    label: str  # e.g. "spy"


class PlainRoles:
    """The base game: the resistance knows nothing; spies may know each other."""

    def deal(self, config: GameConfig, rng: random.Random) -> tuple[list[str], dict[str, str]]:
        order = list(config.players)
        if config.leader_order != "listed":
            rng.shuffle(order)
        spies = set(rng.sample(order, spy_count(len(order))))
        p = config.rules
        roles = {n: (p.spy_role if n in spies else p.resistance_role) for n in order}
        return order, roles

    def side(self, config: GameConfig, role: str) -> str:
        return SPIES if role == config.rules.spy_role else RESISTANCE

    def knowledge(self, state: GameState, name: str) -> list[Knowledge]:
        me = state.seat(name)
        if me.side != SPIES or not state.config.rules.spies_know_each_other:
            return []
        label = state.config.rules.spy_role
        return [Knowledge(s.name, label) for s in state.seats if s.side == SPIES and s.name != name]


ROLE_SETS = {
    "resistance": PlainRoles(),
    "resistance-plot": PlainRoles(),
    "so-say-we-all": PlainRoles(),
}


def role_set(config: GameConfig) -> PlainRoles:
    return ROLE_SETS[config.preset]
