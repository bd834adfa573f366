"""`forumbot doctor` only reads (issue 25, item 6): in an empty folder it makes no database,
no local forum and no lock file, and names the command that makes them; an existing SQLite
database is opened read-only (no -wal or -shm file left beside it); a PostgreSQL database
gets none of the bot's tables; and each settings file has one `settings` line."""
from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from forumbot import store
from forumbot.cli.main import main

PG_URL = os.environ.get("FORUMBOT_TEST_DATABASE_URL")


@pytest.fixture(autouse=True)
def _in(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORUMBOT_SETTINGS", raising=False)
    yield
    store.close()


def doctor(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["doctor", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return code, out.out.splitlines()


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_doctor_in_an_empty_folder_makes_no_file(tmp_path, capsys):
    code, lines = doctor(capsys)
    assert files(tmp_path) == []
    assert code == 0, lines
    database = next(line for line in lines if "  database:" in line)
    forum = next(line for line in lines if "  local forum:" in line)
    assert database.startswith("warn") and "no database at" in database
    assert "`forumbot run --once` makes it" in database
    assert forum.startswith("warn") and "`forumbot run --once` makes it" in forum
    assert main(["run", "--once"]) == 0  # the command it names does make them
    capsys.readouterr()
    assert {"forumbot.db", "forumbot-local.db"} <= set(files(tmp_path))


def test_doctor_with_a_settings_file_in_an_empty_folder_makes_no_file(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    settings = tmp_path / "s.ini"
    settings.write_text(f"[bot]\nforum = local\n[database]\nurl = sqlite:///{data}/bot.db\n"
                        f"[local]\npath = {data}/forum.db\n")
    settings.chmod(0o600)
    code, lines = doctor(capsys, "--settings", str(settings))
    assert code == 0, lines
    assert files(data) == []


def test_doctor_opens_an_existing_database_read_only(tmp_path, capsys):
    store.connect("sqlite:///forumbot.db")  # a bot ran here, and stopped
    store.close()
    assert files(tmp_path) == ["forumbot.db"]
    code, lines = doctor(capsys)
    assert any(line.startswith("ok") and "  database:" in line and "opens and is writable" in line
               for line in lines), lines
    assert code == 0, lines
    assert files(tmp_path) == ["forumbot.db"]  # no -wal, -shm or lock file made by doctor


def test_a_database_without_the_bots_tables_is_named_not_made(tmp_path, capsys):
    import sqlite3

    sqlite3.connect(tmp_path / "forumbot.db").close()  # an empty file: no tables
    code, lines = doctor(capsys)
    database = next(line for line in lines if "  database:" in line)
    assert database.startswith("warn") and "tables are not there yet" in database, lines
    with sqlite3.connect(tmp_path / "forumbot.db") as db:
        assert db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0


def test_one_settings_line_per_file(tmp_path, capsys):
    example = Path(__file__).resolve().parents[2] / "settings.example.ini"
    text = example.read_text().replace("url = sqlite:///forumbot.db", f"url = sqlite:///{tmp_path}/bot.db")
    (tmp_path / "s.ini").write_text(text)
    code, lines = doctor(capsys, "--settings", str(tmp_path / "s.ini"))
    assert code == 1
    said = [line for line in lines if "  settings:" in line]
    assert len(said) == 1 and said[0].startswith("FAIL") and "fill in [reddit] client_id" in said[0], lines


def test_settings_that_cannot_be_read_exit_2(tmp_path, capsys):
    (tmp_path / "s.ini").write_text("forum = local\n")  # no section header
    code, lines = doctor(capsys, "--settings", str(tmp_path / "s.ini"))
    assert code == 2 and lines[0].startswith("FAIL  settings:"), lines


@pytest.mark.skipif(not PG_URL, reason="FORUMBOT_TEST_DATABASE_URL is not set")
def test_doctor_makes_no_table_in_postgresql(tmp_path, capsys):
    from urllib.parse import urlsplit, urlunsplit

    import psycopg2

    parts = urlsplit(PG_URL)
    name = f"forumbot_doctor_{uuid.uuid4().hex[:8]}"
    admin = psycopg2.connect(PG_URL)
    admin.autocommit = True
    with admin.cursor() as cur:
        cur.execute(f'CREATE DATABASE "{name}"')
    url = urlunsplit(parts._replace(path="/" + name))
    try:
        (tmp_path / "s.ini").write_text(f"[bot]\nforum = local\n[database]\nurl = {url}\n")
        (tmp_path / "s.ini").chmod(0o600)
        code, lines = doctor(capsys, "--settings", str(tmp_path / "s.ini"))
        store.close()
        database = next(line for line in lines if "  database:" in line)
        assert code == 0 and database.startswith("warn") and "tables are not there yet" in database, lines
        assert "`forumbot run --once` makes it" in database
        with psycopg2.connect(url) as conn, conn.cursor() as cur:
            cur.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()")
            assert cur.fetchone()[0] == 0
        conn.close()
    finally:
        with admin.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


# --- the local forum: opened read-only, never made or changed by doctor ----------------------------


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


def forum_line(capsys, tmp_path: Path) -> tuple[int, str]:
    data = tmp_path / "data"
    settings = tmp_path / "s.ini"
    settings.write_text(f"[bot]\nforum = local\n[database]\nurl = sqlite:///{tmp_path}/bot.db\n"
                        f"[local]\npath = {data}/forum.db\n")
    settings.chmod(0o600)
    code, lines = doctor(capsys, "--settings", str(settings))
    return code, next(line for line in lines if "  local forum:" in line)


def test_doctor_leaves_an_existing_local_forum_as_it_was(tmp_path, capsys):
    from adapters.local import LocalForum

    (tmp_path / "data").mkdir()
    forum = LocalForum(str(tmp_path / "data" / "forum.db"))
    forum.create_thread("alice", "A game", "Who plays?")
    forum.db.close()
    before = snapshot(tmp_path / "data")
    assert list(before) == ["forum.db"]
    code, line = forum_line(capsys, tmp_path)
    assert code == 0 and line.startswith("ok") and "opens and is writable (1 thread)" in line, line
    assert snapshot(tmp_path / "data") == before  # the same bytes and mtime; no -wal, -shm made


def test_another_database_is_named_not_made_a_forum(tmp_path, capsys):
    import sqlite3

    (tmp_path / "data").mkdir()
    with sqlite3.connect(tmp_path / "data" / "forum.db") as other:
        other.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    other.close()
    before = snapshot(tmp_path / "data")
    code, line = forum_line(capsys, tmp_path)
    assert code == 1 and line.startswith("FAIL") and "is another database, not a local forum" in line, line
    assert "`forumbot run --once` makes it" in line
    assert snapshot(tmp_path / "data") == before


@pytest.mark.parametrize("content, status, words", [
    (b"", "warn", "is empty: `forumbot run --once` makes the local forum in it"),
    (b"these are my notes, not a database\n" * 50, "FAIL", "does not open as a local forum"),
])
def test_an_empty_or_foreign_file_is_named(tmp_path, capsys, content, status, words):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "forum.db").write_bytes(content)
    before = snapshot(tmp_path / "data")
    code, line = forum_line(capsys, tmp_path)
    assert line.startswith(status) and words in line, line
    assert code == (1 if status == "FAIL" else 0)
    assert snapshot(tmp_path / "data") == before


def test_a_local_forum_the_bot_could_not_write(tmp_path, capsys, monkeypatch):
    from adapters.local import LocalForum

    (tmp_path / "data").mkdir()
    LocalForum(str(tmp_path / "data" / "forum.db")).db.close()
    real = os.access  # (a chmod would not stop root, who runs some CI)
    monkeypatch.setattr("adapters.local.os.access", lambda p, m: not str(p).endswith("forum.db") and real(p, m))
    code, line = forum_line(capsys, tmp_path)
    assert code == 1 and line.startswith("FAIL") and "is not writable for this user" in line, line
