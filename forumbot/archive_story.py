"""The archive page's account of a game's events (archive.py builds the page): the vote grid,
each mission with its public moments, the reveal at the end, and the timeline of the host's
and the bot's interruptions. With the names and moments both parts share.

As in archive.py, a running game's account holds only what the thread has shown."""
from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from .deadlines import format_duration
from .rules import events as ev
from .rules.state import MISSION, SPIES, GameState, phase_words

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


def _card_name(key: str) -> str:
    from .rules.mission_cards import BY_KEY as MC
    from .rules.plot_deck import BY_KEY as PLOT

    card = PLOT.get(key) or MC.get(key)
    return card.name if card else key.replace("-", " ").title()


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

def _replacements(events) -> dict[str, list[dict]]:
    """Who took over which seat, by the seat's final name: [{"from": old, "mission": m}]."""
    out: dict[str, list[dict]] = {}
    mission = 0
    for e in events:
        mission = _mission_of(e, mission)
        if e.type == "player_replaced":
            old, new = e.data["player"], e.data["by"]
            history = out.pop(old, [])
            out[new] = history + [{"from": old, "mission": mission or 1}]
    return out

def _mission_of(e, current: int) -> int:
    """The mission an event belongs to: the last one named (a Lady after mission 2: 2)."""
    d = e.data
    if e.type == ev.MISSION_RESOLVED:
        return d["number"]
    if isinstance(d.get("mission"), int):
        return d["mission"]
    return current


class _Seats:
    """Who sat in each seat when: a REPLACE hands a seat and its history to a newcomer, and
    the state renames the seat everywhere; the page shows each vote and order under the
    name of whoever cast it, in the row of the seat."""

    def __init__(self, events: list) -> None:
        self.now: dict[str, str] = {}  # the seat's first name -> who holds it now
        for e in events:
            if e.type == ev.GAME_STARTED:
                self.now = {n: n for n in e.data["order"]}
            elif e.type == "player_replaced":
                self._hand_over(e.data["player"], e.data["by"])
        self.final = dict(self.now)
        self.first = {final: first for first, final in self.final.items()}
        self.now = {}

    def _hand_over(self, old: str, new: str) -> None:
        for first, name in self.now.items():
            if name == old:
                self.now[first] = new

    def replay(self, events):
        """(event, {a seat's final name: who held it then}) for each event, in order."""
        for e in events:
            if e.type == ev.GAME_STARTED:
                self.now = {n: n for n in e.data["order"]}
            elif e.type == "player_replaced":
                self._hand_over(e.data["player"], e.data["by"])
            yield e, {final: self.now.get(first, final) for final, first in self.first.items()}


def _grid(state: GameState, players: list[dict], events) -> dict:
    """The vote grid: one row per seat, one column per closed vote."""
    vetoed = {(e.data["mission"], e.data["proposal"]) for e in events if e.type == ev.TEAM_VETOED}
    columns = []
    for e, then in _Seats(events).replay(events):
        if e.type != ev.VOTE_CLOSED:
            continue
        v = e.data
        barred = set(v.get("not_voting", []))
        critical = set(v.get("critical", []))
        defaulted = set(v.get("defaulted", []))
        proxied = v.get("proxied", {})
        team = list(v["team"])
        veto = (v["mission"], v["proposal"]) in vetoed
        cells = []
        for p in players:
            name = then.get(p["name"], p["name"])
            kind = "barred" if name in barred else v["votes"].get(name, "abstain")
            words = ["not voting (barred by a card)" if kind == "barred" else VOTE_WORDS.get(kind, kind)]
            if name in critical:
                words.append("critical, counted double")
            if name in defaulted:
                words.append("a default (missed)")
            if name in proxied:
                words.append(f"cast by {proxied[name]} (Chicago Proxy)")
            if name == v["leader"]:
                words.append("leader")
            if name in team:
                words.append("on the team")
            cells.append({
                "kind": kind, "symbol": VOTE_SYMBOLS.get(kind, "?"), "label": ", ".join(words),
                "title": f"{name}, M{v['mission']}.{v['proposal']}: " + ", ".join(words),
                "default": name in defaulted, "critical": name in critical,
                "proxy": proxied.get(name), "leader": name == v["leader"], "team": name in team,
            })
        approves = v.get("approve", sum(1 for x in v["votes"].values() if x == "approve"))
        rejects = v.get("reject", sum(1 for x in v["votes"].values() if x == "reject"))
        columns.append({
            "id": f"M{v['mission']}.{v['proposal']}", "mission": v["mission"], "proposal": v["proposal"],
            "leader": v["leader"], "team": team, "approved": v["approved"] and not veto,
            "vetoed": veto, "approve": approves, "reject": rejects, "cells": cells,
        })
    groups: list[dict] = []
    for c in columns:
        if groups and groups[-1]["mission"] == c["mission"]:
            groups[-1]["span"] += 1
        else:
            groups.append({"mission": c["mission"], "span": 1})
        c["first"] = groups[-1]["span"] == 1
    results = {m["number"]: m["result"] for m in state.missions}
    for g in groups:
        g["result"] = results.get(g["mission"])
    rows = [{"player": p, "cells": [c["cells"][i] for c in columns]} for i, p in enumerate(players)]
    return {"columns": columns, "groups": groups, "rows": rows}


