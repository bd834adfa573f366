"""The suites every forum runs (tests/support/sweeps.py), on the fake Reddit (real praw), the
fake Discourse, the fake XenForo and the local forum: whole games of every preset come out as
on the local forum; a fifth of requests failing changes nothing; the bot killed after a write
and started again posts nothing twice; the bad-input corpus, in the forum's markup; a 429's
Retry-After, whatever it says, is a wait from 0 to an hour; a post the adapter cannot name
is left out and the rest read; and the secrecy oracle over whole games, read through each
forum's view (tests/support/views.py). A sweep the local forum cannot run
(it has no server) says why in its skip. The heavy parts run under the `long` marker (`make
test-long`); the whole games through the command line are in tests/cli/test_forums_cli.py."""
from __future__ import annotations

import os
import re
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.base import Outgoing, TransientError
from forumbot import store
from tests.fakes.bots import NO_WAITS, make_bot
from tests.fakes.clock import Clock
from tests.fakes.driver import GAMES, play, reset_store
from tests.support.secrecy import TABLES, expected_names, pm_leaks
from tests.support.secrecy import public_leaks as secrecy_public_leaks
from tests.support.sweeps import (
    HOUR,
    NOW,
    SWEPT,
    crash_run,
    dups,
    forum_run,
    local_outcome,
    mangled,
    odd_ids,
    public_leaks,
    wait_headers,
    wait_said,
)

LONG = pytest.mark.long


def per_forum(quick: dict[str, list], every: list) -> list:
    """(forum, x) for each forum and each x of `every`: those in the forum's `quick` in `make
    test`, the rest under `long`."""
    return [pytest.param(f, x, id="-".join(map(str, (f, *(x if isinstance(x, tuple) else [x])))),
                         marks=() if x in quick[f] else LONG) for f in SWEPT for x in every]


# --- whole games --------------------------------------------------------------------------


def with_server(forum: str, why: str) -> None:
    """Skips a sweep that needs the forum's server (to fail, to kill the bot at a write, to
    answer odd JSON) on a forum without one, saying why (and where its own sweep is)."""
    if SWEPT[forum].without:
        pytest.skip(f"{SWEPT[forum].without} {why}")


# (in `make test` Reddit's game is its fault sweep's, against the local forum's, and its secrecy
# game's; the local forum's is test_fault_property.py's and test_secrecy.py's)
@pytest.mark.parametrize("forum,preset", per_forum({"reddit": [], "discourse": ["resistance", "avalon"],
                                                    "xenforo": ["resistance"], "local": []}, list(GAMES)))
def test_a_whole_game_comes_out_as_on_the_local_forum(forum, preset, db):
    swept = SWEPT[forum]
    run = forum_run(swept, preset, seed=11)
    got = run.outcome
    assert got["status"] == "finished" and got["winner"] in ("resistance", "spies")
    assert store.Outbox.select().where(store.Outbox.state != "posted").count() == 0
    for p in got["players"]:  # every player was dealt a role by PM, in the forum's markup
        assert any("Your role" in m and ("[b]" in m) == swept.bbcode for m in run.people.pms_to(p["name"])), p["name"]
    assert run.marks and not dups(run.marks), "a post went out twice"
    assert not run.unmarked, "a post without its marker"
    assert not public_leaks(swept, run, [p["name"] for p in got["players"]])
    reset_store()
    assert got == local_outcome(preset, seed=11)


@pytest.mark.parametrize("forum,preset", per_forum({f: ["resistance"] for f in SWEPT}, list(GAMES)))
def test_a_fifth_of_requests_fail_and_the_game_is_the_same(forum, preset, db):
    """(On the fake Reddit the faults include writes that land but answer with an error or a
    dropped connection; its prawcore tries a read again without sleeping.)"""
    with_server(forum, "whose requests could fail; its own faults (reads that fail, locks, a full disk, kills) "
                "are tests/sweeps/test_fault_property.py's")
    run = forum_run(SWEPT[forum], preset, seed=11, fault_rate=0.2)
    assert sum(run.injected.values()) > 20 and len(run.injected) >= 5, run.injected
    assert not dups(run.marks), "a post went out twice"
    reset_store()
    assert run.outcome == local_outcome(preset, seed=11)


# --- what a forum says about its wait --------------------------------------------------------


