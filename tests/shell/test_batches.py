"""A cycle's messages in batches: a batch in one transaction that falls back to one message
at a time, the game book's rollback, the store's batched writes, and the few statements a
vote costs."""
from __future__ import annotations

import logging
from datetime import datetime, timezone

import pytest

from adapters.base import Inbound as ForumInbound
from forumbot import store
from forumbot.shell.inbox import Inbox

AT = datetime(2026, 1, 1, tzinfo=timezone.utc)


class Statements(logging.Handler):
    """Counts peewee's query log."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.n = 0

    def emit(self, record):
        self.n += 1

    def __enter__(self):
        self.logger = logging.getLogger("peewee")
        self.level = self.logger.level
        self.logger.addHandler(self)
        self.logger.setLevel(logging.DEBUG)
        return self

    def __exit__(self, *exc):
        self.logger.removeHandler(self)
        self.logger.setLevel(self.level)


def test_a_bug_in_one_message_of_a_batch_leaves_the_others_handled(local_game, monkeypatch):
    """Many votes in one cycle go in one transaction; one that raises rolls the batch back,
    and every message is handled again in its own: the others count, that one waits."""
    t = local_game()
    team = t.propose()
    waiting = list(t.state.waiting_for())
    buggy = waiting[0]
    handle = Inbox.handle

    def sometimes(self, row):
        if row.author == buggy:
            raise KeyError("a bug")
        return handle(self, row)

    monkeypatch.setattr(Inbox, "handle", sometimes)
    for n in waiting:
        t.say(n, "**APPROVE**")
    t.cycle()
    state = t.state
    assert state.team == tuple(team)
    assert set(state.votes) == set(waiting) - {buggy}
    row = store.Inbound.get((store.Inbound.author == buggy) & (store.Inbound.kind == "comment")
                            & (store.Inbound.body == "**APPROVE**"))
    assert row.state == "new" and row.tries == 1
    done = store.Inbound.select().where((store.Inbound.state == "done") & (store.Inbound.body == "**APPROVE**"))
    assert {r.author for r in done} == set(waiting) - {buggy}
    assert all(r.commands == 1 and r.game == t.game_id for r in done)  # as the batch wrote them
    monkeypatch.setattr(Inbox, "handle", handle)
    t.cycle()
    assert buggy in t.state.votes or t.state.phase != "team_vote"


def test_the_votes_of_a_batch_are_marked_done_with_their_game(local_game):
    t = local_game()
    t.propose()
    for n in list(t.state.waiting_for())[:3]:
        t.say(n, "**APPROVE**")
    t.cycle()
    rows = list(store.Inbound.select().where(store.Inbound.body == "**APPROVE**"))
    assert len(rows) == 3
    assert all(r.state == "done" and r.game == t.game_id and r.commands == 1 for r in rows)


def test_a_rolled_back_unit_leaves_the_cached_game_as_the_store_has_it(local_game):
    t = local_game()
    book = t.mod.book
    game = book.running()[0]
    before = book.state(game)
    with pytest.raises(RuntimeError):
        with book.unit():
            from forumbot.rules.commands import HostAbort

            assert isinstance(book.apply(game, HostAbort(at=t.clock(), author="host")), list)
            assert game.status == "aborted"
            raise RuntimeError("then something fails")
    assert game.status == "running" and [g.id for g in book.running()] == [game.id]
    assert book.state(game).running and book.state(game) is not before  # read again from the log
    assert store.Event.select().where(store.Event.game == game.id).count() == len(store.game_events(game))


def test_a_status_edit_goes_back_to_pending_only_when_its_block_changed(db):
    g = store.Game.create(forum="x", host="h", preset="resistance", config="{}", seed=1,
                          created_at=store.naive(AT))
    key = f"{g.tag}:status-block"
    store.set_status_edits([(g.id, key, "one")], AT)
    store.Outbox.update(state="posted").execute()
    store.set_status_edits([(g.id, key, "one")], AT)
    assert store.Outbox.get(store.Outbox.key == key).state == "posted"
    store.set_status_edits([(g.id, key, "two")], AT)
    row = store.Outbox.get(store.Outbox.key == key)
    assert (row.state, row.body) == ("pending", "two")


def test_cursors_write_only_what_changed_and_the_inbox_ignores_a_message_seen(db):
    store.set_cursor("x", {"a": 1, "b": 2})
    with Statements() as q:
        store.set_cursor("x", {"a": 1, "b": 2}, before={"a": 1, "b": 2})
    assert q.n == 0
    store.set_cursor("x", {"a": 1, "b": 3, "c": 4}, before={"a": 1, "b": 2})
    assert store.get_cursor("x") == {"a": 1, "b": 3, "c": 4}
    m = ForumInbound(id="c1", kind="comment", author="ann", body="**APPROVE**", created=AT, thread="t")
    store.store_inbound("x", [m, m])
    store.store_inbound("x", [m])
    assert store.Inbound.select().count() == 1


def test_events_append_after_the_seq_given_and_refuse_a_wrong_one(db):
    g = store.Game.create(forum="x", host="h", preset="resistance", config="{}", seed=1,
                          created_at=store.naive(AT))
    from forumbot.rules.events import RawEvent as Event

    assert store.append_events(g, [Event("a", AT, {}), Event("b", AT, {})]) == 1
    assert store.append_events(g, [Event("c", AT, {})], 3) == 3
    with pytest.raises(store.IntegrityError):
        with store.db.atomic():
            store.append_events(g, [Event("d", AT, {})], 2)  # a stale guess fails, never forks
    assert [e.type for e in store.game_events(g)] == ["a", "b", "c"]


def test_a_vote_costs_a_few_statements(local_game):
    """Issue 14: a few SQL statements for each vote (bench/cycle.py --votes measures it at
    G=1000); here three votes in one game, with the cycle's own reads."""
    t = local_game()
    t.propose()
    t.cycle()
    voters = list(t.state.waiting_for())
    t.say(voters[0], "**APPROVE**")
    t.say(voters[1], "**APPROVE**")
    t.say(voters[2], "**APPROVE**")
    with Statements() as q:
        t.cycle()
    assert set(voters[:3]) <= set(t.state.votes)
    # 16 today: 3 event inserts, the inbox marked done in one update, one status block and
    # its edit, and the cycle's own reads and bookmarks (one statement a vote before: 45)
    assert q.n <= 20
