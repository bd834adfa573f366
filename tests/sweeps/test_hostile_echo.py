"""Issue 21 item 7: what a player typed never becomes live in the bot's voice.

`live_fragments(text, markup)` is the oracle (reusable by the fuzzers): the live constructs a
forum would render in `text` outside code spans (Reddit's Markdown, Discourse's Markdown with
its HTML, BBCode, @mentions, #hashtags and bare URLs), plus anything shaped like the bot's
invisible markers anywhere. `hostile_player_text()` is the hypothesis strategy of what a
hostile player types. The tests send such text through the whole cycle on the fake Reddit,
the fake Discourse and the local forum, and assert every bot post that repeats it is inert."""
from __future__ import annotations

import re
from importlib.util import find_spec

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot import store
from forumbot.render import render_refusal
from forumbot.render import replies as words
from forumbot.render.markup import NAME_LIMIT, BBCode, Markdown, heard, shown_as_text
from forumbot.rules.commands import SAID_CLOSE, SAID_OPEN, Refusal
from tests.fakes.table import NAMES

# --- the oracle ---------------------------------------------------------------------------

# (CommonMark: a backtick fence's info string holds no backtick, or the line is no fence.)
_FENCE = re.compile(r"^ {0,3}(`{3,}(?=[^`]*$)|~{3,})")
_TLDS = "com|net|org|info|io|co|me|gg|xyz|app|dev|ly|us|uk|de|ru|biz|tv|cc|ws|link|site|online|club"
# Inline constructs, looked for in the text outside code spans.
_INLINE = {
    "image": r"!\[",
    "link": r"\][ \t]*[(\[]",  # [x](u), [x][ref], [x] (u) (Reddit's old renderer allows the space)
    "autolink or HTML": r"<[A-Za-z!?/]|<[^\s<>@]+@[^\s<>@]+>",
    # (`www.` after `_` too: linkifiers take `_www.evil.com_` as a link; linear: no run is read twice)
    "URL": r"(?i)(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:/|(?<![a-z0-9])www\.|\bmailto:",
    "domain": rf"(?i)[a-z0-9-]\.(?:{_TLDS})\b",
    "email": r"(?<=[\w.+-])@[\w-]+\.\w",
    "mention": r"(?<![\w@/`])@[A-Za-z0-9_][\w.-]*|(?<![\w/])/?[ur]/[A-Za-z0-9_-]+",
    "hashtag": r"(?<![\w&#/])#[A-Za-z][\w-]*",
    "spoiler": r">!|!<|\[/?spoiler",
    "BBCode": r"(?i)\[/?(?:url|img|quote|spoiler|details|email|code|b|i|u|s|size|color|font|list|table|tr|td|th|"
              r"hr|left|center|right|ul|ol|li|youtube|video|audio|attachment|poll|date|wrap)\b[^\]\n]*\]",
}
# Block constructs: a line's start decides them before any code span does.
_BLOCK = {
    "heading": r"^ {0,3}#",
    "setext heading": r"^ {0,3}(?:=+|-{2,})[ \t]*$",
    "table": r"^(?=.*\|)[ \t|:-]*-[ \t|:-]*$",  # a delimiter row
    "HTML block": r"^ {0,3}<",
    "link definition": r"^ {0,3}\[[^\]\n]+\]:",
    "BBCode block": r"(?i)^\s*\[/?(?:quote|details|spoiler|code)",
}
# The bot's markers (Reddit `[](#fb-...)`, Discourse `<!-- fb:... -->`): anywhere, code spans
# too, since the adapters look for them in the raw text.
_MARKER = re.compile(r"(?i)#\s*fb-|<!--|fb:[0-9a-f]{8}")
_BB_BOT_TAGS = re.compile(r"(?i)\[/?(?:b|i|size(?:=\d+)?|font(?:=monospace)?|table|tr|th|td|list|\*|hr)\]")


def _code_spans_out(line: str) -> str:
    """`line` with its code spans (CommonMark: a run of n backticks to the next run of exactly
    n, not opened by an escaped backtick) replaced by a space. A span is taken within one line
    only: across lines the oracle looks at more text, never less."""
    out, i = [], 0
    while i < len(line):
        if line[i] == "`" and not _escaped(line, i):
            n = len(line[i:]) - len(line[i:].lstrip("`"))
            close = re.compile(r"(?<!`)" + "`" * n + r"(?!`)")
            m = close.search(line, i + n)
            if m:
                out.append(" ")
                i = m.end()
                continue
            out.append("`" * n)
            i += n
            continue
        out.append(line[i])
        i += 1
    return "".join(out)


