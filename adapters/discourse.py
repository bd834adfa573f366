"""Discourse through its REST API (requests, with tenacity for the retries of reads).

What real Discourse does, read from its source (discourse/discourse: posts_controller.rb
`latest` and `create`, topics_controller.rb `posts`, topic_view.rb, the private-message
lists in topic_query, post_validator.rb, text_sentinel.rb, the pretty-text sanitizer), and
how this adapter lives with it:

- One listing serves every game: `GET /posts.json` is the newest public posts of the whole
  site, 50 a page, highest id first; `?before=N` gives the page of ids <= N. The bookmark is
  the highest post id read; the listing is paged back until it reaches it. PMs are not in
  it (even for an admin), and an edited post keeps its place, so edits are re-checked on
  their own (`recheck`), from the listing just read where the post is still on it. An
  unlisted topic is not on it either (Post.visible): every VERIFY_EVERY fetches one game
  topic is looked at, and an unlisted one is read by itself from then on.
- A thread id is `topic:<id>`; a post's id is `<topic>/<post_number>/<post id>`, so that a
  re-check knows its topic and a reply its post number.
- The bot's PMs: `GET /topics/private-messages/{bot}.json` lists the PM topics that have
  posts from someone else, newest bump first; only those bumped since the last read, with
  more posts than were read, are read (`/t/{id}/posts.json`, 20 posts a request, `raw`
  only with `include_raw`). Each PM the bot sends is a topic of its own; a reply in it has
  the PM as its parent (`pm:<topic>`).
- Writes: `POST /posts.json` (a reply: `topic_id`; a topic: `title` and a numeric
  `category`, resolved from its name or slug through `/categories.json`; a PM:
  `archetype=private_message` and `target_recipients`, since `target_usernames` is not a
  permitted parameter and is dropped), `PUT /posts/{id}.json` for the status block.
- Every post ends in an HTML comment `<!-- fb:<token> -->`: Discourse keeps it in `raw`,
  its sanitizer strips comments from `cooked` (so no one sees it), and its length checks
  do not count it. After an uncertain failure the bot's own recent posts are searched for
  it. It also makes every text unique, so Discourse's "too similar to what you posted
  recently" can never refuse one.
- Errors: 429 is transient with `extras.wait_seconds`; a 5xx or a dropped connection after
  a write was sent is uncertain; 403, 404 and 422 are permanent, with Discourse's own
  `errors`; "The API username or key is invalid" is a failed login.

pydiscourse is not used: it sleeps inside a call and retries on 429 (up to four times,
blocking the cycle for minutes), sends with no timeout by default and no session, and
folds a 5xx on a POST and one on a GET into the same error, where the outbox must know
which writes may have landed.
"""
from __future__ import annotations

import re
import threading
import time
from collections import deque
from datetime import datetime, timezone
from typing import Callable, Sequence
from urllib.parse import urlparse

import requests
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_random_exponential

from .base import (
    Fetched,
    ForumError,
    Inbound,
    LoginFailed,
    Markup,
    Outgoing,
    PermanentError,
    Posted,
    TransientError,
    UncertainError,
)

PAGE = 50  # /posts.json answers 50 posts a page (posts_controller.rb `latest`)
MAX_PAGES = 10  # pages of the listing read back to the bookmark in one fetch
CHUNK = 20  # TopicView::CHUNK_SIZE: posts a topic read answers
IDS_PER_READ = 50  # post ids asked for in one /t/{id}/posts.json
GAP_TOPIC_READS = 25  # requests one fetch may spend reading game topics after a gap
VERIFY_EVERY = 30  # every so many fetches, one game topic is looked at: unlisted, gone, closed?
PM_PAGES = 10  # pages of the PM list (30 topics each) read at most in one fetch
PM_TOPIC_READS = 5  # requests for one PM topic in one fetch (20 posts each)
PM_KEEP = 500  # PM topics remembered in the bookmark (the most recently bumped)
FIND_PAGES = 3  # pages of the listing searched for a post after an uncertain failure
PM_CANDIDATES = 5  # sent PM topics whose first post is read when looking for a PM
INVALID_KEY = "API username or key is invalid"
SYSTEM_USERS = {"system", "discobot"}  # Discourse's own accounts (ids -1 and -2)
MARKER = re.compile(r"<!--\s*fb:[^>]*-->")
# Site settings (Admin > Settings) that let a bare command such as `**APPROVE**` or a PM
# `G1 PASS` through Discourse's own checks, and a player post a fourth reply in a row
# (README, "Hosting on Discourse"). Discourse's defaults are in brackets.
RECOMMENDED_SITE_SETTINGS = {
    "min_post_length": 8,  # [20] `**PASS**` is 8 characters
    "min_personal_message_post_length": 2,  # [10] `G1 PASS` is 7
    "body_min_entropy": 3,  # [7] unique characters: `**PASS**` has 4
    "allow_uppercase_posts": True,  # [false] `**APPROVE**` has no lowercase letter
    "max_consecutive_replies": 0,  # [3] 0 = off: a 4th reply in a row is refused, and an edit is no command
    "unique_posts_mins": 0,  # [5] 0 = off: a second **APPROVE** within 5 minutes is "too similar"
}


