"""The words of every post and PM. Each render module registers the texts of its event types
(registry.py); the thread gets one post per batch of events, each player their own PMs.
Roles and who played which order never appear in a public post before the game ends.

The helpers every module shares live in words.py, and each module's texts in its own file."""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from ..rules import events as ev
from ..rules.commands import Refusal
from ..rules.state import GameState
from . import registry
from .markup import Markup, markup_for, shown_as_text
from .ops import coded, scrub, spoken
from .words import _NOW, Message, with_footer

_PUBLIC = registry.PUBLIC  # event type -> its text in the thread's post (filled by registry.load())


def render_events(state: GameState, events: list[ev.Event], tag: str, markup: str | Markup = "markdown",
                  now: datetime | None = None) -> list[Message]:
    """The posts and PMs for one batch of events. `state` is the state after them. `now`: when
    they go out, if known; relative deadlines ("in 12h") count from it."""
    token = _NOW.set(now)
    try:
        out = _render_events(state, events, tag, markup)
    finally:
        _NOW.reset(token)
    return [replace(msg, body=with_footer(msg.body, tag)) if msg.to is not None else msg
            for msg in out]


def _render_events(state: GameState, events: list[ev.Event], tag: str, markup: str | Markup) -> list[Message]:
    """Each event in turn: its text joins the batch's one post, its PMs go out in the order
    its modules registered them. The post comes first (after an opening post)."""
    registry.load()
    m = markup_for(markup)
    out: list[Message] = []
    public: list[str] = []
    priority = 1
    for e in events:
        text_of = registry.PUBLIC.get(e.type)
        if text_of is not None and (text := text_of(state, e, tag, m)):
            notes = [n for fn in registry.NOTES.get(e.type, ()) if (n := fn(state, e, tag, m))]
            public.append(" ".join([text, *notes]))
            priority = 0
        for pms in registry.PRIVATE.get(e.type, ()):
            out.extend(pms(state, e, tag, m))
    # The opening post first, whichever module's PMs were registered before it; then the post.
    openings = [msg for msg in out if msg.opening]
    post = [Message("post", "\n\n".join(public), priority=priority)] if public else []
    out = openings + post + [msg for msg in out if not msg.opening]
    # What a player typed (heard()) is text, a command in said() is bold in this markup; no
    # mark reaches a forum.
    return [replace(msg, body=scrub(spoken(shown_as_text(msg.body, m), m, literal=False)),
                    subject=scrub(shown_as_text(msg.subject, m)), title=scrub(shown_as_text(msg.title, m)))
            for msg in out]


def render_refusal(refusal: Refusal, tag: str | None, markup: str | Markup = "markdown") -> str:
    """A refusal, in the forum's markup: what a player typed and the rules repeat (a card or a
    name intake marked heard()) is shown as text; the commands it shows, written `said(...)`
    by the rules (or, the old way, `**...**`), are in this markup's bold, and the examples
    written `as_code(...)` (render's own refusals) in its code span."""
    m = markup_for(markup)
    prefix = f"{tag}: " if tag else ""
    text = f"{prefix}{refusal.reason}"
    if refusal.hint:
        text += f" The right form: {refusal.hint}"
    return scrub(coded(spoken(shown_as_text(text, m), m), m))
