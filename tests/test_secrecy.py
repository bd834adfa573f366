"""Secrecy as an invariant over many simulated games, rendering included: no public text
links a player to a side or role before the end post, and each PM reaches only the player
it is for, saying only what that player may know."""
import re
from datetime import date

import pytest

from forumbot.cli.demo import play
from forumbot.rules.presets import MAX_PLAYERS, MIN_PLAYERS

ROLE_WORDS = (r"(spy|spies|resistance|role|sabotag\w*|traitor|loyal|evil|good|minions?|servants?|"
              r"cylons?|humans?|merlin|percival|morgana|mordred|oberon|assassin)")


def public_leaks(forum, names) -> list[str]:
    """Lines of public bot posts, before the end post, that put a name beside a side word."""
    thread = f"t{forum.threads()[0]['id']}"
    posts = [forum.threads()[0]["body"]] + [r["body"] for r in forum.thread_comments(thread)
                                           if r["author"] == forum.bot_name]
    end = next(i for i, p in enumerate(posts) if re.search(r"\bwins?, by", p))  # ("Good wins, by")
    leaks = []
    for post in posts[:end]:  # the end post reveals everything, as it should
        for line in post.split("\n"):
            if line.startswith("**Leader order**") or line.startswith("**Roles in play**"):
                continue  # the roster: names only; the roles in play: no names
            if "public order" in line or "your order is public" in line or line.startswith("In the Spotlight:"):
                continue  # a designated public order, In the Spotlight: reveals the rules make
            for n in names:
                near = rf"\b{n}\b[^.\n]{{0,30}}\b{ROLE_WORDS}\b|\b{ROLE_WORDS}\b[^.\n]{{0,30}}\b{n}\b"
                if re.search(near, line, re.I):
                    leaks.append(line)
    return leaks


def pm_leaks(forum, result) -> list[str]:
    """PMs that tell a player another player's side when the rules do not allow it."""
    sides = {p["name"]: p["side"] for p in result["players"]}
    leaks = []
    for me in sides:
        for r in forum.messages_to(me):
            if r["sender"] != forum.bot_name:
                continue
            for other in sides:
                if other == me:
                    continue
                if re.search(rf"\b{other}\b \(", r["body"]) and "Your role" in r["body"]:
                    allowed = expected_names(result, me)
                    if other not in allowed:
                        leaks.append(f"{me} learned about {other}: {r['body'][:80]}")
                if "Lady of the Lake shows you" in r["body"] and other in r["body"]:
                    if not lady_used(result, me, other):
                        leaks.append(f"{me} learned {other}'s side without the Lady")
    return leaks


EVIL = {"spy", "cylon", "minion", "assassin", "morgana", "mordred", "oberon"}


def expected_names(result, me) -> set[str]:
    """Whom a player's role PM may name (variants.md, knowledge)."""
    roles = {p["name"]: p["role"] for p in result["players"]}
    mine = roles[me]
    others = {n: r for n, r in roles.items() if n != me}
    if result["preset"] == "resistance-plot":
        return set()
    if mine in EVIL and mine != "oberon":
        return {n for n, r in others.items() if r in EVIL and r != "oberon"}
    if mine == "merlin":
        return {n for n, r in others.items() if r in EVIL and r != "mordred"}
    if mine == "percival":
        return {n for n, r in others.items() if r in ("merlin", "morgana")}
    return set()


def lady_used(result, holder, target) -> bool:
    name = {p["seat"]: p["name"] for p in result["players"]}  # (the log names seats by id)
    return any(e["type"] == "lady_used" and name[e["data"]["holder"]] == holder
               and name[e["data"]["target"]] == target for e in result["events"])


TABLES = [("resistance", n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
TABLES += [("resistance-plot", n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
TABLES += [("avalon", n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
TABLES += [("avalon-2020", 8)]
TABLES += [("so-say-we-all", n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]


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
    sweep(games_per_size=2)


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
    """CI's sample (`.ci/run`): 1,000+ games of one preset, which turns with the day."""
    day = date.today().timetuple().tm_yday
    preset, seed0 = of_the_day(day)
    print(f"secrecy sweep of day {day}: {preset}, seeds from {seed0}")
    sweep_part(preset, 1000, seed0=seed0, part=part)


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
