import os
import zlib

import pytest

from forumbot import store
from tests.fakes.clock import Clock

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


def pytest_generate_tests(metafunc):
    """A test that takes `table` runs once on each forum (tests/fakes/bots.py: FORUMS), or on
    those its `forums` mark names. `make test` runs it on one of them, the same one
    every run (picked by the test's name, so the tests spread over the forums), and `make
    test-long` on each of the others: every forum meets every such test, and the quick run
    does not grow with each forum added."""
    if "table" in metafunc.fixturenames and not hasattr(metafunc.module, "table"):  # (not its own)
        from tests.fakes.bots import FORUMS

        mark = metafunc.definition.get_closest_marker("forums")
        forums = list(mark.args) if mark else list(FORUMS)
        quick = zlib.crc32(metafunc.definition.nodeid.encode()) % len(forums)
        metafunc.parametrize("table", [f if i == quick else pytest.param(f, marks=pytest.mark.long)
                                       for i, f in enumerate(forums)], indirect=True)


@pytest.fixture
def bot(clock):
    """A factory: bot(kind="local"|"reddit"|"discourse", **kw) is the bot on that forum at
    the test's clock (tests/fakes/bots.py: make_bot); its fake server stops after the test.
    (The store is the test's: `db` or `any_db`.)"""
    from tests.fakes.bots import make_bot

    made = []

    def make(kind="local", **kw):
        kw.setdefault("clock", clock)
        made.append(make_bot(kind, **kw))
        return made[-1]

    yield make
    for b in made:
        b.stop()


@pytest.fixture
def table(request, db, bot):
    """A factory for scripted tables: table(players=5, **config) is a game started on the
    forum of the test's parameter, a fresh bot and forum for each table."""
    def make(players=5, **kw):
        return bot(request.param).table(players, **kw)
    return make


@pytest.fixture
def local_game(db, bot):
    """A factory: a resistance game started on the local forum, with `extra` config lines."""
    def make(n=5, extra=""):
        return bot("local").table(n, extra=extra)
    return make


@pytest.fixture
def reddit_table(db, bot, fake_reddit):
    """A factory: a table on the test's fake Reddit (real praw); `start=False` leaves it
    unstarted."""
    def make(players=5, start=True, **kw):
        return bot("reddit", fake=fake_reddit).table(players, start=start, **kw)
    return make


@pytest.fixture
def dtable(db, bot, fake_discourse):
    """A factory: a table on the test's fake Discourse; `start=False` leaves it unstarted."""
    def make(players=5, start=True, **kw):
        return bot("discourse", fake=fake_discourse).table(players, start=start, **kw)
    return make
