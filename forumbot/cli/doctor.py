"""`forumbot doctor`: check the settings against the real forum before a first run. One
line per check (`ok`, `FAIL`, `warn`, or `skip` when an earlier failure makes it moot);
the exit is 1 if any check fails, 2 if the settings cannot be read at all. doctor only
reads: nothing is posted, no game is touched, and no file or table is made. A database or a
local forum that is not there yet is named with the command that makes it (`forumbot run
--once`); the database is opened read-only, whether the bot could write it is read from the
file modes or the role's privileges, and the bot lock is only looked at (on PostgreSQL it is
taken and let go at once). The forum's own checks live in its adapter
(adapters/reddit_checks.py)."""
from __future__ import annotations

import fcntl
import json
import os
import stat
import sys
from dataclasses import dataclass

from adapters import ADAPTERS

from .. import store, store_read
from ..botlock import BotLockHeld, acquire, describe, sqlite_path
from ..masking import masked, masked_text
from ..rules.deadlines import format_duration
from ..settings import SettingsError, forum_problems, load_settings, make_forum
from ..settings import shown as shorter
from . import cadence
from .problems import database_problem, one_line

OK, FAIL, WARN, SKIP = "ok", "fail", "warn", "skip"
MARK = {OK: "ok  ", FAIL: "FAIL", WARN: "warn", SKIP: "skip"}


@dataclass(frozen=True)
class Check:
    status: str  # ok | fail | warn | skip
    name: str
    detail: str

    def line(self) -> str:
        return f"{MARK[self.status]}  {self.name}: {self.detail}"


def doctor(settings_path: str | None = None, out=None) -> int:
    """Run every check, print one line each; 1 if any failed, 2 if the settings cannot be
    read (as every command exits on them), else 0."""
    out = out or sys.stdout
    failed = unusable = False
    found = checks(settings_path)
    while True:
        try:
            check = next(found)
        except StopIteration:
            break
        except Exception as e:  # a check that broke is a failed check, in one line
            check = Check(FAIL, "doctor", f"a check stopped: {type(e).__name__}: "
                          f"{shorter(str(e), 300) or 'no message'}")
            found = iter(())
        print(masked_text(check.line()), file=out, flush=True)  # (the settings' secrets too)
        failed = failed or check.status == FAIL
        unusable = unusable or isinstance(check, Unreadable)
    if failed:
        print("Some checks failed: fix those settings and run `forumbot doctor` again.", file=out)
    return 2 if unusable else 1 if failed else 0


class Unreadable(Check):
    """The settings cannot be read at all: doctor exits 2, as every command does then."""


def checks(settings_path: str | None = None):
    """The checks, one at a time (a slow forum shows each line as it is done)."""
    try:
        s = load_settings(settings_path)
    except SettingsError as e:
        yield Unreadable(FAIL, "settings", str(e))
        return
    where = s.path or "no settings file (the defaults)"
    missing = forum_problems(s)
    adapter = ADAPTERS[s.forum]
    if missing:  # (one line for the file: what it lacks)
        yield Check(FAIL, "settings", f"{where}: fill in [{s.forum}] {', '.join(missing)} "
                    f"(docs/operating.md, \"{adapter.guide}\")")
    else:
        yield Check(OK, "settings", f"{where}: forum = {s.forum}, database {masked(s.database_url)}")
    if s.path:
        yield from _file_mode(s.path)
    yield from _cadence(s)

    db_ok, threads = False, []
    for check in _database(s):
        db_ok = check.status == OK and check.name == "database"
        yield check
    if db_ok:
        threads = _game_threads(s)
    store.close()

    if missing:
        yield Check(SKIP, s.forum, "not checked: the settings above are missing")
        return
    yield from _forum(s, adapter, threads)


def _forum(s, adapter, threads: list[str]):
    """The forum adapter's own checks (adapters/: each forum knows what to ask its site)."""
    if s.forum == "local":
        folder = os.path.dirname(os.path.abspath(s.local_path))
        if not os.path.isdir(folder):
            yield Check(FAIL, "local forum", f"the folder {folder} does not exist ([local] path)")
            return
        if not os.path.exists(s.local_path):  # (opening it would make it)
            if not os.access(folder, os.W_OK):
                yield Check(FAIL, "local forum", f"there is no local forum at {s.local_path}, and "
                            f"the folder {folder} is not writable for this user")
            else:
                yield Check(WARN, "local forum", f"there is no local forum at {s.local_path} yet: "
                            f"{MAKES_IT} (or any `forumbot local` command)")
            return
    try:  # (the local forum read-only: opening it as the bot does would make its tables)
        forum = adapter.load().to_read(s.local_path, s.bot_name) if s.forum == "local" else make_forum(s)
    except SettingsError as e:
        yield Check(FAIL, "settings", str(e))
        return
    except Exception as e:  # (sqlite3's: a file it cannot open)
        yield Check(FAIL, "local forum", f"{s.local_path} does not open: {one_line(e)}")
        return
    section = {"path": s.local_path, **s.section()} if s.forum == "local" else s.section()
    checks = adapter.doctor()
    if checks is None:
        yield Check(SKIP, s.forum, "this forum has no checks of its own")
        return
    try:
        for status, name, detail in checks(forum, section, threads):
            yield Check(status, name, detail)
    finally:
        if s.forum == "local":
            forum.db.close()


