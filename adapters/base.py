"""The seam between the bot and a forum: what comes in, what goes out, and the protocol
every adapter implements. A forum's quirks stay inside its adapter."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Protocol, Sequence


class Markup(str, Enum):
    MARKDOWN = "markdown"
    BBCODE = "bbcode"
    HTML = "html"


@dataclass(frozen=True)
class Inbound:
    """A comment in a thread or a PM to the bot, as first seen."""

    id: str  # unique within the forum
    kind: str  # comment | pm
    author: str
    body: str
    created: datetime  # UTC
    thread: str | None = None  # the thread of a comment
    subject: str = ""
    parent: str | None = None  # for a PM: the id of the message it answers
    edited: bool = False
    # Who sent it, where the forum says so: "" a person; "admin" (the forum's staff),
    # "subreddit" (a community's mail or modmail). The bot never answers those.
    origin: str = ""


@dataclass(frozen=True)
class Outgoing:
    """One post, comment or PM in the outbox. `key` is unique and never shown."""

    key: str
    kind: str  # thread | comment | pm
    body: str
    thread: str | None = None  # comment: the thread it goes in
    to: str | None = None  # pm: the recipient
    subject: str = ""
    title: str = ""  # thread: its title
    where: str | None = None  # thread: the subreddit or category
    reply_to: str | None = None  # comment: the comment it answers
    token: str = ""  # an unforgeable mark of `key` (keyed with the database's secret) for the
    #                  invisible marker; adapters fall back to the key itself where it is empty


@dataclass(frozen=True)
class Posted:
    id: str
    url: str | None = None


@dataclass
class Fetched:
    inbound: list[Inbound] = field(default_factory=list)
    cursor: dict = field(default_factory=dict)  # the adapter's own bookmarks, kept by the store
    # Threads whose read failed this time (thread id -> why). Their comments may be missing,
    # so their games' deadlines wait; everything else was read up to the fetch's start.
    failed: dict[str, str] = field(default_factory=dict)
    # Threads read only in part (after a gap, more comments than one read reaches): no
    # error, but their deadlines wait too, until a later fetch has read them in full.
    partial: set[str] = field(default_factory=set)


class ForumError(Exception):
    """Base of the errors an adapter raises."""


class TransientError(ForumError):
    """Try again later (a rate limit, a 5xx that surely did not land)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class UncertainError(ForumError):
    """The request may or may not have landed (a timeout, a 5xx on a POST)."""


class LoginFailed(ForumError):
    """The forum refused the bot's login (a wrong password, a revoked token, 2FA): no read
    or write can work until the operator fixes the settings."""


class PermanentError(ForumError):
    """This post can never go out (a locked or deleted thread, a user who takes no PMs)."""


@dataclass(frozen=True)
class Traits:
    """What a forum can do, and how much of it: the shell asks these, never the forum's name."""

    edits: bool = True  # the bot may edit its own posts (the status block in the opening post)
    pm_subjects: bool = True  # a PM keeps its subject (Reddit's chat may drop it)
    new_threads: bool = True  # the bot may open a thread for a game
    requests_per_minute: int = 60  # the forum's budget for the bot
    recheck_batch: int = 100  # posts re-read for edits in one cycle (one request where it can)
    mark_read_batch: int = 25  # PMs marked read in one request
    listing_window: int = 500  # new messages in one fetch above which the bot reads again at once
    place_key: str = "place"  # the config key naming where new game threads go
    mention_prefix: str = ""  # how a reply names the player it answers ("u/" on Reddit)
    # The longest text the forum takes, in characters (the bot's marker included): a post's or
    # PM's body, a new thread's title, a PM's subject. The outbox fits every text to them.
    max_body: int = 32000
    max_title: int = 255
    max_subject: int = 255


class ForumBase:
    """What every adapter shares: its traits, and the defaults of the protocol's extras."""

    traits = Traits()

    def mention(self, name: str) -> str:
        """How a public reply names the player it answers."""
        return f"{self.traits.mention_prefix}{name}"

    def requests_left(self) -> int | None:
        """The requests the forum still allows in its current window (None: not known)."""
        return None

    def own_marks(self) -> list[str] | None:
        """The marker tokens in the bot's own newest posts and sent PMs (a few requests), or
        None where the forum keeps no markers to read."""
        return None


class Forum(Protocol):
    name: str  # names the forum in the store: inbound ids are unique per forum
    markup: Markup
    bot_name: str
    traits: Traits

    def mention(self, name: str) -> str:
        """How a public reply names the player it answers."""

    def requests_left(self) -> int | None:
        """The requests the forum still allows in its current window (None: not known)."""

    def fetch(self, threads: Sequence[str], cursor: dict) -> Fetched:
        """New comments in these threads, and unread PMs to the bot."""

    def mark_read(self, ids: Sequence[str]) -> None:
        """Mark these PMs read (called only after they are stored)."""

    def post(self, out: Outgoing) -> Posted:
        """Send one outbox item. Raises a ForumError subclass on failure."""

    def find_posted(self, out: Outgoing) -> Posted | None:
        """After an uncertain failure: the item, if it landed after all."""

    def own_marks(self) -> list[str] | None:
        """The marker tokens in the bot's own newest posts and sent PMs (a few requests), or
        None where the forum keeps no markers to read. Raises ForumError if none could be read."""

    def thread_id(self, ref: str) -> str | None:
        """An existing thread's id from a URL or id the host wrote (None if not one)."""

    def recheck(self, ids: Sequence[str]) -> list[Inbound]:
        """These comments as they read now (to notice edits); deleted ones are left out."""
