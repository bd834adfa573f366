"""The secrecy sweep (tests/sweeps/test_secrecy.py) over games on the fake Discourse: no public
post of the bot, before the end post, links a player to a side or role; each PM reaches
only the player it is for (a PM topic of the bot has no one else in it) and says only
what that player may know. The games are played through the forum by tests/fakes/driver.py,
the checks are the secrecy oracle's (tests/support/secrecy.py), read through a view of the
fake that looks like the local forum they were written for."""
from __future__ import annotations

import re

import pytest

from tests.fakes.bots import make_bot
from tests.fakes.clock import Clock
from tests.fakes.discourse import FakeDiscourse
from tests.fakes.driver import GAMES, play, reset_store
from tests.support.secrecy import TABLES, expected_names, pm_leaks, public_leaks


class ForumView:
    """The fake Discourse as the secrecy oracle reads a forum: the game topic's posts, and the PMs
    each user was sent, with their raw text (what anyone with access can read)."""

    def __init__(self, fake: FakeDiscourse, thread: str):
        self.fake, self.bot_name = fake, fake.bot
        self.tid = int(thread.rpartition(":")[2])

    def threads(self) -> list[dict]:
        return [{"id": self.tid, "body": self.fake.topic_posts(self.tid)[0]["raw"]}]

    def thread_comments(self, thread: str) -> list[dict]:
        assert thread == f"t{self.tid}"
        return [{"author": self.fake.username(p), "body": p["raw"]} for p in self.fake.topic_posts(self.tid)[1:]]

    def messages_to(self, user: str) -> list[dict]:
        return [{"sender": self.fake.username(p), "body": p["raw"]} for p in self.fake.pms_to(user)]


def discourse_game(preset: str, n: int, seed: int):
    """A whole game on a fresh fake Discourse: (its export, the view, the fake)."""
    b = make_bot("discourse", Clock())
    try:
        t = b.table(n, preset=preset, extra=GAMES[preset][1], seed=seed)  # every card and role in play
        play(t, seed)
        return t.export(), ForumView(b.fake, t.game.thread), b.fake
    finally:
        b.stop()


def check(preset: str, n: int, seed: int) -> None:
    result, view, fake = discourse_game(preset, n, seed)
    names = [p["name"] for p in result["players"]]
    assert result["status"] == "finished" and result["winner"] in ("resistance", "spies"), (preset, n, seed)
    assert public_leaks(view, names) == [], (preset, n, seed)
    assert pm_leaks(view, result) == [], (preset, n, seed)
    bot = fake.users[fake.bot]["id"]
    for t in fake.topics.values():  # each PM topic of the bot is between it and one person
        if t["archetype"] == "private_message" and t["user_id"] == bot:
            assert len(t["allowed"]) == 2, (t["title"], t["allowed"])
    for p in names:  # each role PM names exactly whom that role may know
        role_pm = next(r["body"] for r in view.messages_to(p) if "Your role" in r["body"])
        named = {q for q in names if q != p and re.search(rf"\b{q}\b", role_pm)}
        assert named == expected_names(result, p), (preset, n, seed, p)


SAMPLE = [("resistance", 6), ("avalon", 7), ("so-say-we-all", 5)]


@pytest.mark.parametrize("preset,n", SAMPLE)
def test_secrecy_on_discourse(db, preset, n):
    check(preset, n, seed=n * 31)


@pytest.mark.long
@pytest.mark.parametrize("preset", ["resistance", "resistance-plot", "avalon", "avalon-2020", "so-say-we-all"])
def test_secrecy_sweep_on_discourse_every_table_size(db, preset):
    for p, n in TABLES:
        if p != preset:
            continue
        for seed in range(3):
            check(preset, n, seed * 31 + n)
            reset_store()


def test_the_view_finds_a_leak_in_a_discourse_topic(db):
    """The sweep's checks see what the bot posts on Discourse: a side named in the topic,
    or another player's side in a PM, is caught."""
    result, view, fake = discourse_game("resistance", 5, seed=3)
    spy = next(p["name"] for p in result["players"] if p["side"] == "spies")
    good = next(p["name"] for p in result["players"] if p["side"] == "resistance")
    names = [p["name"] for p in result["players"]]
    assert public_leaks(view, names) == []
    fake.reply(fake.bot, view.tid, f"Between you and me, {spy} is a spy.", rules=False)
    posts = fake._by_topic[view.tid]
    posts.insert(1, posts.pop())  # (moved up to before the end post, which reveals all)
    assert public_leaks(view, names) == [f"Between you and me, {spy} is a spy."]
    fake.pm(fake.bot, good, "G1 a note", f"Your role: you are Resistance. {spy} (spy) is with you.", rules=False)
    assert pm_leaks(view, result) != []

