"""Issue 25, item 9: a game's config sent by PM without the subject `new game`. From someone
who may start games, the answer says to send it again with that subject (before, a config
with a key that reads as a command, `excalibur: true`, was answered "You are not
in a running game."); a stranger's PM keeps its pointer, one a day. On the local forum."""
from __future__ import annotations

import pytest

from forumbot import store
from forumbot.gameconfig import looks_like_config
from tests.fakes.table import NAMES, config_text

CONFIG = config_text(NAMES[:5], preset="avalon")
# a key that also reads as a command (EXCALIBUR): this got "You are not in a running game."
COMMANDISH = CONFIG + "excalibur: true\n"
HINT = "Send the config again with that subject"
POINTER = "at most once a day"


@pytest.fixture
def local(db, bot):
    """The bot on the local forum; `host` is on the allow-list."""
    b = bot("local")
    return b, b.moderator(hosts={"host"})


def _games() -> int:
    return store.Game.select().count()


@pytest.mark.parametrize("subject", ["", "hello", "new gmae", "G1", "newgame"])
@pytest.mark.parametrize("body", [
    CONFIG,
    COMMANDISH,
    f"Hi bot, here is my game:\n\n```yaml\n{COMMANDISH}```\n",
    "Hi bot,\n\n" + "".join(f"    {ln}\n" for ln in COMMANDISH.splitlines()),
    "preset: avalon\n",
    "players: signup\n",
], ids=["plain", "commandish", "fenced", "indented", "preset-only", "players-only"])
def test_a_hosts_config_without_the_subject_is_told_to_send_it_with_it(local, subject, body):
    b, mod = local
    b.people.pm("host", subject, body)
    mod.cycle()
    mod.cycle()
    (answer,) = b.people.pms_to("host")
    assert HINT in answer and "`new game`" in answer, answer
    assert "not in a running game" not in answer
    assert _games() == 0


def test_the_same_config_with_the_subject_then_starts_the_game(local):
    b, mod = local
    b.people.pm("host", "my game", COMMANDISH)
    mod.cycle()
    b.people.pm("host", "new game", COMMANDISH)
    mod.cycle()
    mod.cycle()
    assert _games() == 1
    assert HINT in b.people.pms_to("host")[0]


def test_a_host_who_plays_is_told_too_and_the_game_is_untouched(db, bot):
    """The host of a running game sends the next game's config with the game's tag as the
    subject: the hint, and nothing reaches the running game."""
    b = bot("local")
    t = b.table(5, host="alice")  # alice hosts and plays
    before = (t.state.phase, t.state.leader, len(b.people.pms_to("alice")))
    t.pm("alice", COMMANDISH, subject=t.game.tag)
    t.cycle()
    new = b.people.pms_to("alice")[before[2]:]
    assert len(new) == 1 and HINT in new[0], new
    assert (t.state.phase, t.state.leader) == before[:2]
    assert _games() == 1


def test_a_stranger_keeps_the_pointer_once_a_day(local, clock):
    b, mod = local
    for subject in ("hi", "again"):
        b.people.pm("mallory", subject, COMMANDISH)
        mod.cycle()
    (answer,) = b.people.pms_to("mallory")
    assert POINTER in answer and HINT not in answer
    assert _games() == 0


def test_a_player_who_may_not_host_gets_the_no_command_answer(db, bot):
    """A player of a running game, not on the allow-list: the config's keys are no commands
    (EXCALIBUR is not tried on the game), and the answer is the one for a PM with none."""
    b = bot("local")
    t = b.table(5)
    t.mod = b.moderator(hosts={"host"})
    seen = len(b.people.pms_to("bob"))
    t.pm("bob", COMMANDISH, subject="next game")
    t.cycle()
    new = b.people.pms_to("bob")[seen:]
    assert len(new) == 1 and "I found no command" in new[0], new
    assert _games() == 1


def test_on_a_bot_open_to_all_a_stranger_gets_the_hint_once_a_day(db, bot):
    b = bot("local")
    mod = b.moderator()  # no allow-list: anyone may start a game
    for subject in ("hi", "again"):
        b.people.pm("zed", subject, COMMANDISH)
        mod.cycle()
    (answer,) = b.people.pms_to("zed")
    assert HINT in answer
    assert _games() == 0


@pytest.mark.parametrize("body", [
    "What preset should I use with 7 players?",
    "my preset: avalon",
    "APPROVE",
    "[preset, players]",
])
def test_a_hosts_other_pms_are_answered_as_before(local, body):
    b, mod = local
    b.people.pm("host", "question", body)
    mod.cycle()
    assert all(HINT not in a for a in b.people.pms_to("host"))


@pytest.mark.parametrize("text,expected", [
    (CONFIG, True), (COMMANDISH, True), ("players: signup", True), ("preset: x", True),
    ("players: are slow tonight", True),  # (a mapping with the key: the hint fits it well enough)
    ("my preset: avalon", False), ("title: x\nseed: 1", False), ("[preset, players]", False),
    ("preset: &a x\nplayers: *a", False),  # refused by the config's reader: not read further
    ("players: [a]\n" + "x" * 10_001, False), ("preset: [", False), ("", False), ("\x00preset: x", False),
])
def test_looks_like_config(text, expected):
    assert looks_like_config(text) is expected
