"""A hostile fuzzer of our own (issue 21, item 13a): whole bot cycles on the local forum and
SQLite, fed hypothesis-made hostile comments and PMs from players, strangers and the host
(`new game` configs too), with player names that are legal usernames. After every cycle:

- nothing escaped the cycle, and no message was set aside or failed to be handled (every
  one is answered or deliberately ignored: `done`, never `error`, never a retry);
- each cycle took less than BUDGET seconds of CPU, each message less than MESSAGE_BUDGET
  (the worst of each is printed);
- no outbox key was posted twice, and no two posts in one cycle say the same to the same
  place (PMs: not more than the messages their recipient sent in that cycle);
- no public bot post puts a player beside their hidden role or side before the end, and
  no word of a PM (a token planted in each) ever appears in public;
- no public bot post carries a live link, image, mention, heading, spoiler, HTML tag or
  marker taken from player text (`live_fragments`, against the poison tokens planted).

The CI sample is small; `@pytest.mark.long` runs many more examples. A failing example
prints its draws: the messages as they were sent, round by round. Defects found and not
fixed yet are excused narrowly (KNOWN_*), each with an xfail reproducer at the end.
"""
from __future__ import annotations

import logging
import re
import tempfile
import time
from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from adapters.local import LocalForum
from forumbot import store
from forumbot.config_sections import _BUILT_IN
from forumbot.config_values import word_key
from forumbot.gameconfig import parse_config
from forumbot.parsing import parse_command
from tests.conftest import _reset
from tests.fakes.bots import make_bot
from tests.fakes.clock import Clock
from tests.fakes.table import Table, config_text
from tests.fuzz.hostile import (
    HOST,
    OWN_WORDS_CONFIG,
    POISON,
    STRANGERS,
    TOKENS,
    host_command,
    hostile_config,
    hostile_text,
    hostile_words,
    live_fragments,
    names_st,
    near_miss_text,
)
from tests.support.secrecy import ROLE_WORDS

BUDGET = 5.0  # seconds of CPU a cycle may take, whatever it was fed
MESSAGE_BUDGET = 2.0  # seconds of CPU one message may take (issue 21, item 4)
WORST: dict[str, float] = {"cycle": 0.0, "message": 0.0}
# A failing example prints every draw (the messages, as sent); shrinking a whole game takes minutes.
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)

def test_live_fragments_finds_what_is_live_and_only_that():
    assert live_fragments("see [x](https://evil.example/a) now") == [
        ("link", "[x](https://evil.example/a)"), ("url", "https://evil.example/a")]
    assert [k for k, _ in live_fragments("![i](http://evil.example/i.png)")] == ["image", "link", "url"]
    assert live_fragments("# Head\nhi u/victimz and @victimz") == [
        ("mention", "u/victimz"), ("mention", "@victimz"), ("heading", "# Head")]
    assert live_fragments("a >!secret!< b <script>x</script>")[0] == ("spoiler", ">!secret!<")
    assert ("html", "<script>") in live_fragments("<script>x</script>")
    assert live_fragments("[](#fb-dead0000beef0000)") == [("link", "[](#fb-dead0000beef0000)")]
    # inert: code, escapes, plain words
    assert live_fragments("`[x](https://evil.example)` and\n\n    # not a heading") == []
    assert live_fragments(r"\[x\](https://evil.example) \# no") == [("url", "https://evil.example")]
    assert live_fragments("a #hashtag, 3 # 4, mail me: a @ b") == []


def test_role_leaks_catches_a_player_beside_their_role(local_game):
    t = local_game()
    spy = t.spies()[0]
    loyal = next(x.name for x in t.state.active() if x.side != "spies")
    assert role_leaks(t, [f"Mission 1: the team failed.\nWe all know {spy} is a spy."]) != []
    assert role_leaks(t, [f"{loyal} is one of the resistance"]) != []
    assert role_leaks(t, [f"**Leader order**: {spy}, {loyal}", f"{spy} proposed a team.", "the spies win"]) == []


# Defects found by this fuzzer and not fixed yet, each with its reproducer test below
# (xfail): the property excuses exactly these, so that it keeps guarding everything else.
# D5: a command that changes nothing is recorded again and told again: the leader proposing
#     the team already proposed ("changes the proposal to" the same team, in public), a PM
#     voting APPROVE twice ("your vote APPROVE is recorded" twice).
KNOWN_REPROPOSE = True  # False once D5 is fixed


# --- the table and the checks ---------------------------------------------------------


