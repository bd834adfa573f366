"""A game played on its one state, changed in place command after command (`advance`'s
`in_place`, as `play_out` plays), is the game played on a copy per command (as the bot plays):
the same events, written the same way, the same final state and the same refusals, over every
preset; and a command refused after it emitted cannot leave half of itself in the game."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.rules import Propose, Refusal, TeamVote, engine, make_config, replay, started
from forumbot.rules.engine import Spent, advance
from forumbot.rules.random_play import play_out
from forumbot.rules.state import TEAM_VOTE
from tests.rules.test_random_play import OPTIONS, TABLES
from tests.support.pure import NAMES, T0


def _config(preset: str, n: int, with_roles: bool = False):
    kw = dict(OPTIONS[preset])
    if preset == "avalon" and with_roles:
        kw["roles"] = ("percival", "morgana") if n >= 7 else ("percival",)
    return make_config(preset, NAMES[:n], leader_order="random", **kw)


@given(st.sampled_from(TABLES), st.integers(0, 2**31), st.booleans())
@settings(max_examples=60, deadline=None)
def test_a_game_changed_in_place_is_the_game_played_on_copies(table, seed, with_roles):
    config = _config(*table, with_roles)
    mine, mine_log, mine_refused = play_out(config, seed, random.Random(seed), T0)
    copied, copied_log, copied_refused = play_out(config, seed, random.Random(seed), T0, in_place=False)
    # written at the end: an event that shared a container the game changed later would differ
    assert [e.to_json() for e in mine_log] == [e.to_json() for e in copied_log]
    assert mine == copied == replay(config, seed, copied_log)
    assert mine_refused == copied_refused


def test_a_refusal_changes_nothing_in_place():
    state, _ = started(_config("resistance", 5), 3, T0)
    before = {k: (v.copy() if hasattr(v, "copy") else v) for k, v in vars(state).items() if k != "_owned"}
    refused = advance(state, TeamVote(T0, "nobody", "approve", "pm"), None, True)
    assert isinstance(refused, Refusal)
    assert {k: v for k, v in vars(state).items() if k != "_owned"} == before


def _refuses_after_emitting(real):
    def handler(tx, cmd):
        real(tx, cmd)
        return Refusal("refused late")
    return handler


def test_a_command_refused_after_it_emitted_is_not_half_kept(monkeypatch):
    config = _config("resistance", 5)
    monkeypatch.setitem(engine._HANDLERS, TeamVote, _refuses_after_emitting(engine._HANDLERS[TeamVote]))
    game, _ = started(config, 3, T0)
    game = advance(game, Propose(T0, game.leader, tuple(game.ids[:2])), None, True)[0]  # type: ignore[index]
    assert game.phase == TEAM_VOTE
    kept = advance(game, TeamVote(T0, game.ids[0], "approve", "pm"))  # on a copy: refused, nothing kept
    assert isinstance(kept, Refusal) and not game.votes
    with pytest.raises(Spent):
        advance(game, TeamVote(T0, game.ids[0], "approve", "pm"), None, True)
    # play_out rebuilds the spent state from its log: the game the copies play
    mine, mine_log, mine_refused = play_out(config, 3, random.Random(3), T0)
    copied, log, refused = play_out(config, 3, random.Random(3), T0, in_place=False)
    assert [e.to_json() for e in mine_log] == [e.to_json() for e in log]
    assert mine == copied == replay(config, 3, mine_log)
    assert mine_refused == refused > 0 and not any(e.type == "vote_cast" for e in mine_log)
