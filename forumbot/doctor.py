"""`forumbot doctor`: check the settings against the real forum before a first run. One
line per check (`ok`, `FAIL`, `warn`, or `skip` when an earlier failure makes it moot);
the exit is non-zero if any check fails. Nothing is posted and no game is touched: the
database check writes in a transaction that it rolls back, and the bot lock is taken and
let go at once. The forum's own checks live in its adapter (adapters/reddit_checks.py)."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

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
                          f"{' '.join(str(e).split()) or 'no message'}")
            found = iter(())
        print(check.line(), file=out, flush=True)
        failed = failed or check.status == FAIL
    if failed:
        print("Some checks failed: fix those settings and run `forumbot doctor` again.", file=out)
    return 1 if failed else 0


def checks(settings_path: str | None = None):
    """The checks, one at a time (a slow forum shows each line as it is done)."""
    from .settings import SettingsError, forum_problems, load_settings

    try:
        s = load_settings(settings_path)
    except SettingsError as e:
        yield Check(FAIL, "settings", str(e))
        return
    where = s.path or "no settings file (the defaults)"
    yield Check(OK, "settings", f"{where}: forum = {s.forum}, database {s.database_url}")
    missing = forum_problems(s)
    if missing:
        guide = "Hosting on Discourse" if s.forum == "discourse" else "Deploying on a server"
        yield Check(FAIL, "settings", f"fill in [{s.forum}] {', '.join(missing)} (README, \"{guide}\")")
    agent = s.reddit.get("user_agent", "")
    if s.forum == "reddit" and (not agent or "yourname" in agent):
        yield Check(WARN, "user agent", "[reddit] user_agent should name the bot and you "
                    "(forumbot/1.0 by u/yourname): Reddit throttles generic ones")

    db_ok, subreddits = False, []
    for check in _database(s):
        db_ok = check.status == OK and check.name == "database"
        yield check
    if db_ok:
        subreddits = _game_subreddits(s)
        from . import store

        store.close()

    if s.forum == "local":
        yield _local_forum(s)
        return
    if missing:
        yield Check(SKIP, s.forum, "not checked: the settings above are missing")
        return
    if s.forum == "discourse":
        yield from _discourse(s)
        return
    yield from _reddit(s, subreddits)


def _discourse(s):
    from adapters.discourse import discourse_checks

    from .settings import SettingsError, make_forum

    try:
        forum = make_forum(s)
    except SettingsError as e:
        yield Check(FAIL, "settings", str(e))
        return
    categories = [x for x in [s.discourse.get("category")] if x]
    for status, name, detail in discourse_checks(forum, categories, username=s.discourse.get("api_username")):
        yield Check(status, name, detail)


# --- the database -----------------------------------------------------------------------------


def _database(s):
    from . import store
    from .botlock import BotLockHeld, acquire
    from .cli import _one_line, database_problem

    url = s.database_url
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
        yield Check(FAIL, "database", f"{url}: {_one_line(e)}")
        yield Check(SKIP, "bot lock", "not checked: the database cannot be reached")
        return
    else:
        yield Check(OK, "bot lock", "no other bot is working on this database")
    try:
        try:
            store.connect(url)
        except Exception as e:
            yield Check(FAIL, "database", f"{url} does not open: {_one_line(e)}")
            return
        try:
            with store.db.atomic() as tx:  # a write, taken back
                store.set_cursor("doctor#check", {"writable": True})
                tx.rollback()
        except Exception as e:
            yield Check(FAIL, "database", f"{url} opens but cannot be written: {_one_line(e)}")
            store.close()
            return
        games = store.Game.select().where(store.Game.status.in_(("running", "signup"))).count()
        yield Check(OK, "database", f"{url} opens and is writable ({games} game"
                    f"{'' if games == 1 else 's'} running)")
    finally:
        if lock is not None:
            lock.release()


def _game_subreddits(s) -> list[str]:
    """The subreddits of the games that run (each game thread is `subreddit:id` on Reddit)."""
    from . import store

    if s.forum != "reddit":
        return []
    subs = []
    try:
        for g in store.Game.select().where(store.Game.status.in_(("running", "signup"))):
            if g.forum == "reddit" and g.thread and ":" in g.thread:
                subs.append(g.thread.partition(":")[0])
    except Exception:
        return []
    return subs


# --- the forum --------------------------------------------------------------------------------


def _local_forum(s) -> Check:
    from adapters.local import LocalForum

    from .cli import _one_line

    folder = os.path.dirname(os.path.abspath(s.local_path))
    if not os.path.isdir(folder):
        return Check(FAIL, "local forum", f"the folder {folder} does not exist ([local] path)")
    try:
        forum = LocalForum(s.local_path, bot_name=s.bot_name)
        forum.db.execute("BEGIN IMMEDIATE")  # the bot will write there
        forum.db.execute("ROLLBACK")
        n = len(forum.threads())
    except Exception as e:
        return Check(FAIL, "local forum", f"{s.local_path}: {_one_line(e)}")
    return Check(OK, "local forum", f"{s.local_path} opens and is writable ({n} thread"
                 f"{'' if n == 1 else 's'}); the bot is {s.bot_name}")


def _reddit(s, game_subreddits: list[str]):
    from adapters.reddit_checks import reddit_checks

    from .settings import SettingsError, make_forum

    try:
        forum = make_forum(s)
    except SettingsError as e:
        yield Check(FAIL, "settings", str(e))
        return
    configured = [x for x in [s.reddit.get("subreddit")] if x]
    subs = list(dict.fromkeys(x.removeprefix("r/").removeprefix("/r/")
                              for x in configured + game_subreddits))
    if not subs:
        yield Check(WARN, "subreddit", "none configured: set [reddit] subreddit (where new game "
                    "threads go), or every config must name `subreddit:`")
    for status, name, detail in reddit_checks(forum, subs, username=s.reddit.get("username")):
        yield Check(status, name, detail)
