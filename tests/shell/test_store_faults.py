"""The store under trouble: write transactions that wait for the lock, errors that mean
"the database could not do it now" told apart from bugs, recovery after them, columns
added to an older database, and the database's secret."""
import hashlib
import hmac
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import peewee
import psycopg2
import psycopg2.errors
import pytest

from forumbot import db_trouble, markers, store
from tests.conftest import PG_URL

AT = datetime(2026, 11, 29, 21, 0, tzinfo=timezone.utc)
ROOT = Path(__file__).resolve().parents[2]
needs_pg = pytest.mark.skipif(not PG_URL, reason="FORUMBOT_TEST_DATABASE_URL is not set")


def hold_write_lock(path, seconds, write=True):
    """Another connection takes the write lock (BEGIN IMMEDIATE) for `seconds` in a thread;
    returns the thread once the lock is held."""
    held = threading.Event()

    def run():
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        if write:
            other.execute("INSERT INTO cursor (forum, name, value) VALUES ('other', 'n', '1')")
        held.set()
        time.sleep(seconds)
        other.execute("COMMIT")
        other.close()

    t = threading.Thread(target=run)
    t.start()
    assert held.wait(5)
    return t


def raised(fn):
    try:
        fn()
    except BaseException as e:  # noqa: B902 - the error is what is tested
        return e
    raise AssertionError("no error")


# -- 1. write transactions take the write lock at their start ----------------------------

def test_a_transaction_that_reads_then_writes_waits_for_another_writer(tmp_path):
    store.connect(f"sqlite:///{tmp_path}/bot.db")
    try:
        t = hold_write_lock(f"{tmp_path}/bot.db", 0.5)
        start = time.monotonic()
        with store.db.atomic():
            seen = store.Cursor.select().count()  # a read first ...
            store.Cursor.create(forum="local", name="x", value="1")  # ... then a write
        waited = time.monotonic() - start
        t.join()
        assert waited >= 0.4
        assert seen == 1  # the transaction began after the other one committed
        assert store.Cursor.select().count() == 2
    finally:
        store.close()


def test_nested_atomic_blocks_are_still_savepoints(tmp_path):
    store.connect(f"sqlite:///{tmp_path}/bot.db")
    try:
        with store.db.atomic():
            store.Cursor.create(forum="local", name="outer", value="1")
            with pytest.raises(ZeroDivisionError):
                with store.db.atomic():
                    store.Cursor.create(forum="local", name="inner", value="1")
                    1 / 0  # noqa: B018 - the error is the point
            with store.db.atomic():
                store.Cursor.create(forum="local", name="inner2", value="1")
        assert sorted(c.name for c in store.Cursor.select()) == ["inner2", "outer"]
    finally:
        store.close()


def test_sqlite_keeps_wal_foreign_keys_and_busy_timeout(tmp_path):
    database = store.connect(f"sqlite:///{tmp_path}/bot.db")
    try:
        def pragma(p):
            return database.execute_sql(f"PRAGMA {p}").fetchone()[0]
        assert pragma("journal_mode") == "wal"
        assert pragma("foreign_keys") == 1
        assert pragma("busy_timeout") == 5000
    finally:
        store.close()


# -- 2. database trouble told apart from bugs ------------------------------------------

def test_a_held_write_lock_is_db_trouble_and_recover_restores_the_connection(tmp_path):
    database = store.connect(f"sqlite:///{tmp_path}/bot.db")
    try:
        database.execute_sql("PRAGMA busy_timeout = 50")  # not the 5 s of a real bot
        t = hold_write_lock(f"{tmp_path}/bot.db", 0.5)

        def write():
            with store.db.atomic():
                store.Cursor.create(forum="local", name="x", value="1")
        e = raised(write)
        t.join()
        assert "database is locked" in str(e)
        assert db_trouble.is_db_trouble(e)
        assert db_trouble.recover() is True
        assert database.execute_sql("PRAGMA busy_timeout").fetchone()[0] == 5000  # a new connection
        write()
        assert store.Cursor.select().where(store.Cursor.forum == "local").count() == 1
    finally:
        store.close()


def test_the_raw_sqlite_lock_error_is_db_trouble(tmp_path):
    path = str(tmp_path / "x.db")
    a = sqlite3.connect(path, isolation_level=None)
    a.execute("CREATE TABLE t (x)")
    a.execute("BEGIN IMMEDIATE")
    b = sqlite3.connect(path, isolation_level=None, timeout=0.01)
    e = raised(lambda: b.execute("INSERT INTO t VALUES (1)"))
    a.execute("ROLLBACK")
    assert isinstance(e, sqlite3.OperationalError) and db_trouble.is_db_trouble(e)


