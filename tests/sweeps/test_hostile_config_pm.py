"""Hostile configs sent by PM without the subject `new game` (issue 25, item 9): whatever a
careless or hostile host (or a stranger) puts in a config-like PM under any other subject,
the cycle handles it (no message set aside for an error), it gets one answer, no game is
made, and nothing the bot sends back is live. `config_pm()` is the strategy (a body and a
subject); it reuses `hostile_config()` of test_hostile_config.py."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from forumbot import store
from forumbot.gameconfig import looks_like_config
from tests.sweeps.test_hostile_config import hostile_config
from tests.sweeps.test_hostile_echo import hostile_player_text, live_fragments

HINT = "Send the config again with that subject"
SUBJECTS = ["", "hello", "new gmae", "newgame", "new game please", "Re: new game", "G1", "G1 new game",
            "config", "NEW  GAME!", "new_game"]


@st.composite
def config_pm(draw) -> tuple[str, str]:
    """(subject, body): a config-like PM under any subject but `new game` itself."""
    body = draw(hostile_config())
    if draw(st.booleans()):  # a config key up front, now and then after hostile words
        words = draw(hostile_player_text(max_pieces=3)) if draw(st.booleans()) else ""
        body = f"{words}\n\n```\n{body}\n```" if words else "preset: avalon\n" + body
    subject = draw(st.one_of(st.sampled_from(SUBJECTS), st.text(max_size=40), hostile_player_text(max_pieces=3)))
    if subject.strip().lower() == "new game":
        subject = "new game?"
    return subject, body


@pytest.fixture
def local(db, bot):
    b = bot("local")
    return b, b.moderator(hosts={"host"})


def _bot_pms_to(b, who: str) -> list[str]:
    return [r.body for r in store.Outbox.select().where(
        (store.Outbox.kind == "pm") & (store.Outbox.to == who)).order_by(store.Outbox.id)]


def test_hostile_config_pm_without_the_subject_is_answered_once_and_inert(local):
    b, mod = local
    told: list[bool] = []

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(pm=config_pm(), who=st.sampled_from(["host", "mallory"]))
    # a config from the host under another subject on every run (60 drawn PMs alone now and then held none)
    @example(pm=("hello", "preset: avalon\nplayers: [alice, bob, carol, dave, erin]\n"), who="host")
    def one(pm, who):
        subject, body = pm
        body = body.encode("utf-8", "surrogatepass").decode("utf-8", "replace")  # (SQLite stores no surrogate)
        subject = subject.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        b.clock.advance(days=2)  # past the flood guard and a stranger's one pointer a day
        seen = len(_bot_pms_to(b, who))
        b.people.pm(who, subject, body)
        mod.cycle()
        assert not store.Inbound.select().where(store.Inbound.state == "error").exists()
        new = _bot_pms_to(b, who)[seen:]
        if looks_like_config(body):
            assert len(new) == 1, (subject, body, new)
            assert (HINT in new[0]) is (who == "host"), new
            told.append(who == "host")
        for text in new:
            assert not live_fragments(text), (body, text)
        assert store.Game.select().count() == 0
    one()
    assert any(told), "no config-like PM reached the hint: the test would prove nothing"
