"""The archive page's account of a game's events (archive.py builds the page): the vote grid,
each mission with its public moments, the reveal at the end, and the timeline of the host's
and the bot's interruptions. With the names and moments both parts share.

As in archive.py, a running game's account holds only what the thread has shown. The events
name seats by their ids; the page names them by the usernames on them (archive_seats.py: those
on them at the time of each event, as the thread named them then)."""
from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from ..render import registry
from ..render.status import WIN_REASONS
from ..render.words import relative
from ..rules import events as ev
from ..rules.deadlines import format_duration
from ..rules.state import MISSION, SPIES, GameState, phase_words
from .seats import Seats, Then, mission_of, seat_changes

PLAIN_ROLES = ("resistance", "spy", "servant", "minion", "human", "cylon")  # no special power

SHORT_ROLES = {"Loyal Servant of Arthur": "Servant", "Minion of Mordred": "Minion"}
ROLE_NAMES = {
    "servant": "Loyal Servant of Arthur", "minion": "Minion of Mordred", "human": "Human",
    "cylon": "Cylon", "resistance": "Resistance", "spy": "Spy",
}
VOTE_WORDS = {"approve": "approve", "reject": "reject", "abstain": "abstain"}
VOTE_SYMBOLS = {"approve": "✓", "reject": "✗", "abstain": "–", "barred": "⊘"}


def _role_name(role: str) -> str:
    return ROLE_NAMES.get(role, role.replace("-", " ").title())


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


def _side_name(state: GameState, side: str) -> str:
    p = state.config.rules
    return p.spies_name if side == SPIES else p.resistance_name


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]

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
            words = ["not voting (barred by a card)" if kind == "barred" else VOTE_WORDS.get(kind, kind)]
            if seat in critical:
                words.append("critical, counted double")
            if seat in defaulted:
                words.append("a default (missed)")
            if seat in proxied:
                words.append(f"cast by {name(proxied[seat])} (Chicago Proxy)")
            if seat == v.leader:
                words.append("leader")
            if seat in team:
                words.append("on the team")
            cells.append({
                "kind": kind, "symbol": VOTE_SYMBOLS.get(kind, "?"), "label": ", ".join(words),
                "title": f"{who}, M{v.mission}.{v.proposal}: " + ", ".join(words),
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
        sides.append({"side": side, "name": _capital(_side_name(state, key)),
                      "won": state.winner == key, "shot": None,
                      "players": [{"name": s.name, "role": _role_name(s.role),
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
    if isinstance(e, ev.GameStarted):
        return {"kind": "start", "label": "Start", "symbol": "▶",
                "text": f"The game starts with {len(e.order)} players. Leader order: "
                        f"{', '.join(name(n) for n in e.order)}."}
    if isinstance(e, ev.HostAction):
        action = e.action or "close"
        if action == "skip":
            text = f"The host skipped {phase_words(e.phase)}: it ended as if its deadline had passed."
        elif action == "record":
            if e.kind == "MissionOrder":
                text = "The host recorded a mission order that was sent to them privately."
            else:
                what = {"TeamVote": "vote", "Propose": "proposal"}.get(e.kind or "", "choice")
                text = f"The host recorded {name(e.player or '')}'s {what}, sent to them privately."
        else:
            what = "team vote" if e.phase == "team_vote" else "mission"
            text = f"The host closed the {what} early; what was missing took its default."
        return {"kind": "host", "label": "Host", "symbol": "⚑", "text": text}
    if isinstance(e, ev.DeadlineExtended):
        return {"kind": "host", "label": "Host", "symbol": "⚑",
                "text": f"The host extended the deadline of {phase_words(e.phase)} "
                        f"by {format_duration(e.seconds)}."}
    if isinstance(e, ev.GamePaused):
        until = ""
        if e.until:
            until = f" until {clock.moment(datetime.fromisoformat(e.until))['full']}"
        return {"kind": "host", "label": "Host", "symbol": "‖", "text": f"The host paused the game{until}."}
    if isinstance(e, ev.GameResumed):
        return {"kind": "host", "label": "Host", "symbol": "▷",
                "text": f"The game resumed after {_span(e.paused_seconds)}, with the time that was left."}
    if isinstance(e, ev.PlayerReplaced):
        back = " The seat had been disqualified; it played again from then on." if e.was_disqualified else ""
        return {"kind": "seat", "label": "Substitution", "symbol": "⇆",
                "text": f"{e.by} replaces {name(e.player)}, taking over the seat and its history.{back}"}
    if isinstance(e, ev.PlayerDisqualified):
        return {"kind": "seat", "label": "Disqualified", "symbol": "⊘",
                "text": f"{name(e.player)} is disqualified ({e.reason}); the seat plays the defaults."}
    if isinstance(e, ev.DeadlineMoved):
        gone = "The forum could not be read" if e.reason == "forum" else "The bot was not running"
        return {"kind": "bot", "label": "Bot", "symbol": "⟳",
                "text": f"{gone} for a while, so the deadline of {phase_words(e.phase)} moved on."}
    if isinstance(e, ev.ProposalsStalled):
        return {"kind": "bot", "label": "Bot", "symbol": "⟳",
                "text": "A full turn of leaders let the proposal deadline pass; the host was told."}
    if isinstance(e, ev.GameEnded):
        if e.reason == "aborted":
            text = "The host aborted the game."
            return {"kind": "host", "label": "Host", "symbol": "■", "text": text}
        if e.reason == "abandoned":
            return {"kind": "end", "label": "End", "symbol": "■",
                    "text": "The game was abandoned: nobody proposed a team for two full turns."}
        return {"kind": "end", "label": "End", "symbol": "■",
                "text": f"{_capital(_side_name(state, e.winner or ''))} win, "
                        f"by {WIN_REASONS.get(e.reason, e.reason)}."}
    return None


def _span(seconds: int) -> str:
    return relative(int(seconds))
