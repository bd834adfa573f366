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
- Errors, retries and the request allowance: adapters/discourse_http.py. Reads (the
  listing, gap reads, PM topics, edits): adapters/discourse_reads.py. `forumbot doctor`
  and the site settings: adapters/discourse_checks.py.
"""
from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Callable

import requests

from .base import ForumError, Markup, Outgoing, PermanentError, Posted, Traits, UncertainError
from .discourse_http import post_ref, topic_of
from .discourse_reads import IDS_PER_READ, MAX_PAGES, PAGE, DiscourseReads
from .http_forum import cut, mention, norm_title, token, web_address

FIND_PAGES = 3  # pages of the listing searched for a post after an uncertain failure
PM_CANDIDATES = 5  # sent PM topics whose first post is read when looking for a PM
MARKER = re.compile(r"<!--\s*fb:[^>]*-->")
MARK_TOKEN = re.compile(r"<!-- fb:([0-9a-f]{16,64}) -->")


def marker(out: Outgoing | str) -> str:
    """The invisible mark of an outbox item: its token (keyed with the database's secret)."""
    return f"<!-- fb:{token(out)} -->"


MAX_POST = 32000  # Discourse's default max_post_length (site_settings.yml)


def prepare(body: str, limit: int = MAX_POST) -> str:
    """A body as the bot posts it on Discourse: no HTML comment of anyone else's (a quoted
    `<!--` would hide the rest of the post; a planted marker is taken out), and no longer
    than Discourse takes (a reply that lists a huge config's every problem would be
    refused whole, and its sender would learn nothing)."""
    return cut(MARKER.sub("", body).replace("<!--", "&lt;!--"), limit, 100)


class DiscourseForum(DiscourseReads):
    markup = Markup.MARKDOWN
    # 60 requests a minute for all of a site's keys; the listing is read back 10 pages of 50;
    # a reply names a player with an @mention (which notifies them); new topics go in a category.
    traits = Traits(requests_per_minute=60, recheck_batch=100, mark_read_batch=100,
                    listing_window=PAGE * MAX_PAGES, place_key="category", mention_prefix="@",
                    max_body=MAX_POST, max_title=255, max_subject=255)  # max_post_length: `[discourse]`

    def __init__(self, url: str, api_key: str, api_username: str, category: str | None = None,
                 name: str = "discourse", session: requests.Session | None = None,
                 read_attempts: int = 3, backoff: float = 1.0, max_wait: float = 60.0,
                 timeout: float = 30.0, requests_per_minute: int | None = 60,
                 recheck_every: float = 120.0, monotonic: Callable[[], float] = time.monotonic):
        super().__init__(url, api_key, api_username, session=session, read_attempts=read_attempts,
                         backoff=backoff, max_wait=max_wait, timeout=timeout,
                         requests_per_minute=requests_per_minute, monotonic=monotonic,
                         recheck_every=recheck_every)
        self.name = name
        self.default_category = (category or "").strip() or None
        self._categories: list[dict] | None = None

    @classmethod
    def from_settings(cls, s: dict[str, str], **kw) -> "DiscourseForum":
        url = web_address(s, ("url", "api_key", "api_username"))
        forum = cls(url, s["api_key"].strip(), s["api_username"].strip(), s.get("category"), **kw)
        limit = (s.get("max_post_length") or "").strip()  # the site's setting, where it is not 32,000
        if limit:
            if not limit.isdigit() or not 1000 <= int(limit) <= 1_000_000:
                raise ValueError(f"max_post_length = {limit[:20]}: a number of characters, 1000 to 1000000")
            forum.traits = replace(forum.traits, max_body=int(limit))
        return forum

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
        body = f"{prepare(out.body, self.traits.max_body)}\n\n{marker(out)}"
        if out.kind == "edit":  # the opening post: a topic's first post, or a reply in an existing topic
            if not out.thread:
                raise PermanentError("an edit with no post to edit")
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
            data = {"topic_id": tid, "raw": mention(body)}
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

    def _find(self, out: Outgoing) -> Posted | None:
        mark = marker(out)
        mine = self.bot_name.casefold()
        if out.kind in ("thread", "comment"):
            before = None
            for _ in range(FIND_PAGES):
                page, full = self._page(before)
                for p in page:
                    if str(p.get("username") or "").casefold() == mine and mark in (p.get("raw") or ""):
                        if out.kind == "thread" and p.get("post_number") == 1:
                            self._first_posts[int(p["topic_id"])] = int(p["id"])
                            return Posted(f"topic:{p['topic_id']}", self._url(p, whole=True))
                        if out.kind == "comment":
                            return Posted(f"{p['topic_id']}/{p['post_number']}/{p['id']}", self._url(p))
                if not full or not page:
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
            want = norm_title(out.subject)
            tried = 0
            for t in (sent.get("topic_list") or {}).get("topics") or []:
                if want and norm_title(t.get("title") or "") != want:
                    continue
                tried += 1
                if tried > PM_CANDIDATES:
                    break
                data = self._get(f"/t/{t['id']}/posts.json", [("include_raw", "true")]) or {}
                for p in (data.get("post_stream") or {}).get("posts") or []:
                    if p.get("post_number") == 1 and mark in (p.get("raw") or ""):
                        return Posted(f"pm:{t['id']}", f"{self.base}/t/{t.get('slug') or 'topic'}/{t['id']}")
            return None
        return None

    def own_marks(self) -> list[str] | None:
        """The marker tokens in the bot's posts among the newest public and private posts
        (two requests); a listing that cannot be read is left out, unless both cannot."""
        mine = self.bot_name.casefold()

        def texts(posts) -> list[str]:
            return [p.get("raw") or "" for p in posts or [] if str(p.get("username") or "").casefold() == mine]
        return self._marks_in((lambda: texts(self._page(None)[0]),
                               lambda: texts((self._get("/private-posts.json") or {}).get("private_posts"))),
                              MARK_TOKEN)

    def sent_id(self, message: str) -> str | None:
        """The id `post()` gave the PM that `message` answers: its topic's."""
        parsed = post_ref(message)
        return f"pm:{parsed[0]}" if parsed else None

