"""Our engine against its peer, aigamedev/resistance, measured the same way: 5-player base
games of The Resistance played to the end by a random player on both sides, in one process.

    .venv/bin/python bench/vs_peer.py PEER [--rounds 15] [--games 300]
    .venv/bin/python bench/vs_peer.py PEER --callgrind [--games 300]

PEER is a checkout of https://github.com/aigamedev/resistance (or set FORUMBOT_PEER); without
one the bench says so and stops (exit 0). Nothing of the peer is kept in this repository.

Each side (ours: `random_play.play_out` on a "resistance" config of 5 names; the peer:
`game.Game` with five `bots.beginners.RandomBot`, two of them spies, seats shuffled) plays
`--games` seeded games per round; the rounds alternate which side goes first, and each is
timed in CPU seconds (`time.process_time`), so the other jobs on a shared machine do not
count. It prints each side's games per CPU second (median, and the lowest and highest
round), and the ratio ours / peer per round (median, lowest, highest): a ratio above 1 means
we play more games per CPU second than the peer. Before each side's round the garbage of
the round before is collected (untimed), so neither side pays for the other's.

The two random players do not play games of the same length (ours approves 2 teams in 3
and now and then lets a deadline pass; the peer's RandomBot approves half), so it also
prints the decisions per game of each side, counted in an untimed pass over the same games
(a proposal, a team vote, a team member's mission card: our TeamProposed, VoteCast and
OrderCast events; the peer's select, vote and sabotage calls; the peer's announcements are
work of its game, not counted as decisions), and the ratio per decision: ours / peer of
the decisions per CPU second (above 1: a decision costs us less).

The peer's bots open a log file each in `logs/` of the working directory; the bench gives
their loggers a NullHandler first, so the peer writes no files and its `say` costs a level
check, as ours costs nothing.

`--callgrind` runs each side under `valgrind --tool=callgrind` twice, once with no games
(start-up: Python, the imports, the configs) and once with `--games` games, and prints the
instructions per game (the difference over the games), each side's start-up, and the ratio
ours / peer (below 1: we execute fewer instructions per game), per game and per decision.
Instruction counts do not depend on the machine's load.
"""
from __future__ import annotations

import argparse
import gc
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = ["alice", "bob", "carol", "dave", "erin"]
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def our_config():
    """The game our side plays: The Resistance, 5 names, a random first leader."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    from forumbot.rules import make_config  # (here: the repository is on the path only now)

    return make_config("resistance", NAMES, leader_order="random")


def ours():
    """A function that plays game `i` with our engine and random player."""
    config = our_config()
    from forumbot.rules.random_play import play_out  # (here: after our_config puts the repository on the path)

    def play(i: int, rng: random.Random) -> bool:
        state, _log, _refusals = play_out(config, i, rng, T0)
        return not state.running

    return play


def peer(path: str):
    """A function that plays game `i` with the peer's engine and its RandomBot."""
    import logging

    sys.path.insert(0, path)
    from bots.beginners import RandomBot  # type: ignore[import-not-found]
    from game import Game  # type: ignore[import-not-found]

    logging.getLogger("RandomBot").addHandler(logging.NullHandler())  # no log files
    bots = [RandomBot] * 5

    def play(i: int, rng: random.Random) -> bool:
        roles = [True, True, False, False, False]
        rng.shuffle(roles)
        g = Game(bots, roles)
        g.run()
        return g.done

    return play


def decisions_ours(games: range) -> float:
    """Our decisions per game over `games` (untimed): proposals, team votes, mission cards."""
    from forumbot.rules.random_play import play_out  # (here: after our_config puts the repository on the path)

    config = our_config()
    kinds = {"team_proposed", "vote_cast", "order_cast"}
    total = 0
    for i in games:
        _state, log, _refusals = play_out(config, i, random.Random(i), T0)
        total += sum(1 for e in log if e.type in kinds)
    return total / len(games)


def decisions_peer(path: str, games: range) -> float:
    """The peer's decisions per game over `games` (untimed): its bots' select, vote and
    sabotage calls (its announcements not counted)."""
    play = peer(path)
    from bots.beginners import RandomBot  # type: ignore[import-not-found]  # (here: peer() put it on the path)

    count = [0]
    saved = {name: RandomBot.__dict__[name] for name in ("select", "vote", "sabotage")}

    def counted(f):
        def wrapper(*args):
            count[0] += 1
            return f(*args)
        return wrapper

    try:
        for name, f in saved.items():
            setattr(RandomBot, name, counted(f))
        for i in games:
            rng = random.Random(i)
            random.seed(i)
            play(i, rng)
    finally:
        for name, f in saved.items():
            setattr(RandomBot, name, f)
    return count[0] / len(games)


