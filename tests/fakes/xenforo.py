"""A fake XenForo 2: a real HTTP server on 127.0.0.1 that answers the REST API endpoints the
adapter uses (under /api/), on the shared fake-server base (tests/fakes/server.py: faults,
crashes).

Taken from XenForo's documentation and source (docs.xenforo.com/api,
xenforo.com/docs/dev/rest-api, XF\\Api\\Controller\\* and XF\\Api\\ControllerPlugin\\*):
- `XF-Api-Key` on every request; a user key acts as its user, a super user key as the
  user in `XF-Api-User` (none: a guest). Form-encoded bodies. Errors are a 400-range
  status with `{"errors": [{"code", "message", "params"}]}`; a key not found
  `api_key_not_found`.
- Scopes per controller and method (`assertApiScopeByRequestMethod`): `thread:read` /
  `thread:write` for forums, threads and posts, `conversation:read` / `:write` for
  conversations and their messages; a missing one is a 403 (`api_error.missing_scope`).
- `GET /` (the index) answers the key's `type`, `allow_all_scopes` and `scopes` (names to
  true) and needs no scope. `GET me` answers `{"me": User}`. `GET forums/{id}/threads` takes `order`
  (`last_post_date`, `post_date`) and `direction` (desc unless "asc"), pages of 20.
  `GET threads/{id}/posts?page=N`: 20 a page (messagesPerPage), oldest first; a page
  past the last is a 400 `invalid_page` with `params.max` (assertValidApiPage).
  `POST posts/{id}` edits (`message`) and sets `last_edit_date`. `POST conversations`:
  `recipient_ids[]`, `title`, `message`; `POST conversation-messages`: `conversation_id`,
  `message`; `GET conversations/{id}/messages?page=N`, oldest first.
  `GET users/find-name?username=`: `exact` (or null) and `recommendations`.
- The flood check (assertNotFlooding): a user without the `bypassFloodCheck` permission
  who posted less than `flood_seconds` (floodCheckLength, 30 by default) ago gets a 400
  `must_wait_x_seconds_before_performing_this_action`, `params.count` the seconds left.
- Soft-deleted posts (`message_state` "deleted") are seen only by moderators.

Guessed (the documentation is silent): the conversation list is ordered by the last
message's date, newest first (as the web list); a locked thread or a forum the user may
not post in answers 403 `do_not_have_permission`; a thread or post not found 404
`requested_thread_not_found` / `requested_post_not_found`; the `can_create_thread` of a
forum and the `can_start_conversation` of `me` are read from the entities' names; there
is no API rate limit. The fake's faults (5xx, drops) are the shared base's.

People: `user`, `new_thread`, `reply`, `pm` (a new conversation), `reply_pm`, `edit`,
`delete` (soft: `message_state` "deleted"), `lock`. What tests read: `thread_posts`,
`pms_to`, `bot_posts`, `public_posts`."""
from __future__ import annotations

import itertools
import re
import socket
import threading
import time
from urllib.parse import parse_qs, urlparse

from adapters.xenforo import XenForoForum
from tests.fakes.server import FakeServer, JSONHandler, Raw
from tests.fakes.table import Table

PER_PAGE = 20
ALL_SCOPES = {"thread:read", "thread:write", "conversation:read", "conversation:write", "user:read"}
FLOOD = "must_wait_x_seconds_before_performing_this_action"


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str, params=None):
        super().__init__(message)
        self.status = status
        self.body = {"errors": [{"code": code, "message": message, "params": params or []}]}


def _not_found(what: str) -> Refused:
    return Refused(404, f"requested_{what}_not_found", f"The requested {what} could not be found.")


NO_PERMISSION = ("do_not_have_permission", "You do not have permission to view this page or perform this action.")


