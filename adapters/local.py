"""An embedded forum in SQLite: threads, comments and PMs. It serves the demo, the tests,
and trials without a forum account. People act on it with `comment` and `send_pm`."""
from __future__ import annotations

import os
import re
import sqlite3
import threading
from datetime import datetime, timezone
from typing import Callable, Sequence
from urllib.parse import quote

from .base import Fetched, ForumBase, Inbound, Markup, Outgoing, PermanentError, Posted, Traits

SCHEMA = """
CREATE TABLE IF NOT EXISTS threads (id INTEGER PRIMARY KEY, title TEXT, body TEXT, author TEXT,
    place TEXT, created TEXT, key TEXT, locked INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS comments (id INTEGER PRIMARY KEY, thread INTEGER, author TEXT,
    body TEXT, created TEXT, edited INTEGER DEFAULT 0, reply_to INTEGER, key TEXT);
CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, sender TEXT, recipient TEXT,
    subject TEXT, body TEXT, created TEXT, read INTEGER DEFAULT 0, parent INTEGER,
    key TEXT);
"""


TABLES = ("threads", "comments", "messages")


def _text(s: str | None) -> str | None:
    """`s` as SQLite can keep it: a lone surrogate (what Python makes of bytes that are no
    UTF-8, say in a command line's argument) becomes U+FFFD, as a UTF-8 reader shows it."""
    if s is None or s.isascii():
        return s
    return _SURROGATE.sub("\ufffd", s)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _now() -> datetime:
    return datetime.now(timezone.utc)


