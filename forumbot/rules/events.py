"""The append-only event log: the truth of a game."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Event:
    type: str
    at: datetime
    data: dict = field(default_factory=dict)

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
