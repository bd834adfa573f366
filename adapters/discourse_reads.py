"""Discourse reads: the site-wide listing of new posts, gap reads by post id, the bot's PM
topics, and the re-check of posts for edits.

- One listing serves every game: `GET /posts.json` is the newest public posts of the whole
  site, 50 a page, highest id first; `?before=N` gives the page of ids <= N. The bookmark is
  the highest post id read; the listing is paged back until it reaches it (MAX_PAGES at
  most; beyond, the game topics are read by id: a gap). PMs are not in it (even for an
  admin), and an edited post keeps its place, so edits are re-checked on their own
  (`recheck`), from the listing just read where the post is still on it. An unlisted topic
  is not on it either (Post.visible): every VERIFY_EVERY fetches one game topic is looked
  at, and an unlisted one is read by itself from then on.
- The bot's PMs: `GET /topics/private-messages/{bot}.json` lists the PM topics that have
  posts from someone else, newest bump first; only those bumped since the last read, with
  more posts than were read, are read (`/t/{id}/posts.json`, 20 posts a request, `raw`
  only with `include_raw`). A reply in a PM topic the bot started has it as its parent
  (`pm:<topic>`).
"""
from __future__ import annotations

from typing import Sequence

from .base import Fetched, ForumError, Inbound, LoginFailed, PermanentError, TransientError
from .discourse_http import DiscourseHTTP, _utc, post_ref, topic_of
from .unnamed import Unnamed, whole

PAGE = 50  # /posts.json answers 50 posts a page (posts_controller.rb `latest`)
MAX_PAGES = 10  # pages of the listing read back to the bookmark in one fetch
CHUNK = 20  # TopicView::CHUNK_SIZE: posts a topic read answers
IDS_PER_READ = 50  # post ids asked for in one /t/{id}/posts.json
GAP_TOPIC_READS = 25  # requests one fetch may spend reading game topics after a gap
VERIFY_EVERY = 30  # every so many fetches, one game topic is looked at: unlisted, gone, closed?
PM_PAGES = 10  # pages of the PM list (30 topics each) read at most in one fetch
PM_TOPIC_READS = 5  # requests for one PM topic in one fetch (20 posts each)
PM_KEEP = 500  # PM topics remembered in the bookmark (the most recently bumped)
RECHECK_TOPICS = 1  # game topics whose posts off the listing one recheck reads (for edits)
SYSTEM_USERS = {"system", "discobot"}  # Discourse's own accounts (ids -1 and -2)


