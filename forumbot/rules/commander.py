"""The Mission Commander (so-say-we-all). At mission 1 it is the first player in the leader
order. After a successful mission the leader of the approved proposal becomes Commander;
after a failed one, the player after that leader. A mission's first leader is the player
after the Commander. Disqualified players are skipped."""
from __future__ import annotations

from . import events as ev
from .hooks import RulePlugin
from .presets import MISSIONS_TO_WIN
from .state import register_fold


@register_fold(ev.COMMANDER_NAMED)
def _named(state, e):
    state.put_extra("commander", e.data["commander"])


class MissionCommander(RulePlugin):
    name = "commander"

    def after_start(self, tx) -> None:
        tx.emit(ev.COMMANDER_NAMED, commander=tx.state.names[0], mission=1)

    def after_mission(self, tx, record) -> None:
        s = tx.state
        if s.successes() >= MISSIONS_TO_WIN or s.failures() >= MISSIONS_TO_WIN:
            return  # the game is decided: there is no next mission to command
        leader = record["leader"]
        commander = leader if record["result"] == "success" else s.next_leader(leader)
        if s.player(commander).disqualified:
            commander = s.next_leader(commander)
        tx.emit(ev.COMMANDER_NAMED, commander=commander, mission=record["number"] + 1)

    def first_leader(self, state) -> str | None:
        return state.next_leader(state.extra["commander"])


PLUGIN = MissionCommander
