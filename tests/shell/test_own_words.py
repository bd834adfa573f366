"""The players' own words (issue 24, item 1): the config's `words:` maps a host's words to a
command for that game. They count exactly as the built-in words do (the whole bold span or
the whole PM line, case and the punctuation around them ignored); check-config refuses a
word that is a player's name or alias, a built-in word, or one used twice; HELP, the
opening post's "How to play" and the prompts show them."""
import subprocess
import sys

import pytest

from adapters.local import LocalForum
from forumbot import store
from forumbot.config_sections import _BUILT_IN, _LEADING
from forumbot.gameconfig import parse_config
from forumbot.parsing import parse_command, parse_comment, parse_pm, word_table
from forumbot.shell.moderator import Moderator
from tests.fakes.table import LocalPeople

WORDS = 'words: {approve: [Yay, aye, "vote in favor"], reject: [nay, Deny], support: [win], abstain: [meh]}\n'
PLAYERS = "preset: resistance\nplayers: [alice, bob, carol, dave, erin]\naliases: {al: alice}\n"


def problems(extra):
    config, found = parse_config(PLAYERS + extra, "host")
    assert config is None
    return [str(p) for p in found]


# --- the config -------------------------------------------------------------------------

def test_the_config_keeps_the_words_and_a_game_stores_them():
    config, found = parse_config(PLAYERS + WORDS, "host")
    assert found == []
    assert config.words == {"approve": ("Yay", "aye", "vote in favor"), "reject": ("nay", "Deny"),
                            "support": ("win",), "abstain": ("meh",)}
    back = type(config).from_json(config.to_json())
    assert back == config
    bare, _ = parse_config(PLAYERS, "host")
    assert "words" not in bare.to_json()  # a game without words is stored as before


@pytest.mark.parametrize("extra, key, says", [
    ("words: {approve: [bob]}", "words.approve", "is the name of the player bob"),
    ("words: {approve: [AL]}", "words.approve", "is an alias of alice"),
    ("words: {approve: [reject]}", "words.approve", "is the built-in command REJECT; choose another word"),
    ("words: {reject: [fail]}", "words.reject", "is the built-in command SABOTAGE"),
    ("words: {approve: [Approve]}", "words.approve", "already counts as APPROVE: remove it"),
    ("words: {approve: [yay], reject: [YAY!]}", "words.reject", "is also a word for approve: a word may stand for one command only"),
    ("words: {approve: [yay, yay]}", "words.approve", "is listed twice"),
    ("words: {approve: [\"propose now\"]}", "words.approve", "is the built-in command PROPOSE"),
    ("words: {approve: [\"vote approve\"]}", "words.approve", "already counts as APPROVE"),
    ("words: {reject: [\"lady x\"]}", "words.reject", "is the built-in command LADY"),
    ("words: {approve: [G12]}", "words.approve", "looks like a game tag"),
    ("words: {approve: [\"[x](https://evil.example)\"]}", "words.approve", "is not a word"),
    ("words: {approve: [\"www.evil.example\"]}", "words.approve", "is not a word"),
    ("words: {approve: [\"u/victim\"]}", "words.approve", "is not a word"),
    ("words: {approve: [\"x\"]}\nwords_extra: 1", "words_extra", "is not a config key"),
    ("words: {vote: [yay]}", "words.vote", "is not a command that takes words of its own: one of approve, reject"),
    ("words: {join: [in]}", "words.join", "is only for sign-ups"),
    ("words: [yay, nay]", "words", "must map commands to lists of words, like {approve: [yay, aye]"),
    ("words: {approve: [a, b, c, d, e, f, g, h, i, j, k]}", "words.approve", "must be a list of 1 to 10 words"),
])
def test_check_config_refuses_a_word_that_would_mislead(extra, key, says):
    found = problems(extra)
    assert any(p.startswith(f"{key}: ") and says in p for p in found), found


