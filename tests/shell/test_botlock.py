"""One bot per database: `run` and `run --once` take an exclusive lock (a lock file beside an
SQLite database, a PostgreSQL advisory lock) and a second bot refuses to start, naming the
first; a bot that was killed leaves no lock behind."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from forumbot import botlock, store
from forumbot.cli.main import main
from tests.conftest import PG_URL

ROOT = Path(__file__).resolve().parents[2]
URLS = ["sqlite"] + (["postgres"] if PG_URL else [])


@pytest.fixture(params=URLS)
def url(request, tmp_path):
    return f"sqlite:///{tmp_path}/bot.db" if request.param == "sqlite" else PG_URL


def settings_file(tmp_path, url):
    path = tmp_path / "settings.ini"
    path.write_text(f"[bot]\nforum = local\n\n[database]\nurl = {url}\n\n"
                    f"[local]\npath = {tmp_path}/forum.db\n")
    return str(path)


HOLDER = """
import sys, time
from forumbot import botlock
lock = botlock.acquire(sys.argv[1])
print("locked", flush=True)
time.sleep(120)
"""


@pytest.fixture
def holder():
    """Start another process that takes the bot lock of a URL and keeps it."""
    procs = []

    def start(url):
        p = subprocess.Popen([sys.executable, "-c", HOLDER, url], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        procs.append(p)
        line = p.stdout.readline()
        assert line.strip() == "locked", p.stderr.read()
        return p

    yield start
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()
        p.stdout.close()
        p.stderr.close()


def kill(p):
    p.send_signal(signal.SIGKILL)
    p.wait()


def acquire_soon(url, within=10.0):
    """The lock, once the server has noticed its holder is gone (at once for a file)."""
    deadline = time.monotonic() + within
    while True:
        try:
            return botlock.acquire(url)
        except botlock.BotLockHeld:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_a_second_bot_refuses_to_start_naming_the_first(url, tmp_path, holder, capsys):
    settings = settings_file(tmp_path, url)
    first = holder(url)
    capsys.readouterr()
    assert main(["run", "--once", "--settings", settings]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"run: another bot is working on this database (pid {first.pid} "
                             f"on {socket.gethostname()} since 20")
    assert err[0].endswith(" UTC)")
    assert main(["run", "--settings", settings]) == 3  # `run` as well as `run --once`
    assert "another bot is working on this database" in capsys.readouterr().err


def test_a_killed_bot_leaves_no_lock_behind(tmp_path, holder, capsys):
    url = f"sqlite:///{tmp_path}/bot.db"
    settings = settings_file(tmp_path, url)
    kill(holder(url))
    try:
        assert main(["run", "--once", "--settings", settings]) == 0
        assert "fetched" in capsys.readouterr().out
        assert main(["run", "--once", "--settings", settings]) == 0  # and run --once let go
    finally:
        store.close()


@pytest.mark.skipif(not PG_URL, reason="FORUMBOT_TEST_DATABASE_URL is not set")
def test_a_killed_bot_leaves_no_advisory_lock_behind(holder):
    p = holder(PG_URL)
    with pytest.raises(botlock.BotLockHeld):
        botlock.acquire(PG_URL)
    kill(p)
    acquire_soon(PG_URL).release()


def test_a_second_lock_in_the_same_process_is_refused_until_released(url):
    first = botlock.acquire(url)
    try:
        with pytest.raises(botlock.BotLockHeld) as e:
            botlock.acquire(url)
        assert e.value.holder["pid"] == os.getpid()
        assert e.value.holder["host"] == socket.gethostname()
        assert f"pid {os.getpid()} on {socket.gethostname()} since " in str(e.value)
        assert first.held()
    finally:
        first.release()
    assert not first.held()
    first.release()  # twice is harmless
    with botlock.acquire(url) as again:
        assert again.held()
    botlock.acquire(url).release()  # the `with` let go


def test_the_lock_file_sits_beside_the_database_and_names_its_holder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lock = botlock.acquire("sqlite:///bot.db")  # relative to the working directory
    try:
        info = json.loads((tmp_path / "bot.db.lock").read_text())
        assert info["pid"] == os.getpid() and info["host"] == socket.gethostname()
    finally:
        lock.release()
    assert (tmp_path / "bot.db.lock").read_text() == ""


def test_an_in_memory_database_needs_no_lock():
    a, b = botlock.acquire("sqlite:///:memory:"), botlock.acquire("sqlite:///:memory:")
    assert a.kind == b.kind == "none"
    a.release()
    b.release()


def test_run_holds_the_lock_while_it_runs_and_lets_go_after(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path}/bot.db"
    seen = []

    def fake_run_forever(mod, poll_interval):
        with pytest.raises(botlock.BotLockHeld):
            botlock.acquire(url)
        seen.append(poll_interval)
    monkeypatch.setattr("forumbot.shell.scheduler.run_forever", fake_run_forever)
    try:
        assert main(["run", "--settings", settings_file(tmp_path, url)]) == 0
    finally:
        store.close()
    assert seen == [30]
    botlock.acquire(url).release()


def test_an_unreachable_database_is_one_line(tmp_path, capsys):
    settings = settings_file(tmp_path, "postgresql://postgres@127.0.0.1:1/test?connect_timeout=2")
    assert main(["run", "--once", "--settings", settings]) == 1  # the database server failed: 1 (a missing folder below: 2)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("database: "), err
    missing = settings_file(tmp_path, f"sqlite:///{tmp_path}/no/such/dir/bot.db")
    assert main(["run", "--once", "--settings", missing]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("database: "), err


def _drop_lock_connection(lock):
    """What a restart of PostgreSQL (or a cut network) does to the lock's connection."""
    import psycopg2

    pid = lock.database.execute_sql("SELECT pg_backend_pid()").fetchone()[0]
    conn = psycopg2.connect(PG_URL)
    try:
        conn.autocommit = True
        conn.cursor().execute("SELECT pg_terminate_backend(%s)", (pid,))
    finally:
        conn.close()


@pytest.mark.skipif(not PG_URL, reason="FORUMBOT_TEST_DATABASE_URL is not set")
def test_a_lost_advisory_lock_is_noticed_and_taken_again():
    lock = botlock.acquire(PG_URL)
    keeper = botlock.Keeper(lock, PG_URL)
    try:
        assert keeper.check() == "ok"
        _drop_lock_connection(lock)
        assert not lock.held()
        assert keeper.check() == "ok"  # taken again, on a new connection
        assert keeper.lock is not lock and keeper.lock.held()
        with pytest.raises(botlock.BotLockHeld):
            botlock.acquire(PG_URL)  # and it keeps others out again
    finally:
        keeper.release()


@pytest.mark.skipif(not PG_URL, reason="FORUMBOT_TEST_DATABASE_URL is not set")
def test_a_bot_whose_lost_lock_another_took_must_stop(holder):
    lock = botlock.acquire(PG_URL)
    keeper = botlock.Keeper(lock, PG_URL)
    _drop_lock_connection(lock)
    p = holder(PG_URL)  # a second bot starts while the first one's lock is gone
    try:
        assert keeper.check() == "stop"
    finally:
        kill(p)
        keeper.release()


def test_a_lost_lock_that_cannot_be_taken_again_holds_the_cycles(url, monkeypatch):
    lock = botlock.acquire(url)
    keeper = botlock.Keeper(lock, url)
    try:
        monkeypatch.setattr(lock, "held", lambda: False)

        def unreachable(_url):
            raise OSError("could not connect to server: Connection refused")

        monkeypatch.setattr(botlock, "acquire", unreachable)
        assert keeper.check() == "wait"
    finally:
        lock.release()
