"""Tests with teeth for the parser (issue 22): what a player types in the thread or by PM,
through whole bot cycles on the local forum, and what the game and the bot's posts show.
Each test here fails with one of the parser mutants issue 22 found (or found since) applied
to forumbot/parsing.py: a game tag beside a command, a host command in the thread, the cap
of commands in one message, a module's suffix after a tagged PROPOSE, quotes and code."""
from __future__ import annotations

import re

import pytest

from adapters.local import LocalForum
from forumbot import store
from tests.fakes.driver import settle
from tests.fakes.table import LocalPeople, Table, excalibur_table


def said_to(t, author) -> list[str]:
    """What the bot has said to `author`: PMs to them, and thread replies naming them."""
    return t.people.pms_to(author) + [b for b in t.people.thread(t.game.thread) if b.startswith(f"@{author}:")]


def vote_row(t, name) -> str:
    """`name`'s vote in the last closed vote's table, as the thread shows it."""
    table = [b for b in t.people.thread(t.game.thread) if "| Player | Vote |" in b][-1]
    return re.search(rf"^\| {name} \| (\w+) \|$", table, re.M).group(1)


def close_the_vote(t, skip=()):
    t.vote_all(True, skip=skip)
    assert t.state.phase != "team_vote"


# --- a game tag beside a command ------------------------------------------------------


def test_a_game_tag_after_the_names_is_refused_as_a_name_not_taken_off(local_game):
    """The tag goes before the command (`G1 PROPOSE: ...`); typed after the names, it is
    read as one of them and refused: the bot must not guess which words were names."""
    t = local_game()
    tag = t.game.tag
    events, said = t.export()["events"], len(said_to(t, "alice"))
    t.say("alice", f"**PROPOSE: alice, bob {tag}**")
    t.cycle()
    new = said_to(t, "alice")[said:]
    assert len(new) == 1 and f"'{tag}' is not a player in this game" in new[0] and "Nothing was changed" in new[0]
    assert t.export()["events"] == events and t.state.phase == "proposal"
    t.say("alice", f"**{tag} PROPOSE: alice, bob**")  # the tag before the command routes it
    t.cycle()
    assert t.state.phase == "team_vote" and list(t.state.team) == ["alice", "bob"]


def test_a_host_command_in_the_thread_is_answered_by_pm_and_changes_nothing(local_game):
    t = local_game()
    t.propose()
    tag = t.game.tag
    events, said, posts = t.export()["events"], len(t.people.pms_to("host")), len(t.people.thread(t.game.thread))
    t.say("host", f"**CLOSE {tag}**")
    t.cycle()
    new = t.people.pms_to("host")[said:]
    assert len(new) == 1 and "host commands go by PM" in new[0] and f"**CLOSE {tag}**" in new[0], new
    assert t.export()["events"] == events and t.state.phase == "team_vote"
    assert len(t.people.thread(t.game.thread)) == posts + 1  # the host's own comment, no answer in public


# --- at most 20 commands in one message ------------------------------------------------


@pytest.mark.parametrize("via", ["thread", "pm"])
def test_the_twentieth_command_of_a_message_counts_and_the_twenty_first_does_not(local_game, via):
    """A message's commands count in order (the last vote wins), the first 20 only."""
    t = local_game()
    t.propose()

    def send(author, words):
        if via == "thread":
            t.say(author, " ".join(f"**{w}**" for w in words))
        else:
            t.pm(author, "\n".join(words))
    send("bob", ["APPROVE"] * 19 + ["REJECT"])  # the 20th: counted
    send("carol", ["APPROVE"] * 20 + ["REJECT"])  # the 21st: not read
    t.cycle()
    close_the_vote(t, skip=("bob", "carol"))
    assert (vote_row(t, "bob"), vote_row(t, "carol")) == ("REJECT", "APPROVE")
    assert t.export()["votes"][0]["votes"] == {"alice": "approve", "bob": "reject", "carol": "approve",
                                               "dave": "approve", "erin": "approve"}


# --- a module's suffix after a tagged PROPOSE ---------------------------------------------


