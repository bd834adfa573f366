"""The line that ends a text the bot had to cut to fit the forum's limit."""
from __future__ import annotations

import re

from .markup import Markup

_MD_FENCE = re.compile(r"^\s*(```|~~~)", re.M)
_BB_CODE = re.compile(r"\[(/?)code\b[^\]]*\]", re.I)


def cut_line(more: int, m: Markup) -> str:
    """Says that the text above is not all there was, and how much is missing."""
    return m.italic(f"(\u2026 cut: {more:,} more characters, longer than the forum takes)")


def cut_title(title: str, limit: int, tail: str = "") -> str:
    """A title or subject cut to `limit` characters, an ellipsis where it was cut, keeping
    `tail` (a game tag) at its end."""
    room = max(1, limit - len(tail) - 1)
    return title[:len(title) - len(tail)][:room].rstrip() + "\u2026" + tail


def closed(kept: str, m: Markup) -> str:
    """The start of a text, cut inside a code block, with the block closed again (so that
    the cut line after it is not shown as code): a Markdown fence, a BBCode [code]."""
    if m.name == "bbcode":
        depth = 0
        for tag in _BB_CODE.finditer(kept):
            depth = max(0, depth - 1) if tag.group(1) else depth + 1
        return kept + "[/code]" * min(depth, 1)
    if len(_MD_FENCE.findall(kept)) % 2:
        return kept + "\n```"
    return kept
