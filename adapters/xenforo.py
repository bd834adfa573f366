"""XenForo 2.1+ through its REST API (requests, with tenacity for the retries of reads).

- Ids: a thread is `thread:<id>`, a post `<thread>/<post>`, a message the bot reads in a
  conversation `c<conversation>/<message>`, and a PM the bot sent `conv:<conversation>`
  (each PM the bot sends starts a conversation of its own; a reply in it has it as parent).
- Writes (all POST, form-encoded): `threads` (`node_id`, `title`, `message`), `posts`
  (`thread_id`, `message`), `posts/{id}` (`message`: the status block's edit),
  `conversations` (`recipient_ids[]`, `title`, `message`; the id from
  `users/find-name?username=`, whose `exact` is the user of that name).
- Messages are BBCode both ways (the bot writes with render's BBCode markup).
- The invisible marker: every post and PM ends in `[USER=fb:<token>][/USER]`. XenForo keeps
  BBCode as written and re-renders it on each view; its HTML renderer gives nothing for a
  `[USER]` tag with no content (XF\\BbCode\\Renderer\\Html::renderTagUser returns '' before
  it looks at the option). Assumed: the parser keeps an option that is not a number (if a
  forum dropped it, `own_marks` would find no token, and doctor's note says so). After an
  uncertain failure the bot's recent posts are searched for it.
- Errors, retries and the flood check: adapters/xenforo_http.py. Reads:
  adapters/xenforo_reads.py. `forumbot doctor`: adapters/xenforo_checks.py.
"""
from __future__ import annotations

import re
import time
from typing import Callable

import requests

from .base import ForumError, Markup, Outgoing, PermanentError, Posted, Traits, UncertainError
from .http_forum import cut, mention, norm_title, token, web_address
from .xenforo_reads import PER_PAGE, XenForoReads, conv_of, post_ref, thread_of

MARKER = re.compile(r"\[user=\s*['\"]?fb:[^\]]*\]\s*\[/user\]", re.I)
MARK_TOKEN = re.compile(r"\[USER=fb:([0-9a-f]{16,64})\]\[/USER\]")
MAX_POST = 10000  # the messageMaxLength option's default
PM_CANDIDATES = 5  # conversations the bot started whose first message is read when looking for a PM


def marker(out: Outgoing | str) -> str:
    """The invisible mark of an outbox item: its token (keyed with the database's secret)."""
    return f"[USER=fb:{token(out)}][/USER]"


def prepare(body: str, limit: int = MAX_POST) -> str:
    """A body as the bot posts it: no marker of anyone else's (a planted one is taken out),
    and no longer than the forum takes (a backstop: the outbox fits every body before)."""
    return cut(MARKER.sub("", body), limit, 60)


