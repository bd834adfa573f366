"""The words of every post and PM. Each render module registers the texts of its event types
(registry.py); the thread gets one post per batch of events, each player their own PMs.
Roles and who played which order never appear in a public post before the game ends.

The helpers every module shares live in words.py, and each module's texts in its own file;
they are importable from here too, as they always were."""
from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ..rules import events as ev
from ..rules.commands import Refusal
from ..rules.deadlines import format_duration, stamp
from ..rules.presets import TEAM_SIZES, fails_needed
from ..rules.roles import role_set
from ..rules.state import SPIES, GameState, phase_words
from . import registry
from .core import (
    _game_ended,
    _mission_opened,
    _mission_resolved,
    _order_prompt,
    _proposal_missed,
    _proposal_opened,
    _sabotages,
    _team_proposed,
    _vote_closed,
    state_rejections,
)
from .host import (
    _deadline_extended,
    _disqualified,
    _game_paused,
    _game_resumed,
    _host_action,
    _host_disqualified,
    _host_stalled,
    _newcomer_pm,
    _proposals_stalled,
    _replaced,
)
from .markup import Markup, markup_for, shown_as_text
from .modules.assassin import _assassinated, _assassination_opened, _assassination_overdue
from .modules.commander import _commander_named
from .modules.lady import _lady_opened, _lady_skipped, _lady_used
from .modules.mission_cards import _mc_badge, _mc_done, _mc_drawn, _mc_follow, _mc_played, _mc_window
from .modules.plot import (
    _plot_choice_opened,
    _plot_declared,
    _plot_discarded,
    _plot_drawn,
    _plot_given,
    _plot_played,
    _plot_reveal,
    _plot_skipped,
    _plot_spotlight,
    _plot_taken,
    _plot_window,
    _team_vetoed,
)
from .opening import _opening, _role_pm, _spectator_pm
from .ops import scrub, spoken
from .reminders import REMINDER_WORDS, _deadline_moved, _missed_notice, _reminder
from .words import (
    _NOW,
    ROLE_NAMES,
    THREAD,
    Message,
    block_separator,
    free_reserves,
    pm_footer,
    role_name,
    side_name,
    track,
    when,
    with_block,
    with_footer,
)
from .words import card as _card
from .words import host_plays as _host_plays
from .words import mc as _mc

__all__ = [
    "Message", "THREAD", "ROLE_NAMES", "REMINDER_WORDS", "when", "role_name", "side_name", "track",
    "free_reserves", "state_rejections", "block_separator", "with_block", "pm_footer", "with_footer",
    "render_events", "render_refusal",
    # (what this module held before render/ was split, for whoever imports it from here)
    "ContextVar", "GameState", "Refusal", "SPIES", "TEAM_SIZES", "dataclass", "datetime", "ev",
    "fails_needed", "format_duration", "markup_for", "phase_words", "replace", "role_set", "stamp",
    "timedelta", "_NOW", "_PUBLIC", "_assassinated", "_assassination_opened", "_assassination_overdue",
    "_card", "_commander_named", "_deadline_extended", "_deadline_moved", "_disqualified", "_game_ended",
    "_game_paused", "_game_resumed", "_host_action", "_host_disqualified", "_host_plays", "_host_stalled",
    "_lady_opened", "_lady_skipped", "_lady_used", "_mc", "_mc_badge", "_mc_done", "_mc_drawn",
    "_mc_follow", "_mc_played", "_mc_window", "_missed_notice", "_mission_opened", "_mission_resolved",
    "_newcomer_pm", "_opening", "_order_prompt", "_plot_choice_opened", "_plot_declared",
    "_plot_discarded", "_plot_drawn", "_plot_given", "_plot_played", "_plot_reveal", "_plot_skipped",
    "_plot_spotlight", "_plot_taken", "_plot_window", "_proposal_missed", "_proposal_opened",
    "_proposals_stalled", "_reminder", "_render_events", "_replaced", "_role_pm", "_sabotages",
    "_spectator_pm", "_team_proposed", "_team_vetoed", "_vote_closed",
]

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
    by the rules (or, the old way, `**...**`), are in this markup's bold."""
    m = markup_for(markup)
    prefix = f"{tag}: " if tag else ""
    text = f"{prefix}{refusal.reason}"
    if refusal.hint:
        text += f" The right form: {refusal.hint}"
    return scrub(spoken(shown_as_text(text, m), m))
