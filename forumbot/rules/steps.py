"""The steps every part of a round shares: opening a proposal, what follows a mission
(the plug-ins' phases, then the next round or the end), and the end of the game."""
from __future__ import annotations

from . import events as ev
from .hooks import for_hook, phase_words
from .plugin import Tx
from .presets import MISSIONS_TO_WIN, fails_needed, team_size
from .state import (
    MISSION,
    PROPOSAL,
    RESISTANCE,
    SPIES,
    TEAM_VOTE,
    GameState,
    state_next_leader,
    state_player,
)


def disqualify_missing(tx: Tx, missed: list[str]) -> None:
    """Disqualify the seats of `missed` (ids: they missed a vote or an order just now) that
    have missed as many in a row as the config's `missed.disqualify_after` (0: never)."""
    s = tx.state
    limit = s.config.missed.disqualify_after
    if not limit:
        return
    for name in missed:
        seat = state_player(s, name)
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
        end_game(tx, RESISTANCE, "missions")
    elif s.failures() >= MISSIONS_TO_WIN:
        end_game(tx, SPIES, "missions")
    else:
        begin_proposal(tx, s.mission + 1, first_leader(tx, state_next_leader(s, s.leader)))


def first_leader(tx: Tx, default: str) -> str:
    """The first leader (a seat's id) of the mission about to start: the first plug-in's
    that names one (RulePlugin.first_leader), else `default`."""
    for p in tx.plugins:
        if (name := p.first_leader(tx.state)) is not None:
            return name
    return default


# --- shared steps -------------------------------------------------------------------


def begin_proposal(tx: Tx, mission: int, leader: str, ready: bool = False) -> None:
    """Open a proposal of `mission`, led by seat `leader` (an id): another of this mission, or
    the first of a new round, which the plug-ins may hold first (RulePlugin.before_round; one
    that holds it calls `open_proposal` when it is done). `ready`: they are done with it."""
    s = tx.state
    same = mission == s.mission
    if not same and not ready:  # a new round: plug-ins may hold it (the plot cards)
        for p in tx.plugins:
            if p.before_round(tx, mission, leader):
                return
    tx.add(_PROPOSAL_OPENED(tx.at, mission=mission, leader=leader,
            attempt=s.attempt + 1 if same else 1, rejections=s.rejections if same else 0,
            team_size=_size(s, mission), fails_needed=_fails(s, mission)))


def _size(s: GameState, mission: int) -> int:
    return team_size(len(s.seats), mission)


def _fails(s: GameState, mission: int) -> int:
    return fails_needed(s.config.rules, len(s.seats), mission)


def open_proposal(tx: Tx, mission: int, leader: str) -> None:
    """Open a proposal; for a new round, only once its plug-ins are done with it."""
    begin_proposal(tx, mission, leader, ready=True)


def end_game(tx: Tx, winner: str, reason: str) -> None:
    """The game ends, `winner` (a side) winning for `reason`; unless a plug-in holds the end
    back (RulePlugin.before_game_end: an assassination still to come, say)."""
    for p in tx.plugins:
        if not p.before_game_end(tx, winner, reason):
            return
    s = tx.state
    end = tx.emit(ev.GameEnded, winner=winner, reason=reason, roles={x.id: x.role for x in s.seats})
    for p in tx.plugins:
        p.after_game_end(tx, end)


def phase_status(s: GameState) -> str:
    """Where the game is now, in words, for a refusal: "the team for mission 2 is being voted on"."""
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


_PROPOSAL_OPENED = ev.maker(ev.ProposalOpened)  # (the hot path: no keyword dict)
