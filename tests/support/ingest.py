"""What the inbox tests share: a team vote that waits for its deadline and defaults missing
votes to REJECT, and a bug planted in the handling of chosen messages."""
from __future__ import annotations

from forumbot.shell.inbox import Inbox

VOTE = "deadlines: {team_vote: 1h, close_early: false}\nmissed: {team_vote: reject}\n"


def plant_bug(monkeypatch, when, error):
    """The handling of the messages `when(row)` picks raises `error` (a bug)."""
    handle = Inbox.handle

    def buggy(self, row):
        if when(row):
            raise error
        return handle(self, row)

    monkeypatch.setattr(Inbox, "handle", buggy)