def test_a_full_disk_is_db_trouble_and_recover_gets_going_again(tmp_path):
    database = store.connect(f"sqlite:///{tmp_path}/bot.db")
    try:
        pages = database.execute_sql("PRAGMA page_count").fetchone()[0]
        database.execute_sql(f"PRAGMA max_page_count = {pages}")  # the disk is full now

        def fill(n):
            with store.db.atomic():
                for i in range(n):
                    store.Cursor.create(forum="local", name=str(i), value="x" * 3000)
        e = raised(lambda: fill(100))
        assert db_trouble.is_db_trouble(e)
        chain, x = [], e
        while x is not None:
            chain.append(str(x))
            x = x.__context__
        assert any("full" in c for c in chain)
        assert db_trouble.recover() is True  # a new connection, without the limit
        fill(100)
        assert store.Cursor.select().count() == 100
    finally:
        store.close()


def test_bugs_are_not_db_trouble(tmp_path):
    database = store.connect(f"sqlite:///{tmp_path}/bot.db")
    try:
        store.Cursor.create(forum="local", name="x", value="1")
        bugs = [
            raised(lambda: store.Cursor.create(forum="local", name="x", value="2")),  # unique
            raised(lambda: database.execute_sql("SELECT * FROM no_such_table")),
            raised(lambda: database.execute_sql("SELEKT 1")),
            raised(lambda: database.execute_sql("SELECT ?", (object(),))),
            raised(lambda: {}["x"]),
            raised(lambda: None.x),
            ValueError("database is locked"),  # words alone do not make a database error
            peewee.InterfaceError("Error, database must be initialized before opening a "
                                  "connection."),
            peewee.OperationalError("Connection already opened."),
            peewee.ProgrammingError("syntax error at or near \"SELEKT\""),
        ]
        assert isinstance(bugs[0], peewee.IntegrityError)
        for bug in bugs:
            assert not db_trouble.is_db_trouble(bug), repr(bug)
    finally:
        store.close()


def test_a_bug_while_handling_db_trouble_is_a_bug():
    try:
        try:
            raise peewee.OperationalError("database is locked")
        except peewee.OperationalError:
            {}["x"]
    except KeyError as e:
        assert not db_trouble.is_db_trouble(e)


@pytest.mark.parametrize("exc", [
    peewee.OperationalError("database is locked"),
    peewee.OperationalError("database table is locked"),
    peewee.OperationalError("database or disk is full"),
    peewee.OperationalError("disk I/O error"),
    peewee.OperationalError(sqlite3.OperationalError("database is locked")),
    peewee.InterfaceError("connection already closed"),
    peewee.OperationalError("server closed the connection unexpectedly\n\tThis probably means..."),
    peewee.DatabaseError("could not receive data from server: Connection reset by peer"),
    sqlite3.OperationalError("database or disk is full"),
    psycopg2.OperationalError("server closed the connection unexpectedly"),
    psycopg2.InterfaceError("connection already closed"),
    psycopg2.errors.SerializationFailure("could not serialize access due to concurrent update"),
    psycopg2.errors.DeadlockDetected("deadlock detected"),
    peewee.OperationalError(psycopg2.OperationalError("could not connect to server")),
], ids=repr)
def test_what_is_db_trouble(exc):
    assert db_trouble.is_db_trouble(exc)


def test_an_error_raised_from_db_trouble_is_db_trouble():
    try:
        try:
            raise sqlite3.OperationalError("database is locked")
        except sqlite3.OperationalError as e:
            raise RuntimeError("could not record it") from e
    except RuntimeError as e:
        assert db_trouble.is_db_trouble(e)


def test_an_unreachable_postgresql_server_is_db_trouble_and_recover_does_not_raise():
    database = peewee.PostgresqlDatabase("test", host="127.0.0.1", port=1, user="postgres",
                                         connect_timeout=2)
    e = raised(database.connect)
    assert db_trouble.is_db_trouble(e)
    store.db.initialize(database)
    try:
        assert db_trouble.recover() is False
    finally:
        store.db.initialize(None)


