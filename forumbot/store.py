"""The bot's only state: games, their event logs, the inbox and the outbox (peewee).

SQLite in WAL mode by default, PostgreSQL by URL. Times are stored as naive UTC.
On SQLite every write transaction (`db.atomic()`) begins IMMEDIATE, so it waits out
busy_timeout for the write lock instead of failing when it first writes.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets as _secrets
import sqlite3
from datetime import datetime, timezone

from peewee import (
    SQL,
    BigIntegerField,
    BooleanField,
    CharField,
    DatabaseError,
    DatabaseProxy,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    IntegrityError,
    InterfaceError,
    Model,
    OperationalError,
    SqliteDatabase,
    TextField,
)
from playhouse.db_url import connect as db_connect
from playhouse.migrate import SchemaMigrator

from .rules.config import GameConfig
from .rules.events import Event as RuleEvent

log = logging.getLogger("forumbot")

db = DatabaseProxy()


class BaseModel(Model):
    class Meta:
        database = db


class Game(BaseModel):
    forum = CharField()
    host = CharField()
    preset = CharField()
    config = TextField()  # GameConfig as JSON
    seed = BigIntegerField()
    status = CharField(default="running")  # signup | running | finished | aborted
    thread = CharField(null=True)
    thread_url = CharField(null=True)
    created_at = DateTimeField()
    next_deadline = DateTimeField(null=True, index=True)

    @property
    def tag(self) -> str:
        return f"G{self.id}"

    def game_config(self) -> GameConfig:
        return GameConfig.from_json(json.loads(self.config))


class Event(BaseModel):
    game = ForeignKeyField(Game, backref="events", on_delete="CASCADE")
    seq = IntegerField()
    type = CharField()
    at = DateTimeField()
    data = TextField()

    class Meta:
        indexes = ((("game", "seq"), True),)

    def to_rule_event(self) -> RuleEvent:
        return RuleEvent(self.type, aware(self.at), json.loads(self.data))


class Inbound(BaseModel):
    forum = CharField()
    ext_id = CharField()
    kind = CharField()  # comment | pm
    author = CharField()
    subject = TextField(default="")
    body = TextField()
    thread = CharField(null=True)
    parent = CharField(null=True)
    created = DateTimeField()
    edited = BooleanField(default=False)
    state = CharField(default="new", index=True)  # new | done
    game = IntegerField(null=True)
    commands = IntegerField(default=0)  # how many commands it held (comments are re-checked for edits)
    note = TextField(default="")
    tries = IntegerField(default=0, constraints=[SQL("DEFAULT 0")])  # failed attempts to handle it
    origin = CharField(default="", constraints=[SQL("DEFAULT ''")])  # "" a person; admin | subreddit

    class Meta:
        indexes = ((("forum", "ext_id"), True),)


class Outbox(BaseModel):
    key = CharField(unique=True)
    game = IntegerField(null=True, index=True)
    kind = CharField()  # thread | comment | pm
    to = CharField(null=True)
    thread = CharField(null=True)  # None for a game comment until its thread exists
    subject = TextField(default="")
    title = TextField(default="")
    place = CharField(null=True)
    reply_to = CharField(null=True)
    body = TextField()
    priority = IntegerField(default=1)  # 0 first
    state = CharField(default="pending", index=True)  # pending | posted | failed
    uncertain = BooleanField(default=False)  # a post was tried and may have landed
    attempts = IntegerField(default=0)
    not_before = DateTimeField(null=True)
    ext_id = CharField(null=True)
    url = CharField(null=True)
    error = TextField(default="")
    created_at = DateTimeField()
    posted_at = DateTimeField(null=True)


class Signup(BaseModel):
    """A player who commented JOIN on a game in sign-ups (deleted on LEAVE)."""

    game = ForeignKeyField(Game, backref="signups", on_delete="CASCADE")
    name = CharField()
    folded = CharField()
    joined_at = DateTimeField()

    class Meta:
        indexes = ((("game", "folded"), True),)


class Cursor(BaseModel):
    forum = CharField()
    name = CharField()
    value = TextField()

    class Meta:
        indexes = ((("forum", "name"), True),)


class Info(BaseModel):
    """Facts about the database itself (its secret), one row a name."""

    name = CharField(primary_key=True)
    value = TextField()

    class Meta:
        table_name = "bot_info"


MODELS = [Game, Event, Inbound, Outbox, Signup, Cursor, Info]


def connect(url: str):
    """Open the database at `url`, create the tables, add the columns an older database lacks
    and give a new database its secret. SQLite gets WAL mode and IMMEDIATE transactions."""
    global _secret_cache
    _secret_cache = None
    if url.startswith("sqlite"):
        database = db_connect(url, pragmas={"journal_mode": "wal", "foreign_keys": 1,
                                            "busy_timeout": 5000, "synchronous": "normal"},
                              lock_type="IMMEDIATE")
    else:
        database = db_connect(url)
    db.initialize(database)
    database.connect(reuse_if_open=True)
    database.create_tables(MODELS, safe=True)
    _add_missing_columns(database)
    _load_secret()
    return database


def _add_missing_columns(database) -> None:
    """Tables made by an older version lack the newer columns: add them (each new column is
    nullable or has a default, so old rows stay valid)."""
    schema = None  # PostgreSQL: where the search path put the tables, not always public
    if not isinstance(database, SqliteDatabase):
        schema = database.execute_sql("SELECT current_schema()").fetchone()[0]
    for model in MODELS:
        table = model._meta.table_name
        have = {c.name.lower() for c in database.get_columns(table, schema)}
        missing = [f for f in model._meta.sorted_fields if f.column_name.lower() not in have]
        if not missing:
            continue
        migrator = SchemaMigrator.from_database(database)
        with database.atomic():  # IMMEDIATE on SQLite: one process at a time from here
            if schema is not None:  # and on PostgreSQL, once the table is ours
                database.execute_sql(f'LOCK TABLE "{table}" IN ACCESS EXCLUSIVE MODE')
            have = {c.name.lower() for c in database.get_columns(table, schema)}
            for field in missing:
                if field.column_name.lower() in have:
                    continue  # another process added it meanwhile
                has_default = any("DEFAULT" in str(getattr(c, "sql", c)).upper()
                                  for c in field.constraints or ())
                log.info("store: adding column %s.%s", table, field.column_name)
                migrator.add_column(table, field.column_name, field,
                                    allow_not_null=has_default).run()


def close() -> None:
    global _secret_cache
    _secret_cache = None
    if db.obj is not None and not db.is_closed():
        db.close()


# -- the database's secret ---------------------------------------------------------------

_secret_cache: tuple[object, str] | None = None  # (the database object, its secret)


def _load_secret() -> str:
    row = Info.get_or_none(Info.name == "secret")
    if row is None:  # a new database; of two processes racing here the first insert wins
        Info.insert(name="secret", value=_secrets.token_hex(16)).on_conflict_ignore().execute()
        row = Info.get(Info.name == "secret")
    return row.value


def secret() -> str:
    """This database's random secret: made once when the database is new, the same for every
    later connection and process, different for every other database."""
    global _secret_cache
    cached = _secret_cache
    if cached is not None and cached[0] is db.obj:
        return cached[1]
    value = _load_secret()
    _secret_cache = (db.obj, value)
    return value


def marker_token(key: str, length: int = 16) -> str:
    """HMAC-SHA256 of an outbox key under the database's secret, as `length` hex digits (16 to
    64): what only this database's bot can put in a post's invisible marker."""
    if not 16 <= length <= 64:
        raise ValueError("marker_token length must be 16 to 64")
    return hmac.new(secret().encode(), key.encode("utf-8"), hashlib.sha256).hexdigest()[:length]


# -- database trouble --------------------------------------------------------------------

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
    todo = [exc]
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


def naive(at: datetime) -> datetime:
    return at.astimezone(timezone.utc).replace(tzinfo=None)


def aware(at: datetime | str) -> datetime:
    if isinstance(at, str):  # SQLite may hand back text
        at = datetime.fromisoformat(at)
    return at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)


def game_events(game: Game) -> list[RuleEvent]:
    return [e.to_rule_event() for e in Event.select().where(Event.game == game).order_by(Event.seq)]


def append_events(game: Game, events: list[RuleEvent]) -> int:
    """Append events to a game's log; returns the seq of the first one."""
    last = Event.select(Event.seq).where(Event.game == game).order_by(Event.seq.desc()).first()
    seq = (last.seq if last else 0) + 1
    first = seq
    for e in events:
        Event.create(game=game, seq=seq, type=e.type, at=naive(e.at), data=json.dumps(e.data))
        seq += 1
    return first


