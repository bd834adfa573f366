"""A game's full record as the JSON of commands.md: the operator's view, secrets included."""
from __future__ import annotations

from . import store
from .rules import replay
from .rules.events import iso


def export_game(game: store.Game) -> dict:
    cfg = game.game_config()
    rows = list(store.Event.select().where(store.Event.game == game).order_by(store.Event.seq))
    events = [r.to_rule_event() for r in rows]
    state = replay(cfg, game.seed, events)
    return {
        "game": game.tag,
        "preset": cfg.preset,
        "status": game.status,
        "winner": state.winner,
        "win_reason": state.win_reason,
        "host": game.host,
        "thread": game.thread_url or game.thread,
        "seed": game.seed,
        "players": [{"name": s.name, "role": s.role, "side": s.side,
                     "disqualified": s.disqualified} for s in state.seats],
        "missions": [{"number": m["number"], "leader": m["leader"], "team": m["team"],
                      "sabotages": m["sabotages"], "result": m["result"],
                      "fails_needed": m["fails_needed"], "defaulted": m["defaulted"]}
                     for m in state.missions],
        "votes": [{k: v[k] for k in ("mission", "proposal", "leader", "team", "votes",
                                     "defaulted", "critical", "proxied", "not_voting", "approved")}
                  for v in state.vote_history],
        "signups": [s.name for s in store.Signup.select().where(store.Signup.game == game)
                    .order_by(store.Signup._meta.primary_key)] if game.status == "signup" else [],
        "events": [{"seq": r.seq, "at": iso(e.at), "type": e.type, "data": e.data}
                   for r, e in zip(rows, events, strict=False)],
    }
