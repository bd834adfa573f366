"""What players see in the posts and PMs of whole games: the end post in the preset's own side
names, no Mission Commander named once the game is decided, the Plot and Mission Card
prompts, deadlines counted from when a post goes out, phases named in words, votes that came
by PM marked in the demo, and the game's tag asked for in every PM about a game."""
from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest

from forumbot.cli.main import main
from forumbot.render import render_events
from forumbot.rules import events as ev
from forumbot.rules import make_config
from forumbot.rules.random_play import play_out
from forumbot.rules.state import GameState, fold
from tests.support.pure import NAMES, T0

GAMES = {
    "resistance": ({}, 7),
    "resistance-plot": ({"plot_cards": True}, 8),
    "so-say-we-all": ({"mission_cards": True}, 7),
    "avalon": ({"plot_cards": True, "lady_of_the_lake": True, "roles": ("percival", "morgana")}, 8),
    "avalon-2020": ({"plot_cards": True}, 8),
}


def played(preset: str, seed: int):
    options, n = GAMES[preset]
    cfg = make_config(preset, NAMES[:n], leader_order="random", title="T", **options)
    return cfg, play_out(cfg, seed, random.Random(seed), T0)[1]


def rendered(cfg, events, now_after: timedelta | None = None):
    """(event, the messages made for it alone, the state after it), for each event."""
    state = GameState(cfg)
    for e in events:
        fold(state, e)
        now = e.at + now_after if now_after is not None else None
        yield e, render_events(state, [e], "G7", now=now), state


@pytest.mark.parametrize("preset", list(GAMES))
def test_the_end_post_uses_the_presets_side_names_and_no_raw_winner_line(preset):
    from forumbot.render.words import side_wins

    for seed in range(3):
        cfg, events = played(preset, seed)
        for e, msgs, state in rendered(cfg, events):
            if e.type == ev.GAME_ENDED:
                post = next(m.body for m in msgs if m.to is None)
                assert "winner:" not in post
                heading = post.split("\n")[0]
                wins = side_wins(state, e.data["winner"])  # ("Good wins", "the Spies win")
                assert heading == f"### {wins[0].upper()}{wins[1:]}, by " + {
                    "missions": "three missions", "assassination": "the assassination",
                    "rejections": "five rejected teams in one mission"}[e.data["reason"]] + "."
                assert "(0 SABOTAGE)" not in post


def test_an_aborted_game_has_no_raw_winner_line_and_status_speaks_the_presets_words():
    from forumbot.render.status import public_status
    from forumbot.rules import apply
    from forumbot.rules.commands import HostAbort

    cfg = make_config("avalon", NAMES[:7], roles=("percival",))
    from forumbot.rules import start

    events = start(cfg, 1, T0)
    state = GameState(cfg)
    for e in events:
        fold(state, e)
    end = apply(state, HostAbort(T0 + timedelta(hours=1), "host"))
    for e in end:
        fold(state, e)
    post = next(m.body for m in render_events(state, end, "G7") if m.to is None)
    assert "winner:" not in post and "aborted" in post
    cfg, events = played("avalon", 1)
    state = GameState(cfg)
    for e in events:
        fold(state, e)
    words = public_status(state, "G7")
    assert "Minions of Mordred won" in words or "Loyal Servants of Arthur won" in words
    assert "spies won" not in words and "resistance won" not in words


def test_no_mission_commander_is_named_after_the_game_is_decided():
    for seed in range(12):
        cfg, events = played("so-say-we-all", seed)
        played_missions = sum(1 for e in events if e.type == ev.MISSION_RESOLVED)
        named = [e.data["mission"] for e in events if e.type == ev.COMMANDER_NAMED]
        assert max(named) <= played_missions, (seed, named, played_missions)
        assert 6 not in named


def test_establish_confidence_is_mentioned_only_when_it_was_drawn():
    seen = {True: 0, False: 0}
    for seed in range(6):
        cfg, events = played("resistance-plot", seed)
        for e, msgs, _ in rendered(cfg, events):
            if e.type == ev.PLOT_DRAWN:
                post = next(m.body for m in msgs if m.to is None)
                drawn = "establish-confidence" in e.data["cards"]
                assert ("Establish Confidence stays with" in post) == drawn, post
                seen[drawn] += 1
    assert seen[True] and seen[False]