def enqueue(item, game_id: int | None, now: datetime, priority: int = 1) -> bool:
    """Put an Outgoing in the outbox unless its key is there already."""
    if Outbox.select().where(Outbox.key == item.key).exists():
        return False
    try:
        with db.atomic():
            Outbox.create(key=item.key, game=game_id, kind=item.kind, to=item.to,
                          thread=item.thread, subject=item.subject, title=item.title,
                          place=item.where, reply_to=item.reply_to, body=item.body,
                          priority=priority, created_at=naive(now))
    except IntegrityError:
        return False
    return True


def set_status_edit(game_id: int, key: str, block: str, now: datetime) -> None:
    """The one status-block edit of a game: a newer block replaces one not yet sent, so
    only the latest goes out, and one that was deferred is never lost."""
    row = Outbox.get_or_none(Outbox.key == key)
    if row is None:
        Outbox.create(key=key, game=game_id, kind="edit", body=block, priority=3, created_at=naive(now))
    elif row.body != block:
        Outbox.update(body=block, state="pending", error="").where(Outbox.id == row.id).execute()


def get_cursor(forum: str) -> dict:
    rows = Cursor.select().where(Cursor.forum == forum)
    return {r.name: json.loads(r.value) for r in rows}


def set_cursor(forum: str, cursor: dict) -> None:
    for name, value in cursor.items():
        (Cursor.insert(forum=forum, name=name, value=json.dumps(value))
         .on_conflict(conflict_target=[Cursor.forum, Cursor.name],
                      update={Cursor.value: json.dumps(value)})
         .execute())
