"""The outbox: posts go out in their thread's order, within the write budget; an uncertain
one is looked for before it is sent again; what can never go out is told to the host."""
from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from adapters.base import Forum, ForumError, Outgoing, PermanentError, Posted, TransientError, UncertainError

from ... import markers, store
from ...limits import PM_RESEND_AFTER, RECHECK_AFTER
from ...render import ops
from ...render import replies as words
from ...render.subjects import subject
from ...render.words import with_block
from ...store import Outbox, db
from ..games import GameBook
from .budget import COALESCE_WINDOW, WriteBudget, backoff
from .edits import Edits
from .fit import fit
from .reconcile import Reconcile

log = logging.getLogger("forumbot")


def _lane(item: Outbox) -> tuple:
    """What an outbox item keeps its order within: its thread, or its recipient."""
    if item.kind == "edit":
        return ("edit", item.id)
    if item.kind == "pm":
        return ("pm", (item.to or "").casefold())
    if item.game is not None:
        return ("game", item.game)  # a game's opening post and every comment after it
    return ("thread", item.thread)


def _urgency(item: Outbox, recent: datetime | None = None) -> tuple:
    """The order in which items share a tight budget: by priority; status edits (one row per
    game, which keeps its id) by how long their post's block has been out of date (the row's
    `created_at`, store.set_status_edits), stalest first, so that a busy minute cannot give
    every edit slot to the same few games. When writes are short (`recent`: the start of the
    coalescing window), a post edited since then comes after every other edit: its block waits
    for the window to end and takes in the changes that come meanwhile (a burst of votes is
    one edit, with the newest block)."""
    if item.kind == "edit":
        edited = item.posted_at is not None and recent is not None and store.aware(item.posted_at) > recent
        return (item.priority, edited, store.aware(item.created_at).timestamp(), item.id)
    return (item.priority, False, 0.0, item.id)


def _window(items: list[Outbox], budget: WriteBudget, forum_left: int | None, now: datetime) -> datetime | None:
    """The start of the coalescing window when writes are short (more edits wait than the
    edits' share has room for, or the forum is near its limit); None with room to spare,
    when every edit goes at once."""
    edits = sum(1 for i in items if i.kind == "edit")
    if not edits or not budget.short(edits, forum_left):
        return None
    return now - timedelta(seconds=COALESCE_WINDOW)


def _save(item: Outbox) -> None:
    """An item's changed fields only: a newer status block the store took meanwhile is not
    overwritten with the one just tried, and no other column of the row is written back as
    this flush last read it (a row marked posted stays posted)."""
    if item.dirty_fields:
        item.save(only=item.dirty_fields)


