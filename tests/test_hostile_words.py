"""The hostile fuzzer (tests/test_hostile_cycle.py) for the players' own words (issue 24):
`words:` configs made by hypothesis (names, built-in words, links, look-alikes, huge lists,
odd YAML), and near-miss bold spans through whole cycles of a game whose host set `words:`.
The invariants: no traceback, bounded time, nothing secret in public, nothing twice."""
from __future__ import annotations

import logging
import tempfile
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot import store
from forumbot.config_sections import _BUILT_IN
from forumbot.config_values import word_key
from forumbot.gameconfig import parse_config
from forumbot.parsing import parse_command
from tests.fuzz.hostile import OWN_WORDS_CONFIG, hostile_text, hostile_words, names_st, near_miss_text
from tests.test_hostile_cycle import NO_SHRINK, Hostile, Tracebacks, a_message

CONFIG_BUDGET = 1.0  # seconds of CPU one config may take


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(data=st.data(), names=names_st, signup=st.booleans())
def test_a_hostile_words_config_is_refused_in_words_or_kept_safe(data, names, signup):
    words = data.draw(hostile_words(names), label="words")
    players = "signup\nmin_players: 5" if signup else "[" + ", ".join(f"'{n}'" for n in names) + "]"
    text = f"preset: resistance\nplayers: {players}\naliases: {{al: '{names[0]}'}}\nwords: {words}\n"
    if signup:
        text = text.replace(f"aliases: {{al: '{names[0]}'}}\n", "")
    start = time.process_time()
    config, problems = parse_config(text, "hosty")
    assert time.process_time() - start < CONFIG_BUDGET
    for p in problems:
        assert len(p.message) <= 300 and "\n" not in p.message
        assert "https://" not in p.message or "`" in p.message  # a link is shown inert
    if config is None:
        return
    people = {n.casefold() for n in config.players} | {a.casefold() for a in config.aliases}
    seen = set()
    for command, said in config.words.items():
        for w in said:
            key = word_key(w)
            assert key and key not in seen and key not in people, (command, w)
            assert key not in _BUILT_IN or _BUILT_IN[key] == command.upper()
            assert parse_command(w) is None, w
            assert "/" not in w[1:] and "." not in w and "[" not in w and "<" not in w, w
            seen.add(key)


@st.composite
def a_near_miss(draw, h: Hostile):
    s = h.t.state
    names = [x.name for x in s.active()] if s.running else list(h.t.players)
    author = draw(st.sampled_from(names + ([s.shown(s.leader)] if s.running and s.leader else [])))
    text = draw(near_miss_text(names)) if draw(st.integers(0, 3)) else draw(hostile_text(names))
    return author, draw(st.sampled_from(["comment", "comment", "pm"])), h.t.game.tag, text


def play_words(data, names: list[str], preset: str) -> None:
    logs = Tracebacks()
    logging.getLogger("forumbot").addHandler(logs)
    with tempfile.TemporaryDirectory() as tmp:
        h = Hostile(names, preset, tmp, extra=OWN_WORDS_CONFIG)
        assert h.t.state.config.words
        try:
            for _ in range(data.draw(st.integers(1, 4), label="rounds")):
                messages = data.draw(st.lists(a_near_miss(h) | a_message(h), min_size=1, max_size=5))
                for author, where, subject, body in messages:
                    if where == "comment":
                        h.comment(author, body)
                    elif where == "config":
                        h.config(author, body)
                    else:
                        h.pm(author, subject, body)
                h.cycle()
                h.cycle()
                h.check_public()
                assert not logs.seen, f"the bot logged tracebacks: {logs.seen[:3]}"
                hints = {}
                for row in store.Outbox.select().where(store.Outbox.key.contains(":hint:")):
                    assert row.kind == "pm", row.body  # a "did you mean" is never public
                    hints[row.key] = hints.get(row.key, 0) + 1
                assert all(n == 1 for n in hints.values())
                h.clock.advance(hours=data.draw(st.sampled_from([0, 0, 1, 25]), label="hours"))
        finally:
            store.close()
            logging.getLogger("forumbot").removeHandler(logs)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None,
          phases=NO_SHRINK)
@given(data=st.data(), names=names_st, preset=st.sampled_from(["resistance", "avalon"]))
def test_near_misses_and_own_words_through_whole_cycles(data, names, preset):
    play_words(data, names, preset)


@pytest.mark.long
@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck), database=None,
          phases=NO_SHRINK)
@given(data=st.data(), names=names_st, preset=st.sampled_from(["resistance", "avalon", "so-say-we-all"]))
def test_near_misses_and_own_words_through_whole_cycles_long(data, names, preset):
    play_words(data, names, preset)
