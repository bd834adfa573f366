"""Preloading (so-say-we-all): a player on the current proposal may send an unconditional
order before the vote closes. It applies if the team is approved. Conditional preloads
("if ...") are deliberately not taken.

Everything the plug-in keeps is `state.extra["preloads"]`, a `Preloads`, changed only by
its events."""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import events as ev
from ..commands import MissionOrder, Refusal, said
from ..events import Event, OrderCast, event
from ..missions import order
from ..plugin import RulePlugin
from ..state import RESISTANCE, TEAM_VOTE, GameState, register_copy, register_fold

KEY = "preloads"


@dataclass(frozen=True)
class Preload:
    """One preloaded order, for the proposal `proposal` of mission `mission`."""

    order: str  # support | sabotage
    mission: int
    proposal: int


@dataclass(frozen=True)
class Preloads:
    """Each seat's latest preloaded order (seat id -> its order)."""

    orders: dict[str, Preload] = field(default_factory=dict)


@register_copy(KEY)
def _copy(value: Preloads) -> Preloads:
    return Preloads(dict(value.orders))  # (a Preload is frozen: shared)


@event(ev.ORDER_PRELOADED)
class OrderPreloaded(Event):
    player: str
    order: str  # support | sabotage
    mission: int
    proposal: int


@register_fold(OrderPreloaded.type)
def _preloaded(state: GameState, e: OrderPreloaded) -> None:
    if KEY not in state.extra:
        state.put_extra(KEY, Preloads())
    state.own_extra(KEY).orders[e.player] = Preload(e.order, e.mission, e.proposal)


class Preloading(RulePlugin):
    name = "preloading"
    handles = (MissionOrder,)

    def handle(self, tx, cmd: MissionOrder) -> Refusal | None:
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
        tx.emit(OrderPreloaded, player=cmd.author, order=cmd.choice, mission=s.mission,
                proposal=s.attempt)
        return None

    def after_mission_opened(self, tx) -> None:
        s = tx.state
        loads = s.extra.get(KEY)
        if loads is None:
            return
        for seat, load in sorted(loads.orders.items()):
            if (load.mission, load.proposal) == (s.mission, s.attempt) and seat in s.team \
                    and not s.player(seat).disqualified:
                tx.emit(OrderCast, player=seat, order=load.order, preloaded=True)


PLUGIN = Preloading