def _escaped(s: str, i: int) -> bool:
    n = 0
    while i - n - 1 >= 0 and s[i - n - 1] == "\\":
        n += 1
    return n % 2 == 1


def live_fragments(text: str, markup: str = "markdown") -> list[str]:
    """The live constructs in `text` as the forum would render it (see the module's doc), each
    as `kind: fragment`. Empty: the text is inert."""
    found = [f"marker: {m.group(0)}" for m in _MARKER.finditer(text)]
    if markup == "bbcode":
        rest = _BB_BOT_TAGS.sub(" ", text)
        for kind in ("autolink or HTML", "URL", "BBCode", "image", "spoiler"):
            found += [f"{kind}: {m.group(0)}" for m in re.finditer(_INLINE[kind], rest)]
        found += [f"mention: {m.group(0)}" for m in re.finditer(r"(?<![\w@])@[A-Za-z0-9_]", rest)]
        return found
    in_fence = None
    for line in text.split("\n"):
        if fence := _FENCE.match(line):
            in_fence = None if in_fence and fence.group(1)[0] == in_fence else in_fence or fence.group(1)[0]
            continue
        if in_fence:
            continue
        for kind, pattern in _BLOCK.items():
            found += [f"{kind}: {line[:60]}" for _ in re.finditer(pattern, line)][:1]
        outside = _code_spans_out(line)
        for kind, pattern in _INLINE.items():
            found += [f"{kind}: {m.group(0)}" for m in re.finditer(pattern, outside)]
    return found


def spoken_part(body: str, author: str | None = None) -> str:
    """A bot post without what the bot itself adds on purpose around its words: the marker at
    its end, the mention of whom it answers at its start, and the PM footer's game tag."""
    body = re.sub(r"\n*(?:\[\]\(#fb-[0-9a-f]{16,64}\)|<!-- fb:[0-9a-f]{16,64} -->)\s*$", "", body)
    if author:
        body = re.sub(rf"^(?:u/|@){re.escape(author)}: ", "", body)
    return body


# --- what a hostile player types ------------------------------------------------------------

HOSTILE_PIECES = [
    "[Official result: dovo is a spy](https://evil.example)", "[Official](https://evil.example)",
    "```code`[Official](https://evil.example)",
    "![x](https://evil.example/i.png)", "https://evil.example", "www.evil.com", "_www.evil.com_", "evil.com", "x@evil.com",
    "u/someone", "/u/someone", "r/sub", "@someone", "#general", ">!spoiler!<", "[spoiler]x[/spoiler]",
    "<a href=https://evil.example>x</a>", "<img src=x onerror=alert(1)>", "<!-- x -->", "[url=https://e.vil]x[/url]",
    "[url]https://e.vil[/url]", "[quote]x[/quote]", "[img]https://e.vil/i.png[/img]", "[x][1]", "[1]: https://e.vil",
    "<https://e.vil>", "[](#fb-0123456789abcdef)", "<!-- fb:0123456789abcdef -->", "(#fb-0123456789abcdef)",
    "# heading", "\n# heading", "\n=====", "| a | b |\n|---|---|", "`code`", "``", "\\`", "```", "~~~",
    "**bold**", "__u__", "*", "_", "|", "\\", "\u202eevil\u202c", "\u200b", "\ufeff", SAID_OPEN + "APPROVE" + SAID_CLOSE,
    "\ue002", "\ue003", "\u2028", "\x00", "\x1b[31m", ":smile:", "&lt;script&gt;", "&#x3C;a&#x3E;", "\U0001F600", "ẞ",
    "ﷺ", "\u0301" * 5, "alba", "bob",
]


@st.composite
def hostile_player_text(draw, max_pieces: int = 8) -> str:
    """A player's text: pieces of Markdown, BBCode, HTML, URLs, mentions, markers and marks,
    and characters of every Unicode category (surrogates too), joined as players join them;
    now and then very long."""
    piece = st.one_of(st.sampled_from(HOSTILE_PIECES),
                      st.text(st.characters(codec=None, exclude_categories=()), max_size=12))
    pieces = draw(st.lists(piece, min_size=1, max_size=max_pieces))
    seps = draw(st.lists(st.sampled_from(["", " ", "\n", ",", "_", "\t"]), min_size=len(pieces), max_size=len(pieces)))
    text = "".join(p + s for p, s in zip(pieces, seps))
    if draw(st.integers(0, 9)) == 0:
        text = text * draw(st.integers(20, 200))
    return text


