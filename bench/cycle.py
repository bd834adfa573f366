"""What a cycle costs as the running games grow: a quiet cycle, a cold start, a vote.

    .venv/bin/python bench/cycle.py [--rounds R] [G ...]   (G: 1 10 100 1000 by default; R: 5, at most 6)
    .venv/bin/python bench/cycle.py --requests [G ...]     (requests of `run --once`, games made by PM)

For each number of running games G it builds a world: the fake Reddit (a real HTTP server
that real praw talks to), a SQLite database with G ten-player games, each in its team
vote with the team proposed and two votes cast (so every game has command comments its
edit re-check watches), and the bot caught up (every proposal and vote answered, every
status edit out). Ten players, so that each round of votes can bring every game a new
vote that does not close it. Every world uses the real clock, so that `forumbot run --once`
in a new process sees the same world. Then, in R interleaved rounds (each round measures
every G in turn, so that the load of the machine falls on all of them alike):

- quiet: one more cycle of the running bot in which nothing is new (CPU of the bot's
  thread, SQL statements, requests to the forum);
- cold (in-process): a new Moderator on the same database, its first cycle (what a
  restarted bot does before it has anything cached);
- run --once: `python -m forumbot run --once` in a new process, like cron would run it
  (its CPU: user + system, from the children's rusage).

Then, after one more vote in every game that is not measured (the other bots of the rounds
have made the running bot read its caches again; this fills them), R interleaved rounds of
a vote: one new APPROVE in every game, by a player who has not voted yet, and one busy
cycle of the running bot: SQL statements and the bot's CPU per vote, split into handling
the votes and delivering the status edits they cause (the outbox's part). (Votes come last:
each adds a command comment to every game's watch, which the cold start reads.)

Each is printed as the median and the lowest-highest of the rounds, and the ratio of the
medians to the first G. The bot's CPU is `time.thread_time()` of the thread that runs the
cycle: the fake forum answers in threads of its own (tests/fakes/server.py), so its work
is not in it; the CPU the bot's thread spends inside forum calls (praw, HTTP: `TimedForum`)
is counted apart and taken out of the vote's figure. The garbage of the other worlds is
collected before each measured cycle. Statements are peewee's query log (the `peewee`
logger at DEBUG); BEGIN and COMMIT are not in it and are counted apart, as commits."""
from __future__ import annotations

import gc
import json
import logging
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.fakes.reddit import FakeReddit  # noqa: E402

SUB = "resistancegames"
PLAYERS = 10  # in each game: two vote while the world is built, one before the votes measured,
VOTERS = PLAYERS - 4  # and one in each round of votes (the last player's vote would close it)
TARGET_VOTE_MS = 1.0  # issue 26: a vote costs <= 1 ms of the bot's CPU


