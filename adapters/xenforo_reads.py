"""XenForo reads: the game forum's threads by last post date, the changed threads' new
posts, the bot's conversations, and the re-check of posts for edits.

- There is no site-wide "new posts" listing in the API. One listing serves every game in
  the game forum (the `[xenforo] node`): `GET forums/{node}/threads?order=last_post_date
  &direction=desc` (XF\\Api\\ControllerPlugin\\Thread::applyThreadListSort), 20 a page
  (the `discussionsPerPage` option), each thread with its `last_post_id`. It is paged
  back to the newest last post date the last fetch saw; only the game threads whose
  `last_post_id` moved are read, from the page holding the first post not read yet
  (`threads/{id}/posts?page=N`, oldest first, `messagesPerPage` = 20 a page, a page past
  the last a 400 `invalid_page`). A quiet poll costs that one listing and the
  conversation list, whatever the number of games.
- A game thread in another forum (a host's own thread) is not on that listing: the first
  fetch that meets a game thread reads it by id once (`threads/{id}`) to learn its node,
  and one outside the game forum is read by id every fetch.
- An edit does not move a thread on the listing: posts are re-read for edits on their own
  (`recheck`), from the pages the fetch just read where they are there, else by id
  (`posts/{id}`), a few a cycle and only in a cycle where someone posted.
- The bot's PMs are conversations: `GET conversations` (the bot's, newest message first:
  assumed from the web list's order), and the messages of those with a newer
  `last_message_id` (`conversations/{id}/messages?page=N`). A reply in a conversation the
  bot started has it as its parent (`conv:<id>`).
- A soft-deleted post is left out (`message_state` is not "visible"; only moderators
  get it at all); `[ICODE]` (inline code) is read as code, so a command in it never
  counts; quotes (`[QUOTE="bob, post: 12, member: 3"]`) are left to the parser as on
  every forum, and a spoiler is the player's own text, as on Reddit.
"""
from __future__ import annotations

import logging
import re
from datetime import datetime, timezone
from typing import Sequence

from .base import Fetched, ForumError, Inbound, LoginFailed, PermanentError, TransientError
from .unnamed import Unnamed
from .xenforo_http import XenForoHTTP

PER_PAGE = 20  # messagesPerPage and discussionsPerPage, XenForo's defaults
LIST_PAGES = 5  # pages of the game forum's listing read back to the bookmark in one fetch
THREAD_PAGES = 5  # pages of one thread's new posts read in one fetch (then: partial)
AWAY_READS = 25  # game threads read by id in one fetch (outside the game forum, after a gap)
PM_PAGES = 5  # pages of the conversation list read at most in one fetch
PM_READS = 3  # pages of one conversation's new messages read in one fetch
PM_KEEP = 500  # conversations remembered in the bookmark
RECHECK_POSTS = 5  # posts off the pages just read that one recheck reads by id
_ICODE = re.compile(r"\[(/?)icode\]", re.I)
log = logging.getLogger("adapters.xenforo")


def thread_of(ref: str | None) -> int | None:
    """The thread id of a thread id `thread:<id>` (None if it is not one)."""
    m = re.fullmatch(r"thread:(\d+)", str(ref or ""))
    return int(m.group(1)) if m else None


