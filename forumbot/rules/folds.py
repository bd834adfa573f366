"""How each core event changes a game's state (`state.fold` applies them; they are registered
when this module is imported, as the package does). Plug-ins keep their own folds in their
modules (`state.register_fold`)."""
from __future__ import annotations

from datetime import datetime, timedelta

from . import events as ev
from .state import (
    EXTRA_FOLDS,
    FINISHED,
    FOLDS,
    MISSION,
    PROPOSAL,
    TEAM_VOTE,
    GameState,
    Seat,
    open_phase,
    state_fresh,
    state_own,
    state_player,
    state_put,
)


def _core(event_type: str | type[ev.Event]):
    event_type = event_type if isinstance(event_type, str) else event_type.type

    def deco(fn):
        if event_type not in EXTRA_FOLDS:  # a plug-in's fold of a core event comes first
            FOLDS[event_type] = fn
        return fn
    return deco


@_core(ev.GAME_STARTED)
def _started(state: GameState, event: ev.GameStarted) -> None:
    roles, sides = event.roles, event.sides
    state_put(state, "seats", [Seat(n, roles[n], sides[n]) for n in event.order])
    state.seed = event.seed


@_core(ev.PROPOSAL_OPENED)
def _proposal_opened(state: GameState, event: ev.ProposalOpened) -> None:
    if event.mission != state.mission:
        state.mission = event.mission
        state.attempt = 0
        state.rejections = 0
    state.attempt += 1
    state.leader = event.leader
    state.team = ()
    state.public = None
    state.votes, state.vote_via, state.orders = {}, {}, {}
    state_fresh(state, "votes", "vote_via", "orders")
    open_phase(state, PROPOSAL, event)


@_core(ev.TEAM_PROPOSED)
def _team_proposed(state: GameState, event: ev.TeamProposed) -> None:
    state.team = tuple(event.team)
    state.public = event.public
    state.not_voting = list(event.not_voting or ())
    state.proxied, state.votes, state.vote_via, state.critical = {}, {}, {}, set()
    state_fresh(state, "not_voting", "proxied", "votes", "vote_via", "critical")
    state.last_vote_at = None
    state.missed_proposals = state.stall_warned_at = 0
    open_phase(state, TEAM_VOTE, event)


@_core(ev.VOTE_CAST)
def _vote_cast(state: GameState, event: ev.VoteCast) -> None:
    player = event.player
    state.last_vote_at = event.at
    votes, via, owned = state.votes, state.vote_via, state._owned
    if owned is not None:  # state_own(state, "votes"), own("vote_via"), inline: the hot path
        if "votes" not in owned:
            state.votes = votes = votes.copy()
            owned.add("votes")
        if "vote_via" not in owned:
            state.vote_via = via = via.copy()
            owned.add("vote_via")
    votes[player] = event.vote
    via[player] = event.via
    if event.critical:
        state_own(state, "critical").add(player)
    elif player in state.critical:
        state_own(state, "critical").discard(player)


@_core(ev.VOTE_CLOSED)
def _vote_closed(state: GameState, event: ev.VoteClosed) -> None:
    state_own(state, "vote_history").append(event)
    if event.critical:
        state_own(state, "critical_spent").update(event.critical)
    defaulted = event.defaulted
    not_voting, proxied = event.not_voting, event.proxied
    barred = set(not_voting or ()) | set(proxied or ()) if not_voting or proxied else ()
    changed = [(i, s.missed + 1 if s.id in defaulted else 0) for i, s in enumerate(state.seats)
               if not s.disqualified and s.id not in barred
               and (s.missed or s.id in defaulted)]  # a seat's missed votes in a row
    if changed:
        seats = state_own(state, "seats")
        for i, missed in changed:
            seats[i].missed = missed
    if not event.approved:
        state.rejections += 1


@_core(ev.PROPOSAL_MISSED)
def _proposal_missed(state: GameState, event: ev.ProposalMissed) -> None:
    state.missed_proposals += 1
    if event.counts_as_rejection:
        state.rejections += 1


@_core(ev.PROPOSALS_STALLED)
def _stalled(state: GameState, event: ev.ProposalsStalled) -> None:
    state.stall_warned_at = state.missed_proposals


@_core(ev.MISSION_OPENED)
def _mission_opened(state: GameState, event: ev.MissionOpened) -> None:
    state_put(state, "orders", {})
    open_phase(state, MISSION, event)


@_core(ev.ORDER_CAST)
def _order_cast(state: GameState, event: ev.OrderCast) -> None:
    state_own(state, "orders")[event.player] = event.order


@_core(ev.MISSION_RESOLVED)
def _mission_resolved(state: GameState, event: ev.MissionResolved) -> None:
    state_own(state, "missions").append(event)
    if state.config.missed.orders_count:
        defaulted, team = event.defaulted, event.team
        if defaulted or any(state_player(state, n).missed for n in team):
            state_own(state, "seats")
            for n in team:
                s = state_player(state, n)
                if not s.disqualified:
                    s.missed = s.missed + 1 if n in defaulted else 0


@_core(ev.PLAYER_DISQUALIFIED)
def _disqualified(state: GameState, event: ev.PlayerDisqualified) -> None:
    state_own(state, "seats")
    state_player(state, event.player).disqualified = True


@_core(ev.DEADLINE_EXTENDED)
def _extended(state: GameState, event: ev.DeadlineExtended) -> None:
    state.extension += event.seconds


@_core(ev.DEADLINE_MOVED)
def _moved(state: GameState, event: ev.DeadlineMoved) -> None:
    """The whole open deadline moves by `seconds`, close_grace too."""
    state.extension += event.seconds  # (a float if not whole seconds)
    if state.last_vote_at is not None:
        state.last_vote_at += timedelta(seconds=event.seconds)


@_core(ev.GAME_PAUSED)
def _paused(state: GameState, event: ev.GamePaused) -> None:
    state.paused_at = event.at
    state.paused_until = datetime.fromisoformat(event.until) if event.until else None


@_core(ev.GAME_RESUMED)
def _resumed(state: GameState, event: ev.GameResumed) -> None:
    state.extension += event.paused_seconds
    state.paused_at = None
    state.paused_until = None


@_core(ev.REMINDERS_SENT)
def _reminded(state: GameState, event: ev.RemindersSent) -> None:
    state.reminded = event.phase_id


@_core(ev.GAME_ENDED)
def _ended(state: GameState, event: ev.GameEnded) -> None:
    state.winner = event.winner
    state.win_reason = event.reason
    open_phase(state, FINISHED, event)
