"""A property over random games of every preset on the local forum, with the bot's store on
SQLite (issue 10): whatever goes wrong in random cycles, the game comes out the same.

A game is played by `driver.play` (seeded random legal moves, typed as players would, at the
driver's clock); a step is one move and the cycles until the bot has settled (step 0: the
game's creation). In random steps a fault strikes the first cycles (sometimes two faults, one
after the other):

- `read`: the forum cannot be read at all (fetch raises TransientError), for 1-5 cycles;
- `listing`: the PMs are read but the game threads fail (Fetched.failed), or are read only
  in part (one comment, Fetched.partial), for 1-5 cycles;
- `lock`: another connection holds the write lock (BEGIN IMMEDIATE) for 0.2-0.6 s, less than
  the bot's busy timeout of 5 s: the bot only waits;
- `lock-long`: the same for 0.25 s with the bot's busy timeout cut to 30 ms, so that the
  bot really gets "database is locked";
- `full`: the disk is full (max_page_count = page_count on the bot's connection, applied
  again at the start of each faulty cycle) for 1-3 cycles. It bites only a write that needs
  a new page (then SQLite rolls the transaction back by itself), a fifth of the time or so;
- `refuse`: every write fails ("attempt to write a readonly database", PRAGMA query_only on
  the bot's connection) for 1-3 cycles: a full disk that bites every time;
- `kill`: the process dies (Killed, a BaseException) before a fetch is answered, before
  the PMs are marked read, right after the n-th post landed, or at the n-th time the bot
  reads its clock (anywhere: inside a transaction too). The broken transaction is rolled
  back and the connection dropped (db_trouble.recover()), as a dead process's would be, and a
  fresh Moderator goes on from what the database kept.

A lock starts before the cycle, right after the fetch answered (before it is stored), or
right after the n-th post landed (before it is marked posted). A fault `late` strikes the
step that posts the last vote of a vote that closes at its deadline (avalon-2020): the clock
passes the deadline (as the driver would next) before the bot could read or handle the vote.

Then, against the same seed without faults: the export's `outcome` is the same; no outbox
key was posted twice (LocalForum.keys_posted); the same keys were posted (but the host's
notices of a fault) and every post says the same, times aside; no message ended in state
"error" or failed to be handled; nothing is left new or pending; the bot logged no traceback.

The plan comes from `random.Random(f"{preset}:{seed}")`; a failure prints the preset, seed
and plan, and `reproduce(preset, seed, plan, tmp_path)` plays one plan again (a sub-list of
it to reduce a failure). Whether a lock or a full disk bites depends on timing and on the
pages at hand, so `fired`, `unfired` and `effects` of a Run say what each fault did. The
small sample runs in `make test`, the large one in `make test-long`.
"""
from __future__ import annotations

import logging
import os
import random
import re
import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta

import pytest

from adapters.base import Fetched, TransientError
from adapters.local import LocalForum
from forumbot import db_trouble, store
from forumbot.rules import deadlines
from forumbot.shell.moderator import Moderator
from tests.fakes.clock import Clock
from tests.fakes.driver import GAMES, outcome, play, settle
from tests.fakes.table import NAMES, LocalPeople, Table, config_text

KINDS = ["read", "listing", "lock", "lock-long", "full", "kill", "refuse"]
WEIGHTS = [1, 1, 1, 1, 2, 2, 1]  # a full disk bites only when a write needs a new page
LOCK_AT = ["start", "fetched", "post:1", "post:2"]
KILL_AT = ["fetch", "marking", "post:1", "post:2", "post:3"]
ARMED_CYCLES = 3  # a fault at a point (a lock, a kill) waits this many cycles for its point
SHORT_BUSY = 30  # ms: the bot's busy timeout for `lock-long`
BUSY = 5000  # ms: the bot's own busy timeout (store.connect)
NO_LIMIT = 1073741823
NOTICE = re.compile(r":(unreadable|waiting):")  # what the host is told of a fault, with faults only
ID = re.compile(r"(local:)([cm]\d+)")  # a forum id in an outbox key
# Posts show times, and how long is left ("in 1d", "in 23h 59m"): faults take some time.
STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d|\(in (\d+[dhms] ?)+\)")


class Killed(BaseException):
    """The process died here (not an Exception: nothing in the bot may catch it)."""


