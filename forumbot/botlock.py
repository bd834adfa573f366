"""One bot per database: `run` and `run --once` hold an exclusive lock on the database for
the bot's lifetime, and a second bot refuses to start, naming the first.

SQLite: `fcntl.flock` on a lock file beside the database (`<dbfile>.lock`), holding the
holder's pid, host and start time. The kernel drops the lock with the process, so a bot
that was SIGKILLed leaves no stale lock behind (the file stays; its lock does not).
PostgreSQL: a session advisory lock (`pg_try_advisory_lock`) on a connection of its own,
kept open while the bot runs; the holder is found in pg_locks/pg_stat_activity, and its
application_name (`forumbot pid N on HOST`) names the bot's process.
An in-memory SQLite database belongs to one process anyway: no lock.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import re
import socket
import time
from datetime import datetime, timezone

from playhouse.db_url import connect as db_connect
from playhouse.db_url import parse

from .masking import scrub

# The advisory lock's key: the same for every forumbot, a 64-bit number unlikely to be
# anyone else's (advisory locks are per database, so one key serves every database).
ADVISORY_KEY = int.from_bytes(hashlib.sha256(b"forumbot: one bot per database").digest()[:8],
                              "big", signed=True)
APP_NAME_RE = re.compile(r"^forumbot pid (\d+) on (\S+)")


class BotLockHeld(Exception):
    """Another bot works on this database. str() is one line naming it; `holder` has what is
    known of it (pid, host, since; on PostgreSQL also backend_pid, client_addr,
    application_name)."""

    def __init__(self, message: str, holder: dict | None = None):
        super().__init__(message)
        self.message = message
        self.holder = holder or {}


def _me() -> dict:
    return {"pid": os.getpid(), "host": socket.gethostname(),
            "since": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")}


def _when(at) -> str:
    if isinstance(at, datetime):
        if at.tzinfo is not None:
            at = at.astimezone(timezone.utc)
        return at.strftime("%Y-%m-%d %H:%M:%S UTC")
    return str(at)


def describe(holder: dict) -> str:
    """`pid 123 on host x since 2026-11-29 20:00:00 UTC` (what is known of it)."""
    parts = []
    if holder.get("pid") is not None:
        parts.append(f"pid {holder['pid']}")
    if holder.get("host"):
        parts.append(f"on {holder['host']}")
    if not parts and holder.get("backend_pid") is not None:  # not a forumbot's session
        parts.append(f"PostgreSQL session {holder['backend_pid']}")
        if holder.get("client_addr"):
            parts.append(f"from {holder['client_addr']}")
        if holder.get("application_name"):
            parts.append(f"({holder['application_name']})")
    if holder.get("since"):
        parts.append(f"since {_when(holder['since'])}")
    return " ".join(parts) or "unknown"


def _held(holder: dict) -> BotLockHeld:
    return BotLockHeld(f"another bot is working on this database ({describe(holder)})", holder)


class BotLock:
    """A held lock: release() (or leave the `with` block) to let another bot in."""

    kind = "none"

    def __init__(self):
        self.holder = _me()
        self.released = False

    def release(self) -> None:
        self.released = True

    def held(self) -> bool:
        """Whether the lock is still ours (a PostgreSQL one dies with its connection)."""
        return not self.released

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False


class FileLock(BotLock):
    """flock on `<dbfile>.lock`."""

    kind = "file"

    def __init__(self, path: str):
        super().__init__()
        self.path = path
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                os.close(fd)
                raise
            try:
                holder = self._read_holder(fd)
            finally:
                os.close(fd)
            raise _held(holder) from None
        self.fd = fd
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(self.holder) + "\n").encode(), 0)
        os.fsync(fd)

    @staticmethod
    def _read_holder(fd: int) -> dict:
        text = ""
        for _ in range(20):  # the holder may have its lock and not yet have written
            text = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
            if text:
                break
            time.sleep(0.05)
        try:
            holder = json.loads(text)
            if isinstance(holder, dict):
                return holder
        except ValueError:
            pass
        return {"host": text} if text else {}

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        try:
            os.ftruncate(self.fd, 0)  # the file stays: unlinking a flock file races
        finally:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)


class AdvisoryLock(BotLock):
    """pg_try_advisory_lock on a connection of the lock's own."""

    kind = "advisory"

    def __init__(self, url: str):

        super().__init__()
        name = f"forumbot pid {self.holder['pid']} on {self.holder['host']}"[:63]
        plain = re.sub(r"^([A-Za-z0-9]+)\+pool:", r"\1:", url)  # one connection, no pool
        self.database = db_connect(plain, application_name=name, keepalives=1,
                                   keepalives_idle=30, keepalives_interval=10,
                                   keepalives_count=3)
        self.database.connect()
        try:
            for _ in range(3):
                got = self.database.execute_sql("SELECT pg_try_advisory_lock(%s)",
                                                (ADVISORY_KEY,)).fetchone()[0]
                if got:
                    return
                holder = self._holder()
                if holder is not None:
                    raise _held(holder)
                time.sleep(0.1)  # the holder let go meanwhile: try again
            raise _held({})
        except BaseException:
            self.database.close()
            raise

    def _holder(self) -> dict | None:
        row = self.database.execute_sql(
            "SELECT a.pid, host(a.client_addr), a.backend_start, a.application_name "
            "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted "
            "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND l.classid::bigint = %s AND l.objid::bigint = %s AND l.objsubid = 1",
            ((ADVISORY_KEY >> 32) & 0xFFFFFFFF, ADVISORY_KEY & 0xFFFFFFFF)).fetchone()
        if row is None:
            return None
        backend_pid, addr, started, app = row
        holder = {"backend_pid": backend_pid, "client_addr": addr, "application_name": app,
                  "since": _when(started) if started else None}
        m = APP_NAME_RE.match(app or "")
        if m:
            holder["pid"], holder["host"] = int(m.group(1)), m.group(2)
        return holder

    def held(self) -> bool:
        if self.released:
            return False
        try:
            return bool(self.database.execute_sql(
                "SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() "
                "AND locktype = 'advisory' AND granted AND objsubid = 1 "
                "AND classid::bigint = %s AND objid::bigint = %s",
                ((ADVISORY_KEY >> 32) & 0xFFFFFFFF, ADVISORY_KEY & 0xFFFFFFFF)).fetchone()[0])
        except Exception:
            return False

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        try:
            self.database.execute_sql("SELECT pg_advisory_unlock(%s)", (ADVISORY_KEY,))
        except Exception:
            pass  # the connection is gone, and the lock with it
        finally:
            try:
                self.database.close()
            except Exception:
                pass


