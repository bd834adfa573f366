"""Requests per `forumbot run --once` cycle against the fake Reddit, and demo timing.

    .venv/bin/python bench/cycle.py [G ...]
    .venv/bin/python bench/cycle.py --cpu [G ...]   (CPU per cycle and cold start; 100 1000)
    .venv/bin/python bench/cycle.py --votes [G ...] (SQL statements and CPU per vote; 10 1000)

For each number of running games G it starts the fake Reddit, has hosts start G games,
then runs the real CLI (`run --once`, a fresh process each time, like cron would):
a quiet cycle (nothing new) and a busy one (one new STATUS comment in every game, each answered). It prints the
requests each made, and the ratio to G=1 in the same run. Then it times `demo` against
the pure engine playing the same table with no store and no forum.

`--votes` (issue 14) runs the bot in-process on real praw against the fake Reddit: G games
in the vote, one new APPROVE in each, one busy cycle. It prints the SQL statements (peewee's
query log, the `peewee` logger at DEBUG) and commits per vote, and the bot thread's CPU per
vote without the CPU spent inside forum calls (praw, HTTP), with ratios to the first G."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tests.fakes.reddit import FakeReddit  # noqa: E402


def run_once(workdir: str) -> None:
    r = subprocess.run([sys.executable, "-m", "forumbot", "run", "--once", "--settings", "settings.ini"],
                       cwd=workdir, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit(r.stderr)


def cycle_costs(games: int) -> tuple[int, int, Counter]:
    fake = FakeReddit().start()
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "settings.ini"), "w") as f:
            f.write(f"[bot]\nforum = reddit\n[database]\nurl = sqlite:///{d}/bot.db\n[reddit]\n"
                    f"client_id = x\nclient_secret = y\nusername = forumbot\npassword = pw\n"
                    f"oauth_url = {fake.url}\nreddit_url = {fake.url}\n")
        for g in range(games):
            fake.pm_bot(f"host{g}", "new game", "preset: resistance\nsubreddit: resistancegames\n"
                        "leader_order: listed\n"
                        f"players: [g{g}a, g{g}b, g{g}c, g{g}d, g{g}e]\n")
        run_once(d)  # creates the games and their threads
        n = len(fake.requests)
        run_once(d)
        quiet = fake.requests[n:]
        for s in list(fake.submissions.values()):  # one new comment in every game
            fake.comment(_first_player(fake, s), s["id"], "**STATUS**")
        n = len(fake.requests)
        run_once(d)
        busy = fake.requests[n:]
    fake.stop()
    return len(quiet), len(busy), Counter(f"{m} {p}" for m, p in busy)


def _first_player(fake, submission) -> str:
    import re
    m = re.search(r"Leader order\*\*: (\w+)", submission["selftext"])
    return m.group(1)


def demo_timing(players: int = 7, games: int = 5) -> tuple[float, float]:
    from datetime import datetime, timedelta, timezone

    from forumbot.cli.demo import run_demo
    from forumbot.rules import MissionOrder, Propose, TeamVote, apply, fold, make_config, start

    t0 = time.perf_counter()
    for seed in range(games):
        run_demo("resistance", players, seed, echo=lambda *_: None)
    demo = (time.perf_counter() - t0) / games

    t0 = time.perf_counter()
    for seed in range(games):
        cfg = make_config("resistance", [f"p{i}" for i in range(players)])
        at = datetime(2026, 1, 1, tzinfo=timezone.utc)
        state = None
        from forumbot.rules import replay
        events = start(cfg, seed, at)
        state = replay(cfg, seed, events)
        while state.running:
            at += timedelta(minutes=1)
            if state.phase == "proposal":
                cmds = [Propose(at, state.leader, tuple(state.names[: state.team_size()]))]
            elif state.phase == "team_vote":
                cmds = [TeamVote(at, n, "approve", "thread") for n in state.waiting_for()]
            else:
                cmds = [MissionOrder(at, n, "sabotage" if state.seat(n).side == "spies" else "support", "pm")
                        for n in state.waiting_for()]
            for c in cmds:
                r = apply(state, c)
                for e in r:
                    fold(state, e)
    engine = (time.perf_counter() - t0) / games
    return demo, engine


def cpu_and_startup(games: int) -> dict:
    """CPU seconds of a quiet and a busy cycle (in-process, real praw against the fake; the
    fake's own thread is counted too), and the cold start: a new process's moderator
    rebuilding every running game from the store, then its first cycle."""
    import praw
    from api_economy import Clock, costs, seed_games  # noqa: F401

    from adapters.reddit import RedditForum
    from forumbot import store
    from forumbot.shell.moderator import Moderator

    c = costs(games)
    fake = FakeReddit().start()
    with tempfile.TemporaryDirectory() as d:
        url = f"sqlite:///{d}/bot.db"
        store.connect(url)
        seed_games(fake, games)
        store.close()
        t0, c0 = time.perf_counter(), time.process_time()
        store.connect(url)  # a fresh process: connect, rebuild every game by replaying its log
        mod = Moderator(RedditForum(praw.Reddit(**fake.praw_kwargs())))
        for g in mod._running_games():
            mod.state(g)
        rebuild_wall, rebuild_cpu = time.perf_counter() - t0, time.process_time() - c0
        t1 = time.perf_counter()
        mod.cycle()
        first = time.perf_counter() - t1
        store.close()
    fake.stop()
    return {"quiet_cpu": c["quiet_cpu"], "busy_cpu": c["busy_cpu"], "rebuild_wall": rebuild_wall,
            "rebuild_cpu": rebuild_cpu, "first_cycle": first}


class _QueryCount:
    """Counts the statements peewee sends (its `peewee` logger logs each at DEBUG)."""

    def __init__(self):
        import logging

        self.n = 0
        self.kinds: Counter = Counter()
        self.counting = False
        self.handler = logging.Handler(logging.DEBUG)
        self.handler.emit = self._emit  # type: ignore[method-assign]
        self.logger = logging.getLogger("peewee")

    def _emit(self, record) -> None:
        if self.counting:
            self.n += 1
            sql = record.msg[0] if isinstance(record.msg, tuple) else str(record.msg)
            self.kinds[" ".join(str(sql).split()[:3])] += 1

    def __enter__(self):
        import logging

        self.logger.addHandler(self.handler)
        self._level = self.logger.level
        self.logger.setLevel(logging.DEBUG)
        return self

    def __exit__(self, *exc):
        self.logger.removeHandler(self.handler)
        self.logger.setLevel(self._level)


class _TimedForum:
    """The forum, with the bot thread's CPU inside its calls (praw, HTTP) counted apart."""

    CALLS = ("fetch", "mark_read", "post", "find_posted", "thread_id", "recheck", "sent_id")

    def __init__(self, forum):
        self._forum = forum
        self.cpu = 0.0
        for name in self.CALLS:
            if hasattr(forum, name):
                setattr(self, name, self._timed(getattr(forum, name)))

    def _timed(self, fn):
        def call(*args, **kwargs):
            t0 = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.cpu += time.thread_time() - t0
        return call

    def __getattr__(self, name):
        return getattr(self._forum, name)


SUB = "resistancegames"


class _Clock:
    def __init__(self):
        from datetime import datetime, timezone

        self.at = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)

    def __call__(self):
        return self.at


