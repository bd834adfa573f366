"""Issue 25, item 11: the archive page said "(1 day)" for a game that lasted a minute (it
counted the calendar days the game touched). How long a game lasted reads in minutes under
an hour, in hours under a day, and in days after that."""
from __future__ import annotations

import re

import pytest

from forumbot.archive.page import render_html
from forumbot.render.archive import lasted
from tests.fakes.driver import settle


@pytest.mark.parametrize("seconds,said", [
    (0, "less than a minute"), (59, "less than a minute"), (60, "1 minute"), (119, "1 minute"),
    (120, "2 minutes"), (59 * 60 + 59, "59 minutes"), (3600, "1 hour"), (5399, "1 hour"), (5400, "2 hours"),
    (23 * 3600 + 29 * 60, "23 hours"), (23 * 3600 + 30 * 60, "1 day"), (86400, "1 day"), (36 * 3600 - 1, "1 day"),
    (36 * 3600, "2 days"), (10 * 86400, "10 days"), (-5, "less than a minute"),
])
def test_lasted(seconds, said):
    assert lasted(seconds) == said


def _played(html: str) -> str:
    m = re.search(r"<dt>Played</dt><dd>(.*?)</dd>", html, re.S)
    assert m, "the page has no Played line"
    return re.sub(r"<[^>]+>", "", m.group(1))


@pytest.mark.parametrize("wait,said", [
    ({"minutes": 1}, "(1 minute)"),
    ({"minutes": 45}, "(45 minutes)"),
    ({"hours": 5}, "(5 hours)"),
    ({"hours": 20}, "(20 hours)"),  # (over midnight too: hours, not "2 days")
    ({"days": 3}, "(3 days)"),
])
def test_the_archive_page_says_how_long_the_game_lasted(db, bot, clock, wait, said):
    t = bot("local").table(5)
    clock.advance(**wait)
    t.pm("host", f"ABORT {t.game.tag}", subject=f"{t.game.tag} host")
    settle(t)  # (three days of missed deadlines come first)
    assert not t.state.running
    played = _played(render_html(t.game))
    assert played.endswith(said), played
