"""The clock's and the host's commands: deadlines, reminders, PAUSE and RESUME, EXTEND,
CLOSE, SKIP, DISQUALIFY, REPLACE, ABORT; and a table that never proposes. (RECORD is the
engine's: it runs the recorded command through the engine's table of commands.)"""
from __future__ import annotations

from . import events as ev
from . import replace
from .commands import (
    Expire,
    HostAbort,
    HostClose,
    HostDisqualify,
    HostExtend,
    HostPause,
    HostReplace,
    HostResume,
    HostSkip,
    Postpone,
    Refusal,
    Remind,
)
from .deadlines import due
from .missions import close_mission
from .plugin import Tx
from .presets import REJECTIONS_TO_LOSE
from .state import (
    MISSION,
    PROPOSAL,
    SPIES,
    TEAM_VOTE,
)
from .steps import begin_proposal, end_game, phase_status
from .team import close_vote

# --- deadlines ----------------------------------------------------------------------


def expire(tx: Tx, cmd: Expire) -> Refusal | None:
    """The deadline of the open phase has passed: it closes, what is missing taking its default."""
    s = tx.state
    if cmd.phase_id != s.phase_id:
        return Refusal("That deadline belongs to a phase that is already over.")
    if s.phase == PROPOSAL:
        counts = s.config.rules.missed_proposal_counts_as_rejection
        tx.emit(ev.ProposalMissed, mission=s.mission, leader=s.leader,
                counts_as_rejection=counts)
        if counts and s.rejections >= REJECTIONS_TO_LOSE:
            end_game(tx, SPIES, "rejections")
        elif not _stalled(tx):
            begin_proposal(tx, s.mission, s.next_leader(s.leader))
    elif s.phase == TEAM_VOTE:
        close_vote(tx)
    elif s.phase == MISSION:
        close_mission(tx)
    elif not any(p.on_expire(tx) for p in tx.plugins):
        return Refusal(f"Nothing in phase {s.phase} has a deadline.")
    return None


def _stalled(tx: Tx) -> bool:
    """A table that never proposes (a binding ruling): once every seat in turn has missed its
    proposal deadline (one full turn of the leadership with no proposal), the host is told,
    once; if a second full turn passes with no proposal, the game ends, abandoned, winner
    none, the roles revealed as ABORT does. The count is of missed proposal deadlines in a
    row (a SKIP of a proposal is one); any proposal resets it. Disqualified seats never lead
    (they are skipped), so a turn is as many misses as there are seats that can lead; when
    every seat is disqualified the leadership passes over them all, so a turn is every seat.
    True if the game ended."""
    s = tx.state
    turn = s.leader_rotation()
    if not s.stall_warned_at:
        if s.missed_proposals >= turn:
            tx.emit(ev.ProposalsStalled, mission=s.mission, missed=s.missed_proposals, turn=turn)
        return False
    if s.missed_proposals - s.stall_warned_at < turn:
        return False
    tx.emit(ev.GameEnded, winner=None, reason="abandoned", missed=s.missed_proposals,
            roles={x.id: x.role for x in s.seats})
    return True


# --- the host's commands, and reminders --------------------------------------------------


def host_close(tx: Tx, cmd: HostClose) -> Refusal | None:
    """The host's CLOSE: the open team vote or mission closes now, as at its deadline."""
    s = tx.state
    if s.phase not in (TEAM_VOTE, MISSION):
        return Refusal(f"There is no open vote to close: {phase_status(s)}.")
    tx.emit(ev.HostAction, action="close", by=cmd.author, phase=s.phase)
    close_vote(tx) if s.phase == TEAM_VOTE else close_mission(tx)
    return None


def host_extend(tx: Tx, cmd: HostExtend) -> Refusal | None:
    """The host's EXTEND: the open deadline moves `cmd.seconds` later."""
    s = tx.state
    if s.paused_at is not None:
        return Refusal("The game is paused; RESUME it first.")
    if due(s) is None:
        return Refusal("Nothing open has a deadline to extend.")
    tx.emit(ev.DeadlineExtended, seconds=cmd.seconds, by=cmd.author, phase=s.phase)
    return None


