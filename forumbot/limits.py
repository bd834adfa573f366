"""The bot's own limits and waits, in one place."""
from __future__ import annotations

from collections.abc import Callable

from .rules.commands import (
                             Command,
                             HostAbort,
                             HostClose,
                             HostDisqualify,
                             HostExtend,
                             HostPause,
                             HostRecord,
                             HostReplace,
                             HostResume,
                             HostSkip,
)
from .rules.modules.assassin import Assassinate
from .rules.modules.lady import LadyTarget

TARGET_COMMANDS = {"assassinate": Assassinate, "lady": LadyTarget}
SIDED = {"order", "assassinate"}  # whether these are taken depends on a hidden side or role
HOST_COMMANDS: dict[str, Callable[..., Command] | None] = {
    "signups": None, "close": HostClose, "extend": HostExtend, "pause": HostPause, "resume": HostResume,
    "disqualify": HostDisqualify, "abort": HostAbort, "replace": HostReplace,
    "skip": HostSkip, "record": HostRecord, "status": None}
PER_AUTHOR_PER_CYCLE = 20  # messages of one sender handled in a cycle; the rest wait their turn
REPLIES_PER_AUTHOR = 5  # answers to one sender in REPLY_WINDOW; past that the bot stays quiet
REPLY_WINDOW = 600  # seconds
RECHECK_LIMIT: int | None = None  # comments re-checked for edits in one cycle (None: the forum's batch)
RECHECK_AFTER = 30  # seconds before looking again for a post whose fate is unknown
STATUS_EVERY = 60  # seconds: at most one public STATUS answer per game in this time
POINTER_EVERY = 86400  # seconds: a stranger gets at most one pointer to HELP in this time
SAME_NEW_GAME_WITHIN = 86400  # seconds: the same `new game` PM again in this time names the first game
MAX_TRIES = 2  # a message that raises this often (not for the database) is set aside: one retry,
#               so that it holds the deadlines for one more cycle at most
MESSAGE_CPU_SECONDS = 2.0  # CPU time one message may take; past it, it is set aside at once
PM_RESEND_AFTER = 600  # seconds an uncertain PM waits for its look-up before it is sent again
WAIT_NOTICE = 3600  # seconds a deadline may wait for the forum before the host is told
UNREADABLE_NOTICE = 600  # seconds a game thread may go unread before its host is told
OUTAGE_AFTER = 600  # seconds with no cycle (at least; 10 polls) that count as the bot down
