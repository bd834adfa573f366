"""The steps every part of a round shares: opening a proposal, what follows a mission
(the plug-ins' phases, then the next round or the end), and the end of the game."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import events as ev
from .hooks import for_hook
from .presets import MISSIONS_TO_WIN, fails_needed, team_size
from .state import (
    MISSION,
    PROPOSAL,
    RESISTANCE,
    SPIES,
    TEAM_VOTE,
    GameState,
    phase_words,
)

if TYPE_CHECKING:
    from .engine import Tx


def _disqualify_missing(tx: Tx, missed: list[str]) -> None:
    s = tx.state
    limit = s.config.missed.disqualify_after
    if not limit:
        return
    for name in missed:
        seat = s.player(name)
        if not seat.disqualified and seat.missed >= limit:
            tx.emit(ev.PlayerDisqualified, player=name, missed=seat.missed,
                    reason=f"missed {seat.missed} votes in a row")




def resume_after_mission(tx: Tx, after=None) -> None:
    """Run the after-mission plug-ins in order, from the one after `after`. One that opens a
    phase of its own (the Lady, a card window) returns True, and calls this again with
    itself as `after` when its phase is over. Then the game goes on."""
    record: ev.MissionResolved = tx.state.missions[-1]
    plugins = for_hook(tx.plugins, "after_mission")
    start = plugins.index(after) + 1 if after is not None else 0
    for p in plugins[start:]:
        if p.after_mission(tx, record):
            return
    advance_after_mission(tx)


def advance_after_mission(tx: Tx) -> None:
    """After a mission and whatever follows it: the game ends, or the next mission starts."""
    s = tx.state
    if s.successes() >= MISSIONS_TO_WIN:
        _end(tx, RESISTANCE, "missions")
    elif s.failures() >= MISSIONS_TO_WIN:
        _end(tx, SPIES, "missions")
    else:
        _open_proposal(tx, s.mission + 1, _first_leader(tx, s.next_leader(s.leader)))


def _first_leader(tx: Tx, default: str) -> str:
    for p in tx.plugins:
        if (name := p.first_leader(tx.state)) is not None:
            return name
    return default




# --- shared steps -------------------------------------------------------------------


def _open_proposal(tx: Tx, mission: int, leader: str, ready: bool = False) -> None:
    s = tx.state
    same = mission == s.mission
    if not same and not ready:  # a new round: plug-ins may hold it (the plot cards)
        for p in tx.plugins:
            if p.before_round(tx, mission, leader):
                return
    tx.emit(ev.ProposalOpened, mission=mission, leader=leader,
            attempt=s.attempt + 1 if same else 1, rejections=s.rejections if same else 0,
            team_size=_size(s, mission), fails_needed=_fails(s, mission))


def _size(s: GameState, mission: int) -> int:
    return team_size(len(s.seats), mission)


def _fails(s: GameState, mission: int) -> int:
    return fails_needed(s.config.rules, len(s.seats), mission)


def end_game(tx: Tx, winner: str, reason: str) -> None:
    _end(tx, winner, reason)


def open_proposal(tx: Tx, mission: int, leader: str) -> None:
    """Open a proposal; for a new round, only once its plug-ins are done with it."""
    _open_proposal(tx, mission, leader, ready=True)


def _end(tx: Tx, winner: str, reason: str) -> None:
    for p in tx.plugins:
        if not p.before_game_end(tx, winner, reason):
            return
    s = tx.state
    end = tx.emit(ev.GameEnded, winner=winner, reason=reason, roles={x.id: x.role for x in s.seats})
    for p in tx.plugins:
        p.after_game_end(tx, end)


def _phase_words(s: GameState) -> str:
    if s.phase == PROPOSAL:
        return f"the leader, {s.shown(s.leader or '')}, is choosing a team for mission {s.mission}"
    if s.phase == TEAM_VOTE:
        return f"the team for mission {s.mission} is being voted on"
    if s.phase == MISSION:
        return f"mission {s.mission} is under way"
    if s.running:
        who = f" ({', '.join(map(s.shown, s.actors))} to act)" if s.actors else ""
        return f"the game is at {phase_words(s.phase)}{who}"
    return "the game is not running"
