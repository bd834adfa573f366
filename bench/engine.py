"""The pure engine's speed: full simulated games per preset, by the random legal players of
forumbot/rules/random_play.py (no store, no forum), and the cost of one command early and
late in a long game.

    .venv/bin/python bench/engine.py [games-per-preset]      (default 120)

Each preset's games are played three times (after a warm-up), and the best time counts: the
machine is shared. Per preset: games/s, decisions/s (a decision: a team pick, a vote, an order, a card given,
played, passed or answered, a Lady's or an Assassin's pick), decisions and events per game,
games left unfinished, and the ratios of games/s and decisions/s to `resistance` in the
same run. "resistance 5p" is the 5-player base game alone.

Then two long games, to show that a command's cost does not grow with the game: a scripted
10-player base game as long as the rules allow (every mission has four rejected teams, each
voter changes their vote twice, then the fifth team goes; 25 votes closed in all), and
random avalon-2020 games whose votes run long. Each prints the mean cost of one command
(`apply` and the caller's `fold`, as the bot runs one) early and late, and late/early.
"""
from __future__ import annotations

import os
import random
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from forumbot.rules import MissionOrder, Propose, Refusal, TeamVote, apply, fold, make_config, replay, start  # noqa: E402
from forumbot.rules.random_play import play_out, random_command  # noqa: E402

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy"]
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
PRESETS = {
    "resistance": ("resistance", {}, range(5, 11)),
    "resistance 5p": ("resistance", {}, [5]),
    "resistance-plot": ("resistance-plot", {"plot_cards": True}, range(5, 11)),
    "so-say-we-all": ("so-say-we-all", {"mission_cards": True}, range(5, 11)),
    "avalon": ("avalon", {"plot_cards": True, "lady_of_the_lake": True, "roles": ("percival",)}, range(5, 11)),
    "avalon-2020": ("avalon-2020", {"plot_cards": True}, [8]),
}
# the events that record a player's decision
DECISIONS = {"team_proposed", "vote_cast", "order_cast", "order_preloaded", "plot_played", "plot_passed",
             "plot_declared", "plot_taken", "plot_reveal", "lady_used", "assassinated", "mc_played",
             "mc_passed", "mc_badge"}


def decisions(log) -> int:
    n = 0
    for e in log:
        if e.type in DECISIONS or (e.type == "plot_given" and not e.data.get("own")):
            n += 1
        elif e.type == "mc_done" and (e.data["result"].endswith(" chosen") or e.data["result"].startswith("given to")):
            n += 1
    return n


def rate(name: str, games: int, reps: int = 3) -> dict:
    """Play `games` seeded games `reps` times; the best run's time (the machine is shared)."""
    preset, options, sizes = PRESETS[name]
    sizes = list(sizes)
    configs = {n: make_config(preset, NAMES[:n], leader_order="random", **options) for n in sizes}
    events = moves = unfinished = refused = 0
    best = float("inf")
    clock = time.perf_counter
    for rep in range(reps):
        took = 0.0
        for i in range(games):
            config, rng = configs[sizes[i % len(sizes)]], random.Random(i)
            t0 = clock()
            state, log, refusals = play_out(config, i, rng, T0)
            took += clock() - t0
            if rep == 0:
                events += len(log)
                moves += decisions(log)
                unfinished += state.running
                refused += refusals
        best = min(best, took)
    return dict(games=games / best, decisions=moves / best, per_game=moves / games, events=events / games,
                unfinished=unfinished, refusals=refused / games)


# --- a long game ---------------------------------------------------------------------------


