"""Requests per cycle against the fake Reddit (or the fake Discourse, or the fake XenForo)
with G = 1, 10, 100 and 1,000 running games in one subreddit (category, game forum): a
quiet cycle (nothing new) and a busy one (one new vote in every game).

    .venv/bin/python bench/api_economy.py [--forum reddit|discourse|xenforo] [G ...]

The games are put straight into the store (dealt by the rules, threads made on the fake),
then the bot runs in-process with real praw (or the Discourse adapter on requests). Reads
are what a cycle costs; writes are the status-block edits the votes cause (one per game
that changed). It prints the counts and their ratio to G=1 from the same run. CPU is the
bot's own thread (time.thread_time): the fake answers from other threads of the same
process and is not counted. Before the quiet cycle the bot cycles until it has caught up
(every proposal read and answered, gaps filled, every edit out). On Discourse the
adapter's own count of the site's 60 requests a minute is off (as the write budget is,
on both forums), so that every write of the busy cycle may go out in it; the fake keeps
the site settings of the hosting guide."""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import praw  # noqa: E402

from adapters.discourse import DiscourseForum  # noqa: E402
from adapters.discourse_checks import RECOMMENDED_SITE_SETTINGS  # noqa: E402
from adapters.reddit import RedditForum  # noqa: E402
from adapters.xenforo import XenForoForum  # noqa: E402
from forumbot import store  # noqa: E402
from forumbot.rules import make_config, start  # noqa: E402
from forumbot.shell.moderator import Moderator  # noqa: E402
from tests.fakes.discourse import FakeDiscourse  # noqa: E402
from tests.fakes.reddit import FakeReddit  # noqa: E402
from tests.fakes.xenforo import FakeXenForo  # noqa: E402

SUB = "resistancegames"
CATEGORY = "games"
AT = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self):
        self.at = AT

    def __call__(self):
        return self.at


class RedditSite:
    """The fake Reddit: threads are submissions in SUB, players comment."""
    name = "reddit"

    def __init__(self, clock):
        self.fake = FakeReddit(clock=lambda: clock().timestamp()).start()

    def thread(self, g: int) -> str:
        s = self.fake.submit("forumbot", SUB, f"Game {g}", "opening")
        return f"{SUB}:{s['id']}"

    def say(self, author: str, thread: str, body: str) -> None:
        self.fake.comment(author, thread.partition(":")[2], body)

    def forum(self, clock):
        return RedditForum(praw.Reddit(**self.fake.praw_kwargs()))

    def config(self) -> dict:
        return {"subreddit": SUB}

    def counted(self, path: str) -> bool:
        return "access_token" not in path


class DiscourseSite:
    """The fake Discourse with the hosting guide's site settings: threads are topics in
    CATEGORY, players reply."""
    name = "discourse"

    def __init__(self, clock):
        self.fake = FakeDiscourse(clock=lambda: clock().timestamp()).start()
        self.fake.site.update(RECOMMENDED_SITE_SETTINGS)

    def thread(self, g: int) -> str:
        t = self.fake.new_topic("forumbot", f"Game number {g} of the bench", "The opening post of this game.",
                                CATEGORY)
        return f"topic:{t['id']}"

    def say(self, author: str, thread: str, body: str) -> None:
        self.fake.reply(author, thread, body)

    def forum(self, clock):
        return DiscourseForum.from_settings(self.fake.settings(), requests_per_minute=None,
                                            monotonic=lambda: clock().timestamp())

    def config(self) -> dict:
        return {}

    def counted(self, path: str) -> bool:
        return True


class XenForoSite:
    """The fake XenForo: threads are the bot's in its game forum (node 2), players reply;
    there is no site-wide listing of new posts, so the forum's threads are listed by last
    post date and only those that moved are read."""
    name = "xenforo"

    def __init__(self, clock):
        self.fake = FakeXenForo(clock=lambda: clock().timestamp()).start()

    def thread(self, g: int) -> str:
        t = self.fake.new_thread("forumbot", 2, f"Game number {g} of the bench", "The opening post of this game.")
        return f"thread:{t['thread_id']}"

    def say(self, author: str, thread: str, body: str) -> None:
        self.fake.reply(author, thread, body)

    def forum(self, clock):
        return XenForoForum.from_settings(self.fake.settings(), monotonic=lambda: clock().timestamp())

    def config(self) -> dict:
        return {}

    def counted(self, path: str) -> bool:
        return True


SITES = {"reddit": RedditSite, "discourse": DiscourseSite, "xenforo": XenForoSite}