class LocalForum(ForumBase):
    markup = Markup.MARKDOWN
    traits = Traits(place_key="subreddit", mention_prefix="@",  # its own mention, as on Discourse
                    max_body=10000, max_title=300, max_subject=100)

    def __init__(self, path: str = ":memory:", bot_name: str = "forumbot",
                 clock: Callable[[], datetime] = _now, name: str = "local"):
        self.name = name
        self.bot_name = bot_name
        self.clock = clock
        self._lock = threading.Lock()
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        if path != ":memory:":
            self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)

    @classmethod
    def from_settings(cls, s: dict[str, str], **kw) -> "LocalForum":
        return cls(s.get("path") or "forumbot-local.db", bot_name=s.get("bot_name") or "forumbot", **kw)

    @classmethod
    def to_read(cls, path: str, bot_name: str = "forumbot") -> "LocalForum":
        """The forum in the file at `path` (which the caller has seen exists), opened read-only
        (`forumbot doctor`): no table is made, the journal mode is left as it is, and when the
        file has no -wal beside it (no bot has it open) no -wal or -shm is made either.
        `tables_missing()` says whether the file is a local forum at all."""
        forum = cls.__new__(cls)
        forum.name, forum.bot_name, forum.clock = "local", bot_name, _now
        forum._lock = threading.Lock()
        quiet = "" if os.path.exists(path + "-wal") else "&immutable=1"
        forum.db = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro{quiet}", uri=True,
                                   check_same_thread=False, isolation_level=None)
        forum.db.row_factory = sqlite3.Row
        return forum

    def tables_missing(self) -> list[str]:
        """The local forum's tables this file lacks (all of them: another database, or an empty
        file); raises sqlite3.DatabaseError if it is not an SQLite file."""
        have = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return [t for t in TABLES if t not in have]

    # --- what people do ------------------------------------------------------------

    def _stamp(self) -> str:
        return self.clock().astimezone(timezone.utc).isoformat()

    def create_thread(self, author: str, title: str, body: str, place: str = "games",
                      key: str | None = None) -> str:
        with self._lock:
            cur = self.db.execute(
                "INSERT INTO threads (title, body, author, place, created, key) VALUES (?,?,?,?,?,?)",
                (_text(title), _text(body), _text(author), place, self._stamp(), key))
        return f"t{cur.lastrowid}"

    def comment(self, author: str, thread: str, body: str, reply_to: str | None = None,
                key: str | None = None) -> str:
        tid = _num(thread)
        with self._lock:
            row = self.db.execute("SELECT locked FROM threads WHERE id=?", (tid,)).fetchone()
            if row is None:
                raise PermanentError(f"no thread {thread}")
            if row["locked"]:
                raise PermanentError(f"thread {thread} is locked")
            cur = self.db.execute(
                "INSERT INTO comments (thread, author, body, created, reply_to, key) VALUES (?,?,?,?,?,?)",
                (tid, _text(author), _text(body), self._stamp(), _num(reply_to) if reply_to else None, key))
        return f"c{cur.lastrowid}"

    def edit_comment(self, comment: str, body: str) -> None:
        with self._lock:
            self.db.execute("UPDATE comments SET body=?, edited=1 WHERE id=?", (_text(body), _num(comment)))

    def send_pm(self, sender: str, to: str, subject: str, body: str,
                parent: str | None = None, key: str | None = None) -> str:
        with self._lock:
            cur = self.db.execute(
                "INSERT INTO messages (sender, recipient, subject, body, created, parent, key) "
                "VALUES (?,?,?,?,?,?,?)",
                (_text(sender), _text(to), _text(subject), _text(body), self._stamp(),
                 _num(parent) if parent else None, key))
        return f"m{cur.lastrowid}"

    # --- reading it, as people and tests do -----------------------------------------

    def threads(self) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM threads ORDER BY id").fetchall()

    def thread_comments(self, thread: str) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM comments WHERE thread=? ORDER BY id",
                               (_num(thread),)).fetchall()

    def messages_to(self, user: str, unread_only: bool = False) -> list[sqlite3.Row]:
        q = "SELECT * FROM messages WHERE lower(recipient)=lower(?)"
        if unread_only:
            q += " AND read=0"
        return self.db.execute(q + " ORDER BY id", (user,)).fetchall()

    def mark_user_read(self, user: str, ids: Sequence[int]) -> None:
        with self._lock:
            self.db.executemany("UPDATE messages SET read=1 WHERE id=? AND lower(recipient)=lower(?)",
                                [(i, user) for i in ids])

    def keys_posted(self) -> list[str]:
        """The outbox key of every post and PM the bot made (a key twice = a duplicate)."""
        keys = []
        for table in ("threads", "comments", "messages"):
            keys += [r[0] for r in self.db.execute(f"SELECT key FROM {table} WHERE key IS NOT NULL")]
        return keys

    def find_thread(self, ref: str) -> str | None:
        """A thread as a person names it: `t1`, `1`, `local:t1`, or a game tag (`G1`) in its
        title or in the bot's opening comment of an existing thread."""
        ref = str(ref).strip()
        if m := re.fullmatch(r"(?:local:)?t?(\d+)", ref, re.I):
            row = self.db.execute("SELECT id FROM threads WHERE id=?", (int(m.group(1)),)).fetchone()
            return f"t{row['id']}" if row else None
        if re.fullmatch(r"[Gg]\d+", ref):
            mark = f"({ref.upper()})"
            for t in self.threads():
                if (t["title"] or "").rstrip().endswith(mark):
                    return f"t{t['id']}"
            row = self.db.execute("SELECT thread FROM comments WHERE lower(author)=lower(?) AND "
                                  "instr(body, ?) > 0 ORDER BY id", (self.bot_name, mark)).fetchone()
            return f"t{row['thread']}" if row else None
        return None

    def thread_row(self, thread: str) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM threads WHERE id=?", (_num(thread),)).fetchone()

    def lock_thread(self, thread: str) -> None:
        self.db.execute("UPDATE threads SET locked=1 WHERE id=?", (_num(thread),))

    # --- the Forum protocol, for the bot --------------------------------------------

    def fetch(self, threads: Sequence[str], cursor: dict) -> Fetched:
        last = int(cursor.get("comment", 0))
        out: list[Inbound] = []
        ids = [_num(t) for t in threads]
        if ids:
            marks = ",".join("?" * len(ids))
            rows = self.db.execute(
                f"SELECT * FROM comments WHERE id>? AND thread IN ({marks}) ORDER BY id",
                (last, *ids)).fetchall()
            for r in rows:
                last = max(last, r["id"])
                if r["author"].lower() == self.bot_name.lower():
                    continue
                out.append(Inbound(id=f"c{r['id']}", kind="comment", author=r["author"],
                                   body=r["body"], created=_parse(r["created"]),
                                   thread=f"t{r['thread']}", edited=bool(r["edited"])))
        for r in self.messages_to(self.bot_name, unread_only=True):
            out.append(Inbound(id=f"m{r['id']}", kind="pm", author=r["sender"], body=r["body"],
                               created=_parse(r["created"]), subject=r["subject"] or "",
                               parent=f"m{r['parent']}" if r["parent"] else None))
        return Fetched(out, {"comment": last})

    def mark_read(self, ids: Sequence[str]) -> None:
        self.mark_user_read(self.bot_name, [int(i[1:]) for i in ids if i.startswith("m")])

    def post(self, out: Outgoing) -> Posted:
        if out.kind == "thread":
            tid = self.create_thread(self.bot_name, out.title, out.body, out.where or "games", out.key)
            return Posted(tid, f"local:{tid}")
        if out.kind == "comment":
            cid = self.comment(self.bot_name, out.thread or "", out.body, out.reply_to, out.key)
            return Posted(cid, f"local:{out.thread}/{cid}")
        if out.kind == "pm":
            return Posted(self.send_pm(self.bot_name, out.to or "", out.subject, out.body, key=out.key))
        if out.kind == "edit":  # the bot's own post `out.thread` (a thread or a comment) gets a new body
            post = out.thread or ""
            table = "threads" if post.startswith("t") else "comments"
            with self._lock:
                cur = self.db.execute(f"UPDATE {table} SET body=? WHERE id=? AND author=?",
                                      (_text(out.body), _num(post), self.bot_name))
            if cur.rowcount == 0:
                raise PermanentError(f"no post {post} of the bot to edit")
            return Posted(post)
        raise PermanentError(f"unknown outbox kind {out.kind}")

    def find_posted(self, out: Outgoing) -> Posted | None:
        table, prefix = {"thread": ("threads", "t"), "comment": ("comments", "c"),
                         "pm": ("messages", "m")}[out.kind]
        row = self.db.execute(f"SELECT * FROM {table} WHERE key=? ORDER BY id", (out.key,)).fetchone()
        if row is None:
            return None
        ref = f"{prefix}{row['id']}"
        if out.kind == "thread":
            return Posted(ref, f"local:{ref}")  # as post() answers
        if out.kind == "comment":
            return Posted(ref, f"local:t{row['thread']}/{ref}")
        return Posted(ref)

    def recheck(self, ids: Sequence[str]) -> list[Inbound]:
        nums = [_num(i) for i in ids if i.startswith("c")]
        if not nums:
            return []
        marks = ",".join("?" * len(nums))
        rows = self.db.execute(f"SELECT * FROM comments WHERE id IN ({marks})", nums).fetchall()
        return [Inbound(id=f"c{r['id']}", kind="comment", author=r["author"], body=r["body"],
                        created=_parse(r["created"]), thread=f"t{r['thread']}", edited=bool(r["edited"]))
                for r in rows if r["body"] != "[deleted]"]

    def thread_id(self, ref: str) -> str | None:
        m = re.search(r"\bt(\d+)\s*$", str(ref).strip())
        if not m:
            return None
        row = self.db.execute("SELECT id FROM threads WHERE id=?", (int(m.group(1)),)).fetchone()
        return f"t{row['id']}" if row else None


