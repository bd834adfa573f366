"""The archive page's account of a game's events (archive.py builds the page): the vote grid,
each mission with its public moments, the reveal at the end, and the timeline of the host's
and the bot's interruptions. Its words are render's: render/archive.py for the core game, and
each rule module's registered in render/registry.py.

As in archive.py, a running game's account holds only what the thread has shown. The events
name seats by their ids; the page names them by the usernames on them (archive_seats.py: those
on them at the time of each event, as the thread named them then)."""
from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from ..render import archive as words
from ..render import registry
from ..rules import events as ev
from ..rules.state import MISSION, SPIES, GameState
from .seats import Seats, Then, mission_of, seat_changes

PLAIN_ROLES = ("resistance", "spy", "servant", "minion", "human", "cylon")  # no special power


class _Clock:
    """Moments as the page shows them: in the game's time zone, else UTC."""

    def __init__(self, tz: str | None):
        self.zone = ZoneInfo(tz) if tz else UTC

    def local(self, at: datetime) -> datetime:
        return at.astimezone(self.zone)

    def day(self, at: datetime) -> str:
        return f"{self.local(at):%a %-d %b %Y}"

    def moment(self, at: datetime) -> dict:
        local = self.local(at)
        return {"iso": at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "day": f"{local:%-d %b}", "time": f"{local:%H:%M}",
                "full": f"{local:%a %-d %b %Y, %H:%M} {local.tzname()}"}


def _grid(state: GameState, players: list[dict], events) -> dict:
    """The vote grid: one row per seat (`players`' "seat": its id), one column per closed vote."""
    registry.load()
    vetoed = {undone(e) for e in events  # (a card that rejects an approved team after all)
              if not isinstance(e, ev.RawEvent) and (undone := registry.UNDONE.get(e.type)) is not None}
    columns = []
    for v, then in Seats(events).replay(events):
        if not isinstance(v, ev.VoteClosed):
            continue
        name = then.name
        barred = set(v.not_voting)
        critical = set(v.critical)
        defaulted = set(v.defaulted)
        proxied = v.proxied
        team = list(v.team)
        veto = (v.mission, v.proposal) in vetoed
        cells = []
        for p in players:
            seat = then.seat(p["seat"])
            who = name(seat)
            kind = "barred" if seat in barred else v.votes.get(seat, "abstain")
            said = words.vote_words(kind, seat in critical, seat in defaulted,
                                    name(proxied[seat]) if seat in proxied else None, seat == v.leader, seat in team)
            cells.append({
                "kind": kind, "symbol": words.VOTE_SYMBOLS.get(kind, "?"), "label": ", ".join(said),
                "title": f"{who}, M{v.mission}.{v.proposal}: " + ", ".join(said),
                "default": seat in defaulted, "critical": seat in critical,
                "proxy": name(proxied[seat]) if seat in proxied else None,
                "leader": seat == v.leader, "team": seat in team,
            })
        columns.append({
            "id": f"M{v.mission}.{v.proposal}", "mission": v.mission, "proposal": v.proposal,
            "leader": name(v.leader), "team": [name(n) for n in team],
            "approved": v.approved and not veto,
            "vetoed": veto, "approve": v.approve, "reject": v.reject, "cells": cells,
        })
    groups: list[dict] = []
    for c in columns:
        if groups and groups[-1]["mission"] == c["mission"]:
            groups[-1]["span"] += 1
        else:
            groups.append({"mission": c["mission"], "span": 1})
        c["first"] = groups[-1]["span"] == 1
    results = {m.number: m.result for m in state.missions}
    for g in groups:
        g["result"] = results.get(g["mission"])
    rows = [{"player": p, "cells": [c["cells"][i] for c in columns]} for i, p in enumerate(players)]
    return {"columns": columns, "groups": groups, "rows": rows}


