"""Secrecy as an invariant over many simulated games, rendering included: no public text
links a player to a side or role before the end post, and each PM reaches only the player
it is for, saying only what that player may know."""
import re

import pytest

from forumbot.demo import play
from forumbot.rules.presets import MAX_PLAYERS, MIN_PLAYERS

ROLE_WORDS = r"(spy|spies|resistance|role|sabotag\w*|traitor|loyal|evil)"


def public_leaks(forum, names) -> list[str]:
    """Lines of public bot posts, before the end post, that put a name beside a side word."""
    thread = f"t{forum.threads()[0]['id']}"
    posts = [forum.threads()[0]["body"]] + [r["body"] for r in forum.thread_comments(thread)
                                           if r["author"] == forum.bot_name]
    end = next(i for i, p in enumerate(posts) if "win, by" in p)
    leaks = []
    for post in posts[:end] + [posts[end].split("###")[0]]:
        for line in post.split("\n"):
            if line.startswith("**Leader order**"):
                continue  # the roster: names only
            for n in names:
                near = rf"\b{n}\b[^.\n]{{0,30}}\b{ROLE_WORDS}\b|\b{ROLE_WORDS}\b[^.\n]{{0,30}}\b{n}\b"
                if re.search(near, line, re.I):
                    leaks.append(line)
    return leaks


def pm_leaks(forum, result) -> list[str]:
    """PMs that tell a player another player's side when the rules do not allow it."""
    sides = {p["name"]: p["side"] for p in result["players"]}
    leaks = []
    for me, my_side in sides.items():
        for r in forum.messages_to(me):
            if r["sender"] != forum.bot_name:
                continue
            for other, side in sides.items():
                if other == me:
                    continue
                if re.search(rf"\b{other}\b \((Spy|Resistance)\)", r["body"]):
                    if not (my_side == "spies" and side == "spies"):
                        leaks.append(f"{me} learned about {other}: {r['body'][:80]}")
    return leaks


def sweep(games_per_size: int, seed0: int = 0):
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        for seed in range(seed0, seed0 + games_per_size):
            result, forum = play("resistance", n, seed * 31 + n, echo=lambda *_: None)
            names = [p["name"] for p in result["players"]]
            assert result["winner"] in ("resistance", "spies")
            assert public_leaks(forum, names) == [], (n, seed)
            assert pm_leaks(forum, result) == [], (n, seed)
            spies = {p["name"] for p in result["players"] if p["side"] == "spies"}
            for p in names:  # spies learn each other; the resistance nobody
                role_pm = next(r["body"] for r in forum.messages_to(p) if "Your role" in r["body"])
                named = {q for q in names if q != p and re.search(rf"\b{q}\b", role_pm)}
                assert named == (spies - {p} if p in spies else set())


def test_secrecy_sweep_every_table_size():
    sweep(games_per_size=4)


@pytest.mark.long
def test_secrecy_sweep_long():
    sweep(games_per_size=170, seed0=1000)  # 1,020 games


def test_the_leak_detector_catches_a_leak():
    class Fake:
        bot_name = "forumbot"

        def threads(self):
            return [{"id": 1, "body": "**Leader order**: alice, bob"}]

        def thread_comments(self, t):
            return [{"author": "forumbot", "body": "Mission 1: bob is a spy."},
                    {"author": "forumbot", "body": "### the Spies win, by three missions.\n| bob | Spy |"}]

    assert public_leaks(Fake(), ["alice", "bob"]) == ["Mission 1: bob is a spy."]
