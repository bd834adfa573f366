"""The crash sweep: one scripted game on the fake Reddit, the bot run as a real process
(forked) for every cycle, and SIGKILLed right after the k-th write that reached Reddit, for
every k across the whole game; then restarted. Every run must end with the same export
outcome as the run with no crash, and no text may be posted twice.

`make test` runs a fixed sample of k; `make test-long` runs every k."""
from __future__ import annotations

import os
from collections import Counter
from datetime import date

import praw
import pytest

from forumbot import store
from forumbot.shell.moderator import Moderator
from tests.fakes.driver import forked_cycle, markers, outcome, play
from tests.fakes.table import NAMES, RedditPeople, Table

SEED = 5
SAMPLE = [1, 8, 55]  # `make test-long` runs every k; CI every EVERY-th (below)
# CI runs every EVERY-th k, starting from one that turns with the day of the year, so that
# EVERY days of CI cover every k (FORUMBOT_CRASH_EVERY; 1, the default: every k).
EVERY = max(1, int(os.environ.get("FORUMBOT_CRASH_EVERY", "1") or 1))
FIRST = 1 + date.today().timetuple().tm_yday % EVERY


class ForkedTable(Table):
    """A table whose bot runs each cycle in a child process that the fake Reddit may kill."""

    def __init__(self, fake, url, clock):
        self.fake, self.url = fake, url
        self.forum = self._forum()
        super().__init__(self.forum, RedditPeople(fake), clock, players=NAMES[:5],
                         make_moderator=lambda: Moderator(self.forum, clock=clock))
        self.crashes = 0

    def _forum(self):
        from adapters.reddit import RedditForum

        return RedditForum(praw.Reddit(**self.fake.praw_kwargs()), backoff=0, max_wait=0)

    def cycle(self, fresh: bool = False):
        forked_cycle(self, self.url, self._forum)
        return _Report()


class _Report:
    errors: list = []
    fetched = 0


def run(tmp_path, kill_at: int | None):
    from tests.fakes.clock import Clock
    from tests.fakes.reddit import FakeReddit

    clock = Clock()
    fake = FakeReddit(clock=lambda: clock().timestamp()).start()
    url = f"sqlite:///{tmp_path}/crash-{kill_at}.db"
    store.connect(url)
    try:
        t = ForkedTable(fake, url, clock)
        fake.kill_at = kill_at
        t.start()
        play(t, SEED)
        for _ in range(3):  # whatever a last crash left behind goes out now
            t.cycle()
        texts = fake.bot_posts()
        return outcome(t.export()), texts, fake.mutations, t.crashes
    finally:
        fake.stop()
        store.close()


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    import prawcore.sessions

    prawcore.sessions.FiniteRetryStrategy._sleep_seconds = lambda self: None
    result = run(tmp_path_factory.mktemp("base"), None)
    yield result


def check(tmp_path, baseline, k):
    calm, calm_texts, writes, _ = baseline
    if k > writes:
        pytest.skip(f"the game has only {writes} writes")
    got, texts, _, crashes = run(tmp_path, k)
    assert crashes == 1
    assert got == calm
    dup = [m for m, n in Counter(markers(texts)).items() if n > 1]
    assert not dup, f"posted twice after a kill at write {k}"


@pytest.mark.parametrize("k", SAMPLE)
def test_killed_after_write_k(tmp_path, baseline, k):
    check(tmp_path, baseline, k)


@pytest.mark.long
@pytest.mark.parametrize("k", range(FIRST, 150, EVERY))  # the scripted game makes 135 writes
def test_killed_after_every_write(tmp_path, baseline, k):
    check(tmp_path, baseline, k)
