"""Almost a command: the bold span (or PM line) a player meant as one but that does not
count, and what they meant. Pure, like `parsing`: the text and a small context in, a
`Hint` (or None) out. The ruling ("Players' own words", variants.md): a near miss, a
look-alike letter, or the leader's bold list of names without `PROPOSE:` gets a private
"did you mean" answer, never silence and never a guess; plain bold talk gets nothing.

Five readings, the first four tried in turn on each span that is no command:
- `letters`: the span is a command once its letters are folded to plain Latin ones
  (Cyrillic/Greek look-alikes, accents and other combining marks, control characters);
- `spelling`: its first word is one edit or two away from a command word (`APROVE`,
  `SABOTAJE`, `Proposal: a, b`);
- `words`: a short span holds exactly one command word as a whole word (`I vote approve`),
  and is no question, no negation, and names no player (`bob APPROVE`);
- `team`: from the leader during a proposal, a list of exactly the team's number of
  players (`alice, bob and carol`), with no `PROPOSE:`;
and, for a thread comment with no such span:
- `bold`: a line of its own, outside bold, that is a command once its colour, italics,
  heading or list marks are off (`APPROVE`, `*Reject*`, `[color=red]APPROVE[/color]`,
  `## vote: yay`). Only a whole line: a command word inside a sentence is talk ("I'd
  approve that"), in bold or not.
The host's own words (the config's `words:`, `HintContext.words`) are commands like the
built-in ones, and near misses of them (`vote in favour`) are answered with them.
A hint is only for what the player could do now (`HintContext.live`): a vote while a team
vote is open, an order by PM on the mission's team, a team from the leader.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from ..config_values import word_key
from ..parsing import NameProblem, Words, bold_spans, parse_command, plain_lines, pm_lines, resolve_name
from ..rules.plugin import Parsed

# Letters of other alphabets that look like Latin ones (a small table: the ones that make
# the command words and usernames). NFKD takes accents and the full-width forms apart.
_CONFUSABLES = str.maketrans({
    # Cyrillic
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "У": "Y", "Х": "X", "І": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j",
    "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "Ӏ": "I", "ь": "b", "г": "r",
    "п": "n", "т": "t", "к": "k", "в": "b", "м": "m", "н": "h",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "α": "a", "β": "b", "ε": "e", "ι": "i",
    "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j",
    # Latin letters that are not the plain ones
    "ı": "i", "ȷ": "j", "ɑ": "a", "ɡ": "g", "ʀ": "R", "ʏ": "Y", "ᴀ": "A", "ᴄ": "C", "ᴇ": "E",
    "ᴏ": "O", "ᴘ": "P", "ᴛ": "T", "ᴜ": "U", "ᴠ": "V", "ꜱ": "S", "ʙ": "B", "ɢ": "G", "ɪ": "I",
    "ʟ": "L", "ɴ": "N", "ᴍ": "M", "ᴋ": "K", "ᴊ": "J", "ᴅ": "D", "ꞯ": "Q", "ᴡ": "W", "ᴢ": "Z",
})

VOTE_WORDS = ("APPROVE", "REJECT", "ABSTAIN")
ORDER_WORDS = ("SUPPORT", "SABOTAGE", "SUCCESS")
PROPOSE_WORDS = ("PROPOSE",)
# Only words this long are matched loosely: shorter ones (PASS, FAIL, HELP) have too many
# English neighbours (past, fall, hello) to be a near miss rather than talk.
MIN_LOOSE = 5
MAX_WORDS = 6  # a `words` span longer than this is talk about voting, not a vote
MAX_SPANS = 60  # bold spans (or PM lines) looked at in one message
MAX_TOKEN = 24  # a word longer than this is no near miss (and bounds the edit distance)

_TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)
_GAME_TAG = re.compile(r"\bG\d+\b", re.I)
_SAFE = re.compile(r"[A-Za-z0-9_ ,:;.!-]+")  # what a hint may repeat of the span as typed
_NAME_SPLIT = re.compile(r"\s*(?:,|;|&|\+|\band\b)\s*|\s+", re.I)


@dataclass(frozen=True)
class HintContext:
    """What the player could do now. `live`: the kinds of command that would count
    (`vote`, `order`, `propose`); `names`: the players' usernames (for a team), `aliases`
    the host's extra names; `team_size`: the size of the team the player must propose."""

    live: frozenset[str] = frozenset()
    names: tuple[str, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)
    team_size: int = 0
    words: Words = field(default_factory=dict)  # the host's own words (parsing.word_table)