def post_ref(ref: str | None) -> tuple[int, int] | None:
    """(thread, post id) of a post id `<thread>/<post>`."""
    m = re.fullmatch(r"(\d+)/(\d+)", str(ref or ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def conv_of(ref: str | None) -> int | None:
    """The conversation of a message id `c<conversation>/<message>` or a sent PM `conv:<id>`."""
    m = re.fullmatch(r"(?:c(\d+)/\d+|conv:(\d+))", str(ref or ""))
    return int(m.group(1) or m.group(2)) if m else None


def _utc(stamp) -> datetime:
    try:
        return datetime.fromtimestamp(int(stamp), timezone.utc)
    except (TypeError, ValueError, OverflowError, OSError):
        return datetime.now(timezone.utc)


class XenForoReads(XenForoHTTP):
    """What the bot reads on XenForo (the Forum protocol's fetch, recheck, mark_read)."""

    def __init__(self, *args, node: int | None = None, recheck_every: float = 120.0, **kw):
        super().__init__(*args, **kw)
        self.node = node
        self.recheck_every = recheck_every
        self._seen: dict[int, dict] = {}  # the posts the last fetch read, by id
        self._busy = False
        self._rechecked: dict[int, float] = {}
        self._first_posts: dict[int, int] = {}  # thread id -> its first post's id
        self._unnamed = Unnamed("XenForo")  # posts and messages without a usable id: left out
        self.gaps = 0
        self._disordered = False  # the conversation list was seen out of order

    # --- the game threads -----------------------------------------------------------

    def _listing(self, page: int, node: int | None = None) -> tuple[list[dict], int]:
        data = self._get(f"/forums/{node or self.node}/threads",
                         {"order": "last_post_date", "direction": "desc", "page": page}) or {}
        last = int(((data.get("pagination") or {}).get("last_page")) or 1)
        return self._unnamed.keep(data.get("threads"), ("thread_id",), "the game forum's threads"), last

    def fetch(self, threads: Sequence[str], cursor: dict) -> Fetched:
        games = {tid: t for t in threads if (tid := thread_of(t)) is not None}
        known: dict[str, list] = {k: list(v) for k, v in (cursor.get("threads") or {}).items()
                                  if int(k) in games}
        out: list[Inbound] = []
        failed: dict[str, str] = {}
        partial: set[str] = set()
        self._seen, self._busy = {}, False
        at = cursor.get("at")
        newest = at
        changed: dict[int, dict] = {}
        reached = False  # the listing was read back to the bookmark
        try:
            if self.node is not None and games:
                for page in range(1, LIST_PAGES + 1):
                    items, last = self._listing(page)
                    fresh = False  # a game thread on this page moved since it was read
                    for item in items:
                        stamp = int(item.get("last_post_date") or 0)
                        newest = stamp if newest is None or stamp > newest else newest
                        tid = item["thread_id"]
                        if tid in games:
                            changed[tid] = item
                            fresh = fresh or int(item.get("last_post_id") or 0) > int((known.get(str(tid)) or [0])[0])
                    oldest = min((int(x.get("last_post_date") or 0) for x in items), default=0)
                    # down to the bookmark: past it, or at its second with nothing moved on the page
                    if not items or page >= last or at is None or oldest < at or (oldest == at and not fresh):
                        reached = True
                        break
                if not reached:
                    self.gaps += 1  # the pages ran out before the bookmark: the rest by id
        except LoginFailed:
            raise
        except ForumError as e:  # the listing cannot be read: every game waits; PMs go on
            for name in threads:
                failed[name] = f"the game forum's threads: {e}"
            games = {}
        reads = AWAY_READS
        for tid, name in games.items():
            read = known.get(str(tid))  # [last post id read, its node, posts read]
            t = changed.get(tid)
            if t is None:
                if read is not None and int(read[1] or 0) == self.node and reached:
                    continue  # in the game forum, and it did not move since the bookmark
                if reads <= 0:
                    partial.add(name)
                    continue
                reads -= 1
                try:
                    t = (self._get(f"/threads/{tid}") or {}).get("thread") or {}
                except LoginFailed:
                    raise
                except ForumError as e:
                    failed[name] = f"thread {tid}: {e}"
                    continue
            if t is None:
                continue
            node = int(t.get("node_id") or 0)
            if t.get("first_post_id"):
                self._first_posts[tid] = int(t["first_post_id"])
            done, count = (int(read[0]), int(read[2])) if read else (0, 0)
            if int(t.get("last_post_id") or 0) <= done:
                known[str(tid)] = [done, node, count]
                continue
            try:
                posts, complete = self._thread_since(tid, done, count, int(t.get("reply_count") or 0))
            except LoginFailed:
                raise
            except ForumError as e:
                failed[name] = f"thread {tid}: {e}"
                known[str(tid)] = [done, node, count]
                continue
            if not complete:
                partial.add(name)
            for p in posts:
                self._seen[int(p["post_id"])] = p
                done, count = max(done, int(p["post_id"])), count + 1
                if self._counts(p):
                    self._busy = True
                    out.append(self._inbound(p, name))
            known[str(tid)] = [done, node, count]
        pms, pm_cursor = self._conversations(cursor.get("pm"))
        out.extend(pms)
        return Fetched(out, {"at": newest, "threads": known, "pm": pm_cursor}, failed, partial)

    def _thread_since(self, tid: int, done: int, count: int, replies: int) -> tuple[list[dict], bool]:
        """The posts of a thread with ids above `done`, `count` of its posts read so far: from
        the page the next one is on (a page back while a page starts past `done`: posts were
        removed), THREAD_PAGES pages at most. Returns them and whether the thread was read
        to its end."""
        last_page = max(1, -(-(replies + 1) // PER_PAGE))
        page = min(last_page, (count - 1) // PER_PAGE + 1) if done and count else 1  # the last one read's
        posts: list[dict] = []
        pages, anchored = 0, False
        while page <= last_page and pages < THREAD_PAGES:
            got = self._posts_page(tid, page)
            pages += 1
            if done and not anchored and page > 1 and got and int(got[0]["post_id"]) > done:
                page -= 1  # removed posts moved the ones not read yet back a page
                continue
            anchored = True
            posts += [p for p in got if int(p["post_id"]) > done]
            page += 1
        return posts, page > last_page

    def _posts_page(self, tid: int, page: int) -> list[dict]:
        try:
            data = self._get(f"/threads/{tid}/posts", {"page": page}) or {}
        except PermanentError as e:
            if "page" in str(e).lower():  # invalid_page: posts went since the count was read
                return []
            raise
        return self._unnamed.keep(data.get("posts"), ("post_id", "thread_id"), f"thread {tid}")

    def _mine(self, item: dict) -> bool:
        return str(item.get("username") or "").casefold() == self.bot_name.casefold()

    def _counts(self, p: dict) -> bool:
        """A post a command can come from: a person's, visible."""
        return (str(p.get("username") or "").casefold() != self.bot_name.casefold()
                and (p.get("message_state") or "visible") == "visible")

    def _inbound(self, p: dict, thread: str | None) -> Inbound:
        return Inbound(id=f"{p.get('thread_id')}/{p['post_id']}", kind="comment", author=str(p.get("username") or ""),
                       body=_ICODE.sub(r"[\1code]", str(p.get("message") or "")), created=_utc(p.get("post_date")),
                       thread=thread, edited=bool(p.get("last_edit_date")))

    # --- conversations ------------------------------------------------------------------

    def _conversations(self, state: dict | None) -> tuple[list[Inbound], dict]:
        """New messages in the bot's conversations. The bookmark: the newest last message
        date read, and per conversation the last message id and count read and whether the
        bot started it. A conversation only part read keeps the bookmark back to it."""
        state = dict(state or {})
        at = state.get("at")
        known: dict[str, list] = {k: list(v) for k, v in (state.get("convs") or {}).items()}
        newest = at
        out: list[Inbound] = []
        try:
            changed = []
            for page in range(1, PM_PAGES + 1):
                data = self._get("/conversations", {"page": page}) or {}
                items = self._unnamed.keep(data.get("conversations"), ("conversation_id",), "the conversations")
                last = int(((data.get("pagination") or {}).get("last_page")) or 1)
                fresh = False  # a conversation on this page moved since it was read
                for c in items:
                    stamp = int(c.get("last_message_date") or 0)
                    newest = stamp if newest is None or stamp > newest else newest
                    read = known.get(str(c["conversation_id"]), [0, 0, None])
                    if int(c.get("last_message_id") or 0) <= int(read[0]):
                        continue
                    fresh = True
                    if self._mine(c) and not int(c.get("reply_count") or 0):  # the bot's own PM, unanswered
                        known[str(c["conversation_id"])] = [int(c["last_message_id"]), 1, True]
                        continue
                    changed.append(c)
                stamps = [int(c.get("last_message_date") or 0) for c in items]
                oldest = min(stamps, default=0)
                # The list is assumed newest first (as the web list): if a page is not, every page
                # is read (PM_PAGES), so that nothing is missed, and the log says so once.
                ordered = all(a >= b for a, b in zip(stamps, stamps[1:]))
                if not ordered and not self._disordered:
                    self._disordered = True
                    log.warning("XenForo's conversation list is not newest first: reading %d pages a poll", PM_PAGES)
                # Down to the bookmark: past it, or at its second with nothing moved on the page
                # (the bot's own burst of PMs shares a second; a page of them is not read again).
                if not items or page >= last or (ordered and at is not None
                                                 and (oldest < at or oldest == at and not fresh)):
                    break
            for c in changed:
                msgs, done = self._conversation(c, known)
                out += msgs
                if not done:
                    stamp = int(c.get("last_message_date") or 0)
                    newest = min(newest, stamp - 1) if newest is not None else stamp - 1
        except LoginFailed:
            raise
        except ForumError as e:  # nothing of this read counts: it is all read again
            raise TransientError(f"conversations: {e}", getattr(e, "retry_after", None)) from e
        if len(known) > PM_KEEP:
            known = dict(sorted(known.items(), key=lambda kv: int(kv[1][0]), reverse=True)[:PM_KEEP])
        return out, {"at": newest, "convs": known}

    def _conversation(self, c: dict, known: dict) -> tuple[list[Inbound], bool]:
        cid = int(c["conversation_id"])
        last_id, count, bot_started = known.get(str(cid), [0, 0, None])
        if bot_started is None:
            bot_started = str(c.get("username") or "").casefold() == self.bot_name.casefold()
        total = int(c.get("reply_count") or 0) + 1
        last_page = max(1, -(-total // PER_PAGE))
        page = count // PER_PAGE + 1
        page = min(page, last_page)
        out = []
        reads = 0
        while page <= last_page and reads < PM_READS:
            data = self._get(f"/conversations/{cid}/messages", {"page": page}) or {}
            reads += 1
            for m in self._unnamed.keep(data.get("messages"), ("message_id",), f"conversation {cid}"):
                if m["message_id"] <= int(last_id):
                    continue
                last_id, count = int(m["message_id"]), count + 1
                if str(m.get("username") or "").casefold() == self.bot_name.casefold():
                    continue
                first = int(m["message_id"]) == int(c.get("first_message_id") or -1)
                out.append(Inbound(id=f"c{cid}/{m['message_id']}", kind="pm", author=str(m.get("username") or ""),
                                   body=_ICODE.sub(r"[\1code]", str(m.get("message") or "")),
                                   created=_utc(m.get("message_date")), subject=str(c.get("title") or ""),
                                   parent=f"conv:{cid}" if bot_started and not first else None))
            page += 1
        known[str(cid)] = [last_id, count, bot_started]
        return out, page > last_page

    def mark_read(self, ids: Sequence[str]) -> None:
        """Nothing to do: the conversation bookmark is kept in the store, with what it read."""

    # --- edits ---------------------------------------------------------------------------

    def recheck(self, ids: Sequence[str]) -> list[Inbound]:
        """These posts as they read now: from the pages the fetch just read, else by id
        (`posts/{id}`), RECHECK_POSTS a call at most, each at most every `recheck_every`
        seconds, the one read longest ago first, and only after a fetch in which someone
        posted (a quiet cycle reads nothing more). A deleted post is left out."""
        out: list[Inbound] = []
        ask: list[tuple[int, int]] = []
        for ref in ids:
            parsed = post_ref(ref)
            if parsed is None:
                continue
            tid, pid = parsed
            p = self._seen.get(pid)
            if p is not None:
                if (p.get("message_state") or "visible") == "visible":
                    out.append(self._inbound(p, f"thread:{tid}"))
                continue
            ask.append((tid, pid))
        if not self._busy:
            return out
        now = self._monotonic()
        last = lambda pid: self._rechecked.get(pid, float("-inf"))  # noqa: E731
        due = [(tid, pid) for tid, pid in sorted(ask, key=lambda a: last(a[1]))
               if now - last(pid) >= self.recheck_every]
        for tid, pid in due[:RECHECK_POSTS]:
            self._rechecked[pid] = now
            try:
                answer = (self._get(f"/posts/{pid}") or {}).get("post") or {}
            except PermanentError:
                continue  # gone, or not visible to the bot any more
            except LoginFailed:
                raise
            except ForumError as e:
                raise TransientError(f"re-reading post {pid}: {e}") from e
            for p in self._unnamed.keep([answer], ("post_id", "thread_id"), f"thread {tid}"):
                if (p.get("message_state") or "visible") == "visible":
                    out.append(self._inbound(p, f"thread:{tid}"))
        return out