def _missions(state: GameState, events, reveal: bool) -> list[dict]:
    """Each resolved mission (and the one under way), with its public moments. Names are
    those of the players who were on the team then."""
    moments: dict[int, list[dict]] = {}
    resolved: list[tuple[ev.MissionResolved, Then]] = []
    mission = 0
    for e, then in Seats(events).replay(events):
        mission = mission_of(e, mission)
        moment = _moment(state, e, reveal, then)
        if moment is not None:
            moments.setdefault(mission, []).append(moment)
        if isinstance(e, ev.MissionResolved):
            resolved.append((e, then))
    proposals: dict[int, int] = {}
    for v in state.vote_history:
        proposals[v.mission] = proposals.get(v.mission, 0) + 1
    out = []
    for m, then in resolved:
        name = then.name
        shown = reveal or m.count_shown
        public = m.public
        team = []
        for seat in m.team:
            order = m.orders.get(seat) if (reveal or seat == public) else None
            team.append({"name": name(seat), "order": order, "default": reveal and seat in m.defaulted,
                         "public": seat == public})
        out.append({
            "number": m.number, "leader": name(m.leader), "team": team, "result": m.result,
            "sabotages": m.sabotages if shown else None, "fails_needed": m.fails_needed,
            "count_hidden_in_thread": not m.count_shown,
            "public": name(public) if public else public,
            "proposals": proposals.get(m.number, 0),
            "moments": moments.get(m.number, []), "open": False,
        })
    if state.running and state.phase == MISSION and not any(x["number"] == state.mission for x in out):
        shown_now = state.shown
        out.append({"number": state.mission, "leader": shown_now(state.leader or ""),
                    "team": [{"name": shown_now(n), "order": None, "default": False,
                              "public": n == state.public} for n in state.team],
                    "result": None, "sabotages": None, "fails_needed": state.fails_needed(),
                    "count_hidden_in_thread": False,
                    "public": shown_now(state.public) if state.public else state.public,
                    "proposals": proposals.get(state.mission, 0),
                    "moments": moments.get(state.mission, []), "open": True})
    return out


def _moment(state: GameState, e, reveal: bool, then: Then | None = None) -> dict | None:
    """A public moment of a mission (a rule module's: render/modules/), as the thread told it, with the
    usernames on the seats then (`then`; without it, those on the seats now)."""
    if isinstance(e, ev.RawEvent):  # (a type no module registers: nothing to tell)
        return None
    name = then.name if then is not None else state.shown
    registry.load()
    told = registry.MOMENTS.get(e.type)
    return told(state, e, reveal, name) if told is not None else None


def _reveal(state: GameState, events) -> list[dict]:
    """The end: each side with its players and roles, and a module's line under the spies
    (the assassination)."""
    registry.load()
    shot = next((line for fn in registry.REVEAL_NOTES if (line := fn(state, events))), None)
    replacements = seat_changes(events)
    sides = []
    for side in ("resistance", "spies"):
        key = SPIES if side == "spies" else "resistance"
        seats = [s for s in state.seats if (s.side == SPIES) == (side == "spies")]
        sides.append({"side": side, "name": words.side_title(state, key),
                      "won": state.winner == key, "shot": None,
                      "players": [{"name": s.name, "role": words.role_name(s.role),
                                   "special": s.role not in PLAIN_ROLES,
                                   "disqualified": s.disqualified,
                                   "replaced": replacements.get(s.id, [])} for s in seats]})
    if shot:
        sides[1]["shot"] = shot
    return sides


def _timeline(state: GameState, events, clock: _Clock) -> list[dict]:
    """The host's actions, the seats that changed hands, and the bot's own interruptions."""
    out = []
    mission = 0
    for e, then in Seats(events).replay(events):
        mission = mission_of(e, mission)
        item = _timeline_item(state, e, clock, then)
        if item is not None:
            item.update(at=clock.moment(e.at), mission=mission or None)
            out.append(item)
    return out


def _timeline_item(state: GameState, e, clock: _Clock, then: Then | None = None) -> dict | None:
    """An event of the timeline, in the words of the thread's post about it, with the
    usernames on the seats then (`then`, as the event found them; without it, those now)."""
    if isinstance(e, ev.RawEvent):  # (a type no module registers: nothing to tell)
        return None
    name = then.name if then is not None else state.shown
    registry.load()
    if (told := registry.ITEMS.get(e.type)) is not None:  # a rule module's
        return told(state, e, name)
    return words.core_item(state, e, name, lambda iso: clock.moment(datetime.fromisoformat(iso))["full"])