class FakeXenForo(FakeServer):
    def __init__(self, bot: str = "forumbot", clock=time.time, api_key: str = "test-key"):
        self.bot = bot
        self.clock = clock
        self.lock = threading.RLock()
        self._ids = {k: itertools.count(start) for k, start in
                     (("user", 1), ("thread", 100), ("post", 1000), ("conv", 50), ("msg", 500))}
        self.users: dict[str, dict] = {}
        self.nodes: dict[int, dict] = {}
        self.threads: dict[int, dict] = {}
        self.posts: dict[int, dict] = {}
        self.convs: dict[int, dict] = {}
        self.messages: dict[int, dict] = {}
        self._of_thread: dict[int, list[dict]] = {}  # each thread's posts, oldest first
        self._of_conv: dict[int, list[dict]] = {}  # each conversation's messages, oldest first
        self.flood_seconds = 30
        self._last_write: dict[int, float] = {}
        self.requests: list[tuple[str, str]] = []
        self.bodies: list[tuple[str, str, list]] = []
        self._init_faults()
        self.user("admin", staff=True)
        self.user(bot, staff=False, bypass_flood=True)
        # api key -> (its user, or None for a super user key, and its scopes)
        self.api_keys: dict[str, tuple[str | None, set[str]]] = {api_key: (bot, set(ALL_SCOPES))}
        self.node(2, "Game night")
        self.node(3, "Announcements", can_post=False)
        welcome = self.new_thread("admin", 3, "Welcome to the forum", "Read the rules before you post.")
        self.reply("admin", welcome["thread_id"], "And be kind.")
        self._listen(self._handler())

    def settings(self, **extra) -> dict:
        """The `[xenforo]` settings of a bot on this fake."""
        key = next(k for k, v in self.api_keys.items() if v[0] == self.bot)
        return {"url": self.url, "api_key": key, "api_user": self.bot, "node": "2", **extra}

    def now(self) -> int:
        return int(float(self.clock()))

    # --- the site ----------------------------------------------------------------------

    def user(self, name: str, staff: bool | None = None, bypass_flood: bool | None = None,
             can_converse: bool | None = None) -> dict:
        with self.lock:
            u = self.users.get(name.casefold())
            if u is None:
                u = {"user_id": next(self._ids["user"]), "username": name, "is_staff": False,
                     "is_moderator": False, "is_admin": False, "bypass_flood": False, "can_converse": True}
                self.users[name.casefold()] = u
            if staff is not None:
                u["is_staff"] = u["is_moderator"] = u["is_admin"] = staff
                u["bypass_flood"] = u["bypass_flood"] or staff
            if bypass_flood is not None:
                u["bypass_flood"] = bypass_flood
            if can_converse is not None:
                u["can_converse"] = can_converse
            return u

    def node(self, node_id: int, title: str, can_post: bool = True) -> dict:
        self.nodes[node_id] = {"node_id": node_id, "title": title, "can_post": can_post}
        return self.nodes[node_id]

    def _by_id(self, uid: int) -> dict:
        return next(u for u in self.users.values() if u["user_id"] == uid)

    # --- what people do ------------------------------------------------------------------

    def new_thread(self, author: str, node: int, title: str, message: str) -> dict:
        with self.lock:
            u = self.user(author)
            tid = next(self._ids["thread"])
            t = {"thread_id": tid, "node_id": node, "title": title, "user_id": u["user_id"],
                 "username": u["username"], "post_date": self.now(), "discussion_open": True,
                 "discussion_state": "visible", "first_post_id": 0, "last_post_id": 0, "last_post_date": 0}
            self.threads[tid] = t
            p = self._post(u, t, message)
            t["first_post_id"] = p["post_id"]
            return t

    def reply(self, author: str, thread: int | str, message: str) -> dict:
        tid = int(str(thread).rpartition(":")[2])
        with self.lock:
            return self._post(self.user(author), self.threads[tid], message)

    def pm(self, author: str, to: str | list[str], title: str, message: str) -> dict:
        names = [to] if isinstance(to, str) else list(to)
        with self.lock:
            return self._conversation(self.user(author), [self.user(n) for n in names], title, message)

    def reply_pm(self, author: str, conv: int, message: str) -> dict:
        with self.lock:
            return self._message(self.user(author), self.convs[int(conv)], message)

    def edit(self, post_id: int, message: str) -> dict:
        with self.lock:
            p = self.posts[post_id]
            p["message"], p["last_edit_date"] = message, self.now()
            return p

    def delete(self, post_id: int) -> dict:
        with self.lock:
            self.posts[post_id]["message_state"] = "deleted"
            return self.posts[post_id]

    def lock_thread(self, thread: int | str) -> None:
        self.threads[int(str(thread).rpartition(":")[2])]["discussion_open"] = False

    def _post(self, u: dict, t: dict, message: str) -> dict:
        pid = next(self._ids["post"])
        p = {"post_id": pid, "thread_id": t["thread_id"], "user_id": u["user_id"], "username": u["username"],
             "message": message, "post_date": self.now(), "last_edit_date": 0, "message_state": "visible"}
        self.posts[pid] = p
        self._of_thread.setdefault(t["thread_id"], []).append(p)
        t["last_post_id"], t["last_post_date"] = pid, p["post_date"]
        return p

    def _conversation(self, u: dict, to: list[dict], title: str, message: str) -> dict:
        cid = next(self._ids["conv"])
        c = {"conversation_id": cid, "title": title, "user_id": u["user_id"], "username": u["username"],
             "recipients": [u["user_id"]] + [x["user_id"] for x in to if x["user_id"] != u["user_id"]],
             "start_date": self.now(), "first_message_id": 0}
        self.convs[cid] = c
        m = self._message(u, c, message)
        c["first_message_id"] = m["message_id"]
        return c

    def _message(self, u: dict, c: dict, message: str) -> dict:
        mid = next(self._ids["msg"])
        m = {"message_id": mid, "conversation_id": c["conversation_id"], "user_id": u["user_id"],
             "username": u["username"], "message": message, "message_date": self.now()}
        self.messages[mid] = m
        self._of_conv.setdefault(c["conversation_id"], []).append(m)
        c["last_message_id"], c["last_message_date"] = mid, m["message_date"]
        c["last_message_user_id"] = u["user_id"]
        return m

    # --- what tests read -------------------------------------------------------------------

    def thread_posts(self, thread: int | str, deleted: bool = False) -> list[dict]:
        tid = int(str(thread).rpartition(":")[2])
        return [p for p in self._of_thread.get(tid, []) if deleted or p["message_state"] == "visible"]

    def pms_to(self, user: str) -> list[dict]:
        """The messages by others in the conversations `user` is in, oldest first."""
        u = self.users.get(user.casefold())
        if u is None:
            return []
        return [m for m in self.messages.values() if m["user_id"] != u["user_id"]
                and u["user_id"] in self.convs[m["conversation_id"]]["recipients"]]

    def bot_posts(self) -> list[str]:
        bot = self.users[self.bot.casefold()]["user_id"]
        return ([p["message"] for p in self.posts.values() if p["user_id"] == bot]
                + [m["message"] for m in self.messages.values() if m["user_id"] == bot])

    def public_posts(self) -> list[dict]:
        return list(self.posts.values())

    # --- the API -------------------------------------------------------------------------

    def _viewer(self, headers) -> tuple[dict | None, set[str]]:
        key = headers.get("XF-Api-Key")
        if not key:
            raise Refused(400, "no_api_key_in_request", "No API key was included in the request.")
        if key not in self.api_keys:
            raise Refused(401, "api_key_not_found", "API key provided in request was not found.")
        name, scopes = self.api_keys[key]
        if name is None:  # a super user key
            uid = headers.get("XF-Api-User")
            user = next((u for u in self.users.values() if str(u["user_id"]) == str(uid)), None) if uid else None
            if uid and user is None:
                raise Refused(403, "api_key_user_not_found", "The API user could not be found.")
            return user, scopes
        return self.users[name.casefold()], scopes

    @staticmethod
    def _scope(scopes: set[str], scope: str, method: str) -> None:
        need = f"{scope}:{'read' if method == 'GET' else 'write'}"
        if need not in scopes:
            raise Refused(403, "api_error.missing_scope", f"This request requires the '{need}' scope.")

    def _flood(self, u: dict) -> None:
        if u["bypass_flood"]:
            return
        last = self._last_write.get(u["user_id"])
        if last is not None and self.now() - last < self.flood_seconds:
            left = int(self.flood_seconds - (self.now() - last))
            raise Refused(400, FLOOD, f"You must wait at least {left} seconds before performing this action.",
                          {"count": left})
        self._last_write[u["user_id"]] = self.now()

    @staticmethod
    def _page(items: list, q: dict) -> tuple[list, dict]:
        try:
            page = max(1, int((q.get("page") or ["1"])[-1] or 1))
        except ValueError:
            page = 1
        last = max(1, -(-len(items) // PER_PAGE))
        if page > last and items:
            raise Refused(400, "invalid_page", "The requested page is invalid.", {"max": last})
        chunk = items[(page - 1) * PER_PAGE: page * PER_PAGE]
        return chunk, {"current_page": page, "last_page": last, "per_page": PER_PAGE, "shown": len(chunk),
                       "total": len(items)}

    def _visible_posts(self, t: dict, viewer: dict | None) -> list[dict]:
        staff = bool(viewer and viewer["is_moderator"])
        return [self._post_json(p) for p in self._of_thread.get(t["thread_id"], [])
                if p["message_state"] == "visible" or staff]

    def _thread_json(self, t: dict) -> dict:
        replies = sum(1 for p in self._of_thread.get(t["thread_id"], []) if p["message_state"] == "visible") - 1
        return dict(t, reply_count=replies, view_url=f"{self.url}/threads/{t['thread_id']}/")

    def _post_json(self, p: dict) -> dict:
        return self.oddly(dict(p, view_url=f"{self.url}/posts/{p['post_id']}/"), p["message"])

    def _conv_json(self, c: dict) -> dict:
        count = len(self._of_conv.get(c["conversation_id"], []))
        return dict(c, reply_count=count - 1, view_url=f"{self.url}/conversations/{c['conversation_id']}/")

    def _thread(self, tid: int, viewer: dict | None) -> dict:
        t = self.threads.get(tid)
        if t is None or (t["discussion_state"] != "visible" and not (viewer and viewer["is_moderator"])):
            raise _not_found("thread")
        return t

    def route(self, method: str, path: str, q: dict, form: dict, headers):
        one = lambda k, default="": (form.get(k) or q.get(k) or [default])[-1]  # noqa: E731
        viewer, scopes = self._viewer(headers)
        if path == "/api" and method == "GET":  # the index: the site, and the key's type and scopes
            user_key = self.api_keys[headers.get("XF-Api-Key")][0] is not None
            return 200, {"version_id": 2030070, "site_title": "Fake XenForo", "base_url": self.url,
                         "api_url": f"{self.url}/api/", "key": {
                             "type": "user" if user_key else "super", "allow_all_scopes": False,
                             "user_id": viewer["user_id"] if user_key and viewer else None,
                             "scopes": {scope: True for scope in sorted(scopes)}}}
        if path == "/api/me" and method == "GET":
            me = dict(viewer or {"user_id": 0, "username": ""})
            me.pop("bypass_flood", None)
            me["can_start_conversation"] = bool(viewer and me.pop("can_converse", False))
            return 200, {"me": me}
        if m := re.fullmatch(r"/api/forums/(\d+)(/threads)?", path):
            self._scope(scopes, "thread", method)
            node = self.nodes.get(int(m.group(1)))
            if node is None:
                raise _not_found("forum")
            if not m.group(2):
                return 200, {"forum": {"node_id": node["node_id"], "title": node["title"],
                                       "can_create_thread": bool(viewer) and (node["can_post"] or viewer["is_staff"])}}
            threads = [self._thread_json(t) for t in self.threads.values() if t["node_id"] == node["node_id"]
                       and t["discussion_state"] == "visible"]
            key = one("order") if one("order") in ("last_post_date", "post_date") else "last_post_date"
            threads.sort(key=lambda t: (t[key], t["thread_id"]), reverse=one("direction") != "asc")
            chunk, pagination = self._page(threads, q)
            return 200, {"threads": chunk, "pagination": pagination}
        if m := re.fullmatch(r"/api/threads/(\d+)(/posts)?", path):
            self._scope(scopes, "thread", method)
            t = self._thread(int(m.group(1)), viewer)
            if not m.group(2):
                return 200, {"thread": self._thread_json(t)}
            chunk, pagination = self._page(self._visible_posts(t, viewer), q)
            return 200, {"posts": chunk, "pagination": pagination}
        if path == "/api/threads" and method == "POST":
            self._scope(scopes, "thread", method)
            node = self.nodes.get(int(one("node_id", "0") or 0))
            if node is None:
                raise _not_found("forum")
            if viewer is None or not (node["can_post"] or viewer["is_staff"]):
                raise Refused(403, *NO_PERMISSION)
            if not one("title").strip() or not one("message").strip():
                raise Refused(400, "please_enter_valid_title", "Please enter a valid title and message.")
            self._flood(viewer)
            t = self.new_thread(viewer["username"], node["node_id"], one("title"), one("message"))
            return 200, {"success": True, "thread": self._thread_json(t)}
        if m := re.fullmatch(r"/api/posts(?:/(\d+))?", path):
            self._scope(scopes, "thread", method)
            if m.group(1):
                p = self.posts.get(int(m.group(1)))
                if p is None or (p["message_state"] != "visible" and not (viewer and viewer["is_moderator"])):
                    raise _not_found("post")
                if method == "GET":
                    return 200, {"post": self._post_json(p)}
                if viewer is None or (p["user_id"] != viewer["user_id"] and not viewer["is_moderator"]):
                    raise Refused(403, *NO_PERMISSION)
                if not one("message").strip():
                    raise Refused(400, "please_enter_valid_message", "Please enter a valid message.")
                self.edit(p["post_id"], one("message"))
                return 200, {"success": True, "post": self._post_json(p)}
            if method != "POST":
                raise _not_found("page")
            t = self._thread(int(one("thread_id", "0") or 0), viewer)
            if viewer is None or not (t["discussion_open"] or viewer["is_moderator"]):
                raise Refused(403, *NO_PERMISSION)
            if not one("message").strip():
                raise Refused(400, "please_enter_valid_message", "Please enter a valid message.")
            self._flood(viewer)
            return 200, {"success": True, "post": self._post_json(self._post(viewer, t, one("message")))}
        if m := re.fullmatch(r"/api/conversations(?:/(\d+)/messages)?", path):
            self._scope(scopes, "conversation", method)
            if viewer is None:
                raise Refused(403, *NO_PERMISSION)
            if m.group(1):
                c = self.convs.get(int(m.group(1)))
                if c is None or viewer["user_id"] not in c["recipients"]:
                    raise _not_found("conversation")
                chunk, pagination = self._page(list(self._of_conv.get(c["conversation_id"], [])), q)
                return 200, {"messages": chunk, "pagination": pagination}
            if method == "GET":
                mine = [self._conv_json(c) for c in self.convs.values() if viewer["user_id"] in c["recipients"]]
                mine.sort(key=lambda c: (c["last_message_date"], c["last_message_id"]), reverse=True)
                chunk, pagination = self._page(mine, q)
                return 200, {"conversations": chunk, "pagination": pagination}
            if not viewer["can_converse"]:
                raise Refused(403, *NO_PERMISSION)
            ids = [int(i) for i in form.get("recipient_ids[]", []) if str(i).isdigit()]
            to = [u for u in self.users.values() if u["user_id"] in ids]
            if not to:
                raise Refused(400, "please_enter_at_least_one_valid_recipient", "Please enter at least one valid recipient.")
            if not one("title").strip() or not one("message").strip():
                raise Refused(400, "please_enter_valid_title", "Please enter a valid title and message.")
            self._flood(viewer)
            c = self._conversation(viewer, to, one("title"), one("message"))
            return 200, {"success": True, "conversation": self._conv_json(c)}
        if path == "/api/conversation-messages" and method == "POST":
            self._scope(scopes, "conversation", method)
            c = self.convs.get(int(one("conversation_id", "0") or 0))
            if viewer is None or c is None or viewer["user_id"] not in c["recipients"]:
                raise _not_found("conversation")
            self._flood(viewer)
            return 200, {"success": True, "message": self._message(viewer, c, one("message"))}
        if path == "/api/users/find-name" and method == "GET":
            if "user:read" not in scopes:
                raise Refused(403, "api_error.missing_scope", "This request requires the 'user:read' scope.")
            name = one("username")
            exact = self.users.get(name.casefold()) if name else None
            public = lambda u: {k: u[k] for k in ("user_id", "username")}  # noqa: E731
            return 200, {"exact": public(exact) if exact else None,
                         "recommendations": [public(u) for u in self.users.values()
                                             if name and u["username"].casefold().startswith(name.casefold())
                                             and u is not exact][:10]}
        raise Refused(404, "endpoint_not_found", "The requested API endpoint could not be found.")

    def _handler(self):
        fake = self

        class Handler(JSONHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as a real site behind a web server

            def setup(self):
                super().setup()
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms stalls

            def _serve(self, method: str):
                url = urlparse(self.path)
                query = parse_qs(url.query)
                form: dict[str, list[str]] = {}
                if method == "POST":
                    n = int(self.headers.get("Content-Length") or 0)
                    form = parse_qs(self.rfile.read(n).decode(), keep_blank_values=True)
                path = url.path.rstrip("/") or "/"
                writes = method == "POST"
                with fake.lock:
                    fake.requests.append((method, path))
                    if writes:
                        fake.bodies.append((method, path, sorted((k, v[-1]) for k, v in form.items())))
                    fault = fake.pick_fault(method, path, FAULT_KINDS if writes else FAULT_KINDS[:5], FAULTS)
                if fault is not None:
                    status, payload, *rest = fault
                    if rest and rest[0] == "commit":
                        with fake.lock:
                            answer = fake.serve(method, path, query, form, self.headers)
                        if answer[0] < 400:
                            fake.after_mutation()
                    return self.reply_fault(status, payload)
                with fake.lock:
                    status, payload = fake.serve(method, path, query, form, self.headers)
                if writes and status < 400:
                    fake.after_mutation()  # may SIGKILL the bot: the write has landed, no answer
                self.reply(status, payload)

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

        return Handler

    def serve(self, method, path, query, form, headers):
        try:
            return self.route(method, path, query, form, headers)
        except Refused as e:
            return e.status, e.body


FAULTS = {
    "429": (429, {"errors": [{"code": "too_many_requests", "message": "Too many requests.", "params": []}]}),
    "500": (500, {"errors": [{"code": "server_error", "message": "An unexpected error occurred.", "params": []}]}),
    "502": (502, Raw("<html><body><h1>502 Bad Gateway</h1></body></html>")),
    "503": (503, Raw("<html><body>Service Unavailable</body></html>")),
    "drop": (0, None),
    "commit-500": (500, {"errors": [{"code": "server_error", "message": "An unexpected error occurred.",
                                     "params": []}]}, "commit"),
    "commit-drop": (0, None, "commit"),
}
FAULT_KINDS = list(FAULTS)


# --- people and tables on the fake -----------------------------------------------------------


class XenForoPeople:
    """Players on the fake XenForo: they post and start conversations as members do."""

    def __init__(self, fake: FakeXenForo):
        self.fake = fake

    def comment(self, author, thread, body):
        return self.fake.reply(author, thread, body)

    def pm(self, author, subject, body):
        return self.fake.pm(author, self.fake.bot, subject or "a message", body)

    def pms_to(self, user) -> list[str]:
        return [m["message"] for m in self.fake.pms_to(user)]

    def thread(self, thread) -> list[str]:
        return [p["message"] for p in self.fake.thread_posts(thread)]

    def opening(self, thread) -> str:
        return self.fake.thread_posts(thread)[0]["message"]

    def public_texts(self) -> list[str]:
        return [p["message"] for p in self.fake.public_posts()]


def xenforo_forum(fake: FakeXenForo, **kw):
    """The XenForo adapter on the fake, with no waits (backoff, edit re-checks)."""
    kw.setdefault("backoff", 0)
    kw.setdefault("max_wait", 0)
    kw.setdefault("recheck_every", 0)
    return XenForoForum.from_settings(fake.settings(), **kw)


def settings_section(fake: FakeXenForo) -> str:
    """The `[xenforo]` section of a settings file for a bot on this fake."""
    return "[xenforo]\n" + "".join(f"{k} = {v}\n" for k, v in fake.settings().items())


class XenForoTable(Table):
    """A table on the fake XenForo: the host and the players are members of the forum
    (a conversation with someone who is not is refused)."""

    def start(self, host="host", **kw) -> "XenForoTable":
        for name in [host, *self.players]:
            self.people.fake.user(name)
        super().start(host=host, **kw)
        assert self.game.thread, f"the game has no thread: {self.people.pms_to(host)}"
        return self
