"""Hostile inputs for the whole-cycle fuzzer (tests/sweeps/test_hostile_cycle.py), and its oracle
of what a Markdown text shows live. Every poison planted carries a token (TOKENS) that nothing
the bot says of its own contains, so that a live fragment holding one came from a player."""
from __future__ import annotations

import re

from hypothesis import strategies as st

from tests.support.secrecy import ROLE_WORDS

HOST, STRANGERS = "hosty", ["mallory", "Zed_99"]

# --- the oracle: what of a Markdown text is live ------------------------------------

_CODE = re.compile(r"```.*?```|~~~.*?~~~|(`+)(?!`).*?(?<!`)\1(?!`)|^(?: {4}|\t).*$", re.S | re.M)
_LIVE = [
    ("image", re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")),
    ("link", re.compile(r"(?<!\\)\[[^\]\n]*(?<!\\)\]\([^)\n]*\)")),
    ("reflink", re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*\S+", re.M)),
    ("url", re.compile(r"(?<![\w/\\])(?:https?://|www\.)[^\s<>()]+", re.I)),
    ("mention", re.compile(r"(?<![\w\\/])(?:/?u/|@)[A-Za-z0-9_-]{3,}")),
    ("heading", re.compile(r"^ {0,3}#{1,6}(?:[ \t]+\S.*)?$", re.M)),
    ("spoiler", re.compile(r">!.*?!<", re.S)),
    ("html", re.compile(r"<(?:[A-Za-z][A-Za-z0-9-]*|/[A-Za-z][A-Za-z0-9-]*)(?=[\s/>])[^>\n]*>?")),
    ("bbcode", re.compile(r"\[(?:url|img|quote|spoiler|color|size)[=\]][^\n]*", re.I)),
]


def live_fragments(text: str) -> list[tuple[str, str]]:
    """(kind, fragment) of every piece of Markdown in `text` that a reader would see live
    (outside code spans and code blocks): links, images, bare URLs, u/ and @ mentions,
    headings, >!spoilers!<, HTML tags, BBCode tags. A backslash before `[` makes a link inert."""
    bare = _CODE.sub(lambda m: " " * len(m.group(0)), text or "")
    return [(kind, m.group(0)) for kind, rx in _LIVE for m in rx.finditer(bare)]


# --- hostile inputs -------------------------------------------------------------------

# Each poison carries a token that nothing the bot says of its own contains.
POISON = ["[click me](https://evil.example/phish)", "![pic](https://evil.example/i.png)",
          "https://evil.example/raw", "u/victimz", "@victimz", "\n# HEADZ shouting\n", ">!SPOILZ!<",
          "<script>alert('XSSZ')</script>", "<img src=x onerror=XSSZ>", "[url=https://evil.example]b[/url]",
          "[img]https://evil.example/b.png[/img]", "[](#fb-dead0000beef0000)", "[x][evilref]\n\n[evilref]: https://evil.example",
          "&#x3C;script&#x3E;XSSZ", "\u202e" + "https://evil.example"]
TOKENS = ["evil.example", "victimz", "HEADZ", "SPOILZ", "XSSZ", "dead0000beef0000", "evilref"]
VERBS = ["APPROVE", "REJECT", "SUPPORT", "SABOTAGE", "PASS", "ABSTAIN", "JOIN", "LEAVE", "STATUS", "HELP",
         "CLOSE", "EXTEND", "PAUSE", "RESUME", "ABORT", "SKIP", "RECORD", "PROPOSE:", "ASSASSINATE:", "LADY:",
         "REPLACE", "DISQUALIFY", "PLAY:", "GIVE:", "CHOOSE:", "CRITICAL APPROVE", "EXCALIBUR:"]
WRAPS = ["**{}**", "__{}__", "[b]{}[/b]", "<b>{}</b>", "<strong>{}</strong>", "{}", "> **{}**", "`**{}**`",
         "**{}", "***{}***", "** {} **", "**G1 {}**", "**{} G1**", "||{}||", ">!**{}**!<"]
NAME_POOL = ["approve", "PROPOSE", "u_alice", "_-_", "G12", "hosty_", "fb-0123", "AbC", "x" * 20, "0-0",
             "mallory_", "Ok_Go", "null", "None", "__init__", "-rf", "012", "on", "0x1F"]
_NAME = st.from_regex(r"[A-Za-z0-9_-]{3,20}", fullmatch=True)
RESERVED = {HOST.lower(), "forumbot", *(s.lower() for s in STRANGERS)}


def _legal(name: str) -> bool:
    return name.lower() not in RESERVED and not re.fullmatch(ROLE_WORDS, name, re.I)


names_st = st.lists(st.sampled_from(NAME_POOL) | _NAME, min_size=5, max_size=5,
                    unique_by=str.lower).filter(lambda ns: all(map(_legal, ns)))

unicode_noise = st.text(st.characters(codec=None, exclude_categories=("Cs",)), max_size=60) | st.text(
    st.characters(categories=("Zs", "Cf", "Mn", "Me", "Cc", "Co", "So", "Lo", "Nd", "Sk")), max_size=30)


@st.composite
def hostile_text(draw, names: list[str]) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["command", "poison", "noise", "names", "long", "marker"]))
        if kind == "command":
            verb = draw(st.sampled_from(VERBS))
            if verb.endswith(":"):
                verb += " " + ", ".join(draw(st.lists(st.sampled_from(names + ["nobody", "[x](https://evil.example)"])
                                                      | unicode_noise, max_size=6)))
            parts.append(draw(st.sampled_from(WRAPS)).format(verb))
        elif kind == "poison":
            parts.append(draw(st.sampled_from(WRAPS)).format(draw(st.sampled_from(POISON))))
        elif kind == "names":
            n = draw(st.sampled_from(names))
            parts.append(draw(st.sampled_from([f"**PROPOSE: {n}, [{n}](https://evil.example)**", f"**{n}**",
                                               "**LADY: u/victimz**", "**ASSASSINATE: @victimz**",
                                               f"**PROPOSE: {n.upper()}, {n}\u200b, {n}**"])))
        elif kind == "long":
            parts.append(draw(st.sampled_from(POISON + ["**APPROVE** ", "blah ", "\u0301"])) * draw(st.integers(50, 2500)))
        elif kind == "marker":
            parts.append(draw(st.sampled_from(["[](#fb-dead0000beef0000)", "^(bot) [](#fb-dead0000beef0000)",
                                               "**Mission 1 FAILED**", "&#8203;**APPROVE**", "\x00\x1b[31m"])))
        else:
            parts.append(draw(unicode_noise))
    return draw(st.sampled_from(["\n", " ", "\n\n"])).join(parts)


