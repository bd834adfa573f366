"""The append-only event log: the truth of a game."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

_NEW: Any = object()  # (no data given: a new empty dict)


@dataclass(frozen=True)
class Event:
    type: str
    at: datetime
    data: dict = field(default_factory=dict)

    def __init__(self, type: str, at: datetime, data: dict = _NEW):  # noqa: A002
        d = self.__dict__  # (frozen: set once, here; quicker than the generated __init__)
        d["type"] = type
        d["at"] = at
        d["data"] = {} if data is _NEW else data

    def to_json(self) -> dict:
        return {"type": self.type, "at": iso(self.at), "data": self.data}


def iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


# Event types (the names used in the log and in `export`).
GAME_STARTED = "game_started"
PROPOSAL_OPENED = "proposal_opened"
TEAM_PROPOSED = "team_proposed"
VOTE_CAST = "vote_cast"
VOTE_CLOSED = "vote_closed"
PROPOSAL_MISSED = "proposal_missed"
PROPOSALS_STALLED = "proposals_stalled"  # a full turn of leaders missed their proposals
MISSION_OPENED = "mission_opened"
ORDER_CAST = "order_cast"
MISSION_RESOLVED = "mission_resolved"
PLAYER_DISQUALIFIED = "player_disqualified"
GAME_ENDED = "game_ended"
ASSASSINATION_OPENED = "assassination_opened"
ASSASSINATION_OVERDUE = "assassination_overdue"
ASSASSINATED = "assassinated"
LADY_GIVEN = "lady_given"
LADY_OPENED = "lady_opened"
LADY_USED = "lady_used"
LADY_SKIPPED = "lady_skipped"
COMMANDER_NAMED = "commander_named"
ORDER_PRELOADED = "order_preloaded"
PLOT_SHUFFLED = "plot_shuffled"
PLOT_ROUND = "plot_round"
PLOT_WINDOW = "plot_window"
PLOT_PASSED = "plot_passed"
PLOT_PLAYED = "plot_played"
PLOT_WINDOW_CLOSED = "plot_window_closed"
PLOT_DRAWN = "plot_drawn"
PLOT_GIVEN = "plot_given"
PLOT_DISCARDED = "plot_discarded"
PLOT_CHOICE_OPENED = "plot_choice_opened"
PLOT_CHOICE_SKIPPED = "plot_choice_skipped"
PLOT_REVEAL = "plot_reveal"
PLOT_TAKEN = "plot_taken"
PLOT_SPOTLIGHT = "plot_spotlight"
PLOT_ORDER_SEEN = "plot_order_seen"
TEAM_VETOED = "team_vetoed"
PLOT_DECLARED = "plot_declared"
HOST_ACTION = "host_action"
DEADLINE_EXTENDED = "deadline_extended"
DEADLINE_MOVED = "deadline_moved"  # after the bot was not running (Postpone)
GAME_PAUSED = "game_paused"
GAME_RESUMED = "game_resumed"
REMINDERS_SENT = "reminders_sent"
