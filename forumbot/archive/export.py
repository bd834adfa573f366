"""A game's full record as the JSON of commands.md: the operator's view, secrets included.

Players are named by the usernames on their seats now (`players[].seat` is the seat's id,
which the log's events name it by); `events[].data` is each event's JSON form as stored."""
from __future__ import annotations

from .. import store
from ..rules import replay
from ..rules.events import iso


def export_game(game: store.Game) -> dict:
    cfg = game.game_config()
    rows = list(store.Event.select().where(store.Event.game == game).order_by(store.Event.seq))
    events = [r.to_rule_event() for r in rows]
    state = replay(cfg, game.seed, events)
    n = state.shown  # the state and the events name seats by their ids: shown, the usernames on them now

    def names(seats) -> list[str]:
        return [n(x) for x in seats]

    return {
        "game": game.tag,
        "preset": cfg.preset,
        "status": game.status,
        "winner": state.winner,
        "win_reason": state.win_reason,
        "host": game.host,
        "thread": game.thread_url or game.thread,
        "seed": game.seed,
        "players": [{"name": s.name, "seat": s.id, "role": s.role, "side": s.side,
                     "disqualified": s.disqualified} for s in state.seats],
        "missions": [{"number": m.number, "leader": n(m.leader), "team": names(m.team),
                      "sabotages": m.sabotages, "result": m.result,
                      "fails_needed": m.fails_needed, "defaulted": names(m.defaulted)}
                     for m in state.missions],
        "votes": [{"mission": v.mission, "proposal": v.proposal, "leader": n(v.leader),
                   "team": names(v.team), "votes": {n(k): x for k, x in v.votes.items()},
                   "defaulted": names(v.defaulted), "critical": names(v.critical),
                   "proxied": {n(k): n(x) for k, x in v.proxied.items()},
                   "not_voting": names(v.not_voting), "approved": v.approved}
                  for v in state.vote_history],
        "signups": [s.name for s in store.Signup.select().where(store.Signup.game == game)
                    .order_by(store.Signup._meta.primary_key)] if game.status == "signup" else [],
        "events": [{"seq": r.seq, "at": iso(e.at), "type": e.type, "data": e.json_data()}
                   for r, e in zip(rows, events, strict=False)],
    }