def test_the_kept_card_prompt_offers_each_holder_only_the_cards_they_hold():
    from forumbot.rules.modules.mission_card_folds import BY_KEY

    windows = 0
    for seed in range(30):
        cfg, events = played("so-say-we-all", seed)
        state = GameState(cfg)
        for e in events:
            hands = {h: list(c) for h, c in (state.extra["mc"].hands if "mc" in state.extra else {}).items()}
            fold(state, e)
            if e.type != "mc_window":
                continue
            windows += 1
            post = next(m.body for m in render_events(state, [e], "G7") if m.to is None)
            for line in post.split("\n\n"):
                holder = line.split(":")[0]
                offered = set(re.findall(r"PLAY: ([A-Z][\w ]+?) ->", line))
                assert offered, line
                assert offered <= {BY_KEY[c].name for c in hands[holder]}, (line, hands[holder])
    assert windows >= 3


def test_a_kept_card_names_its_keeper():
    for seed in range(30):
        cfg, events = played("so-say-we-all", seed)
        for e, msgs, _ in rendered(cfg, events):
            if e.type == "mc_done" and e.data.get("result") == "kept":
                post = next(m.body for m in msgs if m.to is None)
                assert f"kept by **{e.data['to']}**" in post
                return
    pytest.fail("no kept card in 30 games")


def test_relative_deadlines_count_from_when_the_post_goes_out():
    cfg, events = played("resistance", 2)
    checked = 0
    for _e, msgs, _ in rendered(cfg, events, now_after=timedelta(hours=1, minutes=29)):
        for m in msgs:
            for due, rel in re.findall(r"by (\d{4}-\d\d-\d\d \d\d:\d\d) UTC \(in ([^)]+)\)", m.body):
                assert rel != "1d" and rel == "22h 31m", (m.body, due, rel)
                checked += 1
    assert checked > 5


def test_the_demo_posts_count_deadlines_from_their_own_time(capsys):
    from datetime import datetime

    assert main(["demo", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    checked = 0
    for post in re.split(r"\n(?=\[\d{4}-\d\d-\d\dT\d\d:\d\d\] )", text):
        stamp = re.match(r"\[(\S+)\] ", post)
        if not stamp:
            continue
        at = datetime.fromisoformat(stamp.group(1))
        for due, rel in re.findall(r"by (\d{4}-\d\d-\d\d \d\d:\d\d) UTC \(in ([^)]+)\)", post):
            left = datetime.fromisoformat(due) - at
            d, h, mins = (int(x) if x else 0 for x in re.fullmatch(
                r"(?:(\d+)d)? ?(?:(\d+)h)? ?(?:(\d+)m)?", rel).groups())
            said = timedelta(days=d, hours=h, minutes=mins)
            assert abs(left - said) <= timedelta(minutes=2), (post[:200], due, rel)
            checked += 1
    assert checked > 10


def test_phases_are_named_in_words_not_identifiers():
    from forumbot.render.help import help_for
    from forumbot.render.markup import markup_for
    from forumbot.render.status import public_status, status_block

    for preset in ("resistance-plot", "so-say-we-all", "avalon"):
        cfg, events = played(preset, 1)
        for _e, msgs, state in rendered(cfg, events):
            texts = [m.body for m in msgs] + [public_status(state, "G7"),
                                              status_block(state, "G7", markup_for("markdown"))]
            texts += [help_for(state, "G7", n, n) for n in state.names[:2]]
            for t in texts:
                for bad in ("hand out step", "prep card step", "prep window step",
                            "card window step", "plot choice step", "_"):
                    if bad == "_":
                        assert not re.search(r"\b(hand_out|prep_card|prep_window|card_window|plot_choice)\b", t), t
                    else:
                        assert bad not in t, t


def test_the_demo_marks_votes_that_came_by_pm(capsys):
    assert main(["demo", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    marks = re.findall(r"^\[\S+\] (\w+) \(by PM to forumbot\): (.+)$", out, re.M)
    assert any(what.startswith("a team vote") for _, what in marks)
    assert not re.search(r"by PM to forumbot\): .*(APPROVE|REJECT|SUPPORT|SABOTAGE)", out)
    assert out.count("\nwinner: ") == 1  # the script's last line, once; no raw line in posts


@pytest.mark.parametrize("preset", list(GAMES))
def test_every_pm_about_a_game_asks_for_the_tag(preset):
    cfg, events = played(preset, 4)
    pms = [m for _, msgs, _ in rendered(cfg, events) for m in msgs if m.to is not None]
    assert len(pms) > len(cfg.players)
    for m in pms:
        assert m.body.endswith("Put G7 in any message you send me about this game "
                               "(a chat may drop the subject)."), m.body
