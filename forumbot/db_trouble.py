"""Database trouble: whether an error means "the database could not do it now, try again
later" (a lock, a full disk, a lost connection) rather than a bug, and the recovery after
it. (Split out of store.py; `store.is_db_trouble` and `store.recover` are these.)"""
from __future__ import annotations

import logging
import sqlite3

from peewee import DatabaseError, IntegrityError, InterfaceError, OperationalError, SqliteDatabase

from .store import db

log = logging.getLogger("forumbot")

# SQLite primary result codes that mean the database, not the statement, is the problem:
# BUSY, LOCKED, NOMEM, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, PROTOCOL, NOTADB.
_SQLITE_TROUBLE_CODES = {5, 6, 7, 8, 10, 11, 13, 14, 15, 26}
# PostgreSQL SQLSTATE classes: connection exception, transaction rollback (serialization
# failure, deadlock), insufficient resources (disk full, out of memory, too many
# connections), operator intervention (shutdown, cancel), system error (I/O).
_PG_TROUBLE_CLASSES = {"08", "40", "53", "57", "58"}
_PG_TROUBLE_CODES = {"55P03", "55006"}  # lock not available, object in use
_TROUBLE_WORDS = (
    # SQLite
    "database is locked", "database table is locked", "database or disk is full",
    "disk i/o error", "unable to open database file", "database disk image is malformed",
    "attempt to write a readonly database",
    # PostgreSQL / libpq
    "server closed the connection", "connection already closed", "terminating connection",
    "could not connect to server", "connection to server", "connection refused",
    "no connection to the server", "could not receive data from server",
    "could not send data to server", "ssl connection has been closed", "ssl syscall error",
    "the database system is", "no message from the libpq", "deadlock detected",
    "could not serialize access", "could not obtain lock", "no space left on device",
    "could not extend file", "too many clients",
)


def _mentions_trouble(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(w in text for w in _TROUBLE_WORDS)


def _driver_trouble(exc: BaseException) -> bool | None:
    """True/False for an exception of a database driver (sqlite3, psycopg2, psycopg);
    None for anything else."""
    if isinstance(exc, sqlite3.Error):
        if isinstance(exc, (sqlite3.IntegrityError, sqlite3.ProgrammingError,
                            sqlite3.InterfaceError, sqlite3.DataError)):
            return False
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None:
            return code & 0xFF in _SQLITE_TROUBLE_CODES
        return _mentions_trouble(exc)
    module = type(exc).__module__ or ""
    if module.split(".")[0] in ("psycopg2", "psycopg"):
        code = getattr(exc, "pgcode", None) or getattr(exc, "sqlstate", None)
        if code:
            return code[:2] in _PG_TROUBLE_CLASSES or code in _PG_TROUBLE_CODES
        names = {c.__name__ for c in type(exc).__mro__}
        if names & {"OperationalError", "InterfaceError"}:
            return True  # client side: the connection is gone or could not be made
        return _mentions_trouble(exc)
    return None


def is_db_trouble(exc: BaseException) -> bool:
    """Whether `exc` means "the database could not do it now, try again later" (a lock, a
    full disk, a lost connection, a serialization failure or deadlock) rather than a bug.
    Understands peewee's errors and the sqlite3/psycopg2 errors they wrap (or that escape
    unwrapped), following `orig` and `raise ... from`, and, from a database error, the
    error it was raised while handling."""
    seen = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, IntegrityError):
            continue  # a constraint broken: the statement's fault, whatever led to it
        if type(e).__name__ == "MaxConnectionsExceeded":  # playhouse.pool
            return True
        verdict = _driver_trouble(e)
        if verdict:
            return True
        if verdict is None and isinstance(e, (DatabaseError, InterfaceError)):  # peewee's
            orig = getattr(e, "orig", None)
            if orig is not None:
                todo.append(orig)
            elif (isinstance(e, (OperationalError, InterfaceError)) or type(e) is DatabaseError) \
                    and _mentions_trouble(e):
                return True
        if verdict is not None or isinstance(e, (DatabaseError, InterfaceError)):
            # a database error raised while handling another (peewee's rollback failing
            # because SQLite already rolled back after SQLITE_FULL): judge that one too
            todo.append(e.__context__)
        todo.append(e.__cause__)
    return False


def _in_memory(database) -> bool:
    name = str(database.database or "")
    return isinstance(database, SqliteDatabase) and (
        name in ("", ":memory:") or name.startswith("file::memory:") or "mode=memory" in name)


def recover() -> bool:
    """After db trouble: forget the transaction the error broke off, throw this thread's
    connection away (a PostgreSQL one may be dead or in a failed transaction) and open a
    fresh one. An in-memory SQLite database is only rolled back (closing would lose it).
    Never raises; True if the database answers again, False if it is still out of reach
    (the next query tries to connect again by itself). Call it outside any `db.atomic()`
    block (after the error has left it)."""

    database = db.obj
    if database is None:
        return False
    while database.in_transaction():
        database.pop_transaction()
    clear = getattr(database, "_clear_commit_callbacks", None)
    if clear is not None:
        clear()
    if _in_memory(database):
        try:
            if not database.is_closed() and database.connection().in_transaction:
                database.connection().rollback()
            return True
        except Exception:
            log.warning("store: rollback failed", exc_info=True)
            return False
    if not database.is_closed():
        try:
            database.close()
        except Exception:
            log.info("store: closing the broken connection failed", exc_info=True)
            database.dispose()
    try:
        database.connect(reuse_if_open=True)
        database.execute_sql("SELECT 1").fetchone()
        return True
    except Exception as e:
        log.warning("store: the database is still out of reach: %s", e)
        try:
            database.close()
        except Exception:
            database.dispose()
        return False
