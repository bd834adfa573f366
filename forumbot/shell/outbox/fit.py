"""Every text the bot writes fits the forum's limits (Traits: max_body, max_title,
max_subject), the marker the adapter adds included: a longer body is cut at a line boundary
and ends with a line that says how much was cut; a longer title or subject is cut with an
ellipsis, its game tag kept.

Cut, not split: the bot's own game posts (results, prompts, the status block) are bounded by
the table's size far below any forum's limit; what can grow past it is text a player or host
wrote (an intro, a config's problems, a forwarded PM), and there the cut line says so."""
from __future__ import annotations

import re
from dataclasses import replace

from adapters.base import Outgoing, Traits

from ...render.markup import Markup
from ...render.outbox_cut import closed, cut_line, cut_title

MARK_ROOM = 100  # characters kept free for what the adapter adds: its marker, a mention's form
LINE_ROOM = 80  # the cut line and a closing code fence
_TAG = re.compile(r"\s*[(\[]G\d+[)\]]\s*$")  # a game tag at a title's end, which it keeps


def size(text: str) -> int:
    """A text's length as forums count it at most: in UTF-16 units (an emoji counts two)."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def fit(out: Outgoing, traits: Traits, markup: Markup) -> Outgoing:
    """`out` with its body, title and subject within the forum's limits."""
    body = fit_body(out.body, traits.max_body - MARK_ROOM, markup)
    title = fit_line(out.title, traits.max_title)
    subject = fit_line(out.subject, traits.max_subject)
    if (body, title, subject) == (out.body, out.title, out.subject):
        return out
    return replace(out, body=body, title=title, subject=subject)


def fit_body(body: str, room: int, markup: Markup) -> str:
    if size(body) <= room:
        return body
    keep = _prefix(body, room - LINE_ROOM)
    line = keep.rfind("\n")
    if line >= len(keep) // 2:  # at a line boundary, unless that loses more than half
        keep = keep[:line]
    keep = keep.rstrip()
    more = len(body) - len(keep)
    keep = closed(keep, markup)  # (the cut fell inside a code block: it is closed again)
    return f"{keep}\n\n{cut_line(more, markup)}"


def fit_line(text: str, limit: int) -> str:
    if size(text) <= limit:
        return text
    m = _TAG.search(text)
    base, tail = (text[:m.start()], f" {m.group(0).strip()}") if m else (text, "")
    if size(tail) + 2 > limit:  # no room for the tag as well: it goes too
        tail = ""
    text = base + tail
    room = limit
    cut = cut_title(text, room, tail)
    while size(cut) > limit and room > 0:  # wide characters: a little shorter
        room -= 1
        cut = cut_title(text, room, tail)
    return cut if size(cut) <= limit else "\u2026"


def _prefix(text: str, room: int) -> str:
    """The longest start of `text` of at most `room` UTF-16 units."""
    units = 0
    for n, ch in enumerate(text):
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > room:
            return text[:n]
    return text
