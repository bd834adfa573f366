"""Hypothesis: random legal play over every preset and every allowed player count."""
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.render import render_events
from forumbot.rules import make_config, replay
from forumbot.rules.random_play import play_out
from tests.support.pure import NAMES, T0

TABLES = ([("resistance", n) for n in range(5, 11)] + [("resistance-plot", n) for n in range(5, 11)]
          + [("avalon", n) for n in range(5, 11)] + [("avalon-2020", 8)]
          + [("so-say-we-all", n) for n in range(5, 11)])
OPTIONS = {"resistance-plot": {"plot_cards": True}, "avalon": {"plot_cards": True, "lady_of_the_lake": True},
           "avalon-2020": {"plot_cards": True}, "so-say-we-all": {"mission_cards": True}, "resistance": {}}
ROLE_WORDS = r"(spy|spies|resistance|cylons?|humans?|minions?|servants?|merlin|percival|morgana|mordred|oberon|assassin|evil|good)"


@given(st.sampled_from(TABLES), st.integers(0, 2**31), st.booleans())
@settings(max_examples=200, deadline=None)
def test_random_legal_play_ends_correctly_and_keeps_secrets(table, seed, with_roles):
    preset, n = table
    kw = dict(OPTIONS[preset])
    if preset == "avalon" and with_roles:
        kw["roles"] = ("percival", "morgana") if n >= 7 else ("percival",)
    cfg = make_config(preset, NAMES[:n], leader_order="random", **kw)
    rng = random.Random(seed)
    state, events, _ = play_out(cfg, seed, rng, T0)
    if state.running:  # only one way to stop short: a disqualified Assassin's shot waits for the host
        assert state.phase == "assassination" and state.seat(state.actors[0]).disqualified, state.phase
        return
    # the winner matches the track, the rejections or the assassination
    if state.win_reason == "missions":
        wins = state.successes() if state.winner == "resistance" else state.failures()
        assert wins == 3
        if state.winner == "resistance" and preset.startswith("avalon"):
            assert any(e.type == "assassinated" and not e.data["hit"] for e in events)
    elif state.win_reason == "rejections":
        assert state.winner == "spies" and state.rejections == 5
    elif state.win_reason == "abandoned":  # two full turns with no proposal (most seats disqualified)
        assert state.winner is None and any(e.type == "proposals_stalled" for e in events)
    else:
        assert state.win_reason == "assassination" and state.winner == "spies"
        shot = next(e for e in events if e.type == "assassinated")
        assert state.seat(shot.data["target"]).role == "merlin"
    assert replay(cfg, seed, events) == state
    # no public text puts a name beside a side or role word before the end
    live = replay(cfg, seed, events[:1])
    from forumbot.rules.state import fold
    for _i, e in enumerate(events[1:], 1):
        fold(live, e)
        if e.type == "game_ended" or e.type == "assassinated":
            break
        for msg in render_events(live, [e], "G1"):
            if msg.to is not None or msg.opening:
                continue
            for line in msg.body.split("\n"):
                if "public order" in line or "your order is public" in line or line.startswith("In the Spotlight:"):
                    continue
                for name in NAMES[:n]:
                    near = rf"\b{name}\b[^.\n]{{0,30}}\b{ROLE_WORDS}\b|\b{ROLE_WORDS}\b[^.\n]{{0,30}}\b{name}\b"
                    assert not re.search(near, line, re.I), (e.type, line)
