"""The Plot Cards' events (their names are in rules/events.py: `ev.PLOT_PLAYED`, ...).

Players are named by their seats' ids (state.Seat.id), cards by their keys (plot_deck).
Fields are in the order the log writes them; an `opt()` field is left out while it holds
its default.
"""
from __future__ import annotations

from .. import events as ev
from ..events import Event, event, opt


@event(ev.PLOT_SHUFFLED)
class PlotShuffled(Event):
    deck: list[str]


@event(ev.PLOT_ROUND)
class PlotRound(Event):
    mission: int
    leader: str


@event(ev.PLOT_WINDOW)
class PlotWindow(Event):
    window: str  # round_start | after_veto | approved | after_result
    holders: list[str]
    card: str
    team: list[str] | None = opt()  # after_result: the mission's team


@event(ev.PLOT_PASSED)
class PlotPassed(Event):
    holder: str


@event(ev.PLOT_PLAYED)
class PlotPlayed(Event):
    card: str
    holder: str
    target: str | None = None  # (written, maybe null, for every card but Strong Leader)

    def json_data(self) -> dict:
        if self.card == "strong-leader":
            return {"card": self.card, "holder": self.holder}
        return {"card": self.card, "holder": self.holder, "target": self.target}


@event(ev.PLOT_WINDOW_CLOSED)
class PlotWindowClosed(Event):
    pass


@event(ev.PLOT_DRAWN)
class PlotDrawn(Event):
    cards: list[str]
    leader: str
    mission: int


@event(ev.PLOT_GIVEN)
class PlotGiven(Event):
    card: str
    to: str
    by: str
    own: bool = opt(False)  # Establish Confidence: the leader's own card


@event(ev.PLOT_DISCARDED)
class PlotDiscarded(Event):
    card: str
    reason: str


@event(ev.PLOT_CHOICE_OPENED)
class PlotChoiceOpened(Event):
    card: str
    holder: str
    neighbours: list[str]  # Overheard Conversation's choice ([] for the other cards)


@event(ev.PLOT_CHOICE_SKIPPED)
class PlotChoiceSkipped(Event):
    card: str
    holder: str
    reason: str


@event(ev.PLOT_REVEAL)
class PlotReveal(Event):
    """`viewer` learns `subject`'s allegiance (`side`), or, Keeping a Close Eye on You,
    their `order` on `mission`."""

    card: str
    holder: str
    target: str
    viewer: str
    subject: str
    side: str | None = opt()
    order: str | None = opt()  # close-eye: the order as sent (or its default), before Excalibur
    mission: int | None = opt()  # close-eye
    switched: bool = opt(False)  # close-eye: Excalibur switched that order (the other one counted)


@event(ev.PLOT_TAKEN)
class PlotTaken(Event):
    card: str
    by: str
    source: str
    from_hand: bool = opt(False)  # avalon-2020: a kept Take Responsibility, played when liked


@event(ev.PLOT_SPOTLIGHT)
class PlotSpotlight(Event):
    target: str
    order: str  # face up as sent (or its default), before Excalibur
    mission: int
    switched: bool = opt(False)  # Excalibur switched that order (the other one counted)


@event(ev.TEAM_VETOED)
class TeamVetoed(Event):
    holder: str
    card: str
    mission: int
    proposal: int
    rejections: int


@event(ev.PLOT_DECLARED)
class PlotDeclared(Event):
    holder: str
    card: str


@event(ev.PLOT_ORDER_SEEN)
class PlotOrderSeen(Event):
    """A name reserved since the first Plot Cards, which no version of the bot writes (a log
    that has one with data reads it back as a RawEvent); it changes nothing."""
