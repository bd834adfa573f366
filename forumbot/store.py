"""The bot's only state: games, their event logs, the inbox and the outbox (peewee).

SQLite in WAL mode by default, PostgreSQL by URL. Times are stored as naive UTC.
On SQLite every write transaction (`db.atomic()`) begins IMMEDIATE, so it waits out
busy_timeout for the write lock instead of failing when it first writes.
"""
from __future__ import annotations

import json
import logging
import secrets as _secrets
from datetime import datetime, timezone

from peewee import (
    EXCLUDED,
    SQL,
    AutoField,
    BigIntegerField,
    BooleanField,
    Case,
    CharField,
    DatabaseProxy,
    DateTimeField,
    FieldAccessor,
    ForeignKeyField,
    IntegerField,
    IntegrityError,
    Model,
    SqliteDatabase,
    TextField,
    fn,
)
from playhouse.db_url import connect as db_connect
from playhouse.migrate import SchemaMigrator

from .bulk import Bulk
from .masking import scrub
from .rules.config import GameConfig
from .rules.events import Event as RuleEvent
from .rules.events import from_json as event_from_json

log = logging.getLogger("forumbot")

db = DatabaseProxy()


class BaseModel(Model):
    class Meta:
        database = db


class _Counted(FieldAccessor):
    """A field of a game's row whose every change (set on the row: a status, a thread, a
    deadline) counts in `Game.changes`, so that what is worked out from many rows at once
    (the cycle's lists of live games: shell/games.py) is worked out again only after one."""

    def __set__(self, instance, value):
        super().__set__(instance, value)
        Game.changes += 1


class _CountedChar(CharField):
    accessor_class = _Counted


class _CountedDateTime(DateTimeField):
    accessor_class = _Counted


class Game(BaseModel):
    changes = 0  # (class-wide) how many times a counted field was set on any row
    id = AutoField()
    forum = CharField()
    host = CharField()
    preset = CharField()
    config = TextField()  # GameConfig as JSON
    seed = BigIntegerField()
    status = _CountedChar(default="running")  # signup | running | finished | aborted
    thread = _CountedChar(null=True)
    thread_url = CharField(null=True)
    created_at = DateTimeField()
    next_deadline = _CountedDateTime(null=True, index=True)
    # When its open phase opened, a copy of the state's kept with each change: a restarted bot
    # finds what its edit re-check watches without a replay (null: not known; the state corrects it).
    phase_opened = DateTimeField(null=True)

    @property
    def tag(self) -> str:
        return f"G{self.id}"

    def game_config(self) -> GameConfig:
        return GameConfig.from_json(json.loads(self.config))


class Event(BaseModel):
    id = AutoField()
    game = ForeignKeyField(Game, backref="events", on_delete="CASCADE")
    seq = IntegerField()
    type = CharField()
    at = DateTimeField()
    data = TextField()

    class Meta:
        indexes = ((("game", "seq"), True),)

    def to_rule_event(self) -> RuleEvent:
        return event_from_json(self.type, aware(self.at), json.loads(self.data))


class Inbound(BaseModel):
    id = AutoField()
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

    class Meta:  # (state, forum): the inbox's new messages (made on an older database too: IF NOT EXISTS)
        indexes = ((("forum", "ext_id"), True), (("state", "forum"), False))


class Outbox(BaseModel):
    id = AutoField()
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

    id = AutoField()
    game = ForeignKeyField(Game, backref="signups", on_delete="CASCADE")
    name = CharField()
    folded = CharField()
    joined_at = DateTimeField()

    class Meta:
        indexes = ((("game", "folded"), True),)


class Cursor(BaseModel):
    id = AutoField()
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
    and give a new database its secret. SQLite gets WAL mode and IMMEDIATE transactions.
    An error's text never holds the URL's password."""
    global _secret_cache
    _secret_cache = None
    try:
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
    except Exception as e:  # a driver may quote the URL: no password in what is shown or logged
        scrub(e)
        raise
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


def forget_secret() -> None:
    """The database's secret is read again from the next database opened."""
    global _secret_cache
    _secret_cache = None