def _seed_games(fake, games: int) -> list:
    """G running games in the proposal phase, each with its thread on the fake (as
    bench/api_economy.py does it, kept here so that this bench stands alone)."""
    import json

    from forumbot import store
    from forumbot.rules import make_config, start

    at = _Clock().at
    out = []
    with store.db.atomic():
        for g in range(games):
            players = [f"g{g}p{i}" for i in range(5)]
            cfg = make_config("resistance", players, host=f"host{g}", leader_order="listed", subreddit=SUB)
            s = fake.submit("forumbot", SUB, f"Game {g}", "opening")
            game = store.Game.create(forum="reddit", host=cfg.host, preset=cfg.preset,
                                     config=json.dumps(cfg.to_json()), seed=g,
                                     thread=f"{SUB}:{s['id']}", created_at=store.naive(at))
            store.append_events(game, start(cfg, g, at))
            store.Outbox.create(key=f"{game.tag}:1:opening", game=game.id, kind="thread", body="opening",
                                state="posted", ext_id=f"{SUB}:{s['id']}", created_at=store.naive(at))
            out.append((game, players, s["id"]))
    return out


def vote_costs(games: int) -> dict:
    """One busy cycle in-process (real praw against the fake Reddit): every one of G games
    in the vote gets one new APPROVE. SQL statements (peewee's query log) and the bot
    thread's CPU, without the CPU inside forum calls, per game that changed. (Commits are
    counted apart: peewee does not log BEGIN and COMMIT.)"""
    import praw

    from adapters.reddit import RedditForum
    from forumbot import store
    from forumbot.shell.moderator import Moderator

    clock = _Clock()
    fake = FakeReddit(clock=lambda: clock().timestamp()).start()
    with tempfile.TemporaryDirectory() as d:
        store.connect(f"sqlite:///{d}/bot.db")
        seeded = _seed_games(fake, games)
        forum = _TimedForum(RedditForum(praw.Reddit(**fake.praw_kwargs())))
        mod = Moderator(forum, clock=clock)  # type: ignore[arg-type]
        mod.cycle()
        for _, players, sid in seeded:
            fake.comment(players[0], sid, f"**PROPOSE: {players[0]}, {players[1]}**")
        clock.at = clock.at.replace(minute=5)
        for _ in range(4):
            mod.cycle()  # the proposals, then every status edit out
        for _, players, sid in seeded:  # one new vote in every game
            fake.comment(players[2], sid, "**APPROVE**")
        clock.at = clock.at.replace(minute=10)
        database = store.db.obj
        commits = {"n": 0}
        commit = database.commit

        def counted_commit():
            commits["n"] += 1
            return commit()

        with _QueryCount() as q:
            forum.cpu = 0.0
            database.commit = counted_commit
            q.counting = True
            t0 = time.thread_time()
            report = mod.cycle()
            cpu = time.thread_time() - t0
            q.counting = False
            database.commit = commit
        changed = sum(1 for g in store.Game.select() if len(store.game_events(g)) and
                      any(e.type == "vote_cast" for e in store.game_events(g)))
        store.close()
    fake.stop()
    return {"G": games, "handled": report.handled, "changed": changed, "sql": q.n,
            "kinds": q.kinds, "cpu": cpu, "forum_cpu": forum.cpu,
            "commits": commits["n"]}


