"""Issue 21, items 6, 9 and 14: operator mistakes, each in a whole game played through the
command line (`forumbot run --once` against the fake Reddit, one run per step): a host
who sends the same `new game` PM twice, and a forum whose clock is ahead of the bot's or
behind it."""
from __future__ import annotations

from datetime import timedelta

import pytest

from forumbot import store
from forumbot.rules import deadlines
from forumbot.shell import moderator
from tests.fakes.cli_table import TITLE, CliTable, settings_text, with_clock
from tests.fakes.clock import Clock
from tests.fakes.driver import play
from tests.fakes.reddit import FakeReddit
from tests.fakes.table import NAMES, RedditPeople, discourse_config

VOTE = "deadlines: {team_vote: 20s, close_early: false}\nmissed: {team_vote: abstain}\n"


@pytest.fixture
def cli_table(tmp_path, monkeypatch):
    fakes = []

    def make(skew: float = 0.0) -> CliTable:
        clock = Clock()
        monkeypatch.setattr(moderator, "Moderator", with_clock(clock))  # the class `run` makes
        fake = FakeReddit(clock=lambda: clock().timestamp() + skew).start()
        fakes.append(fake)
        path = tmp_path / "reddit.ini"
        path.write_text(settings_text("reddit", fake, f"sqlite:///{tmp_path}/bot.db"))
        return CliTable("reddit", fake, RedditPeople(fake), clock, str(path), NAMES[:5])

    yield make
    for f in fakes:
        f.stop()
    store.close()


def _role_pms(fake, user):
    return [m for m in fake.pms_to(user) if m["subject"].startswith("G") and "role" in m["body"].lower()]


def test_the_same_new_game_pm_twice_through_run_once_plays_one_game(cli_table):
    t = cli_table()
    t.people.pm("host", "new game", discourse_config(t.players, seed=7, title=TITLE))  # the double click
    t.start(seed=7)  # sends the same PM again, and runs the bot until it settles
    assert store.Game.select().count() == 1
    again = [m["body"] for m in t.fake.pms_to("host") if "sent me this config already" in m["body"]]
    assert len(again) == 1 and t.game.tag in again[0]
    assert all(len(_role_pms(t.fake, n)) == 1 for n in t.players)
    play(t, 3, act=t.settle)
    t.settle()
    export = t.export()
    assert export["status"] == "finished" and store.Game.select().count() == 1
    assert all(len(_role_pms(t.fake, n)) == 1 for n in t.players)


def _first_vote(t: CliTable, skew: float) -> None:
    """The first team vote, 20 s long: four votes at once; alice's (the leader's) late in
    the window by the bot's clock (forum ahead), or the five of them in the seconds after
    the PROPOSE (forum behind: by the bot's clock the deadline has passed already)."""
    t.propose()
    clock = t.clock
    early = (("bob", "APPROVE"), ("carol", "APPROVE"), ("dave", "REJECT"), ("erin", "REJECT"))
    if skew < 0:
        clock.advance(seconds=5)
        early += (("alice", "APPROVE"),)
    for n, word in early:
        t.say(n, f"**{word}**")
    t.cycle()
    if skew > 0:
        due = deadlines.due(t.state)
        assert due is not None and t.state.phase == "team_vote"
        clock.at = due - timedelta(seconds=15)
        t.say("alice", "**APPROVE**")
        t.cycle()
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()


@pytest.mark.parametrize("skew", [60, pytest.param(-60, marks=pytest.mark.long)])  # (-60: under long)
def test_a_skewed_forum_clock_loses_no_vote_in_a_whole_game_through_run_once(cli_table, skew):
    t = cli_table(skew).start(seed=7, extra=VOTE)
    _first_vote(t, skew)
    first = t.export()["votes"][0]
    assert first["votes"]["alice"] == "approve" and first["defaulted"] == [] and first["approved"] is True
    play(t, 5, act=t.settle)
    t.settle()
    export = t.export()
    assert export["status"] == "finished" and export["votes"][0] == first
    closed = [c["body"] for c in t.fake.comments if "is closed" in c["body"]]
    assert len(closed) == len(export["votes"])  # each vote's result posted once
