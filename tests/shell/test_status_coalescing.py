"""Status edits coalesced (issue 26, item 7): when writes are short, a post edited less than
the coalescing window ago is edited again only after every other waiting block, so a burst of
votes is one edit, with the newest block; results, prompts and PMs never wait behind edits;
with room to spare every edit goes at once."""
from __future__ import annotations

from datetime import timedelta

from forumbot import store
from forumbot.shell.outbox.budget import COALESCE_WINDOW
from forumbot.shell.outbox.delivery import _urgency, _window
from tests.fakes.table import NAMES, Table, config_text

BACKGROUND = 8  # other games, each of whose blocks changes once during the burst


def _setup(bot, clock, background: int = BACKGROUND):
    """A ten-player game (the table) and `background` five-player games, all started and
    every post out; the forum's posts are recorded as (time, kind, thread, body)."""
    b = bot("local")
    forum, people = b.forum, b.people
    mod = b.moderator(writes_per_minute=None)
    t = Table(forum, people, clock, players=NAMES, make_moderator=lambda: mod).start(host="hosta")
    for g in range(background):
        people.pm(f"host{g}", "new game", config_text(NAMES[:5], seed=g))
    for _ in range(3):
        clock.advance(seconds=61)
        mod.cycle()
    assert not store.Outbox.select().where(store.Outbox.state == "pending").exists()
    sent: list[tuple] = []
    post = forum.post

    def recorded(out):
        sent.append((clock(), out.kind, out.thread, out.body))
        return post(out)

    forum.post = recorded  # type: ignore[method-assign]
    others = [g for g in store.Game.select().order_by(store.Game.id) if g.id != t.game_id]
    return t, mod, others, sent


def _edits_of(sent, thread) -> list[tuple]:
    return [s for s in sent if s[1] == "edit" and s[2] == thread]


def _change_others(others, clock, n: int) -> None:
    store.set_status_edits([(g.id, f"{g.tag}:status-block", f"Block of {g.tag}, change {n}.") for g in others],
                           clock())


def test_a_burst_of_votes_is_one_edit_with_the_newest_block(db, bot, clock):
    t, mod, others, sent = _setup(bot, clock)
    mod.budget.per_minute = 6  # the edits' share: 3 a minute
    t.propose()  # the proposal: a prompt and an edit, at once
    thread = t.game.thread
    assert len(_edits_of(sent, thread)) == 1
    voters = [t.state.shown(x) for x in t.state.waiting_for()]
    burst = clock()
    for i, name in enumerate(voters[:-1]):  # nine votes, one every ten seconds
        clock.advance(seconds=10)
        t.say(name, "**APPROVE**")
        if i == 0:
            _change_others(others, clock, 1)  # other games' blocks change after the first vote
        t.cycle()
    # The table's block has been out of date longer than the others', but its post was edited
    # within the window: the others went first, the table's waited and took every vote.
    assert len(_edits_of(sent, thread)) == 1
    assert [s for s in sent if s[1] == "edit" and s[2] != thread]  # (the edits' share was used)
    assert clock() - burst < timedelta(seconds=COALESCE_WINDOW)
    for _ in range(12):
        clock.advance(seconds=30)
        t.cycle()
    edits = _edits_of(sent, thread)
    assert len(edits) == 2  # the nine votes: one edit
    assert "Still to vote: judy." in edits[-1][3]  # the newest block
    assert "Still to vote: judy." in t.people.opening(thread)
    assert not store.Outbox.select().where(store.Outbox.state == "pending").exists()


def test_the_result_of_the_last_vote_goes_out_in_its_cycle_while_edits_wait(any_db, bot, clock):
    t, mod, others, sent = _setup(bot, clock)
    mod.budget.per_minute = 6
    t.propose()
    voters = [t.state.shown(x) for x in t.state.waiting_for()]
    _change_others(others, clock, 1)
    for name in voters:  # every vote in one cycle: the vote closes
        t.say(name, "**APPROVE**")
    clock.advance(seconds=10)
    t.cycle()
    assert t.state.phase == "mission"
    waiting = list(store.Outbox.select().where(store.Outbox.state == "pending"))
    assert [w for w in waiting if w.kind == "edit"]  # edits wait for their share
    assert all(w.priority > 0 for w in waiting), [(w.key, w.priority) for w in waiting]
    now = [s for s in sent if s[0] == clock() and s[1] == "comment" and s[2] == t.game.thread]
    assert now and "approved" in now[-1][3].lower()  # the result went out in the same cycle


def test_with_room_to_spare_every_edit_goes_at_once(db, bot, clock):
    t, mod, others, sent = _setup(bot, clock, background=0)
    mod.budget.per_minute = 60
    t.propose()
    thread = t.game.thread
    for name in [t.state.shown(x) for x in t.state.waiting_for()][:-1]:
        clock.advance(seconds=10)
        t.say(name, "**APPROVE**")
        t.cycle()
    assert len(_edits_of(sent, thread)) == 10  # the proposal and each of nine votes, each at once


def _row(key, created, posted=None, priority=3, kind="edit"):
    return store.Outbox(key=key, kind=kind, body="b", priority=priority, created_at=store.naive(created),
                        posted_at=store.naive(posted) if posted else None)