def test_check_config_on_the_command_line_names_the_key_and_the_fix(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(PLAYERS + "words: {approve: [yay, bob], reject: [yay, approve]}\n")
    r = subprocess.run([sys.executable, "-m", "forumbot", "check-config", str(bad)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode != 0
    assert "3 problems" in r.stdout, r.stdout
    for said in ("words.approve: `bob` is the name of the player bob", "words.reject: `yay` is also a word for approve",
                 "words.reject: `approve` is the built-in command APPROVE"):
        assert said in r.stdout, r.stdout


def test_the_built_in_words_the_config_refuses_are_the_parsers():
    """check-config cannot ask the parser (a layer above it): its table is held to it here."""
    for word in _BUILT_IN:
        assert parse_command(word) is not None, word
    for first in _LEADING:
        assert any(parse_command(f"{first} {rest}") is not None
                   for rest in ("alice APPROVE", "alice", "card -> alice", "APPROVE", "SUPPORT", "card FROM alice")), first
    for word in ("yay", "nay", "vote in favor", "/in", "aye", "deny", "meh", "win", "IN!"):
        assert parse_command(word) is None, word


# --- reading them ---------------------------------------------------------------------------

def test_a_word_counts_as_a_whole_span_or_a_whole_line_case_and_punctuation_ignored():
    config, _ = parse_config(PLAYERS + WORDS, "host")
    table = word_table(config.words)
    said = [(p.verb, p.choice) for p in parse_comment(
        "**YAY!**\n**(nay)**\n**VOTE: aye**\n**G1 deny**\n**Vote   In  Favor.**\n**meh**", table)]
    assert said == [("vote", "approve"), ("vote", "reject"), ("vote", "approve"), ("vote", "reject"),
                    ("vote", "approve"), ("vote", "abstain")]
    assert [(p.verb, p.choice) for p in parse_pm("win\nG1 yay", table)] == [("order", "support"), ("vote", "approve")]
    # not the whole span: talk; not in bold: talk; quoted: someone else's
    assert parse_comment("**yay for this team**\nyay\n> **yay**\n`**nay**`", table) == []
    assert parse_comment("**win**", {}) == []  # another game's words count nowhere else


@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_votes_and_orders_in_the_hosts_words_count_in_the_thread_and_by_pm(table):
    t = table(extra=WORDS)
    t.propose()
    t.say("dave", "**Yay!**")
    t.say("erin", "I'm out: **VOTE: nay**")
    t.pm("carol", "vote in favor")
    t.say("bob", "**Deny.**")
    t.cycle()
    assert t.state.votes == {"dave": "approve", "erin": "reject", "carol": "approve", "bob": "reject"}
    assert "your vote **APPROVE** is recorded" in t.people.pms_to("carol")[-1]
    t.say("alice", "**aye**, sure")  # (Discourse refuses a post under 8 characters)
    t.cycle()
    assert t.state.phase == "mission"
    for who in t.state.team:
        t.pm(t.state.shown(who), "win")
    t.cycle()
    assert t.state.mission == 2 and t.state.phase == "proposal"  # every order in: SUPPORT


def test_a_pm_for_two_games_whose_words_differ_is_read_by_neither_without_a_tag(db, clock):
    forum = LocalForum(":memory:", clock=clock)
    people = LocalPeople(forum)
    mod = Moderator(forum, clock=clock)
    for words in ("words: {approve: [yes]}", "words: {reject: [yes]}"):
        people.pm("host", "new game", PLAYERS.replace("aliases: {al: alice}\n", "") + "leader_order: listed\n" + words)
        mod.cycle()
    mod.cycle()
    games = list(store.Game.select().order_by(store.Game.id))
    assert len(games) == 2
    for g in games:
        people.comment("alice", g.thread, "**PROPOSE: alice, bob**")
    mod.cycle()
    people.pm("dave", "vote", "yes")
    people.pm("erin", f"{games[1].tag}", "yes")
    mod.cycle()
    states = [mod.state(g) for g in games]
    assert "dave" not in states[0].votes and "dave" not in states[1].votes
    assert "erin" not in states[0].votes and states[1].votes.get("erin") == "reject"


def test_sign_ups_take_the_hosts_join_words(db, clock):
    forum = LocalForum(":memory:", clock=clock)
    people = LocalPeople(forum)
    mod = Moderator(forum, clock=clock)
    people.pm("host", "new game", "preset: resistance\nleader_order: listed\nplayers: signup\nmin_players: 5\n"
                                  "max_players: 6\nwords: {join: [in, /join], leave: [out]}\n")
    mod.cycle()
    mod.cycle()
    game = store.Game.select().order_by(store.Game.id.desc()).first()
    top = forum.threads()[0]["body"]
    assert "comment **JOIN** (or **in**, **/join**)" in top and "**LEAVE** (or **out**)" in top
    for name, word in (("zoe", "**/in**"), ("yan", "**IN!**"), ("xu", "**/join**"), ("wes", "[b]in[/b]"),
                       ("vic", "**JOIN**"), ("zoe", "**Out.**")):
        forum.comment(name, game.thread, word)
    mod.cycle()
    assert "4 joined" in forum.threads()[0]["body"] and "yan, xu, wes, vic" in forum.threads()[0]["body"]


# --- where they are shown ---------------------------------------------------------------------

def test_the_opening_post_help_and_the_prompts_show_the_hosts_words(local_game):
    t = local_game(extra=WORDS)
    opening = t.forum.threads()[0]["body"]
    how = opening[opening.index("**How to play**"):]
    assert ("Everyone votes **APPROVE** (or **Yay**, **aye**, **vote in favor**) or **REJECT** (or **nay**, "
            "**Deny**), or **ABSTAIN** (or **meh**) to abstain") in how
    assert "PM the bot **SUPPORT** (or **win**) or **SABOTAGE**" in how
    t.propose()
    assert "vote **APPROVE** (or **Yay**, **aye**, **vote in favor**) or **REJECT** (or **nay**, **Deny**)" \
        in t.people.thread(t.game.thread)[-1]
    t.pm("dave", "HELP")
    t.cycle()
    assert "**APPROVE** (or **Yay**, **aye**, **vote in favor**) or **REJECT**" in t.people.pms_to("dave")[-1]
    t.vote_all(True)
    member = t.state.shown(t.state.team[0])
    assert "with **SUPPORT** (or **win**) or **SABOTAGE** by" in t.people.pms_to(member)[-1]
    t.pm(member, "HELP")
    t.cycle()
    assert "send SUPPORT (or **win**)" in t.people.pms_to(member)[-1]


def test_without_words_the_texts_are_as_before(local_game):
    t = local_game()
    how = t.forum.threads()[0]["body"]
    assert "Everyone votes **APPROVE** or **REJECT** in a bold comment here" in how
    t.propose()
    assert "Everyone: vote **APPROVE** or **REJECT** in a bold comment" in t.people.thread(t.game.thread)[-1]
