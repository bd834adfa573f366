"""Hostile configs (issue 21, items 1, 2 and 11): an alias bomb, absurd numbers, keys given
twice, and whatever hypothesis makes of them. Through `forumbot check-config` and through a
`new game` PM in the cycle; `hostile_config()` is a strategy other tests may reuse."""
from __future__ import annotations

import json
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot import store
from forumbot.cli.main import main
from forumbot.gameconfig import parse_config
from forumbot.rules.config import GameConfig

BASE = "title: T\npreset: resistance\nplayers: [alice, bob, carol, dave, erin]\n"
AVALON = "title: T\npreset: avalon\nplayers: [alice, bob, carol, dave, erin]\n"
# Nine nested anchors: fully built, the last alias is 9^9 (387 million) x's.
BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{c}: &{c} [{','.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi")) + "subreddit: *i\n"
MAX_MESSAGE = 300


def check(tmp_path, monkeypatch, capsys, text: str) -> tuple[int, str]:
    """`forumbot check-config FILE` on `text`: its exit code and output."""
    monkeypatch.chdir(tmp_path)  # (no settings.ini: the defaults)
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    code = main(["check-config", str(path)])
    return code, capsys.readouterr().out


# --- 1. the alias bomb, sizes, and what a problem repeats -------------------------------------


def test_check_config_refuses_an_alias_bomb_at_once(tmp_path, monkeypatch, capsys):
    assert len(BASE + BOMB) < 800
    started = time.process_time()
    code, out = check(tmp_path, monkeypatch, capsys, BASE + BOMB)
    assert time.process_time() - started < 0.5
    assert code == 1 and "anchors" in out and "not allowed" in out
    assert len(out) < 500


@pytest.mark.parametrize("text", [
    BASE + "title: *x\n",  # an alias alone
    BASE + "deadlines: &d {team_vote: 1h}\n",  # an anchor alone
    BASE + "title: !!str T\n",  # a tag
    "<<: {preset: resistance}\nplayers: [alice, bob, carol, dave, erin]\n",  # a merge key
])
def test_check_config_refuses_anchors_aliases_tags_and_merge_keys(tmp_path, monkeypatch, capsys, text):
    code, out = check(tmp_path, monkeypatch, capsys, text)
    assert code == 1 and "not allowed" in out


def test_check_config_bounds_the_size_of_a_config(tmp_path, monkeypatch, capsys):
    code, out = check(tmp_path, monkeypatch, capsys, BASE + "intro: |\n" + "  words words\n" * 800)
    assert code == 1 and "10,000" in out and len(out) < 300


def test_check_config_bounds_the_nesting_of_a_config(tmp_path, monkeypatch, capsys):
    started = time.process_time()
    code, out = check(tmp_path, monkeypatch, capsys, BASE + "title: " + "[" * 4000 + "]" * 4000 + "\n")
    assert time.process_time() - started < 1.0
    assert code == 1 and "nested more than 20 deep" in out


@pytest.mark.parametrize("text", [
    "~~~\n" + "\n" * 9000 + "~~",  # a fence that never closes, over blank lines
    "Hi bot,\n\n" + "    a\n\n" * 1400,  # many indented blocks after words, none of them keys
])
def test_finding_the_config_in_a_message_takes_one_pass(text):
    started = time.process_time()
    cfg, problems = parse_config(text, "host")
    assert time.process_time() - started < 0.2
    assert cfg is None and problems


def test_a_long_unknown_key_is_not_echoed_whole_and_problems_are_counted(tmp_path, monkeypatch, capsys):
    long_key = "k" * 1000  # (YAML's longest plain key is 1024 characters)
    keys = "".join(f"unknown_{i}: '[evil](https://evil.example)'\n" for i in range(29))
    code, out = check(tmp_path, monkeypatch, capsys, BASE + f"{long_key}: 1\n" + keys)
    assert code == 1 and "30 problems" in out
    assert "k" * 41 not in out and "kkk…: is not a config key" in out
    assert "and 10 more" in out and len(out.splitlines()) == 22


@pytest.mark.parametrize("line,key", [
    ("players: ['[x](https://evil.example)', bob, carol, dave, erin]", "players"),
    ("preset: '@everyone [url=https://evil.example]x[/url]'", "preset"),
    ("subreddit: '# <a href=https://evil.example>x</a>'", "subreddit"),
    ("aliases: {'[al](https://evil.example)': alice}", "aliases"),
    ("timezone: 'https://evil.example/`rm`'", "timezone"),
    ("leader_order: '![img](https://evil.example/x.png)'", "leader_order"),
])
def test_a_value_a_problem_repeats_is_short_and_inert(line, key):
    text = BASE.replace("players: [alice, bob, carol, dave, erin]\n", "") if line.startswith("players") else BASE
    cfg, problems = parse_config(text + line + "\n", "host")
    assert cfg is None and any(p.key == key for p in problems)
    for p in problems:
        assert_inert(p.key, p.message)


def test_a_date_that_is_no_date_is_taken_as_text(tmp_path, monkeypatch, capsys):
    code, out = check(tmp_path, monkeypatch, capsys, BASE.replace("title: T", "title: 2001-13-45"))
    assert code == 0, out
    cfg, problems = parse_config(BASE + "timezone: 2001-02-30 25:00:00\n", "host")
    assert cfg is None and problems[0].key == "timezone" and "2001-02-30 25:00:00" in problems[0].message


# --- 2. absurd numbers: each bound named --------------------------------------------------------


_ALIASES = "aliases: {" + ", ".join(f"al{i}: alice" for i in range(65)) + "}"
_COHOSTS = "cohosts: [" + ", ".join(f"c{i}" for i in range(65)) + "]"


@pytest.mark.parametrize("line,key,bound", [
    ("deadlines: {proposal: 9999999d}", "deadlines.proposal", "30d"),
    ("deadlines: {team_vote: 9999999d}", "deadlines.team_vote", "30d"),
    ("deadlines: {mission: 99999999999999999999s}", "deadlines.mission", "30d"),
    ("deadlines: {remind_before: 2592001}", "deadlines.remind_before", "30d"),
    ("deadlines: {close_grace: 31d}", "deadlines.close_grace", "30d"),
    ("seed: 9223372036854775808", "seed", "9223372036854775807"),
    ("seed: -1", "seed", "from 0"),
    ("seed: " + "9" * 5000, "seed", "9223372036854775807"),
    ("missed: {disqualify_after: 101}", "missed.disqualify_after", "100"),
    ("missed: {notify_host_after: 99999999999999999999}", "missed.notify_host_after", "100"),
    (_ALIASES, "aliases", "64"),
    (_COHOSTS, "cohosts", "64"),
    ("thread: " + "x" * 301, "thread", "300"),
    ("deadlines: {align_to: '25:00'}", "deadlines.align_to", "23:59"),
    ("timezone: " + "Europe/" * 20 + "Berlin", "timezone", "Europe/Berlin"),
    ("timezone: ../../etc/passwd", "timezone", "Europe/Berlin"),
    ("timezone: " + "a" * 300, "timezone", "Europe/Berlin"),
    ("timezone: [a, b]", "timezone", "Europe/Berlin"),
])
def test_check_config_names_the_bound_of_an_absurd_number(tmp_path, monkeypatch, capsys, line, key, bound):
    code, out = check(tmp_path, monkeypatch, capsys, BASE + line + "\n")
    assert code == 1
    said = [ln for ln in out.splitlines() if ln.strip().startswith(f"{key}:")]
    assert said and bound in said[0], out


def test_check_config_names_the_bound_of_roles(tmp_path, monkeypatch, capsys):
    code, out = check(tmp_path, monkeypatch, capsys, AVALON + "roles: [" + ", ".join(["percival"] * 21) + "]\n")
    assert code == 1 and "at most 20" in out


@pytest.mark.parametrize("line", [
    "deadlines: {proposal: 30d, team_vote: 2592000, mission: none}",
    "seed: 9223372036854775807",
    "seed: 0",
    "missed: {disqualify_after: 100, notify_host_after: 100}",
    "aliases: {" + ", ".join(f"al{i}: alice" for i in range(64)) + "}",
    "timezone: America/Argentina/Buenos_Aires",
])
def test_a_number_at_its_bound_is_taken(tmp_path, monkeypatch, capsys, line):
    code, out = check(tmp_path, monkeypatch, capsys, BASE + line + "\n")
    assert code == 0, out


# --- 11. keys given twice -----------------------------------------------------------------------


@pytest.mark.parametrize("text,key", [
    (BASE + "players: [frank, gina, hank, ivan, judy]\n", "players"),
    (BASE + "deadlines: {team_vote: 1h}\ndeadlines: {mission: 1h}\n", "deadlines"),
    (BASE + "deadlines:\n  team_vote: 12h\n  mission: 1h\n  team_vote: 1h\n", "deadlines.team_vote"),
    (BASE + "missed: {team_vote: reject, team_vote: approve}\n", "missed.team_vote"),
    (BASE + "seed: 1\nseed: 01\n", "seed"),  # (one key in the mapping: the same number)
])
def test_check_config_names_a_key_given_twice(tmp_path, monkeypatch, capsys, text, key):
    code, out = check(tmp_path, monkeypatch, capsys, text)
    assert code == 1 and f"  {key}: is given twice" in out, out


# --- through the cycle: a `new game` PM ------------------------------------------------------


def _new_game(t, who: str, body: str) -> str:
    t.people.pm(who, "new game", body)
    return who


def test_an_alias_bomb_pm_is_refused_at_once_and_the_other_game_goes_on(local_game):
    t = local_game()
    games = store.Game.select().count()
    leader = t.state.shown(t.state.leader)
    _new_game(t, "mallory", BASE + BOMB)
    t.say(leader, "**PROPOSE: " + ", ".join(t.default_team()) + "**")
    started = time.process_time()
    t.cycle()
    assert time.process_time() - started < 1.0
    answer = t.people.pms_to("mallory")[-1]
    assert "No game was created" in answer and "anchors" in answer and len(answer) < 1000
    assert store.Game.select().count() == games
    assert t.state.phase == "team_vote"  # the other game's PROPOSE was handled in the same cycle


@pytest.mark.parametrize("line,key,bound", [
    ("deadlines: {proposal: 9999999d}", "deadlines.proposal", "30d"),
    ("deadlines: {team_vote: 9999999d}", "deadlines.team_vote", "30d"),
    ("deadlines: {mission: 99999999999999999999s}", "deadlines.mission", "30d"),
    ("seed: 9223372036854775808", "seed", "9223372036854775807"),
    ("players: [frank, gina, hank, ivan, judy]", "players", "given twice"),
    ("deadlines:\n  team_vote: 12h\n  team_vote: 1h", "deadlines.team_vote", "given twice"),
    ("k" * 1000 + ": 1", "kkkkkkkkkk", "not a config key"),
])
def test_a_new_game_pm_with_an_absurd_value_is_refused_by_key_and_bound(local_game, line, key, bound):
    t = local_game()
    games = store.Game.select().count()
    leader = t.state.shown(t.state.leader)
    _new_game(t, "mallory", BASE + line + "\n")
    t.say(leader, "**PROPOSE: " + ", ".join(t.default_team()) + "**")
    t.cycle()
    answer = t.people.pms_to("mallory")[-1]
    assert "No game was created" in answer
    said = [ln for ln in answer.splitlines() if ln.startswith(f"- `{key}")]
    assert said and bound in said[0], answer
    assert "k" * 41 not in answer
    assert store.Game.select().count() == games
    assert t.state.phase == "team_vote"


def test_a_stored_config_from_an_older_bot_with_absurd_deadlines_plays_on(local_game):
    """Defence in depth: a game made before the bounds keeps 9999999d; its PROPOSE and its
    votes are handled (no OverflowError in the deadline code)."""
    t = local_game()
    game = t.game
    data = json.loads(game.config)
    for key in ("proposal", "team_vote", "mission", "remind_before"):
        data["deadlines"][key] = 9999999 * 86400
    data["deadlines"]["close_early"] = True
    game.config = json.dumps(data)
    game.save()
    t.cycle(fresh=True)
    t.propose()
    assert t.state.phase == "team_vote"
    t.vote_all(True)
    assert t.state.phase == "mission"
    assert t.export()["votes"][0]["defaulted"] == []


# --- hypothesis: hostile configs -----------------------------------------------------------------

_MARKUP = ["[x](https://evil.example)", "![i](https://evil.example/i.png)", "[url=https://evil.example]x[/url]",
           "<a href='https://evil.example'>x</a>", "@everyone", "u/someone", "# Heading", "> quote", ">!spoiler!<",
           "**bold**", "`tick`", "```", "<!-- forumbot:G1 -->", "https://evil.example", "\u202eevil", "a\u0000b"]
_KEYS = ["title", "preset", "players", "team_votes", "aliases", "thread", "subreddit", "category", "leader_order",
         "seed", "deadlines", "missed", "min_players", "max_players", "intro", "timezone", "cohosts", "spectators",
         "forward_pms", "reserves", "signup_thread", "roles", "lady_of_the_lake", "plot_cards", "mission_cards",
         "excalibur", "<<", "proposal", "team_vote", "mission", "align_to", "disqualify_after"]


def _scalar() -> st.SearchStrategy[str]:
    """One YAML scalar, as the host might type it (quoted or not)."""
    numbers = st.one_of(st.integers(), st.integers(min_value=-(10**60), max_value=10**60),
                        st.integers(min_value=2**63 - 2, max_value=2**63 + 2),
                        st.floats(allow_nan=True, allow_infinity=True)).map(str)
    printable = st.characters(blacklist_categories=("Cc", "Cs", "Co", "Cn"))
    words = st.one_of(st.sampled_from(_MARKUP), st.text(max_size=30), st.text(printable, max_size=60), st.text(st.characters(), min_size=50,
                      max_size=200), st.sampled_from(["true", "false", "null", "none", "signup", "resistance",
                                                      "avalon", "9999999d", "30d", "0s", "-1h", "21:00", "~",
                                                      "1:2:3:4:5:6:7:8:9", "0x7fffffffffffffff", ".inf",
                                                      "2001-13-45", "2001-02-30 25:00:00", "2026-12-02"]))
    durations = st.tuples(st.integers(min_value=-5, max_value=10**25), st.sampled_from("smhdx")).map(
        lambda t: f"{t[0]}{t[1]}")
    quoted = words.map(lambda s: json.dumps(s, ensure_ascii=False))
    return st.one_of(numbers, durations, quoted, quoted, words, st.just("9" * 2000))


_SCALAR = _scalar()
_VALUE = st.one_of(
    st.recursive(_SCALAR, lambda inner: st.one_of(
        st.lists(inner, max_size=6).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(st.sampled_from(_KEYS) | _SCALAR, inner), max_size=5).map(
            lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}")), max_leaves=10),
    st.integers(min_value=1, max_value=60).map(lambda n: "[" * n + "x" + "]" * n),
    st.sampled_from(["&a [x, x]", "*a", "!!python/object:os.system x", "!!binary aGk=", "{<<: {a: 1}}"]),
)


@st.composite
def hostile_config(draw) -> str:
    """A `new game` message a careless or hostile host might send: some good lines, then
    keys (known, unknown, very long, given twice) with hostile values, maybe an alias bomb,
    maybe wrapped in words or a fence."""
    lines = draw(st.sampled_from([BASE.splitlines(), AVALON.splitlines(), BASE.splitlines()[1:],
                                  ["players: signup", "preset: avalon"]]))
    lines = [ln for ln in lines if draw(st.integers(0, 9))]  # (now and then one is left out)
    for _ in range(draw(st.integers(min_value=0, max_value=6))):
        key = draw(st.one_of(st.sampled_from(_KEYS), st.text(min_size=1, max_size=20).map(json.dumps),
                             st.integers(min_value=1, max_value=1000).map(lambda n: "k" * n)))
        lines.append(f"{key}: {draw(_VALUE)}")
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["deadlines:\n  team_vote: 1h\n  team_vote: 9999999d",
                                           BOMB.strip(), "players: signup\nmin_players: 99",
                                           "deadlines: {align_to: " + draw(_SCALAR) + "}",
                                           "intro: |\n  " + "[x](https://evil.example) " * 400])))
    text = "\n".join(draw(st.permutations(lines)))
    wrap = draw(st.sampled_from(["{}", "{}", "{}", "Hi bot,\n\n```yaml\n{}\n```\n", "```\n{}", "Hi bot,\n\n{}",
                                 "{}\n{}"]))
    if wrap == "Hi bot,\n\n{}":  # (an indented block after words)
        text = "\n".join("    " + ln for ln in text.split("\n"))
    return wrap.replace("{}", text)