def _missions(state: GameState, events, reveal: bool) -> list[dict]:
    """Each resolved mission (and the one under way), with its public moments. Names are
    those of the players who were on the team then."""
    moments: dict[int, list[dict]] = {}
    mission = 0
    for e in events:
        mission = _mission_of(e, mission)
        m = _moment(state, e, reveal)
        if m is not None:
            moments.setdefault(mission, []).append(m)
    proposals: dict[int, int] = {}
    for v in state.vote_history:
        proposals[v["mission"]] = proposals.get(v["mission"], 0) + 1
    out = []
    for e in events:
        if e.type != ev.MISSION_RESOLVED:
            continue
        m = e.data
        shown = reveal or m.get("count_shown", True)
        public = m.get("public")
        team = []
        for name in m["team"]:
            order = m["orders"].get(name) if (reveal or name == public) else None
            team.append({"name": name, "order": order, "default": reveal and name in m["defaulted"],
                         "public": name == public})
        out.append({
            "number": m["number"], "leader": m["leader"], "team": team, "result": m["result"],
            "sabotages": m["sabotages"] if shown else None, "fails_needed": m["fails_needed"],
            "count_hidden_in_thread": not m.get("count_shown", True),
            "public": public,
            "proposals": proposals.get(m["number"], 0),
            "moments": moments.get(m["number"], []), "open": False,
        })
    if state.running and state.phase == MISSION and not any(x["number"] == state.mission for x in out):
        out.append({"number": state.mission, "leader": state.leader,
                    "team": [{"name": n, "order": None, "default": False, "public": n == state.public}
                             for n in state.team],
                    "result": None, "sabotages": None, "fails_needed": state.fails_needed(),
                    "count_hidden_in_thread": False, "public": state.public,
                    "proposals": proposals.get(state.mission, 0),
                    "moments": moments.get(state.mission, []), "open": True})
    return out


def _moment(state: GameState, e, reveal: bool) -> dict | None:
    """A public moment of a mission (cards, the Lady), as the thread told it."""
    d = e.data
    t = e.type
    if t == ev.LADY_USED:
        text = f"{d['holder']} uses the Lady of the Lake on {d['target']}."
        if reveal:
            text += f" The Lady showed {_side_name(state, d['side'])}."
        return {"symbol": "◈", "kind": "Lady of the Lake", "text": text}
    if t == ev.LADY_SKIPPED:
        return {"symbol": "◈", "kind": "Lady of the Lake", "text": f"Not used ({d['reason']})."}
    if t == ev.PLOT_PLAYED:
        if d["card"] == "chicago-proxy":
            return {"symbol": "▤", "kind": "Plot Card",
                    "text": f"{d['holder']} plays Chicago Proxy on {d['target']}."}
        target = f" on {d['target']}" if d.get("target") else ""
        return {"symbol": "▤", "kind": "Plot Card", "text": f"{d['holder']} plays {_card_name(d['card'])}{target}."}
    if t == ev.PLOT_DECLARED:
        return {"symbol": "▤", "kind": "Plot Card",
                "text": f"{d['holder']} plays Keeping a Close Eye on You."}
    if t == ev.PLOT_TAKEN:
        return {"symbol": "▤", "kind": "Plot Card",
                "text": f"{d['by']} takes {_card_name(d['card'])} from {d['source']}."}
    if t == ev.PLOT_REVEAL and d["card"] != "close-eye":
        text = f"{d['holder']} chooses {d['target']} for {_card_name(d['card'])}."
        return {"symbol": "▤", "kind": "Plot Card", "text": text}
    if t == ev.TEAM_VETOED:
        return {"symbol": "▤", "kind": "Plot Card",
                "text": f"{d['holder']} plays No Confidence: proposal {d['proposal']} is rejected after all."}
    if t == ev.PLOT_SPOTLIGHT:
        return {"symbol": "◉", "kind": "Plot Card",
                "text": f"In the Spotlight: {d['target']}'s order was {d['order'].upper()}."}
    if t == "mc_played":
        target = f" on {d['target']}" if d.get("target") else ""
        return {"symbol": "▣", "kind": "Mission Card", "text": f"{d['holder']} plays {_card_name(d['card'])}{target}."}
    if t == "mc_badge":
        return {"symbol": "▣", "kind": "Mission Card",
                "text": f"{d['holder']} plays Badge of Merit and moves to just after {d['after']}."}
    if t == ev.COMMANDER_NAMED:
        return {"symbol": "✪", "kind": "Commander", "text": f"{d['commander']} is the Mission Commander."}
    return None


