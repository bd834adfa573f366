"""The assassination (Avalon): after the third success the Assassin names one player in
the thread. Merlin hit: the spies win. Anyone else: the loyal servants win. It has no
default: past the `choice` deadline it waits, and the host is told.

What the plug-in keeps: `state.extra["assassinated"]`, a `Shot`, once the Assassin has shot
(the lovers' double shot too: rules/lovers.py), and `state.extra["waiting_forever"]`, the
phase id of an assassination whose deadline has passed (deadlines.window reads it)."""
from __future__ import annotations

from dataclasses import dataclass

from .. import events as ev
from ..commands import Command, Refusal, said
from ..events import Event, event
from ..plugin import Role, RulePlugin
from ..roles import FELLOW_SPIES, role_set
from ..state import RESISTANCE, SPIES, GameState, open_phase, register_fold
from ..steps import end_game

PHASE = "assassination"
SHOT_KEY = "assassinated"
OVERDUE_KEY = "waiting_forever"


@dataclass(frozen=True)
class Shot:
    """The Assassin's shot: the seats it named (one: Merlin's; two: the lovers'), and
    whether it hit."""

    targets: tuple[str, ...]
    hit: bool


@dataclass(frozen=True, slots=True)
class Assassinate(Command):
    """The Assassin names `target` (a seat's id) as Merlin."""

    target: str


@event(ev.ASSASSINATION_OPENED)
class AssassinationOpened(Event):
    assassin: str


@event(ev.ASSASSINATION_OVERDUE)
class AssassinationOverdue(Event):
    assassin: str


@event(ev.ASSASSINATED)
class Assassinated(Event):
    assassin: str
    target: str
    hit: bool


def assassin(state: GameState) -> str | None:
    """The Assassin's seat."""
    return next((s.id for s in state.seats if s.role == "assassin"), None)


def shot(state: GameState) -> Shot | None:
    """The Assassin's shot, once made."""
    return state.extra.get(SHOT_KEY)


@register_fold(AssassinationOpened.type)
def _opened(state: GameState, e: AssassinationOpened) -> None:
    open_phase(state, PHASE, e, [e.assassin])


@register_fold(AssassinationOverdue.type)
def _overdue(state: GameState, e: AssassinationOverdue) -> None:
    state.put_extra(OVERDUE_KEY, state.phase_id)


@register_fold(Assassinated.type)
def _shot(state: GameState, e: Assassinated) -> None:
    state.put_extra(SHOT_KEY, Shot((e.target,), e.hit))


class Assassination(RulePlugin):
    name = "assassination"
    handles = (Assassinate,)
    phases = {PHASE: "choice"}
    phase_words = {PHASE: "the assassination"}
    command_words = {"Assassinate": "ASSASSINATE"}
    roles = (Role("assassin", SPIES, (FELLOW_SPIES,), always=True),)

    def before_game_end(self, tx, winner, reason) -> bool:
        s = tx.state
        if winner != RESISTANCE or reason != "missions" or SHOT_KEY in s.extra:
            return True
        tx.emit(AssassinationOpened, assassin=assassin(s))
        return False

    def handle(self, tx, cmd: Assassinate) -> Refusal | None:
        s = tx.state
        if s.phase != PHASE:
            return Refusal("There is no assassination now: it comes after the third successful mission.")
        if cmd.author != assassin(s):
            return Refusal("Only the Assassin may name Merlin.")
        if s.player(cmd.author).disqualified:
            return Refusal("You are disqualified; the shot waits for the host to REPLACE you.",
                           private=True)
        target = s.seat(cmd.target)
        if target is None:
            return Refusal(f"{cmd.target} is not a player in this game.", said("ASSASSINATE: name"))
        if target.id == cmd.author:
            return Refusal("You cannot name yourself.", said("ASSASSINATE: name"), private=True)
        if target.id in known_to(s, cmd.author):
            return Refusal(f"{s.shown(target.id)} is one of your own; name the player you think is Merlin.",
                           said("ASSASSINATE: name"), private=True)
        hit = target.role == "merlin"
        tx.emit(Assassinated, assassin=cmd.author, target=target.id, hit=hit)
        end_game(tx, SPIES, "assassination") if hit else end_game(tx, RESISTANCE, "missions")
        return None

    def on_expire(self, tx) -> bool:
        if tx.state.phase != PHASE:
            return False
        tx.emit(AssassinationOverdue, assassin=assassin(tx.state))
        return True


def known_to(state: GameState, seat: str) -> set[str]:
    """The seats `seat` knows from the deal (the Assassin's fellow spies)."""
    return {k.name for k in role_set(state.config).knowledge(state, seat)}  # (Knowledge.name: a seat's id)


PLUGIN = Assassination