@pytest.mark.parametrize("forum", list(SWEPT))
def test_a_forums_wait_is_read_as_said_and_bounded(forum):
    """A 429's Retry-After, whatever it holds (a number of seconds, an HTTP date after the
    answer's Date or the bot's clock, words), on a write: a TransientError (no traceback) whose
    wait is from 0 to an hour, the one the header means where it means one; and a read that
    meets it goes on."""
    with_server(forum, "and no HTTP answer: nothing says Retry-After")
    b = make_bot(forum, Clock(), forum_kw=NO_WAITS)
    SWEPT[forum].members(b.fake, ["alice"])  # (on XenForo, a PM goes only to a member)
    b.forum.wall = NOW.timestamp  # (the bot's clock for the dates; the fake clock moves on for the waits)
    try:
        @settings(max_examples=60, deadline=None, database=None)
        @given(wait_headers())
        def said(headers):
            retry_after, dated, meant = headers
            b.clock.advance(seconds=HOUR + 1)  # (the last wait has passed: writes go out again)
            b.fake.faults.append(wait_said(retry_after, dated))
            with pytest.raises(TransientError) as e:
                b.forum.post(Outgoing("k", "pm", "a message", to="alice", subject="a subject"))
            assert not b.fake.faults, "the write was not sent"
            wait = e.value.retry_after
            assert wait is not None and 0 <= wait <= HOUR, (headers, wait)
            assert meant is None or wait == meant, (headers, wait)
            b.fake.faults.append(lambda method, path: wait_said(retry_after, dated)("POST", path))
            b.forum.fetch([], {})  # the read meets it once, waits (no waits here), reads again
            assert not b.fake.faults
        said()
    finally:
        b.stop()


# --- posts the adapter cannot name -----------------------------------------------------------


@pytest.mark.parametrize("forum", list(SWEPT))
def test_a_post_the_adapter_cannot_name_is_left_out_and_the_rest_is_read(forum, db, caplog):
    """A player's post whose id (or number, or time) is missing or no number, in the answer of
    the forum's read: no traceback, the post is left out (logged once, however often it is
    read), and the post after it in the same read is read."""
    with_server(forum, "and no JSON: its posts are rows of its own tables, named by their integer keys")
    b = make_bot(forum, Clock())
    try:
        t = b.table(5)
        said = iter(range(10**6))

        @settings(max_examples=15, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(key=st.sampled_from(SWEPT[forum].names), value=odd_ids())
        def read(key, value):
            n = next(said)
            odd, fine = f"an odd post {n}", f"a fine post {n}"
            b.fake.odd[odd] = mangled(key, value)
            t.say("bob", odd)
            t.say("carol", fine)
            caplog.clear()
            reports = [t.cycle(), t.cycle()]
            assert not any(r.errors for r in reports), [r.errors for r in reports]
            bodies = {m.body for m in store.Inbound.select(store.Inbound.body)}
            assert fine in bodies and odd not in bodies, (key, value)
            assert [r.levelname for r in caplog.records if "left out a post" in r.getMessage()] == ["WARNING"]
        read()
    finally:
        b.stop()


# --- the crash sweep ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def crash_baseline(tmp_path_factory):
    """The same game with no crash, on the local forum: its outcome."""
    store.connect(f"sqlite:///{tmp_path_factory.mktemp('local')}/bot.db")
    try:
        return local_outcome("resistance", 5)
    finally:
        store.close()


# CI runs every EVERY-th k of the long sweep, from one that turns with the day of the year, so
# that EVERY days of CI cover every k (FORUMBOT_CRASH_EVERY; 1, the default: every k).
EVERY = max(1, int(os.environ.get("FORUMBOT_CRASH_EVERY", "1") or 1))
FIRST = 1 + date.today().timetuple().tm_yday % EVERY


@pytest.mark.parametrize("forum,k", per_forum({"reddit": [1, 8, 55], "discourse": [7], "xenforo": [7], "local": [7]},
                                              [1, 2, 7, 8, 25, 55, 60]))
def test_killed_after_write_k_the_game_is_the_same(forum, tmp_path, crash_baseline, k):
    with_server(forum, "to kill the bot after its k-th write; tests/sweeps/test_fault_property.py kills it "
                "after the n-th post (`kill`)")
    got, marked, _, crashes = crash_run(SWEPT[forum], tmp_path, k)
    assert crashes == 1
    assert got == crash_baseline
    assert not dups(marked), f"posted twice after a kill at write {k}"


@pytest.fixture(scope="module")
def writes_of(tmp_path_factory):
    """How many writes the game makes on a forum, uncrashed (played once a forum and worker)."""
    known: dict[str, int] = {}

    def writes(forum: str) -> int:
        if forum not in known:
            known[forum] = crash_run(SWEPT[forum], tmp_path_factory.mktemp(forum), None)[2]
        return known[forum]
    return writes


@pytest.mark.long
@pytest.mark.parametrize("forum", list(SWEPT))
@pytest.mark.parametrize("k", range(FIRST, 150, EVERY))  # (the game makes 135 writes on Reddit)
def test_killed_after_every_write(forum, tmp_path, crash_baseline, writes_of, k):
    with_server(forum, "to kill the bot after its k-th write; tests/sweeps/test_fault_property.py kills it "
                "after the n-th post (`kill`)")
    if k > writes_of(forum):
        pytest.skip(f"the game has only {writes_of(forum)} writes")
    got, marked, _, crashes = crash_run(SWEPT[forum], tmp_path, k)
    assert crashes == 1 and got == crash_baseline and not dups(marked)


# --- the corpus of bad input, in the forum's markup ----------------------------------------


def _corpus():
    from tests.support.corpus import CORPUS
    return CORPUS


@pytest.mark.parametrize("forum", list(SWEPT))
@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem, marks=() if i % 10 == 0 else LONG)
                                  for i, p in enumerate(_corpus())])
