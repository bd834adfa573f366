"""Requests per `forumbot run --once` cycle against the fake Reddit, and demo timing.

    .venv/bin/python bench/cycle.py [G ...]
    .venv/bin/python bench/cycle.py --cpu [G ...]   (CPU per cycle and cold start; 100 1000)

For each number of running games G it starts the fake Reddit, has hosts start G games,
then runs the real CLI (`run --once`, a fresh process each time, like cron would):
a quiet cycle (nothing new) and a busy one (one new STATUS comment in every game, each answered). It prints the
requests each made, and the ratio to G=1 in the same run. Then it times `demo` against
the pure engine playing the same table with no store and no forum."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tests.fakereddit import FakeReddit  # noqa: E402


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

    from forumbot.demo import run_demo
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
    from forumbot.moderator import Moderator

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


def main(argv: list[str]) -> None:
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