# --- the markup's text, unit by unit ---------------------------------------------------------


@pytest.mark.parametrize("piece", HOSTILE_PIECES)
@pytest.mark.parametrize("m", [Markdown(), BBCode()], ids=["markdown", "bbcode"])
def test_hostile_echo_each_piece_is_text_in_each_markup(piece, m):
    shown = m.text(piece)
    assert not live_fragments(shown, m.name), shown
    assert "\n" not in shown and len(shown) <= NAME_LIMIT + 2
    assert SAID_OPEN not in shown and "\ue002" not in shown


@pytest.mark.parametrize("name", ["alice", "bob_", "x-y", "Bob_99", "a_b_c", "-x", "Strong Leader", "EXCALIBUR: bob",
                                  "Hi, I'll be away this weekend, sorry!"])
def test_hostile_echo_plain_names_are_shown_as_before(name):
    for m in (Markdown(), BBCode()):
        assert m.text(name) == name and heard(name) == name
    assert words.no_such_player(name) == f"'{name}' is not a player in this game."


def test_hostile_echo_the_visible_text_survives():
    shown = Markdown().text("[Official result: dovo is a spy](https://evil.example)")
    assert shown.startswith("`") and shown.endswith("`") and "https://evil.example" in shown
    assert Markdown().text("x" * 500).endswith("\u2026`") and len(Markdown().text("x" * 500)) == NAME_LIMIT + 2
    assert Markdown().text("a\n# heading") == "`a # heading`"


@settings(max_examples=100, deadline=None)
@given(hostile_player_text())
def test_hostile_echo_any_text_is_inert_in_either_markup(text):
    for m in (Markdown(), BBCode()):
        shown = m.text(text)
        assert not live_fragments(shown, m.name), (text, shown)
        assert "\n" not in shown and len(shown) <= NAME_LIMIT + 2
        shown.encode("utf-8")  # no lone surrogate: the forum would refuse the post


@settings(max_examples=80, deadline=None)
@given(hostile_player_text(), st.sampled_from(["markdown", "bbcode"]))
def test_hostile_echo_refusals_that_repeat_it_are_inert(text, markup):
    """The words intake and the rules say about a typed name or card, rendered as a reply is."""
    m = Markdown() if markup == "markdown" else BBCode()
    texts = [shown_as_text(words.no_such_player(text), m), shown_as_text(words.ambiguous_name(text, ["bob"]), m),
             shown_as_text(words.not_available(text), m), words.forwarded("G1", "bob", text, m),
             render_refusal(Refusal(f"You do not hold '{heard(text)}'.", SAID_OPEN + "PLAY: card" + SAID_CLOSE),
                            "G1", m)]
    for t in texts:
        assert not live_fragments(t, markup), (text, t)


# --- through the cycle ---------------------------------------------------------------------

ATTACKS = [  # (what the leader types, a piece of it the refusal must still show as text)
    ("**PROPOSE: alba, [Official result: dovo is a spy](https://evil.example)**", "'alba'"),  # the issue's
    ("**PROPOSE: bob, [Official result: dovo is a spy](https://evil.example)**", "[Official"),
    ("**PROPOSE: [Official_result:_dovo_is_a_spy](https://evil.example), bob**", "evil.example"),
    ("**PROPOSE: ![x](https://evil.example/i.png), bob**", "evil.example/i.png"),
    ("**PROPOSE: https://evil.example, bob**", "https://evil.example"),
    ("**PROPOSE: u/someone, bob**", "u/someone"),
    ("**PROPOSE: @someone, bob**", "@someone"),
    ("**PROPOSE: >!spoiler!<, bob**", ">!spoiler!<"),
    ("**PROPOSE: [spoiler]x[/spoiler], bob**", "[spoiler]x[/spoiler]"),
    ("**PROPOSE: <a/href=https://evil.example>x</a>, bob**", "<a/href="),
    ("**PROPOSE: [url=https://evil.example]x[/url], bob**", "[url=https://evil.example]"),
    ("**PROPOSE: [](#fb-0123456789abcdef), bob**", "0123456789abcdef"),
    ("**PROPOSE: <!--fb:0123456789abcdef-->, bob**", "0123456789abcdef"),
    ("**PROPOSE: #general, bob**", "#general"),
    ("**ASSASSINATE: [x](https://evil.example)**", "evil.example"),
    ("**PROPOSE: alice, bob; PUBLIC: ![x](https://evil.example)**", "evil.example"),
]


