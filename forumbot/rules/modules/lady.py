"""The Lady of the Lake (Avalon, optional): it starts with the last player in the leader
order. Right after missions 2, 3 and 4 its holder names another player who has not held
it (`LADY:`); the holder learns that player's allegiance by PM, and the Lady passes on.
Skipped once the game is decided, at the `choice` deadline, or for a disqualified holder.

Everything the plug-in keeps is `state.extra["lady"]`, a `Lady`, changed only by its events."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .. import events as ev
from ..commands import Command, Refusal, said
from ..events import Event, MissionResolved, event
from ..plugin import Parsed, RulePlugin, Word
from ..presets import MISSIONS_TO_WIN
from ..state import GameState, open_phase, register_fold
from ..steps import resume_after_mission

PHASE = "lady"
KEY = "lady"
AFTER_MISSIONS = (2, 3, 4)


@dataclass(frozen=True)
class Lady:
    """Who holds the Lady of the Lake (a seat's id), and every seat that has held it, the
    first holder first (the holder too)."""

    holder: str
    past: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LadyTarget(Command):
    """The holder names `target` (a seat's id) for the Lady of the Lake."""

    target: str


@event(ev.LADY_GIVEN)
class LadyGiven(Event):
    holder: str  # the first holder (the deal)


@event(ev.LADY_OPENED)
class LadyOpened(Event):
    holder: str
    mission: int


@event(ev.LADY_USED)
class LadyUsed(Event):
    holder: str
    target: str
    side: str  # the target's allegiance: the holder's PM only


@event(ev.LADY_SKIPPED)
class LadySkipped(Event):
    holder: str
    reason: str


@register_fold(LadyGiven.type)
def _given(state: GameState, e: LadyGiven) -> None:
    state.put_extra(KEY, Lady(e.holder, (e.holder,)))


@register_fold(LadyOpened.type)
def _opened(state: GameState, e: LadyOpened) -> None:
    open_phase(state, PHASE, e, [e.holder])


@register_fold(LadyUsed.type)
def _used(state: GameState, e: LadyUsed) -> None:
    state.put_extra(KEY, Lady(e.target, lady(state).past + (e.target,)))


@register_fold(LadySkipped.type)
def _skipped(state: GameState, e: LadySkipped) -> None:
    pass


def lady(state: GameState) -> Lady:
    """The Lady of the Lake of a game that has it (from its deal on)."""
    return state.extra[KEY]


def holder(state: GameState) -> str | None:
    """The seat that holds the Lady of the Lake; None: the game has no Lady."""
    x = state.extra.get(KEY)
    return x.holder if x is not None else None


def held(state: GameState) -> tuple[str, ...]:
    """The seats that have held the Lady of the Lake (who may not be named)."""
    x = state.extra.get(KEY)
    return x.past if x is not None else ()


def decided(state: GameState) -> bool:
    return state.successes() >= MISSIONS_TO_WIN or state.failures() >= MISSIONS_TO_WIN


class LadyOfTheLake(RulePlugin):
    name = "lady_of_the_lake"
    handles = (LadyTarget,)
    words = (Word(re.compile(r"^LADY\s*:?\s*(\S+)\s*$", re.I), lambda m, s: _parsed(m.group(1), s)),)
    phases = {PHASE: "choice"}
    phase_words = {PHASE: "the Lady of the Lake"}
    command_words = {"LadyTarget": "LADY"}

    def after_start(self, tx) -> None:
        tx.emit(LadyGiven, holder=tx.state.ids[-1])

    def after_mission(self, tx, record: MissionResolved) -> bool:
        s = tx.state
        if record.number not in AFTER_MISSIONS or decided(s):
            return False
        who = lady(s).holder
        if s.player(who).disqualified:
            tx.emit(LadySkipped, holder=who, reason="the holder is disqualified")
            return False
        tx.emit(LadyOpened, holder=who, mission=record.number)
        return True

    def handle(self, tx, cmd: LadyTarget) -> Refusal | None:
        s = tx.state
        if s.phase != PHASE:
            return Refusal("The Lady of the Lake is not in use now: it comes right after missions 2, 3 and 4.")
        now = lady(s)
        if cmd.author != now.holder:
            return Refusal(f"Only the holder of the Lady of the Lake, {s.shown(now.holder)}, may use it.")
        target = s.seat(cmd.target)
        if target is None:
            return Refusal(f"{cmd.target} is not a player in this game.", said("LADY: name"))
        if target.id == now.holder:
            return Refusal("Name another player, not yourself.", said("LADY: name"))
        if target.id in now.past:
            return Refusal(f"{s.shown(target.id)} has held the Lady already; name a player who has not.",
                           said("LADY: name"))
        tx.emit(LadyUsed, holder=now.holder, target=target.id, side=target.side)
        resume_after_mission(tx, after=self)
        return None

    def on_expire(self, tx) -> bool:
        if tx.state.phase != PHASE:
            return False
        tx.emit(LadySkipped, holder=lady(tx.state).holder, reason="the deadline passed")
        resume_after_mission(tx, after=self)
        return True

    # --- random play and the demo ------------------------------------------------------
    def random_move(self, state, rng, at):
        if state.phase != PHASE:
            return None
        held_ = held(state)
        return LadyTarget(at, state.actors[0], rng.choice([n for n in state.ids if n not in held_]))

    def written(self, state, command):
        if isinstance(command, LadyTarget):
            return "LADY: " + state.shown(command.target), "thread"
        return None


def _parsed(name: str, text: str) -> "Parsed":
    return Parsed("lady", names=(name,), text=text)


PLUGIN = LadyOfTheLake