def marker(out: Outgoing | str) -> str:
    """The invisible mark of an outbox item: its token (keyed with the database's secret)."""
    import hashlib

    if isinstance(out, str):
        token = hashlib.sha256(out.encode()).hexdigest()[:16]
    else:
        token = out.token or hashlib.sha256(out.key.encode()).hexdigest()[:16]
    return f"<!-- fb:{token} -->"


MAX_POST = 32000  # Discourse's default max_post_length (site_settings.yml)
CUT = "\n\n(The rest of this message was cut: it was longer than the forum takes.)"


def prepare(body: str) -> str:
    """A body as the bot posts it on Discourse: no HTML comment of anyone else's (a quoted
    `<!--` would hide the rest of the post; a planted marker is taken out), and no longer
    than Discourse takes (a reply that lists a huge config's every problem would be
    refused whole, and its sender would learn nothing)."""
    body = MARKER.sub("", body).replace("<!--", "&lt;!--")
    if len(body) > MAX_POST - 100:
        body = body[:MAX_POST - 100 - len(CUT)].rstrip() + CUT
    return body


class _Retry(Exception):
    """A read that may work if tried again (a 5xx, a 429, a dropped connection)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


def _read_wait(backoff: float, max_wait: float):
    exponential = wait_random_exponential(multiplier=backoff, max=max_wait)

    def wait(state) -> float:
        error = state.outcome.exception() if state.outcome else None
        after = getattr(error, "retry_after", None)
        if after is not None:
            return min(float(after), max_wait)
        return exponential(state)
    return wait


def topic_of(thread: str | None) -> int | None:
    """The topic id of a thread id `topic:<id>` (None if it is not one)."""
    m = re.fullmatch(r"topic:(\d+)", str(thread or ""))
    return int(m.group(1)) if m else None


def post_ref(ref: str | None) -> tuple[int, int, int] | None:
    """(topic, post number, post id) of a post id `<topic>/<number>/<id>`."""
    m = re.fullmatch(r"(\d+)/(\d+)/(\d+)", str(ref or ""))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def _utc(stamp: str | None) -> datetime:
    if not stamp:
        return datetime.now(timezone.utc)
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(timezone.utc)


def _errors(payload) -> str:
    """Discourse's own words for a refusal, in one line."""
    if isinstance(payload, dict):
        errs = payload.get("errors")
        if isinstance(errs, list) and errs:
            return " ".join(str(e) for e in errs)[:500]
        if isinstance(errs, dict):
            return " ".join(f"{k} {v}" for k, v in errs.items())[:500]
        for k in ("error", "message"):
            if payload.get(k):
                return str(payload[k])[:500]
    return ""


