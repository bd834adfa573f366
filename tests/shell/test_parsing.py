"""Text -> commands, names, and the config message."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.gameconfig import parse_config
from forumbot.parsing import (
    NameProblem,
    bold_spans,
    game_tags,
    parse_command,
    parse_comment,
    parse_pm,
    resolve_name,
)
from forumbot.render.replies import name_problem

COMMANDS = [
    ("PROPOSE: alice, bob, carol", ("propose", ("alice", "bob", "carol"), "")),
    ("propose alice bob", ("propose", ("alice", "bob"), "")),
    ("TEAM: u/alice & @bob and carol", ("propose", ("u/alice", "@bob", "carol"), "")),
    ("APPROVE", ("vote", (), "approve")),
    ("reject", ("vote", (), "reject")),
    ("VOTE: APPROVE", ("vote", (), "approve")),
    ("Vote reject", ("vote", (), "reject")),
    ("ABSTAIN", ("vote", (), "abstain")),
    ("PASS", ("vote", (), "abstain")),
    ("CRITICAL APPROVE", ("vote", (), "approve")),
    ("SUPPORT", ("order", (), "support")),
    ("success", ("order", (), "support")),
    ("SABOTAGE", ("order", (), "sabotage")),
    ("FAIL", ("order", (), "sabotage")),
    ("STATUS", ("status", (), "")),
    ("help", ("help", (), "")),
    ("EXTEND G12 6h", ("host:extend", (), "12")),
    ("REPLACE G3 alice WITH zed", ("host:replace", (), "3")),
]


@pytest.mark.parametrize("text,expected", COMMANDS)
def test_every_command_form(text, expected):
    p = parse_command(text)
    assert (p.verb, p.names, p.choice) == expected


@pytest.mark.parametrize("text", ["I approve of this", "APPROVED?!x", "G12", "", "proposal", "reject him"])
def test_not_commands(text):
    assert parse_command(text) is None


@pytest.mark.parametrize("body,votes", [
    ("I say **APPROVE**", ["approve"]),
    ("__REJECT__", ["reject"]),
    ("[b]APPROVE[/b]", ["approve"]),
    ("[b][color=red]reject[/color][/b]", ["reject"]),
    ("[color=red]REJECT[/color]", []),  # colour alone is not bold
    ("[color=#ff0000][b]APPROVE[/b][/color]", ["approve"]),
    ("[size=150][b]REJECT[/b][/size]", ["reject"]),
    ("[b][size=7][color=blue]APPROVE[/color][/size][/b]", ["approve"]),
    ("[size=200]APPROVE[/size]", []),  # size alone is not bold
    ('**<span style="color:red">REJECT</span>**', ["reject"]),
    ('<b><font color="red">APPROVE</font></b>', ["approve"]),
    ('<font color="red">APPROVE</font>', []),
    ("<strong>approve</strong> and <b>REJECT</b>", ["approve", "reject"]),
    ("> **APPROVE**\n\nno", []),
    ("&gt; **APPROVE**", []),
    ("[quote=bob]**APPROVE**[/quote] **REJECT**", ["reject"]),
    ("<blockquote><b>APPROVE</b></blockquote>", []),
    ("`**APPROVE**`", []),
    ("```\n**APPROVE**\n```\n**REJECT**", ["reject"]),
    ("    **APPROVE**", []),
    ("[code]**APPROVE**[/code]", []),
    ("APPROVE", []),  # not bold
    ("**APP\u200bROVE**", ["approve"]),  # zero-width characters are dropped
    ("**ＡＰＰＲＯＶＥ**", ["approve"]),  # full-width letters fold
])
def test_bold_votes_count_quotes_and_code_do_not(body, votes):
    assert [p.choice for p in parse_comment(body) if p.verb == "vote"] == votes


def test_several_commands_in_one_comment_apply_in_order():
    got = parse_comment("**PROPOSE: a, b** then **APPROVE**")
    assert [p.verb for p in got] == ["propose", "vote"]


def test_pm_lines_bold_optional_quotes_ignored():
    got = parse_pm("G12\n> APPROVE\n**SABOTAGE**\nstatus\nG4 approve\nhello there")
    assert [(p.verb, p.choice) for p in got] == [("order", "sabotage"), ("status", ""), ("vote", "approve")]
    assert game_tags("re: G12 orders", "x G4") == {12, 4}


@pytest.mark.parametrize("raw,expected", [
    ("alice", "alice"), ("ALICE", "alice"), ("u/alice", "alice"), ("/u/Alice", "alice"),
    ("@alice", "alice"), ("car", "carol"), ("al", "alice"),
])
def test_names_resolve(raw, expected):
    assert resolve_name(raw, ["alice", "alina", "carol", "bob"], {"al": "alice"}) == expected


def test_ambiguous_and_unknown_names_list_candidates():
    r = resolve_name("ali", ["alice", "alina", "bob"])
    assert isinstance(r, NameProblem) and r.candidates == ("alice", "alina")
    said = name_problem(r.name, r.candidates)
    assert "alice" in said and "alina" in said
    r = resolve_name("zed", ["alice"])
    assert isinstance(r, NameProblem) and r.candidates == () and "not a player" in name_problem(r.name, r.candidates)
    assert isinstance(resolve_name("bo", ["bob"]), NameProblem)  # a prefix needs 3 letters


@given(st.text(max_size=400))
@settings(max_examples=300, deadline=None)
def test_parsers_never_raise(text):
    parse_comment(text)
    parse_pm(text)
    bold_spans(text)


@given(st.text(alphabet="*_[]/b<>strong:,APROVEJCTSUIBG12 \n>`", max_size=200))
@settings(max_examples=300, deadline=None)
def test_parsers_never_raise_on_markup_soup(text):
    for p in parse_comment(text) + parse_pm(text):
        assert p.verb


GOOD = "preset: resistance\nplayers: [alice, bob, carol, dave, erin]\n"


def test_config_good_and_in_a_code_block():
    cfg, problems = parse_config(GOOD, "host")
    assert problems == [] and cfg.players == ("alice", "bob", "carol", "dave", "erin")
    assert cfg.deadlines.team_vote == 24 * 3600 and cfg.missed.team_vote == "abstain"
    cfg2, _ = parse_config("```yaml\n" + GOOD + "```", "host")
    assert cfg2 == cfg
    cfg3, _ = parse_config("\n".join("    " + ln for ln in GOOD.splitlines()), "host")
    assert cfg3 == cfg


def test_config_overrides():
    cfg, problems = parse_config(GOOD + "deadlines: {team_vote: 90s, mission: none}\n"
                                 "missed: {team_vote: reject, disqualify_after: 3}\nteam_votes: pm\n", "h")
    assert problems == []
    assert (cfg.deadlines.team_vote, cfg.deadlines.mission) == (90, None)
    assert (cfg.missed.team_vote, cfg.missed.disqualify_after, cfg.team_votes) == ("reject", 3, "pm")


def test_config_reports_every_problem_by_key():
    text = ("preset: resistance\nplayers: [alice, bob, alice]\nlady_of_the_lake: true\n"
            "deadlines: {team_vote: soon, nap: 1h}\nmissed: {team_vote: maybe}\ncolour: red\n")
    cfg, problems = parse_config(text, "host")
    assert cfg is None
    keys = [p.key for p in problems]
    for k in ["players", "lady_of_the_lake", "deadlines.team_vote", "deadlines.nap",
              "missed.team_vote", "colour"]:
        assert k in keys, k


@pytest.mark.parametrize("text", ["", "just words", "- a\n- b", ": :", "preset: [", "\x00"])
def test_config_garbage_is_a_problem_not_a_crash(text):
    cfg, problems = parse_config(text, "host")
    assert cfg is None and problems


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_config_loader_never_raises(text):
    cfg, problems = parse_config(text, "host")
    assert (cfg is None) == bool(problems)


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 50) | st.text(max_size=12)
    | st.sampled_from(["signup", "avalon", "resistance", "12h", "none", "by-side", "listed", "pm"]),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)
_KEYS = ["title", "preset", "players", "team_votes", "aliases", "thread", "subreddit", "leader_order",
         "seed", "deadlines", "missed", "min_players", "max_players", "roles", "lady_of_the_lake",
         "plot_cards", "mission_cards", "intro"]


@given(st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=10),
       st.sampled_from(["resistance", "resistance-plot", "so-say-we-all", "avalon", "avalon-2020"]))
@settings(max_examples=300, deadline=None)
def test_config_loader_on_structured_nonsense(doc, preset):
    """Right keys, wrong shapes: always problems named by key, or a valid config."""
    import yaml

    doc.setdefault("preset", preset)
    cfg, problems = parse_config(yaml.safe_dump(doc), "host")
    assert (cfg is None) == bool(problems)
    if cfg is not None:
        assert cfg.signup or 5 <= len(cfg.players) <= 10


def test_the_marks_render_uses_for_command_text_are_taken_out_of_what_players_type():
    from forumbot.parsing import normalize, parse_comment
    from forumbot.rules.commands import SAID_CLOSE, SAID_OPEN

    assert normalize(f"**{SAID_OPEN}APPROVE{SAID_CLOSE}**") == "**APPROVE**"
    assert [p.choice for p in parse_comment(f"**APP{SAID_OPEN}ROVE**")] == ["approve"]
