"""A simulated day of one account: G running games on the local forum, the bot on a fake
clock (no sleeping), every request counted as Reddit would count it, against its 100 a minute.

    .venv/bin/python bench/day.py [G ...] [--hours H] [--poll S] [--writes N] [--seed N]

Each game (The Resistance, five players) is dealt at a time spread over the 22 hours before, so
its deadlines (24 hours a phase, the preset's) fall all through the simulated day. When a
phase opens, its players' moves are drawn: 70% of them in the four hours before its deadline,
the rest spread over the phase; one move in ten is never made (the deadline closes the phase,
and the missed vote counts as the preset says). A team is rejected three times in ten, and a
spy sabotages one time in two. A move is posted on the forum at its own time; the bot polls
every `--poll` seconds (30) with `[bot] writes_per_minute` = `--writes` (60, Reddit's default).

Requests are counted as on Reddit (adapters/reddit.py): a fetch reads one listing page per
100 new comments (at least one) and the unread PMs (one page per 100), a mark-read is one
request per 25 PMs, a re-check of comments one per 100, and each post, PM, edit or look-up one.
The forum says how many requests its last 60 seconds leave (as Discourse's adapter counts),
so the bot sees the forum's own limit too.

It prints, per hour and for the day: requests a minute (the peak rolling 60 seconds and the
mean), writes by kind, the oldest status block at any moment (from the moment a change was
applied until the forum's opening post shows the block of that state, checked against the
block rendered from the game's state), and how late results, prompts and PMs went out (from
the cycle that wrote them to the forum's stamp)."""
from __future__ import annotations

import argparse
import dataclasses
import heapq
import json
import math
import os
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from adapters.local import LocalForum  # noqa: E402
from forumbot import store  # noqa: E402
from forumbot.render.markup import markup_for  # noqa: E402
from forumbot.render.status import status_block  # noqa: E402
from forumbot.rules import deadlines, make_config, replay, start  # noqa: E402
from forumbot.rules.config import default_deadlines  # noqa: E402
from forumbot.rules.presets import PRESETS  # noqa: E402
from forumbot.rules.state import MISSION, PROPOSAL, SPIES, TEAM_VOTE  # noqa: E402
from forumbot.shell.moderator import Moderator  # noqa: E402

DAY_START = datetime(2026, 12, 1, 0, 0, tzinfo=timezone.utc)
LIMIT = 100  # Reddit's requests a minute
PAGE = 100  # items a listing page holds
MARK_BATCH = 25
LATE_SHARE, LATE_PART = 0.7, 1 / 6  # 70% of moves in the last sixth of a phase (4 hours of 24)
MISSED, REJECTED, SABOTAGE = 0.1, 0.3, 0.5
WHAT = {0: "results, prompts, role PMs", 1: "replies to players", 2: "reminders"}


class Clock:
    def __init__(self, at: datetime):
        self.at = at

    def __call__(self) -> datetime:
        return self.at