def votes_main(sizes: list[int]) -> None:
    rows = [vote_costs(g) for g in sizes]
    base = rows[0]
    print("busy cycle, one APPROVE in each of G games (in-process, real praw on the fake Reddit)")
    print(f"{'G':>6} {'votes':>6} {'SQL':>7} {'SQL/vote':>9} {'ratio':>6} {'commits/vote':>13} "
          f"{'CPU ms/vote':>12} {'ratio':>6} {'forum CPU ms/vote':>18}")
    for r in rows:
        per = r["sql"] / max(1, r["changed"])
        cpu = (r["cpu"] - r["forum_cpu"]) * 1000 / max(1, r["changed"])
        bper = base["sql"] / max(1, base["changed"])
        bcpu = (base["cpu"] - base["forum_cpu"]) * 1000 / max(1, base["changed"])
        print(f"{r['G']:>6} {r['changed']:>6} {r['sql']:>7} {per:>9.2f} {per / bper:>6.2f} "
              f"{r['commits'] / max(1, r['changed']):>13.2f} {cpu:>12.3f} "
              f"{cpu / bcpu:>6.2f} {r['forum_cpu'] * 1000 / max(1, r['changed']):>18.3f}")
    last = rows[-1]
    print(f"G={last['G']} statements: " + ", ".join(f"{k} x{v}" for k, v in last["kinds"].most_common()))


def main(argv: list[str]) -> None:
    if argv and argv[0] == "--votes":
        votes_main([int(a) for a in argv[1:]] or [10, 1000])
        return
    if argv and argv[0] == "--cpu":
        sizes = [int(a) for a in argv[1:]] or [100, 1000]
        rows = {g: cpu_and_startup(g) for g in sizes}
        base = rows[sizes[0]]
        print("games  quiet-cycle-CPU-s  busy-cycle-CPU-s  cold-start-s (CPU)  first-cycle-s  busy/first-G")
        for g, r in rows.items():
            print(f"{g:5d}  {r['quiet_cpu']:17.3f}  {r['busy_cpu']:16.3f}  {r['rebuild_wall']:8.2f} "
                  f"({r['rebuild_cpu']:.2f})  {r['first_cycle']:13.2f}  {r['busy_cpu'] / base['busy_cpu']:12.2f}")
        return
    sizes = [int(a) for a in argv] or [1, 10]
    base = None
    print("games  quiet-requests  busy-requests  quiet/G=1  busy/G=1")
    for g in sizes:
        quiet, busy, kinds = cycle_costs(g)
        base = base or (quiet, busy)
        print(f"{g:5d}  {quiet:14d}  {busy:13d}  {quiet / base[0]:9.2f}  {busy / base[1]:8.2f}")
        print("       busy cycle: " + ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items())))
    demo, engine = demo_timing()
    print(f"demo (7 players, whole game, local forum + SQLite): {demo * 1000:.0f} ms per game; "
          f"pure engine, same game: {engine * 1000:.2f} ms; ratio demo/engine {demo / engine:.0f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