class DiscourseReads(DiscourseHTTP):
    """What the bot reads on Discourse (the Forum protocol's fetch, recheck, mark_read)."""

    def __init__(self, *args, recheck_every: float, **kw):  # (its default: DiscourseForum's)
        super().__init__(*args, **kw)
        # A topic's posts that are not on the listing are re-read for edits at most this
        # often (seconds): an edit only earns a notice, and each topic costs a request.
        self.recheck_every = recheck_every
        self._rechecked: dict[int, float] = {}
        self._first_posts: dict[int, int] = {}  # topic id -> its first post's id
        self._listing: dict[int, dict] = {}  # the posts the last fetch read from /posts.json
        self._listing_floor: int | None = None  # ... and the lowest id that read covered
        self._busy = False  # whether the last listing had new posts (re-checks ride on those)
        self.gaps = 0  # fetches whose listing did not reach back to the bookmark
        self.gap_reads = 0  # topic reads spent filling those gaps
        self._fetches = 0  # the fetches so far, by the bookmark's count (it outlives a process)
        self._turns = 0  # the busy fetches so far (the re-checks' turn), kept the same way
        self._unnamed = Unnamed("Discourse")  # posts without a usable id or post_number: left out

    def fetch(self, threads: Sequence[str], cursor: dict) -> Fetched:
        games = {tid: t for t in threads if (tid := topic_of(t)) is not None}
        out: list[Inbound] = []
        new_cursor: dict = {}
        failed: dict[str, str] = {}
        partial: set[str] = set()
        seen = cursor.get("post")
        try:
            posts, newest, gap = self._latest(seen)
            # Someone else posted since the last fetch: this cycle's recheck may read edits.
            self._busy = any(str(p.get("username") or "").casefold() != self.bot_name.casefold()
                             for p in posts)
            unverified = {int(k): v for k, v in (cursor.get("gap") or {}).items()}
            if gap:
                self.gaps += 1
                for tid in games:
                    unverified.setdefault(tid, seen)
            unverified = {k: v for k, v in unverified.items() if k in games}
            have = {p["id"] for p in posts}
            reads = GAP_TOPIC_READS
            # The topics furthest behind first: a topic read in one gap and caught by the
            # next (its bookmark newer) waits behind those the first has not reached yet.
            for tid in sorted(unverified, key=lambda k: (unverified[k] or 0, k)):
                if reads <= 0:
                    break
                try:
                    more, cost = self._topic_since(tid, unverified[tid])
                except PermanentError as e:  # the topic is gone or closed to the bot
                    failed[games[tid]] = f"topic {tid}: {e}"
                    reads -= 1
                    continue
                reads -= cost
                self.gap_reads += cost
                posts.extend(p for p in more if p["id"] not in have)
                have.update(p["id"] for p in more)
                del unverified[tid]
            partial = {games[tid] for tid in unverified if games[tid] not in failed}
            n = self._fetches = int(cursor.get("n") or 0) + 1
            unlisted = {int(k): v for k, v in (cursor.get("unlisted") or {}).items() if int(k) in games}
            if games and n % VERIFY_EVERY == 0:
                self._verify(sorted(games)[(n // VERIFY_EVERY) % len(games)], unlisted, games, failed)
            for tid in sorted(unlisted):  # its posts are not on the listing: read by id
                try:
                    more, _ = self._topic_since(tid, unlisted[tid])
                except PermanentError as e:
                    failed[games[tid]] = f"topic {tid}: {e}"
                    continue
                posts.extend(p for p in more if p["id"] not in have)
                have.update(p["id"] for p in more)
                unlisted[tid] = max([p["id"] for p in more] + [unlisted[tid] or 0])
            self._turns = int(cursor.get("turns") or 0) + self._busy
            new_cursor.update(post=newest, n=n, turns=self._turns, unlisted={str(k): v for k, v in unlisted.items()},
                              gap={str(k): v for k, v in unverified.items()})
            for p in sorted(posts, key=lambda p: p["id"]):
                if p.get("topic_id") in games and self._counts(p):
                    out.append(self._inbound(p, "comment", thread=games[p["topic_id"]]))
        except LoginFailed:
            raise
        except ForumError as e:  # the listing cannot be read: every game waits; PMs go on
            for t in threads:
                failed[t] = f"the latest posts: {e}"
            self._listing, self._listing_floor, self._busy = {}, None, False
        pms, pm_cursor = self._private_messages(cursor.get("pm"))
        out.extend(pms)
        new_cursor["pm"] = pm_cursor
        return Fetched(out, new_cursor, failed, partial)

    def _verify(self, tid: int, unlisted: dict, games: dict, failed: dict) -> None:
        """Look at one game topic: /posts.json leaves out an unlisted topic's posts (Post.visible
        is `topics.visible = true`), so such a topic is read by id from now on, from its start
        (what the store has already seen it ignores)."""
        try:
            view = self._get(f"/t/{tid}.json")
        except PermanentError as e:
            failed[games[tid]] = f"topic {tid}: {e}"
            return
        if view.get("visible") is False:
            unlisted.setdefault(tid, None)
        else:
            unlisted.pop(tid, None)

    def _counts(self, p: dict) -> bool:
        """A post that a command can come from: a person's, live, a regular post."""
        return (str(p.get("username") or "").casefold() != self.bot_name.casefold()
                and p.get("post_type", 1) == 1 and not p.get("deleted_at") and not p.get("user_deleted"))

    def _latest(self, seen: int | None):
        """The public posts newer than post id `seen`, paged back with `before` (ids <= it;
        the page's lowest id is asked again and skipped, so the page size does not matter).
        Returns (posts, the new bookmark, whether the pages ran out before `seen`)."""
        posts: dict[int, dict] = {}
        before = None
        newest = seen or 0
        reached = seen is None  # the first read: from now on
        floor = None
        for _ in range(MAX_PAGES if seen is not None else 1):
            page, full = self._page(before)
            fresh = [p for p in page if p.get("id") not in posts]
            for p in page:
                posts.setdefault(p["id"], p)
            if not page:
                reached = True
                break
            low = min(p["id"] for p in page)
            floor = low if floor is None else min(floor, low)
            newest = max(newest, max(p["id"] for p in page))
            if seen is not None and low <= seen:
                reached = True
                break
            if not fresh or not full:  # the oldest public post: nothing lies below
                reached = True
                break
            before = low
        self._listing = posts
        self._listing_floor = floor
        new = [p for p in posts.values() if seen is None or p["id"] > seen]
        gap = seen is not None and not reached
        return new, newest, gap

    def _page(self, before: int | None) -> tuple[list[dict], bool]:
        """One page of /posts.json: the 50 newest public posts with ids <= `before` (but those
        the adapter cannot name), and whether the page was full (more may lie below)."""
        answer = self._get("/posts.json", {"before": before} if before else None)
        page = (answer.get("latest_posts") if isinstance(answer, dict) else None) or []
        listed = len(page) if isinstance(page, list) else 0
        return self._unnamed.keep(page, ("id", "post_number", "topic_id"), "the latest posts"), listed >= PAGE

    def _topic_since(self, tid: int, since: int | None) -> tuple[list[dict], int]:
        """A game topic's posts with ids above `since` (after a gap): its post ids from the
        topic view's stream, then those posts by id, IDS_PER_READ a request."""
        view = self._get(f"/t/{tid}.json")
        stream = [n for i in (view.get("post_stream") or {}).get("stream") or []
                  if (n := whole(i)) is not None and (since is None or n > since)]
        posts, cost = [], 1
        for i in range(0, len(stream), IDS_PER_READ):
            posts += self._posts_by_id(tid, stream[i:i + IDS_PER_READ])
            cost += 1
        for p in posts:
            p.setdefault("topic_id", tid)
        return posts, cost

    def _posts_by_id(self, tid: int, ids: list[int]) -> list[dict]:
        data = self._get(f"/t/{tid}/posts.json", [("post_ids[]", i) for i in ids] + [("include_raw", "true")])
        return self._unnamed.keep(((data or {}).get("post_stream") or {}).get("posts"), ("id", "post_number"),
                                  f"topic {tid}")

    def _inbound(self, p: dict, kind: str, thread: str | None = None, subject: str = "",
                 parent: str | None = None, origin: str = "") -> Inbound:
        tid = p.get("topic_id")
        return Inbound(id=f"{tid}/{p['post_number']}/{p['id']}", kind=kind, author=p.get("username") or "",
                       body=p.get("raw") or "", created=_utc(p.get("created_at")), thread=thread,
                       subject=subject, parent=parent, origin=origin,
                       edited=int(p.get("version") or 1) > 1
                       or (p.get("updated_at") or "") != (p.get("created_at") or ""))

    # --- private messages ---------------------------------------------------------------

    def _private_messages(self, state: dict | None) -> tuple[list[Inbound], dict]:
        """New posts in the PM topics of the bot. The bookmark is the newest bump read and,
        per topic, the highest post number read and whether the bot started it. More topics
        bumped since the last read than PM_PAGES pages hold: the bookmark stays, and the next
        fetches read on down the list (a page back, for topics that moved up) from where the
        last stopped (`sweep`), with the first page for what is new; once the list is read
        down to the bookmark, it moves to the newest bump the sweep began at (what was
        bumped since, beyond the first page, is read by the fetch after)."""
        state = dict(state or {})
        first = not state
        at = state.get("at")
        known: dict[str, list] = {k: list(v) for k, v in (state.get("topics") or {}).items()}
        sweep = state.get("sweep")
        changed = []
        newest = at
        reached = first  # (a bookmark of None: the list was empty, and all of it is new)
        pages = list(range(PM_PAGES))
        if sweep and not reached:
            start = max(1, int(sweep["page"]) - 1)
            pages = [0, *range(start, start + PM_PAGES - 1)]
        try:
            for page in pages:
                data = self._get(f"/topics/private-messages/{self.bot_name}.json",
                                 {"page": page} if page else None) or {}
                users = {u.get("id"): u.get("username") for u in data.get("users") or []}
                listing = data.get("topic_list") or {}
                topics = listing.get("topics") or []
                stop = False
                for t in topics:
                    bumped = t.get("bumped_at") or t.get("last_posted_at") or ""
                    if at is not None and bumped < at:
                        stop = reached = True
                        break
                    newest = bumped if newest is None or bumped > newest else newest
                    read = known.get(str(t["id"]), [0, None, ""])
                    if int(t.get("highest_post_number") or 0) > int(read[0]):
                        changed.append((t, users))
                    known[str(t["id"])] = [read[0], read[1], bumped]
                per_page = int(listing.get("per_page") or 30)
                if stop or first or not listing.get("more_topics_url") or len(topics) < per_page:
                    reached = True
                    break
            top = newest
            out: list[Inbound] = []
            for t, users in changed:
                posts, done = self._pm_topic(t, users, known)
                out += posts
                if not done:  # more than one fetch reads of it: the bookmark stays at its bump
                    bumped = known[str(t["id"])][2]
                    newest = bumped if newest is None or bumped < newest else newest
            if not reached:  # more bumped topics than the pages hold: on from the next page
                sweep = {"page": pages[-1] + 1, "top": sweep["top"] if sweep else top}
                newest = at
            elif sweep:  # read down to the bookmark: from the bump the sweep began at
                newest = min(newest, sweep["top"])
                sweep = None
        except LoginFailed:
            raise
        except ForumError as e:  # nothing of this read counts: it is all read again
            raise TransientError(f"private messages: {e}", getattr(e, "retry_after", None)) from e
        if len(known) > PM_KEEP:
            keep = sorted(known.items(), key=lambda kv: kv[1][2] or "", reverse=True)[:PM_KEEP]
            known = dict(keep)
        return out, {"at": newest, "topics": known, **({"sweep": sweep} if sweep else {})}

    def _pm_topic(self, t: dict, users: dict, known: dict) -> tuple[list[Inbound], bool]:
        tid = int(t["id"])
        read, op_is_bot, bumped = known.get(str(tid), [0, None, ""])
        if op_is_bot is None:
            for poster in t.get("posters") or []:
                if "original poster" in str(poster.get("description") or "").casefold():
                    op_is_bot = str(users.get(poster.get("user_id")) or "").casefold() == self.bot_name.casefold()
                    break
        highest = int(t.get("highest_post_number") or 0)
        out = []
        for _ in range(PM_TOPIC_READS):
            params = [("include_raw", "true")]
            if read:
                params += [("post_number", read), ("asc", "true")]
            data = self._get(f"/t/{tid}/posts.json", params) or {}
            posts = [p for p in self._unnamed.keep((data.get("post_stream") or {}).get("posts"),
                                                   ("id", "post_number"), f"PM topic {tid}")
                     if p["post_number"] > read]
            if not posts:  # nothing visible beyond (deleted, whispered): read to the end
                read = max(read, highest)
                break
            for p in sorted(posts, key=lambda p: p["post_number"]):
                p.setdefault("topic_id", tid)
                if p["post_number"] == 1:
                    op_is_bot = str(p.get("username") or "").casefold() == self.bot_name.casefold()
                read = max(read, int(p["post_number"]))
                if not self._counts(p):
                    continue
                user = str(p.get("username") or "")
                origin = "admin" if (int(p.get("user_id") or 0) <= 0 or user.casefold() in SYSTEM_USERS) else ""
                parent = f"pm:{tid}" if op_is_bot and p["post_number"] > 1 else None
                out.append(self._inbound(p, "pm", subject=t.get("title") or "", parent=parent, origin=origin))
            if read >= highest:
                break
        known[str(tid)] = [read, op_is_bot, bumped]
        return out, read >= highest

    def mark_read(self, ids: Sequence[str]) -> None:
        """Nothing to do: the PM bookmark is kept in the store, with the messages it read."""

    # --- edits ---------------------------------------------------------------------------

    def recheck(self, ids: Sequence[str]) -> list[Inbound]:
        """These posts as they read now. A post on the listing the fetch just read is taken
        from it; one in the range that listing covered but not on it is gone (deleted,
        hidden); the rest are read by id, one request per topic, at most once every
        `recheck_every` seconds a topic and RECHECK_TOPICS topics a call, the one read
        longest ago first (the rest of the time they are left out: an edit is noticed a
        little later, and an edit changes no command anyway). Those reads ride only on a
        fetch whose listing had something new: a quiet cycle costs its 2 requests, whatever
        the number of games, and the site's 60 requests a minute are not spent on edits. A post its author deleted
        (raw "(post deleted by author)", `user_deleted`) or staff deleted is left out."""
        out: list[Inbound] = []
        ask: dict[int, list[tuple[int, int]]] = {}
        for ref in ids:
            parsed = post_ref(ref)
            if parsed is None:
                continue
            tid, number, pid = parsed
            p = self._listing.get(pid)
            if p is not None:
                if self._alive(p):
                    out.append(self._inbound(p, "comment", thread=f"topic:{p.get('topic_id', tid)}"))
                continue
            if self._listing_floor is not None and pid >= self._listing_floor:
                continue  # the listing covered it and it is not there: not visible any more
            ask.setdefault(tid, []).append((number, pid))
        if not self._busy:
            return out  # a quiet cycle reads nothing more; the next busy one looks
        now = self._monotonic()
        last = lambda tid: self._rechecked.get(tid, float("-inf"))  # noqa: E731
        order = sorted(ask)  # turned by the busy fetches: a new process (`run --once`) starts elsewhere
        turn = self._turns % len(order) if order else 0
        due = [tid for tid in sorted(order[turn:] + order[:turn], key=last)
               if now - last(tid) >= self.recheck_every]  # (one read a moment ago waits)
        for tid in due[:RECHECK_TOPICS]:
            wanted = ask[tid]
            self._rechecked[tid] = now
            pids = [pid for _, pid in wanted]
            for i in range(0, len(pids), IDS_PER_READ):
                try:
                    posts = self._posts_by_id(tid, pids[i:i + IDS_PER_READ])
                except PermanentError:
                    break  # the topic is gone (Discourse says so before it looks at ids): so are its posts
                except LoginFailed:
                    raise
                except ForumError as e:
                    raise TransientError(f"re-reading posts of topic {tid}: {e}") from e
                for p in posts:
                    p.setdefault("topic_id", tid)
                    if p.get("id") in pids and self._alive(p):
                        out.append(self._inbound(p, "comment", thread=f"topic:{tid}"))
        return out

    @staticmethod
    def _alive(p: dict) -> bool:
        return not p.get("deleted_at") and not p.get("user_deleted") and not p.get("hidden")
