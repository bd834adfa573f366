"""Text -> commands. Bold spans in thread comments (Markdown, BBCode, HTML), one command a
line in PMs. Quotes and code never count. Pure: no game state beyond the names passed in.
(The config message, YAML, is read in `gameconfig`.)"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace

from .config_values import VOTE_WORD_COMMANDS, WORD_COMMANDS, word_key
from .rules.commands import SAID_CLOSE, SAID_OPEN
from .rules.hooks import plugin_classes
from .rules.plugin import Parsed

# --- cleaning ------------------------------------------------------------------------

# Invisible characters, and the bidirectional controls that make text read backwards
# (they could make a refusal that quotes a name look like something else).
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u200f"
                                     "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
                                     + SAID_OPEN + SAID_CLOSE), None)  # (said(): render's marks)

_FENCE = re.compile(r"^[ \t]*(```|~~~).*?(^[ \t]*\1[ \t]*$|\Z)", re.S | re.M)
_INDENTED_CODE = re.compile(r"^(?: {4}|\t).*$", re.M)
_INLINE_CODE = re.compile(r"`+[^`\n]*`+")
# A line that starts with `>` is a quote, unless the `>` opens a Reddit spoiler (`>!text!<`,
# closed on the same line): a spoiler is the player's own text.
_MD_QUOTE = re.compile(r"^[ \t]*(?:>|&gt;)(?!!.*?!(?:<|&lt;)).*$", re.M)
# The innermost quote (no other quote opens inside it), taken out again and again: a quote
# inside a quote (Discourse nests them) must not end the outer one early.
# (A tag's attributes are bounded and never given back, here and below: an unclosed
# `[quote=` or `<b ` repeated would make every one of them scan to the end of the text.)
_BB_QUOTE = re.compile(r"\[quote(?:=[^\]]{0,200}+)?\](?:(?!\[quote(?:=[^\]]{0,200}+)?\]).)*?(\[/quote\]|\Z)",
                       re.S | re.I)
MAX_QUOTE_DEPTH = 20
_BB_CODE = re.compile(r"\[code[^\]]{0,200}+\].*?(\[/code\]|\Z)", re.S | re.I)
_HTML_QUOTE = re.compile(r"<blockquote[^>]{0,200}+>(?:(?!<blockquote[^>]{0,200}+>).)*?(</blockquote>|\Z)",
                         re.S | re.I)  # (innermost first, as _BB_QUOTE: Discourse takes HTML quotes too)
_HTML_CODE = re.compile(r"<(pre|code)[^>]{0,200}+>.*?(</\1>|\Z)", re.S | re.I)
_STYLE_TAGS = re.compile(
    r"\[/?(?:color|colour|size|font|i|u|s)(?:=[^\]]{0,200}+)?\]|</?(?:span|font|em|i|u|s)(?:\s[^>]{0,200}+)?>",
    re.I,
)
# Bold in the markups: (opener, closer, the least content). A pair is an opener and the
# nearest closer of its kind after it, leftmost first, as the regex alternation
# `\*\*(.+?)\*\*|(?<!\w)__(.+?)__(?!\w)|\[b\](.*?)\[/b\]|<b ...>(.*?)</b>` reads them (`_pairs`).
_BOLD_KINDS = (
    (re.compile(r"\*\*"), re.compile(r"\*\*"), 1),
    (re.compile(r"(?<![\w])__"), re.compile(r"__(?![\w])"), 1),
    (re.compile(r"\[b\]", re.I), re.compile(r"\[/b\]", re.I), 0),
    (re.compile(r"<(?:b|strong)(?:\s[^>]{0,200}+)?>", re.I), re.compile(r"</(?:b|strong)>", re.I), 0),
)
_UNDERSCORE_KIND = _BOLD_KINDS[1:2]
_BOLD_OPEN = re.compile(r"\*\*|__|\[b\]|<(?:b|strong)", re.I)
# Bounded so that an enormous comment costs bounded work.
MAX_TEXT = 20_000
MAX_COMMANDS = 20
MAX_SUFFIXES = 8  # `; PUBLIC: x` and the modules' suffixes after one PROPOSE


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text[:MAX_TEXT]).translate(_ZERO_WIDTH)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def strip_quotes_and_code(text: str) -> str:
    for pattern in (_FENCE, _BB_QUOTE, _BB_CODE, _HTML_QUOTE, _HTML_CODE):
        for _ in range(MAX_QUOTE_DEPTH if pattern in (_BB_QUOTE, _HTML_QUOTE) else 1):
            text, n = pattern.subn("\n", text)
            if not n:
                break
    text = _INDENTED_CODE.sub("", text)
    text = _MD_QUOTE.sub("", text)
    return _INLINE_CODE.sub(" ", text)


def bold_spans(text: str) -> list[str]:
    """The bold spans that count, in order, from any of the three markups."""
    text = _STYLE_TAGS.sub("", strip_quotes_and_code(normalize(text)))
    spans = []
    for start, end in _pairs(text, _BOLD_KINDS):
        span = " ".join(text[start:end].replace("*", " ").split())
        if span:
            spans.append(span)
    return spans


def _pairs(text: str, kinds: tuple) -> Iterator[tuple[int, int]]:
    """Where the content of each pair of `kinds` starts and ends, left to right. Not one
    regex: a regex tries each opener that has no closer against the whole rest of the text
    (3 s for 20,000 characters of `[b]`); here a closer not found is not looked for again."""
    none_after = [len(text) + 1] * len(kinds)  # no closer of kind k starts at or after this
    pos = 0
    while m := _BOLD_OPEN.search(text, pos):
        pos = m.start() + 1
        for k, (opener, closer, least) in enumerate(kinds):
            if (o := opener.match(text, m.start())) is None or o.end() + least >= none_after[k]:
                continue
            if (c := closer.search(text, o.end() + least)) is None:
                none_after[k] = o.end() + least
                continue
            yield o.end(), c.start()
            pos = c.end()
            break


_HAS_BOLD = re.compile(r"\*\*|(?<![\w])__|\[/?b\]|</?(?:b|strong)\b", re.I)
_LINE_MARKS = re.compile(r"^(?:#{1,6}\s*|[-+*]\s+|\d{1,3}[.)]\s+)*")
MAX_PLAIN_LINE = 200  # a longer line is talk, whatever it holds


def plain_lines(text: str) -> list[str]:
    """The lines of a thread comment outside bold, quotes and code, without their colour,
    italics, heading or list marks: where a command written without bold would be
    (`*APPROVE*`, `[color=red]APPROVE[/color]`, `## vote: yay`). A line with bold in it is
    left out: its bold was read."""
    clean = _STYLE_TAGS.sub("", strip_quotes_and_code(normalize(text)))
    lines = []
    for line in clean.split("\n"):
        line = line.strip()
        if not line or len(line) > MAX_PLAIN_LINE or _HAS_BOLD.search(line):
            continue
        line = _LINE_MARKS.sub("", line).strip().strip("*_~").strip()
        if line:
            lines.append(line)
    return lines


# --- commands ------------------------------------------------------------------------


_GAME_TAG = re.compile(r"\bG(\d+)\b", re.I)
# Each command word ends at a word's end: `Teamwork`, `Players` and `Shooting` are talk.
_PROPOSE = re.compile(r"^(?:PROPOSE|TEAM)\b\s*:?\s*(?P<names>.*)$", re.I | re.S)
_VOTE = re.compile(r"^(?:VOTE\s*:?\s*)?(?P<crit>CRITICAL\s+)?(?P<v>APPROVE|REJECT|ABSTAIN)[.!]*$", re.I)
_ORDER = re.compile(r"^(?:ORDER\s*:?\s*)?(?P<o>SUPPORT|SABOTAGE|SUCCESS|FAIL)[.!]*$", re.I)
_ARROW = r"\s*(?:->|→|=>|>|\bto\b)\s*"
_GIVE = re.compile(rf"^GIVE\b\s*:?\s*(?P<card>.+?){_ARROW}(?P<name>\S+)\s*$", re.I)
_PLAY = re.compile(rf"^PLAY\b\s*:?\s*(?P<card>.+?)(?:{_ARROW}(?P<name>.+?)(?:\s+(?P<vote>APPROVE|REJECT))?)?\s*$", re.I)
_TAKE = re.compile(r"^TAKE\b\s*:?\s*(?P<card>.+?)\s+FROM\s+(?P<name>\S+)\s*$", re.I)
_PROXY = re.compile(r"^PROXY\b\s*:?\s*(?P<name>\S+)\s+(?P<vote>APPROVE|REJECT)\s*$", re.I)
_CHOOSE = re.compile(r"^CHOOSE\b\s*:?\s*(?P<name>\S+)\s*$", re.I)
# The Assassin's one-name shot is read here, after the modules' words: the lovers' two-name
# shot (rules/lovers.py) must be tried first, and the table tries the Assassin's module first.
_TARGET = re.compile(r"^(?:ASSASSINATE|SHOOT)\b\s*:?\s*(?P<name>\S+)\s*$", re.I)
_WORD = re.compile(r"^(?P<w>STATUS|HELP|JOIN|LEAVE|PASS)[.!?]*$", re.I)
_HOST = re.compile(
    r"^(?P<verb>EXTEND|CLOSE|PAUSE|RESUME|REPLACE|DISQUALIFY|ABORT|STATUS|SKIP|RECORD|SIGNUPS)"
    r"\s+G(?P<game>\d+)\b\s*(?P<rest>.*)$",
    re.I,
)
_ORDER_WORDS = {"support": "support", "success": "support", "sabotage": "sabotage", "fail": "sabotage"}
_NAME_SPLIT = re.compile(r"\s*(?:,|;|&|\band\b)\s*|\s+", re.I)


# --- the host's own words (the config's `words:`) --------------------------------------

_VOTE_PREFIX = re.compile(r"^VOTE\b\s*:?\s*(?P<rest>.+)$", re.I | re.S)

Words = Mapping[str, str]  # a host's word, as `word_key` folds it -> its command (WORD_COMMANDS)


def word_table(words: Mapping[str, tuple[str, ...]] | None) -> dict[str, str]:
    """The config's `words:` ({approve: (yay, aye)}) as `parse_command` reads them."""
    return {word_key(w): command for command, said in (words or {}).items() for w in said if word_key(w)}


