"""A restored backup posts nothing twice (issue 21, item 5), through the CLI as an operator
runs the bot: `forumbot run --once` against the fake Reddit and the fake Discourse. The
database is backed up after a PROPOSE (a copy of the SQLite file; pg_dump on PostgreSQL),
the team vote closes (its result comment and the order prompts go out), the backup is put
back, and the bot runs on: it reads the votes again and makes the same items again, but
finds each on the forum before posting it. No comment or PM exists twice, and the game goes
on to the mission's result."""
from __future__ import annotations

import gc
import os
import re
import shutil
import subprocess
from collections import Counter

import pytest

from forumbot import store
from tests.conftest import PG_URL, _reset
from tests.fakes.cli_table import make_cli_table
from tests.fakes.discourse import FakeDiscourse

TOKEN = re.compile(r"\(#fb-([0-9a-f]{16,64})\)|<!-- fb:([0-9a-f]{16,64}) -->")
STORES = ["sqlite"] + (["postgres"] if PG_URL else [])


def bot_texts(fake) -> list[str]:
    """Every post, comment and PM the bot made on the fake forum, as it reads now."""
    if isinstance(fake, FakeDiscourse):
        return [p["raw"] for p in fake.posts.values() if fake.username(p) == fake.bot and not p.get("deleted_at")]
    return ([s["selftext"] for s in fake.submissions.values() if s["author"] == fake.bot]
            + [c["body"] for c in fake.comments if c["author"] == fake.bot]
            + [m["body"] for m in fake.messages if m["author"] == fake.bot])


def twice(fake) -> list[str]:
    tokens = Counter(a or b for text in bot_texts(fake) for a, b in TOKEN.findall(text))
    return [t for t, n in tokens.items() if n > 1]


def _all_closed() -> None:
    """No connection of the runs before is left open (as after the bot stopped): the
    database file holds everything, with no write-ahead log beside it."""
    store.close()
    gc.collect()


class Backup:
    """The operator's backup of the database, and putting it back (the bot is not running)."""

    def __init__(self, url: str, tmp_path):
        self.url, self.path = url, tmp_path / "backup"

    def take(self) -> None:
        _all_closed()
        if self.url.startswith("sqlite"):
            db = self.url.removeprefix("sqlite:///")
            assert not os.path.exists(db + "-wal") or not os.path.getsize(db + "-wal")
            shutil.copyfile(db, self.path)
        else:
            subprocess.run(["pg_dump", "--clean", "--if-exists", "-f", str(self.path), self.url],
                           check=True, capture_output=True)

    def restore(self) -> None:
        _all_closed()
        if self.url.startswith("sqlite"):
            shutil.copyfile(self.path, self.url.removeprefix("sqlite:///"))
        else:
            subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", "-f", str(self.path), self.url],
                           check=True, capture_output=True)


@pytest.fixture(params=["reddit", "discourse"])
def forum_kind(request):
    return request.param


@pytest.fixture(params=STORES)
def db_url(request, tmp_path):
    url = f"sqlite:///{tmp_path}/bot.db" if request.param == "sqlite" else PG_URL
    _reset(url)
    store.close()
    yield url
    store.close()


def test_a_restored_backup_posts_nothing_twice_and_the_game_goes_on(forum_kind, db_url, tmp_path, monkeypatch):
    t, fake = make_cli_table(forum_kind, db_url, tmp_path, monkeypatch)
    try:
        t.start(extra="deadlines: {team_vote: 1h}\n")
        team = t.propose()
        t.settle()
        backup = Backup(db_url, tmp_path)
        backup.take()  # after the PROPOSE
        t.vote_all(True)
        t.settle()
        assert t.state.phase == "mission"  # the result is out and the orders are asked for
        before = len(bot_texts(fake))
        prompts = [n for n in team if any("SUPPORT" in p for p in t.people.pms_to(n))]
        assert len(prompts) == len(team)

        backup.restore()
        assert t.state.phase == "team_vote"  # the database is behind the forum now
        t.settle()  # it reads the votes again and makes the same result and prompts again
        assert t.state.phase == "mission"
        assert twice(fake) == [], "a post or PM went out a second time"
        assert len(bot_texts(fake)) == before

        t.orders()  # the game goes on
        t.settle()
        s = t.state
        assert s.phase != "mission" and len(s.missions) == 1
        assert twice(fake) == []
    finally:
        fake.stop()
        store.close()
