"""How one forum's markup writes bold, tables and lists. Templates use these only.

And how it shows what a player typed (`Markup.text`): as text, never as a live link, image,
heading, mention, spoiler, table, HTML or the bot's marker, whatever the forum renders
(Reddit's Markdown; Discourse's Markdown, which also renders HTML, BBCode, `@mentions` and
bare URLs). Shell code that builds words before the markup is known wraps player text in
`heard()`; `shown_as_text` turns each such span into the markup's `text` at the end."""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Protocol

# A player's text in the bot's words (`heard(s)`): shown with `Markup.text` once the markup is
# known. Two private-use characters, like said()'s (rules/commands.py), that no forum shows.
HEARD_OPEN, HEARD_CLOSE = "\ue002", "\ue003"
_NO_HEARD = dict.fromkeys(map(ord, HEARD_OPEN + HEARD_CLOSE), None)
_HEARD = re.compile(HEARD_OPEN + "([^" + HEARD_OPEN + HEARD_CLOSE + "]*)" + HEARD_CLOSE)
NAME_LIMIT = 80  # characters of a name-like fragment a post repeats (then an ellipsis)
# Text that is inert in every markup as it is, so shown as it is: forum usernames, and words
# and sentences of ASCII letters, digits, spaces and `_'-,!?:;()`, with a letter or digit
# and not starting with `- ` or `_ ` (`- x`, `---` or `_ _ _` at a line's start are a list or a
# rule), with a full stop only before a space or at the end (`evil.com` is a link on Discourse).
_PLAIN = re.compile(r"(?=.*[A-Za-z0-9])(?![-_]+ )[A-Za-z0-9_-](?:[A-Za-z0-9_' ,!?:;()-]|\.(?= |$))*")
# The shapes of the bot's invisible markers (Reddit `[](#fb-...)`, Discourse `<!-- fb:... -->`)
# and of an HTML comment: a player's text must never carry one into the bot's post.
_MARKERISH = re.compile(r"#\s*fb-|<!--|fb:(?=[0-9a-f])", re.I)
_UNMARKED = {"<!--": "<!\u2010\u2010", "fb:": "fb\ua789"}  # else `#fb-`: `#fb` and a look-alike hyphen


def plain(s: str) -> bool:
    """Is `s` shown as it is in every markup (a forum username, a plain sentence)?"""
    return _PLAIN.fullmatch(s) is not None


def heard(s: str) -> str:
    """`s` as a player typed it, to be shown as text by `shown_as_text` (plain text as it is)."""
    s = s.translate(_NO_HEARD)
    return s if plain(s) and len(s) <= NAME_LIMIT else f"{HEARD_OPEN}{s}{HEARD_CLOSE}"


def shown_as_text(text: str, m: "Markup", around: Callable[[str], str] = lambda s: s) -> str:
    """`text` with each heard() span in the markup's `text`, `around` applied to the rest, and
    no stray mark left."""
    parts = _HEARD.split(text)  # even: the bot's words; odd: what a player typed
    return "".join(m.text(p) if i % 2 else around(p.translate(_NO_HEARD)) for i, p in enumerate(parts))


def one_line(s: str, limit: int | None = NAME_LIMIT) -> str:
    """`s` on one line: no control, format (bidi, zero-width), private-use or line-breaking
    character, no lone surrogate, runs of space as one, and at most `limit` characters."""
    out = []
    for ch in s:
        cat = unicodedata.category(ch)
        out.append("\ufffd" if cat == "Cs" else " " if cat in ("Cc", "Cf", "Co", "Zl", "Zp") else ch)
    s = " ".join("".join(out).split())
    if limit is not None and len(s) > limit:
        s = s[:limit - 1].rstrip() + "\u2026"
    return _MARKERISH.sub(lambda g: _UNMARKED.get(g.group(0).lower(), "#fb\u2010"), s)


class Markup(Protocol):
    """What every markup writes (Markdown, BBCode)."""

    name: str

    def bold(self, s: str) -> str: ...
    def italic(self, s: str) -> str: ...
    def heading(self, s: str) -> str: ...
    def code(self, s: str) -> str: ...
    def table(self, header: list[str], rows: list[list[str]]) -> str: ...
    def bullets(self, items: list[str]) -> str: ...
    def rule(self) -> str: ...
    def text(self, s: str, limit: int | None = NAME_LIMIT) -> str:
        """What a player typed, shown as text on one line (at most `limit` characters)."""
        ...


class Markdown:
    name = "markdown"

    def bold(self, s: str) -> str:
        return f"**{s}**"

    def italic(self, s: str) -> str:
        return f"*{s}*"

    def heading(self, s: str) -> str:
        return f"### {s}"

    def code(self, s: str) -> str:
        return f"`{s}`"

    def table(self, header: list[str], rows: list[list[str]]) -> str:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)

    def bullets(self, items: list[str]) -> str:
        return "\n".join(f"- {i}" for i in items)

    def rule(self) -> str:
        return "---"

    def text(self, s: str, limit: int | None = NAME_LIMIT) -> str:
        """A code span: nothing in it is a link, image, heading, mention, spoiler, BBCode or
        HTML on Reddit or Discourse (a bare URL in one is not linked either). Its backticks
        and table pipes become look-alikes, `](` loses the shape of a link (so that nothing
        escapes it again); plain text stays as it is."""
        s = one_line(s.replace("](", "] ("), limit)
        if plain(s) or not s:
            return s
        return "`" + s.replace("`", "\u02cb").replace("|", "\u00a6") + "`"


class BBCode:
    name = "bbcode"

    def bold(self, s: str) -> str:
        return f"[b]{s}[/b]"

    def italic(self, s: str) -> str:
        return f"[i]{s}[/i]"

    def heading(self, s: str) -> str:
        return f"[size=150][b]{s}[/b][/size]"

    def code(self, s: str) -> str:
        return f"[font=monospace]{s}[/font]"

    def table(self, header: list[str], rows: list[list[str]]) -> str:
        def tr(cells: list[str], tag: str) -> str:
            return "[tr]" + "".join(f"[{tag}]{c}[/{tag}]" for c in cells) + "[/tr]"
        return "[table]" + tr(header, "th") + "".join(tr(r, "td") for r in rows) + "[/table]"

    def bullets(self, items: list[str]) -> str:
        return "[list]" + "".join(f"[*]{i}" for i in items) + "[/list]"

    def rule(self) -> str:
        return "[hr]"

    def text(self, s: str, limit: int | None = NAME_LIMIT) -> str:
        """No tag, smiley code, HTML, mention or linkable URL (`://`, `www.`): their characters
        become look-alikes (BBCode has no code span that every forum keeps inline)."""
        s = one_line(s, limit)
        if plain(s):
            return s
        return re.sub(r"(?i)(?<![a-z0-9])www\.", lambda g: g.group(0)[:3] + "\u2024", s.translate(_BB_LOOKALIKES))


_BB_LOOKALIKES = str.maketrans({"[": "\uff3b", "]": "\uff3d", "<": "\u2039", ">": "\u203a", "*": "\u2217",
                                "@": "\uff20", "`": "\u02cb", "&": "\uff06", ":": "\ua789"})


def markup_for(name: str | Markup) -> Markup:
    """The markup of that name (Markdown for a name it does not know); a markup as it is."""
    if not isinstance(name, str):
        return name
    return BBCode() if name == "bbcode" else Markdown()
