"""bench/day.py on a small, fast day: games on the local forum whose players move, the bot on a
fake clock, requests counted, every status block caught up, nothing left in the outbox."""
from __future__ import annotations

import runpy
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "day.py"


def test_a_short_day_of_fast_games_stays_within_the_limit_and_every_block_catches_up(capsys):
    day = runpy.run_path(str(BENCH))
    r = day["simulate"](games=8, hours=2, poll=30, writes=60, seed=3, phase=3600)
    assert r["moves"] > 20 and r["writes"]["edit"] > 0 and r["writes"]["comment"] > 0
    assert r["cycles"] == 240
    assert max(r["per_minute"].values()) <= day["LIMIT"]
    assert min(r["per_minute"].get(m, 0) for m in range(r["minutes"])) >= 2  # every poll reads
    assert r["stale"] and not r["still_stale"] and r["pending"] == 0
    assert max(r["late"][0]) == 0  # every result went out in the cycle that wrote it
    day["report"](r, 30)
    out = capsys.readouterr().out
    assert "requests a minute: peak" in out and "status blocks behind" in out
