"""The Lady of the Lake (Avalon, optional): it starts with the last player in the leader
order. Right after missions 2, 3 and 4 its holder names another player who has not held
it (`LADY:`); the holder learns that player's allegiance by PM, and the Lady passes on.
Skipped once the game is decided, at the `choice` deadline, or for a disqualified holder."""
from __future__ import annotations

from . import events as ev
from .commands import LadyTarget, Refusal, said
from .hooks import RulePlugin
from .presets import MISSIONS_TO_WIN
from .state import GameState, open_phase, register_fold

PHASE = "lady"
AFTER_MISSIONS = (2, 3, 4)


@register_fold(ev.LADY_GIVEN)
def _given(state, e):
    state.put_extra("lady", e.data["holder"])
    state.put_extra("lady_past", [e.data["holder"]])


@register_fold(ev.LADY_OPENED)
def _opened(state, e):
    open_phase(state, PHASE, e, [e.data["holder"]])


@register_fold(ev.LADY_USED)
def _used(state, e):
    state.put_extra("lady", e.data["target"])
    state.put_extra("lady_past", state.extra["lady_past"] + [e.data["target"]])


@register_fold(ev.LADY_SKIPPED)
def _skipped(state, e):
    pass


def decided(state: GameState) -> bool:
    return state.successes() >= MISSIONS_TO_WIN or state.failures() >= MISSIONS_TO_WIN


class LadyOfTheLake(RulePlugin):
    name = "lady_of_the_lake"
    handles = (LadyTarget,)
    phases = {PHASE: "choice"}
    phase_words = {PHASE: "the Lady of the Lake"}
    command_words = {"LadyTarget": "LADY"}

    def after_start(self, tx) -> None:
        tx.emit(ev.LADY_GIVEN, holder=tx.state.names[-1])

    def after_mission(self, tx, record) -> bool:
        s = tx.state
        if record["number"] not in AFTER_MISSIONS or decided(s):
            return False
        holder = s.extra["lady"]
        if s.player(holder).disqualified:
            tx.emit(ev.LADY_SKIPPED, holder=holder, reason="the holder is disqualified")
            return False
        tx.emit(ev.LADY_OPENED, holder=holder, mission=record["number"])
        return True

    def handle(self, tx, cmd: LadyTarget) -> Refusal | None:
        from .engine import resume_after_mission

        s = tx.state
        if s.phase != PHASE:
            return Refusal("The Lady of the Lake is not in use now: it comes right after missions 2, 3 and 4.")
        holder = s.extra["lady"]
        if cmd.author != holder:
            return Refusal(f"Only the holder of the Lady of the Lake, {holder}, may use it.")
        target = s.seat(cmd.target)
        if target is None:
            return Refusal(f"{cmd.target} is not a player in this game.", said("LADY: name"))
        if target.name == holder:
            return Refusal("Name another player, not yourself.", said("LADY: name"))
        if target.name in s.extra["lady_past"]:
            return Refusal(f"{target.name} has held the Lady already; name a player who has not.",
                           said("LADY: name"))
        tx.emit(ev.LADY_USED, holder=holder, target=target.name, side=target.side)
        resume_after_mission(tx, after=self)
        return None

    def on_expire(self, tx) -> bool:
        from .engine import resume_after_mission

        if tx.state.phase != PHASE:
            return False
        tx.emit(ev.LADY_SKIPPED, holder=tx.state.extra["lady"], reason="the deadline passed")
        resume_after_mission(tx, after=self)
        return True


PLUGIN = LadyOfTheLake