@dataclass(frozen=True)
class Hint:
    """What a span meant: `kind` (letters | spelling | words | team), the command's `verb`
    (vote | order | propose | another parsed verb) and `meant`, the command to write (plain
    ASCII letters, digits and punctuation only: never the player's markup)."""

    kind: str
    verb: str
    meant: str


def fold(text: str) -> str:
    """`text` in plain letters: accents and marks off, look-alikes Latin, controls out."""
    decomposed = unicodedata.normalize("NFKD", text).translate(_CONFUSABLES)
    kept = "".join(c for c in decomposed if unicodedata.category(c) not in ("Mn", "Me", "Cc", "Cf", "Co", "Cs")
                   and c != "\ufffd")  # (what the store keeps of a NUL or a lone surrogate: store.storable)
    return unicodedata.normalize("NFKC", kept)


def distance(a: str, b: str) -> int:
    """Edits (insert, delete, change, swap two neighbours) from `a` to `b`."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[len(b)]


_ENDINGS = ("", "E", "S", "ES", "D", "ED", "ING", "AL")
# Talk about a vote rather than a vote: a question, or a negation (`don't approve`).
_TALK = re.compile(r"\?\s*$|\b(?:not|never|dont|don't|don’t)\b|n[’']t\b", re.I)


def _near(word: str, target: str) -> bool:
    """A misspelling of `target` (one edit, two for the long words) or another form of it
    (APPROVED, REJECTING, SABOTAGED)."""
    if len(target) < MIN_LOOSE or len(word) > MAX_TOKEN or word == target:
        return False
    return _form(word, target) or distance(word, target) <= (2 if len(target) >= 7 else 1)


def _form(word: str, target: str) -> bool:
    """`word` is `target` or another form of it (APPROVED, REJECTING, SABOTAGED)."""
    root = target.removesuffix("E")
    return word.startswith(root) and word[len(root):] in _ENDINGS


def _live_words(ctx: HintContext, via: str) -> tuple[str, ...]:
    words: tuple[str, ...] = ()
    if "vote" in ctx.live:
        words += VOTE_WORDS
    if "order" in ctx.live and via == "pm":
        words += ORDER_WORDS
    return words


def _verb_live(verb: str, ctx: HintContext, via: str) -> bool:
    if verb == "order":
        return "order" in ctx.live and via == "pm"
    if verb in ("vote", "propose"):
        return verb in ctx.live
    return not verb.startswith("host:")  # another player's command: its own answer says more


def _command(text: str, words: Words | None = None) -> Parsed | None:
    """`text` read as `parse_comment` reads a span (a game tag beside a command is routing)."""
    if (p := parse_command(text, words)) is None and _GAME_TAG.search(text):
        p = parse_command(_GAME_TAG.sub(" ", text), words)
    return p


_HOST_VERB = {"approve": "vote", "reject": "vote", "abstain": "vote", "support": "order", "sabotage": "order"}


def _host_words(ctx: HintContext, via: str) -> dict[str, str]:
    """The host's own words for what the player could do now: word -> its command."""
    live = set(_live_words(ctx, via))
    return {w: c for w, c in ctx.words.items() if c.upper() in live}