def _norm_title(title: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", (title or "").casefold())


class DiscourseForum:
    markup = Markup.MARKDOWN

    def __init__(self, url: str, api_key: str, api_username: str, category: str | None = None,
                 name: str = "discourse", session: requests.Session | None = None,
                 read_attempts: int = 3, backoff: float = 1.0, max_wait: float = 60.0,
                 timeout: float = 30.0, requests_per_minute: int | None = 60,
                 recheck_every: float = 120.0, monotonic: Callable[[], float] = time.monotonic):
        self.base = url.rstrip("/")
        self.name = name
        self.bot_name = api_username
        self.default_category = (category or "").strip() or None
        self.timeout = timeout
        self.session = session or requests.Session()
        self.session.headers.update({"Api-Key": api_key, "Api-Username": api_username,
                                     "Accept": "application/json",
                                     "User-Agent": "forumbot (Discourse adapter)"})
        self.requests_per_minute = requests_per_minute
        # A topic's posts that are not on the listing are re-read for edits at most this
        # often (seconds): an edit only earns a notice, and each topic costs a request.
        self.recheck_every = recheck_every
        self._rechecked: dict[int, float] = {}
        self._monotonic = monotonic
        self._sent: deque[float] = deque()  # when each request went out (the last minute)
        self._blocked_until = 0.0  # after a 429: no request before this
        self._lock = threading.Lock()
        self._retrying = Retrying(retry=retry_if_exception_type(_Retry), wait=_read_wait(backoff, max_wait),
                                  stop=stop_after_attempt(read_attempts), reraise=True)
        self._categories: list[dict] | None = None
        self._first_posts: dict[int, int] = {}  # topic id -> its first post's id
        self._listing: dict[int, dict] = {}  # the posts the last fetch read from /posts.json
        self._listing_floor: int | None = None  # ... and the lowest id that read covered
        self.gaps = 0  # fetches whose listing did not reach back to the bookmark
        self.gap_reads = 0  # topic reads spent filling those gaps
        self.requests: list[tuple[str, str]] = []  # (method, path) of every request (tests, bench)

    @classmethod
    def from_settings(cls, s: dict[str, str], **kw) -> "DiscourseForum":
        missing = [k for k in ("url", "api_key", "api_username") if not s.get(k)]
        if missing:
            raise ValueError(f"fill in {', '.join(missing)}")
        url = s["url"].strip()
        if urlparse(url).scheme not in ("http", "https") or not urlparse(url).netloc:
            raise ValueError(f"url = {url}: not a web address like https://forum.example.org")
        return cls(url, s["api_key"].strip(), s["api_username"].strip(), s.get("category"), **kw)

    # --- HTTP ------------------------------------------------------------------------

    def requests_left(self) -> int | None:
        """How many requests the last minute leaves of the site's API allowance (Discourse
        counts 60 a minute for all of a site's admin API keys together), by our own count."""
        if self.requests_per_minute is None:
            return None
        now = self._monotonic()
        with self._lock:
            while self._sent and self._sent[0] <= now - 60:
                self._sent.popleft()
            if now < self._blocked_until:
                return 0
            return max(0, self.requests_per_minute - len(self._sent))

    def _request(self, method: str, path: str, params=None, data=None) -> requests.Response:
        now = self._monotonic()
        if method != "GET" and now < self._blocked_until:  # (a read waits in its retries instead)
            raise TransientError(f"{method} {path}: rate limited for {self._blocked_until - now:.0f}s more",
                                 self._blocked_until - now)
        with self._lock:
            self._sent.append(now)
        self.requests.append((method, path))
        return self.session.request(method, self.base + path, params=params, data=data,
                                    timeout=self.timeout, allow_redirects=False)

    def _payload(self, r: requests.Response):
        try:
            return r.json()
        except ValueError:
            return None

    def _refusal(self, method: str, path: str, r: requests.Response, payload) -> ForumError | None:
        """The error an answer means, or None for a success. 5xx and 429 come back as _Retry."""
        status = r.status_code
        said = _errors(payload)
        if status == 429:
            wait = None
            if isinstance(payload, dict):
                wait = (payload.get("extras") or {}).get("wait_seconds")
            if wait is None:
                try:
                    wait = float(r.headers.get("Retry-After", ""))
                except ValueError:
                    wait = 60.0
            wait = float(wait)
            self._blocked_until = max(self._blocked_until, self._monotonic() + wait)
            return _Retry(f"{method} {path}: rate limited ({said or 'too many requests'})", wait)
        if status >= 500:
            if isinstance(payload, dict) and payload.get("error_type") == "read_only":
                return _Retry(f"{method} {path}: the site is read-only: {said}", 60.0)
            return _Retry(f"{method} {path}: Discourse answered {status}{': ' + said if said else ''}")
        if status in (401, 403) and (INVALID_KEY in said or status == 401):
            return LoginFailed(f"Discourse refused the API key: {said or status} (check [discourse] "
                               "api_key and api_username)")
        if status in (400, 403, 404, 409, 410, 413, 422):
            return PermanentError(said or f"Discourse answered {status} to {method} {path}")
        if 300 <= status < 400:  # a login page, a moved site
            return _Retry(f"{method} {path}: redirected to {r.headers.get('Location', '?')}")
        if status >= 400:
            return PermanentError(said or f"Discourse answered {status} to {method} {path}")
        if payload is None:
            return _Retry(f"{method} {path}: the answer is not JSON")
        if isinstance(payload, dict) and payload.get("errors") and payload.get("success") is False:
            return PermanentError(said)
        return None

    def _get(self, path: str, params=None):
        """A read, tried again on 5xx, 429 and dropped connections (with backoff)."""
        def once():
            try:
                r = self._request("GET", path, params=params)
            except requests.RequestException as e:
                raise _Retry(f"GET {path}: {type(e).__name__}: {e}") from e
            payload = self._payload(r)
            error = self._refusal("GET", path, r, payload)
            if error is not None:
                raise error
            return payload
        try:
            return self._retrying(once)
        except _Retry as e:
            raise TransientError(str(e), e.retry_after) from e

    def _write(self, method: str, path: str, data: dict):
        """A write, sent once: what may have landed is uncertain, never tried again here."""
        try:
            r = self._request(method, path, data=data)
        except (requests.ConnectTimeout, requests.exceptions.SSLError) as e:
            raise TransientError(f"{method} {path}: {type(e).__name__}: {e}") from e
        except requests.ConnectionError as e:
            if _never_sent(e):
                raise TransientError(f"{method} {path}: cannot connect: {e}") from e
            raise UncertainError(f"{method} {path}: the connection broke: {e}") from e
        except requests.RequestException as e:
            raise UncertainError(f"{method} {path}: {type(e).__name__}: {e}") from e
        payload = self._payload(r)
        error = self._refusal(method, path, r, payload)
        if isinstance(error, _Retry):
            if r.status_code == 429 or (isinstance(payload, dict) and payload.get("error_type") == "read_only"):
                raise TransientError(str(error), error.retry_after)  # refused: nothing landed
            raise UncertainError(str(error))  # a 5xx after the write was sent: it may have landed
        if error is not None:
            raise error
        return payload

    # --- reading ---------------------------------------------------------------------

    def fetch(self, threads: Sequence[str], cursor: dict) -> Fetched:
        games = {tid: t for t in threads if (tid := topic_of(t)) is not None}
        out: list[Inbound] = []
        new_cursor: dict = {}
        failed: dict[str, str] = {}
        partial: set[str] = set()
        seen = cursor.get("post")
        try:
            posts, newest, gap = self._latest(seen)
            unverified = {int(k): v for k, v in (cursor.get("gap") or {}).items()}
            if gap:
                self.gaps += 1
                for tid in games:
                    unverified.setdefault(tid, seen)
            unverified = {k: v for k, v in unverified.items() if k in games}
            have = {p["id"] for p in posts}
            reads = GAP_TOPIC_READS
            for tid in sorted(unverified):
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
            n = int(cursor.get("n") or 0) + 1
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
            new_cursor.update(post=newest, n=n, unlisted={str(k): v for k, v in unlisted.items()},
                              gap={str(k): v for k, v in unverified.items()})
            for p in sorted(posts, key=lambda p: p["id"]):
                if p.get("topic_id") in games and self._counts(p):
                    out.append(self._inbound(p, "comment", thread=games[p["topic_id"]]))
        except LoginFailed:
            raise
        except ForumError as e:  # the listing cannot be read: every game waits; PMs go on
            for t in threads:
                failed[t] = f"the latest posts: {e}"
            self._listing, self._listing_floor = {}, None
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
            page = self._page(before)
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
            if not fresh or len(page) < PAGE:  # the oldest public post: nothing lies below
                reached = True
                break
            before = low
        self._listing = posts
        self._listing_floor = floor
        new = [p for p in posts.values() if seen is None or p["id"] > seen]
        gap = seen is not None and not reached
        return new, newest, gap

    def _page(self, before: int | None) -> list[dict]:
        """One page of /posts.json: the 50 newest public posts with ids <= `before`."""
        return (self._get("/posts.json", {"before": before} if before else None) or {}).get("latest_posts") or []

    def _topic_since(self, tid: int, since: int | None) -> tuple[list[dict], int]:
        """A game topic's posts with ids above `since` (after a gap): its post ids from the
        topic view's stream, then those posts by id, IDS_PER_READ a request."""
        view = self._get(f"/t/{tid}.json")
        stream = [i for i in (view.get("post_stream") or {}).get("stream") or [] if since is None or i > since]
        posts, cost = [], 1
        for i in range(0, len(stream), IDS_PER_READ):
            posts += self._posts_by_id(tid, stream[i:i + IDS_PER_READ])
            cost += 1
        for p in posts:
            p.setdefault("topic_id", tid)
        return posts, cost

    def _posts_by_id(self, tid: int, ids: list[int]) -> list[dict]:
        data = self._get(f"/t/{tid}/posts.json", [("post_ids[]", i) for i in ids] + [("include_raw", "true")])
        return list(((data or {}).get("post_stream") or {}).get("posts") or [])

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
        per topic, the highest post number read and whether the bot started it."""
        state = dict(state or {})
        first = not state
        at = state.get("at")
        known: dict[str, list] = {k: list(v) for k, v in (state.get("topics") or {}).items()}
        changed = []
        newest = at
        reached = first or at is None
        oldest = None
        try:
            for page in range(PM_PAGES):
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
                    oldest = bumped if oldest is None or bumped < oldest else oldest
                    read = known.get(str(t["id"]), [0, None, ""])
                    if int(t.get("highest_post_number") or 0) > int(read[0]):
                        changed.append((t, users))
                    known[str(t["id"])] = [read[0], read[1], bumped]
                per_page = int(listing.get("per_page") or 30)
                if stop or first or not listing.get("more_topics_url") or len(topics) < per_page:
                    reached = True
                    break
            out: list[Inbound] = []
            for t, users in changed:
                posts, done = self._pm_topic(t, users, known)
                out += posts
                if not done:  # more than one fetch reads of it: the bookmark stays at its bump
                    bumped = known[str(t["id"])][2]
                    newest = bumped if newest is None or bumped < newest else newest
            if not reached and oldest is not None:  # more bumped topics than the pages hold
                newest = min(newest, oldest)
        except LoginFailed:
            raise
        except ForumError as e:  # nothing of this read counts: it is all read again
            raise TransientError(f"private messages: {e}", getattr(e, "retry_after", None)) from e
        if len(known) > PM_KEEP:
            keep = sorted(known.items(), key=lambda kv: kv[1][2] or "", reverse=True)[:PM_KEEP]
            known = dict(keep)
        return out, {"at": newest, "topics": known}

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
            posts = [p for p in ((data.get("post_stream") or {}).get("posts") or [])
                     if int(p.get("post_number") or 0) > read]
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
        hidden); the rest are read by id, one request per topic and at most once every
        `recheck_every` seconds (the rest of the time they are left out: an edit is noticed
        a little later, and an edit changes no command anyway). A post its author deleted
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
        now = self._monotonic()
        for tid, wanted in sorted(ask.items()):
            if now - self._rechecked.get(tid, float("-inf")) < self.recheck_every:
                continue  # read a moment ago: its edits are noticed on a later cycle
            self._rechecked[tid] = now
            pids = [pid for _, pid in wanted]
            for i in range(0, len(pids), IDS_PER_READ):
                try:
                    posts = self._posts_by_id(tid, pids[i:i + IDS_PER_READ])
                except PermanentError:
                    continue  # the topic is gone: so are its posts
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

    def thread_id(self, ref: str) -> str | None:
        ref = str(ref).strip()
        m = (re.search(r"/t/(?:[^/\s?#]+/)?(\d+)(?:/\d+)?/?(?:[?#].*)?$", ref)
             or re.fullmatch(r"(?:topic:)?(\d+)", ref))
        if not m:
            return None
        try:
            view = self._get(f"/t/{int(m.group(1))}.json")
        except ForumError:
            return None
        if not isinstance(view, dict) or view.get("archetype") == "private_message" or view.get("id") is None:
            return None
        if view.get("closed") or view.get("archived"):
            return None
        first = ((view.get("post_stream") or {}).get("stream") or [None])[0]
        if first:
            self._first_posts[int(view["id"])] = int(first)
        return f"topic:{view['id']}"

    # --- writing ---------------------------------------------------------------------

    def post(self, out: Outgoing) -> Posted:
        body = f"{prepare(out.body)}\n\n{marker(out)}"
        if out.kind == "edit":  # the opening post: a topic's first post, or a reply in an existing topic
            pid = self._post_id_of(out.thread)
            self._write("PUT", f"/posts/{pid}.json", {"post[raw]": body})
            return Posted(out.thread)
        if out.kind == "thread":
            category = self._category_id(out.where or self.default_category)
            p = self._created(self._write("POST", "/posts.json",
                                          {"title": out.title, "raw": body, "category": category}))
            self._first_posts[int(p["topic_id"])] = int(p["id"])
            return Posted(f"topic:{p['topic_id']}", self._url(p, whole=True))
        if out.kind == "comment":
            tid = topic_of(out.thread)
            if tid is None:
                raise PermanentError(f"{out.thread!r} is not a Discourse topic")
            data = {"topic_id": tid, "raw": _mention(body)}
            replied = post_ref(out.reply_to)
            if replied and replied[0] == tid:
                data["reply_to_post_number"] = replied[1]
            p = self._created(self._write("POST", "/posts.json", data))
            return Posted(f"{p['topic_id']}/{p['post_number']}/{p['id']}", self._url(p))
        if out.kind == "pm":
            title = (out.subject or "").strip() or "A message from the game bot"
            p = self._created(self._write("POST", "/posts.json", {
                "title": title[:255], "raw": body, "archetype": "private_message",
                "target_recipients": out.to}))
            return Posted(f"pm:{p['topic_id']}", self._url(p, whole=True))
        raise PermanentError(f"unknown outbox kind {out.kind}")

    def _created(self, payload) -> dict:
        """The post a create answered with (Discourse answers the post itself)."""
        if isinstance(payload, dict) and payload.get("action") == "enqueued":
            raise PermanentError("Discourse queued the post for a moderator's approval: make the bot "
                                 "a moderator or admin so that its posts go out at once")
        if isinstance(payload, dict) and isinstance(payload.get("post"), dict):
            payload = payload["post"]
        if not isinstance(payload, dict) or "id" not in payload or "topic_id" not in payload:
            raise UncertainError("Discourse answered the post with no post")
        return payload

    def _url(self, p: dict, whole: bool = False) -> str:
        slug = p.get("topic_slug") or "topic"
        url = f"{self.base}/t/{slug}/{p['topic_id']}"
        return url if whole else f"{url}/{p.get('post_number', 1)}"

    def _post_id_of(self, ref: str) -> int:
        parsed = post_ref(ref)
        if parsed:
            return parsed[2]
        tid = topic_of(ref)
        if tid is None:
            raise PermanentError(f"{ref!r} is not a Discourse post or topic")
        if tid not in self._first_posts:  # a new process: the topic's first post, by number
            p = self._get(f"/posts/by_number/{tid}/1.json")
            self._first_posts[tid] = int(p["id"])
        return self._first_posts[tid]

    def categories(self) -> list[dict]:
        """Every category the bot can see, subcategories included (one request, then cached)."""
        if self._categories is None:
            data = self._get("/categories.json", {"include_subcategories": "true"}) or {}
            found: list[dict] = []

            def walk(items, parent=None):
                for c in items or []:
                    found.append(dict(c, parent_slug=parent))
                    walk(c.get("subcategory_list"), c.get("slug"))
            walk((data.get("category_list") or {}).get("categories"))
            self._categories = found
        return self._categories

    def category(self, ref: str | None) -> dict | None:
        """The category a name, slug, `parent/child` slug or numeric id names (None if none)."""
        ref = str(ref or "").strip().strip("/")
        if not ref:
            return None
        cats = self.categories()
        if ref.isdigit():
            return next((c for c in cats if int(c.get("id", -1)) == int(ref)), None)
        folded = ref.casefold()
        for c in cats:
            full = f"{c['parent_slug']}/{c.get('slug')}" if c.get("parent_slug") else str(c.get("slug"))
            if folded in (str(c.get("name", "")).casefold(), str(c.get("slug", "")).casefold(), full.casefold()):
                return c
        return None

    def _category_id(self, ref: str | None) -> int:
        if not ref:
            raise PermanentError("no category for the new topic: set [discourse] category, or "
                                 "`category:` in the config")
        try:
            c = self.category(ref)
        except PermanentError as e:
            raise PermanentError(f"the categories cannot be read: {e}") from e
        if c is None:
            names = ", ".join(str(x.get("name")) for x in self.categories()[:20])
            raise PermanentError(f"there is no category {ref!r} on the forum (there are: {names})")
        return int(c["id"])

    def find_posted(self, out: Outgoing) -> Posted | None:
        mark = marker(out)
        mine = self.bot_name.casefold()
        try:
            if out.kind in ("thread", "comment"):
                before = None
                for _ in range(FIND_PAGES):
                    page = self._page(before)
                    for p in page:
                        if str(p.get("username") or "").casefold() == mine and mark in (p.get("raw") or ""):
                            if out.kind == "thread" and p.get("post_number") == 1:
                                self._first_posts[int(p["topic_id"])] = int(p["id"])
                                return Posted(f"topic:{p['topic_id']}", self._url(p, whole=True))
                            if out.kind == "comment":
                                return Posted(f"{p['topic_id']}/{p['post_number']}/{p['id']}", self._url(p))
                    if len(page) < PAGE:
                        break
                    before = min(p["id"] for p in page)
                tid = topic_of(out.thread)
                if out.kind == "comment" and tid is not None:  # its own topic's newest posts
                    view = self._get(f"/t/{tid}.json")
                    tail = ((view.get("post_stream") or {}).get("stream") or [])[-IDS_PER_READ:]
                    for p in self._posts_by_id(tid, tail) if tail else []:
                        if str(p.get("username") or "").casefold() == mine and mark in (p.get("raw") or ""):
                            return Posted(f"{tid}/{p['post_number']}/{p['id']}", self._url(dict(p, topic_id=tid)))
                return None
            if out.kind == "pm":
                page = (self._get("/private-posts.json") or {}).get("private_posts") or []
                for p in page:
                    if str(p.get("username") or "").casefold() == mine and mark in (p.get("raw") or ""):
                        return Posted(f"pm:{p['topic_id']}", self._url(p, whole=True))
                sent = self._get(f"/topics/private-messages-sent/{self.bot_name}.json") or {}
                want = _norm_title(out.subject)
                tried = 0
                for t in (sent.get("topic_list") or {}).get("topics") or []:
                    if want and _norm_title(t.get("title") or "") != want:
                        continue
                    tried += 1
                    if tried > PM_CANDIDATES:
                        break
                    data = self._get(f"/t/{t['id']}/posts.json", [("include_raw", "true")]) or {}
                    for p in (data.get("post_stream") or {}).get("posts") or []:
                        if p.get("post_number") == 1 and mark in (p.get("raw") or ""):
                            return Posted(f"pm:{t['id']}", f"{self.base}/t/{t.get('slug') or 'topic'}/{t['id']}")
                return None
        except LoginFailed:
            raise
        except ForumError as e:
            raise TransientError(f"looking for {out.key}: {e}") from e
        return None

    def sent_id(self, message: str) -> str | None:
        """The id `post()` gave the PM that `message` answers: its topic's."""
        parsed = post_ref(message)
        return f"pm:{parsed[0]}" if parsed else None


def _mention(body: str) -> str:
    """A reply that starts `u/name:` (the engine's way to address someone) starts with a
    Discourse mention instead, which tells them."""
    return re.sub(r"^u/([^\s:]+):", r"@\1:", body, count=1)


def _never_sent(e: requests.ConnectionError) -> bool:
    """Did the connection fail before the request went out (refused, no route, DNS)?"""
    import urllib3

    reason = e.args[0] if e.args else None
    reason = getattr(reason, "reason", reason)
    return isinstance(reason, (urllib3.exceptions.NewConnectionError, urllib3.exceptions.NameResolutionError))


# --- `forumbot doctor` ------------------------------------------------------------------

OK, FAIL, WARN, SKIP = "ok", "fail", "warn", "skip"
GUIDE = 'README, "Hosting on Discourse"'
WHY = {
    "min_post_length": "a bare `**PASS**` or `**APPROVE**` in the game topic is refused as too short",
    "min_personal_message_post_length": "a PM such as `G1 PASS` is refused as too short",
    "body_min_entropy": "a short command such as `**PASS**` is refused as unclear",
    "allow_uppercase_posts": "a post with no lowercase letter, such as `**APPROVE**`, is refused",
    "max_consecutive_replies": "a player's 4th post in a row is refused (and an edit is not a command)",
    "unique_posts_mins": "a player's second `**APPROVE**` within minutes is refused as too similar",
}


def discourse_checks(forum: DiscourseForum, categories: list[str], username: str | None = None):
    """`forumbot doctor` on Discourse: the key logs in as the bot, the bot is staff (or may
    at least send PMs), each category exists and takes new topics from it, and the site
    settings let players' short commands through. Yields (status, name, detail); nothing
    is posted."""
    try:
        me = (forum._get("/session/current.json") or {}).get("current_user") or {}
    except LoginFailed as e:
        yield FAIL, "login", str(e)
        for c in categories:
            yield SKIP, f"category {c}", "not checked: the login failed"
        yield SKIP, "private messages", "not checked: the login failed"
        return
    except ForumError as e:
        yield FAIL, "login", f"cannot use {forum.base}: {e}"
        return
    name = str(me.get("username") or "")
    if not name:
        yield FAIL, "login", (f"{forum.base} did not say who the key belongs to: check [discourse] "
                              "url (the forum's own address) and api_key")
        return
    if username and name.casefold() != username.casefold():
        yield FAIL, "login", (f"the key acts as @{name}, but [discourse] api_username is {username}: "
                              "the bot would take its own posts for players'")
    else:
        yield OK, "login", f"the API key acts as @{name}"
    staff = bool(me.get("admin") or me.get("moderator"))
    if staff:
        yield OK, "staff", (f"@{name} is {'an admin' if me.get('admin') else 'a moderator'}: Discourse's "
                            "limits for ordinary users (5 s between posts, 20 PMs a day, no text twice "
                            "in 5 minutes) do not apply to it")
    else:
        yield FAIL, "staff", (f"@{name} is not staff: Discourse would make it wait 5 s between posts "
                              "and refuse its 21st PM of the day; make it a moderator (Admin > Users > "
                              f"{name} > Grant Moderation) ({GUIDE})")
    tl = int(me.get("trust_level") or 0)
    if staff or me.get("can_send_private_messages") or tl >= 1:
        yield OK, "private messages", f"@{name} may send private messages"
    else:
        yield FAIL, "private messages", (f"@{name} is at trust level {tl} and may not send private "
                                         "messages: it could not deal roles; raise it to trust level 1 "
                                         f"or make it a moderator ({GUIDE})")
    if not categories:
        yield WARN, "category", ("none configured: set [discourse] category (where new game topics "
                                 "go), or every config must name `category:`")
    for ref in categories:
        label = f"category {ref}"
        try:
            c = forum.category(ref)
        except ForumError as e:
            yield FAIL, label, f"the categories cannot be read: {e}"
            continue
        if c is None:
            names = ", ".join(f"{x.get('name')} ({x.get('slug')})" for x in forum.categories()[:12])
            yield FAIL, label, f"there is no category {ref!r} that @{name} can see; there are: {names}"
        elif int(c.get("permission") or 0) != 1 and not staff:
            yield FAIL, label, f"@{name} may not start topics in {c.get('name')} (its permission is not \"Create\")"
        else:
            yield OK, label, f"{c.get('name')} (id {c.get('id')}) takes new topics from @{name}"
    if not me.get("admin"):
        yield SKIP, "site settings", (f"only an admin's key can read them; check by hand the settings "
                                      f"in {GUIDE}")
        return
    try:
        rows = (forum._get("/admin/site_settings.json") or {}).get("site_settings") or []
    except ForumError as e:
        yield WARN, "site settings", f"could not be read: {e}"
        return
    have = {r.get("setting"): r.get("value") for r in rows}
    off = []
    for key, want in RECOMMENDED_SITE_SETTINGS.items():
        if key not in have:
            continue
        value = str(have[key]).lower()
        if isinstance(want, bool):
            bad = value != str(want).lower()
        elif key in ("max_consecutive_replies", "unique_posts_mins"):
            bad = value not in ("0", str(want))
        else:
            bad = value.isdigit() and int(value) > want
        if bad:
            off.append(f"{key} is {have[key]} ({WHY[key]}; set {str(want).lower()})")
    title = have.get("min_topic_title_length")
    if title and str(title).isdigit() and int(title) > 15:
        off.append(f"min_topic_title_length is {title}: game titles, with their tag, need that many characters")
    if off:
        yield WARN, "site settings", "; ".join(off) + f" ({GUIDE})"
    else:
        yield OK, "site settings", "players' short commands pass Discourse's checks"