@needs_pg
def test_a_terminated_postgresql_backend_is_db_trouble_and_recover_reconnects():
    database = store.connect(PG_URL)
    try:
        for inside_a_transaction in (False, True):
            pid = database.execute_sql("SELECT pg_backend_pid()").fetchone()[0]
            killer = psycopg2.connect(PG_URL)
            killer.autocommit = True
            killer.cursor().execute("SELECT pg_terminate_backend(%s)", (pid,))
            killer.close()
            time.sleep(0.2)

            def query(inside_a_transaction=inside_a_transaction):
                if inside_a_transaction:
                    with store.db.atomic():
                        store.Cursor.select().count()
                else:
                    store.Cursor.select().count()
            first = raised(query)
            assert db_trouble.is_db_trouble(first), repr(first)
            second = raised(query)  # the connection stays dead until recovered
            assert db_trouble.is_db_trouble(second), repr(second)
            assert db_trouble.recover() is True
            query()
            assert database.execute_sql("SELECT pg_backend_pid()").fetchone()[0] != pid
    finally:
        store.close()


@pytest.fixture
def pg_table():
    name = f"fb_fault_{uuid.uuid4().hex[:10]}"
    conn = psycopg2.connect(PG_URL)
    conn.autocommit = True
    conn.cursor().execute(f"CREATE TABLE {name} (id int primary key, n int)")
    conn.cursor().execute(f"INSERT INTO {name} VALUES (1, 0), (2, 0)")
    yield name, conn
    conn.cursor().execute(f"DROP TABLE IF EXISTS {name}")
    conn.close()


@needs_pg
def test_a_serialization_failure_is_db_trouble(pg_table):
    name, other = pg_table
    database = store.connect(PG_URL)
    try:
        def txn():
            with store.db.atomic(isolation_level="REPEATABLE READ"):
                database.execute_sql(f"SELECT n FROM {name} WHERE id = 1").fetchone()
                other.cursor().execute(f"UPDATE {name} SET n = n + 1 WHERE id = 1")
                database.execute_sql(f"UPDATE {name} SET n = n + 10 WHERE id = 1")
        e = raised(txn)
        code = getattr(e, "pgcode", None) or getattr(getattr(e, "orig", None), "pgcode", None)
        assert code == "40001", repr(e)
        assert db_trouble.is_db_trouble(e)
        assert db_trouble.recover() is True
        assert database.execute_sql(f"SELECT n FROM {name} WHERE id = 1").fetchone()[0] == 1
    finally:
        store.close()


@needs_pg
def test_a_deadlock_is_db_trouble(pg_table):
    name, _ = pg_table
    database = store.connect(PG_URL)
    other = psycopg2.connect(PG_URL)
    try:
        ready, errors = threading.Barrier(2), []

        def theirs():
            try:
                cur = other.cursor()  # psycopg2 opens a transaction by itself
                cur.execute(f"UPDATE {name} SET n = 1 WHERE id = 2")
                ready.wait()
                cur.execute(f"UPDATE {name} SET n = 1 WHERE id = 1")
                other.commit()
            except Exception as e:
                errors.append(e)
                other.rollback()

        def ours():
            with store.db.atomic():
                database.execute_sql(f"UPDATE {name} SET n = 2 WHERE id = 1")
                ready.wait()
                time.sleep(0.1)
                database.execute_sql(f"UPDATE {name} SET n = 2 WHERE id = 2")
        t = threading.Thread(target=theirs)
        t.start()
        try:
            ours()
        except Exception as e:
            errors.append(e)
        t.join()
        assert len(errors) == 1  # PostgreSQL broke the deadlock by failing one of the two
        e = errors[0]
        code = getattr(e, "pgcode", None) or getattr(getattr(e, "orig", None), "pgcode", None)
        assert code == "40P01", repr(e)
        assert db_trouble.is_db_trouble(errors[0])
    finally:
        other.close()
        db_trouble.recover()
        store.close()


# -- 3. columns an older database lacks are added --------------------------------------

class OldInbound(peewee.Model):
    """Inbound as it was before `tries`."""

    forum = peewee.CharField()
    ext_id = peewee.CharField()
    kind = peewee.CharField()
    author = peewee.CharField()
    subject = peewee.TextField(default="")
    body = peewee.TextField()
    thread = peewee.CharField(null=True)
    parent = peewee.CharField(null=True)
    created = peewee.DateTimeField()
    edited = peewee.BooleanField(default=False)
    state = peewee.CharField(default="new", index=True)
    game = peewee.IntegerField(null=True)
    commands = peewee.IntegerField(default=0)
    note = peewee.TextField(default="")

    class Meta:
        table_name = "inbound"
        indexes = ((("forum", "ext_id"), True),)