def postpone(tx: Tx, cmd: Postpone) -> Refusal | None:
    """The deadline of the open phase fell while the bot was not running: it moves to
    `cmd.until`. The whole deadline moves (a close_grace after the last vote too), so that
    `deadlines.due` is `until` afterwards."""
    s = tx.state
    if s.paused_at is not None:
        return Refusal("The game is paused: its clocks stood still, so no deadline fell.")
    when = due(s)
    if when is None:
        return Refusal("Nothing open has a deadline to move.")
    if when > cmd.at:
        return Refusal("The deadline of the open step has not passed yet; nothing to move.")
    if cmd.until < cmd.at or cmd.until <= when:
        return Refusal("A deadline can only be moved to the restart or after it.")
    if cmd.down_since > cmd.at:
        return Refusal("The bot cannot have been down since a time after its restart.")
    seconds = (cmd.until - when).total_seconds()
    tx.emit(ev.DeadlineMoved, reason=cmd.reason, phase=s.phase, was=when.isoformat(),
            until=cmd.until.isoformat(), down_since=cmd.down_since.isoformat(),
            seconds=int(seconds) if seconds == int(seconds) else seconds)
    return None


def host_pause(tx: Tx, cmd: HostPause) -> Refusal | None:
    """The host's PAUSE (... UNTIL a time): the clocks stand still."""
    if tx.state.paused_at is not None:
        return Refusal("The game is paused already.")
    if cmd.until is not None and cmd.until <= tx.at:
        return Refusal("That time has passed already.")
    tx.emit(ev.GamePaused, by=cmd.author, until=cmd.until.isoformat() if cmd.until else None)
    return None


def host_resume(tx: Tx, cmd: HostResume) -> Refusal | None:
    """The host's RESUME (or a PAUSE ... UNTIL that ran out): the deadline moves by the pause."""
    s = tx.state
    if s.paused_at is None:
        return Refusal("The game is not paused.")
    tx.emit(ev.GameResumed, by=cmd.author, paused_seconds=int((tx.at - s.paused_at).total_seconds()))
    return None


def host_disqualify(tx: Tx, cmd: HostDisqualify) -> Refusal | None:
    """The host's DISQUALIFY: the seat is out, and whatever waited for it goes on without it."""
    s = tx.state
    seat = s.seat(cmd.target)
    if seat is None:
        return Refusal(f"{cmd.target} is not a player in this game.")
    if seat.disqualified:
        return Refusal(f"{s.shown(seat.id)} is disqualified already.")
    tx.emit(ev.PlayerDisqualified, player=seat.id, missed=seat.missed, reason="disqualified by the host")
    # whatever waited for that player goes on without them
    if s.phase == PROPOSAL and s.leader == seat.id:
        begin_proposal(tx, s.mission, s.next_leader(seat.id))
    elif s.phase == TEAM_VOTE and s.config.deadlines.close_early and not s.waiting_for():
        close_vote(tx)
    elif s.phase == MISSION and not s.waiting_for():
        close_mission(tx)
    elif s.actors == [seat.id] and s.phase != "assassination":  # a card or the Lady: skipped
        for p in tx.plugins:
            if p.on_expire(tx):
                break
    return None


def host_replace(tx: Tx, cmd: HostReplace) -> Refusal | None:
    """The host's REPLACE: a newcomer takes the seat (replace.py)."""
    s = tx.state
    refusal = replace.check(s, cmd.target, cmd.newcomer)
    if refusal is not None:
        return refusal
    seat = s.player(cmd.target)
    tx.emit(ev.PlayerReplaced, player=seat.id, by=cmd.newcomer, was_disqualified=seat.disqualified,
            host=cmd.author, keeps_id=True)
    return None


def host_skip(tx: Tx, cmd: HostSkip) -> Refusal | None:
    """The host's SKIP: the open phase ends now, as if its deadline had passed."""
    s = tx.state
    if s.paused_at is not None:
        return Refusal("The game is paused; RESUME it first.")
    if s.phase == "assassination":
        return Refusal("The assassination has no default: it waits for the Assassin's shot "
                       "(or ABORT the game).")
    tx.emit(ev.HostAction, action="skip", by=cmd.author, phase=s.phase, mission=s.mission)
    return expire(tx, Expire(at=tx.at, author="", phase_id=s.phase_id))


def host_abort(tx: Tx, cmd: HostAbort) -> Refusal | None:
    """The host's ABORT: the game ends, aborted: winner none, the roles revealed."""
    s = tx.state
    tx.emit(ev.GameEnded, winner=None, reason="aborted", by=cmd.author,
            roles={x.id: x.role for x in s.seats})
    return None


def remind(tx: Tx, cmd: Remind) -> Refusal | None:
    """The clock's reminder: those who still have to act are told, once a phase."""
    s = tx.state
    if cmd.phase_id != s.phase_id or s.reminded == s.phase_id or not s.waiting_for():
        return Refusal("No reminder is due.")
    tx.emit(ev.RemindersSent, phase_id=s.phase_id, phase=s.phase, players=s.waiting_for())
    return None
