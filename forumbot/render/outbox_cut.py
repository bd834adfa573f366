"""The line that ends a text the bot had to cut to fit the forum's limit."""
from __future__ import annotations

from .markup import Markup


def cut_line(more: int, m: Markup) -> str:
    """Says that the text above is not all there was, and how much is missing."""
    return m.italic(f"(\u2026 cut: {more:,} more characters, longer than the forum takes)")


def cut_title(title: str, limit: int, tail: str = "") -> str:
    """A title or subject cut to `limit` characters, an ellipsis where it was cut, keeping
    `tail` (a game tag) at its end."""
    room = max(1, limit - len(tail) - 1)
    return title[:len(title) - len(tail)][:room].rstrip() + "\u2026" + tail