@pytest.mark.parametrize("form", ["thread", "thread, tagged", "pm, tagged"])
def test_a_tagged_proposal_keeps_its_excalibur_holder_in_the_thread_as_by_pm(db, clock, form):
    """`**G1 PROPOSE: a, b; EXCALIBUR: b**` in the thread names the holder as the same
    words do untagged, or by PM (the tag taken off used to drop the module's part)."""
    t = excalibur_table(db, clock)
    s = t.state
    leader, tag = s.shown(s.leader), t.game.tag
    team = t.default_team()
    holder = next(n for n in team if n != leader)
    words = f"PROPOSE: {', '.join(team)}; EXCALIBUR: {holder}"
    said, posts = len(said_to(t, leader)), len(t.people.thread(t.game.thread))
    if form == "thread":
        t.say(leader, f"**{words}**")
    elif form == "thread, tagged":
        t.say(leader, f"**{tag} {words}**")
    else:
        t.pm(leader, f"{tag} {words}", subject="my team")
    settle(t, max_cycles=20)
    assert said_to(t, leader)[said:] == []  # no refusal
    assert t.state.phase == "team_vote" and list(t.state.team) == team
    given = [e["data"] for e in t.export()["events"] if e["type"] == "excalibur_given"]
    assert given == [{"holder": holder, "mission": 1, "proposal": 1}]
    public = "\n".join(t.people.thread(t.game.thread)[posts:])
    assert f"{leader} proposes **{', '.join(team)}** for mission 1." in public
    assert f"**{holder}** holds **Excalibur** for this team." in public


# --- what the markup around a command may be -----------------------------------------------


def test_a_bold_italic_vote_counts_as_the_word_inside(local_game):
    """`***APPROVE***` is bold and italic in Markdown: the vote, not a word with stars."""
    t = local_game()
    t.propose()
    said = len(said_to(t, "bob")), len(said_to(t, "carol"))
    t.say("bob", "***REJECT***")
    t.say("carol", "I say **REJECT*** and that is all")
    t.cycle()
    assert (len(said_to(t, "bob")), len(said_to(t, "carol"))) == said  # no "did you mean", no refusal
    close_the_vote(t, skip=("bob", "carol"))
    assert (vote_row(t, "bob"), vote_row(t, "carol")) == ("REJECT", "REJECT")


def test_a_pm_whose_lines_end_in_a_bare_carriage_return_reads_line_by_line(local_game):
    """Some mail clients end lines with CR alone: each line is still one command."""
    t = local_game()
    t.propose()
    t.pm("bob", "REJECT\rthanks, see you in the thread")
    t.pm("carol", f"{t.game.tag}\r\nREJECT\r\n")
    t.cycle()
    close_the_vote(t, skip=("bob", "carol"))
    assert (vote_row(t, "bob"), vote_row(t, "carol")) == ("REJECT", "REJECT")


def test_a_pm_vote_in_colour_italics_or_a_font_counts_as_the_word_inside(local_game):
    """Style tags a forum's editor writes around a PM's line (BBCode [color], [i], [size],
    HTML <em>, <span>) are no part of the command: each vote counts, and its sender is told
    so, with the word as it reads without them."""
    t = local_game()
    t.propose()
    said = {n: len(t.people.pms_to(n)) for n in ("bob", "carol", "dave")}
    t.pm("bob", "[color=red][i]REJECT[/i][/color]")
    t.pm("carol", "[size=150]REJECT[/size]")
    t.pm("dave", '<span style="color: red"><em>REJECT</em></span>')
    t.cycle()
    assert {n: t.state.votes.get(n) for n in said} == dict.fromkeys(said, "reject")
    for n in said:  # the answer: the vote recorded, as typed without its style
        (answer,) = t.people.pms_to(n)[said[n]:]
        assert answer.startswith("G1: your vote **REJECT** is recorded."), answer


def test_a_tag_longer_than_any_game_number_names_no_game(local_game):
    """G0000000001 is no way to write G1: ten digits name no game (none has that many)."""
    t = local_game()
    t.propose()
    events, said = t.export()["events"], len(t.people.pms_to("bob"))
    t.people.pm("bob", "G0000000001", "APPROVE")
    t.people.pm("bob", "G" + "9" * 25, "APPROVE")
    t.cycle()
    new = t.people.pms_to("bob")[said:]
    assert len(new) == 2 and all("You are not in a running game tagged" in m for m in new), new
    assert t.export()["events"] == events and t.state.votes == {}


