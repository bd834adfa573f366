"""The database, read only: what `forumbot doctor` may do to it. It makes no table, adds no
column and writes no secret (store.connect does those, for `run`)."""
from __future__ import annotations

import os
from urllib.parse import quote

from peewee import SqliteDatabase
from playhouse.db_url import connect as db_connect

from . import store
from .masking import scrub
from .store import forget_secret


def open_to_read(url: str, sqlite_file: str | None = None) -> list[str]:
    """Open the database at `url` to read it only (`forumbot doctor`): no table is made, no
    column added, no secret given; an SQLite file (`sqlite_file`, which the caller has seen
    exists) is opened read-only, and without its -wal and -shm files when it has none (a bot
    that is not running left none). Returns the bot's tables the database lacks."""
    forget_secret()
    try:
        if sqlite_file is not None:
            quiet = "" if os.path.exists(sqlite_file + "-wal") else "&immutable=1"
            database = SqliteDatabase(f"file:{quote(sqlite_file)}?mode=ro{quiet}", uri=True,
                                      pragmas={"busy_timeout": 5000})
        else:
            database = db_connect(url)
        store.db.initialize(database)
        database.connect(reuse_if_open=True)
        schema = None
        if not isinstance(database, SqliteDatabase):
            schema = database.execute_sql("SELECT current_schema()").fetchone()[0]
        have = set(database.get_tables(schema))
    except Exception as e:  # a driver may quote the URL: no password in what is shown
        scrub(e)
        raise
    return [m._meta.table_name for m in store.MODELS if m._meta.table_name not in have]


def cannot_write(sqlite_file: str | None = None) -> str | None:
    """Why the bot could not write the database opened by open_to_read (None: it can), found
    without writing: the file's and its folder's modes on SQLite, the role's privileges on
    PostgreSQL (on the bot's tables, or to make them in the schema)."""
    if sqlite_file is not None:
        for where in (sqlite_file, os.path.dirname(sqlite_file)):  # (WAL writes beside the file)
            if not os.access(where, os.W_OK):
                return f"{where} is not writable for this user"
        return None
    database = store.db.obj
    missing = set()
    schema = database.execute_sql("SELECT current_schema()").fetchone()[0]
    have = set(database.get_tables(schema))
    for model in store.MODELS:
        table = model._meta.table_name
        if table not in have:
            missing.add(table)
            continue
        for what in ("SELECT", "INSERT", "UPDATE", "DELETE"):
            if not database.execute_sql("SELECT has_table_privilege(%s, %s)",
                                        (f'"{schema}"."{table}"', what)).fetchone()[0]:
                return f"this role may not {what} in {table}"
    if missing and not database.execute_sql("SELECT has_schema_privilege(%s, 'CREATE')",
                                            (schema,)).fetchone()[0]:
        return f"this role may not create the bot's tables in schema {schema}"
    return None
