"""The seeded games the engine's identity tests replay (tests/rules/test_engine_identity.py,
tests/rules/test_engine_identity_hook_fixes.py), their canonical forms and the fixtures they
are recorded in (tests/fixtures/engine_logs/). Record again (only ever with the engine the
fixtures are meant to pin):

    .venv/bin/python -m tests.support.identity --record
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import random
import re
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from forumbot.rules import GameState, Refusal, apply, fold, make_config, start
from forumbot.rules.commands import (
    Expire,
    HostAbort,
    HostClose,
    HostDisqualify,
    HostExtend,
    HostPause,
    HostRecord,
    HostReplace,
    HostResume,
    HostSkip,
    Postpone,
    Remind,
)
from forumbot.rules.config import default_deadlines, default_missed
from forumbot.rules.deadlines import due
from forumbot.rules.presets import PRESETS as RULES
from forumbot.rules.presets import spy_count
from forumbot.rules.random_play import random_command

FIXTURES = Path(__file__).parents[1] / "fixtures" / "engine_logs"
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy"]
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
MAX_STEPS = 5000  # as play_out
# bench/engine.py's tables: options and table sizes per preset
PRESETS = {
    "resistance": ({}, list(range(5, 11))),
    "resistance-plot": ({"plot_cards": True}, list(range(5, 11))),
    "so-say-we-all": ({"mission_cards": True}, list(range(5, 11))),
    "avalon": ({"plot_cards": True, "lady_of_the_lake": True, "roles": ["percival"]}, list(range(5, 11))),
    "avalon-2020": ({"plot_cards": True}, [8]),
}
COUNTS = {"plain": 240, "varied": 120, "host": 120}
SEED_BASE = {"plain": 0, "varied": 10_000, "host": 20_000}
FULL = {"plain": (0, 1, 2), "varied": (0,), "host": (0, 1)}  # games whose whole log is kept
STATE_FIELDS = (
    "seats", "phase", "phase_id", "phase_opened_at", "mission", "leader", "attempt", "rejections",
    "team", "public", "not_voting", "proxied", "critical", "critical_spent", "votes", "vote_via",
    "orders", "missions", "vote_history", "winner", "win_reason", "last_event_at", "extra", "actors",
    "seed", "extension", "paused_at", "paused_until", "reminded", "last_vote_at", "replaced",
    "missed_proposals", "stall_warned_at",
)


# --- canonical forms ----------------------------------------------------------------------


def canon(v):
    """A JSON-able form of a value that keeps its types apart (tuple, list, set, time)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, dict):
        assert all(isinstance(k, str) for k in v), v
        return {"{}": [[k, canon(x)] for k, x in v.items()]}  # in insertion order: it shows
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, tuple):
        return {"()": [canon(x) for x in v]}
    if isinstance(v, (set, frozenset)):
        return {"set": sorted(canon(x) for x in v)}
    if isinstance(v, datetime):
        return {"at": v.isoformat()}
    if dataclasses.is_dataclass(v):
        return {type(v).__name__: [[f.name, canon(getattr(v, f.name))] for f in dataclasses.fields(v)]}
    raise TypeError(f"no canonical form for {type(v).__name__}: {v!r}")


def sha(value) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def log_canon(events) -> list:
    return [[e.type, canon(e.at), canon(e.data)] for e in events]


def log_before_seat_ids(events) -> list:
    """The canonical log as the engine wrote it before seats had ids of their own: from a
    REPLACE on, the seat was named by its newcomer (renamed by value)."""
    from forumbot.rules.replace import renamed

    out, names = [], {}  # seat id -> the username the old log named it by
    for e in events:
        data = e.data
        for seat, name in names.items():
            data = renamed(data, seat, name)
            if e.type == "mc_done":  # its `result` words name the seat ("given to bob")
                data["result"] = re.sub(rf"\b{re.escape(seat)}\b", name, data["result"])
        if e.type == "player_replaced":
            data.pop("keeps_id", None)
            names[e.data["player"]] = e.data["by"]
        out.append([e.type, canon(e.at), canon(data)])
    return out


def state_canon(state: GameState) -> list:
    return [[f, canon(getattr(state, f))] for f in STATE_FIELDS]


# --- the games ----------------------------------------------------------------------------


def spec_for(preset: str, kind: str, i: int) -> dict:
    """The config of one game, as plain data (kept in the fixture line)."""
    options, sizes = PRESETS[preset]
    if kind != "varied":
        return {"players": sizes[i % len(sizes)], "options": dict(options)}
    r = random.Random(f"{preset}:varied:{i}")
    n = r.choice(sizes)
    opts = dict(options)
    if preset == "avalon":
        evil = r.sample(["morgana", "mordred", "oberon"], r.randint(0, min(2, spy_count(n) - 1)))
        opts["roles"] = sorted(evil + (["percival"] if r.random() < 0.6 else []))
        opts["plot_cards"] = r.random() < 0.7
        opts["lady_of_the_lake"] = r.random() < 0.7
    missed = {}
    if r.random() < 0.5:
        missed["disqualify_after"] = r.choice([1, 2, 3])
        missed["orders_count"] = r.random() < 0.5
    if r.random() < 0.3:
        missed["allow_abstain"] = False
    if r.random() < 0.3:
        missed["team_vote"] = r.choice(["approve", "reject"])
    deadlines = {}
    if r.random() < 0.3 and RULES[preset].deadlines.close_early:
        deadlines["close_grace"] = 3600
    if r.random() < 0.2:
        deadlines["close_early"] = False
    if missed:
        opts["missed"] = missed
    if deadlines:
        opts["deadlines"] = deadlines
    if r.random() < 0.3:
        opts["team_votes"] = "pm"
    return {"players": n, "options": opts}