class QueryCount(logging.Handler):
    """Counts the statements peewee sends (its `peewee` logger logs each at DEBUG), by kind."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.n = 0
        self.kinds: Counter = Counter()
        self.counting = False
        self.logger = logging.getLogger("peewee")
        self.logger.addHandler(self)
        self.logger.setLevel(logging.DEBUG)
        self.logger.propagate = False

    def emit(self, record) -> None:
        if self.counting:
            self.n += 1
            sql = record.msg[0] if isinstance(record.msg, tuple) else str(record.msg)
            self.kinds[" ".join(str(sql).split()[:3])] += 1

    def start(self) -> None:
        self.n = 0
        self.kinds = Counter()
        self.counting = True

    def stop(self) -> int:
        self.counting = False
        return self.n


class TimedForum:
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


def _now() -> datetime:
    return datetime.now(timezone.utc)


class World:
    """G running games on the fake Reddit and their database, and the bot that runs them."""

    def __init__(self, games: int, queries: QueryCount):
        from forumbot import store

        self.G = games
        self.queries = queries
        self.fake = FakeReddit().start()
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.url = f"sqlite:///{self.dir}/bot.db"
        with open(os.path.join(self.dir, "settings.ini"), "w") as f:
            f.write(f"[bot]\nforum = reddit\n[database]\nurl = {self.url}\n[reddit]\n"
                    f"client_id = x\nclient_secret = y\nusername = forumbot\npassword = pw\n"
                    f"oauth_url = {self.fake.url}\nreddit_url = {self.fake.url}\n")
        self.database = store.connect(self.url)
        self.games = self._seed()
        self.forum, self.mod = self.moderator()
        self.mod.cycle()  # the first cycle reads the listing and sets its bookmark
        size = self.mod.state(self.games[0][0]).team_size()
        for _, players, sid in self.games:  # every leader proposes, then two players approve
            self.fake.comment(players[0], sid, f"**PROPOSE: {', '.join(players[:size])}**")
        self.settle()
        for _, players, sid in self.games:
            self.fake.comment(players[-1], sid, "**APPROVE**")
            self.fake.comment(players[-2], sid, "**APPROVE**")
        self.settle()
        assert all(len(self.mod.state(g).votes) == 2 for g, _, _ in self.games), "the world was not built"
        self.voted = 0  # the new votes so far (in every game, after the two)

    def use(self) -> None:
        """This world's database behind the store (several worlds are open at once)."""
        from forumbot import store

        store.db.initialize(self.database)

    def moderator(self):
        import praw

        from adapters.reddit import RedditForum
        from forumbot.shell.moderator import Moderator

        forum = TimedForum(RedditForum(praw.Reddit(**self.fake.praw_kwargs())))
        return forum, Moderator(forum, clock=_now)  # type: ignore[arg-type]

    def _seed(self) -> list:
        """G games in the proposal phase, each with its thread on the fake."""
        from forumbot import store
        from forumbot.rules import make_config, start

        at = _now().replace(microsecond=0) - timedelta(seconds=1)  # (before any comment: Reddit's whole seconds)
        out = []
        with store.db.atomic():
            for g in range(self.G):
                players = [f"g{g}p{i}" for i in range(PLAYERS)]
                cfg = make_config("resistance", players, host=f"host{g}", leader_order="listed", subreddit=SUB)
                s = self.fake.submit("forumbot", SUB, f"Game {g}", "opening")
                game = store.Game.create(forum="reddit", host=cfg.host, preset=cfg.preset,
                                         config=json.dumps(cfg.to_json()), seed=g,
                                         thread=f"{SUB}:{s['id']}", created_at=store.naive(at))
                store.append_events(game, start(cfg, g, at))
                store.Outbox.create(key=f"{game.tag}:1:opening", game=game.id, kind="thread", body="opening",
                                    state="posted", ext_id=f"{SUB}:{s['id']}", created_at=store.naive(at))
                out.append((game, players, s["id"]))
        return out

    def settle(self, most: int = 100) -> None:
        """Cycle until a cycle reads nothing and writes nothing."""
        from forumbot import store

        for _ in range(most):
            before = len(self.fake.requests)
            report = self.mod.cycle()
            wrote = any(m != "GET" for m, _ in self.fake.requests[before:])
            pending = store.Outbox.select().where(store.Outbox.state == "pending").exists()
            if not (report.fetched or wrote or pending or report.errors):
                return
        raise SystemExit(f"G={self.G}: the bot did not settle in {most} cycles")

    def _requests(self, since: int) -> int:
        return sum(1 for _, p in self.fake.requests[since:] if "access_token" not in p)

    def quiet(self) -> dict:
        """A quiet cycle of the running bot (after one not measured: a cold start of this
        world's database in between has made it read its caches again)."""
        self.use()
        self.mod.cycle()
        n = len(self.fake.requests)
        self.forum.cpu = 0.0
        gc.collect()
        self.queries.start()
        t0 = time.thread_time()
        report = self.mod.cycle()
        cpu = time.thread_time() - t0
        sql = self.queries.stop()
        assert not report.fetched and not report.handled and not report.errors, report
        return {"cpu": cpu, "sql": sql, "requests": self._requests(n), "forum_cpu": self.forum.cpu}

    def cold(self) -> dict:
        """A new Moderator's first cycle (a restart: nothing cached), then the bot runs on."""
        self.use()
        forum, mod = self.moderator()
        n = len(self.fake.requests)
        gc.collect()
        self.queries.start()
        t0 = time.thread_time()
        report = mod.cycle()
        cpu = time.thread_time() - t0
        sql = self.queries.stop()
        assert not report.fetched and not report.handled and not report.errors, report
        return {"cpu": cpu, "sql": sql, "requests": self._requests(n), "forum_cpu": forum.cpu}

    def run_once(self) -> dict:
        """`forumbot run --once` in a new process: its CPU (user + system)."""
        env = dict(os.environ, PYTHONPATH=ROOT)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        n = len(self.fake.requests)
        r = subprocess.run([sys.executable, "-m", "forumbot", "run", "--once", "--settings", "settings.ini"],
                           cwd=self.dir, capture_output=True, text=True, timeout=600, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if r.returncode != 0 or "fetched 0, handled 0, posted 0" not in r.stdout:
            raise SystemExit(f"run --once: {r.returncode}\n{r.stdout}\n{r.stderr}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return {"cpu": cpu, "requests": self._requests(n)}

    def _new_votes(self) -> None:
        """One new APPROVE in every game, by its next player who has not voted."""
        if self.voted >= VOTERS + 1:
            raise SystemExit(f"G={self.G}: no player left to vote without closing the vote")
        for _, players, sid in self.games:
            self.fake.comment(players[self.voted], sid, "**APPROVE**")
        self.voted += 1
        time.sleep(1.0)  # (Reddit stamps whole seconds: the votes are older than the cycle)

    def warm(self) -> None:
        """A vote in every game, not measured: the running bot has every cache at hand again
        (as in a bot that has run a while), after the other bots that worked on its database."""
        self.use()
        self._new_votes()
        self.settle()

    def vote(self) -> dict:
        """One new APPROVE in every game, one busy cycle."""
        from forumbot import store

        self.use()
        self._new_votes()
        delivery = self.mod.delivery
        flush = delivery.flush
        spent = {"cpu": 0.0, "sql": 0, "forum": 0.0}

        def timed_flush():
            sql0, forum0, t0 = self.queries.n, self.forum.cpu, time.thread_time()
            try:
                return flush()
            finally:
                spent["cpu"] += time.thread_time() - t0
                spent["sql"] += self.queries.n - sql0
                spent["forum"] += self.forum.cpu - forum0

        database = store.db.obj
        commit = database.commit
        commits = {"n": 0}

        def counted_commit():
            commits["n"] += 1
            return commit()

        delivery.flush = timed_flush  # type: ignore[method-assign]
        database.commit = counted_commit
        self.forum.cpu = 0.0
        gc.collect()
        try:
            self.queries.start()
            t0 = time.thread_time()
            report = self.mod.cycle()
            cpu = time.thread_time() - t0
            sql = self.queries.stop()
        finally:
            del delivery.flush
            database.commit = commit
        votes = sum(1 for g, _, _ in self.games if len(self.mod.state(g).votes) == 2 + self.voted)
        assert report.handled == self.G and votes == self.G and not report.errors, (report, votes)
        out = {"sql": sql / votes, "out_sql": spent["sql"] / votes, "commits": commits["n"] / votes,
               "cpu": (cpu - self.forum.cpu) / votes, "out_cpu": (spent["cpu"] - spent["forum"]) / votes,
               "forum_cpu": self.forum.cpu / votes, "kinds": Counter(self.queries.kinds)}
        self.settle()  # (what the busy cycle left to read, for the quiet cycles after it)
        return out

    def close(self) -> None:
        self.use()
        self.database.close()
        self.fake.stop()
        self.tmp.cleanup()


def _spread(xs: list[float], scale: float = 1.0, fmt: str = ".1f") -> str:
    return (f"{statistics.median(xs) * scale:{fmt}} "
            f"({min(xs) * scale:{fmt}}-{max(xs) * scale:{fmt}})")


def main(sizes: list[int], rounds: int) -> None:
    if not 1 <= rounds <= VOTERS:
        raise SystemExit(f"--rounds: 1 to {VOTERS} (each round brings every game a new vote)")
    queries = QueryCount()
    t0 = time.perf_counter()
    worlds = [World(g, queries) for g in sizes]
    print(f"worlds built in {time.perf_counter() - t0:.0f} s; {rounds} interleaved rounds")
    rows: dict[int, dict[str, list]] = {w.G: {} for w in worlds}
    kinds: Counter = Counter()  # the statements of the last G's busy cycles
    for kinds_measured in (("quiet", "cold", "run_once"), ("vote",)):
        if kinds_measured == ("vote",):
            for w in worlds:
                w.warm()
        for _ in range(rounds):
            for kind in kinds_measured:
                for w in worlds:
                    for k, v in getattr(w, kind)().items():
                        if k == "kinds":
                            kinds = v
                        else:
                            rows[w.G].setdefault(f"{kind}_{k}", []).append(v)
    base = rows[sizes[0]]
    med = statistics.median

    print("\nquiet cycle of the running bot (CPU ms of its thread, and of it in forum calls: praw, HTTP;"
          " SQL statements; requests)")
    print(f"{'G':>6} {'CPU ms median (low-high)':>26} {'ratio':>6} {'forum ms':>9} {'bot ms':>7} {'ratio':>6}"
          f" {'SQL':>5} {'requests':>9}")
    bot = {g: [c - f for c, f in zip(rows[g]['quiet_cpu'], rows[g]['quiet_forum_cpu'])] for g in sizes}
    for g in sizes:
        r = rows[g]
        print(f"{g:>6} {_spread(r['quiet_cpu'], 1000):>26} {med(r['quiet_cpu']) / med(base['quiet_cpu']):>6.2f}"
              f" {med(r['quiet_forum_cpu']) * 1000:>9.1f} {med(bot[g]) * 1000:>7.1f}"
              f" {med(bot[g]) / med(bot[sizes[0]]):>6.2f}"
              f" {med(r['quiet_sql']):>5.0f} {med(r['quiet_requests']):>9.0f}")
    print("\ncold start: a new Moderator's first cycle in-process (CPU ms, of it in forum calls), "
          "and `run --once` in a new process (CPU ms, user + system)")
    print(f"{'G':>6} {'cold CPU ms':>24} {'ratio':>6} {'forum ms':>9} {'SQL':>5} {'requests':>9}"
          f" {'run --once CPU ms':>26} {'ratio':>6}")
    for g in sizes:
        r = rows[g]
        print(f"{g:>6} {_spread(r['cold_cpu'], 1000):>24} {med(r['cold_cpu']) / med(base['cold_cpu']):>6.2f}"
              f" {med(r['cold_forum_cpu']) * 1000:>9.1f} {med(r['cold_sql']):>5.0f} {med(r['cold_requests']):>9.0f}"
              f" {_spread(r['run_once_cpu'], 1000, '.0f'):>26}"
              f" {med(r['run_once_cpu']) / med(base['run_once_cpu']):>6.2f}")

    print(f"\na vote: one new APPROVE in each of G games, one busy cycle a round (per vote, median of the"
          f" {rounds} rounds and lowest-highest; the bot's CPU: its thread's, without forum calls;"
          f" target <= {TARGET_VOTE_MS:g} ms and <= 2 statements)")
    print(f"{'G':>6} {'SQL/vote':>9} {'handling':>9} {'edits out':>10} {'commits/vote':>13}"
          f" {'bot CPU ms/vote (low-high)':>27} {'/target':>8} {'handling':>9} {'edits out':>10}"
          f" {'forum CPU ms/vote':>18}")
    for g in sizes:
        r = rows[g]
        print(f"{g:>6} {med(r['vote_sql']):>9.2f} {med(r['vote_sql']) - med(r['vote_out_sql']):>9.2f}"
              f" {med(r['vote_out_sql']):>10.2f} {med(r['vote_commits']):>13.2f}"
              f" {_spread(r['vote_cpu'], 1000, '.3f'):>27} {med(r['vote_cpu']) * 1000 / TARGET_VOTE_MS:>8.2f}"
              f" {med([c - o for c, o in zip(r['vote_cpu'], r['vote_out_cpu'])]) * 1000:>9.3f}"
              f" {med(r['vote_out_cpu']) * 1000:>10.3f} {med(r['vote_forum_cpu']) * 1000:>18.3f}")
    print(f"G={sizes[-1]} statements of the last busy cycle: "
          + ", ".join(f"{k} x{c}" for k, c in kinds.most_common()))
    for w in worlds:
        w.close()


# --- requests of `run --once` with games made through the bot (the older bench) ------------------

def requests_main(sizes: list[int]) -> None:
    base = None
    print("games  quiet-requests  busy-requests  quiet/G=1  busy/G=1")
    for g in sizes:
        quiet, busy, kinds = _requests_of_run_once(g)
        base = base or (quiet, busy)
        print(f"{g:5d}  {quiet:14d}  {busy:13d}  {quiet / base[0]:9.2f}  {busy / base[1]:8.2f}")
        print("       busy cycle: " + ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items())))


def _requests_of_run_once(games: int) -> tuple[int, int, Counter]:
    import re

    env = dict(os.environ, PYTHONPATH=ROOT)
    fake = FakeReddit().start()

    def run_once(workdir: str) -> None:
        r = subprocess.run([sys.executable, "-m", "forumbot", "run", "--once", "--settings", "settings.ini"],
                           cwd=workdir, capture_output=True, text=True, timeout=600, env=env)
        if r.returncode != 0:
            raise SystemExit(r.stderr)

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
            leader = re.search(r"Leader order\*\*: (\w+)", s["selftext"])
            if leader:
                fake.comment(leader.group(1), s["id"], "**STATUS**")
        n = len(fake.requests)
        run_once(d)
        busy = fake.requests[n:]
    fake.stop()
    return len(quiet), len(busy), Counter(f"{m} {p}" for m, p in busy)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--requests":
        requests_main([int(a) for a in args[1:]] or [1, 10])
        sys.exit(0)
    rounds = 5
    if args[:1] == ["--rounds"]:
        rounds, args = int(args[1]), args[2:]
    main([int(a) for a in args] or [1, 10, 100, 1000], rounds)
