"""Full simulated games per second for each preset, by the pure engine with random legal
players (no store, no forum), as a ratio to the `resistance` preset in the same run.

    .venv/bin/python bench/engine.py [games-per-preset]
"""
from __future__ import annotations

import os
import random
import sys
import time
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from forumbot.rules import make_config  # noqa: E402
from forumbot.rules.random_play import play_out  # noqa: E402

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy"]
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
PRESETS = {
    "resistance": ({}, range(5, 11)),
    "resistance-plot": ({"plot_cards": True}, range(5, 11)),
    "so-say-we-all": ({"mission_cards": True}, range(5, 11)),
    "avalon": ({"plot_cards": True, "lady_of_the_lake": True, "roles": ("percival",)}, range(5, 11)),
    "avalon-2020": ({"plot_cards": True}, [8]),
}


def rate(preset: str, games: int) -> tuple[float, int, float]:
    options, sizes = PRESETS[preset]
    sizes = list(sizes)
    events = 0
    t0 = time.perf_counter()
    for i in range(games):
        n = sizes[i % len(sizes)]
        cfg = make_config(preset, NAMES[:n], leader_order="random", **options)
        _, log, _ = play_out(cfg, i, random.Random(i), T0)
        events += len(log)
    took = time.perf_counter() - t0
    return games / took, events // games, events / took


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    base = None
    print(f"{'preset':16} {'games/s':>9} {'ratio':>7} {'events/game':>12} {'events/s':>9} {'ratio':>7}")
    for preset in PRESETS:
        r, ev, evs = rate(preset, games)
        base = base or (r, evs)
        print(f"{preset:16} {r:9.1f} {r / base[0]:7.2f} {ev:12d} {evs:9.0f} {evs / base[1]:7.2f}")
    print("ratios are to `resistance` in this run. avalon-2020's games are long because its votes "
          "never close early: the random voters keep voting until a deadline.")


if __name__ == "__main__":
    main()