def _host_word(s: str, words: Words) -> Parsed | None:
    """A span (or PM line) that is one of the host's words, as a whole (`VOTE: yay` too)."""
    command = words.get(word_key(s))
    if command is None and (m := _VOTE_PREFIX.match(s)):
        command = words.get(word_key(m.group("rest")))
        command = command if command in VOTE_WORD_COMMANDS else None
    if command not in WORD_COMMANDS:
        return None
    p = parse_command(WORD_COMMANDS[command])
    return replace(p, text=s) if p is not None else None


def parse_command(span: str, words: Words | None = None) -> Parsed | None:
    """One bold span or PM line -> a command, or None if it is not one. `words`: the game's
    own words (`word_table`), read as the commands they stand for."""
    s = " ".join(span.strip().split())
    if not s:
        return None
    if words and (p := _host_word(s, words)) is not None:
        return p
    for word in _module_words():
        if m := word.pattern.match(s):
            return word.parse(m, s)
    if m := _PROPOSE.match(s):
        body = m.group("names")
        public = ""
        more: list[tuple[str, str]] = []
        suffix = _suffix_pattern()
        for _ in range(MAX_SUFFIXES):  # (more is no proposal: what is left is refused as names)
            if not (sm := suffix.search(body)):
                break
            key, value = sm.group(1).lower(), sm.group(2)
            if key == "public":
                public = value
            else:
                more.insert(0, (key, value))
            body = body[: sm.start()]
        names = tuple(n for n in _NAME_SPLIT.split(body.strip(" .:")) if n)
        return Parsed("propose", names=names, extra=public, text=s, more=tuple(more))
    if m := _VOTE.match(s):
        return Parsed("vote", choice=m.group("v").lower(),
                      extra="critical" if m.group("crit") else "", text=s)
    if m := _ORDER.match(s):
        return Parsed("order", choice=_ORDER_WORDS[m.group("o").lower()], text=s)
    if m := _GIVE.match(s):
        return Parsed("give", names=(m.group("name"),), extra=m.group("card").strip(), text=s)
    if m := _TAKE.match(s):
        return Parsed("take", names=(m.group("name"),), extra=m.group("card").strip(), text=s)
    if m := _PLAY.match(s):
        names = (m.group("name"),) if m.group("name") else ()
        return Parsed("play", names=names, extra=m.group("card").strip(),
                      choice=(m.group("vote") or "").lower(), text=s)
    if m := _PROXY.match(s):
        return Parsed("proxy", names=(m.group("name"),), choice=m.group("vote").lower(), text=s)
    if m := _CHOOSE.match(s):
        return Parsed("choose", names=(m.group("name"),), text=s)
    if m := _TARGET.match(s):
        return Parsed("assassinate", names=(m.group("name"),), text=s)
    if m := _WORD.match(s):
        word = m.group("w").lower()
        if word == "pass":  # with no card window open, PASS is an abstention
            return Parsed("vote", choice="abstain", extra="pass", text=s)
        return Parsed(word, text=s)
    if m := _HOST.match(s):
        return Parsed("host:" + m.group("verb").lower(), extra=m.group("rest").strip(),
                      choice=m.group("game"), text=s)
    return None