def _host_near(folded: str, ctx: HintContext, via: str) -> Hint | None:
    """A near miss of one of the host's own words (`vote in favour`), or a short span that
    holds exactly one of them as whole words (`I vote yay`)."""
    own = _host_words(ctx, via)
    if not own:
        return None
    key = word_key(folded)
    for word, command in own.items():
        if len(word) >= MIN_LOOSE and len(key) <= MAX_TOKEN * 2 and \
                distance(key, word) <= (2 if len(word) >= 7 else 1):
            return Hint("spelling", _HOST_VERB[command], _host_meant(word, command))
    if len(_TOKEN.findall(folded)) > MAX_WORDS or _TALK.search(folded) or _names_someone(folded, ctx):
        return None
    said = {c for w, c in own.items() if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", key)}
    if len(said) == 1:
        command = said.pop()
        word = next(w for w, c in own.items() if c == command and re.search(rf"(?<!\w){re.escape(w)}(?!\w)", key))
        return Hint("words", _HOST_VERB[command], _host_meant(word, command))
    return None


def _host_meant(word: str, command: str) -> str:
    """The host's word as the answer quotes it (plain letters only), or the built-in one."""
    return word if _SAFE.fullmatch(word) and word.strip() else command.upper()


def _team(raw: str, ctx: HintContext) -> tuple[str, ...] | None:
    """The players a list of names names, if every one is a distinct player."""
    parts = [p for p in _NAME_SPLIT.split(_GAME_TAG.sub(" ", raw).strip(" .:!")) if p]
    if not parts or len(parts) > 2 * max(ctx.team_size, 1) + 2:
        return None
    team: list[str] = []
    for part in parts:
        found = resolve_name(part, list(ctx.names), ctx.aliases)
        if isinstance(found, NameProblem) or found in team:
            return None
        team.append(found)
    return tuple(team)


def _names_someone(text: str, ctx: HintContext) -> bool:
    """Does `text` name a player (`bob APPROVE`: a vote for someone else, or talk about one)?"""
    folded = text.casefold()
    return any(re.search(rf"(?<!\w){re.escape(n.casefold())}(?!\w)", folded) for n in (*ctx.names, *ctx.aliases))


def _propose(raw_names: str, ctx: HintContext) -> str:
    team = _team(raw_names, ctx)
    return "PROPOSE: " + ", ".join(team) if team else "PROPOSE: name, name"


def _meant(p: Parsed, folded: str, ctx: HintContext) -> str:
    if p.verb == "propose":
        return _propose(" ".join(p.names), ctx)
    if p.verb == "vote" and not p.extra:
        return p.choice.upper()
    if p.verb == "order":
        return p.choice.upper()
    text = " ".join(folded.split())
    return text if _SAFE.fullmatch(text) else p.verb.upper()


def hint_for(span: str, via: str, ctx: HintContext) -> Hint | None:
    """What one span (or PM line) that is no command meant, if it is almost one."""
    span = " ".join(span.split())
    if not span or _command(span, ctx.words) is not None:
        return None
    folded = fold(span)
    if folded != span and (p := _command(folded, ctx.words)) is not None:
        return Hint("letters", p.verb, _meant(p, folded, ctx)) if _verb_live(p.verb, ctx, via) else None
    bare = _GAME_TAG.sub(" ", folded)
    tokens = [t.upper() for t in _TOKEN.findall(bare)]
    if not tokens:
        return None
    first, rest = tokens[0], bare[_TOKEN.search(bare).end():]  # type: ignore[union-attr]
    for word in _live_words(ctx, via):
        if len(tokens) == 1 and _near(first, word):
            return Hint("spelling", "vote" if word in VOTE_WORDS else "order", word)
    if "propose" in ctx.live and any(_near(first, w) for w in PROPOSE_WORDS) and (
            ":" in bare or (len(tokens) > 1 and _team(rest, ctx) is not None)):  # (not "proposal incoming")
        return Hint("spelling", "propose", _propose(rest.lstrip(" :"), ctx))
    if len(tokens) <= MAX_WORDS and not _TALK.search(bare) and not _names_someone(bare, ctx):
        said = {w for w in _live_words(ctx, via) if w in tokens}
        if len(said) == 1:
            word = said.pop()
            return Hint("words", "vote" if word in VOTE_WORDS else "order", word)
    if (hint := _host_near(bare, ctx, via)) is not None:
        return hint
    if "propose" in ctx.live and ctx.team_size:
        listed = bare.rsplit(":", 1)[-1]
        team = _team(listed, ctx)
        if team is not None and len(team) == ctx.team_size:
            return Hint("team", "propose", "PROPOSE: " + ", ".join(team))
    return None


def _first(pieces: list[str], via: str, ctx: HintContext) -> Hint | None:
    for piece in pieces[:MAX_SPANS]:
        if (hint := hint_for(piece, via, ctx)) is not None:
            return hint
    return None


def comment_hint(text: str, ctx: HintContext) -> Hint | None:
    """The first bold span of a thread comment that is almost a command."""
    if not ctx.live:
        return None
    return _first(bold_spans(text), "thread", ctx) or _unbolded(text, ctx)


def _unbolded(text: str, ctx: HintContext) -> Hint | None:
    """A line of its own, outside bold, that is a command the player could give now in the
    thread (a vote, the leader's proposal): written in plain text, colour or italics."""
    for line in plain_lines(text)[:MAX_SPANS]:
        p = _command(line, ctx.words) or _command(fold(line), ctx.words)
        if p is not None and p.verb in ("vote", "propose") and _verb_live(p.verb, ctx, "thread"):
            return Hint("bold", p.verb, _meant(p, fold(line), ctx))
    return None


def pm_hint(text: str, ctx: HintContext) -> Hint | None:
    """The first line of a PM that is almost a command."""
    if not ctx.live:
        return None
    return _first(pm_lines(text), "pm", ctx)