def long_base_game() -> tuple[object, int, list]:
    """The commands of a scripted 10-player base game as long as the rules allow, and the
    mission each belongs to."""
    cfg = make_config("resistance", NAMES, leader_order="listed")
    seed = 7
    state = replay(cfg, seed, start(cfg, seed, T0))
    at = T0
    commands: list[tuple[int, object]] = []

    def do(cmd):
        commands.append((state.mission, cmd))
        result = apply(state, cmd)
        assert not isinstance(result, Refusal), (cmd, result)
        for e in result:
            fold(state, e)

    fail = {2, 4}  # the missions the spies fail: S, F, S, F, S, and the resistance wins
    rng = random.Random(seed)
    while state.running:
        mission = state.mission
        spies = [s.name for s in state.seats if s.side == "spies"]
        others = [s.name for s in state.seats if s.side != "spies"]
        team = tuple((spies + others if mission in fail else others + spies)[:state.team_size()])
        for attempt in range(5):
            at += timedelta(minutes=5)
            do(Propose(at, state.leader, team))
            voters = state.names
            for _ in range(2):  # every voter but the last changes their mind, twice
                for v in voters[:-1]:
                    at += timedelta(minutes=1)
                    do(TeamVote(at, v, rng.choice(["approve", "reject"]), "thread"))
            for v in voters:  # four teams rejected, the fifth approved
                at += timedelta(minutes=1)
                do(TeamVote(at, v, "approve" if attempt == 4 else "reject", "thread"))
        for n in team:
            at += timedelta(minutes=1)
            do(MissionOrder(at, n, "sabotage" if mission in fail and n in spies else "support", "pm"))
        assert state.mission == mission + 1 or not state.running
    return cfg, seed, commands


def time_commands(cfg, seed, commands, reps: int) -> list[float]:
    """Seconds per command (apply, then the caller's fold), the median of `reps` runs."""
    runs = []
    for _ in range(reps):
        state = replay(cfg, seed, start(cfg, seed, T0))
        times = []
        clock = time.perf_counter
        for _, cmd in commands:
            t0 = clock()
            result = apply(state, cmd)
            for e in result:
                fold(state, e)
            times.append(clock() - t0)
        runs.append(times)
    return [statistics.median(x) for x in zip(*runs)]


def long_random_games(seeds: int) -> tuple[float, float, int]:
    """Random avalon-2020 games with patient players (the votes run long): the mean cost of
    a command in the first and the last quarter of each game, and the commands per game."""
    cfg = make_config("avalon-2020", NAMES[:8], leader_order="random", plot_cards=True)
    early, late, counts = [], [], []
    for seed in range(seeds):
        rng = random.Random(seed)
        state = replay(cfg, seed, start(cfg, seed, T0))
        at = T0
        times = []
        clock = time.perf_counter
        for _ in range(20000):
            if not state.running or state.phase == "assassination":
                break
            at += timedelta(minutes=rng.randint(1, 10))
            cmd = random_command(state, rng, at, patience=0.998)
            t0 = clock()
            result = apply(state, cmd)
            if not isinstance(result, Refusal):
                for e in result:
                    fold(state, e)
            times.append(clock() - t0)
            if not isinstance(result, Refusal):
                at = max(at, state.last_event_at)
        q = len(times) // 4
        early.append(sum(times[:q]) / q)
        late.append(sum(times[-q:]) / q)
        counts.append(len(times))
    return statistics.mean(early), statistics.mean(late), int(statistics.mean(counts))


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    for name in PRESETS:  # warm up
        rate(name, 10, reps=1)
    base = None
    print(f"{'preset':16} {'games/s':>9} {'ratio':>6} {'decisions/s':>12} {'ratio':>6} {'dec/game':>9} "
          f"{'events/game':>12} {'refusals/game':>14} {'unfinished':>11}")
    for name in PRESETS:
        r = rate(name, games)
        base = base or r
        print(f"{name:16} {r['games']:9.1f} {r['games'] / base['games']:6.2f} {r['decisions']:12.0f} "
              f"{r['decisions'] / base['decisions']:6.2f} {r['per_game']:9.1f} {r['events']:12.1f} "
              f"{r['refusals']:14.1f} {r['unfinished']:11d}")
    print("ratios are to `resistance` (all table sizes) in this run.")
    print()
    cfg, seed, commands = long_base_game()
    per = time_commands(cfg, seed, commands, reps=15)
    first = [t for (m, _), t in zip(commands, per) if m == 1]
    last = [t for (m, _), t in zip(commands, per) if m == 5]
    a, b = statistics.mean(first) * 1e6, statistics.mean(last) * 1e6
    print(f"long base game ({len(commands)} commands, 10 players, 25 votes closed): "
          f"mission 1 {a:.1f} us/command, mission 5 {b:.1f} us/command, late/early {b / a:.2f}")
    a, b, n = long_random_games(6)
    print(f"long avalon-2020 games (~{n} commands each): first quarter {a * 1e6:.1f} us/command, "
          f"last quarter {b * 1e6:.1f} us/command, late/early {b / a:.2f}")


if __name__ == "__main__":
    main()
