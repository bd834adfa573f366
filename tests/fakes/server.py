"""What a fake forum's HTTP side needs, whatever the forum (tests/fakes/discourse.py and
tests/fakes/reddit.py build on it): a real HTTP server on 127.0.0.1, one
thread a request, that stops quickly; answers that are not JSON (`Raw`); faults, one-off
(`faults`: callables (method, path) -> fault | None, the first that applies is used once)
and random (`fault_rate` of requests, as one of the kinds a request may get, from the
seeded `fault_rng`, counted in `injected`); and the crash hook (`kill_at`, `victim`): the
bot's process is SIGKILLed right after the `kill_at`-th write that landed.

A subclass answers `route(...)` and serves with a handler class made by `handler_class`;
a fault is a tuple (status, payload[, "commit"]): status 0 drops the connection,
"commit" lets the write land first."""
from __future__ import annotations

import json
import os
import random
import signal
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable


class Raw:
    """An answer that is not JSON (an HTML error page, an empty redirect), or JSON already
    encoded."""

    def __init__(self, body: str = "", content_type: str = "text/html", headers: dict | None = None):
        self.body, self.content_type, self.headers = body, content_type, headers or {}


def load_fixture(folder: Path, name: str):
    with open(folder / name, encoding="utf-8") as f:
        return json.load(f)


class FakeServer:
    """The server, the faults and the crash hook of a fake forum."""

    lock: threading.RLock

    def _listen(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)  # a quick stop()

    def _init_faults(self) -> None:
        self.mutations = 0  # writes that landed
        self.kill_at: int | None = None  # SIGKILL `victim` right after this write
        self.victim: int | None = None
        self.killed = 0
        self.faults: list = []
        self.fault_rate = 0.0
        self.fault_rng = random.Random(0)
        self.injected: Counter = Counter()
        self.odd: dict[str, Callable[[dict], dict]] = {}  # a post's text -> how its JSON is mangled

    def oddly(self, post: dict, text: str) -> dict:
        """A post's JSON as the fake answers it: mangled by `odd`, where its text is there
        (the shared sweeps' posts the adapter cannot name)."""
        change = self.odd.get(text)
        return change(post) if change else post

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self):
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def pick_fault(self, method: str, path: str, kinds: list[str] | None, table: dict):
        """The fault this request meets (with the lock held): the first one-off fault that
        applies (used up), else, with `kinds` (those this request may get; None: no random
        fault for it), a random one at `fault_rate`. None: no fault."""
        for i, f in enumerate(self.faults):
            if (fault := f(method, path)) is not None:
                del self.faults[i]
                return fault
        if kinds and self.fault_rate and self.fault_rng.random() < self.fault_rate:
            kind = self.fault_rng.choice(kinds)
            self.injected[kind] += 1
            return table[kind]
        return None

    def after_mutation(self) -> None:
        """Count a write that landed; the crash sweep kills the bot right after the k-th."""
        with self.lock:
            self.mutations += 1
            if self.kill_at is not None and self.mutations == self.kill_at and self.victim:
                os.kill(self.victim, signal.SIGKILL)
                self.killed += 1


class JSONHandler(BaseHTTPRequestHandler):
    """A quiet handler that answers JSON (or a Raw answer) with its length."""

    json_type = "application/json; charset=utf-8"

    def log_message(self, *a):
        pass

    def reply(self, status: int, payload, headers: dict | None = None) -> None:
        """The answer, with `headers` and then a Raw payload's own (the later of two spellings
        of one header wins; a Date given replaces the server's, and one given as None is left
        out, the Date too)."""
        given = {k.casefold(): (k, v) for k, v in (headers or {}).items()}
        if isinstance(payload, Raw):
            body, kind = payload.body.encode(), payload.content_type
            given.update({k.casefold(): (k, v) for k, v in payload.headers.items()})
        else:
            body, kind = json.dumps(payload).encode(), self.json_type
        self.send_response_only(status)
        self.send_header("Server", self.version_string())
        if "date" not in given:
            self.send_header("Date", self.date_time_string())
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for k, v in given.values():
            if v is not None:
                self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def reply_fault(self, status: int, payload, retry_after: str = "Retry-After") -> None:
        """A fault's answer: status 0 drops the connection, a 429 asks to come back in a second
        (`retry_after`: the header's spelling)."""
        if status == 0:
            self.close_connection = True
            return
        self.reply(status, payload, {retry_after: "1"} if status == 429 else None)
