"""Requests per cycle against the fake Reddit with G = 1, 10, 100 and 1,000 running games
in one subreddit: a quiet cycle (nothing new) and a busy one (one new vote in every game).

    .venv/bin/python bench/api_economy.py [G ...]

The games are put straight into the store (dealt by the rules, threads made on the fake),
then the bot runs in-process with real praw. Reads are what a cycle costs; writes are the
status-block edits the votes cause (one per game that changed). It prints the counts and
their ratio to G=1 from the same run. CPU is the bot's own thread (time.thread_time):
the fake Reddit answers from other threads of the same process and is not counted."""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import praw  # noqa: E402

from adapters.reddit import RedditForum  # noqa: E402
from forumbot import store  # noqa: E402
from forumbot.moderator import Moderator  # noqa: E402
from forumbot.rules import make_config, start  # noqa: E402
from tests.fakereddit import FakeReddit  # noqa: E402

SUB = "resistancegames"
AT = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self):
        self.at = AT

    def __call__(self):
        return self.at


def seed_games(fake: FakeReddit, games: int) -> list[store.Game]:
    """G running games in the proposal phase, each with its thread on the fake."""
    out = []
    with store.db.atomic():
        for g in range(games):
            players = [f"g{g}p{i}" for i in range(5)]
            cfg = make_config("resistance", players, host=f"host{g}", leader_order="listed",
                              subreddit=SUB)
            s = fake.submit("forumbot", SUB, f"Game {g}", "opening")
            game = store.Game.create(forum="reddit", host=cfg.host, preset=cfg.preset,
                                     config=json.dumps(cfg.to_json()), seed=g,
                                     thread=f"{SUB}:{s['id']}", created_at=store.naive(AT))
            store.append_events(game, start(cfg, g, AT))
            store.Outbox.create(key=f"{game.tag}:1:opening", game=game.id, kind="thread", body="opening",
                                state="posted", ext_id=f"{SUB}:{s['id']}", created_at=store.naive(AT))
            out.append((game, players, s["id"]))
    return out


def costs(games: int) -> dict:
    fake = FakeReddit(clock=lambda: clock().timestamp()).start()
    clock = Clock()
    with tempfile.TemporaryDirectory() as d:
        store.connect(f"sqlite:///{d}/bot.db")
        seeded = seed_games(fake, games)
        mod = Moderator(RedditForum(praw.Reddit(**fake.praw_kwargs())), clock=clock)
        mod.cycle()  # the first cycle reads the listing and sets its bookmark
        for _, players, sid in seeded:  # every leader proposes (not measured)
            fake.comment(players[0], sid, f"**PROPOSE: {players[0]}, {players[1]}**")
        clock.at = clock.at.replace(minute=5)
        mod.cycle()
        for _ in range(3):
            mod.cycle()  # let every status edit out
        n = len(fake.requests)
        t0 = time.thread_time()
        mod.cycle()
        quiet = fake.requests[n:]
        quiet_cpu = time.thread_time() - t0
        for _, players, sid in seeded:  # one new vote in every game
            fake.comment(players[2], sid, "**APPROVE**")
        n = len(fake.requests)
        t0 = time.thread_time()
        mod.cycle()
        busy = fake.requests[n:]
        busy_cpu = time.thread_time() - t0
        store.close()
    fake.stop()
    kinds = lambda reqs: Counter(f"{m} {p}" for m, p in reqs if "access_token" not in p)  # noqa: E731
    reads = lambda reqs: sum(1 for m, p in reqs if m == "GET")  # noqa: E731
    marks = lambda reqs: sum(1 for m, p in reqs if p == "/api/read_message")  # noqa: E731
    return {"G": games, "quiet": len(quiet), "quiet_kinds": kinds(quiet), "busy_reads": reads(busy),
            "quiet_marks": marks(quiet), "busy_marks": marks(busy),
            "busy_writes": len(busy) - reads(busy), "busy_kinds": kinds(busy),
            "quiet_cpu": quiet_cpu, "busy_cpu": busy_cpu}


def main(sizes: list[int]) -> None:
    rows = [costs(g) for g in sizes]
    base = rows[0]
    print(f"{'G':>6} {'quiet':>6} {'ratio':>6} {'busy reads':>11} {'ratio':>6} {'busy writes':>12}"
          f" {'read_message q/b':>17} {'quiet CPU s':>12} {'busy CPU s':>11}")
    for r in rows:
        print(f"{r['G']:>6} {r['quiet']:>6} {r['quiet'] / base['quiet']:>6.2f} {r['busy_reads']:>11}"
              f" {r['busy_reads'] / base['busy_reads']:>6.2f} {r['busy_writes']:>12}"
              f" {str(r['quiet_marks']) + '/' + str(r['busy_marks']):>17}"
              f" {r['quiet_cpu']:>12.3f} {r['busy_cpu']:>11.3f}")
    for r in rows:
        print(f"G={r['G']} quiet: {dict(r['quiet_kinds'])}")
        print(f"G={r['G']} busy:  {dict(r['busy_kinds'])}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1, 10, 100, 1000])