def test_an_old_database_gains_the_tries_column_and_its_rows_keep_working(any_db):
    sqlite = isinstance(any_db, peewee.SqliteDatabase)
    url = f"sqlite:///{any_db.database}" if sqlite else PG_URL
    any_db.drop_tables([store.Inbound])
    with OldInbound.bind_ctx(any_db):
        OldInbound.create_table()
        OldInbound.create(forum="local", ext_id="old1", kind="pm", author="alice", body="HELP",
                          created=store.naive(AT))
    assert "tries" not in {c.name for c in any_db.get_columns("inbound")}
    store.close()

    database = store.connect(url)
    assert "tries" in {c.name for c in database.get_columns("inbound")}
    old = store.Inbound.get(store.Inbound.ext_id == "old1")
    assert (old.author, old.body, old.tries) == ("alice", "HELP", 0)
    store.Inbound.update(tries=store.Inbound.tries + 1).where(store.Inbound.id == old.id).execute()
    assert store.Inbound.get_by_id(old.id).tries == 1
    store.Inbound.create(forum="local", ext_id="new1", kind="pm", author="bob", body="HELP",
                         created=store.naive(AT))
    database.execute_sql(  # a row written without `tries` gets the column's default
        "INSERT INTO inbound (forum, ext_id, kind, author, subject, body, created, edited, state, "
        "commands, note) VALUES ('local', 'raw1', 'pm', 'carol', '', 'x', '2026-11-29 21:00:00', "
        f"{0 if sqlite else 'false'}, 'new', 0, '')")
    assert [r.tries for r in store.Inbound.select().order_by(store.Inbound.id)] == [1, 0, 0]
    store.close()
    store.connect(url)  # once added, connecting again changes nothing
    assert store.Inbound.select().count() == 3


# -- 4. the database's secret --------------------------------------------------------------

def secret_in_another_process(url):
    code = ("import sys; from forumbot import markers, store; store.connect(sys.argv[1]); "
            "print(markers.secret())")
    r = subprocess.run([sys.executable, "-c", code, url], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_the_secret_is_made_once_per_database_and_kept(tmp_path):
    url = f"sqlite:///{tmp_path}/bot.db"
    store.connect(url)
    first, token = markers.secret(), markers.marker_token("G1:3:post")
    assert len(first) >= 32 and markers.secret() == first
    store.close()
    store.connect(url)
    assert markers.secret() == first and markers.marker_token("G1:3:post") == token
    assert secret_in_another_process(url) == first
    store.close()

    store.connect(f"sqlite:///{tmp_path}/other.db")
    try:
        assert markers.secret() != first
        assert markers.marker_token("G1:3:post") != token
    finally:
        store.close()


def test_a_marker_token_cannot_be_made_from_the_key_alone(tmp_path):
    store.connect(f"sqlite:///{tmp_path}/bot.db")
    try:
        key = "G1:3:post"
        token = markers.marker_token(key)
        assert len(token) == 16 and all(c in "0123456789abcdef" for c in token)
        assert len(markers.marker_token(key, 32)) == 32
        assert markers.marker_token(key, 64)[:12] == token[:12]  # (the last 4 digits are its check)
        assert token != markers.marker_token("G1:4:post")
        guesses = [hashlib.sha256(key.encode()).hexdigest(),
                   hmac.new(b"", key.encode(), hashlib.sha256).hexdigest(),
                   hmac.new(key.encode(), key.encode(), hashlib.sha256).hexdigest()]
        assert all(not g.startswith(token[:12]) for g in guesses)
        expected = hmac.new(markers.secret().encode(), key.encode(), hashlib.sha256).hexdigest()
        assert expected.startswith(token[:12])
        with pytest.raises(ValueError):
            markers.marker_token(key, 8)
    finally:
        store.close()


def test_the_secret_follows_the_database_not_the_process(tmp_path):
    """Connecting elsewhere invalidates the cached secret."""
    store.connect(f"sqlite:///{tmp_path}/a.db")
    a = markers.secret()
    store.connect(f"sqlite:///{tmp_path}/b.db")
    b = markers.secret()
    store.connect(f"sqlite:///{tmp_path}/a.db")
    try:
        assert a != b and markers.secret() == a
    finally:
        store.close()


@needs_pg
def test_the_secret_on_postgresql(any_db):
    if isinstance(any_db, peewee.SqliteDatabase):
        pytest.skip("PostgreSQL only")
    first = markers.secret()
    store.close()
    store.connect(PG_URL)
    assert markers.secret() == first
    assert secret_in_another_process(PG_URL) == first
    any_db.drop_tables(store.MODELS, cascade=True)  # a new database
    store.close()
    store.connect(PG_URL)
    assert markers.secret() != first
