"""Who sat where, and when, for the archive page (archive_story.py): the events name seats by
their ids, and the page names them by the usernames on them at the time of each event, as
the thread named them then (a log from before seat ids named them so already)."""
from __future__ import annotations

from ..rules import events as ev


def seat_changes(events) -> dict[str, list[dict]]:
    """Who took over which seat, by the seat's id at the end of the log (`Seat.id`):
    [{"from": the username that left it, "mission": m}]."""
    out: dict[str, list[dict]] = {}
    mission = 0
    for e, then in Seats(events).replay(events):
        mission = mission_of(e, mission)
        if isinstance(e, ev.PlayerReplaced):
            out.setdefault(then.final(e.player), []).append(
                {"from": then.name(e.player), "mission": mission or 1})
    return out

def mission_of(e, current: int) -> int:
    """The mission an event belongs to: the last one named (a Lady after mission 2: 2)."""
    if isinstance(e, ev.MissionResolved):
        return e.number
    # (any event with a mission of its own; one of a type no module registers keeps its data)
    mission = e.get("mission") if isinstance(e, ev.RawEvent) else getattr(e, "mission", None)
    if isinstance(mission, int):
        return mission
    return current


class Then:
    """The seats as an event found them: the id it names each seat by, and the username on
    each seat then."""

    __slots__ = ("ids", "names", "firsts", "finals", "by_final")

    def __init__(self, ids: dict[str, str], names: dict[str, str], finals: dict[str, str]):
        self.ids = ids  # the seat's first id -> the id the events name it by then
        self.names = names  # that id -> the username on the seat then
        self.firsts = {now: first for first, now in ids.items()}
        self.finals = finals  # the seat's first id -> its id at the end of the log
        self.by_final = {final: first for first, final in finals.items()}

    def seat(self, final: str) -> str:
        """The id the events named seat `final` (its id at the end of the log) by then."""
        return self.ids.get(self.by_final.get(final, final), final)

    def name(self, seat: str) -> str:
        """The username on seat `seat` (as the events named it then) then."""
        return self.names.get(seat, seat)

    def final(self, seat: str) -> str:
        """The id at the end of the log of seat `seat` (as the events named it then)."""
        return self.finals.get(self.firsts.get(seat, seat), seat)


class Seats:
    """Who sat in each seat when. The events name a seat by its id; a REPLACE hands the seat
    and its history to a newcomer. In a log with seat ids (`keeps_id`) the seat keeps its
    id and only the username on it changes; in a log from before them, the seat was renamed
    by value, and the events after it name the seat by the newcomer. Either way the page
    shows each vote and order under the name of whoever cast it, in the row of the seat."""

    def __init__(self, events: list) -> None:
        self.ids: dict[str, str] = {}  # the seat's first id -> the id the events name it by now
        self.names: dict[str, str] = {}  # that id -> the username on the seat now
        for e in events:
            self._step(e)
        self.finals = dict(self.ids)
        self.ids, self.names = {}, {}

    def _step(self, e) -> bool:
        """Follow event `e` (into new dicts: what an earlier event saw stays); True if the
        seats changed."""
        if isinstance(e, ev.GameStarted):
            self.ids = {n: n for n in e.order}
            self.names = {n: n for n in e.order}
            return True
        if isinstance(e, ev.PlayerReplaced):
            names = dict(self.names)
            if e.keeps_id:
                names[e.player] = e.by
            else:  # renamed by value: from now on the events name the seat by the newcomer
                names.pop(e.player, None)
                names[e.by] = e.by
                self.ids = {first: (e.by if now == e.player else now) for first, now in self.ids.items()}
            self.names = names
            return True
        return False

    def replay(self, events):
        """(event, Then: the seats as the event found them) for each event, in order (the
        start: as it deals them)."""
        then = Then(self.ids, self.names, self.finals)
        for e in events:
            if isinstance(e, ev.GameStarted):
                self._step(e)
                then = Then(self.ids, self.names, self.finals)
                yield e, then
            elif self._step(e):
                yield e, then
                then = Then(self.ids, self.names, self.finals)
            else:
                yield e, then