class XenForoForum(XenForoReads):
    markup = Markup.BBCODE
    # XenForo's defaults: messages of 10,000 characters, thread titles of 150, conversation
    # titles of 100; a reply names a player with an @mention (XenForo links it and tells them);
    # new threads go in a forum (a node), named by the config's `category:` or `[xenforo] node`.
    traits = Traits(requests_per_minute=120, recheck_batch=100,
                    mark_read_batch=100, listing_window=PER_PAGE * 5 * 5, place_key="category",
                    mention_prefix="@", max_body=MAX_POST, max_title=150, max_subject=100)

    def __init__(self, url: str, api_key: str, api_user: str, node: int | None = None, user_id: int | None = None,
                 name: str = "xenforo", session: requests.Session | None = None, read_attempts: int = 3,
                 backoff: float = 1.0, max_wait: float = 60.0, timeout: float = 30.0,
                 requests_per_minute: int | None = None, recheck_every: float = 120.0,
                 monotonic: Callable[[], float] = time.monotonic):
        super().__init__(url, api_key, api_user, user_id, session=session, read_attempts=read_attempts,
                         backoff=backoff, max_wait=max_wait, timeout=timeout,
                         requests_per_minute=requests_per_minute, monotonic=monotonic,
                         node=node, recheck_every=recheck_every)
        self.name = name
        self._user_ids: dict[str, int] = {}

    @classmethod
    def from_settings(cls, s: dict[str, str], **kw) -> "XenForoForum":
        url = web_address(s, ("url", "api_key", "api_user"))
        node = (s.get("node") or "").strip()
        if node and not (node.isdigit() and 0 < int(node) < 2**31):
            raise ValueError(f"node = {node[:20]}: the game forum's node id, a number "
                             "(in its address: /forums/name.12/)")
        user_id = (s.get("user_id") or "").strip()
        if user_id and not (user_id.isdigit() and 0 < int(user_id) < 2**31):
            raise ValueError(f"user_id = {user_id[:20]}: the bot account's user id, a number")
        return cls(url, s["api_key"].strip(), s["api_user"].strip(), int(node) if node else None,
                   int(user_id) if user_id else None, **kw)

    def thread_id(self, ref: str) -> str | None:
        ref = str(ref).strip()
        m = (re.search(r"/threads/(?:[^/\s?#]*\.)?(\d+)(?:/[^\s?#]*)?/?(?:[?#].*)?$", ref)
             or re.fullmatch(r"(?:thread:)?(\d+)", ref))
        if not m:
            return None
        try:
            t = (self._get(f"/threads/{int(m.group(1))}") or {}).get("thread") or {}
        except ForumError:
            return None
        if not t.get("thread_id") or not t.get("discussion_open", True) or \
                (t.get("discussion_state") or "visible") != "visible":
            return None
        if t.get("first_post_id"):
            self._first_posts[int(t["thread_id"])] = int(t["first_post_id"])
        return f"thread:{t['thread_id']}"

    # --- writing ---------------------------------------------------------------------

    def post(self, out: Outgoing) -> Posted:
        body = f"{prepare(out.body, self.traits.max_body)}\n{marker(out)}"
        if out.kind == "edit":  # the opening post: a thread's first post, or a post in an existing thread
            if not out.thread:
                raise PermanentError("an edit with no post to edit")
            self._created(self._write(f"/posts/{self._post_id_of(out.thread)}", {"message": body}), "post")
            return Posted(out.thread)
        if out.kind == "thread":
            node = self._node_of(out.where)
            t = self._created(self._write("/threads", {"node_id": node, "title": out.title, "message": body}), "thread")
            if t.get("first_post_id"):
                self._first_posts[int(t["thread_id"])] = int(t["first_post_id"])
            return Posted(f"thread:{t['thread_id']}", t.get("view_url") or f"{self.base}/threads/{t['thread_id']}/")
        if out.kind == "comment":
            tid = thread_of(out.thread)
            if tid is None:
                raise PermanentError(f"{out.thread!r} is not a XenForo thread")
            p = self._created(self._write("/posts", {"thread_id": tid, "message": mention(body)}), "post")
            return Posted(f"{tid}/{p['post_id']}", p.get("view_url") or f"{self.base}/posts/{p['post_id']}/")
        if out.kind == "pm":
            title = ((out.subject or "").strip() or "A message from the game bot")[:self.traits.max_subject]
            uid = self._user_id(out.to or "")
            c = self._created(self._write("/conversations", [("recipient_ids[]", uid), ("title", title),
                                                              ("message", body)]), "conversation")
            return Posted(f"conv:{c['conversation_id']}",
                          c.get("view_url") or f"{self.base}/conversations/{c['conversation_id']}/")
        raise PermanentError(f"unknown outbox kind {out.kind}")

    @staticmethod
    def _created(payload, key: str) -> dict:
        """What a create or an edit answered with (`{"success": true, key: {...}}`)."""
        item = payload.get(key) if isinstance(payload, dict) else None
        if not isinstance(item, dict):
            raise UncertainError(f"XenForo answered the write with no {key}")
        return item

    def _user_id(self, name: str) -> int:
        key = name.strip().casefold()
        if key not in self._user_ids:
            data = self._get("/users/find-name", {"username": name.strip()}) or {}
            exact = data.get("exact") if isinstance(data.get("exact"), dict) else None
            if not exact or not exact.get("user_id"):
                raise PermanentError(f"there is no member {name!r} on the forum")
            self._user_ids[key] = int(exact["user_id"])
        return self._user_ids[key]

    def _node_of(self, where: str | None) -> int:
        ref = str(where or "").strip()
        if not ref:
            if self.node is None:
                raise PermanentError("no forum for the new thread: set [xenforo] node, or `category:` in the config")
            return self.node
        if ref.isdigit():
            return int(ref)
        m = re.search(r"/forums/(?:[^/\s?#]*\.)?(\d+)", ref)
        if m:
            return int(m.group(1))
        raise PermanentError(f"{ref!r} is not a forum's node id (a number, or the forum's address)")

    def _post_id_of(self, ref: str) -> int:
        parsed = post_ref(ref)
        if parsed:
            return parsed[1]
        tid = thread_of(ref)
        if tid is None:
            raise PermanentError(f"{ref!r} is not a XenForo post or thread")
        if tid not in self._first_posts:  # a new process: the thread's first post, from the thread
            t = (self._get(f"/threads/{tid}") or {}).get("thread") or {}
            if not t.get("first_post_id"):
                raise UncertainError(f"thread {tid} answered with no first post")
            self._first_posts[tid] = int(t["first_post_id"])
        return self._first_posts[tid]

    def _find(self, out: Outgoing) -> Posted | None:
        mark = marker(out)
        if out.kind == "thread":
            for t in self._listing(1, self._node_of(out.where))[0]:
                if self._mine(t) and norm_title(t.get("title") or "") == norm_title(out.title):
                    posts = self._posts_page(int(t["thread_id"]), 1)
                    if posts and self._mine(posts[0]) and mark in (posts[0].get("message") or ""):
                        self._first_posts[int(t["thread_id"])] = int(posts[0]["post_id"])
                        return Posted(f"thread:{t['thread_id']}",
                                      t.get("view_url") or f"{self.base}/threads/{t['thread_id']}/")
            return None
        if out.kind == "comment":
            tid = thread_of(out.thread)
            if tid is None:
                return None
            t = (self._get(f"/threads/{tid}") or {}).get("thread") or {}
            last = max(1, -(-(int(t.get("reply_count") or 0) + 1) // PER_PAGE))
            for page in sorted({last, max(1, last - 1)}, reverse=True):
                for p in self._posts_page(tid, page):
                    if self._mine(p) and mark in (p.get("message") or ""):
                        return Posted(f"{tid}/{p['post_id']}",
                                      p.get("view_url") or f"{self.base}/posts/{p['post_id']}/")
            return None
        if out.kind == "pm":
            want, tried = norm_title(out.subject or "A message from the game bot"), 0
            for c in (self._get("/conversations") or {}).get("conversations") or []:
                if not self._mine(c) or norm_title(c.get("title") or "") != want:
                    continue
                tried += 1
                if tried > PM_CANDIDATES:
                    break
                data = self._get(f"/conversations/{c['conversation_id']}/messages", {"page": 1}) or {}
                first = (data.get("messages") or [{}])[0]
                if self._mine(first) and mark in (first.get("message") or ""):
                    return Posted(f"conv:{c['conversation_id']}",
                                  c.get("view_url") or f"{self.base}/conversations/{c['conversation_id']}/")
            return None
        return None

    def own_marks(self) -> list[str] | None:
        """The marker tokens in the bot's posts in the game forum's newest threads and in its
        newest conversations (a few requests); a part that cannot be read is left out,
        unless none can."""
        def threads():
            texts = []
            for t in self._listing(1)[0][:3] if self.node is not None else []:
                last = max(1, -(-(int(t.get("reply_count") or 0) + 1) // PER_PAGE))
                texts += [p.get("message") or "" for p in self._posts_page(int(t["thread_id"]), last) if self._mine(p)]
            return texts

        def conversations():
            texts = []
            for c in ((self._get("/conversations") or {}).get("conversations") or [])[:3]:
                data = self._get(f"/conversations/{c['conversation_id']}/messages", {"page": 1}) or {}
                texts += [m.get("message") or "" for m in data.get("messages") or [] if self._mine(m)]
            return texts

        return self._marks_in((threads, conversations), MARK_TOKEN)

    def sent_id(self, message: str) -> str | None:
        """The id `post()` gave the PM that `message` answers: its conversation's."""
        cid = conv_of(message)
        return f"conv:{cid}" if cid is not None else None