_NUMBERS = st.sampled_from([0, -1, 1, 2**63, 2**63 - 1, 10**40, -(10**30), 1e308, float("inf"), float("nan"),
                            "9999999d", "99999999999999999999s", "0s", "-5m", "1e9h", "none", "", "00:00", "25:99"])


@st.composite
def hostile_config(draw, names: list[str]) -> str:
    """A `new game` body: YAML with huge and tiny numbers, anchors, duplicate keys, markup in
    values, odd keys; sometimes a config that would start a game."""
    players = draw(st.sampled_from([names, names[:3], ["signup"], "signup", names * 3,
                                    names + ["[x](https://evil.example)"], []]))
    lines = [f"title: {draw(st.sampled_from(['Hostile game', 'x' * 400, '', '&a Game', '{}']))}",
             f"preset: {draw(st.sampled_from(['resistance', 'avalon', 'Avalon', 'so-say-we-all', 'nope', '[]']))}",
             f"players: {players if isinstance(players, str) else '[' + ', '.join(players) + ']'}"]
    for _ in range(draw(st.integers(0, 6))):
        key = draw(st.sampled_from(["seed", "deadlines", "min_players", "max_players", "aliases", "missed",
                                    "players", "preset", "intro", "team_votes", "timezone", "unknown_key_" * 20,
                                    "cohosts", "reserves", "thread"]))
        value = draw(_NUMBERS)
        if key == "deadlines":
            value = "{" + ", ".join(f"{k}: {draw(_NUMBERS)}" for k in
                                    draw(st.lists(st.sampled_from(["proposal", "team_vote", "mission", "choice",
                                                                   "card_window", "remind_before", "signup",
                                                                   "align_to", "close_grace"]), max_size=4))) + "}"
        elif key == "aliases":
            value = "{" + ", ".join(f"a{i}: {draw(st.sampled_from(names))}" for i in range(draw(st.integers(0, 90)))) + "}"
        elif key == "intro":
            value = "|\n  " + draw(st.sampled_from(["Welcome!", "x" * 12000, "line\n  " * 50]))
        lines.append(f"{key}: {value}")
    if draw(st.booleans()):  # anchors and aliases: a bomb, or one innocent-looking alias
        depth = draw(st.integers(1, 7))
        lines.insert(0, "a0: &a0 [x, x, x, x, x, x, x, x, x]")
        for i in range(1, depth):
            lines.insert(i, f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
        lines.append(f"intro: *a{depth - 1}")
    text = "\n".join(lines)
    return draw(st.sampled_from(["{}", "```yaml\n{}\n```", "Hi bot, my game:\n\n{}", "{}\n" + "#" * 3000]))\
        .format(text)


HOST_COMMANDS = ["EXTEND {tag} {num}", "PAUSE {tag} UNTIL {when}", "PAUSE {tag}", "RESUME {tag}", "CLOSE {tag}",
                 "SKIP {tag}", "REPLACE {tag} {name} WITH {other}", "DISQUALIFY {tag} {name}", "ABORT {tag}",
                 "RECORD {tag} {name} {word}", "RECORD {tag} {name} PROPOSE: {name}, {other}", "STATUS {tag}",
                 "SIGNUPS {tag} CLOSE", "EXTEND {tag} {num} {num}", "HELP"]


@st.composite
def host_command(draw, tag: str, names: list[str]) -> str:
    """A host command with hostile arguments: absurd durations and dates, names that are
    links, mentions, strangers or the host."""
    other = st.sampled_from(names + STRANGERS + [HOST, "[x](https://evil.example)", "u/victimz", "@victimz",
                                                 "forumbot", "x" * 300, "Zed_99\u200b"])
    text = draw(st.sampled_from(HOST_COMMANDS)).format(
        tag=draw(st.sampled_from([tag, "G999", "G0", "G" + "9" * 30])), num=draw(_NUMBERS),
        when=draw(st.sampled_from(["9999-12-31 23:59", "0001-01-01 00:00", "2026-13-45 99:99", "2026-12-01 21:00",
                                   "2038-01-19 03:14", "tomorrow", ""])),
        name=draw(st.sampled_from(names)), other=draw(other),
        word=draw(st.sampled_from(["APPROVE", "SABOTAGE", "SUPPORT", "[x](https://evil.example)", "PASS"])))
    return draw(st.sampled_from(WRAPS[:6])).format(text)


# --- the players' own words (issue 24): `words:` configs and near-miss bold spans -------------

WORD_COMMANDS = ["approve", "reject", "abstain", "support", "sabotage", "join", "leave", "vote", "propose", "",
                 "[x](https://evil.example)", "APPROVE"]
_WORD_POOL = ["yay", "nay", "aye", "vote in favor", "/in", "IN!", "approve", "REJECT", "pass", "G1", "g12 yay",
              "propose now", "lady x", "u/victimz", "@victimz", "[x](https://evil.example)", "www.evil.example",
              "**bold**", "# HEADZ", ">!SPOILZ!<", "<b>x</b>", "\u0430pprove", "yay\u200b", "\u202eyay", "",
              " ", "x" * 60, "1e9", "null", "true", "- a", "_x_", "`code`", "\\", "'quote'"]
OWN_WORDS = {"approve": ["yay", "vote in favor"], "reject": ["nay", "deny"], "support": ["succeed"],
             "sabotage": ["betray"]}
OWN_WORDS_CONFIG = ('words: {approve: [yay, "vote in favor"], reject: [nay, deny], support: [succeed], '
                    'sabotage: [betray]}\n')


@st.composite
def hostile_words(draw, names: list[str]) -> str:
    """A `words:` value: commands that take words and some that do not, words that are names,
    built-in words, links, look-alikes, game tags, huge lists and odd YAML types."""
    shape = draw(st.sampled_from(["map", "map", "map", "list", "scalar", "nested", "huge"]))
    word = st.sampled_from(_WORD_POOL + names) | unicode_noise
    if shape == "list":
        return "[yay, nay]"
    if shape == "scalar":
        return draw(st.sampled_from(["yay", "12", "null", "{}", "''"]))
    if shape == "huge":
        return "{approve: [" + ", ".join(f"w{i}" for i in range(draw(st.integers(11, 500)))) + "]}"
    entries = []
    for _ in range(draw(st.integers(1, 6))):
        key = draw(st.sampled_from(WORD_COMMANDS))
        words = draw(st.lists(word, max_size=12))
        value = "[" + ", ".join(_yaml_str(w) for w in words) + "]"
        if shape == "nested":
            value = "{" + value + ": x}" if draw(st.booleans()) else "[" + value + "]"
        entries.append(f"{_yaml_str(key)}: {value}")
    return "{" + ", ".join(entries) + "}"


def _yaml_str(text: str) -> str:
    """`text` as a double-quoted YAML string (any character, escaped)."""
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\U{ord(c):08x}" for c in text) + '"'


_MISSES = ["**APROVE**", "**Approve this team**", "**I vote approve**", "**\u0410PPROVE**", "APPROVE", "*Reject*",
           "[color=red]APPROVE[/color]", "<i>reject</i>", "## vote: yay", "**I vote yay**", "**Vote in favour**",
           "yay", "**nay from me**", "SABOTAJE", "suport", "betray it", "**Proposal: {a}, {b}**", "**{a} and {b}**",
           "PROPOSE: {a}, {b}", "**{a}, {b}, [x](https://evil.example)**", "**{a} \u0410PPROVE**",
           "**yay** **nay** **APROVE**", "**this is sus**", "**approve or reject?**", "**don't vote yay**",
           "**yay [x](https://evil.example)**", "**APROVE u/victimz**", "**Aprove @victimz**", "yay\n" * 40,
           "**APROVE**" * 200, ">!**APROVE**!<", "**\u202eAPROVE**", "**APROVE\u0301\u0301\u0301**"]


@st.composite
def near_miss_text(draw, names: list[str]) -> str:
    """A comment or PM that is almost a command (or plain talk beside one), with the host's
    own words among them, names from the table, and poison."""
    a, b = draw(st.permutations(names))[:2]
    parts = [draw(st.sampled_from(_MISSES)).format(a=a, b=b) for _ in range(draw(st.integers(1, 3)))]
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(POISON)))
    return draw(st.sampled_from(["\n", " ", "\n\n"])).join(parts)