def sqlite_path(url: str) -> str | None:
    """The file of an SQLite URL; None for an in-memory database."""

    name = parse(url)["database"] or ""
    if name in ("", ":memory:") or name.startswith("file::memory:") or "mode=memory" in name:
        return None
    if name.startswith("file:"):
        name = name[5:].partition("?")[0]
    return os.path.abspath(name)


def acquire(url: str) -> BotLock:
    """Take the bot lock of the database at `url`, or raise BotLockHeld naming the bot that
    has it. Use as a context manager, or call release()."""
    scheme = url.partition(":")[0].lower()
    if scheme.startswith("sqlite"):
        path = sqlite_path(url)
        return BotLock() if path is None else FileLock(path + ".lock")
    if scheme.startswith(("postgres", "psycopg")):
        try:
            return AdvisoryLock(url)
        except Exception as e:  # a driver may quote the URL: no password in its text

            scrub(e)
            raise
    raise ValueError(f"cannot take the bot lock on a {scheme} database")


class Keeper:
    """Keeps the bot lock while `run` runs. A PostgreSQL lock lives on its connection, and
    dies with it (a restart of the server, a cut network, an idle timeout): before each
    cycle `check()` makes sure the lock is still ours, and takes it again if it was lost.

    - "ok": the lock is ours (again); run the cycle;
    - "wait": it was lost and cannot be taken now (the database is unreachable): no cycle
      until it can, since another bot may be starting;
    - "stop": another bot took the database meanwhile: this one must stop."""

    def __init__(self, lock: BotLock, url: str):
        self.lock, self.url = lock, url

    def check(self) -> str:

        log = logging.getLogger("forumbot")
        if self.lock.held():
            return "ok"
        try:
            self.lock = self._again()
        except BotLockHeld as e:
            if e.holder.get("pid") == os.getpid():  # our own old session, still going away
                log.error("the bot lock was lost, and the old session still holds it: no cycle until it is gone")
                return "wait"
            log.error("the bot lock was lost, and %s: this bot stops", e)
            return "stop"
        except Exception as e:
            log.error("the bot lock was lost and cannot be taken again (%s): no cycle until it can",
                      " ".join(str(e).split()) or type(e).__name__)
            return "wait"
        log.warning("the bot lock was lost (its connection to the database dropped); it is taken again")
        return "ok"

    def _again(self, within: float = 3.0) -> BotLock:
        """The lock taken again; a session of ours that was cut may hold it a moment more."""
        deadline = time.monotonic() + within
        while True:
            try:
                return acquire(self.url)
            except BotLockHeld as e:
                if e.holder.get("pid") != os.getpid() or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def release(self) -> None:
        self.lock.release()
