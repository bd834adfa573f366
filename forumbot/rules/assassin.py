"""The assassination (Avalon): after the third success the Assassin names one player in
the thread. Merlin hit: the spies win. Anyone else: the loyal servants win. It has no
default: past the `choice` deadline it waits, and the host is told."""
from __future__ import annotations

from . import events as ev
from .commands import Assassinate, Refusal, said
from .hooks import RulePlugin
from .state import RESISTANCE, SPIES, GameState, open_phase, register_fold

PHASE = "assassination"


def assassin(state: GameState) -> str | None:
    return next((s.name for s in state.seats if s.role == "assassin"), None)


@register_fold(ev.ASSASSINATION_OPENED)
def _opened(state, e):
    open_phase(state, PHASE, e, [e.data["assassin"]])


@register_fold(ev.ASSASSINATION_OVERDUE)
def _overdue(state, e):
    state.put_extra("waiting_forever", state.phase_id)


@register_fold(ev.ASSASSINATED)
def _shot(state, e):
    state.put_extra("assassinated", e.data["target"])


class Assassination(RulePlugin):
    name = "assassination"
    handles = (Assassinate,)
    phases = {PHASE: "choice"}
    phase_words = {PHASE: "the assassination"}
    command_words = {"Assassinate": "ASSASSINATE"}

    def before_game_end(self, tx, winner, reason) -> bool:
        s = tx.state
        if winner != RESISTANCE or reason != "missions" or "assassinated" in s.extra:
            return True
        tx.emit(ev.ASSASSINATION_OPENED, assassin=assassin(s))
        return False

    def handle(self, tx, cmd: Assassinate) -> Refusal | None:
        from .engine import end_game

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
        if target.name == cmd.author:
            return Refusal("You cannot name yourself.", said("ASSASSINATE: name"), private=True)
        known = {k.name for k in _knows(s, cmd.author)}
        if target.name in known:
            return Refusal(f"{target.name} is one of your own; name the player you think is Merlin.",
                           said("ASSASSINATE: name"), private=True)
        hit = target.role == "merlin"
        tx.emit(ev.ASSASSINATED, assassin=cmd.author, target=target.name, hit=hit)
        end_game(tx, SPIES, "assassination") if hit else end_game(tx, RESISTANCE, "missions")
        return None

    def on_expire(self, tx) -> bool:
        if tx.state.phase != PHASE:
            return False
        tx.emit(ev.ASSASSINATION_OVERDUE, assassin=assassin(tx.state))
        return True


def _knows(state: GameState, name: str):
    from .roles import role_set

    return role_set(state.config).knowledge(state, name)


PLUGIN = Assassination
