"""Tristan and Isolde (avalon, `roles: [..., tristan, isolde]`, both or neither, 7+ players;
variants.md, "Beyond the seeds"). Both are loyal servants who know each other, as lovers,
and nothing else (their role PMs name each other: render/lovers.py). At the assassination
the Assassin may, instead of one name, name both lovers: `ASSASSINATE: a, b`. If both are
the lovers, the spies win; if not, the resistance wins. One name is still a shot at Merlin.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..commands import Command, Refusal, said
from ..events import Event, event
from ..plugin import Parsed, Role, RulePlugin, Word
from ..state import RESISTANCE, SPIES, GameState, register_fold
from ..steps import end_game
from .assassin import PHASE as ASSASSINATION
from .assassin import SHOT_KEY, Shot, assassin, known_to

LOVERS = ("tristan", "isolde")
SHOT = "lovers_shot"  # assassin, targets, hit
MIN_PLAYERS = 7


@dataclass(frozen=True, slots=True)
class ShootLovers(Command):
    targets: tuple[str, str]


@event(SHOT)
class LoversShot(Event):
    assassin: str
    targets: list[str]  # the two seats named
    hit: bool


@register_fold(LoversShot.type)
def _shot(state: GameState, e: LoversShot) -> None:
    state.put_extra(SHOT_KEY, Shot(tuple(e.targets), e.hit))


def lovers(state: GameState) -> list[str]:
    """The lovers' seats (their ids), Tristan first."""
    by_role = {s.role: s.id for s in state.seats}
    return [by_role[r] for r in LOVERS if r in by_role]


def lover_of(state: GameState, seat: str) -> str | None:
    """The other lover's seat, for a lover's seat; None for anyone else."""
    pair = lovers(state)
    if seat in pair and len(pair) == 2:
        return pair[1] if pair[0] == seat else pair[0]
    return None


_TWO = re.compile(r"^(?:ASSASSINATE|SHOOT)\s*:?\s*([^\s:,&]\S*?)\s*(?:,|&|\band\b|\s)\s*([^\s,&]\S*?)[.!]*$", re.I)


def _parsed(m: re.Match, text: str):
    return Parsed("assassinate", names=(m.group(1), m.group(2)), text=text)


class TristanAndIsolde(RulePlugin):
    name = "tristan_and_isolde"
    handles = (ShootLovers,)
    words = (Word(_TWO, _parsed),)
    roles = (Role("tristan", RESISTANCE), Role("isolde", RESISTANCE))  # (they see each other: render's role note)
    command_words = {"ShootLovers": "ASSASSINATE"}
    demo = {"roles": ["tristan", "isolde"]}

    @classmethod
    def check_config(cls, preset, names, size, kw, bad) -> None:
        roles = set(kw.get("roles", ()))
        both = set(LOVERS) <= roles
        if roles & set(LOVERS) and not both:
            bad("roles", "Tristan and Isolde play together: list both or neither")
        elif both and size and size < MIN_PLAYERS:
            bad("roles", f"Tristan and Isolde need {MIN_PLAYERS} players or more; "
                         f"{'the sign-ups allow' if not names else 'the game has'} {size}")

    # --- intake -------------------------------------------------------------------
    @classmethod
    def reads(cls, state, parsed) -> bool:
        return parsed.verb == "assassinate" and len(parsed.names) == 2

    @classmethod
    def command(cls, state, parsed, seat, via, at, core):
        found = core.names(parsed.names)
        if isinstance(found, Refusal):
            return found
        return ShootLovers(at=at, author=seat, targets=(found[0], found[1]))

    # --- the rules ----------------------------------------------------------------
    def handle(self, tx, cmd: ShootLovers) -> Refusal | None:
        s = tx.state
        form = said("ASSASSINATE: name, name")
        if s.phase != ASSASSINATION:
            return Refusal("There is no assassination now: it comes after the third successful mission.")
        if cmd.author != assassin(s):
            return Refusal("Only the Assassin may name the lovers.")
        if s.player(cmd.author).disqualified:
            return Refusal("You are disqualified; the shot waits for the host to REPLACE you.",
                           private=True)
        a, b = cmd.targets
        if a == b:
            return Refusal("Name two different players: the two lovers.", form, private=True)
        if cmd.author in cmd.targets:
            return Refusal("You cannot name yourself.", form, private=True)
        known = known_to(s, cmd.author)
        ours = [n for n in cmd.targets if n in known]
        if ours:
            return Refusal(f"{s.shown(ours[0])} is one of your own; name the two players you think are "
                           "Tristan and Isolde.", form, private=True)
        hit = set(cmd.targets) == set(lovers(s))
        tx.emit(LoversShot, assassin=cmd.author, targets=list(cmd.targets), hit=hit)
        end_game(tx, SPIES, "assassination") if hit else end_game(tx, RESISTANCE, "missions")
        return None

    # --- random play and the demo ------------------------------------------------------
    def random_move(self, state, rng, at):
        if state.phase != ASSASSINATION or rng.random() < 0.5:
            return None
        shooter = state.actors[0]
        if state.player(shooter).disqualified:
            return None
        known = known_to(state, shooter)
        pool = [n for n in state.ids if n != shooter and n not in known]
        if len(pool) < 2:
            return None
        a, b = rng.sample(pool, 2)
        return ShootLovers(at, shooter, (a, b))

    def written(self, state, command):
        if isinstance(command, ShootLovers):
            a, b = (state.shown(x) for x in command.targets)
            return f"ASSASSINATE: {a}, {b}", "thread"
        return None


PLUGIN = TristanAndIsolde