def close() -> None:
    forget_secret()
    if db.obj is not None and not db.is_closed():
        db.close()


# -- the database's secret (the marker tokens it keys: markers.py) ------------------------

_secret_cache: tuple[object, str, int, int] | None = None  # (the database object, its secret, keyed_from, checked_from)


def _load_secret() -> tuple[str, int, int]:
    """The secret, the last outbox item made before it (a database of a version without
    secrets: its items keep the unkeyed markers they went out with), and the last one made
    before markers carried their check (those keep the plain keyed token)."""
    row = Info.get_or_none(Info.name == "secret")
    if row is None:  # a new database; of two processes racing here the first insert wins
        with db.atomic():
            before = Outbox.select(fn.MAX(Outbox.id)).scalar() or 0
            Info.insert(name="keyed_from", value=str(before)).on_conflict_ignore().execute()
            Info.insert(name="checked_from", value=str(before)).on_conflict_ignore().execute()
            Info.insert(name="secret", value=_secrets.token_hex(16)).on_conflict_ignore().execute()
        row = Info.get(Info.name == "secret")
    checked = Info.get_or_none(Info.name == "checked_from")
    if checked is None:  # a database of a version whose markers had no check: its items keep theirs
        with db.atomic():
            before = Outbox.select(fn.MAX(Outbox.id)).scalar() or 0
            Info.insert(name="checked_from", value=str(before)).on_conflict_ignore().execute()
        checked = Info.get(Info.name == "checked_from")
    keyed = Info.get_or_none(Info.name == "keyed_from")
    return row.value, int(keyed.value) if keyed is not None else 0, int(checked.value)


def secret() -> str:
    """This database's random secret: made once when the database is new, the same for every
    later connection and process, different for every other database."""
    return secret_and_start()[0]


def secret_and_start() -> tuple[str, int, int]:
    """The secret, and the last outbox items made before it and before markers carried their
    check (markers.item_token)."""
    global _secret_cache
    cached = _secret_cache
    if cached is not None and cached[0] is db.obj:
        return cached[1], cached[2], cached[3]
    value, keyed_from, checked_from = _load_secret()
    _secret_cache = (db.obj, value, keyed_from, checked_from)
    return value, keyed_from, checked_from


def reload_into(row: Model, fresh: Model) -> None:
    """`row` takes back what the store holds (`fresh`, the same row read again), in place:
    callers may hold it."""
    row.__data__ = dict(fresh.__data__)
    row._dirty.clear()  # type: ignore[attr-defined]


def naive(at: datetime) -> datetime:
    return at.astimezone(timezone.utc).replace(tzinfo=None)


def aware(at: datetime | str) -> datetime:
    if isinstance(at, str):  # SQLite may hand back text
        at = datetime.fromisoformat(at)
    return at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)


def game_events(game: Game) -> list[RuleEvent]:
    return [e.to_rule_event() for e in Event.select().where(Event.game == game).order_by(Event.seq)]


def append_events(game: Game, events: list[RuleEvent], first: int | None = None) -> int:
    """Append events to a game's log, in one statement; returns the seq of the first one.
    `first`: that seq if the caller knows it (the seq after the game's last event), which
    saves looking it up. (game, seq) is unique, so a wrong guess fails rather than forks."""
    if first is None:
        last = Event.select(Event.seq).where(Event.game == game).order_by(Event.seq.desc()).first()
        first = (last.seq if last else 0) + 1
    _EVENTS.run(db.obj, [(game.id, first + n, e.type, naive(e.at), json.dumps(e.json_data()))
                         for n, e in enumerate(events)])
    return first


_EVENT_FIELDS = (Event.game, Event.seq, Event.type, Event.at, Event.data)
_EVENTS = Bulk(_EVENT_FIELDS, lambda rows: Event.insert_many(rows, fields=_EVENT_FIELDS), 500)


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
    set_status_edits([(game_id, key, block)], now)