def test_a_game_numbered_with_the_most_digits_a_tag_takes_is_named_by_its_tag(db, bot, clock):
    """A database whose games have reached nine-digit numbers (MAX_TAG_DIGITS): the game
    G123456789 is named by its tag, by PM and in the thread; only a longer tag names none."""
    from forumbot.parsing import MAX_TAG_DIGITS

    store.Game.create(id=123456788, forum="elsewhere", host="x", preset="resistance", config="{}", seed=1,
                      status="finished", created_at=store.naive(clock()))  # (the games before it)
    t = bot("local").table(5)
    assert t.game.tag == "G123456789" and len(t.game.tag) - 1 == MAX_TAG_DIGITS
    t.propose()
    t.pm("bob", "REJECT")  # (the subject is the game's tag)
    t.say("carol", "**G123456789 REJECT**")
    t.cycle()
    assert t.state.votes == {"bob": "reject", "carol": "reject"}
    assert not [m for m in t.people.pms_to("bob") if "You are not in a running game tagged" in m]


def test_quotes_and_code_inside_a_bold_vote_are_taken_out_and_the_vote_counts(local_game):
    """What is quoted or code inside a bold span is no part of it: the rest is the command."""
    t = local_game()
    t.propose()
    t.say("bob", "**REJECT `for G1`**")
    t.say("carol", "**REJECT<blockquote>the leader said so</blockquote>**")
    t.say("dave", "**REJECT\n    an indented line\n**")
    t.say("erin", "**REJECT\n> a quoted line\n**")
    t.pm("alice", "REJECT<blockquote>On Monday, forumbot wrote: vote now</blockquote>")
    t.cycle()
    assert t.state.phase != "team_vote"  # all five voted
    assert t.export()["votes"][0]["votes"] == dict.fromkeys(["alice", "bob", "carol", "dave", "erin"], "reject")


def test_a_lone_bold_marker_after_a_vote_leaves_the_vote_counted(local_game):
    """An opener with no closer (`2**10`, `__init`) is text: the scan goes on past it, and the
    message is read in bounded time (a scan stuck on it would be set aside: the vote lost)."""
    t = local_game()
    t.propose()
    t.say("bob", "**REJECT**, as 2**10 > 1000")
    t.say("carol", "**REJECT** and see __init for more")
    t.pm("dave", "REJECT\nsee __init or 2**10")
    t.cycle()
    close_the_vote(t, skip=("bob", "carol", "dave"))
    assert [vote_row(t, n) for n in ("bob", "carol", "dave")] == ["REJECT"] * 3


def test_a_new_process_reads_the_modules_words_and_suffixes_afresh(db, clock, monkeypatch):
    """The rule modules' command words and PROPOSE suffixes are learnt once a process (and
    cached): a bot started afresh reads EXCALIBUR in a proposal and as a command of its own."""
    from forumbot import parsing

    monkeypatch.setattr(parsing, "_WORDS", [])  # as in a process that has read nothing yet
    monkeypatch.setattr(parsing, "_SUFFIX", [])
    t = excalibur_table(db, clock)
    s = t.state
    leader, team = s.shown(s.leader), t.default_team()
    holder = next(n for n in team if n != leader)
    said = len(said_to(t, leader))
    t.say(leader, f"**PROPOSE: {', '.join(team)}; PUBLIC: {holder}**")  # PUBLIC: read (and refused on mission 1)
    settle(t, max_cycles=20)
    assert said_to(t, leader)[said:] == [f"@{leader}: G1: PUBLIC: is not part of mission 1 in this game. "
                                         f"The right form: **PROPOSE: {', '.join(team)}**"]
    t.say(leader, f"**PROPOSE: {', '.join(team)}; Excalibur: {holder}**")
    settle(t, max_cycles=20)
    assert t.state.phase == "team_vote" and list(t.state.team) == team
    given = [e["data"] for e in t.export()["events"] if e["type"] == "excalibur_given"]
    assert given == [{"holder": holder, "mission": 1, "proposal": 1}]
    other = next(n for n in t.players if n not in team)
    said = len(said_to(t, other))
    t.say(other, f"**EXCALIBUR: {leader}**")  # not the holder: the module's refusal, not "no command"
    settle(t, max_cycles=20)
    assert said_to(t, other)[said:] == [f"@{other}: G1: Excalibur is not in use now: its holder uses it once "
                                        "every order of an approved team is in."]


def test_a_team_starting_with_a_capital_x_keeps_its_first_letter(db, bot, clock):
    """Only spaces, full stops and colons are taken off the ends of a PROPOSE's names."""
    t = bot("local").table(["alice", "xu", "bob", "carol", "dave"])
    t.say("alice", "**PROPOSE: Xu, alice.**")
    t.cycle()
    assert t.state.phase == "team_vote" and list(t.state.team) == ["xu", "alice"]