def bot_public(forum: LocalForum) -> list[str]:
    """Every public text the bot wrote: its threads' opening posts, and its comments."""
    texts = [r["body"] for r in forum.threads() if r["author"] == forum.bot_name]
    for th in forum.threads():
        texts += [r["body"] for r in forum.thread_comments(f"t{th['id']}") if r["author"] == forum.bot_name]
    return texts


def all_public(forum: LocalForum) -> list[str]:
    texts = [r["body"] for r in forum.threads()] + [r["title"] for r in forum.threads()]
    for th in forum.threads():
        texts += [r["body"] for r in forum.thread_comments(f"t{th['id']}")]
    return texts


def role_leaks(t: Table, texts: list[str]) -> list[str]:
    """Lines of public bot posts before the end post that put a player beside a word of their
    own hidden role or side (the oracle of tests/sweeps/test_secrecy.py, held to true roles)."""
    s = t.state
    if not s.running:
        return []
    leaks = []
    for seat in s.active():
        name = seat.name
        for w in {w for w in (seat.role, seat.side) if re.fullmatch(ROLE_WORDS, w, re.I)}:
            near = rf"\b{re.escape(name)}\b[^.\n]{{0,30}}\b{w}\b|\b{w}\b[^.\n]{{0,30}}\b{re.escape(name)}\b"
            for text in texts:
                for line in text.split("\n"):
                    if line.startswith(("**Leader order**", "**Roles in play**")):
                        continue
                    if re.search(near, line, re.I):
                        leaks.append(f"{name} ({w}): {line[:200]}")
    return leaks


class Hostile:
    """One example: a started game, and the checks after each cycle."""

    def __init__(self, names: list[str], preset: str, tmp: str, extra: str = ""):
        _reset(f"sqlite:///{tmp}/bot.db")
        self.clock = Clock()
        self.t = make_bot("local", self.clock).table(names, start=False)
        self.forum = self.t.forum
        # The names quoted: unquoted, YAML reads `null`, `yes` or `012` as no string (D4, below).
        quoted = ", ".join(f"'{n}'" for n in names)
        self.forum.send_pm(HOST, self.forum.bot_name, "new game",
                           config_text(names, preset=preset, extra=extra).replace(", ".join(names), quoted))
        self.t.cycle()
        self.t.cycle()
        game = store.Game.select().order_by(store.Game.id.desc()).first()
        assert game is not None and game.host == HOST, f"no game was created: {self.forum.messages_to(HOST)}"
        self.t.game_id = game.id
        mod = self.t.mod
        handle = mod.inbox.handle

        def timed(row) -> None:  # each message's own CPU time, whatever its handling did
            start = time.process_time()
            try:
                handle(row)
            finally:
                took = time.process_time() - start
                WORST["message"] = max(WORST["message"], took)
                if took >= MESSAGE_BUDGET:
                    self.slow.append(f"{row.ext_id} took {took:.2f}s of CPU: {row.body[:200]!r}")
        self.slow: list[str] = []
        mod.inbox.handle = timed  # (the ingest calls the inbox's `handle` for each message)
        self.pm_tokens: list[str] = []
        self.sent: Counter = Counter()  # who sent how many messages in this cycle
        self.cycles = 0

    def pm(self, author: str, subject: str, body: str) -> None:
        token = f"pmsecret{len(self.pm_tokens)}q"
        self.pm_tokens.append(token)
        self.forum.send_pm(author, self.forum.bot_name, subject, f"{body}\n{token}")
        self.sent[author] += 1

    def config(self, author: str, body: str) -> None:
        self.forum.send_pm(author, self.forum.bot_name, "new game", body)
        self.sent[author] += 1

    def comment(self, author: str, body: str) -> None:
        self.forum.comment(author, self.t.game.thread, body)
        self.sent[author] += 1

    def cycle(self) -> None:
        before = {r.id for r in store.Outbox.select(store.Outbox.id).where(store.Outbox.state == "posted")}
        start = time.process_time()
        report = self.t.cycle()
        took = time.process_time() - start
        self.cycles += 1
        WORST["cycle"] = max(WORST["cycle"], took)
        assert took < BUDGET, f"a cycle took {took:.2f}s of CPU"
        assert not self.slow, f"messages over their budget: {self.slow}"
        assert not [e for e in report.errors if e.startswith("database")], report.errors
        failed = [(r.ext_id, r.author, r.state, r.tries, r.note[:300]) for r in
                  store.Inbound.select().where((store.Inbound.state == "error") | (store.Inbound.tries > 0))]
        assert not failed, f"messages that raised or were set aside: {failed}"
        new = [r for r in store.Outbox.select().where(store.Outbox.state == "posted") if r.id not in before]
        self._twice(new)
        self.sent.clear()

    def _twice(self, new) -> None:
        keys = self.forum.keys_posted()
        assert not [k for k, n in Counter(keys).items() if n > 1], "an outbox key was posted twice"
        public = Counter((r.kind, r.thread, r.reply_to, r.body) for r in new if r.kind != "pm"
                         and not (KNOWN_REPROPOSE and " changes the proposal to " in r.body))
        assert not [k for k, n in public.items() if n > 1], f"the same public post twice in a cycle: {public}"
        pms = Counter((r.to, r.body) for r in new if r.kind == "pm"
                      and not (KNOWN_REPROPOSE and re.search(r"your (vote|order) \*\*\w+\*\* is recorded", r.body)))
        twice = [(to, body[:120]) for (to, body), n in pms.items() if n > max(1, self.sent.get(to, 0))]
        assert not twice, f"the same PM more often than its recipient wrote: {twice}"

    def check_public(self) -> None:
        texts = bot_public(self.forum)
        live = [(kind, frag) for text in texts for kind, frag in live_fragments(text)
                if any(tok.lower() in frag.lower() for tok in TOKENS)]
        assert not live, f"player text live in a bot post: {live[:5]}"
        public = "\n".join(all_public(self.forum))
        leaked = [tok for tok in self.pm_tokens if tok in public]
        assert not leaked, f"words of a PM in public: {leaked}"
        assert not role_leaks(self.t, texts), role_leaks(self.t, texts)


