"""The Mission Commander (so-say-we-all). At mission 1 it is the first player in the leader
order. After a successful mission the leader of the approved proposal becomes Commander;
after a failed one, the player after that leader. A mission's first leader is the player
after the Commander. Disqualified players are skipped.

Everything the plug-in keeps is `state.extra["commander"]`: the Commander's seat (its id),
changed only by its events (`commander(state)` reads it)."""
from __future__ import annotations

from .. import events as ev
from ..events import Event, MissionResolved, event
from ..plugin import RulePlugin
from ..presets import MISSIONS_TO_WIN
from ..state import GameState, register_fold

KEY = "commander"


@event(ev.COMMANDER_NAMED)
class CommanderNamed(Event):
    commander: str
    mission: int


@register_fold(CommanderNamed.type)
def _named(state: GameState, e: CommanderNamed) -> None:
    state.put_extra(KEY, e.commander)


def commander(state: GameState) -> str | None:
    """The Mission Commander's seat; None: the game has none."""
    return state.extra.get(KEY)


class MissionCommander(RulePlugin):
    name = "commander"

    def after_start(self, tx) -> None:
        tx.emit(CommanderNamed, commander=tx.state.ids[0], mission=1)

    def after_mission(self, tx, record: MissionResolved) -> None:
        s = tx.state
        if s.successes() >= MISSIONS_TO_WIN or s.failures() >= MISSIONS_TO_WIN:
            return  # the game is decided: there is no next mission to command
        leader = record.leader
        named = leader if record.result == "success" else s.next_leader(leader)
        if s.player(named).disqualified:
            named = s.next_leader(named)
        tx.emit(CommanderNamed, commander=named, mission=record.number + 1)

    def first_leader(self, state) -> str | None:
        return state.next_leader(state.extra[KEY])


PLUGIN = MissionCommander
