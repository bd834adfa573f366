"""Issue 21, item 6: the same `new game` PM twice (a double click, a resend after no
answer) starts one game; the second is answered with the first game's tag and link
(variants.md, "The same `new game` twice"). Through the cycle on the fake Reddit."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot import store
from tests.fakes.bots import make_bot
from tests.fakes.clock import Clock
from tests.fakes.table import NAMES, config_text

PLAYERS = NAMES[:5]
CONFIG = config_text(PLAYERS)


@pytest.fixture
def bot(db, bot, fake_reddit):
    """The bot on the fake Reddit: its moderator, the people there, the fake."""
    b = bot("reddit", fake=fake_reddit)
    return b.moderator(), b.people, fake_reddit


def _games():
    return list(store.Game.select().order_by(store.Game.id))


def _role_pms(fake, user):
    return [m for m in fake.pms_to(user) if m["subject"].startswith("G") and "role" in m["body"].lower()]


def _answers(fake, user="host"):
    return [m["body"] for m in fake.pms_to(user) if "sent me this config already" in m["body"]]


def test_two_identical_new_game_pms_in_one_fetch_start_one_game(bot):
    mod, people, fake = bot
    people.pm("host", "new game", CONFIG)
    people.pm("host", "new game", CONFIG)
    mod.cycle()
    mod.cycle()
    assert len(_games()) == 1
    (answer,) = _answers(fake)
    assert "G1" in answer and "not open yet" in answer  # the opening post was not out when it was handled
    assert all(len(_role_pms(fake, n)) == 1 for n in PLAYERS)
    assert len([m for m in fake.pms_to("host") if m["subject"] == "G1: your game is running"]) == 1


def test_the_same_new_game_pm_in_a_later_cycle_gets_the_link(bot, clock):
    mod, people, fake = bot
    people.pm("host", "new game", CONFIG)
    mod.cycle()
    mod.cycle()
    url = _games()[0].thread_url
    assert url
    clock.advance(hours=23)
    people.pm("host", "new game", CONFIG.replace("\n", "\r\n") + "  \n\n")  # a resend, from another client
    mod.cycle()
    mod.cycle()
    assert len(_games()) == 1
    (answer,) = _answers(fake)
    assert "G1" in answer and url in answer
    assert all(len(_role_pms(fake, n)) == 1 for n in PLAYERS)


def test_a_different_config_starts_a_second_game(bot):
    mod, people, fake = bot
    people.pm("host", "new game", CONFIG)
    people.pm("host", "new game", CONFIG.replace("Test game", "Test game 2"))
    mod.cycle()
    mod.cycle()
    assert len(_games()) == 2 and not _answers(fake)


def test_another_host_with_the_same_config_starts_a_second_game(bot):
    mod, people, fake = bot
    people.pm("host", "new game", CONFIG)
    people.pm("zed", "new game", CONFIG)
    mod.cycle()
    assert len(_games()) == 2 and not _answers(fake) and not _answers(fake, "zed")


def test_after_24_hours_the_same_config_starts_a_new_game(bot, clock):
    mod, people, fake = bot
    people.pm("host", "new game", CONFIG)
    mod.cycle()
    clock.advance(hours=24, seconds=1)
    people.pm("host", "new game", CONFIG)
    mod.cycle()
    assert len(_games()) == 2 and not _answers(fake)


def test_after_the_first_game_ended_the_same_config_starts_a_new_game(bot, clock):
    mod, people, fake = bot
    people.pm("host", "new game", CONFIG)
    mod.cycle()
    people.pm("host", "G1", "ABORT G1")
    mod.cycle()
    assert _games()[0].status != "running"
    people.pm("host", "new game", CONFIG)
    mod.cycle()
    assert len(_games()) == 2 and not _answers(fake)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_property_whitespace_never_makes_a_second_game_and_a_real_change_always_does(tmp_path_factory, data):
    """Invariants: a resend that differs only in line endings, spaces and blank lines makes
    no second game and is answered once with G1; a resend with a changed character in a
    value makes a second game; the cycle never raises."""
    from tests.conftest import _reset

    change = data.draw(st.booleans())
    pads = ["", " ", "  "] if change else ["", " ", "  ", "\t", "\u00a0"]  # (a tab is no YAML)
    spaced = []
    for line in CONFIG.split("\n"):
        pad = data.draw(st.sampled_from(pads))
        end = data.draw(st.sampled_from(["\n", "\r\n", "\n\n", " \n"]))
        spaced.append(line + pad + end)
    resend = "".join(spaced)
    if change:
        resend = resend.replace("Test game", "Test game " + data.draw(st.sampled_from(["2", "x", "é"])))
    path = tmp_path_factory.mktemp("dup")
    _reset(f"sqlite:///{path}/bot.db")
    b = make_bot("reddit", Clock())
    fake, people, mod = b.fake, b.people, b.moderator()
    try:
        people.pm("host", "new game", CONFIG)
        mod.cycle()
        people.pm("host", "new game", resend)
        mod.cycle()
        mod.cycle()
        assert len(_games()) == (2 if change else 1)
        assert len(_answers(fake)) == (0 if change else 1)
    finally:
        b.stop()
        store.close()
