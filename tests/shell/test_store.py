"""The store, on SQLite and (with FORUMBOT_TEST_DATABASE_URL) on PostgreSQL."""
from datetime import datetime, timezone

from adapters.base import Outgoing
from forumbot import store
from forumbot.rules import make_config, start

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


def test_a_whole_game_on_this_store(any_db, bot, clock):
    t = bot("local").table()
    for _ in range(3):
        t.mission()
    e = t.export()
    assert e["status"] == "finished" and e["winner"] == "resistance"
    assert [x["seq"] for x in e["events"]] == list(range(1, len(e["events"]) + 1))
