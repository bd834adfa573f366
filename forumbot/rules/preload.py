"""Preloading (so-say-we-all): a player on the current proposal may send an unconditional
order before the vote closes. It applies if the team is approved. Conditional preloads
("if ...") are deliberately not taken."""
from __future__ import annotations

from . import events as ev
from .commands import MissionOrder, Refusal, said
from .hooks import RulePlugin
from .state import RESISTANCE, TEAM_VOTE, register_fold


@register_fold(ev.ORDER_PRELOADED)
def _preloaded(state, e):
    loads = dict(state.extra.get("preloads", {}))
    loads[e.data["player"]] = {"order": e.data["order"], "proposal": e.data["proposal"],
                               "mission": e.data["mission"]}
    state.put_extra("preloads", loads)


class Preloading(RulePlugin):
    name = "preloading"
    handles = (MissionOrder,)

    def handle(self, tx, cmd: MissionOrder) -> Refusal | None:
        from .engine import order

        s = tx.state
        if s.phase != TEAM_VOTE:
            return order(tx, cmd)
        if cmd.author not in s.team:
            return Refusal("Only a player on the proposed team may send an order before the vote "
                           "closes.", private=True)
        if (cmd.author == s.public) != (cmd.via == "thread"):
            where = "in the thread" if cmd.author == s.public else "by PM"
            return Refusal(f"Your order on this proposal goes {where}.", private=True)
        if cmd.choice == "sabotage" and s.player(cmd.author).side == RESISTANCE:
            return Refusal(f"Members of {s.config.rules.resistance_name} can only SUPPORT a mission.",
                           said("SUPPORT"), private=True)
        tx.emit(ev.ORDER_PRELOADED, player=cmd.author, order=cmd.choice, mission=s.mission,
                proposal=s.attempt)
        return None

    def after_mission_opened(self, tx) -> None:
        s = tx.state
        for name, load in sorted(s.extra.get("preloads", {}).items()):
            if (load["mission"], load["proposal"]) == (s.mission, s.attempt) and name in s.team \
                    and not s.player(name).disqualified:
                tx.emit(ev.ORDER_CAST, player=name, order=load["order"], preloaded=True)


PLUGIN = Preloading