_WORDS: list[tuple] = []
_SUFFIX: list[re.Pattern] = []


def _module_words() -> tuple:
    """The rule modules' command words (hooks.Word), tried before the core's."""
    if not _WORDS:
        _WORDS.append(tuple(w for cls in plugin_classes() for w in cls.words))
    return _WORDS[0]


def _suffix_pattern() -> re.Pattern:
    """`; PUBLIC: name` and the rule modules' suffixes (`; EXCALIBUR: name`), at the end."""
    if not _SUFFIX:
        words = ["PUBLIC"] + [w for cls in plugin_classes() for w in cls.suffixes]
        _SUFFIX.append(re.compile(rf";\s*({'|'.join(map(re.escape, words))})\s*:?\s*(\S+)\s*$", re.I))
    return _SUFFIX[0]


def parse_comment(text: str, words: Words | None = None) -> list[Parsed]:
    """The commands in a thread comment: bold spans only, in order (`words`: the game's own)."""
    found = []
    for span in bold_spans(text):
        if (p := parse_command(span, words)) is None and _GAME_TAG.search(span):
            # "G12 APPROVE": a tag beside a command names the game (a thread with several)
            p = parse_command(_GAME_TAG.sub(" ", span), words)
            if p is not None and p.verb.startswith("host:"):
                p = None
            if p is not None:  # (all of it: a module's `; EXCALIBUR: name` too)
                p = replace(p, text=span)
        if p is not None:
            found.append(p)
        if len(found) >= MAX_COMMANDS:
            break
    return found


