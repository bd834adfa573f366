"""`forumbot doctor`: check the settings against the real forum before a first run. One
line per check (`ok`, `FAIL`, `warn`, or `skip` when an earlier failure makes it moot);
the exit is non-zero if any check fails. Nothing is posted and no game is touched: the
database check writes in a transaction that it rolls back, and the bot lock is taken and
let go at once. The forum's own checks live in its adapter (adapters/reddit_checks.py)."""
from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass

from adapters import ADAPTERS

from .. import store
from ..botlock import BotLockHeld, acquire
from ..masking import masked, masked_text
from ..settings import SettingsError, forum_problems, load_settings, make_forum
from ..settings import shown as shorter
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
    """Run every check, print one line each; 1 if any failed, else 0."""
    out = out or sys.stdout
    failed = False
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
    if failed:
        print("Some checks failed: fix those settings and run `forumbot doctor` again.", file=out)
    return 1 if failed else 0


def checks(settings_path: str | None = None):
    """The checks, one at a time (a slow forum shows each line as it is done)."""
    try:
        s = load_settings(settings_path)
    except SettingsError as e:
        yield Check(FAIL, "settings", str(e))
        return
    where = s.path or "no settings file (the defaults)"
    yield Check(OK, "settings", f"{where}: forum = {s.forum}, database {masked(s.database_url)}")
    if s.path:
        yield from _file_mode(s.path)
    missing = forum_problems(s)
    adapter = ADAPTERS[s.forum]
    if missing:
        yield Check(FAIL, "settings", f"fill in [{s.forum}] {', '.join(missing)} "
                    f"(docs/operating.md, \"{adapter.guide}\")")

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
    try:
        forum = make_forum(s)
    except SettingsError as e:
        yield Check(FAIL, "local forum" if s.forum == "local" else "settings", str(e))
        return
    section = {"path": s.local_path, **s.section()} if s.forum == "local" else s.section()
    checks = adapter.doctor()
    if checks is None:
        yield Check(SKIP, s.forum, "this forum has no checks of its own")
        return
    for status, name, detail in checks(forum, section, threads):
        yield Check(status, name, detail)


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


def _database(s):
    url = s.database_url
    shown = masked(url)
    problem = database_problem(url)
    if problem:
        yield Check(FAIL, "database", problem)
        yield Check(SKIP, "bot lock", "not checked: the database cannot be used")
        return
    try:
        lock = acquire(url)
    except BotLockHeld as e:
        yield Check(FAIL, "bot lock", f"{e}; stop that bot first (if it is this server's "
                    "service, doctor is only telling you that it runs)")
        lock = None
    except Exception as e:
        yield Check(FAIL, "database", f"{shown}: {one_line(e)}")
        yield Check(SKIP, "bot lock", "not checked: the database cannot be reached")
        return
    else:
        yield Check(OK, "bot lock", "no other bot is working on this database")
    try:
        try:
            store.connect(url)
        except Exception as e:
            yield Check(FAIL, "database", f"{shown} does not open: {one_line(e)}")
            return
        try:
            with store.db.atomic() as tx:  # a write, taken back
                store.set_cursor("doctor#check", {"writable": True})
                tx.rollback()
        except Exception as e:
            yield Check(FAIL, "database", f"{shown} opens but cannot be written: {one_line(e)}")
            store.close()
            return
        games = store.Game.select().where(store.Game.status.in_(("running", "signup"))).count()
        yield Check(OK, "database", f"{shown} opens and is writable ({games} game"
                    f"{'' if games == 1 else 's'} running)")
    finally:
        if lock is not None:
            lock.release()


def _game_threads(s) -> list[str]:
    """The threads of the games that run on this forum (the adapter reads its own ids)."""
    try:
        return [g.thread for g in store.Game.select().where(
            store.Game.status.in_(("running", "signup")) & (store.Game.forum == s.forum)) if g.thread]
    except Exception:
        return []
