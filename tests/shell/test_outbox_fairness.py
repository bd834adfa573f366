"""Status blocks under load (issue 21, item 12): when more games change than the write
budget's share for edits takes, the edits go out stalest first, so every game's block is
edited within a bounded number of cycles; and an edit overtaken by a newer block for the same
post is never sent stale, nor marked sent in its place."""
from __future__ import annotations

import math
import re

from adapters.local import LocalForum
from forumbot import store
from tests.fakes.bots import make_bot
from tests.fakes.table import NAMES, config_text

GAMES = 30
PER_MINUTE = 12  # the edits' share: 6 a minute
BLOCK = re.compile(r"Block of G(\d+), change (\d+)\.")


def _many_games(clock, n: int):
    b = make_bot("local", clock)
    forum, people = b.forum, b.people
    mod = b.moderator(writes_per_minute=None)  # the games start unhindered
    for g in range(n):
        people.pm(f"host{g}", "new game", config_text(NAMES[:5], seed=g))
    for _ in range(4):
        mod.cycle()
        clock.advance(seconds=61)
    games = list(store.Game.select().order_by(store.Game.id))
    assert len(games) == n and all(g.thread for g in games)
    assert not store.Outbox.select().where(store.Outbox.state == "pending").exists()
    return forum, mod, games


def _shown(forum: LocalForum) -> dict[int, int]:
    """The change each game's opening post shows now (game id -> change number)."""
    shown = {}
    for t in forum.threads():
        if m := BLOCK.search(t["body"] or ""):
            shown[int(m.group(1))] = int(m.group(2))
    return shown


def test_every_games_status_block_is_edited_within_a_bounded_number_of_cycles(db, clock):
    forum, mod, games = _many_games(clock, GAMES)
    mod.budget.per_minute = PER_MINUTE
    sent: list[tuple[int, int, int]] = []  # (game, change sent, newest change in the store then)
    post = forum.post

    def watched(out):
        if out.kind == "edit" and (m := BLOCK.search(out.body)):
            g = int(m.group(1))
            newest = store.Outbox.get(store.Outbox.key == f"G{g}:status-block").body
            sent.append((g, int(m.group(2)), int(BLOCK.search(newest).group(2))))
        return post(out)

    forum.post = watched  # type: ignore[method-assign]
    share = int(PER_MINUTE * 0.5)
    bound = math.ceil(GAMES / share) + 1  # cycles within which every game must have had its turn
    last_edit = {g.id: 0 for g in games}
    for change in range(1, 3 * bound + 1):
        # every game changes every cycle (as GameBook.write_blocks writes them)
        store.set_status_edits([(g.id, f"G{g.id}:status-block", f"Block of G{g.id}, change {change}.")
                                for g in games], clock())
        mod.cycle()
        for g, shown in _shown(forum).items():
            if shown == change:
                last_edit[g] = change
        assert all(change - last_edit[g] < bound for g in last_edit), (
            f"cycle {change}: games not edited for {bound} cycles: "
            f"{sorted(g for g in last_edit if change - last_edit[g] >= bound)}")
        clock.advance(seconds=61)
    assert sent and all(shown == newest for _, shown, newest in sent), "a stale block was sent"
    edited = {g for g, _, _ in sent}
    assert edited == {g.id for g in games}


def test_an_edit_overtaken_while_in_flight_is_not_marked_sent_in_the_newer_ones_place(db, clock):
    """A newer block that reaches the store while the older one is on its way (another
    process, a slow forum) goes out next: the row is not marked sent with the older body."""
    forum, mod, games = _many_games(clock, 2)
    g = games[0]
    key = f"G{g.id}:status-block"
    post = forum.post
    calls = []

    def slow(out):
        calls.append(out.body)
        if out.kind == "edit" and len(calls) == 1:  # while the first edit is in flight: a newer block
            store.set_status_edit(g.id, key, f"Block of G{g.id}, change 2.", clock())
        return post(out)

    forum.post = slow  # type: ignore[method-assign]
    store.set_status_edit(g.id, key, f"Block of G{g.id}, change 1.", clock())
    mod.cycle()  # (its second flush sends the newer block)
    clock.advance(seconds=61)
    mod.cycle()
    row = store.Outbox.get(store.Outbox.key == key)
    assert row.body.endswith("change 2.") and row.state == "posted"
    assert _shown(forum)[g.id] == 2  # the newer block is on the forum, not lost
    assert len(calls) == 2


def test_a_deferred_edit_goes_out_with_the_newest_block(db, clock):
    """An edit the forum deferred (a rate limit) that a newer block replaces meanwhile: only
    the newer block is ever sent."""
    from adapters.base import TransientError

    forum, mod, games = _many_games(clock, 1)
    g = games[0]
    key = f"G{g.id}:status-block"
    post = forum.post
    bodies = []

    def limited(out):
        if out.kind == "edit":
            bodies.append(BLOCK.search(out.body).group(2))
            if len(bodies) == 1:
                raise TransientError("rate limited", retry_after=30)
        return post(out)

    forum.post = limited  # type: ignore[method-assign]
    store.set_status_edit(g.id, key, f"Block of G{g.id}, change 1.", clock())
    mod.cycle()
    store.set_status_edit(g.id, key, f"Block of G{g.id}, change 2.", clock())
    clock.advance(seconds=61)
    mod.cycle()
    assert bodies == ["1", "2"] and _shown(forum)[g.id] == 2