def _num(ref: str | None) -> int | None:
    return int(str(ref)[1:]) if ref else None


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp).astimezone(timezone.utc)


def local_checks(forum: LocalForum, section: dict[str, str], game_threads: list[str]):
    """`forumbot doctor` on the local forum (opened with LocalForum.to_read): it is a local
    forum, and the bot could write there (read from the modes of the file and its folder: WAL
    writes beside the file). Nothing is written."""
    path = section.get("path", "")
    try:
        missing = forum.tables_missing()
        n = 0 if missing else len(forum.threads())
    except Exception as e:
        why = (str(e).strip().splitlines() or [type(e).__name__])[0]
        yield ("fail", "local forum", f"{path} does not open as a local forum: {why} ([local] path "
               "names another file? a new name makes a new forum: `forumbot run --once` makes it)")
        return
    others = {r[0] for r in forum.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if missing and others - set(TABLES):  # another program's database, not a forum
        yield ("fail", "local forum", f"{path} is another database, not a local forum (it has no "
               f"{', '.join(missing)} table): point [local] path at a new file; `forumbot run "
               "--once` makes it")
        return
    for where in (path, os.path.dirname(os.path.abspath(path))):
        if not os.access(where, os.W_OK):
            yield ("fail", "local forum", f"{path} opens, but {where} is not writable for this user")
            return
    if missing:  # (an empty file: the forum's tables are made with it)
        yield ("warn", "local forum", f"{path} is empty: `forumbot run --once` makes the local forum in it")
        return
    yield ("ok", "local forum", f"{path} opens and is writable ({n} thread"
           f"{'' if n == 1 else 's'}); the bot is {forum.bot_name}")
