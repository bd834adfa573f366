"""A key of the config's `deadlines:` or `missed:` section is declared once (rules.presets:
its field, its kind and its default), and the parsing, the list of keys and the defaults per
preset follow from that one declaration."""
from dataclasses import dataclass, fields, replace

import pytest

from forumbot.gameconfig import parse_config
from forumbot.rules.config import default_deadlines, default_missed
from forumbot.rules.hooks import make_config
from forumbot.rules.presets import (
    CHOICE,
    COUNT,
    DURATION,
    FLAG,
    HOUR,
    PRESETS,
    TIME_OF_DAY,
    Deadlines,
    Missed,
    section_key,
    section_keys,
)

BASE = "preset: {preset}\nplayers: [alice, bob, carol, dave, erin, frank, gina, hank]\n"


def problems(text: str, preset: str = "resistance") -> list[str]:
    return [str(p) for p in parse_config(BASE.format(preset=preset) + text, "host")[1]]


def test_every_key_is_declared_once_with_a_kind_the_config_reads():
    kinds = {DURATION, FLAG, TIME_OF_DAY, COUNT, CHOICE}
    assert list(section_keys(Deadlines)) == [f.name for f in fields(Deadlines)]
    # orders_count is the preset's alone: no host sets it
    assert list(section_keys(Missed)) == [f.name for f in fields(Missed) if f.name != "orders_count"]
    for section in (Deadlines, Missed):
        for name, key in section_keys(section).items():
            assert key.metadata["kind"] in kinds, name
            assert (key.metadata["kind"] == CHOICE) == bool(key.metadata["choices"]), name
            if key.metadata["kind"] == CHOICE:
                assert key.default in key.metadata["choices"], name


def test_every_preset_has_a_default_for_every_key():
    for preset in PRESETS.values():
        assert type(preset.deadlines) is Deadlines and type(preset.missed) is Missed
        assert default_deadlines(preset) == preset.deadlines
        assert default_missed(preset) == preset.missed
        assert make_config(preset.name, ["a"] * 5).deadlines == preset.deadlines
    # the differences the presets declare (variants.md, "Defaults per preset")
    assert PRESETS["resistance"].deadlines == Deadlines()
    assert PRESETS["avalon"].deadlines == Deadlines(card_window=4 * HOUR)
    assert PRESETS["avalon-2020"].deadlines == Deadlines(team_vote=12 * HOUR, card_window=4 * HOUR,
                                                         close_early=False)
    assert PRESETS["avalon-2020"].missed == Missed(team_vote="approve", mission="support", disqualify_after=2,
                                                   orders_count=True)


def test_each_kind_reads_its_values_and_words_its_problems():
    cfg, found = parse_config(BASE.format(preset="resistance") + (
        "deadlines: {proposal: 90m, mission: none, close_early: false, align_to: 21:00, close_grace: 10m}\n"
        "missed: {team_vote: ' Reject ', mission: support, disqualify_after: 3, allow_abstain: false}\n"), "host")
    assert found == [] and cfg is not None
    assert (cfg.deadlines.proposal, cfg.deadlines.mission, cfg.deadlines.team_vote) == (5400, None, 86400)
    assert (cfg.deadlines.close_early, cfg.deadlines.align_to, cfg.deadlines.close_grace) == (False, "21:00", 600)
    assert cfg.missed == Missed(team_vote="reject", mission="support", disqualify_after=3, allow_abstain=False)
    assert problems("deadlines: {proposal: 5x, close_early: 'yes', align_to: '25:00'}\n") == [
        "deadlines.proposal: `5x` is not a duration like 90s, 30m, 12h or 2d (at most 30d), or none",
        "deadlines.close_early: must be true or false",
        'deadlines.align_to: `25:00` must be a time of day from "00:00" to "23:59" (in quotes)',
    ]
    assert problems("missed: {team_vote: maybe, disqualify_after: 101, allow_abstain: 1}\n") == [
        "missed.team_vote: `maybe` must be one of: approve | reject | abstain",
        "missed.disqualify_after: must be a whole number from 0 to 100, 0 for never",
        "missed.allow_abstain: must be true or false",
    ]
    assert problems("deadlines: 12h\nmissed: [abstain]\n") == [
        "deadlines: must be keys such as `team_vote: 12h`",
        "missed: must be keys such as `team_vote: abstain`",
    ]
    assert problems("deadlines: {nap: 1h}\nmissed: {orders_count: true}\n") == [
        "deadlines.nap: is not a deadline: one of align_to, card_window, choice, close_early, close_grace, "
        "mission, proposal, remind_before, signup, team_vote",
        "missed.orders_count: is not a setting: one of allow_abstain, disqualify_after, mission, "
        "notify_host_after, team_vote",
    ]


@dataclass(frozen=True)
class _MoreDeadlines(Deadlines):
    nap: int | None = section_key(DURATION, 1 * HOUR)  # a new key: this line is all it takes


@pytest.fixture
def nap(monkeypatch):
    """The presets' deadlines with the new key: one preset changes its default."""
    for name, preset in PRESETS.items():
        more = _MoreDeadlines(**{f.name: getattr(preset.deadlines, f.name) for f in fields(Deadlines)})
        if name == "avalon":
            more = replace(more, nap=3 * HOUR)
        monkeypatch.setitem(PRESETS, name, replace(preset, deadlines=more))


def test_a_key_declared_once_is_defaulted_per_preset_parsed_and_listed(nap):
    cfg = parse_config(BASE.format(preset="resistance"), "host")[0]
    assert cfg is not None and cfg.deadlines.nap == HOUR
    cfg = parse_config(BASE.format(preset="avalon"), "host")[0]
    assert cfg is not None and cfg.deadlines.nap == 3 * HOUR
    cfg = parse_config(BASE.format(preset="avalon") + "deadlines: {nap: 20m, team_vote: 2h}\n", "host")[0]
    assert cfg is not None and (cfg.deadlines.nap, cfg.deadlines.team_vote) == (1200, 7200)
    assert cfg.deadlines.card_window == 4 * HOUR
    assert problems("deadlines: {nap: forever}\n") == [
        "deadlines.nap: `forever` is not a duration like 90s, 30m, 12h or 2d (at most 30d), or none"]
    assert problems("deadlines: {snooze: 1h}\n") == [
        "deadlines.snooze: is not a deadline: one of align_to, card_window, choice, close_early, close_grace, "
        "mission, nap, proposal, remind_before, signup, team_vote"]