class Delivery:
    """The outbox: posts go out in their thread's order, within the write budget; an uncertain
one is looked for before it is sent again; what can never go out is told to the host."""

    def __init__(self, forum: Forum, book: GameBook, budget: WriteBudget, clock: Callable[[], datetime]):
        self.forum = forum
        self.book = book
        self.budget = budget
        self.clock = clock
        self.reconcile = Reconcile(forum)  # is the database behind the forum (a restored backup)?
        self.edits = Edits(clock)  # status edits read again and marked posted in batches

    def flush(self) -> int:
        """Post what waits. The posts of one thread (and the PMs to one person) go out in
        the order they were written: while one waits, the later ones wait behind it."""
        posted = 0
        now = self.clock()
        pending = list(Outbox.select().where(Outbox.state == "pending").order_by(Outbox.id))
        first: dict[tuple, int] = {}  # per thread or recipient: the oldest item not yet out
        later: dict[tuple, list[int]] = {}
        for i in pending:
            first.setdefault(_lane(i), i.id)
            later.setdefault(_lane(i), []).append(i.id)
        # A game's PMs (the roles) wait for its opening post: if Reddit refuses that post,
        # the game does not start, and no one may have been dealt a role for it.
        unopened = {i.game for i in pending if i.kind == "thread" and i.game is not None}
        items = [i for i in pending if i.not_before is None or store.aware(i.not_before) <= now]
        left = self.forum.requests_left
        recent = _window(items, self.budget, left(), now)
        if len(items) > self.budget.room():  # more than the budget takes: the most urgent first,
            items.sort(key=lambda i: _urgency(i, recent))  # and of the edits the stalest block
        else:  # (the edits' share of the budget may still be short: they go last, stalest first)
            items.sort(key=lambda i: (i.kind == "edit", _urgency(i, recent) if i.kind == "edit" else (i.id,)))
        if any(i.kind != "edit" for i in items):
            self.reconcile.check()  # once per process, before its first post
        self.edits.begin([i for i in items if i.kind == "edit"])
        for item in items:
            lane = _lane(item)
            if lane[0] != "edit" and first.get(lane) != item.id:
                continue  # an older post of its thread waits: this one waits behind it
            if item.kind == "pm" and item.game in unopened:
                continue
            if not self.budget.allow(item.priority, left()):
                continue  # waits for a later cycle: it stays in the outbox
            done = self._send(item, now)
            posted += done
            if item.kind == "thread" and item.state == "posted":
                unopened.discard(item.game)
            if (done or item.state != "pending") and lane[0] != "edit":
                rest = [n for n in later[lane] if n > item.id]
                if rest:
                    first[lane] = rest[0]
                else:
                    first.pop(lane, None)
        self.edits.mark()
        return posted

    def _send(self, item: Outbox, now: datetime) -> int:
        """One outbox item: 1 if it went out (or was found to have landed), else 0."""
        if item.kind == "edit":
            self.budget.spend()  # (tried or not: an edit takes its turn of the budget)
            return self._edit(item, now)
        if item.kind == "comment" and item.thread is None:
            game = self.book.get(item.game) if item.game is not None else None
            if game is None or game.thread is None:
                return 0  # the opening post is not out yet
            item.thread = game.thread
        out = Outgoing(key=item.key, kind=item.kind, body=item.body, thread=item.thread,
                       to=item.to, subject=item.subject, title=item.title, where=item.place,
                       reply_to=item.reply_to, token=markers.item_token(item))
        out = fit(out, self.forum.traits, self.book.markup)  # within the forum's limits, marker included
        behind = self.reconcile.behind
        if item.uncertain or behind:  # it may have landed (or a restored database made it again): look first
            try:
                found = self.forum.find_posted(out)
            except ForumError as e:
                if item.kind != "pm" or (now - store.aware(item.created_at)).total_seconds() < PM_RESEND_AFTER:
                    item.not_before = store.naive(now + timedelta(seconds=RECHECK_AFTER))
                    item.error = f"could not look for it: {e}"[:500]
                    item.save()  # still uncertain
                    return 0
                # The sent PMs cannot be read (Reddit moved PMs to Chat; the listing may
                # redirect to a login page): a PM twice beats a role PM never sent.
                log.warning("sending %s again: the sent messages cannot be read (%s)", item.key, e)
                self._tell_host_resent(item, str(e))
                found = None
            if found is not None:
                self.reconcile.found(out.token)
                self._posted(item, found)
                return 1
            if behind:
                self.reconcile.missed()
        item.uncertain = True
        item.attempts += 1
        item.save()  # written before it is posted: after a crash it is looked for first
        self.budget.spend()
        return self._attempt(item, out, now)

    def _edit(self, item: Outbox, now: datetime) -> int:
        """A status-block edit of the opening post. Edits are idempotent: after an
        uncertain failure the same edit is simply sent again."""
        game = self.book.get(item.game) if item.game is not None else None
        opening = self.book.opening(game) if game is not None else None
        if opening is None:
            return 0  # the opening post is not out yet
        fresh = self.edits.current(item)  # a newer block may have come since the flush began
        if fresh is None:
            return 0  # overtaken (sent or dropped meanwhile): nothing stale goes out
        if fresh != item.body:
            item.body = fresh
        body = with_block(opening.body, item.body, self.book.markup)
        out = Outgoing(key=opening.key, kind="edit", body=body, thread=opening.ext_id, where=opening.kind,
                       token=markers.item_token(opening))  # the edited post keeps its marker
        out = fit(out, self.forum.traits, self.book.markup)
        item.attempts += 1
        return self._attempt(item, out, now)

    def _attempt(self, item: Outbox, out: Outgoing, now: datetime) -> int:
        """The one error ladder of posts and edits: a transient error waits (backoff, or
        what the forum asked for); an uncertain one stays uncertain (a post is looked for
        before it is sent again, an edit is simply sent again); a permanent one fails the
        item and tells the host."""
        try:
            posted = self.forum.post(out)
        except TransientError as e:
            item.uncertain = False
            item.not_before = store.naive(now + timedelta(seconds=backoff(item.attempts, e.retry_after)))
            item.error = str(e)[:500]
            _save(item)
            return 0
        except UncertainError as e:
            item.error = str(e)[:500]
            _save(item)  # a post stays uncertain: the next flush looks for it first
            return 0
        except PermanentError as e:
            item.state = "failed"
            item.uncertain = False
            item.error = str(e)[:500]
            _save(item)
            if item.game is None:  # no host to tell: the operator reads it in the log
                log.warning("the forum refused %s to %s for good: %s; it began: %r", item.key,
                            item.to or item.thread, str(e)[:200], out.body[:200])
            if item.kind == "thread" and item.game is not None:
                self._not_started(item, str(e))
            else:
                self._tell_host_of_failure(item, str(e))
            return 0
        self._posted(item, posted)
        return 1

    def _not_started(self, item: Outbox, error: str) -> None:
        """The forum refused a game's opening post for good (a title or body that breaks a
        rule): the game does not start, nothing else of it goes out, and the host is told
        what the forum said and how to try again."""
        game = self.book.get(item.game) if item.game is not None else None
        if game is None:
            return
        with db.atomic():
            Outbox.update(state="failed", error="the game did not start").where(
                (Outbox.game == game.id) & (Outbox.state == "pending") & (Outbox.id != item.id)).execute()
            game.status = "aborted"
            game.next_deadline = None
            game.save()
            self.book.forget(game.id)
            out = Outgoing(key=f"{game.tag}:not-started", kind="pm", to=game.host,
                           subject=subject("not_started", game.tag),
                           body=ops.not_started(game.tag, item.title, error, self.book.markup))
            store.enqueue(out, None, self.clock(), priority=0)

    def _tell_host_resent(self, item: Outbox, error: str) -> None:
        game = self.book.get(item.game) if item.game is not None else None
        if game is None:
            return
        out = Outgoing(key=f"{game.tag}:pm-resent", kind="pm", to=game.host,
                       subject=subject("twice", game.tag),
                       body=ops.pm_resent(game.tag, item.to or "", error))
        store.enqueue(out, game.id, self.clock(), priority=0)

    def _posted(self, item: Outbox, posted: Posted) -> None:
        if item.kind == "edit":  # posted only if no newer block replaced it meanwhile: that one goes next
            self.edits.sent(item, posted)  # (marked with the next batch of edits)
            return
        with db.atomic():
            item.state = "posted"
            item.uncertain = False
            item.ext_id = posted.id
            item.url = posted.url
            item.posted_at = store.naive(self.clock())
            item.save()
            if item.kind == "thread" and item.game is not None:
                game = self.book.get(item.game)
                if game is not None:
                    game.thread, game.thread_url = posted.id, posted.url
                    game.save()
                    self.book.tell_host_started(game, posted.url or posted.id)

    def _tell_host_of_failure(self, item: Outbox, error: str) -> None:
        game = self.book.get(item.game) if item.game is not None else None
        if game is None:
            return
        if item.kind == "pm" and item.to and item.to.casefold() == game.host.casefold():
            return
        out = Outgoing(key=f"{item.key}:failed", kind="pm", to=game.host,
                       subject=subject("undelivered", game.tag),
                       body=words.undelivered(game.tag, item.kind, item.to, error))
        store.enqueue(out, game.id, self.clock())