_LINE_BOLD = re.compile(r"\*\*|\[/?b\]|</?(?:b|strong)>", re.I)


def pm_lines(text: str) -> list[str]:
    """The lines of a PM that may hold a command: bold taken off, quotes, code, empty lines
    and a lone game tag left out."""
    clean = _STYLE_TAGS.sub("", strip_quotes_and_code(normalize(text)))
    lines = []
    for line in clean.split("\n"):
        line = _LINE_BOLD.sub("", line)
        pieces, at = [], 0
        # __bold__ only as a pair around words: `__` inside or at the end of a name (bob__) is the name's.
        for start, end in _pairs(line, _UNDERSCORE_KIND):
            pieces += [line[at:start - 2], line[start:end]]
            at = end + 2
        line = ("".join(pieces) + line[at:]).strip()
        if line and not _GAME_TAG.fullmatch(line.strip(" .:")):
            lines.append(line)
    return lines


def parse_pm(text: str, words: Words | None = None) -> list[Parsed]:
    """The commands in a PM: one a line, bold optional, quotes and code ignored (`words`:
    the own words of the game it may be for)."""
    found = []
    for line in pm_lines(text):
        if (p := parse_command(line, words)) is None:
            # "G12 APPROVE" and "APPROVE G12": a tag beside a command is a routing hint
            p = parse_command(_GAME_TAG.sub(" ", line), words) if _GAME_TAG.search(line) else None
            if p is not None and p.verb.startswith("host:"):
                p = None
        if p is not None:
            found.append(p)
        if len(found) >= MAX_COMMANDS:
            break
    return found


