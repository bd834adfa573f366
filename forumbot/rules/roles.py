"""Roles: who is dealt what, and what each role learns at the start.

One role set per preset family. A preset with special roles (Avalon) adds a role set
here and a row in ROLE_SETS; the engine only calls `deal` and `knowledge`.

Avalon's roles are declarations (`Role`, kept in plugin.py with the rest of what a module
declares): a side, what the role sees of the others at the start (`Sight`), and whether
every game deals it. The core's are in AVALON_ROLES; a rule module declares its own on its
plug-in (`RulePlugin.roles`: the Assassin, Tristan and Isolde), and the deal, the sides, the
knowledge and the config's checks read them all.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .config import GameConfig
from .hooks import module_of, plugin_classes
from .plugin import Role, Sight
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


# The spies see each other (all but Oberon), as minions or, in a preset that says so, by role.
FELLOW_SPIES = Sight("minion", side=SPIES, unless=frozenset({"oberon"}), named=True)
MERLIN_OR_MORGANA = "merlin-or-morgana"
FILLERS = {SPIES: "minion", RESISTANCE: "servant"}  # the roles that fill each side up

# The core's roles. A deal lists the roles it deals in this order, then the modules' by name,
# before it shuffles them: a new order would change every seed's deal.
AVALON_ROLES: tuple[Role, ...] = (
    Role("merlin", RESISTANCE, (Sight("minion", side=SPIES, unless=frozenset({"mordred"})),), always=True),
    Role("percival", RESISTANCE, (Sight("merlin", roles=frozenset({"merlin", "morgana"}),
                                        several=MERLIN_OR_MORGANA),)),
    Role("servant", RESISTANCE),
    Role("minion", SPIES, (FELLOW_SPIES,)),
    Role("mordred", SPIES, (FELLOW_SPIES,)),
    Role("morgana", SPIES, (FELLOW_SPIES,)),
    Role("oberon", SPIES),
)


def declared() -> dict[str, Role]:
    """Every role, by name: the core's in table order, then the rule modules' by name."""
    global _declared
    key = [cls.roles for cls in plugin_classes()]
    if _declared[0] != key:  # (the first call; or a test gave a module another role)
        extra = sorted((r for roles in key for r in roles), key=lambda r: r.name)
        _declared = (key, {r.name: r for r in (*AVALON_ROLES, *extra)})
    return _declared[1]


_declared: tuple[list, dict[str, Role]] = ([None], {})  # the modules' roles, and every role by name


def side_of(role: str) -> str:
    """The side a role plays on (a role nobody declares: the resistance's)."""
    return _side(declared(), role)


def _side(roles: dict[str, Role], role: str) -> str:
    found = roles.get(role)
    return found.side if found is not None else RESISTANCE


def module_roles() -> frozenset[str]:
    """The roles the rule modules declare (RulePlugin.roles), whether a game has them or not."""
    return frozenset(r.name for cls in plugin_classes() for r in cls.roles)


def always_dealt(config: GameConfig | None = None) -> list[Role]:
    """The roles every Avalon game deals, in table order: the core's, and those of the rule
    modules the game has (of every module, without a config)."""
    mine = set(declared()) if config is None else {r.name for r in AVALON_ROLES} | {
        r.name for cls in plugin_classes() if module_of(config, cls) for r in cls.roles}
    return [r for r in declared().values() if r.always and r.name in mine]


class AvalonRoles:
    """The roles every game deals (Merlin, the Assassin), and the others as the host lists
    them (or the preset's fixed roster). Sides and knowledge as the roles declare them
    (variants.md)."""

    def roster(self, config: GameConfig, players: int) -> tuple[list[str], list[str]]:
        p = config.rules
        if p.fixed_roster:
            return list(p.fixed_roster[0]), list(p.fixed_roster[1])
        spies = spy_count(players)
        always = always_dealt(config)
        listed = [r for r in declared().values()
                  if r.name in config.roles and not r.always and r.name not in FILLERS.values()]
        evil = [r.name for r in always + listed if r.side == SPIES]
        good = [r.name for r in always + listed if r.side != SPIES]
        evil += [FILLERS[SPIES]] * (spies - len(evil))
        good += [FILLERS[RESISTANCE]] * (players - spies - len(good))
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
        return side_of(role)

    def knowledge(self, state: GameState, seat_id: str) -> list[Knowledge]:
        """What seat `seat_id` learns at the start (the seats it names by their ids)."""
        me = state.player(seat_id)
        roles = declared()
        mine = roles.get(me.role)
        others = [s for s in state.seats if s.id != seat_id]
        out: list[Knowledge] = []
        for sight in mine.sees if mine is not None else ():
            seen = [s for s in others if s.role not in sight.unless
                    and (_side(roles, s.role) == sight.side if sight.side else s.role in sight.roles)]
            label = sight.several if sight.several and len(seen) > 1 else sight.label
            by_role = sight.named and state.config.rules.spies_know_roles
            out += [Knowledge(s.id, s.role if by_role else label) for s in seen]
        return out


ROLE_SETS: dict[str, PlainRoles | AvalonRoles] = {
    "resistance": PlainRoles(),
    "resistance-plot": PlainRoles(),
    "so-say-we-all": PlainRoles(),
    "avalon": AvalonRoles(),
    "avalon-2020": AvalonRoles(),
}


def role_set(config: GameConfig) -> PlainRoles | AvalonRoles:
    return ROLE_SETS[config.preset]
