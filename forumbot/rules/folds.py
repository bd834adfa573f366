"""How each core event changes a game's state (`state.fold` applies them). Plug-ins keep
their own folds in their modules (`state.register_fold`)."""
from __future__ import annotations

from datetime import datetime, timedelta

from . import events as ev
from .state import FINISHED, MISSION, PROPOSAL, TEAM_VOTE, Seat, _core, _open


@_core(ev.GAME_STARTED)
def _started(state, event):
    d = event.data
    state.put("seats", [Seat(n, d["roles"][n], d["sides"][n]) for n in d["order"]])
    state.seed = d.get("seed", 0)


@_core(ev.PROPOSAL_OPENED)
def _proposal_opened(state, event):
    d = event.data
    if d["mission"] != state.mission:
        state.mission = d["mission"]
        state.attempt = 0
        state.rejections = 0
    state.attempt += 1
    state.leader = d["leader"]
    state.team = ()
    state.public = None
    state.votes, state.vote_via, state.orders = {}, {}, {}
    state.fresh("votes", "vote_via", "orders")
    _open(state, PROPOSAL, event)


@_core(ev.TEAM_PROPOSED)
def _team_proposed(state, event):
    d = event.data
    state.team = tuple(d["team"])
    state.public = d.get("public")
    state.not_voting = list(d.get("not_voting", []))
    state.proxied, state.votes, state.vote_via, state.critical = {}, {}, {}, set()
    state.fresh("not_voting", "proxied", "votes", "vote_via", "critical")
    state.last_vote_at = None
    state.missed_proposals = state.stall_warned_at = 0
    _open(state, TEAM_VOTE, event)


@_core(ev.VOTE_CAST)
def _vote_cast(state, event):
    d = event.data
    player = d["player"]
    state.last_vote_at = event.at
    fields, owned = state.__dict__, state._owned
    if owned is not None and "votes" not in owned:  # state.own("votes"), own("vote_via"): the hot path
        fields["votes"] = fields["votes"].copy()
        owned.add("votes")
    if owned is not None and "vote_via" not in owned:
        fields["vote_via"] = fields["vote_via"].copy()
        owned.add("vote_via")
    fields["votes"][player] = d["vote"]
    fields["vote_via"][player] = d["via"]
    if d.get("critical"):
        state.own("critical").add(player)
    elif player in state.critical:
        state.own("critical").discard(player)


@_core(ev.VOTE_CLOSED)
def _vote_closed(state, event):
    d = event.data
    state.own("vote_history").append(d)
    if d["critical"]:
        state.own("critical_spent").update(d["critical"])
    defaulted = d["defaulted"]
    not_voting, proxied = d.get("not_voting"), d.get("proxied")
    barred = set(not_voting or ()) | set(proxied or ()) if not_voting or proxied else ()
    changed = [(i, s.missed + 1 if s.name in defaulted else 0) for i, s in enumerate(state.seats)
               if not s.disqualified and s.name not in barred
               and (s.missed or s.name in defaulted)]  # a seat's missed votes in a row
    if changed:
        seats = state.own("seats")
        for i, missed in changed:
            seats[i].missed = missed
    if not d["approved"]:
        state.rejections += 1


@_core(ev.PROPOSAL_MISSED)
def _proposal_missed(state, event):
    state.missed_proposals += 1
    if event.data.get("counts_as_rejection"):
        state.rejections += 1


@_core(ev.PROPOSALS_STALLED)
def _stalled(state, event):
    state.stall_warned_at = state.missed_proposals


@_core(ev.MISSION_OPENED)
def _mission_opened(state, event):
    state.put("orders", {})
    _open(state, MISSION, event)


@_core(ev.ORDER_CAST)
def _order_cast(state, event):
    state.own("orders")[event.data["player"]] = event.data["order"]


@_core(ev.MISSION_RESOLVED)
def _mission_resolved(state, event):
    d = event.data
    state.own("missions").append(d)
    if state.config.missed.orders_count:
        defaulted = d["defaulted"]
        if defaulted or any(state.player(n).missed for n in d["team"]):
            state.own("seats")
            for n in d["team"]:
                s = state.seat(n)
                if not s.disqualified:
                    s.missed = s.missed + 1 if n in defaulted else 0


@_core(ev.PLAYER_DISQUALIFIED)
def _disqualified(state, event):
    state.own("seats")
    state.player(event.data["player"]).disqualified = True


@_core(ev.DEADLINE_EXTENDED)
def _extended(state, event):
    state.extension += event.data["seconds"]


@_core(ev.DEADLINE_MOVED)
def _moved(state, event):  # the whole open deadline moves by `seconds`, close_grace too
    d = event.data
    state.extension += d["seconds"]
    if state.last_vote_at is not None:
        state.last_vote_at += timedelta(seconds=d["seconds"])


@_core(ev.GAME_PAUSED)
def _paused(state, event):
    d = event.data
    state.paused_at = event.at
    state.paused_until = datetime.fromisoformat(d["until"]) if d.get("until") else None


@_core(ev.GAME_RESUMED)
def _resumed(state, event):
    state.extension += event.data["paused_seconds"]
    state.paused_at = None
    state.paused_until = None


@_core(ev.REMINDERS_SENT)
def _reminded(state, event):
    state.reminded = event.data["phase_id"]


@_core(ev.GAME_ENDED)
def _ended(state, event):
    d = event.data
    state.winner = d["winner"]
    state.win_reason = d["reason"]
    _open(state, FINISHED, event)
