"""Whether the database is behind the forum (a restored backup), and the look-ups that
catch it up before anything is posted twice.

An outbox key is deterministic: after a restore the database makes again the very items it
had posted after the backup (the vote's result, the order prompts), with the same keys and
so the same markers. Every marker token carries a check that only this database can make
(markers.marker_token), so the bot knows its own markers on the forum even for items its
outbox does not hold. Once per process, before its first post, the bot reads its own newest
posts and sent PMs (Forum.own_marks: a few requests). A marker of this database whose item
the outbox does not hold as posted (nor as an uncertain post, which is looked for anyway)
means the database is behind: from then on every item is looked for (find_posted) before it
is sent, and one found is marked posted with the found id. Being behind ends when every such
marker is accounted for (its item was found), or after LOOK_LIMIT items were looked for in
vain: by then the forum's recent posts that a look-up reads (100 on Reddit) hold nothing
older, so the items those markers stand for will never be made again (a message the restored
database will not read again) and looking on would only cost requests.
"""
from __future__ import annotations

import logging

from adapters.base import Forum, ForumError

from ... import markers
from ...store import Outbox

log = logging.getLogger("forumbot")

LOOK_LIMIT = 100  # items looked for in vain, after which the unaccounted markers are let go
CHECK_TRIES = 3  # flushes that try to read the bot's own posts before going on without the check
KNOWN = 5000  # the newest outbox items whose tokens are compared with the forum's markers


class Reconcile:
    """The once-per-process check, and while behind, which markers are still unaccounted."""

    def __init__(self, forum: Forum):
        self.forum = forum
        self.checked = False
        self.tries = 0  # failed reads of the bot's own posts
        self.unaccounted: set[str] = set()
        self.misses = 0

    @property
    def behind(self) -> bool:
        return bool(self.unaccounted)

    def check(self) -> None:
        """Once per process, before its first post: is the database behind the forum?"""
        if self.checked:
            return
        try:
            tokens = self.forum.own_marks()
        except ForumError as e:  # tried again at the next flushes, CHECK_TRIES in all
            self.tries += 1
            self.checked = self.tries >= CHECK_TRIES
            log.warning("could not read the bot's own posts to check the database is not behind: %s", e)
            return
        ours = {t for t in tokens or () if markers.our_token(t)}
        rows = (Outbox.select(Outbox.id, Outbox.key)
                .where((Outbox.kind != "edit") & ((Outbox.state == "posted") | Outbox.uncertain))
                .order_by(Outbox.id.desc()).limit(KNOWN)) if ours else []
        known = {markers.item_token(r) for r in rows}
        self.checked = True  # (a database in trouble above: the next flush checks again)
        self.unaccounted = ours - known
        self.misses = 0
        if self.unaccounted:
            log.warning("the database is behind the forum (a restored backup?): %d of the bot's posts there are "
                        "not in its outbox; every post is looked for before it is sent", len(self.unaccounted))

    def found(self, token: str) -> None:
        """An item looked for was there: its marker is accounted for."""
        if token in self.unaccounted:
            self.unaccounted.discard(token)
            if not self.unaccounted:
                log.info("the database has caught up with the forum: posts go out as before")

    def missed(self) -> None:
        """An item looked for while behind was not there (it goes out now)."""
        if not self.unaccounted:
            return
        self.misses += 1
        if self.misses >= LOOK_LIMIT:
            log.warning("%d of the bot's posts on the forum were never made again by this database: "
                        "posts go out without a look-up again", len(self.unaccounted))
            self.unaccounted.clear()