def test_when_short_a_post_edited_within_the_window_comes_after_the_others(clock):
    now = clock()
    recent = now - timedelta(seconds=COALESCE_WINDOW)
    edited_lately = _row("G1:status-block", now - timedelta(seconds=100), now - timedelta(seconds=110))
    stale_block = _row("G2:status-block", now - timedelta(seconds=30), now - timedelta(hours=1))
    never = _row("G3:status-block", now - timedelta(seconds=20))
    result = _row("G4:7:thread", now, kind="comment", priority=0)
    rows = [edited_lately, stale_block, never, result]
    assert [r.key for r in sorted(rows, key=lambda r: _urgency(r, recent))] == [
        "G4:7:thread", "G2:status-block", "G3:status-block", "G1:status-block"]
    # with room to spare: the stalest block first, whenever its post was last edited
    assert [r.key for r in sorted(rows, key=_urgency)][1:] == [
        "G1:status-block", "G2:status-block", "G3:status-block"]


def test_writes_are_short_by_the_edits_share_or_the_forums_own_count(clock):
    from forumbot.shell.outbox.budget import WriteBudget

    now = clock()
    edits = [_row(f"G{n}:status-block", now) for n in range(3)]
    b = WriteBudget(6, clock)  # the edits' share: 3
    assert _window(edits, b, None, now) is None
    b.spend()
    assert _window(edits, b, None, now) == now - timedelta(seconds=COALESCE_WINDOW)
    assert _window(edits[:2], b, None, now) is None
    assert _window(edits[:2], b, 15, now) is not None  # the forum says few requests are left
    assert _window(edits, WriteBudget(None, clock), None, now) is None  # no budget: never short


def test_a_newer_block_keeps_the_time_its_post_first_went_out_of_date(any_db, clock):
    store.set_status_edits([(1, "G1:status-block", "one")], clock())
    first = clock()
    clock.advance(seconds=50)
    store.set_status_edits([(1, "G1:status-block", "two")], clock())
    row = store.Outbox.get(store.Outbox.key == "G1:status-block")
    assert row.body == "two" and store.aware(row.created_at) == first
    store.Outbox.update(state="posted", posted_at=store.naive(clock())).execute()
    clock.advance(seconds=50)
    store.set_status_edits([(1, "G1:status-block", "three")], clock())
    row = store.Outbox.get(store.Outbox.key == "G1:status-block")
    assert row.state == "pending" and store.aware(row.created_at) == clock()


def _statements(monkeypatch) -> list[str]:
    """The SQL the store sends from now on."""
    sent: list[str] = []
    database = store.db.obj
    execute = database.execute_sql

    def recorded(sql, params=None, *a, **kw):
        sent.append(sql)
        return execute(sql, params, *a, **kw)

    monkeypatch.setattr(database, "execute_sql", recorded)
    return sent


def test_edits_are_read_again_and_marked_posted_a_batch_at_a_time(any_db, bot, clock, monkeypatch):
    """Eight games' blocks change: each goes out once, with its newest block, and the outbox
    reads them again and marks them posted in one statement per batch (three here), not
    two statements per edit."""
    from forumbot.shell.outbox import edits

    t, mod, others, sent = _setup(bot, clock)
    monkeypatch.setattr(edits, "BATCH", 3)
    _change_others(others, clock, 1)
    statements = _statements(monkeypatch)
    mod.delivery.flush()
    for g in others:
        assert [s[3] for s in _edits_of(sent, g.thread)] == [
            t.people.opening(g.thread)] and "change 1" in t.people.opening(g.thread)
    outbox = [s for s in statements if '"outbox"' in s]
    assert len([s for s in outbox if s.startswith("UPDATE")]) == 3  # 8 edits, marked 3 at a time
    assert len([s for s in outbox if s.startswith("SELECT") and "IN (" in s]) == 3  # read again 3 at a time
    assert not store.Outbox.select().where(store.Outbox.state == "pending").exists()


def test_a_lock_in_the_middle_of_a_flush_sends_no_edit_twice(db, bot, clock, monkeypatch):
    """The database is locked when the edits that went out are to be marked posted: the cycle
    fails (nothing lost), and the next cycle marks them without editing the posts again."""
    import peewee

    t, mod, others, sent = _setup(bot, clock)
    _change_others(others, clock, 1)
    database = store.db.obj
    execute = database.execute_sql
    locked = {"n": 0}

    def sometimes_locked(sql, params=None, *a, **kw):
        if sql.startswith('UPDATE "outbox"') and '"posted_at"' in sql and not locked["n"]:
            locked["n"] += 1
            raise peewee.OperationalError("database is locked")
        return execute(sql, params, *a, **kw)

    monkeypatch.setattr(database, "execute_sql", sometimes_locked)
    report = mod.cycle()
    assert locked["n"] == 1 and any(e.startswith("database:") for e in report.errors), report
    clock.advance(seconds=30)
    report = mod.cycle()
    assert not report.errors, report
    for g in others:
        edits = _edits_of(sent, g.thread)
        assert len(edits) == 1 and "change 1" in edits[0][3], (g.tag, edits)
    assert not store.Outbox.select().where(store.Outbox.state == "pending").exists()
