"""The bot's only state: games, their event logs, the inbox and the outbox (peewee).

SQLite in WAL mode by default, PostgreSQL by URL. Times are stored as naive UTC.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone

from peewee import (
    BigIntegerField, BooleanField, CharField, DatabaseProxy, DateTimeField, ForeignKeyField,
    IntegerField, Model, TextField, IntegrityError,
)
from playhouse.db_url import connect as db_connect

from .rules.config import GameConfig
from .rules.events import Event as RuleEvent

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


MODELS = [Game, Event, Inbound, Outbox, Signup, Cursor]


def connect(url: str):
    """Open the database at `url` and create the tables. SQLite gets WAL mode."""
    if url.startswith("sqlite"):
        database = db_connect(url, pragmas={"journal_mode": "wal", "foreign_keys": 1,
                                            "busy_timeout": 5000, "synchronous": "normal"})
    else:
        database = db_connect(url)
    db.initialize(database)
    database.connect(reuse_if_open=True)
    database.create_tables(MODELS, safe=True)
    return database


def close() -> None:
    if db.obj is not None and not db.is_closed():
        db.close()


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