class CountedForum:
    """The local forum, its requests counted as Reddit counts them, with the forum's own count
    of the last 60 seconds (`requests_left`)."""

    def __init__(self, forum: LocalForum, clock: Clock):
        self.forum = forum
        self.clock = clock
        self.recent: deque[tuple[datetime, int]] = deque()
        self.per_minute: Counter = Counter()  # minute of the day -> requests
        self.writes: Counter = Counter()
        self.kinds: defaultdict[int, Counter] = defaultdict(Counter)  # minute -> requests by kind
        self.posted: list[tuple[str, datetime]] = []  # (key, when) of each post and PM
        self.on_edit: Callable[[str, str], None] | None = None

    def __getattr__(self, name):
        return getattr(self.forum, name)

    def _count(self, n: int, kind: str) -> None:
        now = self.clock()
        self.recent.append((now, n))
        minute = int((now - DAY_START).total_seconds() // 60)
        self.per_minute[minute] += n
        self.kinds[minute][kind] += n

    def requests_left(self) -> int:
        now = self.clock()
        while self.recent and self.recent[0][0] <= now - timedelta(seconds=60):
            self.recent.popleft()
        return max(0, LIMIT - sum(n for _, n in self.recent))

    def fetch(self, threads, cursor):
        got = self.forum.fetch(threads, cursor)
        comments = sum(1 for m in got.inbound if m.kind == "comment")
        pms = len(got.inbound) - comments
        self._count(max(1, math.ceil(comments / PAGE)) + max(1, math.ceil(pms / PAGE)), "fetch")
        return got

    def mark_read(self, ids):
        if ids:
            self._count(math.ceil(len(ids) / MARK_BATCH), "mark_read")
        return self.forum.mark_read(ids)

    def recheck(self, ids):
        if ids:
            self._count(math.ceil(len(ids) / PAGE), "recheck")
        return self.forum.recheck(ids)

    def find_posted(self, out):
        self._count(1, "find_posted")
        return self.forum.find_posted(out)

    def thread_id(self, ref):
        self._count(1, "thread_id")
        return self.forum.thread_id(ref)

    def post(self, out):
        self._count(1, out.kind)
        self.writes[out.kind] += 1
        posted = self.forum.post(out)
        if out.kind == "edit" and self.on_edit is not None:
            self.on_edit(out.thread, out.body)
        elif out.kind != "edit":
            self.posted.append((out.key, self.clock()))
        return posted


def seed_games(forum: LocalForum, games: int, rng: random.Random, phase: int) -> list[store.Game]:
    """G games in their first proposal, dealt at times spread over the phase before the day
    (less its reminder: no reminder is overdue at the start). `phase`: each phase's deadline."""
    out = []
    preset = "resistance"
    remind = min(2 * 3600, phase // 4)
    times = dataclasses.replace(default_deadlines(PRESETS[preset]), proposal=phase, team_vote=phase,
                                mission=phase, remind_before=remind)
    with store.db.atomic():
        for g in range(games):
            dealt = DAY_START - timedelta(seconds=rng.uniform(0, phase - remind))
            players = [f"g{g}p{i}" for i in range(5)]
            cfg = make_config(preset, players, host=f"host{g}", leader_order="listed", subreddit="games",
                              deadlines=times)
            thread = forum.create_thread("forumbot", f"Game {g}", "The opening post.", "games")
            game = store.Game.create(forum=forum.name, host=cfg.host, preset=cfg.preset,
                                     config=json.dumps(cfg.to_json()), seed=g, thread=thread,
                                     created_at=store.naive(dealt))
            events = start(cfg, g, dealt)
            store.append_events(game, events)
            store.Outbox.create(key=f"{game.tag}:1:opening", game=game.id, kind="thread",
                                body="The opening post.", state="posted", ext_id=thread,
                                created_at=store.naive(dealt), posted_at=store.naive(dealt))
            due = deadlines.next_wakeup(replay(cfg, g, events))  # the first deadline
            game.next_deadline = store.naive(due) if due else None
            game.save()
            out.append(game)
    return out


class Players:
    """Everyone's moves, drawn when a phase opens, made at their time (if still the phase)."""

    def __init__(self, forum: LocalForum, rng: random.Random):
        self.forum = forum
        self.rng = rng
        self.plan: list[tuple[datetime, int, int, int, str, str, str]] = []  # heap
        self.n = 0
        self.phase: dict[int, int] = {}

    def _when(self, opened: datetime, due: datetime | None, now: datetime) -> datetime | None:
        if self.rng.random() < MISSED:
            return None
        if due is None:
            return opened + timedelta(seconds=self.rng.uniform(60, 7200))
        span = (due - opened).total_seconds()
        late = span * LATE_PART
        for _ in range(50):  # a phase opened before the day: its moves not made yet (drawn again)
            if self.rng.random() < LATE_SHARE:
                at = due - timedelta(seconds=self.rng.uniform(60, max(61, late)))
            else:
                at = opened + timedelta(seconds=self.rng.uniform(0, max(1, span - 60)))
            if at > now:
                return at
        return now + timedelta(seconds=self.rng.uniform(1, max(2, (due - now).total_seconds())))

    def opened(self, game: store.Game, state, now: datetime) -> None:
        """The game's state changed: draw the moves of a phase it has newly opened."""
        if self.phase.get(game.id) == state.phase_id:
            return
        self.phase[game.id] = state.phase_id
        due = deadlines.due(state)
        opened = state.last_event_at or now
        moves: list[tuple[str, str, str]] = []  # (author, "comment"|"pm", text)
        if state.phase == PROPOSAL and state.leader:
            team = [s.name for s in state.active()][: state.team_size()]
            if state.leader not in [s.id for s in state.active()][: state.team_size()]:
                team = [state.shown(state.leader)] + team[:-1]
            moves.append((state.shown(state.leader), "comment", "**PROPOSE: " + ", ".join(team) + "**"))
        elif state.phase == TEAM_VOTE:
            for seat in state.waiting_for():
                word = "REJECT" if self.rng.random() < REJECTED else "APPROVE"
                moves.append((state.shown(seat), "comment", f"**{word}**"))
        elif state.phase == MISSION:
            for seat in state.waiting_for():
                spy = state.player(seat).side == SPIES
                word = "SABOTAGE" if spy and self.rng.random() < SABOTAGE else "SUPPORT"
                moves.append((state.shown(seat), "pm", word))
        for author, kind, text in moves:
            at = self._when(opened, due, now)
            if at is not None:
                self.n += 1
                heapq.heappush(self.plan, (at, self.n, game.id, state.phase_id, author, kind, text))

    def act(self, until: datetime, clock: Clock, games: dict[int, store.Game]) -> int:
        """Post every move due by `until`, each stamped at its own time."""
        made = 0
        now = clock.at
        while self.plan and self.plan[0][0] <= until:
            at, _, gid, phase_id, author, kind, text = heapq.heappop(self.plan)
            if self.phase.get(gid) != phase_id:
                continue  # the phase closed before this move
            clock.at = at
            game = games[gid]
            if kind == "comment":
                self.forum.comment(author, game.thread or "", text)
            else:
                self.forum.send_pm(author, self.forum.bot_name, game.tag, text)
            made += 1
        clock.at = now
        return made


def simulate(games: int, hours: float, poll: int, writes: int, seed: int, phase: int) -> dict:
    rng = random.Random(seed)
    clock = Clock(DAY_START)
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as d:
        store.connect(f"sqlite:///{d}/bot.db")
        local = LocalForum(os.path.join(d, "forum.db"), clock=clock)
        forum = CountedForum(local, clock)
        rows = {g.id: g for g in seed_games(local, games, rng, phase)}
        mod = Moderator(forum, clock=clock, writes_per_minute=writes, poll_interval=poll)
        markup = markup_for(local.markup.value)
        players = Players(local, rng)
        thread_game = {g.thread: gid for gid, g in rows.items()}
        stale_since: dict[int, datetime] = {}  # game -> when its shown block fell behind
        wanted: dict[int, str] = {}  # game -> the block of its state now
        shown: dict[int, str] = {}  # game -> the opening post's body now
        worst_stale: list[float] = []  # each stale spell, seconds
        hourly: dict[int, dict] = {}

        def edited(thread, body):
            gid = thread_game.get(thread)
            if gid is not None:
                shown[gid] = body

        forum.on_edit = edited
        for game in rows.values():
            players.opened(game, mod.state(game), clock())
        last_event = store.Event.select(store.Event.id).order_by(store.Event.id.desc()).scalar() or 0
        cycles, cpu0, moves = 0, time.process_time(), 0
        end = DAY_START + timedelta(hours=hours)
        while clock.at < end:
            moves += players.act(clock.at, clock, rows)
            mod.cycle()
            cycles += 1
            now = clock()
            changed = {gid for (gid,) in store.Event.select(store.Event.game)
                       .where(store.Event.id > last_event).tuples()}
            if changed:
                last_event = store.Event.select(store.Event.id).order_by(store.Event.id.desc()).scalar()
            for gid in changed:
                game = rows[gid]
                state = mod.state(game)
                wanted[gid] = status_block(state, game.tag, markup)
                players.opened(game, state, now)
                if gid not in stale_since:
                    stale_since[gid] = now
            oldest = 0.0
            for gid in list(stale_since):
                if wanted[gid] in shown.get(gid, ""):
                    worst_stale.append((now - stale_since.pop(gid)).total_seconds())
                else:
                    oldest = max(oldest, (now - stale_since[gid]).total_seconds())
            h = hourly.setdefault(int((now - DAY_START).total_seconds() // 3600),
                                  {"stale": 0.0, "moves": 0})
            h["stale"] = max(h["stale"], oldest)
            clock.at = now + timedelta(seconds=poll)
        cpu = time.process_time() - cpu0
        outbox = {o.key: o for o in store.Outbox.select().where(store.Outbox.kind != "edit")}
        late: dict[int, list[float]] = {}
        for key, at in forum.posted:
            o = outbox.get(key)
            if o is not None:
                late.setdefault(o.priority, []).append((at - store.aware(o.created_at)).total_seconds())
        pending = store.Outbox.select().where(store.Outbox.state == "pending").count()
        finished = store.Game.select().where(store.Game.status == "finished").count()
        store.close()
    return {"G": games, "kinds": forum.kinds, "cycles": cycles, "cpu": cpu, "moves": moves,
            "per_minute": forum.per_minute, "writes": forum.writes, "stale": worst_stale,
            "still_stale": stale_since, "end": clock.at,
            "hourly": hourly, "late": late, "pending": pending, "finished": finished, "minutes": int(hours * 60)}


def rolling_peak(per_minute: Counter, minutes: int) -> tuple[int, float]:
    """The most requests in any minute, and the mean a minute."""
    counts = [per_minute.get(m, 0) for m in range(minutes)]
    return max(counts), sum(counts) / max(1, len(counts))


def report(r: dict, poll: int) -> None:
    peak, mean = rolling_peak(r["per_minute"], r["minutes"])
    open_stale = [(r["end"] - s).total_seconds() for s in r["still_stale"].values()]
    stale = r["stale"] + open_stale
    print(f"\nG={r['G']}: {r['cycles']} cycles, {r['moves']} moves, {r['finished']} games finished, "
          f"{r['cpu']:.0f} s CPU ({1000 * r['cpu'] / r['cycles']:.0f} ms a cycle)")
    print(f"  requests a minute: peak {peak} (limit {LIMIT}), mean {mean:.1f}; minutes over the limit: "
          f"{sum(1 for m in range(r['minutes']) if r['per_minute'].get(m, 0) > LIMIT)}")
    top = max(range(r["minutes"]), key=lambda m: r["per_minute"].get(m, 0))
    print(f"  the busiest minute ({DAY_START + timedelta(minutes=top):%H:%M}): {dict(r['kinds'][top])}")
    print(f"  writes by kind: {dict(sorted(r['writes'].items()))} (total {sum(r['writes'].values())})")
    if stale:
        s = sorted(stale)
        print(f"  status blocks behind: {len(s)} spells; oldest {s[-1] / 60:.1f} min, "
              f"p99 {s[int(0.99 * (len(s) - 1))] / 60:.1f} min, median {s[len(s) // 2] / 60:.1f} min")
    for prio, lat in sorted(r["late"].items()):
        lat = sorted(lat)
        later = sum(1 for x in lat if x >= poll)
        print(f"  priority {prio} ({WHAT.get(prio, 'other')}): "
              f"{len(lat)} sent, latest {lat[-1]:.0f} s after the cycle that wrote it, "
              f"{later} a poll or more late")
    print(f"  still in the outbox at the end: {r['pending']}")
    print("  hour  requests  peak/min  edits-age-max(min)")
    for hour in sorted(r["hourly"]):
        mins = range(hour * 60, min(hour * 60 + 60, r["minutes"]))
        reqs = [r["per_minute"].get(m, 0) for m in mins]
        print(f"  {hour:>4}  {sum(reqs):>8}  {max(reqs):>8}  {r['hourly'][hour]['stale'] / 60:>8.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description="a simulated day of G games on one account")
    ap.add_argument("sizes", nargs="*", type=int, metavar="G")
    ap.add_argument("--hours", type=float, default=24.0)
    ap.add_argument("--poll", type=int, default=30)
    ap.add_argument("--writes", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--phase-hours", type=float, default=24.0, help="each phase's deadline (the preset's: 24)")
    args = ap.parse_args()
    for g in args.sizes or [100, 300, 1000]:
        report(simulate(g, args.hours, args.poll, args.writes, args.seed, int(args.phase_hours * 3600)), args.poll)


if __name__ == "__main__":
    main()