_CODE = re.compile(r"`[^`\n]*`")
_LIVE = re.compile(r"\]\(|https?:|\[url|<a\s|(?<![\w`])@\w|(?<![\w/])u/\w|^\s*#|!\[", re.I | re.M)


def assert_inert(key: str, message: str) -> None:
    """A problem as the reply shows it: short, one line, no live link or mention outside
    code ticks, and code ticks that close on the same line."""
    assert len(key) <= 80 and "`" not in key and "\n" not in key
    assert len(message) <= MAX_MESSAGE and "\n" not in message
    assert message.count("`") % 2 == 0, message
    outside = _CODE.sub("", message)
    assert not _LIVE.search(outside), message


def _check_hostile(text: str) -> None:
    started = time.process_time()
    cfg, problems = parse_config(text, "host", bot_name="forumbot")
    assert time.process_time() - started < 1.5, len(text)
    assert (cfg is None) == bool(problems)
    if cfg is not None:
        assert isinstance(cfg, GameConfig)
        assert cfg.seed is None or 0 <= cfg.seed < 2**63
        assert len(cfg.aliases) <= 64
        for name in ("proposal", "team_vote", "mission", "choice", "card_window", "remind_before", "signup",
                     "close_grace"):
            value = getattr(cfg.deadlines, name)
            assert value is None or 0 < value <= 30 * 86400
        assert 0 <= cfg.missed.disqualify_after <= 100 and 0 <= cfg.missed.notify_host_after <= 100
        json.dumps(cfg.to_json())  # (what the database keeps)
    assert len(problems) == len(set(problems))  # nothing twice
    for p in problems:
        assert_inert(p.key, p.message)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_config())
def test_a_hostile_config_gets_a_game_or_short_inert_problems(text):
    _check_hostile(text)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=600))
def test_any_text_gets_a_game_or_short_inert_problems(text):
    _check_hostile(text)


@pytest.mark.long
@settings(max_examples=6000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_config())
def test_many_hostile_configs(text):
    _check_hostile(text)


def test_a_thread_that_is_no_thread_is_named_as_text(local_game):
    """`thread:` with a link in it: the refusal names it inert, never as a live link."""
    t = local_game()
    _new_game(t, "mallory", BASE + 'thread: "[Official result](https://evil.example/x)"\n')
    t.cycle()
    answer = t.people.pms_to("mallory")[-1]
    assert "is not a thread I can post in" in answer and "evil" in answer
    assert "](https://evil.example" not in answer
