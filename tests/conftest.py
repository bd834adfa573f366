import os
from datetime import datetime, timezone

import pytest

from forumbot import store

PG_URL = os.environ.get("FORUMBOT_TEST_DATABASE_URL")


def _worker_database(url: str | None) -> str | None:
    """Under pytest-xdist (`-n 2`), each worker gets a PostgreSQL database of its own
    (`<db>_gw0`, made here if missing), so that workers never drop each other's tables."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not url or not worker:
        return url
    from urllib.parse import urlsplit, urlunsplit

    import psycopg2

    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'test'}_{worker}"
    conn = psycopg2.connect(url)
    try:
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
            if cur.fetchone() is None:
                cur.execute(f'CREATE DATABASE "{name}"')
    finally:
        conn.close()
    return urlunsplit(parts._replace(path="/" + name))


PG_URL = _worker_database(PG_URL)
if PG_URL:
    os.environ["FORUMBOT_TEST_DATABASE_URL"] = PG_URL  # (for the bots the tests start as processes)


def _reset(url: str):
    database = store.connect(url)
    if not url.startswith("sqlite"):
        database.drop_tables(store.MODELS, safe=True, cascade=True)
        database.create_tables(store.MODELS)
    return database


@pytest.fixture
def db(tmp_path):
    """The store on SQLite (a file, so WAL is real)."""
    database = _reset(f"sqlite:///{tmp_path}/bot.db")
    yield database
    store.close()


STORES = ["sqlite"] + (["postgres"] if PG_URL else [])


@pytest.fixture(params=STORES)
def any_db(request, tmp_path):
    """The store on SQLite, and on PostgreSQL when FORUMBOT_TEST_DATABASE_URL is set."""
    url = f"sqlite:///{tmp_path}/bot.db" if request.param == "sqlite" else PG_URL
    database = _reset(url)
    yield database
    store.close()


class Clock:
    def __init__(self, at=datetime(2026, 11, 29, 20, 0, tzinfo=timezone.utc)):
        self.at = at

    def __call__(self):
        return self.at

    def advance(self, **kw):
        from datetime import timedelta
        self.at += timedelta(**kw)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def fake_reddit(clock):
    from tests.fakes.reddit import FakeReddit

    fake = FakeReddit(clock=lambda: clock().timestamp()).start()
    yield fake
    fake.stop()


@pytest.fixture
def fake_discourse(clock):
    """The fake Discourse, with the site settings of the hosting guide."""
    from adapters.discourse_checks import RECOMMENDED_SITE_SETTINGS
    from tests.fakes.discourse import FakeDiscourse

    f = FakeDiscourse(clock=lambda: clock().timestamp()).start()
    f.site.update(RECOMMENDED_SITE_SETTINGS)  # the hosting guide's settings
    yield f
    f.stop()


def make_forum(kind, clock, fake=None, path=":memory:"):
    if kind == "local":
        from adapters.local import LocalForum
        from tests.fakes.table import LocalPeople

        forum = LocalForum(path, clock=clock)
        return forum, LocalPeople(forum)
    import praw

    from adapters.reddit import RedditForum
    from tests.fakes.table import RedditPeople

    return RedditForum(praw.Reddit(**fake.praw_kwargs())), RedditPeople(fake)


@pytest.fixture(params=["local", "reddit"])
def table(request, db, clock, tmp_path):
    """A factory for scripted tables, on the local forum and on the fake Reddit."""
    from tests.fakes.table import Table

    fakes = []

    def make(players=5, **kw):
        fake = None
        if request.param == "reddit":
            from tests.fakes.reddit import FakeReddit

            fake = FakeReddit(clock=lambda: clock().timestamp()).start()
            fakes.append(fake)
        forum, people = make_forum(request.param, clock, fake)
        from tests.fakes.table import NAMES
        t = Table(forum, people, clock, players=NAMES[:players])
        t.fake = fake
        return t.start(**kw)

    yield make
    for f in fakes:
        f.stop()


@pytest.fixture
def local_game(db, clock):
    """A factory: a resistance game started on the local forum, with `extra` config lines."""
    from adapters.local import LocalForum
    from tests.fakes.table import NAMES, LocalPeople, Table

    def make(n=5, extra=""):
        forum = LocalForum(":memory:", clock=clock)
        return Table(forum, LocalPeople(forum), clock, players=NAMES[:n]).start(extra=extra)
    return make


@pytest.fixture
def reddit_table(db, clock, fake_reddit):
    """A factory: a table on the fake Reddit (real praw); `start=False` leaves it unstarted."""
    import praw

    from adapters.reddit import RedditForum
    from forumbot.shell.moderator import Moderator
    from tests.fakes.table import NAMES, RedditPeople, Table

    def make(players=5, **kw):
        forum = RedditForum(praw.Reddit(**fake_reddit.praw_kwargs()))
        t = Table(forum, RedditPeople(fake_reddit), clock, players=NAMES[:players],
                  make_moderator=lambda: Moderator(forum, clock=clock))
        return t.start(**kw) if kw.get("start", True) else t
    return make


@pytest.fixture
def dtable(db, clock, fake_discourse):
    """A factory: a table on the fake Discourse; `start=False` leaves it unstarted."""
    from forumbot.shell.moderator import Moderator
    from tests.fakes.table import NAMES, DiscoursePeople, DiscourseTable, discourse_forum

    fake = fake_discourse

    def make(players=5, start=True, **kw):
        forum = discourse_forum(fake, monotonic=lambda: clock().timestamp())
        t = DiscourseTable(forum, DiscoursePeople(fake), clock, players=NAMES[:players],
                           make_moderator=lambda: Moderator(forum, clock=clock))
        t.fake = fake
        return t.start(**kw) if start else t
    return make
