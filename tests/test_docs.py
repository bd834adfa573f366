"""The user documents (README.md and docs/) stay true: the defaults in docs/rules.md are the
presets' own, every config and settings file shown passes the bot's checks, every command
shown parses, every key and command is listed in the reference, every link leads somewhere,
and nothing points at files a user's clone does not have."""
from __future__ import annotations

import configparser
import pathlib
import re
import shlex

import pytest

from forumbot.gameconfig import parse_config
from forumbot.rules.deadlines import parse_duration
from forumbot.rules.presets import CHOICE, COUNT, DURATION, FLAG, PRESETS, TIME_OF_DAY, Deadlines, Missed, section_keys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("**/*.md"))]
TEXT = {p: p.read_text() for p in PAGES}
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank"]


def rel(page: pathlib.Path) -> str:
    return str(page.relative_to(ROOT))


def section(text: str, heading: str) -> str:
    """The text under a Markdown heading, up to the next heading of its level or above."""
    m = re.search(rf"^(#+) {re.escape(heading)}\s*$", text, re.M)
    assert m, f"no heading {heading!r}"
    level = len(m.group(1))
    end = re.compile(rf"^#{{1,{level}}} ", re.M).search(text, m.end())
    return text[m.end():end.start() if end else None]


def blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def table(text: str) -> list[list[str]]:
    """The first Markdown table in `text`: its rows (the header first), cells stripped."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):
                rows.append(cells)
        elif rows:
            break
    return rows


# --- docs/rules.md: the defaults per preset are the presets' own ----------------------------

RULES = TEXT[DOCS / "rules.md"]
DEFAULTS = table(section(RULES, "Defaults per preset"))


def test_the_defaults_table_has_every_preset_and_every_key():
    assert DEFAULTS[0][1:] == list(PRESETS)
    keys = {row[0].strip("`") for row in DEFAULTS[1:]}
    for name, sec in (("deadlines", Deadlines), ("missed", Missed)):
        for key in section_keys(sec):
            assert f"{name}.{key}" in keys, f"{name}.{key} is not in docs/rules.md"
    from forumbot.gameconfig import PRESET_KEYS
    from forumbot.rules.hooks import config_key_names

    assert PRESET_KEYS | config_key_names() | {"team_votes"} <= keys


def _written(kind: str, value) -> object:
    """A cell of the table, read as the bot reads that key's kind."""
    if kind == DURATION:
        return parse_duration(value)
    if kind == FLAG:
        assert value in ("true", "false"), value
        return value == "true"
    if kind == TIME_OF_DAY:
        return None if value == "not set" else value.strip('"')
    if kind == COUNT:
        return int(value)
    assert kind == CHOICE
    return value


def _row(label: str) -> dict[str, str]:
    found = [r for r in DEFAULTS if r[0] == label]
    assert len(found) == 1, f"docs/rules.md: the defaults table has no single row {label!r}"
    return dict(zip(PRESETS, found[0][1:], strict=True))


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_documented_defaults_are_the_presets(name):
    """Each `deadlines.*` and `missed.*` cell against PRESETS, and against what the bot makes
    of a config that leaves every key out."""
    preset = PRESETS[name]
    config, problems = parse_config(f"title: t\npreset: {name}\nplayers: [{', '.join(NAMES)}]\n", "host")
    assert problems == [] and config is not None
    for sec_name, sec, ours, parsed in (("deadlines", Deadlines, preset.deadlines, config.deadlines),
                                        ("missed", Missed, preset.missed, config.missed)):
        for key, f in section_keys(sec).items():
            cell = _row(f"`{sec_name}.{key}`")[name]
            assert _written(f.metadata["kind"], cell) == getattr(ours, key) == getattr(parsed, key), \
                f"docs/rules.md says {sec_name}.{key} is {cell} in {name}"
    assert _row("`team_votes`")[name] == preset.team_votes == config.team_votes


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_documented_switches_are_the_presets(name):
    """plot_cards, mission_cards, lady_of_the_lake, roles, excalibur: a dash where the preset
    refuses the key, else the value a config that leaves it out gets."""
    from forumbot.rules.hooks import config_key_names

    base = f"title: t\npreset: {name}\nplayers: [{', '.join(NAMES)}]\n"
    config, _ = parse_config(base, "host")
    for key in ("plot_cards", "mission_cards", "lady_of_the_lake", "roles", *sorted(config_key_names())):
        cell = _row(f"`{key}`")[name]
        value = "[]" if key == "roles" else "false"
        _, problems = parse_config(base + f"{key}: {value}\n", "host")
        if cell == "–":
            assert problems, f"docs/rules.md: {name} refuses {key}, but the bot takes it"
            continue
        assert problems == [], f"docs/rules.md: {name} takes {key}, but the bot refuses it: {problems}"
        got = config.roles if key == "roles" else config.options.get(key, False) \
            if key in config_key_names() else getattr(config, key)
        assert cell == ("[]" if got == () else str(got).lower()), (name, key, cell, got)


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_documented_fixed_rules_are_the_presets(name):
    p = PRESETS[name]
    yes = {True: "yes", False: "no"}
    size = sum(map(len, p.fixed_roster)) if p.fixed_roster else None
    assert _row("players")[name] == (str(size) if size else "5–10")
    assert _row("spies know each other")[name] == yes[p.spies_know_each_other]
    assert _row("two SABOTAGEs fail mission 4 from")[name] == f"{p.two_fail_from} players"
    assert _row("a missed proposal is a rejected team")[name] == yes[p.missed_proposal_counts_as_rejection]
    assert _row("an ABSTAIN counts as")[name] == (p.abstain_counts_as or "nothing")
    assert _row("missed orders count toward `disqualify_after`")[name] == yes[p.missed.orders_count]