@st.composite
def a_message(draw, h: Hostile):
    s = h.t.state
    names = [x.name for x in s.active()] if s.running else list(h.t.players)
    who = draw(st.sampled_from(["player", "player", "leader", "stranger", "host"]))
    author = {"player": draw(st.sampled_from(names)), "leader": s.shown(s.leader) if s.running and s.leader else names[0],
              "stranger": draw(st.sampled_from(STRANGERS)), "host": HOST}[who]
    where = draw(st.sampled_from(["comment", "comment", "pm", "config"] if who != "player" else ["comment", "pm"]))
    if where == "config":
        return author, where, "", draw(hostile_config(names))
    if who == "leader" and s.running and s.phase == "proposal" and draw(st.booleans()):
        team = draw(st.permutations(names))[: s.team_size()]
        body = "**PROPOSE: " + ", ".join(team) + "**"
        return author, "comment", "", body + draw(st.sampled_from(["", " " + POISON[0], "\n" + POISON[5]]))
    if who == "host" and draw(st.booleans()):
        return author, where if where != "config" else "pm", h.t.game.tag, draw(host_command(h.t.game.tag, names))
    subject = draw(st.sampled_from([h.t.game.tag, "new game", "", "Re: " + h.t.game.tag, "[x](https://evil.example)"]))
    return author, where, subject, draw(hostile_text(names))