def config_of(preset: str, spec: dict):
    opts = dict(spec["options"])
    rules = RULES[preset]
    if "missed" in opts:
        opts["missed"] = dataclasses.replace(default_missed(rules), **opts["missed"])
    if "deadlines" in opts:
        opts["deadlines"] = dataclasses.replace(default_deadlines(rules), **opts["deadlines"])
    if "roles" in opts:
        opts["roles"] = tuple(opts["roles"])
    return make_config(preset, NAMES[:spec["players"]], leader_order="random", **opts)


def host_command(state: GameState, h: random.Random, at: datetime):
    """Now and then the host steps in (most of these are refused)."""
    k = h.random()
    names = state.ids  # (the engine's commands name seats by id)
    if k < 0.12:
        return Remind(at, "", state.phase_id)
    if k < 0.22:
        return HostExtend(at, "host", 3600)
    if k < 0.32:
        return HostPause(at, "host", until=at + timedelta(hours=2) if h.random() < 0.5 else None)
    if k < 0.45:
        return HostResume(at, "host")
    if k < 0.57:
        return HostSkip(at, "host")
    if k < 0.65:
        return HostClose(at, "host")
    if k < 0.71:
        return HostDisqualify(at, "host", h.choice(names + ["nobody"]))
    if k < 0.79:
        return HostReplace(at, "host", h.choice(names + ["nobody"]), h.choice(["sub1", "sub2", "sub3", "alice"]))
    if k < 0.90:
        try:
            inner = random_command(state, h, at)
        except Exception:  # noqa: BLE001  (a state the random player has no move for)
            inner = Expire(at, "", state.phase_id)
        return HostRecord(at, "host", inner=inner)
    if k < 0.99:
        when = due(state)
        if when is None:
            return Postpone(at, "the bot", until=at + timedelta(hours=1), down_since=at - timedelta(hours=1))
        return Postpone(max(at, when) + timedelta(minutes=10), "the bot", until=max(at, when) + timedelta(hours=2),
                        down_since=when - timedelta(hours=1))
    return HostAbort(at, "host")


def drive(config, seed: int, host: random.Random | None = None, check: bool = False):
    """A game played as play_out plays it, through the public apply and fold, keeping the
    refusals: (state, events, refusals, crash), crash the exception an engine bug raised."""
    rng = random.Random(seed)
    events = start(config, seed, T0)
    state = GameState(config)
    for e in events:
        fold(state, e)
    at = T0
    refusals = []
    for step in range(MAX_STEPS):
        if not state.running:
            break
        at += timedelta(minutes=rng.randint(1, 90))
        cmd = host_command(state, host, at) if host is not None and host.random() < 0.05 else None
        if cmd is None:
            try:
                cmd = random_command(state, rng, at)
            except Exception:  # noqa: BLE001  (no random move: every seat disqualified, say)
                cmd = HostSkip(at, "host")
        check_this = check and step < 400  # (a stuck game's refusals go on to MAX_STEPS)
        before = copy.deepcopy(state) if check_this else None
        try:
            result = apply(state, cmd)
        except Exception as e:  # noqa: BLE001  (an engine bug: kept, to tell if it is fixed)
            return state, events, refusals, f"{type(e).__name__}: {e}"
        if check_this:  # apply changes nothing, whether it refuses or not
            assert state == before, (step, cmd)
            assert state_canon(state) == state_canon(before), (step, cmd)
        if isinstance(result, Refusal):
            refusals.append([step, type(cmd).__name__, result.reason, result.hint, result.private])
            continue
        for e in result:
            fold(state, e)
        events += result
        at = max(at, state.last_event_at)
    return state, events, refusals, None


def play(preset: str, line: dict):
    config = config_of(preset, line)
    host = random.Random(f"host:{line['seed']}") if line["kind"] == "host" else None
    return config, drive(config, line["seed"], host)


def record_line(preset: str, kind: str, i: int) -> tuple[dict, list]:
    line = {"kind": kind, "i": i, "seed": SEED_BASE[kind] + i, **spec_for(preset, kind, i)}
    _, (state, events, refusals, crash) = play(preset, line)
    line.update(summary(state, events, refusals))
    if crash:
        line["crash"] = crash
    return line, events


def summary(state, events, refusals) -> dict:
    return dict(events=len(events), log=sha(log_canon(events)), refusals=len(refusals),
                refusal_log=sha(refusals), state=sha(state_canon(state)), running=state.running)


def replaces(events) -> bool:
    return any(e.type == "player_replaced" for e in events)


def record() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    full = {}
    for preset in PRESETS:
        lines = []
        for kind, count in COUNTS.items():
            for i in range(count):
                line, events = record_line(preset, kind, i)
                lines.append(line)
                if i in FULL[kind]:
                    full[f"{preset}/{kind}/{i}"] = [e.to_json() for e in events]
        with open(FIXTURES / f"{preset}.jsonl", "w") as f:
            for line in lines:
                f.write(json.dumps(line, separators=(",", ":")) + "\n")
        print(preset, len(lines), "games,", sum(not x["running"] for x in lines), "finished", file=sys.stderr)
    with open(FIXTURES / "full_logs.json", "w") as f:
        json.dump(full, f, separators=(",", ":"), sort_keys=True)


def fixture(preset: str) -> list[dict]:
    with open(FIXTURES / f"{preset}.jsonl") as f:
        return [json.loads(x) for x in f]


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        record()
    else:
        print(__doc__)