def test_the_bad_input_corpus(forum, db, bot, path):
    """tests/corpus on the forum: each case answered or ignored as the corpus says."""
    from tests.support.sweeps import corpus_case

    corpus_case(SWEPT[forum], bot(forum).table(5), path)


# --- secrecy, on each forum -----------------------------------------------------------------


def secrecy_check(forum: str, preset: str, n: int, seed: int) -> None:
    """tests/sweeps/test_secrecy.py's invariant over a whole game on the forum, read through its
    view (tests/support/views.py): no public post of the bot, before the end post, links a
    player to a side or role; each PM reaches only the player it is for and says only what
    that player may know; each role PM names exactly whom that role may know."""
    swept = SWEPT[forum]
    b = make_bot(forum, Clock())
    try:
        t = b.table(n, preset=preset, extra=GAMES[preset][1], seed=seed)  # every card and role in play
        play(t, seed)
        result, view = t.export(), swept.view(b.fake or b.forum, t.game.thread)
        names = [p["name"] for p in result["players"]]
        assert result["status"] == "finished" and result["winner"] in ("resistance", "spies"), (preset, n, seed)
        assert secrecy_public_leaks(view, names) == [], (preset, n, seed)
        assert pm_leaks(view, result) == [], (preset, n, seed)
        assert all(people == 2 for _, people in view.conversations()), view.conversations()
        for p in names:
            role_pm = next(r["body"] for r in view.messages_to(p) if "Your role" in r["body"])
            named = {q for q in names if q != p and re.search(rf"\b{q}\b", role_pm)}
            assert named == expected_names(result, p), (preset, n, seed, p)
    finally:
        b.stop()


SECRECY = [("resistance", 6), ("avalon", 7), ("so-say-we-all", 5)]
QUICK_SECRECY = {"reddit": [("avalon", 7)], "discourse": SECRECY, "xenforo": [("avalon", 7)], "local": []}


@pytest.mark.parametrize("forum,game", per_forum(QUICK_SECRECY, SECRECY))
def test_secrecy(db, forum, game):
    preset, n = game
    secrecy_check(forum, preset, n, seed=n * 31)


@pytest.mark.long
@pytest.mark.parametrize("forum", list(SWEPT))
@pytest.mark.parametrize("preset", ["resistance", "resistance-plot", "avalon", "avalon-2020", "so-say-we-all"])
def test_secrecy_sweep_every_table_size(db, forum, preset):
    """(Three seeds a table on Discourse, as its own sweep had; one on the others. The local
    forum's thousands of games a preset are tests/sweeps/test_secrecy.py's.)"""
    for p, n in TABLES:
        if p == preset:
            for seed in range(3 if forum == "discourse" else 1):
                secrecy_check(forum, preset, n, seed * 31 + n)
                reset_store()


@pytest.mark.parametrize("forum", list(SWEPT))
def test_the_view_finds_a_leak(db, forum):
    """The sweep's checks see what the bot posts on the forum: a side named in the thread
    before the end post, or another player's side in a role PM, is caught."""
    swept = SWEPT[forum]
    b = make_bot(forum, Clock())
    try:
        t = b.table(5)
        say = lambda key, **kw: b.forum.post(Outgoing(key, **kw))  # noqa: E731  (as the bot)
        say("a1b2c3d4e5f6a7b8", kind="comment", body="Between you and me, bob is a spy.", thread=t.game.thread)
        say("b1b2c3d4e5f6a7b8", kind="comment", body="### Good wins, by three missions.", thread=t.game.thread)
        say("c1b2c3d4e5f6a7b8", kind="pm", to="alice", subject="G1 a note",
            body="Your role: you are Resistance. bob (spy) is with you.")
        view = swept.view(b.fake or b.forum, t.game.thread)
        names = list(t.players)
        assert [line for line in secrecy_public_leaks(view, names) if "Between you" in line] == \
            secrecy_public_leaks(view, names) != []
        result = {"preset": "resistance", "events": [], "players": [
            {"name": q, "side": "spies" if q == "bob" else "resistance", "role": "spy" if q == "bob" else "resistance"}
            for q in names]}
        assert pm_leaks(view, result) != []
    finally:
        b.stop()
