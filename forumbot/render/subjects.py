"""The subjects of the bot's PMs about its own running (to hosts, mostly), in one place."""
from __future__ import annotations

SUBJECTS = {
    "deadline_waits": "{tag}: a deadline is waiting",
    "not_started": "{tag}: the game could not start",
    "twice": "{tag}: a PM may have gone out twice",
    "undelivered": "{tag}: a message could not be delivered",
    "signups_open": "{tag}: sign-ups are open",
    "running": "{tag}: your game is running",
    "forwarded": "{tag}: a message from {sender}",
    "reply": "re: your message",
    "unreadable": "{tag}: I cannot read the game thread",
    "set_aside": "{tag}: a message I could not handle",
    "too_few": "{tag}: too few players",
}


def subject(kind: str, tag: str = "", **kw: str) -> str:
    """The subject of one kind of PM (`SUBJECTS`), for the game `tag`."""
    return SUBJECTS[kind].format(tag=tag, **kw)
