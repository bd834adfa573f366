"""The store, on SQLite and (with FORUMBOT_TEST_DATABASE_URL) on PostgreSQL."""
from datetime import datetime, timezone

import peewee

from adapters.base import Outgoing
from forumbot import store
from forumbot.rules import make_config, start
from tests.conftest import PG_URL

AT = datetime(2026, 11, 29, 21, 0, tzinfo=timezone.utc)


def test_sqlite_runs_in_wal_mode(db):
    assert db.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_inbound_is_unique_per_forum_and_id(any_db):
    row = dict(kind="pm", author="alice", body="APPROVE", created=store.naive(AT))
    for forum in ("reddit", "reddit", "local"):
        store.Inbound.insert(forum=forum, ext_id="abc", **row).on_conflict_ignore().execute()
    assert store.Inbound.select().count() == 2


def test_outbox_key_is_unique(any_db):
    out = Outgoing(key="G1:3:post", kind="comment", body="hello", thread="t1")
    assert store.enqueue(out, None, AT) is True
    assert store.enqueue(out, None, AT) is False
    assert store.Outbox.select().count() == 1


def test_events_are_stored_per_game_in_order_and_round_trip(any_db):
    cfg = make_config("resistance", ["alice", "bob", "carol", "dave", "erin"])
    games = [store.Game.create(forum="local", host="h", preset="resistance",
                               config=__import__("json").dumps(cfg.to_json()), seed=s,
                               created_at=store.naive(AT)) for s in (1, 2)]
    for g in games:
        events = start(cfg, g.seed, AT)
        assert store.append_events(g, events) == 1
        assert store.game_events(g) == events
    assert store.append_events(games[0], start(cfg, 1, AT)) == 3
    assert [e.seq for e in store.Event.select().where(store.Event.game == games[0]).order_by(store.Event.seq)] == [1, 2, 3, 4]
    assert games[0].game_config() == cfg


def test_cursor_round_trip(any_db):
    store.set_cursor("reddit", {"sub:x": {"t": 1.5, "id": "abc"}})
    store.set_cursor("reddit", {"sub:x": {"t": 2.5, "id": "abd"}, "other": 3})
    assert store.get_cursor("reddit") == {"sub:x": {"t": 2.5, "id": "abd"}, "other": 3}
    assert store.get_cursor("local") == {}


def test_an_older_database_gets_the_inbox_index_when_opened(any_db):
    """The inbox's new messages are found by (state, forum): a database made before that index
    gets it when the bot opens it (and opening it again changes nothing)."""
    def indexes() -> set[str]:
        schema = None if isinstance(any_db, peewee.SqliteDatabase) else "public"
        return {i.name for i in any_db.get_indexes("inbound", schema)}

    assert "inbound_state_forum" in indexes()
    any_db.execute_sql('DROP INDEX "inbound_state_forum"')
    assert "inbound_state_forum" not in indexes()
    url = any_db.database if isinstance(any_db, peewee.SqliteDatabase) else None
    store.close()
    again = store.connect(f"sqlite:///{url}" if url else PG_URL)
    assert again is not any_db
    any_db = again
    assert "inbound_state_forum" in indexes()
    store.close()
    any_db = store.connect(f"sqlite:///{url}" if url else PG_URL)
    assert "inbound_state_forum" in indexes()


def test_a_whole_game_on_this_store(any_db, bot, clock):
    t = bot("local").table()
    for _ in range(3):
        t.mission()
    e = t.export()
    assert e["status"] == "finished" and e["winner"] == "resistance"
    assert [x["seq"] for x in e["events"]] == list(range(1, len(e["events"]) + 1))
