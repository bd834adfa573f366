"""Reddit through praw. Reddit's quirks live here and nowhere else:

- a thread id is "subreddit:submission_id", so one `/r/{sub}/comments` listing serves
  every game in a subreddit;
- prawcore asks for raw_json=1, so bodies arrive as typed (no &gt; escapes);
- every post ends in an empty link `[](#fb-<hash of the outbox key>)`, which Reddit
  renders as nothing; after an uncertain failure the bot's own recent posts are searched
  for it, so a post that landed is never posted again;
- praw's and prawcore's errors become the adapter's three kinds: transient, uncertain,
  permanent; each says in one line what failed (a request without an answer names its host).
"""
from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any, Callable, Sequence

import praw
import prawcore
from praw.exceptions import RedditAPIException
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt

from . import reddit_items as items
from . import reddit_json
from .base import (
    Fetched,
    ForumBase,
    Inbound,
    LoginFailed,
    Markup,
    Outgoing,
    PermanentError,
    Posted,
    Traits,
    TransientError,
    UncertainError,
)
from .reddit_errors import (
    _at_token_endpoint,
    believed_waits,
    one_line,
    single_shot_posts,
    write_error,
)
from .reddit_marks import _token, _unmarked, marker, own_marks
from .retries import read_wait
from .unnamed import Unnamed

MARK_READ_BATCH = 25
PAGE = 100
MAX_PAGES = 10
QUIET_PAGE = 5  # a subreddit that was quiet last time: its listing's first page (widened when all are new)
MAX_IDS = 2000  # ids of the bookmark's second kept (most comments of a busy listing share one)
GAP_THREAD_READS = 25  # game threads read in full per fetch after a gap (the rest wait)
SUB_BACKOFF_MAX = 15  # fetches a failing subreddit is skipped at most (it doubles from 0)


