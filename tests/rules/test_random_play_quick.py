"""The random player's quick path (`_core_move`: a proposal, a team vote or a mission order
in a game with no cards) plays the very move the general one (`_any_move`) plays, with the
same draws from the generator: the seeded games stay as they were pinned."""
import random
from collections import Counter
from datetime import timedelta

import pytest

from forumbot.rules import make_config
from forumbot.rules.commands import HostDisqualify, Refusal
from forumbot.rules.engine import advance, started
from forumbot.rules.random_play import _any_move, _core_move, play_out, random_command, table_of
from tests.support.pure import NAMES, T0

TABLES = [
    ("resistance", {}),
    ("so-say-we-all", {}),  # critical votes, a public order, votes by PM on a mission
    ("avalon", {"roles": ("percival", "morgana")}),
    ("resistance", {"team_votes": "pm"}),
]


def states(preset, options, players, seed):
    """The states of a random game, some seats disqualified now and then by the host."""
    config = make_config(preset, NAMES[:players], leader_order="random", **options)
    rng, host = random.Random(seed), random.Random(-seed)
    state, _ = started(config, seed, T0)
    at = T0
    for _ in range(400):
        if not state.running:
            break
        yield state
        at += timedelta(minutes=rng.randint(1, 90))
        if host.random() < 0.01:
            cmd = HostDisqualify(at, config.host, host.choice(state.ids))
        else:
            try:
                cmd = random_command(state, rng, at, patience=0.9)
            except Exception:  # noqa: BLE001  (no move: every seat disqualified)
                break
        result = advance(state, cmd)
        if not isinstance(result, Refusal):
            state = result[0]


def outcome(move, s, seed):
    rng = random.Random(seed)
    try:
        got = move(s, rng)
    except Exception as e:  # noqa: BLE001  (the general path has no move: neither may the quick)
        got = type(e)
    return got, rng.getstate()


@pytest.mark.parametrize("preset,options", TABLES)
def test_the_quick_path_moves_and_draws_as_the_general_one(preset, options):
    seen = Counter()
    for players in (5, 7, 10):
        for seed in range(12):
            for k, s in enumerate(states(preset, options, players, seed)):
                extra = s.extra
                if "mc" in extra or "plot" in extra or s.proxied:
                    continue  # (never quick)
                table = table_of(s.config)
                at = T0 + timedelta(days=k)
                quick = outcome(lambda s_, r, at=at, table=table: _core_move(s_, r, at, table), s, k)
                general = outcome(lambda s_, r, at=at: _any_move(s_, r, at), s, k)
                assert quick == general, (preset, players, seed, k, s.phase)
                seen[s.phase, any(x.disqualified for x in s.seats)] += 1
    assert min(seen[p, False] for p in ("proposal", "team_vote", "mission")) > 50, seen
    assert sum(seen[p, True] for p in ("proposal", "team_vote", "mission")) > 20, seen


class Drawn(random.Random):
    """A generator of its own class (the quick path is for random.Random itself)."""


def test_another_generator_class_plays_the_same_game():
    config = make_config("resistance", NAMES[:6], leader_order="random")
    for seed in range(5):
        a = play_out(config, seed, random.Random(seed), T0)
        b = play_out(config, seed, Drawn(seed), T0)
        assert a[0] == b[0] and a[1] == b[1] and a[2] == b[2]