# --- the card words in a game without cards, and names as players type them ----------------


def five_with_a_shared_prefix(db, clock) -> Table:
    forum = LocalForum(":memory:", clock=clock)
    return Table(forum, LocalPeople(forum), clock, players=["alice", "alina", "bob", "carol", "dave"]).start()


@pytest.mark.parametrize("typed, word", [
    ("TAKE No Confidence FROM carol", "TAKE"), ("PLAY No Confidence", "PLAY"),
    ("PLAY No Confidence -> carol", "PLAY"), ("PLAY Strong Leader to carol APPROVE", "PLAY"),
    ("GIVE No Confidence -> carol", "GIVE"), ("PROXY carol APPROVE", "PROXY"), ("CHOOSE carol", "CHOOSE"),
])
def test_a_card_word_in_a_game_without_cards_is_answered_as_that_word(db, clock, typed, word):
    """A card command (plot cards, mission cards) typed in a game that has none is read as
    that command and answered so, at once and once: not as talk, not as a message that fails."""
    t = five_with_a_shared_prefix(db, clock)
    events, posts = t.export()["events"], len(t.people.thread(t.game.thread))
    t.say("bob", f"**{typed}**")
    t.cycle()
    assert t.people.thread(t.game.thread)[posts:] == [
        f"**{typed}**", f"@bob: G1: {word} is not part of this game (The Resistance (official base game))."]
    assert t.people.pms_to("bob")[1:] == []  # no "could not handle your message", no hint
    assert t.export()["events"] == events and store.Inbound.select().where(store.Inbound.state != "done").count() == 0


def test_a_prefix_two_players_share_is_refused_naming_both(db, clock):
    t = five_with_a_shared_prefix(db, clock)
    t.say("alice", "**PROPOSE: ali, bob**")
    t.cycle()
    assert t.people.thread(t.game.thread)[-1] == (
        "@alice: 'ali' could be alice, alina: write more of the name. Nothing was changed. "
        "The right form: **PROPOSE: name, name**")
    assert t.state.phase == "proposal"
    t.say("alice", "**PROPOSE: alin, bob**")  # one more letter: one player
    t.cycle()
    assert t.state.phase == "team_vote" and list(t.state.team) == ["alina", "bob"]


@pytest.mark.parametrize("names", ["'alice' and bob!", '"alice", (bob)?', "@alice & u/bob;", "{alice}, «bob»."])
def test_names_in_quotes_brackets_or_punctuation_are_the_players(db, clock, names):
    t = five_with_a_shared_prefix(db, clock)
    said = len(said_to(t, "alice"))
    t.say("alice", f"**PROPOSE: {names}**")
    t.cycle()
    assert said_to(t, "alice")[said:] == []
    assert t.state.phase == "team_vote" and list(t.state.team) == ["alice", "bob"]


# What the parser hands on for each command: the verb, the names, the choice, the rest (the
# card as typed, PUBLIC's name, CRITICAL, a host command's arguments) and the text quoted back,
# the same in a thread's bold as in a PM's line.
COMMANDS = [
    ("APPROVE", ("vote", (), "approve", "")),
    ("vote: critical reject!", ("vote", (), "reject", "critical")),
    ("PASS", ("vote", (), "abstain", "pass")),
    ("ABSTAIN", ("vote", (), "abstain", "")),
    ("ORDER: fail", ("order", (), "sabotage", "")),
    ("support.", ("order", (), "support", "")),
    ("STATUS", ("status", (), "", "")),
    ("help?", ("help", (), "", "")),
    ("JOIN", ("join", (), "", "")),
    ("LEAVE!", ("leave", (), "", "")),
    ("ASSASSINATE: bob", ("assassinate", ("bob",), "", "")),
    ("shoot carol", ("assassinate", ("carol",), "", "")),
    ("PROPOSE: alice, bob and carol; PUBLIC: bob", ("propose", ("alice", "bob", "carol"), "", "bob")),
    ("TEAM alice & bob", ("propose", ("alice", "bob"), "", "")),
    ("PROPOSE:: alice and bob .", ("propose", ("alice", "bob"), "", "")),  # a stray colon or full stop is no name
    ("PROPOSE: alice, bob; EXCALIBUR: bob; PUBLIC: carol", ("propose", ("alice", "bob"), "", "carol"),
     (("excalibur", "bob"),)),
    ("PROPOSE: alice, bob; EXCALIBUR: bob; EXCALIBUR: carol", ("propose", ("alice", "bob"), "", ""),
     (("excalibur", "bob"), ("excalibur", "carol"))),  # in the order typed (the rules refuse the second)
    ("TAKE No Confidence FROM carol", ("take", ("carol",), "", "No Confidence")),
    ("take: no confidence from @Carol", ("take", ("@Carol",), "", "no confidence")),
    ("PLAY No Confidence", ("play", (), "", "No Confidence")),
    ("PLAY Strong Leader -> carol", ("play", ("carol",), "", "Strong Leader")),
    ("PLAY Opinion Maker to bob approve", ("play", ("bob",), "approve", "Opinion Maker")),
    ("play: Keeping Close Watch \u2192 dave REJECT", ("play", ("dave",), "reject", "Keeping Close Watch")),
    ("GIVE Strong Leader -> erin", ("give", ("erin",), "", "Strong Leader")),
    ("PROXY carol REJECT", ("proxy", ("carol",), "reject", "")),
    ("CHOOSE dave", ("choose", ("dave",), "", "")),
    ("EXTEND G12 6h", ("host:extend", (), "12", "6h")),
    ("REPLACE G3 alice WITH zed", ("host:replace", (), "3", "alice WITH zed")),
]