def _cadence(s):
    """A cron line or a systemd timer that runs `run --once` every so often, while
    poll_interval is left at its default and says otherwise: warn (forumbot/cli/cadence.py)."""
    try:
        found = cadence.installed(s.path)
    except Exception:  # (a system doctor cannot read: nothing to say)
        return
    for schedule in found:
        every = format_duration(schedule.seconds)
        if schedule.seconds == s.poll_interval:
            yield Check(OK, "poll_interval", f"{format_duration(s.poll_interval)}, the cadence of "
                        f"{schedule.where}")
        elif not cadence.written(s.path):
            yield Check(WARN, "poll_interval", f"left at its default {format_duration(s.poll_interval)}, "
                        f"but {schedule.where} runs `forumbot run --once` every {every}: set [bot] "
                        f"poll_interval = {every} (a pause of 10 poll intervals, at least 10m, counts as an outage)")


def _file_mode(path: str):
    """A settings file that other users may read gives its secrets away: warn."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if mode & (stat.S_IRGRP | stat.S_IROTH | stat.S_IWGRP | stat.S_IWOTH):
        yield Check(WARN, "settings file", f"{path} can be read by other users (mode {stat.S_IMODE(mode):04o}), "
                    f"and it holds the passwords: chmod 600 {path}")


# --- the database -----------------------------------------------------------------------------


MAKES_IT = "`forumbot run --once` makes it"  # (run and run --once make the tables)


def _database(s):
    """Whether the database opens and the bot could write it, and whether another bot holds
    its lock: read only (the module's docstring)."""
    url = s.database_url
    shown = masked(url)
    problem = database_problem(url)
    if problem:
        yield Check(FAIL, "database", problem)
        yield Check(SKIP, "bot lock", "not checked: the database cannot be used")
        return
    path = sqlite_path(url) if url.lower().startswith("sqlite") else None
    try:
        yield _lock(url, path)
    except Exception as e:
        yield Check(FAIL, "database", f"{shown}: {one_line(e)}")
        yield Check(SKIP, "bot lock", "not checked: the database cannot be reached")
        return
    if path is not None and not os.path.exists(path):
        folder = os.path.dirname(path)
        if not os.access(folder, os.W_OK):
            yield Check(FAIL, "database", f"there is no database at {path}, and the folder "
                        f"{folder} is not writable for this user, so the bot cannot make it")
        else:
            yield Check(WARN, "database", f"there is no database at {path} yet: {MAKES_IT} "
                        "(the bot's tables with it)")
        return
    try:  # (the caller closes it)
        missing = store_read.open_to_read(url, path)
    except Exception as e:
        yield Check(FAIL, "database", f"{shown} does not open: {one_line(e)}")
        return
    try:
        why = store_read.cannot_write(path)
    except Exception as e:
        why = one_line(e)
    if why:
        yield Check(FAIL, "database", f"{shown} opens but the bot could not write it: {why}")
        return
    if missing:
        yield Check(WARN, "database", f"{shown} opens, but the bot's tables are not there yet "
                    f"({', '.join(missing)}): {MAKES_IT}")
        return
    games = store.Game.select(store.Game.id).where(
        store.Game.status.in_(("running", "signup"))).count()
    yield Check(OK, "database", f"{shown} opens and is writable ({games} game"
                f"{'' if games == 1 else 's'} running)")


def _lock(url: str, path: str | None) -> Check:
    """The bot lock, looked at: on SQLite a shared flock on the lock file, only if the file is
    there (a bot makes it); on PostgreSQL the advisory lock, taken and let go at once."""
    if path is None and url.lower().startswith("sqlite"):
        return Check(OK, "bot lock", "an in-memory database has no other bot")
    if path is not None:
        try:
            fd = os.open(path + ".lock", os.O_RDONLY)
        except FileNotFoundError:
            return Check(OK, "bot lock", "no other bot is working on this database")
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                text = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
                try:
                    holder = json.loads(text)
                except ValueError:
                    holder = None
                held = describe(holder if isinstance(holder, dict) else {"host": text})
                return _held(f"another bot is working on this database ({held})")
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
        return Check(OK, "bot lock", "no other bot is working on this database")
    try:
        acquire(url).release()
    except BotLockHeld as e:
        return _held(str(e))
    return Check(OK, "bot lock", "no other bot is working on this database")


def _held(why: str) -> Check:
    return Check(FAIL, "bot lock", f"{why}; stop that bot first (if it is this server's "
                 "service, doctor is only telling you that it runs)")


def _game_threads(s) -> list[str]:
    """The threads of the games that run on this forum (the adapter reads its own ids)."""
    try:
        return [g.thread for g in store.Game.select(store.Game.thread).where(
            store.Game.status.in_(("running", "signup")) & (store.Game.forum == s.forum)) if g.thread]
    except Exception:
        return []
