"""A mission: the team's orders, and the count once every order is in (or its time is up)."""
from __future__ import annotations

from . import events as ev
from .commands import (
    MissionOrder,
    Refusal,
    said,
)
from .plugin import Tx
from .state import (
    MISSION,
    RESISTANCE,
    GameState,
    state_fails_needed,
    state_player,
)
from .steps import disqualify_missing, phase_status, resume_after_mission

# --- missions -----------------------------------------------------------------------


def order(tx: Tx, cmd: MissionOrder) -> Refusal | None:
    """A team member's SUPPORT or SABOTAGE (by PM; the public order in the thread)."""
    s = tx.state
    if s.phase != MISSION:
        return Refusal(f"No mission is open now: {phase_status(s)}.", private=True)
    if cmd.author not in s.team:
        return Refusal(f"You are not on the team of mission {s.mission}.", private=True)
    if cmd.author == s.public and cmd.via == "pm":
        return Refusal("Your order on this mission is public: post it in the thread.",
                       (said("SUPPORT") + " or " + said("SABOTAGE") + " in a bold comment"), private=True)
    if cmd.via != "pm" and cmd.author != s.public:
        return Refusal(
            "Mission orders go by PM only. Your comment was not counted.",
            ("PM the bot " + said("SUPPORT") + " or " + said("SABOTAGE")), private=True,
        )
    seat = state_player(s, cmd.author)
    if seat.disqualified:
        return Refusal("You are disqualified: your order takes the default.", private=True)
    if cmd.choice == "sabotage" and seat.side == RESISTANCE:
        p = s.config.rules
        return Refusal(
            f"Members of {p.resistance_name} can only SUPPORT a mission. Your SABOTAGE was not "
            "counted.", ("PM the bot " + said("SUPPORT")), private=True,
        )
    for plugin in tx.plugins:
        if (r := plugin.before_mission(s, cmd)) is not None:
            return r
    tx.add(_ORDER_CAST(tx.at, player=cmd.author, order=cmd.choice))  # (tx.emit(ev.OrderCast, ...))
    resolve_when_all_in(tx)
    return None


def resolve_when_all_in(tx: Tx) -> None:
    """Close the mission if every order is in (no one is left to order)."""
    s = tx.state
    orders = s.orders
    for name in s.team:  # resolve once no one is left to order (`not s.waiting_for()`)
        if name not in orders and not state_player(s, name).disqualified:
            return
    close_mission(tx)


def close_mission(tx: Tx) -> None:
    """Every order is in, or the mission's time is up (its deadline, the host's CLOSE or SKIP,
    the last missing member disqualified): the defaults fill the missing orders, so every
    order is in either way. A plug-in may hold the count for a phase of its own first
    (`before_resolve`: Excalibur's window; it calls `resolve_mission` after); else the
    mission is counted now."""
    for p in tx.plugins:
        if p.before_resolve(tx):
            return
    resolve_mission(tx)


def default_order(state: GameState, name: str) -> str:
    rule = state.config.missed.mission
    side = state_player(state, name).side
    if side == RESISTANCE:
        return "support"  # the resistance can never sabotage, whatever the default says
    return "sabotage" if rule in ("sabotage", "by-side") else "support"


def resolve_mission(tx: Tx, switched: dict[str, str] | None = None) -> None:
    """Count the mission: every order missing takes the default (a plug-in that held the
    count with `before_resolve` is done); then what follows a mission. `switched`: orders a
    plug-in changed once every order was in (Excalibur), seat -> the order that counts
    instead of the one sent or the default; a seat that sent none still missed it."""
    switched = switched or {}
    s = tx.state
    orders: dict[str, str] = {}
    defaulted: list[str] = []
    cast = s.orders
    for name in s.team:
        if name in cast and not state_player(s, name).disqualified:
            orders[name] = cast[name]
        else:
            orders[name] = default_order(s, name)
            defaulted.append(name)
        orders[name] = switched.get(name, orders[name])
    sabotages = list(orders.values()).count("sabotage")
    needed = state_fails_needed(s)
    tx.add(_MISSION_RESOLVED(tx.at, number=s.mission, leader=s.leader, team=list(s.team),
            sabotages=sabotages, fails_needed=needed,
            result="fail" if sabotages >= needed else "success", orders=orders,
            defaulted=defaulted, count_shown=s.mission not in s.config.rules.hidden_count_missions,
            public=s.public or None))
    if defaulted and s.config.missed.orders_count:
        disqualify_missing(tx, defaulted)
    resume_after_mission(tx)


_ORDER_CAST, _MISSION_RESOLVED = ev.maker(ev.OrderCast), ev.maker(ev.MissionResolved)  # (hot: no keyword dict)
