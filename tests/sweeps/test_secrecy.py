"""Secrecy as an invariant over many simulated games, rendering included: no public text
links a player to a side or role before the end post, and each PM reaches only the player
it is for, saying only what that player may know."""
import re
from datetime import date

import pytest

from forumbot.cli.demo import play
from tests.support.secrecy import TABLES, expected_names, pm_leaks, public_leaks


def sweep(games_per_size: int, seed0: int = 0, tables=TABLES):
    for preset, n in tables:
        for seed in range(seed0, seed0 + games_per_size):
            result, forum = play(preset, n, seed * 31 + n, echo=lambda *_: None)
            names = [p["name"] for p in result["players"]]
            assert result["winner"] in ("resistance", "spies")
            assert public_leaks(forum, names) == [], (n, seed)
            assert pm_leaks(forum, result) == [], (n, seed)
            for p in names:  # each role PM names exactly whom that role may know
                role_pm = next(r["body"] for r in forum.messages_to(p) if "Your role" in r["body"])
                named = {q for q in names if q != p and re.search(rf"\b{q}\b", role_pm)}
                assert named == expected_names(result, p), (preset, n, seed, p)


def test_secrecy_sweep_every_table_size():
    sweep(games_per_size=1)  # (`make test-long`: 5,000+ games a preset)


PRESETS = ["resistance", "resistance-plot", "avalon", "avalon-2020", "so-say-we-all"]
CHUNKS = 10  # each sweep in parts, so that `-n 2` shares them between the cores


def sweep_part(preset: str, games: int, seed0: int, part: int):
    """Part `part` of CHUNKS of a sweep of at least `games` games of `preset`, its table
    sizes in turn."""
    tables = [t for t in TABLES if t[0] == preset]
    per_size = -(-games // (len(tables) * CHUNKS))  # per table size, in this part
    sweep(games_per_size=per_size, seed0=seed0 + part * per_size, tables=tables)


@pytest.mark.long
@pytest.mark.parametrize("part", range(CHUNKS))
@pytest.mark.parametrize("preset", PRESETS)
def test_secrecy_sweep_long(preset, part):
    sweep_part(preset, 5000, seed0=1000, part=part)  # 5,000+ games of every preset


def of_the_day(day: int) -> tuple[str, int]:
    """The preset and first seed of the day's CI sweep: the preset turns with the day of
    the year, and the seeds with it, so that every day plays games no day played before."""
    return PRESETS[day % len(PRESETS)], 100_000 + day * 1000


@pytest.mark.long
@pytest.mark.parametrize("part", range(CHUNKS))
def test_secrecy_sweep_of_the_day(part):
    """CI's sample (`.ci/run`): 400+ games of one preset, which turns with the day (and the
    seeds with it), so that CI stays within its 15 minutes and each day plays new games."""
    day = date.today().timetuple().tm_yday
    preset, seed0 = of_the_day(day)
    print(f"secrecy sweep of day {day}: {preset}, seeds from {seed0}")
    sweep_part(preset, 400, seed0=seed0, part=part)


def test_the_day_turns_every_preset_and_never_repeats_seeds():
    days = [of_the_day(d) for d in range(1, 367)]
    assert {p for p, _ in days[:len(PRESETS)]} == set(PRESETS)
    assert len({s for _, s in days}) == len(days)


def test_the_leak_detector_catches_a_leak():
    class Fake:
        bot_name = "forumbot"

        def threads(self):
            return [{"id": 1, "body": "**Leader order**: alice, bob"}]

        def thread_comments(self, t):
            return [{"author": "forumbot", "body": "Mission 1: bob is a spy."},
                    {"author": "forumbot", "body": "### the Spies win, by three missions.\n| bob | Spy |"}]

    assert public_leaks(Fake(), ["alice", "bob"]) == ["Mission 1: bob is a spy."]
