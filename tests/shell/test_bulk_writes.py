"""The store's bulk writes (the inbox's new messages, the status blocks, a game's events, the
edits' marks) write what peewee's own statements wrote, on SQLite and PostgreSQL, with the
SQL made once for each number of rows (forumbot/bulk.py) or written out: a busy cycle of
1,000 votes no longer has peewee build the SQL of 2,000 rows."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import peewee
import pytest

from adapters.base import Inbound as Message
from adapters.base import Posted
from forumbot import store
from forumbot.bulk import Bulk
from forumbot.shell.outbox.edits import Edits

AT = datetime(2026, 11, 29, 21, 0, tzinfo=timezone.utc)


def _messages(n: int, first: int = 0) -> list[Message]:
    return [Message(id=f"t1_{i}", kind="comment" if i % 3 else "pm", author=f"p{i}", body=f"**APPROVE** {i}",
                    created=AT + timedelta(seconds=i), thread="sub:abc" if i % 3 else None,
                    subject="" if i % 3 else f"G{i} vote", parent=None if i % 5 else f"t4_{i}",
                    edited=i % 7 == 0, origin="admin" if i % 11 == 0 else "") for i in range(first, first + n)]


def _rows(model) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "id"}
            for r in model.select().order_by(model.id).dicts()]


def _builds(monkeypatch, kind) -> list[int]:
    """How many times peewee builds the SQL of an INSERT or an UPDATE from now on."""
    built = [0]
    sql = kind.__sql__

    def counted(self, ctx):
        built[0] += 1
        return sql(self, ctx)

    monkeypatch.setattr(kind, "__sql__", counted)
    return built


def test_new_messages_are_stored_as_peewees_own_insert_stored_them(any_db):
    messages = _messages(450)  # statements of 200, 200 and 50
    store.store_inbound("reddit", messages, read_at=AT + timedelta(seconds=300))
    ours = _rows(store.Inbound)
    store.Inbound.delete().execute()
    read_at = AT + timedelta(seconds=300)
    store.Inbound.insert_many([
        {"forum": "reddit", "ext_id": m.id, "kind": m.kind, "author": m.author, "subject": m.subject,
         "body": m.body, "thread": m.thread, "parent": m.parent, "created": store.naive(min(m.created, read_at)),
         "edited": m.edited, "origin": m.origin} for m in messages]).execute()
    assert ours == _rows(store.Inbound) and len(ours) == 450
    assert {r["state"] for r in ours} == {"new"} and {r["game"] for r in ours} == {None}


def test_a_message_stored_already_is_left_as_it_is(any_db):
    store.store_inbound("reddit", _messages(3))
    store.Inbound.update(state="done", commands=1).where(store.Inbound.ext_id == "t1_1").execute()
    store.store_inbound("reddit", _messages(4))
    rows = {r["ext_id"]: r for r in _rows(store.Inbound)}
    assert len(rows) == 4 and rows["t1_1"]["state"] == "done" and rows["t1_1"]["commands"] == 1
    assert rows["t1_3"]["state"] == "new"


def test_the_insert_of_so_many_rows_is_made_once(any_db, monkeypatch):
    built = _builds(monkeypatch, peewee.Insert)
    store.store_inbound("reddit", _messages(30))
    store.store_inbound("reddit", _messages(30, first=30))
    store.set_status_edits([(g, f"G{g}:status-block", "one") for g in range(30)], AT)
    store.set_status_edits([(g, f"G{g}:status-block", "two") for g in range(30)], AT)
    assert built[0] == 2  # once for the messages, once for the blocks
    assert store.Inbound.select().count() == 60
    assert {r.body for r in store.Outbox.select()} == {"two"}


def test_edits_marked_posted_hold_where_they_went_unless_a_newer_block_came(any_db, monkeypatch):
    store.set_status_edits([(g, f"G{g}:status-block", f"block {g}") for g in range(1, 6)], AT)
    items = {r.game: r for r in store.Outbox.select()}
    edits = Edits(lambda: AT + timedelta(minutes=1))
    edits.begin(list(items.values()))
    for g, item in items.items():
        edits.sent(item, Posted(f"t3_{g}", None if g % 2 else f"https://forum/{g}"))
    store.set_status_edits([(5, "G5:status-block", "newer")], AT)  # G5's block changed meanwhile
    built = _builds(monkeypatch, peewee.Update)
    edits.mark()
    assert built[0] == 0  # (written out)
    rows = {r.game: r for r in store.Outbox.select()}
    for g in range(1, 5):
        r = rows[g]
        assert (r.state, r.ext_id, r.url, r.uncertain, r.attempts) == (
            "posted", f"t3_{g}", None if g % 2 else f"https://forum/{g}", False, 0)
        assert store.aware(r.posted_at) == AT + timedelta(minutes=1)
    assert (rows[5].state, rows[5].body, rows[5].ext_id) == ("pending", "newer", None)


def test_a_query_that_binds_more_than_the_rows_is_refused(any_db):
    fields = (store.Inbound.forum, store.Inbound.ext_id, store.Inbound.kind, store.Inbound.author,
              store.Inbound.body, store.Inbound.created)  # (peewee adds the columns with defaults)
    bulk = Bulk(fields, lambda rows: store.Inbound.insert_many(rows, fields=fields), 10)
    with pytest.raises(ValueError, match="not the rows'"):
        bulk.run(store.db.obj, [("reddit", i, "pm", "a", "b", store.naive(AT)) for i in "xy"])
    assert not store.Inbound.select().exists()
