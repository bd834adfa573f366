"""Golden files of the rendered posts: the opening post, a vote table, a mission result and
the end post, for each preset, in Markdown and in BBCode. A wording change shows up as a
diff here; to accept it, run `FORUMBOT_UPDATE_GOLDEN=1 make test` and review the files."""
import os
import pathlib
import random

import pytest

from forumbot.render import render_events
from forumbot.rules import events as ev
from forumbot.rules import make_config
from forumbot.rules.random_play import play_out
from forumbot.rules.state import GameState, fold
from tests.support.pure import NAMES, T0

GOLDEN = pathlib.Path(__file__).parents[1] / "golden"
GAMES = {
    "resistance": ({}, 7),
    "resistance-plot": ({"plot_cards": True}, 8),
    "so-say-we-all": ({"mission_cards": True}, 9),
    "avalon": ({"plot_cards": True, "lady_of_the_lake": True, "roles": ("percival", "morgana")}, 8),
    "avalon-2020": ({"plot_cards": True}, 8),
}
WANTED = [ev.GAME_STARTED, ev.VOTE_CLOSED, ev.MISSION_RESOLVED, ev.GAME_ENDED]


def posts(preset: str, markup: str) -> str:
    options, n = GAMES[preset]
    cfg = make_config(preset, NAMES[:n], leader_order="random", title=f"Golden {preset}", **options)
    _, events, _ = play_out(cfg, 7, random.Random(7), T0)
    state = GameState(cfg)
    out, seen = [], set()
    for e in events:
        fold(state, e)
        if e.type in WANTED and e.type not in seen:
            seen.add(e.type)
            public = [m for m in render_events(state, [e], "G7", markup) if m.to is None]
            out.append(f"===== {e.type} =====\n" + "\n\n".join(m.body for m in public))
    assert seen == set(WANTED), seen
    return "\n\n".join(out) + "\n"


@pytest.mark.parametrize("markup", ["markdown", "bbcode"])
@pytest.mark.parametrize("preset", list(GAMES))
def test_golden_posts(preset, markup):
    path = GOLDEN / f"{preset}.{markup}.txt"
    text = posts(preset, markup)
    if os.environ.get("FORUMBOT_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"{path.name} changed: review it, then FORUMBOT_UPDATE_GOLDEN=1"
    if markup == "bbcode":  # no Markdown leaks into a BBCode post
        assert "[table]" in text and "**" not in text and "`" not in text and "|---" not in text
