"""A quiet cycle (nothing new, no deadline due) costs what the forum's reading costs, not a
pass over every running game (issue 26 item 4): what the cycle asks of all the games' rows
(the live ones, the running ones, their threads, the first deadline) is worked out again
only when a row changed, and the horizon passes over the threads only when one fails."""
from datetime import datetime, timedelta, timezone

from forumbot import store
from forumbot.shell.horizon import THREADS, Horizon


class CountedData(dict):
    """A row's fields that count how often one is read."""

    reads = 0

    def __getitem__(self, key):
        CountedData.reads += 1
        return super().__getitem__(key)

    def get(self, key, default=None):
        CountedData.reads += 1
        return super().get(key, default)


def test_a_quiet_cycle_reads_no_games_row_and_a_deadline_still_closes(local_game, clock):
    t = local_game()
    t.propose()
    t.say("bob", "**APPROVE**")
    t.cycle()
    t.cycle()
    rows = t.mod.book._rows
    assert rows
    for g in rows.values():
        g.__data__ = CountedData(g.__data__)
    CountedData.reads = 0
    report = t.cycle()
    assert not report.fetched and not report.deadlines and not report.errors
    assert CountedData.reads == 0
    phase = t.state.phase_id
    clock.advance(days=3)  # the vote's deadline passes: the cycle finds it, and closes it
    t.cycle()
    t.cycle()
    assert t.state.phase_id > phase


def test_the_games_lists_follow_a_change_set_on_a_row(local_game, clock):
    t = local_game()
    book = t.mod.book
    now = clock()
    (game,) = book.live()
    assert book.running() == [game] and book.due(now) == [] and book.threads() == [game.thread]
    game.next_deadline = store.naive(now - timedelta(seconds=1))  # (set on the kept row)
    assert book.due(now) == [game]
    game.thread = "elsewhere"
    assert book.threads() == ["elsewhere"]
    game.status = "finished"
    assert book.live() == [] and book.running() == [] and book.due(now) == [] and book.threads() == []
    book.new_cycle()
    assert book._rows == {}


class CountedFailed(dict):
    """The failed threads of a fetch, counting how often one is looked up."""

    lookups = 0

    def __contains__(self, key):
        CountedFailed.lookups += 1
        return super().__contains__(key)


def test_a_fetch_with_no_thread_failing_makes_no_pass_over_the_threads(db):
    h = Horizon("local")
    started = datetime(2026, 1, 1, tzinfo=timezone.utc)
    threads = [f"t{i:04d}" for i in range(500)]
    CountedFailed.lookups = 0
    h.read(started, threads, CountedFailed())
    assert CountedFailed.lookups == 0
    assert store.get_cursor("local#bot")[THREADS] == threads
    # One failing: the others are kept, in order, and the failing one is remembered.
    h.read(started + timedelta(minutes=1), threads, {"t0007": "down"})
    assert store.get_cursor("local#bot")[THREADS] == [t for t in threads if t != "t0007"]
    h.read(started + timedelta(minutes=2), list(reversed(threads)), {})
    assert store.get_cursor("local#bot")[THREADS] == threads


def test_a_rolled_back_change_leaves_the_games_lists_as_the_store_holds_them(local_game, clock):
    """A unit that ended a game and was rolled back: the kept row takes back its status in
    place (not through its field), and the lists are those of the store again."""
    t = local_game()
    book = t.mod.book
    (game,) = book.running()
    try:
        with book.unit():
            game.status = "finished"
            game.next_deadline = None
            game.save()
            assert book.running() == [] and book.due(clock() + timedelta(days=30)) == []
            raise RuntimeError("rolled back")
    except RuntimeError:
        pass
    assert game.status == "running"
    assert book.running() == [game] and book.live() == [game]
    assert book.due(clock() + timedelta(days=30)) == [game]