@dataclass(frozen=True)
class Fault:
    step: int  # the driver's step it strikes (0: the settling right after the start)
    kind: str  # one of KINDS
    at: str = "start"  # start | fetch | fetched | marking | post:N | clock:N | partial
    cycles: int = 1  # read, listing, full: how many cycles in a row
    hold: float = 0.0  # lock: seconds
    late: bool = False  # the step posts the last vote of a vote that closes at its deadline:
    #                     the clock passes the deadline before the bot could read or handle it

    def __repr__(self):
        extra = "".join([f", at={self.at!r}" if self.at != "start" else "",
                         f", cycles={self.cycles}" if self.cycles != 1 else "",
                         f", hold={self.hold}" if self.hold else "",
                         ", late=True" if self.late else ""])
        return f"Fault({self.step}, {self.kind!r}{extra})"


def make_plan(rng: random.Random, steps: int, n: int, every_kind: bool = True,
              long_locks: bool = False, late_steps=(), piled: int = 0) -> list[Fault]:
    """`n` faults at distinct random steps of a game of `steps` steps; with `every_kind`, the
    first seven are one of each kind. A third of them (at most) strike steps of `late_steps`
    (where the last vote of a vote that closes at its deadline is posted) late. `piled` more
    strike steps that have one already."""
    n = min(n, steps)
    sure = list(KINDS[:n]) if every_kind else []  # at points every cycle passes
    kinds = [(k, True) for k in sure] + [(k, False) for k in rng.choices(KINDS, WEIGHTS, k=n - len(sure))]
    rng.shuffle(kinds)
    late = rng.sample(sorted(late_steps), min(len(late_steps), n // 3))
    others = rng.sample(sorted(set(range(steps)) - set(late)), n - len(late))
    plan = []
    for step, (kind, sure) in zip(sorted(late + others), kinds, strict=True):
        late_one = step in late and kind != "lock"  # (a short lock changes nothing there)
        plan.append(Fault(step, kind, late=late_one, **_details(rng, kind, long_locks, sure)))
    for _ in range(piled):  # a second fault in the same step, after the first
        first = rng.choice(plan)
        kind = rng.choices(KINDS, WEIGHTS)[0]
        plan.insert(plan.index(first) + 1, Fault(first.step, kind, **_details(rng, kind, long_locks)))
    return plan


def _details(rng: random.Random, kind: str, long_locks: bool, sure: bool = False) -> dict:
    if sure and kind in ("lock", "lock-long"):
        return {"at": rng.choice(["start", "fetched"]), "hold": 0.25}
    if sure and kind == "kill":
        return {"at": rng.choice(["fetch", "post:1", f"clock:{rng.randint(1, 12)}"])}
    if kind == "read":
        return {"cycles": rng.choice([1, 1, 2, 3, 5])}
    if kind == "listing":
        return {"cycles": rng.choice([1, 1, 2, 3, 5]), "at": rng.choice(["start", "partial"])}
    if kind in ("full", "refuse"):
        return {"cycles": rng.choice([1, 1, 2, 3])}
    if kind == "lock":
        return {"at": rng.choice(LOCK_AT), "hold": round(rng.uniform(0.2, 0.6 if long_locks else 0.35), 2)}
    if kind == "lock-long":
        return {"at": rng.choice(LOCK_AT), "hold": 0.25}
    return {"at": rng.choice(KILL_AT + [f"clock:{rng.randint(1, 60)}"] * 2)}


class FaultyForum:
    """The local forum, with a hook at every point where a fault can strike."""

    def __init__(self, forum: LocalForum):
        self.forum = forum
        self.down = False  # fetch raises TransientError
        self.listing_down = None  # "failed": the threads cannot be read, the inbox can;
        #                           "partial": a thread is read only in part
        self.on = lambda point: None

    def __getattr__(self, name):
        return getattr(self.forum, name)

    def fetch(self, threads, cursor):
        self.on("fetch")
        if self.down:
            raise TransientError("503 Service Unavailable")
        got = self.forum.fetch(threads, cursor)
        if self.listing_down == "failed":  # no comment at all, and the threads failed
            got = Fetched(inbound=[m for m in got.inbound if m.kind != "comment"],
                          cursor=dict(cursor), failed={t: "503 Service Unavailable" for t in threads})
        elif self.listing_down == "partial":  # one comment (of all that wait), no error
            comments = [m for m in got.inbound if m.kind == "comment"][:1]
            got = Fetched(inbound=comments + [m for m in got.inbound if m.kind != "comment"],
                          cursor={"comment": int(comments[0].id[1:])} if comments else dict(cursor),
                          partial=set(threads))
        self.on("fetched")
        return got

    def mark_read(self, ids):
        self.on("marking")
        return self.forum.mark_read(ids)

    def post(self, out):
        posted = self.forum.post(out)
        self.on("post")
        return posted


class BotClock:
    """The bot's clock: the table's, with a hook at every reading."""

    def __init__(self, clock: Clock):
        self.clock = clock
        self.on = lambda point: None

    def __call__(self):
        self.on("clock")
        return self.clock()


class WriteLock:
    """Another connection holds the write lock of the bot's file for `hold` seconds."""

    def __init__(self, path: str, hold: float):
        self.held = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(path, hold), daemon=True)
        self.thread.start()
        assert self.held.wait(5), "the other connection could not take the write lock"

    def _run(self, path, hold):
        other = sqlite3.connect(path, timeout=5, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            self.held.set()
            time.sleep(hold)
            other.execute("ROLLBACK")
        finally:
            other.close()

    def join(self):
        self.thread.join(10)


def disk_full() -> None:
    count = store.db.execute_sql("PRAGMA page_count").fetchone()[0]
    store.db.execute_sql(f"PRAGMA max_page_count = {count}")


def disk_free() -> None:
    store.db.execute_sql(f"PRAGMA max_page_count = {NO_LIMIT}")


@dataclass
class Run:
    """One game played with a plan of faults."""

    preset: str
    seed: int
    path: str  # the bot's database file
    plan: list[Fault] = field(default_factory=list)
    steps: int = 0
    fired: Counter = field(default_factory=Counter)  # fault kinds that struck
    unfired: list = field(default_factory=list)  # faults whose point never came (or step)
    db_errors: int = 0  # database errors the bot logged
    fetch_errors: int = 0  # cycles whose fetch failed
    effects: list = field(default_factory=list)  # (fault, database errors it caused)
    jumps: list = field(default_factory=list)  # steps where the driver moved the clock to a deadline
    late: int = 0  # late faults that found their vote

    def play(self):
        store.close()
        for suffix in ("", "-wal", "-shm"):  # a new database (the db fixture's file is empty)
            if os.path.exists(self.path + suffix):
                os.remove(self.path + suffix)
        store.connect(f"sqlite:///{self.path}")
        counter = _DatabaseErrors(self)
        bot_log = logging.getLogger("forumbot")
        level = bot_log.level
        if bot_log.getEffectiveLevel() > logging.ERROR:
            bot_log.setLevel(logging.ERROR)
        bot_log.addHandler(counter)
        try:
            return self._play()
        finally:
            bot_log.removeHandler(counter)
            bot_log.setLevel(level)

    def _play(self):
        n, extra = GAMES[self.preset]
        self.clock = Clock()
        self.local = LocalForum(":memory:", clock=self.clock)
        self.forum = FaultyForum(self.local)
        self.bot_clock = BotClock(self.clock)
        self.t = Table(self.forum, LocalPeople(self.local), self.clock, players=NAMES[:n],
                       make_moderator=lambda: Moderator(self.forum, clock=self.bot_clock))
        self.by_step = {}
        for f in self.plan:
            self.by_step.setdefault(f.step, []).append(f)
        self.dead = False
        self.t.people.pm("host", "new game", config_text(self.t.players, preset=self.preset, extra=extra))
        self.act()  # step 0: the game is made and its opening posts go out
        game = store.Game.select().order_by(store.Game.id.desc()).first()
        assert game is not None, "no game was created"
        self.t.game_id = game.id
        play(self.t, self.seed, act=self.act)
        settle(self.t)
        self.unfired += [f for step, faults in self.by_step.items() if step >= self.steps for f in faults]
        return self

    @property
    def late_steps(self) -> set[int]:
        """The steps that post the last vote of a vote that closes at its deadline."""
        return {j - 1 for j in self.jumps}

    # --- a step ----------------------------------------------------------------------

    def act(self):
        step = self.steps
        self.steps += 1
        s = self.t.state if self.t.game_id is not None else None  # the move is not read yet
        if s is not None and s.running and s.phase == "team_vote" and not s.waiting_for() \
                and deadlines.due(s) is not None:
            self.jumps.append(step)  # the driver moved the clock past the deadline
        faults = self.by_step.get(step, [])
        if any(f.late for f in faults) and s is not None and self.last_vote(s):
            # as the driver would next, but before the bot could read the vote
            self.clock.at = max(self.clock.at, deadlines.due(s) + timedelta(seconds=1))
            self.unfired += self.by_step.get(self.steps, [])
            self.steps += 1  # (that step of the driver's is done here)
            self.late += 1
        for f in faults:
            self.strike(f)
        settle(self.t)

    @staticmethod
    def last_vote(s) -> bool:
        """Is the move just posted the last vote of a vote that closes at its deadline
        (as with avalon-2020's team votes)? Then the deadline does not depend on it."""
        return (s.running and s.phase == "team_vote" and len(s.waiting_for()) == 1
                and deadlines.due(s) is not None and not s.config.deadlines.close_early)

    def strike(self, f: Fault):
        point, _, nth = f.at.partition(":")
        seen = Counter()
        lock = None
        fired = False

        def on(p):
            nonlocal lock, fired
            if fired or p != point:
                return
            seen[p] += 1
            if nth and seen[p] != int(nth):
                return
            fired = True
            if f.kind == "kill":
                raise Killed(f"killed at {f.at}")
            if f.kind in ("lock", "lock-long"):
                lock = WriteLock(self.path, f.hold)

        per_cycle = f.kind in ("read", "listing", "full", "refuse")
        errors_before = self.db_errors
        cycles = f.cycles if per_cycle else ARMED_CYCLES
        if not per_cycle:
            self.forum.on = self.bot_clock.on = on
        try:
            for i in range(cycles):
                if f.kind in ("lock", "lock-long") and point == "start" and i == 0:
                    fired = True
                    lock = WriteLock(self.path, f.hold)
                self.forum.down = f.kind == "read"
                self.forum.listing_down = (f.at if f.at != "start" else "failed") if f.kind == "listing" else None
                if f.kind == "lock-long":
                    store.db.execute_sql(f"PRAGMA busy_timeout = {SHORT_BUSY}")
                if f.kind == "full":
                    disk_full()
                if f.kind == "refuse":
                    store.db.execute_sql("PRAGMA query_only = 1")
                self.cycle()
                if lock is not None:
                    lock.join()
                    lock = None
                if f.kind == "lock-long":
                    store.db.execute_sql(f"PRAGMA busy_timeout = {BUSY}")
                if fired and not per_cycle:
                    break
        finally:
            self.forum.on = self.bot_clock.on = lambda p: None
            self.forum.down, self.forum.listing_down = False, None
            if lock is not None:
                lock.join()
            store.db.execute_sql(f"PRAGMA busy_timeout = {BUSY}")
            store.db.execute_sql("PRAGMA query_only = 0")
            disk_free()
        if fired or per_cycle:
            self.fired[f.kind] += 1
            self.effects.append((f, self.db_errors - errors_before))
        else:
            self.unfired.append(f)
        if self.dead:
            self.cycle()  # the restarted bot's first cycle

    def cycle(self):
        try:
            report = self.t.cycle(fresh=self.dead)
            self.dead = False
        except Killed:
            db_trouble.recover()  # what the dead process had not committed is gone
            self.dead = True
            return
        finally:
            self.clock.advance(seconds=2)
        self.fetch_errors += any(e.startswith("fetch") for e in report.errors)

    # --- what came out ---------------------------------------------------------------

    def result(self) -> dict:
        # Keys of answers name the forum's id of the message answered; a notice more (a PM)
        # moves the later ids on, so the people's messages are named by their rank here.
        rank = {}
        for table, who, prefix in (("comments", "author", "c"), ("messages", "sender", "m")):
            rows = self.local.db.execute(f"SELECT id FROM {table} WHERE {who} != ? ORDER BY id",
                                         (self.local.bot_name,))
            rank.update({f"{prefix}{r[0]}": f"{prefix}#{i}" for i, r in enumerate(rows)})

        def canon(key):
            return ID.sub(lambda m: m.group(1) + rank.get(m.group(2), m.group(2)), key)

        keys = [canon(k) for k in self.local.keys_posted()]
        texts = {}
        for table in ("threads", "comments", "messages"):
            for key, body in self.local.db.execute(f"SELECT key, body FROM {table} WHERE key IS NOT NULL"):
                texts[canon(key)] = STAMP.sub("(a time)", body)
        return {"outcome": outcome(self.t.export()), "keys": Counter(keys), "texts": texts,
                "tried": [(r.ext_id, r.tries, r.note) for r in
                          store.Inbound.select().where(store.Inbound.tries > 0)],
                "error_rows": [(r.ext_id, r.note) for r in
                               store.Inbound.select().where(store.Inbound.state == "error")],
                "new_rows": store.Inbound.select().where(store.Inbound.state == "new").count(),
                "pending": store.Outbox.select().where(store.Outbox.state == "pending").count()}


class _DatabaseErrors(logging.Handler):
    """Counts the database errors the bot logs (in a cycle, or for one message)."""

    def __init__(self, run: Run):
        super().__init__(logging.ERROR)
        self.run = run

    def emit(self, record):
        if record.getMessage().startswith("database:"):
            self.run.db_errors += 1


def first_difference(a: dict, b: dict) -> str:
    for k in ("status", "winner", "reason", "players", "missions", "votes"):
        if a[k] != b[k] and k != "votes":
            return f"{k}: {a[k]!r} != {b[k]!r}"
    for i, (x, y) in enumerate(zip(a["events"], b["events"], strict=False)):
        if x != y:
            return f"event {i}: without faults {x!r}, with faults {y!r}"
    if len(a["events"]) != len(b["events"]):
        return f"{len(a['events'])} events without faults, {len(b['events'])} with"
    return "votes differ" if a["votes"] != b["votes"] else "no difference"


_calm: dict = {}


def calm_run(preset: str, seed: int, tmp_path) -> tuple[Run, dict]:
    if (preset, seed) not in _calm:
        run = Run(preset, seed, str(tmp_path / f"calm-{preset}-{seed}.db")).play()
        _calm[(preset, seed)] = (run, run.result())
        if len(_calm) > 64:
            _calm.pop(next(iter(_calm)))
    return _calm[(preset, seed)]


def reproduce(preset: str, seed: int, plan: list[Fault], tmp_path, caplog=None):
    """Play `preset` with `seed` once without faults and once with `plan`; assert the
    property. Returns the faulty Run."""
    _, expected = calm_run(preset, seed, tmp_path)
    label = f"preset={preset!r} seed={seed} plan={plan!r}"
    print(label)
    run = Run(preset, seed, str(tmp_path / "bot.db"), plan=list(plan))
    try:
        run.play()
    except Exception as e:
        raise AssertionError(f"{label}: the game broke off: {e!r}") from e
    got = run.result()
    assert got["outcome"] == expected["outcome"], \
        f"{label}: {first_difference(expected['outcome'], got['outcome'])}"
    twice = sorted(k for k, n in got["keys"].items() if n > 1)
    assert not twice, f"{label}: posted twice: {twice}"
    lost = sorted(set(expected["keys"]) - set(got["keys"]))
    extra = sorted(k for k in set(got["keys"]) - set(expected["keys"]) if not NOTICE.search(k))
    assert not lost and not extra, f"{label}: not posted: {lost}; posted only with faults: {extra}"
    assert not got["error_rows"], f"{label}: messages set aside: {got['error_rows']}"
    assert not got["tried"], f"{label}: messages whose handling failed: {got['tried']}"
    changed = sorted(k for k in expected["texts"] if got["texts"][k] != expected["texts"][k])
    assert not changed, (f"{label}: posts that say something else than without faults: {changed}; "
                         f"the first: {expected['texts'][changed[0]]!r} -> {got['texts'][changed[0]]!r}"
                         if changed else "")
    assert got["new_rows"] == 0 and got["pending"] == 0, f"{label}: left over: {got}"
    if caplog is not None:
        tracebacks = [r.getMessage() for r in caplog.records
                      if r.name.startswith("forumbot") and r.exc_info and r.levelno >= logging.ERROR]
        assert not tracebacks, f"{label}: the bot logged tracebacks: {tracebacks}"
    return run


def check(preset, seed, n_faults, tmp_path, caplog, long_locks=False, piled=0):
    calm, _ = calm_run(preset, seed, tmp_path)
    rng = random.Random(f"{preset}:{seed}")
    plan = make_plan(rng, calm.steps, n_faults, long_locks=long_locks, late_steps=calm.late_steps,
                     piled=piled)
    with caplog.at_level(logging.WARNING, logger="forumbot"):
        run = reproduce(preset, seed, plan, tmp_path, caplog)
    print(f"fired {dict(run.fired)} ({run.late} late), never came to their point: {run.unfired}, "
          f"cycles with a database error: {run.db_errors}, with a fetch error: {run.fetch_errors}")
    print("effects:", run.effects)
    return run


SMALL = {"resistance": 1, "resistance-plot": 4, "so-say-we-all": 1, "avalon": 1, "avalon-2020": 1}


@pytest.mark.parametrize("preset", list(GAMES))
def test_faults_in_random_cycles_change_nothing(preset, db, tmp_path, caplog):
    run = check(preset, SMALL[preset], 8, tmp_path, caplog)
    assert sum(run.fired.values()) >= 6, (run.fired, run.unfired)
    assert run.db_errors >= 1 and run.fetch_errors >= 1  # the faults were real


@pytest.mark.long
@pytest.mark.parametrize("seed", range(100, 120))
@pytest.mark.parametrize("preset", list(GAMES))
def test_many_faults_in_many_games_change_nothing(preset, seed, db, tmp_path, caplog):
    check(preset, seed, 20, tmp_path, caplog, long_locks=True, piled=5)