def _reveal(state: GameState, events) -> list[dict]:
    """The end: each side with its players and roles, and the assassination."""
    shot = next((e.data for e in events if e.type == ev.ASSASSINATED), None)
    replacements = _replacements(events)
    sides = []
    for side in ("resistance", "spies"):
        key = SPIES if side == "spies" else "resistance"
        seats = [s for s in state.seats if (s.side == SPIES) == (side == "spies")]
        sides.append({"side": side, "name": _capital(_side_name(state, key)),
                      "won": state.winner == key, "shot": None,
                      "players": [{"name": s.name, "role": _role_name(s.role),
                                   "special": s.role not in PLAIN_ROLES,
                                   "disqualified": s.disqualified,
                                   "replaced": replacements.get(s.name, [])} for s in seats]})
    if shot:
        sides[1]["shot"] = (f"{shot['assassin']}, the Assassin, named {shot['target']}: "
                            + ("Merlin, a hit." if shot["hit"] else "a miss, they were not Merlin."))
    return sides


def _timeline(state: GameState, events, clock: _Clock) -> list[dict]:
    """The host's actions, the seats that changed hands, and the bot's own interruptions."""
    out = []
    mission = 0
    for e in events:
        mission = _mission_of(e, mission)
        item = _timeline_item(state, e, clock)
        if item is not None:
            item.update(at=clock.moment(e.at), mission=mission or None)
            out.append(item)
    return out


def _timeline_item(state: GameState, e, clock: _Clock) -> dict | None:
    """An event of the timeline, in the words of the thread's post about it."""
    d = e.data
    t = e.type
    if t == ev.GAME_STARTED:
        return {"kind": "start", "label": "Start", "symbol": "▶",
                "text": f"The game starts with {len(d['order'])} players. Leader order: {', '.join(d['order'])}."}
    if t == ev.HOST_ACTION:
        action = d.get("action", "close")
        if action == "skip":
            text = f"The host skipped {phase_words(d['phase'])}: it ended as if its deadline had passed."
        elif action == "record":
            if d.get("kind") == "MissionOrder":
                text = "The host recorded a mission order that was sent to them privately."
            else:
                what = {"TeamVote": "vote", "Propose": "proposal"}.get(d.get("kind"), "choice")
                text = f"The host recorded {d['player']}'s {what}, sent to them privately."
        else:
            what = "team vote" if d.get("phase") == "team_vote" else "mission"
            text = f"The host closed the {what} early; what was missing took its default."
        return {"kind": "host", "label": "Host", "symbol": "⚑", "text": text}
    if t == ev.DEADLINE_EXTENDED:
        return {"kind": "host", "label": "Host", "symbol": "⚑",
                "text": f"The host extended the deadline of {phase_words(d['phase'])} "
                        f"by {format_duration(d['seconds'])}."}
    if t == ev.GAME_PAUSED:
        until = ""
        if d.get("until"):
            until = f" until {clock.moment(datetime.fromisoformat(d['until']))['full']}"
        return {"kind": "host", "label": "Host", "symbol": "‖", "text": f"The host paused the game{until}."}
    if t == ev.GAME_RESUMED:
        return {"kind": "host", "label": "Host", "symbol": "▷",
                "text": f"The game resumed after {_span(d['paused_seconds'])}, with the time that was left."}
    if t == "player_replaced":
        back = " The seat had been disqualified; it played again from then on." if d.get("was_disqualified") else ""
        return {"kind": "seat", "label": "Substitution", "symbol": "⇆",
                "text": f"{d['by']} replaces {d['player']}, taking over the seat and its history.{back}"}
    if t == ev.PLAYER_DISQUALIFIED:
        return {"kind": "seat", "label": "Disqualified", "symbol": "⊘",
                "text": f"{d['player']} is disqualified ({d['reason']}); the seat plays the defaults."}
    if t == ev.DEADLINE_MOVED:
        gone = "The forum could not be read" if d.get("reason") == "forum" else "The bot was not running"
        return {"kind": "bot", "label": "Bot", "symbol": "⟳",
                "text": f"{gone} for a while, so the deadline of {phase_words(d['phase'])} moved on."}
    if t == ev.PROPOSALS_STALLED:
        return {"kind": "bot", "label": "Bot", "symbol": "⟳",
                "text": "A full turn of leaders let the proposal deadline pass; the host was told."}
    if t == ev.ASSASSINATION_OVERDUE:
        return {"kind": "bot", "label": "Bot", "symbol": "⟳",
                "text": "The assassination's deadline passed; the game waited for the shot."}
    if t == ev.GAME_ENDED:
        if d["reason"] == "aborted":
            text = "The host aborted the game."
            return {"kind": "host", "label": "Host", "symbol": "■", "text": text}
        if d["reason"] == "abandoned":
            return {"kind": "end", "label": "End", "symbol": "■",
                    "text": "The game was abandoned: nobody proposed a team for two full turns."}
        from .status import WIN_REASONS

        return {"kind": "end", "label": "End", "symbol": "■",
                "text": f"{_capital(_side_name(state, d['winner']))} win, "
                        f"by {WIN_REASONS.get(d['reason'], d['reason'])}."}
    return None


def _span(seconds: int) -> str:
    from .status import relative

    return relative(int(seconds))