class Tracebacks(logging.Handler):
    """What the bot logged with a traceback (a message whose handling raised, a cycle's bug)."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.seen: list[str] = []

    def emit(self, record):
        if record.exc_info:
            self.seen.append(f"{record.getMessage()}: {record.exc_info[1]!r}")


def play_hostile(data, names: list[str], preset: str) -> None:
    logs = Tracebacks()
    logging.getLogger("forumbot").addHandler(logs)
    with tempfile.TemporaryDirectory() as tmp:
        h = Hostile(names, preset, tmp)
        try:
            for _ in range(data.draw(st.integers(1, 4), label="rounds")):
                for author, where, subject, body in data.draw(st.lists(a_message(h), min_size=1, max_size=5)):
                    if where == "comment":
                        h.comment(author, body)
                    elif where == "config":
                        h.config(author, body)
                    else:
                        h.pm(author, subject, body)
                h.cycle()
                h.cycle()  # what the first cycle queued behind a budget
                h.check_public()
                seen = logs.seen
                assert not seen, f"the bot logged tracebacks: {seen[:3]}"
                h.clock.advance(hours=data.draw(st.sampled_from([0, 0, 1, 25, 49]), label="hours"))
        finally:
            store.close()
            logging.getLogger("forumbot").removeHandler(logs)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None,
          phases=NO_SHRINK)
@given(data=st.data(), names=names_st, preset=st.sampled_from(["resistance", "avalon"]))
def test_hostile_inputs_through_whole_cycles(data, names, preset):
    play_hostile(data, names, preset)


@pytest.mark.long
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck), database=None,
          phases=NO_SHRINK)
@given(data=st.data(), names=names_st, preset=st.sampled_from(["resistance", "avalon", "so-say-we-all"]))
def test_hostile_inputs_through_whole_cycles_long(data, names, preset):
    play_hostile(data, names, preset)


def teardown_module(module):
    print(f"\nhostile cycle: the worst cycle took {WORST['cycle'] * 1000:.0f} ms of CPU, "
          f"the worst message {WORST['message'] * 1000:.0f} ms")


# --- the defects this fuzzer found, as reproducers (xfail until they are fixed) --------


def test_a_message_with_several_refused_commands_gets_one_answer(local_game):
    t = local_game()
    t.say("mallory", "**LADY: bob**\n\n**PROPOSE: alice, bob**\n\n**APPROVE**")
    t.pm("alice", "**APPROVE**\n__APPROVE__")  # no vote is open: refused twice
    t.cycle()
    replies = [b for b in t.people.thread(t.game.thread) if b.startswith("@mallory:")]
    assert len(replies) == 1, replies
    assert len([b for b in t.people.pms_to("alice") if "No team vote is open" in b]) == 1


@pytest.mark.parametrize("words", ["STATUS G99999999999999999999", "CLOSE G9223372036854775808",
                                   "STATUS G" + "9" * 5000])
def test_a_huge_game_tag_is_answered_not_set_aside(local_game, words):
    t = local_game()
    t.people.pm("host", "G1", words)
    t.cycle()
    failed = [(r.ext_id, r.note) for r in store.Inbound.select().where(
        (store.Inbound.state == "error") | (store.Inbound.tries > 0))]
    assert failed == []
    assert "There is no game G9" in t.people.pms_to("host")[-1]  # as for `STATUS G999`


@pytest.mark.parametrize("name", ["012", "0x1F", "1_000", "null", "yes", "on"])
def test_a_player_name_yaml_reads_as_no_string_is_never_seated_as_another(name):
    """Legal usernames that YAML 1.1 reads as a number, a boolean or null: the bot must seat
    that very user or refuse with a word about quoting, never seat `10`, `True` or `None`."""
    config, problems = parse_config(f"preset: resistance\nplayers: [alice, bob, carol, dave, {name}]\n", HOST)
    if config is not None:
        assert config.players[-1] == name
    else:
        assert any("quote" in p.message for p in problems), problems


@pytest.mark.xfail(strict=True, reason="D5 (issue 21, item 13 report): the same proposal announced again")
def test_proposing_the_same_team_again_posts_nothing_new(local_game):
    t = local_game()
    leader = t.state.shown(t.state.leader)
    for body in ["**PROPOSE: alice, bob**", "**PROPOSE: carol, dave**", "**PROPOSE: carol, dave**"]:
        t.say(leader, body)
    t.cycle()
    changed = [b for b in t.people.thread(t.game.thread) if "changes the proposal to **carol, dave**" in b]
    assert len(changed) == 1, changed


@pytest.mark.xfail(strict=True, reason="D5 (issue 21, item 13 report): the same vote acknowledged again")
def test_voting_the_same_twice_in_one_pm_is_acknowledged_once(local_game):
    t = local_game()
    t.propose()
    t.pm("bob", "APPROVE\nAPPROVE")
    t.cycle()
    assert t.state.phase == "team_vote"
    assert len([b for b in t.people.pms_to("bob") if "your vote **APPROVE** is recorded" in b]) == 1


@pytest.mark.parametrize("words", ["EXTEND G1 9999999d", "EXTEND G1 99999999999999999999s"])
def test_an_absurd_extend_is_answered_with_its_bound(local_game, words):
    """D3: an EXTEND past the bound names the bound (the same 30 days as a config's deadlines)."""
    t = local_game()
    before = t.game.next_deadline
    t.people.pm("host", "G1", words)
    t.cycle()
    assert "at most 30d" in t.people.pms_to("host")[-1]
    assert t.game.next_deadline == before


# --- the players' own words (issue 24) ---------------------------------------------------------
# The hostile fuzzer (tests/test_hostile_cycle.py) for the players' own words (issue 24):
# `words:` configs made by hypothesis (names, built-in words, links, look-alikes, huge lists,
# odd YAML), and near-miss bold spans through whole cycles of a game whose host set `words:`.
# The invariants: no traceback, bounded time, nothing secret in public, nothing twice.

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