@pytest.mark.parametrize("typed, expected, more", [c if len(c) == 3 else (*c, ()) for c in COMMANDS])
def test_a_command_reads_as_typed_in_bold_and_by_pm(typed, expected, more):
    from forumbot.parsing import parse_comment, parse_pm

    def read(found):
        return [((p.verb, p.names, p.choice, p.extra), p.text, p.more) for p in found]

    assert read(parse_comment(f"I do this: **{typed}** now")) == [(expected, typed, more)]
    assert read(parse_pm(f"G1\n{typed}\nthanks")) == [(expected, typed, more)]
    if expected[0].startswith("host:"):  # a host command names its game itself: a tag beside it is no command
        assert parse_comment(f"**G1 {typed}**") == parse_pm(f"G1 {typed}") == []
    else:  # a tag before it names the game, and the text quoted back is all of it
        assert read(parse_comment(f"**G1 {typed}**")) == [(expected, f"G1 {typed}", more)]
        assert read(parse_pm(f"G1 {typed}")) == [(expected, typed, more)]  # (by PM: the line without its tag)


# --- the new-game config (re-exported here for the host's PM) ------------------------------


@pytest.mark.parametrize("key, line", [
    ("players", "players: [alice, bob, carol, dave, ForumBot]\n"),
    ("cohosts", "players: [alice, bob, carol, dave, erin]\ncohosts: ['u/forumbot']\n"),
])
def test_a_new_game_naming_the_bots_own_account_is_refused_to_the_host(db, clock, key, line):
    """A host's new-game config that names the bot's own account (as a player, or a cohost)
    starts no game: the bot would never read its own words as commands. The host is told
    which key, by PM; the same config without the bot starts the game."""
    forum = LocalForum(":memory:", clock=clock)
    people = LocalPeople(forum)
    t = Table(forum, people, clock)
    text = "title: Test game\npreset: resistance\nseed: 7\nsubreddit: resistancegames\n"
    people.pm("host", "new game", text + line)
    for _ in range(2):
        t.cycle()
    assert store.Game.select().count() == 0 and not forum.threads()
    told = people.pms_to("host")
    assert len(told) == 1 and told[0].startswith("No game was created."), told
    assert f"`{key}`: forumbot is the bot's own account" in told[0], told
    people.pm("host", "new game", text + "players: [alice, bob, carol, dave, erin]\n")
    for _ in range(2):
        t.cycle()
    assert store.Game.select().count() == 1 and len(forum.threads()) == 1


def test_a_host_command_naming_a_tag_too_long_repeats_it_cut_short(local_game):
    """A host's command by PM naming a tag longer than any game's number: no game is named,
    and the answer repeats the tag cut to the digits a tag can have, with an ellipsis, never
    the whole string the host typed."""
    t = local_game()
    n = len(t.people.pms_to("host"))
    t.people.pm("host", "extend", "EXTEND G12345678901234 1h")
    t.cycle()
    (answer,) = t.people.pms_to("host")[n:]
    assert "G123456789\u2026" in answer and "G1234567890" not in answer, answer