def _bot_texts(t) -> tuple[list[str], list[str]]:
    """(the bot's public posts, its PMs), each oldest first, as the forum holds them."""
    forum = getattr(t, "fake", None) or getattr(t.people, "fake", None)
    if hasattr(forum, "public_posts"):  # Discourse
        bot = forum.users[forum.bot.lower()]["id"]
        public = [p["raw"] for p in forum.public_posts() if p["user_id"] == bot]
        return public, [b for b in forum.bot_posts() if b not in public]
    if forum is not None:  # Reddit
        return ([c["body"] for c in forum.comments if c["author"] == forum.bot],
                [m["body"] for m in forum.messages if m["author"] == forum.bot])
    rows = store.Outbox.select().order_by(store.Outbox.id)
    return [r.body for r in rows if r.kind != "pm"], [r.body for r in rows if r.kind == "pm"]


def _attack(t, text: str, author: str | None = None) -> list[str]:
    """The leader (or `author`) posts `text`; the bot's new posts and PMs (as the forum holds them).
    (A lone surrogate becomes U+FFFD: the local forum's SQLite cannot store one.)"""
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    t.clock.advance(seconds=700)  # past the flood guard of the answers before
    public, pms = _bot_texts(t)
    t.say(author or t.state.shown(t.state.leader), text)
    t.cycle()
    public_now, pms_now = _bot_texts(t)
    return public_now[len(public):] + pms_now[len(pms):]


def _check(t, attack: str, piece: str) -> None:
    leader = t.state.shown(t.state.leader)
    new = _attack(t, attack)
    assert new, f"no answer to {attack!r}"
    for body in new:
        assert body.count("fb-") + body.count("fb:") == 1, body  # the bot's own marker only
        words_ = spoken_part(body, leader)
        assert not live_fragments(words_), (attack, body)
    assert any(piece in b for b in new), (piece, new)


@pytest.mark.parametrize("forum", ["reddit", "discourse"])
def test_hostile_echo_refusals_show_player_text_as_text(forum, request):
    """Each attack of ATTACKS, posted by the leader on the fake Reddit and the fake Discourse:
    an answer, which still shows what was typed, with nothing live in it."""
    t = request.getfixturevalue("reddit_table" if forum == "reddit" else "dtable")()
    for attack, piece in ATTACKS:
        _check(t, attack, piece)


@pytest.fixture
def local_table(db, bot):
    def make(players=NAMES[:5], **kw):
        return bot("local").table(players, **kw)
    return make


def test_hostile_echo_a_forwarded_pm_reaches_the_host_as_text(local_table):
    t = local_table(extra="forward_pms: true\n")
    body = ("Hi host!\n# Official result\n[dovo is a spy](https://evil.example) ![x](https://e.vil/i.png)\n"
            "@everyone u/someone >!psst!< [quote]x[/quote] <b>hi</b> https://evil.example [](#fb-0123456789abcdef)")
    t.people.pm("bob", "question", body)
    t.cycle()
    fwd = t.people.pms_to("host")[-1]
    assert "bob" in fwd and "dovo is a spy" in fwd and "Official result" in fwd
    assert not live_fragments(fwd), fwd


def test_hostile_echo_a_card_the_rules_repeat_is_text(local_table):
    """Plot Cards: the leader GIVEs a card the rules do not find, and the rules' refusal repeats
    what was typed (intake marks it heard(); render_refusal shows it as text)."""
    t = local_table(players=NAMES[:7], preset="resistance-plot")
    giver = t.state.shown(t.state.actors[0])
    for card, piece in (("[x](https://evil.example)", "https://evil.example"), ("evil.com", "evil.com"),
                        ("@everyone", "@everyone")):
        new = _attack(t, f"**GIVE: {card} -> bob**", giver)
        assert any("not one of the cards" in b and piece in b for b in new), new
        for body in new:
            assert not live_fragments(spoken_part(body, giver)), body