class RedditForum(ForumBase):
    markup = Markup.MARKDOWN
    # 100 requests a minute per OAuth client; info() takes 100 fullnames, mark-read 25 ids;
    # a subreddit's listing shows only its newest ~1,000 comments, so past 500 new ones in
    # a fetch the bot reads again at once; a chat may drop a PM's subject.
    traits = Traits(pm_subjects=False, requests_per_minute=100, recheck_batch=100,
                    mark_read_batch=25, listing_window=500, place_key="subreddit", mention_prefix="u/",
                    max_body=10000, max_title=300, max_subject=100)  # a comment's or PM's body: 10,000

    def __init__(self, reddit: praw.Reddit, name: str = "reddit", default_subreddit: str | None = None,
                 read_attempts: int = 3, backoff: float = 1.0, max_wait: float = 60.0):
        self.reddit = reddit
        self.gaps = 0  # how often the listing did not reach back to the last comment seen
        self.gap_threads = 0  # game threads read in full to fill those gaps
        single_shot_posts(reddit)
        self.wall: Callable[[], float] = time.time  # the bot's clock, for a Retry-After date
        believed_waits(reddit, lambda: self.wall())
        # Reads that fail for a moment (5xx, a dropped connection, 429) are tried again,
        # with exponential backoff and jitter, or as long as Retry-After says (capped).
        self._retrying = Retrying(
            retry=retry_if_exception_type((prawcore.ServerError, prawcore.RequestException,
                                           prawcore.TooManyRequests)),
            wait=read_wait(backoff, max_wait), stop=stop_after_attempt(read_attempts), reraise=True)
        self.name = name
        self.bot_name = reddit.config.username or "forumbot"
        self._sub_waits: dict[str, tuple[int, int, str]] = {}  # failing subreddit: fails, fetches to skip, why
        self._quiet: set[str] = set()  # things whose inbox replies the bot switched off
        self._unnamed = Unnamed("Reddit")  # comments without a usable id or time: left out
        self._others: dict[str, int] = {}  # subreddit -> others' comments its listing read last time
        self._subs: tuple[list[str], dict[str, dict[str, str]]] | None = None  # (threads, by subreddit)
        self._mine: dict[str, int] = {}  # subreddit -> the bot's comments there since its listing was read
        self.default_subreddit = default_subreddit

    @classmethod
    def from_settings(cls, s: dict[str, str]) -> "RedditForum":
        kw: dict[str, Any] = {k: s[k] for k in ("client_id", "client_secret", "username", "password",
                                "refresh_token", "user_agent", "oauth_url", "reddit_url") if s.get(k)}
        kw.setdefault("user_agent", "forumbot/0.1")
        reddit = praw.Reddit(check_for_updates=False, **kw)
        return cls(reddit, default_subreddit=s.get("subreddit"))

    def requests_left(self) -> int | None:
        """What Reddit's X-Ratelimit-Remaining said last (None before the first answer).
        prawcore also spaces requests out by these headers on its own."""
        limiter = getattr(self.reddit._core, "_rate_limiter", None)
        return getattr(limiter, "remaining", None)

    # --- reading ---------------------------------------------------------------------

    def fetch(self, threads: Sequence[str], cursor: dict) -> Fetched:
        new_cursor: dict = {}  # only what changed: the store keeps the rest
        out: list[Inbound] = []
        if self._subs is None or self._subs[0] != threads:  # (kept while the threads stay the same)
            self._subs = (list(threads), items.by_subreddit(threads))
        by_sub = self._subs[1]  # subreddit -> link -> the caller's thread id
        failed: dict[str, str] = {}
        partial: set[str] = set()
        reads = GAP_THREAD_READS  # thread reads this fetch may spend on gaps
        for sub, links in sorted(by_sub.items()):
            if (wait := self._sub_waits.get(sub)) and wait[1] > 0:
                self._sub_waits[sub] = (wait[0], wait[1] - 1, wait[2])
                for t in links.values():  # still failing: tried again after its backoff
                    failed[t] = f"r/{sub}: {wait[2]} (tried again later)"
                continue
            seen: dict | None = cursor.get(f"sub:{sub}")
            unverified = dict(cursor.get(f"gap:{sub}") or {})
            try:
                newest, batch, gap, counted = self._retrying(self._listing, sub, links, seen)
                if gap and seen is not None:  # the listing did not reach back to the bookmark:
                    self.gaps += 1  # any thread may miss some (there is no gap without a bookmark)
                    unverified = self._unverified_after_gap(links, unverified, seen["t"], cursor)
                for link, n in counted.items():
                    new_cursor[f"n:{link}"] = cursor.get(f"n:{link}", 0) + n
                unverified = {k: v for k, v in unverified.items() if k in links}
                if unverified:
                    reads = self._verify(sub, unverified, batch, reads)
                new_cursor[f"gap:{sub}"] = unverified
            except prawcore.PrawcoreException as e:
                # One subreddit that cannot be read (down, private, banned) stops only its
                # own games: their deadlines wait; every other subreddit and the inbox go on.
                fails = (self._sub_waits.get(sub) or (0,))[0] + 1
                self._sub_waits[sub] = (fails, min(2 ** (fails - 1) - 1, SUB_BACKOFF_MAX), one_line(e))
                for t in links.values():
                    failed[t] = f"r/{sub}: {one_line(e)}"
                for key in [k for k in new_cursor if k.removeprefix("n:") in links]:
                    del new_cursor[key]
                continue
            self._sub_waits.pop(sub, None)
            partial.update(links[link] for link in unverified)  # read in a later fetch; deadlines wait
            if newest is not None:
                new_cursor[f"sub:{sub}"] = newest
            out.extend(c if c.thread == links[f"t3_{c.thread.partition(':')[2]}"] else
                       items.with_thread(c, links[f"t3_{c.thread.partition(':')[2]}"]) for c in reversed(batch))
        try:
            pms = self._retrying(self._unread)
        except prawcore.OAuthException as e:
            raise LoginFailed(f"login failed: {e}") from e
        except prawcore.ResponseException as e:
            if _at_token_endpoint(e):
                raise LoginFailed(f"login failed: {e}") from e
            raise TransientError(f"inbox: {one_line(e)}") from e
        except prawcore.PrawcoreException as e:
            raise TransientError(f"inbox: {one_line(e)}") from e
        out.extend(reversed(pms))  # the listing is newest first; messages are handled oldest first
        return Fetched(out, new_cursor, failed, partial)

    def _unverified_after_gap(self, links, unverified: dict, since: float, cursor) -> dict:
        """Every game thread of the subreddit must be read in full (a count alone can hide a
        new comment behind a deleted one); those whose comment count changed go first (one
        info() request per 100 threads, once per gap)."""
        counts = self._retrying(self._num_comments, sorted(links))
        changed = [link for link in sorted(links) if counts.get(link, 0) != cursor.get(f"n:{link}", 0)]
        rest = [link for link in sorted(links) if link not in changed]
        out = dict(unverified)
        for link in changed + rest:
            out[link] = min(out.get(link, since), since)
        return out

    def _verify(self, sub, unverified, batch, reads) -> int:
        """After a gap, read game threads in full (in the order they were put in) until
        every comment newer than the bookmark is in. What the read budget does not reach
        stays unverified for the next fetch; only threads read in full leave it."""
        have = {c.id for c in batch}
        for link in list(unverified):
            if reads <= 0:
                break
            reads -= 1
            comments = self._retrying(self._thread_comments, sub, link, unverified[link])
            for c in comments:
                if c.id not in have:
                    have.add(c.id)
                    batch.append(c)
            del unverified[link]
            self.gap_threads += 1
        batch.sort(key=lambda c: c.created, reverse=True)
        return reads

    def _num_comments(self, links: list[str]) -> dict[str, int]:
        out = {}
        for i in range(0, len(links), PAGE):
            for s in self.reddit.info(fullnames=links[i:i + PAGE]):
                out[s.name] = int(s.num_comments or 0)
        return out

    def _listing(self, sub: str, links: dict[str, str], seen: dict | None):
        """New comments of the game threads in one subreddit, newest first, back to `seen`;
        and how many new comments (anyone's, each id once) each game thread got.

        The bookmark is the newest second read and every id of that second: most comments
        of a busy listing share their second, and the bookmarked comment itself may vanish,
        so the read goes back to that second and skips only the ids it has seen."""
        newest = seen
        batch = []
        counted: Counter = Counter()
        reached = seen is None
        seen_ids = set((seen or {}).get("ids") or ([seen["id"]] if seen and seen.get("id") else []))
        top: dict | None = None
        read = 0
        # A subreddit that was quiet last time asks for a few comments first, and for as many
        # more as the bot has commented there since (its own comments are in the listing too).
        mine = self._mine.pop(sub, 0)
        quiet = seen is not None and self._others.get(sub, PAGE) < QUIET_PAGE
        first = min(PAGE, QUIET_PAGE + mine) if quiet else PAGE
        me = self.bot_name.lower()
        others = 0
        for c in reddit_json.pages(self.reddit, f"r/{sub}/comments", first, PAGE, PAGE * MAX_PAGES):
            read += 1
            if not reddit_json.named(c):
                self._unnamed.left_out(c, "id and created_utc", f"r/{sub}")
                continue
            t, cid = float(c["created_utc"]), c["id"]
            if top is None:
                top = {"t": t, "id": cid, "ids": []}
            if t == top["t"]:
                top["ids"].append(cid)
            if seen is not None and (t < seen["t"] or cid == seen.get("id")):
                reached = True  # back to the bookmark (or, if it vanished, past its second)
                break
            if seen is not None and t == seen["t"] and cid in seen_ids:
                reached = True  # the bookmark itself (or its second's neighbours): read last time
                continue
            link, theirs = c.get("link_id"), str(c.get("author") or "[deleted]").lower() != me
            others += theirs
            if link in links:
                counted[link] += 1
                if theirs:
                    batch.append(items.comment_json(c, sub))
        self._others[sub] = others
        if top is not None and (seen is None or top["t"] > seen["t"]):
            newest = top
        elif top is not None and seen is not None and top["t"] == seen["t"]:
            newest = {"t": seen["t"], "id": top["id"], "ids": sorted(seen_ids | set(top["ids"]))[-MAX_IDS:]}
        # A gap: the listing ran out (Reddit keeps about 1,000) before reaching back to the
        # bookmark's second, so older new comments may be missing from it.
        gap = seen is not None and not reached and read > 0 and bool(seen.get("t"))
        if newest is None:  # an empty subreddit: from now on, every comment is new
            newest = {"t": 0, "id": "", "ids": []}
        return newest, batch, gap, counted

    def _thread_comments(self, sub: str, link: str, since: float) -> list[Inbound]:
        """A game thread's own comments since `since`, every "load more" expanded (the
        fallback after a gap: only a thread read in full counts as read)."""
        submission = self.reddit.submission(link.removeprefix("t3_"))
        submission.comment_sort = "new"
        submission.comments.replace_more(limit=None)
        comments: list[Any] = submission.comments.list()  # (no MoreComments left: replaced above)
        return [items.comment(c, sub) for c in comments
                if c.created_utc >= since and str(c.author).lower() != self.bot_name.lower()]

    def _unread(self) -> list[Inbound]:
        pms: list[Inbound] = []
        for item in self.reddit.inbox.unread(limit=None):
            if isinstance(item, praw.models.Message) and not getattr(item, "was_comment", False):
                origin = items.origin(item)
                pms.append(Inbound(
                    id=item.id, kind="pm", author=str(item.author or (item.subreddit or "")),
                    body=item.body or "", created=items.utc(item.created_utc), subject=item.subject or "",
                    parent=(item.parent_id or "").removeprefix("t4_") or None, origin=origin))
            else:  # comment and post replies: the thread listing has the comments; never PMs
                pms.append(Inbound(id=item.fullname, kind="other", author=str(item.author or ""),
                                   body="", created=items.utc(item.created_utc)))
                self._quieten(getattr(item, "parent_id", None) or "")
        return pms

    def _quieten(self, parent: str) -> None:
        """A reply to one of the bot's comments (or an older thread's post) reached the
        inbox: switch that thing's inbox replies off, once (one request), so that its
        further replies are read from the listing only. The bot's threads are submitted
        with them off already; a comment cannot be, so it is done when a reply comes."""
        if not parent.startswith(("t1_", "t3_")) or parent in self._quiet:
            return
        self._quiet.add(parent)
        try:
            thing = (self.reddit.comment(parent[3:]) if parent.startswith("t1_")
                     else self.reddit.submission(parent[3:]))
            thing.disable_inbox_replies()
        except (prawcore.PrawcoreException, RedditAPIException):
            pass  # not the bot's, or gone: its replies are marked read as before

    def mark_read(self, ids: Sequence[str]) -> None:
        names = [i if i.startswith("t") and "_" in i else f"t4_{i}" for i in ids]
        for i in range(0, len(names), MARK_READ_BATCH):
            try:
                self.reddit.post("api/read_message/", data={"id": ",".join(names[i:i + MARK_READ_BATCH])})
            except prawcore.PrawcoreException:
                return  # unread messages come again and are deduplicated by id

    # --- writing ---------------------------------------------------------------------

    def post(self, out: Outgoing) -> Posted:
        body = f"{_unmarked(out.body)}\n\n{marker(out)}"
        thread = out.thread or ""
        try:
            if out.kind == "edit":  # the opening post (a submission, or a comment in an existing thread)
                if ":" in thread:  # it keeps its marker: `out` carries the post's own key
                    self.reddit.submission(thread.partition(":")[2]).edit(body)
                else:
                    self.reddit.comment(thread).edit(body)
                return Posted(thread)
            if out.kind == "thread":
                sub = out.where or self.default_subreddit
                if not sub:
                    raise PermanentError("no subreddit for the new thread: set `subreddit:` in the config")
                # No inbox replies: the comments of a game thread are read from the listing.
                s = self.reddit.subreddit(sub).submit(out.title, selftext=body, send_replies=False)
                sub = sub.lower()
                return Posted(f"{sub}:{s.id}", f"https://www.reddit.com/r/{sub}/comments/{s.id}/")
            if out.kind == "comment":
                if out.reply_to:
                    c = self.reddit.comment(out.reply_to).reply(body)
                else:
                    c = self.reddit.submission(thread.partition(":")[2]).reply(body)
                sub = thread.partition(":")[0].lower()
                self._mine[sub] = self._mine.get(sub, 0) + 1  # (the next listing reads it: see _listing)
                if c is None:  # `things: []`: Reddit did not say; the comment may exist
                    raise UncertainError("Reddit answered the comment with no comment")
                return Posted(c.id)
            if out.kind == "pm":
                self.reddit.redditor(out.to).message(subject=out.subject[:100] or "forumbot", message=body)
                return Posted("pm:" + _token(out))  # compose answers with no id
        except (RedditAPIException, prawcore.PrawcoreException) as e:
            raise write_error(e) from e
        raise PermanentError(f"unknown outbox kind {out.kind}")

    def find_posted(self, out: Outgoing) -> Posted | None:
        mark = marker(out)
        me = self.reddit.redditor(self.bot_name)
        try:
            if out.kind == "thread":
                for s in me.submissions.new(limit=PAGE):
                    if mark in (s.selftext or ""):
                        sub = str(s.subreddit)
                        return Posted(f"{sub}:{s.id}", f"https://www.reddit.com/r/{sub}/comments/{s.id}/")
            elif out.kind == "comment":
                for c in me.comments.new(limit=PAGE):
                    if mark in (c.body or ""):
                        return Posted(c.id)
            elif out.kind == "pm":
                for m in self.reddit.inbox.sent(limit=PAGE):
                    if mark in (m.body or ""):
                        return Posted(m.id)
        except prawcore.PrawcoreException as e:
            raise TransientError(f"looking for {out.key}: {one_line(e)}") from e
        return None

    def own_marks(self) -> list[str] | None:
        return own_marks(self.reddit, self.bot_name, PAGE)

    def sent_id(self, message: str) -> str | None:
        """The id `post()` gave a PM of the bot's that `message` (an id) is: Reddit's compose
        answers with no id, so a reply's parent is matched by the marker in the parent's
        body (one request, made only when a reply's game is not clear otherwise)."""
        try:
            found = self.reddit.inbox.message(message.removeprefix("t4_"))
            bodies = [found.body or ""] + [r.body or "" for r in (found.replies or [])]
        except prawcore.PrawcoreException as e:
            raise TransientError(f"message {message}: {one_line(e)}") from e
        for body in bodies:
            if m := re.search(r"\(#fb-([0-9a-f]{16,64})\)", body):
                return f"pm:{m.group(1)}"
        return None

    def recheck(self, ids: Sequence[str]) -> list[Inbound]:
        """Known comments as they read now: one `info()` request per 100."""
        out = []
        for i in range(0, len(ids), PAGE):
            names = [f"t1_{x}" for x in ids[i:i + PAGE]]
            try:
                out += reddit_json.live_comments(self.reddit, names, self._unnamed)
            except prawcore.PrawcoreException as e:
                raise TransientError(f"info: {one_line(e)}") from e
        return out

    def thread_id(self, ref: str) -> str | None:
        ref = str(ref).strip()
        m = re.search(r"/comments/([a-z0-9]+)", ref) or re.fullmatch(r"(?:t3_)?([a-z0-9]{4,10})", ref)
        if not m:
            return None
        try:
            hits = list(self.reddit.info(fullnames=[f"t3_{m.group(1)}"]))
        except prawcore.PrawcoreException:
            return None
        if not hits:
            return None
        return f"{hits[0].subreddit.display_name.lower()}:{hits[0].id}"

