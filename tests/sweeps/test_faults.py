"""Fault injection: a fifth of all requests to the fake Reddit fail (429, 500, 503, dropped
connections, and writes that land but answer with an error or a dropped connection), in a
complete game per preset. The game comes out the same, no post is duplicated, and no vote
is lost."""
from collections import Counter

import pytest

from tests.fakes.bots import NO_WAITS, make_bot
from tests.fakes.driver import GAMES, markers, outcome, play


@pytest.fixture
def no_prawcore_sleep(monkeypatch):
    import prawcore.sessions

    monkeypatch.setattr(prawcore.sessions.FiniteRetryStrategy, "_sleep_seconds", lambda self: None)


def run(preset: str, fault_rate: float, clock_cls, seed: int = 3):
    b = make_bot("reddit", clock_cls(), forum_kw=NO_WAITS)
    fake = b.fake
    try:
        n, extra = GAMES[preset]
        t = b.table(n, preset=preset, extra=extra)
        fake.fault_rate = fault_rate
        fake.fault_rng.seed(seed)
        play(t, seed)
        fake.fault_rate = 0.0
        bot = fake.bot_posts()
        return outcome(t.export()), bot, fake.injected
    finally:
        fake.stop()


@pytest.mark.parametrize("preset", [p if p == "resistance" else pytest.param(p, marks=pytest.mark.long)
                                    for p in GAMES])  # the other presets: `make test-long`
def test_a_fifth_of_requests_fail_and_the_game_is_the_same(preset, db, no_prawcore_sleep):
    from forumbot import store
    from tests.fakes.clock import Clock

    calm, calm_texts, _ = run(preset, 0.0, Clock)
    store.close()
    from forumbot.store import MODELS
    from forumbot.store import db as proxy
    proxy.drop_tables(MODELS)
    proxy.create_tables(MODELS)
    stormy, texts, injected = run(preset, 0.2, Clock)
    assert sum(injected.values()) > 20 and len(injected) >= 5, injected
    assert stormy == calm
    dup = [m for m, k in Counter(markers(texts)).items() if k > 1]
    assert not dup, f"{len(dup)} posts went out twice"