def game_tags(*texts: str) -> set[int]:
    """The game numbers named by tags such as G12."""
    tags: set[int] = set()
    for t in texts:
        tags.update(game_number(m) for m in _GAME_TAG.findall(normalize(t or "")))
    return tags


MAX_TAG_DIGITS = 9  # no game number is longer; a longer one names no game (and is never an int past 64 bits)


def game_number(digits: str) -> int:
    """The game a tag's digits name: 0, which no game has, for more digits than any game has."""
    return int(digits) if len(digits) <= MAX_TAG_DIGITS else 0


def tag_shown(digits: str) -> str:
    """A tag as the bot repeats it: a tag too long to name a game is shortened."""
    return f"G{digits}" if len(digits) <= MAX_TAG_DIGITS else f"G{digits[:MAX_TAG_DIGITS]}\u2026"


# --- names ---------------------------------------------------------------------------


@dataclass(frozen=True)
class NameProblem:
    name: str
    candidates: tuple[str, ...]  # empty: unknown; several: ambiguous (render/replies.name_problem says so)


_PREFIX = re.compile(r"^(?:/?u/|@)", re.I)
# Usernames are [A-Za-z0-9_-] (Reddit, and the config's players). Around a typed name, what
# no username holds is markup or quoting, then sentence punctuation; a backslash is Markdown
# escaping (Reddit's editor writes bob\_). `_` and `-` are legal, also at the end: `bob_` is
# a name of its own, so `_` (Markdown italics) is dropped only when no name matches with it.
_MARKUP = "*`'\"()[]{}<>~^\u201c\u201d\u2018\u2019\u00ab\u00bb"
_PUNCT = ".,;:!?"


def _bare(raw: str, chars: str) -> str:
    """`raw` without backslashes, the u/, /u/ or @ prefix, and `chars` at either end."""
    s = normalize(raw).replace("\\", "")
    while True:
        t = _PREFIX.sub("", s.strip().strip(chars).strip())
        if t == s:
            return s
        s = t


def _name_forms(raw: str) -> list[str]:
    """The readings of a typed name, the closest to what was typed first."""
    forms: list[str] = []
    for chars in (_MARKUP, _MARKUP + _PUNCT, _MARKUP + _PUNCT + "_"):
        form = _bare(raw, chars)
        if form and form not in forms:
            forms.append(form)
    return forms


def clean_name(raw: str) -> str:
    """A typed username as it is meant: no prefix, markup or sentence punctuation around it.
    A legal trailing `_` or `-` stays (`zed_` is zed_)."""
    return _bare(raw, _MARKUP + _PUNCT)


def resolve_name(raw: str, names: list[str], aliases: dict[str, str] | None = None) -> str | NameProblem:
    """A typed name -> the player's name: case-insensitive, u/ and @ prefixes, host aliases,
    and a unique prefix of 3 letters or more. An exact name always wins: the name as typed
    (`bob_`) is tried before any reading that drops a character a username may hold."""
    forms = [f.casefold() for f in _name_forms(raw)]
    if not forms:
        return NameProblem(raw, ())
    for want in forms:
        for n in names:
            if n.casefold() == want:
                return n
        for alias, target in (aliases or {}).items():
            if alias.casefold() == want and target in names:
                return target
    for want in forms:
        if len(want) >= 3:
            hits = tuple(n for n in names if n.casefold().startswith(want))
            if len(hits) == 1:
                return hits[0]
            if hits:
                return NameProblem(raw, hits)
    return NameProblem(raw, ())