def peer_path(given: str | None) -> str | None:
    path = given or os.environ.get("FORUMBOT_PEER")
    if path and os.path.isfile(os.path.join(path, "game.py")) and os.path.isdir(os.path.join(path, "bots")):
        return os.path.abspath(path)
    return None


def run_round(play, games: int, first: int, peer_rng: bool) -> float:
    """CPU seconds for `games` seeded games (the seeding is not timed)."""
    took = 0.0
    clock = time.process_time
    for i in range(first, first + games):
        rng = random.Random(i)
        if peer_rng:
            random.seed(i)  # the peer's bots draw from the module's generator
        t0 = clock()
        done = play(i, rng)
        took += clock() - t0
        assert done, f"game {i} did not finish"
    return took


def compare(path: str, rounds: int, games: int) -> dict:
    sides = {"ours": ours(), "peer": peer(path)}
    for name, play in sides.items():  # warm up
        run_round(play, 20, 0, name == "peer")
    rates: dict[str, list[float]] = {"ours": [], "peer": []}
    ratios = []
    for r in range(rounds):
        order = ["ours", "peer"] if r % 2 == 0 else ["peer", "ours"]
        got = {}
        for name in order:
            gc.collect()  # (the round before's garbage, untimed)
            got[name] = games / run_round(sides[name], games, 1000 + r * games, name == "peer")
            rates[name].append(got[name])
        ratios.append(got["ours"] / got["peer"])
    seeds = range(1000, 1000 + games)  # the first round's games
    decisions = {"ours": decisions_ours(seeds), "peer": decisions_peer(path, seeds)}
    return {"rates": rates, "ratios": ratios, "decisions": decisions}


def _spread(xs: list[float], fmt: str) -> str:
    return f"{format(statistics.median(xs), fmt)} ({format(min(xs), fmt)}-{format(max(xs), fmt)})"


def print_compare(result: dict, rounds: int, games: int) -> None:
    print(f"5-player base games, random players, {rounds} interleaved rounds of {games} games a side, CPU time")
    for name in ("ours", "peer"):
        rate = _spread(result["rates"][name], ".0f")
        print(f"  {name}: {rate} games per CPU second  (median (lowest-highest round))")
    print(f"  ours / peer: {_spread(result['ratios'], '.2f')}  (median (lowest-highest round))")
    d = result["decisions"]
    per = [x * d["ours"] / d["peer"] for x in result["ratios"]]
    print(f"  decisions per game (first round's games): ours {d['ours']:.1f}, peer {d['peer']:.1f}")
    print(f"  ours / peer per decision: {_spread(per, '.2f')}  "
          "(decisions per CPU second, median (lowest-highest round))")


# --- callgrind -----------------------------------------------------------------------------


def child(side: str, games: int, path: str | None) -> None:
    """Under callgrind: set up one side, play `games` games, exit."""
    play = ours() if side == "ours" else peer(path or "")
    for i in range(games):
        rng = random.Random(i)
        if side == "peer":
            random.seed(i)
        play(i, rng)


def instructions(side: str, games: int, path: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
               os.path.abspath(__file__), path, "--child", side, "--games", str(games)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp)
        with open(out) as f:
            text = f.read()
    m = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M)
    assert m, "no instruction total in callgrind's output"
    return int(m.group(1))


def callgrind(path: str, games: int) -> None:
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: no instruction counts (apt-get install valgrind)")
        return
    per, boot = {}, {}
    for side in ("ours", "peer"):
        boot[side] = instructions(side, 0, path)
        per[side] = (instructions(side, games, path) - boot[side]) / games
    seeds = range(games)  # the child's games
    decisions = {"ours": decisions_ours(seeds), "peer": decisions_peer(path, seeds)}
    print(f"5-player base games, random players, under valgrind --tool=callgrind, {games} games a side")
    for side in ("ours", "peer"):
        print(f"  {side}: {per[side] / 1e6:.2f} M instructions per game "
              f"(start-up {boot[side] / 1e6:.0f} M, subtracted), {decisions[side]:.1f} decisions per game, "
              f"{per[side] / decisions[side] / 1e3:.0f} k instructions per decision")
    print(f"  ours / peer: {per['ours'] / per['peer']:.2f} of the peer's instructions per game, "
          f"{per['ours'] / decisions['ours'] / (per['peer'] / decisions['peer']):.2f} per decision")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("peer", nargs="?", help="a checkout of aigamedev/resistance (or FORUMBOT_PEER)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--games", type=int, default=300, help="games per round and side (callgrind: per side)")
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--child", choices=("ours", "peer"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.games, args.peer)
        return 0
    path = peer_path(args.peer)
    if path is None:
        print("no checkout of aigamedev/resistance given (an argument or FORUMBOT_PEER, with game.py and "
              "bots/ in it): skipped")
        return 0
    if args.callgrind:
        callgrind(path, args.games)
    else:
        print_compare(compare(path, args.rounds, args.games), args.rounds, args.games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