def seed_games(site, games: int) -> list[tuple[store.Game, list[str], str]]:
    """G running games in the proposal phase, each with its thread on the fake."""
    out = []
    with store.db.atomic():
        for g in range(games):
            players = [f"g{g}p{i}" for i in range(5)]
            cfg = make_config("resistance", players, host=f"host{g}", leader_order="listed", **site.config())
            thread = site.thread(g)
            game = store.Game.create(forum=site.name, host=cfg.host, preset=cfg.preset,
                                     config=json.dumps(cfg.to_json()), seed=g,
                                     thread=thread, created_at=store.naive(AT))
            store.append_events(game, start(cfg, g, AT))
            store.Outbox.create(key=f"{game.tag}:1:opening", game=game.id, kind="thread", body="opening",
                                state="posted", ext_id=thread, created_at=store.naive(AT))
            out.append((game, players, thread))
    return out


def settle(mod: Moderator, fake, most: int = 200) -> int:
    """Cycle until one reads nothing new and writes nothing (every proposal read, gaps
    filled, every status edit out). Returns the cycles it took."""
    for n in range(1, most + 1):
        before = len(fake.requests)
        report = mod.cycle()
        wrote = any(m != "GET" for m, _ in fake.requests[before:])
        pending = store.Outbox.select().where(store.Outbox.state == "pending").exists()
        gap = store.get_cursor(mod.forum.name).get("gap")  # Discourse: game topics still to read by id
        if not (report.fetched or wrote or pending or report.errors or gap):
            return n
    raise SystemExit(f"the bot did not settle in {most} cycles")


def costs(games: int, forum: str = "reddit") -> dict:
    clock = Clock()
    site = SITES[forum](clock)
    fake = site.fake
    with tempfile.TemporaryDirectory() as d:
        store.connect(f"sqlite:///{d}/bot.db")
        seeded = seed_games(site, games)
        mod = Moderator(site.forum(clock), clock=clock)
        mod.cycle()  # the first cycle reads the listing and sets its bookmark
        for _, players, thread in seeded:  # every leader proposes (not measured)
            site.say(players[0], thread, f"**PROPOSE: {players[0]}, {players[1]}**")
        clock.at = clock.at.replace(minute=5)
        setup = settle(mod, fake)
        n = len(fake.requests)
        t0 = time.thread_time()
        mod.cycle()
        quiet = fake.requests[n:]
        quiet_cpu = time.thread_time() - t0
        for _, players, thread in seeded:  # one new vote in every game
            site.say(players[2], thread, "**APPROVE**")
        n = len(fake.requests)
        t0 = time.thread_time()
        mod.cycle()
        busy = fake.requests[n:]
        busy_cpu = time.thread_time() - t0
        store.close()
    fake.stop()
    quiet = [(m, p) for m, p in quiet if site.counted(p)]
    busy = [(m, p) for m, p in busy if site.counted(p)]
    kinds = lambda reqs: Counter(f"{m} {re.sub(r'/[0-9]+', '/{id}', p)}" for m, p in reqs)  # noqa: E731
    reads = lambda reqs: sum(1 for m, p in reqs if m == "GET")  # noqa: E731
    marks = lambda reqs: sum(1 for m, p in reqs if p == "/api/read_message")  # noqa: E731
    return {"G": games, "quiet": len(quiet), "quiet_kinds": kinds(quiet), "busy_reads": reads(busy),
            "quiet_marks": marks(quiet), "busy_marks": marks(busy),
            "busy_writes": len(busy) - reads(busy), "busy_kinds": kinds(busy),
            "quiet_cpu": quiet_cpu, "busy_cpu": busy_cpu, "setup": setup}


def main(sizes: list[int], forum: str = "reddit") -> None:
    rows = [costs(g, forum) for g in sizes]
    print(f"forum: {forum}")
    base = rows[0]
    print(f"{'G':>6} {'quiet':>6} {'ratio':>6} {'busy reads':>11} {'ratio':>6} {'busy writes':>12}"
          f" {'read_message q/b':>17} {'quiet CPU s':>12} {'busy CPU s':>11}")
    for r in rows:
        print(f"{r['G']:>6} {r['quiet']:>6} {r['quiet'] / base['quiet']:>6.2f} {r['busy_reads']:>11}"
              f" {r['busy_reads'] / base['busy_reads']:>6.2f} {r['busy_writes']:>12}"
              f" {str(r['quiet_marks']) + '/' + str(r['busy_marks']):>17}"
              f" {r['quiet_cpu']:>12.3f} {r['busy_cpu']:>11.3f}")
    for r in rows:
        print(f"G={r['G']} setup: {r['setup']} cycles until the proposals were read and answered")
        print(f"G={r['G']} quiet: {dict(r['quiet_kinds'])}")
        print(f"G={r['G']} busy:  {dict(r['busy_kinds'])}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="requests per quiet and busy cycle, with G running games")
    ap.add_argument("--forum", choices=sorted(SITES), default="reddit")
    ap.add_argument("sizes", nargs="*", type=int, metavar="G")
    args = ap.parse_args()
    main(args.sizes or [1, 10, 100, 1000], args.forum)
