"""A fake Reddit: a real HTTP server on 127.0.0.1 that answers the endpoints the adapter
uses with Reddit's JSON shapes, so that real praw and prawcore run end to end.

Tests drive the players through its helpers (`comment`, `pm_bot`) and read what the bot
did (`thread_comments`, `pms_to`, `requests`). `faults` lets a test make the next
requests fail the way Reddit does."""
from __future__ import annotations

import itertools
import os
import signal
import random
from collections import Counter
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse


def b36(n: int) -> str:
    chars = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = chars[r] + out
        if n == 0:
            return out


class FakeReddit:
    def __init__(self, bot: str = "forumbot", clock=time.time):
        self.bot = bot
        self.clock = clock
        self.lock = threading.RLock()
        self._ids = itertools.count(1000)
        self.submissions: dict[str, dict] = {}
        self.comments: list[dict] = []
        self.messages: list[dict] = []
        self.requests: list[tuple[str, str]] = []
        self.mutations = 0  # writes that landed (POSTs other than the token)
        self.kill_at: int | None = None  # SIGKILL `victim` right after this write
        self.victim: int | None = None
        self.killed = 0
        self.faults: list = []  # callables (method, path) -> (status, body) | None, consumed in order
        # Random faults: this share of requests fails, as one of FAULT_KINDS (seeded).
        self.fault_rate = 0.0
        self.fault_rng = random.Random(0)
        self.injected: Counter = Counter()
        self.ratelimit = {"x-ratelimit-remaining": "590", "x-ratelimit-used": "10",
                          "x-ratelimit-reset": "300"}
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # --- lifecycle -------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> "FakeReddit":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def praw_kwargs(self) -> dict:
        return dict(client_id="test", client_secret="secret", username=self.bot, password="pw",
                    user_agent="forumbot tests", oauth_url=self.url, reddit_url=self.url,
                    check_for_updates=False)

    # --- what people do --------------------------------------------------------------

    def _id(self) -> str:
        return b36(next(self._ids))

    def submit(self, author: str, sub: str, title: str, body: str) -> dict:
        with self.lock:
            sid = self._id()
            s = {"id": sid, "name": f"t3_{sid}", "title": title, "selftext": body, "author": author,
                 "subreddit": sub, "created_utc": self.clock(), "locked": False}
            self.submissions[sid] = s
            return s

    def comment(self, author: str, thread: str, body: str, parent: str | None = None) -> dict:
        """`thread` is a submission id or the adapter's "sub:id"."""
        sid = thread.partition(":")[2] or thread
        with self.lock:
            s = self.submissions[sid]
            cid = self._id()
            c = {"id": cid, "name": f"t1_{cid}", "link_id": f"t3_{sid}", "author": author,
                 "body": body, "created_utc": self.clock(), "edited": False,
                 "subreddit": s["subreddit"], "parent_id": parent or f"t3_{sid}"}
            self.comments.append(c)
            return c

    def edit(self, comment_id: str, body: str) -> None:
        with self.lock:
            c = next(c for c in self.comments if c["id"] == comment_id)
            c["body"], c["edited"] = body, self.clock()

    def pm_bot(self, author: str, subject: str, body: str, parent: str | None = None) -> dict:
        return self._message(author, self.bot, subject, body, parent)

    def _message(self, author, dest, subject, body, parent=None) -> dict:
        with self.lock:
            mid = self._id()
            m = {"id": mid, "name": f"t4_{mid}", "author": author, "dest": dest, "subject": subject,
                 "body": body, "created_utc": self.clock(), "new": True,
                 "parent_id": f"t4_{parent}" if parent else None, "was_comment": False,
                 "replies": "", "subreddit": None, "context": ""}
            self.messages.append(m)
            return m

    # --- what tests read -------------------------------------------------------------

    def thread_comments(self, thread: str) -> list[dict]:
        sid = thread.partition(":")[2] or thread
        return [c for c in self.comments if c["link_id"] == f"t3_{sid}"]

    def pms_to(self, user: str) -> list[dict]:
        return [m for m in self.messages if m["dest"].lower() == user.lower()]

    def bot_posts(self) -> list[str]:
        """Every text the bot published or sent, in order."""
        out = [s["selftext"] for s in self.submissions.values() if s["author"] == self.bot]
        out += [c["body"] for c in self.comments if c["author"] == self.bot]
        out += [m["body"] for m in self.messages if m["author"] == self.bot]
        return out

    def _count(self, link: str) -> int:
        return sum(1 for c in self.comments if c["link_id"] == link)

    def after_mutation(self) -> None:
        """Count a write that landed; the crash sweep kills the bot right after the k-th."""
        with self.lock:
            self.mutations += 1
            if self.kill_at is not None and self.mutations == self.kill_at and self.victim:
                os.kill(self.victim, signal.SIGKILL)
                self.killed += 1

    def mutating_requests(self) -> int:
        return sum(1 for m, p in self.requests if m == "POST" and "access_token" not in p)

    # --- the HTTP side ---------------------------------------------------------------

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def _reply(self, status: int, payload, headers=None):
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def _serve(self, method: str):
                url = urlparse(self.path)
                query = {k: v[-1] for k, v in parse_qs(url.query).items()}
                form = {}
                if method == "POST":
                    n = int(self.headers.get("Content-Length") or 0)
                    form = {k: v[-1] for k, v in parse_qs(self.rfile.read(n).decode()).items()}
                path = url.path.rstrip("/")
                with fake.lock:
                    fake.requests.append((method, path))
                    fault = None
                    for i, f in enumerate(fake.faults):  # the first fault that applies, once
                        if (fault := f(method, path)) is not None:
                            del fake.faults[i]
                            break
                    if fault is None and fake.fault_rate and "access_token" not in path \
                            and fake.fault_rng.random() < fake.fault_rate:
                        kinds = FAULT_KINDS if method == "POST" else FAULT_KINDS[:4]
                        kind = fake.fault_rng.choice(kinds)
                        fake.injected[kind] += 1
                        fault = FAULTS[kind]
                if fault is not None:
                    status, payload, after = fault if len(fault) == 3 else (*fault, None)
                    if after == "commit":  # the write lands, then the answer fails
                        fake.route(method, path, query, form)
                    if status == 0:  # drop the connection
                        self.close_connection = True
                        return
                    return self._reply(status, payload, {"retry-after": "1"} if status == 429 else None)
                status, payload = fake.route(method, path, query, form)
                if method == "POST" and "access_token" not in path:
                    fake.after_mutation()  # may SIGKILL the bot: the write has landed, no answer
                self._reply(status, payload, dict(fake.ratelimit))

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

        return Handler

    def route(self, method: str, path: str, q: dict, form: dict):
        with self.lock:
            if path == "/api/v1/access_token":
                return 200, {"access_token": "token", "token_type": "bearer", "expires_in": 86400,
                             "scope": "*"}
            if path == "/api/v1/me":
                return 200, {"name": self.bot, "id": "bot1"}
            if path == "/api/submit":
                s = self.submit(self.bot, form["sr"], form["title"], form.get("text", ""))
                return 200, {"json": {"errors": [], "data": {
                    "id": s["id"], "name": s["name"],
                    "url": f"https://www.reddit.com/r/{s['subreddit']}/comments/{s['id']}/"}}}
            if path == "/api/comment":
                parent = form["thing_id"]
                if parent.startswith("t3_"):
                    sid = parent[3:]
                else:
                    sid = next(c["link_id"][3:] for c in self.comments if c["name"] == parent)
                if self.submissions[sid]["locked"]:
                    return 200, {"json": {"errors": [["THREAD_LOCKED", "that thread is locked", "parent"]]}}
                c = self.comment(self.bot, sid, form["text"], parent)
                return 200, {"json": {"errors": [], "data": {"things": [{"kind": "t1", "data": c}]}}}
            if path == "/api/editusertext":
                name = form["thing_id"]
                if name.startswith("t3_"):
                    thing = self.submissions.get(name[3:])
                    if thing is not None and thing["author"] == self.bot:
                        thing["selftext"] = form["text"]
                        return 200, {"json": {"errors": [], "data": {"things": [{"kind": "t3", "data": thing}]}}}
                else:
                    thing = next((c for c in self.comments if c["name"] == name), None)
                    if thing is not None and thing["author"] == self.bot:
                        thing["body"], thing["edited"] = form["text"], self.clock()
                        return 200, {"json": {"errors": [], "data": {"things": [{"kind": "t1", "data": thing}]}}}
                return 403, {"message": "Forbidden", "error": 403}
            if path == "/api/compose":
                self._message(self.bot, form["to"].removeprefix("/u/"), form["subject"], form["text"])
                return 200, {"json": {"errors": []}}
            if path == "/api/read_message":
                names = set(form.get("id", "").split(","))
                for m in self.messages:
                    if m["name"] in names:
                        m["new"] = False
                return 200, {}
            if path == "/message/unread":
                items = [m for m in self.messages if m["dest"] == self.bot and m["new"]]
                return 200, listing("t4", list(reversed(items)), q)
            if path == "/message/sent":
                items = [m for m in self.messages if m["author"] == self.bot]
                return 200, listing("t4", list(reversed(items)), q)
            if path.startswith("/r/") and path.endswith("/comments"):
                sub = path.split("/")[2]
                items = [c for c in self.comments if c["subreddit"].lower() == sub.lower()]
                return 200, listing("t1", list(reversed(items)), q)
            if path == f"/user/{self.bot}/comments":
                items = [c for c in self.comments if c["author"] == self.bot]
                return 200, listing("t1", list(reversed(items)), q)
            if path == f"/user/{self.bot}/submitted":
                items = [s for s in self.submissions.values() if s["author"] == self.bot]
                return 200, listing("t3", list(reversed(items)), q)
            if path.startswith("/comments/"):  # a thread and its comments (flat)
                sid = path.split("/")[2]
                s = self.submissions.get(sid)
                if s is None:
                    return 404, {"message": "Not Found", "error": 404}
                items = [dict(c, replies="", depth=0) for c in self.comments if c["link_id"] == s["name"]]
                return 200, [{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": s}],
                                                           "after": None, "before": None}},
                             {"kind": "Listing", "data": {"children": [{"kind": "t1", "data": c} for c in items],
                                                           "after": None, "before": None}}]
            if path == "/api/info":
                names = q.get("id", "").split(",")
                things = [{"kind": "t3", "data": dict(s, num_comments=self._count(s["name"]))}
                          for s in self.submissions.values() if s["name"] in names]
                things += [{"kind": "t1", "data": c} for c in self.comments if c["name"] in names]
                return 200, {"kind": "Listing", "data": {"children": things, "after": None, "before": None}}
            return 404, {"message": "Not Found", "error": 404}


ERROR = {"message": "error", "error": 500}
FAULTS = {
    "429": (429, {"message": "Too Many Requests", "error": 429}),
    "500": (500, ERROR),
    "503": (503, ERROR),
    "drop": (0, None),  # the connection closes with no answer
    "commit-500": (500, ERROR, "commit"),  # the write lands, then the answer is an error
    "commit-drop": (0, None, "commit"),  # the write lands, then the connection drops
}
FAULT_KINDS = list(FAULTS)


def listing(kind: str, items: list[dict], q: dict) -> dict:
    """A Reddit listing page, newest first, honouring `limit` and `after`."""
    limit = min(int(q.get("limit", 25)), 100)
    start = 0
    if q.get("after"):
        names = [i["name"] for i in items]
        start = names.index(q["after"]) + 1 if q["after"] in names else len(items)
    page = items[start:start + limit]
    after = page[-1]["name"] if len(page) == limit and start + limit < len(items) else None
    return {"kind": "Listing", "data": {"children": [{"kind": kind, "data": i} for i in page],
                                        "after": after, "before": None}}