def set_status_edits(blocks: list[tuple[int, str, str]], now: datetime) -> None:
    """`set_status_edit` for several games (game id, key, block) in one statement: a changed
    block goes back to pending, keeping a pending row's `created_at` (when the post first went
    out of date: the outbox coalesces edits by it); one that holds this block stays as it is."""
    at = naive(now)
    _STATUS_EDITS.run(db.obj, [(key, game_id, "edit", block, 3, at, "", "", "pending", False, 0, "")
                               for game_id, key, block in blocks])


_EDIT_FIELDS = (Outbox.key, Outbox.game, Outbox.kind, Outbox.body, Outbox.priority, Outbox.created_at,
                Outbox.subject, Outbox.title, Outbox.state, Outbox.uncertain, Outbox.attempts, Outbox.error)
_STATUS_EDITS = Bulk(_EDIT_FIELDS, lambda rows: Outbox.insert_many(rows, fields=_EDIT_FIELDS).on_conflict(
    conflict_target=[Outbox.key],
    update={Outbox.body: EXCLUDED.body, Outbox.state: "pending", Outbox.error: "",
            Outbox.created_at: Case(None, [(Outbox.state == "pending", Outbox.created_at)], EXCLUDED.created_at)},
    where=(Outbox.body != EXCLUDED.body)), 500)


def get_cursor(forum: str) -> dict:  # (most values are counts: those without the JSON parser)
    rows: list = list(Cursor.select(Cursor.name, Cursor.value).where(Cursor.forum == forum).tuples())
    return {n: int(v) if v.isascii() and v.isdigit() else json.loads(v) for n, v in rows}


def set_cursor(forum: str, cursor: dict, before: dict | None = None) -> None:
    """Store the bookmarks in `cursor`; with `before` (the store's), only those that changed, in one statement."""
    rows = [{"forum": forum, "name": name, "value": json.dumps(value)} for name, value in cursor.items()
            if before is None or name not in before or before[name] != value]
    for chunk in range(0, len(rows), 500):
        (Cursor.insert_many(rows[chunk:chunk + 500])
         .on_conflict(conflict_target=[Cursor.forum, Cursor.name], update={Cursor.value: EXCLUDED.value})
         .execute())


def storable(text: str) -> str:
    """Text any database keeps: a NUL (PostgreSQL refuses it) or a lone surrogate (no UTF-8
    form) from a forum becomes U+FFFD, so one odd message never stops the inbox for everyone."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


def store_inbound(forum: str, messages: list, read_at: datetime | None = None) -> None:
    """New messages (adapters.base.Inbound) into the inbox, in one statement each 200; one
    stored already (the same forum id) is left as it is. A message counts at the forum's
    stamp, capped at `read_at`, when the bot read it (variants.md, "The clock of a command"):
    a forum clock ahead of the bot's never moves a command past a deadline it was read before."""
    def counts_at(m) -> datetime:
        return min(aware(m.created), aware(read_at)) if read_at is not None else aware(m.created)

    _INBOUND.run(db.obj, [(forum, storable(m.id), m.kind, storable(m.author), storable(m.subject or ""),
                           storable(m.body), m.thread and storable(m.thread), m.parent and storable(m.parent),
                           naive(counts_at(m)), m.edited, m.origin, "new", 0, "", 0) for m in messages])


_IN_FIELDS = (Inbound.forum, Inbound.ext_id, Inbound.kind, Inbound.author, Inbound.subject, Inbound.body,
              Inbound.thread, Inbound.parent, Inbound.created, Inbound.edited, Inbound.origin, Inbound.state,
              Inbound.commands, Inbound.note, Inbound.tries)
_INBOUND = Bulk(_IN_FIELDS, lambda rows: Inbound.insert_many(rows, fields=_IN_FIELDS).on_conflict_ignore(), 200)
