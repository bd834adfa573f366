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

ROOT = pathlib.Path(__file__).resolve().parents[2]
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


# --- every page: configs, settings and commands shown are real ------------------------------

CONFIGS = [(rel(p), c) for p in PAGES for c in blocks(TEXT[p], "yaml")]
SETTINGS = [(rel(p), c) for p in PAGES for c in blocks(TEXT[p], "ini")]
SHELL = [(rel(p), line) for p in PAGES for b in blocks(TEXT[p], "sh")
         for line in b.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_docs_have_configs_settings_and_commands():
    assert len(CONFIGS) >= 8 and len(SETTINGS) >= 3 and len(SHELL) >= 20
    for page in ("hosting.md", "operating.md", "reference.md", "rules.md", "development.md"):
        assert (DOCS / page).exists(), page


@pytest.mark.parametrize(("page", "config"), CONFIGS, ids=[f"{p}:{i}" for i, (p, _) in enumerate(CONFIGS)])
def test_every_config_shown_passes_check_config(page, config, tmp_path, capsys):
    from forumbot.cli.main import main

    _, problems = parse_config(config, "host")
    assert problems == [], (page, problems)
    path = tmp_path / "game.yaml"
    path.write_text(config)
    assert main(["check-config", str(path)]) == 0, (page, capsys.readouterr())


@pytest.mark.parametrize(("page", "ini"), SETTINGS, ids=[f"{p}:{i}" for i, (p, _) in enumerate(SETTINGS)])
def test_every_settings_file_shown_loads(page, ini, tmp_path, monkeypatch):
    """Each `ini` block as a whole settings file (a block of one section is read alone): no
    unknown key, every value within its bounds."""
    from forumbot.settings import load_settings

    monkeypatch.chdir(tmp_path)
    path = tmp_path / "settings.ini"
    path.write_text(ini)
    settings = load_settings(str(path))
    parser = configparser.ConfigParser(inline_comment_prefixes=(";",))
    parser.read_string(ini)
    if parser.has_option("bot", "forum"):
        assert settings.forum == parser["bot"]["forum"], page


def _argvs(line: str) -> list[list[str]]:
    """The forumbot commands in one shell line: `forumbot ...` or `.../bin/forumbot ...`, in
    each part of `a; b` (`sudo -u forumbot` or `systemctl start forumbot` name no command)."""
    words = shlex.split(line, comments=True)
    parts, part = [], []
    for w in words:
        if w in (";", "&&") or w.endswith(";"):
            part.append(w.rstrip(";")) if w.rstrip(";") else None
            parts.append(part)
            part = []
        else:
            part.append(w)
    parts.append(part)
    out = []
    for p in parts:
        at = [i for i, w in enumerate(p) if (w == "forumbot" and i == 0) or w.endswith("/bin/forumbot")]
        if at:
            out.append(p[at[0] + 1:])
    return out


FORUMBOT_LINES = [(page, line) for page, line in SHELL if _argvs(line)]


@pytest.mark.parametrize(("page", "line"), FORUMBOT_LINES,
                         ids=[f"{p}:{i}" for i, (p, _) in enumerate(FORUMBOT_LINES)])
def test_every_forumbot_command_shown_parses(page, line):
    """The command line takes every `forumbot` command the docs show, as written (the local
    game in the README runs for real: tests/test_first_hour.py)."""
    from forumbot.cli.main import _parser

    for argv in _argvs(line):
        try:
            _parser().parse_args(argv)
        except SystemExit as e:  # --help and --version exit 0; a usage error exits 2
            assert e.code == 0, f"{page}: {line}"


def test_every_other_command_shown_exists():
    """`make X` is a target of the Makefile; a script named by its path is in the repository."""
    makefile = (ROOT / "Makefile").read_text()
    for page, line in SHELL:
        words = shlex.split(line, comments=True)
        for i, w in enumerate(words):
            if w == "make" and i + 1 < len(words) and not words[i + 1].startswith("-"):
                assert re.search(rf"^{re.escape(words[i + 1])}:", makefile, re.M), (page, line)
            if re.fullmatch(r"(deploy|bench|tools|tests)/[\w/.-]+\.\w+", w) and not w.endswith("/settings.ini"):
                assert (ROOT / w).exists(), (page, line)  # (deploy/settings.ini: the copy you make)


# --- links, and nothing the user's clone does not have ----------------------------------------


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    inside = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", inside, re.M)}


LINKS = [(p, target) for p in PAGES for target in re.findall(r"\]\(([^)\s]+)\)", TEXT[p])
         if not target.startswith(("http://", "https://", "mailto:"))]


@pytest.mark.parametrize(("page", "target"), LINKS, ids=[f"{rel(p)}->{t}" for p, t in LINKS])
def test_every_link_leads_somewhere(page, target):
    path, _, anchor = target.partition("#")
    file = (page.parent / path).resolve() if path else page
    assert file.exists() and ROOT in file.parents, f"{rel(page)}: {target} is not a file of the repository"
    if anchor:
        assert anchor in anchors(file.read_text()), f"{rel(page)}: {target}: no such heading"


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_no_page_points_at_files_a_clone_does_not_have(page):
    for gone in ("../shared", "/work/shared", "variants.md", "commands.md", "design.md"):
        assert gone not in TEXT[page], f"{rel(page)} points at {gone}"


def test_the_code_points_at_sections_that_exist():
    """The bot's own messages send users to a page's section ('docs/operating.md, "Hosting on
    Discourse"'): that section is there."""
    pointers = 0
    for file in [*ROOT.glob("adapters/*.py"), *ROOT.glob("forumbot/**/*.py"), ROOT / "settings.example.ini"]:
        for page, heading in re.findall(r"(README|docs/\w+\.md), \\?\"([^\"\\{]+)\\?\"", file.read_text()):
            pointers += 1
            text = (ROOT / ("README.md" if page == "README" else page)).read_text()
            assert re.search(rf"^#+ {re.escape(heading)}\s*$", text, re.M), f"{file.name}: {page}, {heading!r}"
    from adapters import ADAPTERS

    for adapter in ADAPTERS.values():
        if adapter.guide:
            pointers += 1
            assert re.search(rf"^#+ {re.escape(adapter.guide)}\s*$", TEXT[DOCS / "operating.md"], re.M), adapter.name
    assert pointers >= 3


# --- the README: what it is first, then the two commands, a local game, the links ------------

README = TEXT[ROOT / "README.md"]


def test_the_readme_is_short_and_says_what_the_bot_is_before_the_commands():
    assert len(README.splitlines()) < 200
    first_block = README.index("```sh")
    assert "game master" in README[:first_block]
    assert "make demo" in README[first_block:first_block + 200] and "make test" in README[first_block:first_block + 300]
    assert README.index("## A game on the local forum") < README.index("## Where to go next") < README.index("## Licence")
    for page in ("docs/hosting.md", "docs/operating.md", "docs/reference.md", "docs/rules.md", "docs/development.md"):
        assert f"]({page}" in README, page


def test_where_a_newcomer_chooses_a_forum_reddit_approval_is_told():
    """Reddit needs Reddit's approval; the local forum and Discourse need none: said where a
    newcomer chooses (the README's links, the operator's guide's first section)."""
    choose = section(TEXT[DOCS / "operating.md"], "Choosing a forum")
    assert "approval" in choose and "need no one's approval" in choose
    assert "Reddit's approval" in section(README, "Where to go next")
    reddit = " ".join(section(TEXT[DOCS / "operating.md"], "Reddit in 2026: ask for approval first").split())
    for words in ("Responsible Builder Policy", "late 2025", "March 2026", "script", "bench/api_economy.py",
                  "requests a minute", "/api/v1/me", "/message/unread"):
        assert words in reddit, words


# --- the reference lists everything ---------------------------------------------------------

REFERENCE = TEXT[DOCS / "reference.md"]


def test_the_reference_lists_every_host_command_and_config_key():
    from forumbot.gameconfig import PRESET_KEYS, TOP_KEYS
    from forumbot.limits import HOST_COMMANDS
    from forumbot.rules.hooks import config_key_names

    commands = section(REFERENCE, "Host commands")
    for verb in HOST_COMMANDS:
        assert f"`{verb.upper()} G12" in commands, verb
    keys = section(REFERENCE, "Config keys")
    for key in TOP_KEYS | PRESET_KEYS | config_key_names():
        assert f"`{key}`" in keys, key
    for sec in (Deadlines, Missed):
        for key in section_keys(sec):
            assert f"| `{key}` |" in keys, key


def test_the_reference_lists_every_setting():
    from adapters import ADAPTERS
    from forumbot.settings import KNOWN_KEYS

    rows = {(r[0], k.strip("` ")) for r in table(section(REFERENCE, "Settings")) for k in r[1].split(",")}
    known = {(f"`[{s}]`", k) for s, keys in KNOWN_KEYS.items() for k in keys}
    known |= {(f"`[{name}]`", k) for name, a in ADAPTERS.items() if name != "local" for k in a.keys()}
    assert known <= rows, known - rows


def test_the_reference_lists_every_command_line_option():
    from forumbot.cli.main import _parser

    cli = section(REFERENCE, "Command line")
    ap = _parser()
    sub = next(a for a in ap._actions if a.dest == "command")
    for name, parser in sub.choices.items():
        assert f"`forumbot {name}" in cli, name
        for action in parser._actions:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help":
                    assert option in cli, (name, option)
        for inner in (a for a in parser._actions if a.dest == "action"):
            for act in inner.choices:
                assert f"`forumbot {name} {act}" in cli, act


def test_the_reference_lists_every_export_field(tmp_path, monkeypatch, capsys):
    """The fields of a real export, from a game started on the local forum."""
    import json

    from forumbot import store
    from forumbot.cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORUMBOT_SETTINGS", raising=False)
    (tmp_path / "game.yaml").write_text("title: t\npreset: resistance\nplayers: [alice, bob, carol, dave, erin]\n")
    try:
        assert main(["local", "pm", "gm", "--subject", "new game", "--file", "game.yaml"]) == 0
        assert main(["run", "--once"]) == 0
        capsys.readouterr()
        assert main(["export", "G1"]) == 0
        record = json.loads(capsys.readouterr().out)
    finally:
        store.close()
    fields = section(REFERENCE, "Export JSON")
    for key in record:
        assert f"| `{key}` |" in fields, key
    for key in record["players"][0]:
        assert key in fields, key
    assert main(["--help"]) == 0
