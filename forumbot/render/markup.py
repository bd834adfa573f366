"""How one forum's markup writes bold, tables and lists. Templates use these only."""
from __future__ import annotations

from typing import Protocol


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


def markup_for(name: str | Markup) -> Markup:
    """The markup of that name (Markdown for a name it does not know); a markup as it is."""
    if not isinstance(name, str):
        return name
    return BBCode() if name == "bbcode" else Markdown()