def test_hostile_echo_any_command_text_gets_an_inert_answer(local_table):
    """Whatever the leader types in a bold command: the cycle does not fail, and every post or
    PM the bot makes about it is inert."""
    t = local_table()

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(text=hostile_player_text(max_pieces=5),
           verb=st.sampled_from(["PROPOSE: {}, bob", "ASSASSINATE: {}", "PROPOSE: alice, bob; PUBLIC: {}",
                                 "GIVE: {} -> bob", "PLAY: {}", "{}"]))
    def one(text, verb):
        leader = t.state.shown(t.state.leader)  # (who is answered: the leader may change meanwhile)
        new = _attack(t, "**" + verb.format(text) + "**", leader)
        answered.append(bool(new))
        for body in new:
            assert not live_fragments(spoken_part(body, leader)), (text, body)
    answered: list[bool] = []
    one()
    assert any(answered), "the bot answered none of them: the test would prove nothing"


# --- the oracle against a real renderer ----------------------------------------------------

# markdown-it-py with linkify-it-py (`pip install "markdown-it-py[linkify]"`): where it is not
# installed, the cross-checks are skipped and the oracle stands alone.
HAS_MARKDOWN_IT = find_spec("markdown_it") is not None and find_spec("linkify_it") is not None
needs_markdown_it = pytest.mark.skipif(not HAS_MARKDOWN_IT, reason="markdown-it-py[linkify] is not installed")
_LIVE_TOKENS = {"link_open", "image", "heading_open", "html_inline", "html_block", "table_open", "lheading_open"}


def _markdown_it_live(text: str) -> list[str]:
    """What markdown-it (the renderer Discourse is built on: CommonMark, tables, bare URLs
    linked) makes live in `text`: links, images, headings, HTML, tables."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"linkify": True}).enable(["linkify", "table"])
    out = []
    for tok in md.parse(text[:2000]):  # (its bare-URL finder is slow on long runs of URLs)
        for t in [tok, *(tok.children or [])]:
            if t.type in _LIVE_TOKENS:
                out.append(t.type)
    return out


@needs_markdown_it
@pytest.mark.parametrize("piece", HOSTILE_PIECES)
def test_hostile_echo_the_oracle_sees_what_markdown_it_renders(piece):
    """The oracle is sound where a real renderer can judge: whatever markdown-it makes live in
    a raw piece, `live_fragments` reports too; and the markup's text of it is inert for both."""
    for text in (piece, f"u/alice: '{piece}' is not a player in this game."):
        if _markdown_it_live(text):
            assert live_fragments(text), text
    shown = f"u/alice: '{Markdown().text(piece)}' is not a player in this game."
    assert not _markdown_it_live(shown) and not live_fragments(spoken_part(shown, "alice")), shown


@needs_markdown_it
@settings(max_examples=60, deadline=None)
@given(hostile_player_text())
def test_hostile_echo_markdown_it_finds_nothing_live_in_any_text(text):
    shown = f"{Markdown().text(text)} is not available in this game."
    assert not _markdown_it_live(shown), (text, shown)
    if _markdown_it_live(text):
        assert live_fragments(text), text


@pytest.mark.long
@settings(max_examples=3000, deadline=None)
@given(hostile_player_text(max_pieces=16))
def test_hostile_echo_long_any_text_is_inert(text):
    """`make test-long`: the markup's text, many more texts, checked by the oracle and (where
    it is installed) by markdown-it."""
    for m in (Markdown(), BBCode()):
        shown = m.text(text)
        assert not live_fragments(shown, m.name) and "\n" not in shown, (text, shown)
    if HAS_MARKDOWN_IT:
        assert not _markdown_it_live(f"u/alice: '{Markdown().text(text)}' is not a player in this game."), text


@pytest.mark.long
def test_hostile_echo_long_any_command_text_gets_an_inert_answer(local_table):
    t = local_table()

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(text=hostile_player_text(max_pieces=10),
           verb=st.sampled_from(["PROPOSE: {}, bob", "ASSASSINATE: {}", "PROPOSE: alice, bob; PUBLIC: {}",
                                 "GIVE: {} -> bob", "PLAY: {}", "{}", "PROPOSE: {}"]))
    def one(text, verb):
        leader = t.state.shown(t.state.leader)
        for body in _attack(t, "**" + verb.format(text) + "**", leader):
            assert not live_fragments(spoken_part(body, leader)), (text, body)
    one()
