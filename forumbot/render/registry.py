"""Which words an event gets. Each render module registers, per event type, the text it
adds to the thread's post and the PMs it sends; `render_events` is a loop over these.

    @public(ev.LADY_USED)
    def _lady_used(state, e, tag, m) -> str: ...        # "" or None: nothing in the thread

    @private(ev.LADY_USED)
    def _lady_pm(state, e, tag, m) -> list[Message]: ...

`state` is the state after the batch, `tag` the game's tag, `m` the forum's markup
(render/markup.py). A module of render/ is found by `load()`; a new rule's render module
is one new file here, and nothing else in render/ changes. A module's words on the archive
page (archive/: the page's structure, a loop over these) are registered here too, next to
its thread texts (see "The archive page" below).
"""
from __future__ import annotations

import importlib
import pathlib
import pkgutil
from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:
    from ..rules.events import Event
    from ..rules.state import GameState

# fn(state, e, tag, m), `e` typed as its event's class (`e: LadyUsed`)
PublicText = Callable[..., "str | None"]
PrivateTexts = Callable[..., list]
_P = TypeVar("_P", bound=PublicText)
_Q = TypeVar("_Q", bound=PrivateTexts)


def _name(t: str | type[Event]) -> str:
    return t if isinstance(t, str) else t.type

PUBLIC: dict[str, PublicText] = {}
PRIVATE: dict[str, list[PrivateTexts]] = {}


def public(*types: str | type[Event]) -> Callable[[_P], _P]:
    def register(fn: _P) -> _P:
        for t in map(_name, types):
            if t in PUBLIC and PUBLIC[t] is not fn:
                raise ValueError(f"two public texts for the event {t}")
            PUBLIC[t] = fn
        return fn
    return register


def private(*types: str | type[Event]) -> Callable[[_Q], _Q]:
    def register(fn: _Q) -> _Q:
        for t in map(_name, types):
            fns = PRIVATE.setdefault(t, [])
            if fn not in fns:
                fns.append(fn)
        return fn
    return register


# Lines a module adds to a player's role PM (the lovers name each other, say):
#     @role_note
#     def _lovers(state, name, m) -> str | None: ...
ROLE_NOTES: list[Callable[["GameState", str, Any], "str | None"]] = []


def role_note(fn: Callable[["GameState", str, Any], "str | None"]) -> Callable[["GameState", str, Any], "str | None"]:
    if fn not in ROLE_NOTES:
        ROLE_NOTES.append(fn)
    return fn


# Lines a module adds at the end of a role PM, after what a mission asks of it (the
# Assassin's shot, say):
#     @role_end_note
#     def _shot(state, seat, m) -> str | None: ...
RoleNote = Callable[["GameState", str, Any], "str | None"]
ROLE_END_NOTES: list[RoleNote] = []


def role_end_note(fn: RoleNote) -> RoleNote:
    if fn not in ROLE_END_NOTES:
        ROLE_END_NOTES.append(fn)
    return fn


# Paragraphs a module adds at the end of the opening post (the Lady of the Lake's first
# holder, say); `e` is the GameStarted event:
#     @opening_note
#     def _note(state, e, tag, m) -> str | None: ...
OPENING_NOTES: list[PublicText] = []


def opening_note(fn: _P) -> _P:
    if fn not in OPENING_NOTES:
        OPENING_NOTES.append(fn)
    return fn


# What a module adds to the proposal's form, after the names (Excalibur's holder, say), where
# the bot shows the leader how to write a team (words.propose_form):
#     @propose_tail
#     def _tail(state) -> str | None: ...        # "; EXCALIBUR: name"
ProposeTail = Callable[["GameState"], "str | None"]
PROPOSE_TAILS: list[ProposeTail] = []


def propose_tail(fn: ProposeTail) -> ProposeTail:
    if fn not in PROPOSE_TAILS:
        PROPOSE_TAILS.append(fn)
    return fn


# Lines a module adds to another module's public text of an event (Excalibur's word in the
# core's proposal prompt, say), after it, in the same post:
#     @public_note(ev.PROPOSAL_OPENED)
#     def _note(state, e, tag, m) -> str | None: ...
NOTES: dict[str, list[PublicText]] = {}


def public_note(*types: str | type[Event]) -> Callable[[_P], _P]:
    def register(fn: _P) -> _P:
        for t in map(_name, types):
            fns = NOTES.setdefault(t, [])
            if fn not in fns:
                fns.append(fn)
        return fn
    return register


# What HELP tells a player: the step a module's phase asks of the one who must act, and
# lines a module adds for anyone (the leader's PROPOSE with Excalibur, say).
#     @help_step("excalibur")
#     def _step(state, seat, m) -> str: ...
#     @help_note
#     def _note(state, seat, m) -> str | None: ...
HelpText = Callable[["GameState", str, Any], "str | None"]
HELP_STEPS: dict[str, HelpText] = {}
HELP_NOTES: list[HelpText] = []


def help_step(*phases: str) -> Callable[[HelpText], HelpText]:
    def register(fn: HelpText) -> HelpText:
        for phase in phases:
            HELP_STEPS[phase] = fn
        return fn
    return register


def help_note(fn: HelpText) -> HelpText:
    if fn not in HELP_NOTES:
        HELP_NOTES.append(fn)
    return fn


# --- the archive page ----------------------------------------------------------------------
# What a rule module tells of its events on the archive page (archive/story.py and page.py
# are loops over these and name no module):
#
#     @moment(LadyUsed)
#     def _lady(state, e, reveal, name) -> dict | None: ...   # a public moment of a mission
#     @timeline_item(AssassinationOverdue)
#     def _overdue(state, e, name) -> dict | None: ...        # an item of the timeline
#     @undoes_vote(TeamVetoed)
#     def _vetoed(e) -> tuple[int, int]: ...                  # the closed vote (mission, proposal) it undoes
#     @reveal_note
#     def _shot(state, events) -> str | None: ...             # a line under the spies at the reveal
#     now_text("assassination", "The assassination: ...")     # the open step of a module's phase
#
# `name(seat)` is the username on a seat as the thread named it then. A moment or an item is
# {"symbol", "kind", "text"} (an item: {"kind", "label", "symbol", "text"}).
Moment = Callable[..., "dict | None"]  # fn(state, e, reveal, name), `e` typed as its event's class
Item = Callable[..., "dict | None"]  # fn(state, e, name)
Undone = Callable[[Any], "tuple[int, int]"]  # fn(e)
RevealNote = Callable[..., "str | None"]  # fn(state, events)
_F = TypeVar("_F", bound=Callable[..., Any])

MOMENTS: dict[str, Moment] = {}
ITEMS: dict[str, Item] = {}
UNDONE: dict[str, Undone] = {}
REVEAL_NOTES: list[RevealNote] = []
NOW: dict[str, str] = {}


def _one_each(table: dict, what: str, types: tuple[type[Event], ...]) -> Callable[[_F], _F]:
    def register(fn: _F) -> _F:
        for t in types:
            if table.get(t.type, fn) is not fn:
                raise ValueError(f"two {what} for the event {t.type}")
            table[t.type] = fn
        return fn
    return register


def moment(*types: type[Event]) -> Callable[[_F], _F]:
    return _one_each(MOMENTS, "moments", types)


def timeline_item(*types: type[Event]) -> Callable[[_F], _F]:
    return _one_each(ITEMS, "timeline items", types)


def undoes_vote(*types: type[Event]) -> Callable[[_F], _F]:
    return _one_each(UNDONE, "undone votes", types)


def reveal_note(fn: _F) -> _F:
    if fn not in REVEAL_NOTES:
        REVEAL_NOTES.append(fn)
    return fn


def now_text(phase: str, text: str) -> None:
    NOW[phase] = text


_loaded = False


def load() -> None:
    """Import every module of render/ and render/modules/, so that each has registered its
    texts (the thread's, the PMs', HELP's and the archive page's)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    here = pathlib.Path(__file__).parent
    for folder, package in ((here, __package__), (here / "modules", f"{__package__}.modules")):
        for info in pkgutil.iter_modules([str(folder)]):
            if not info.ispkg:
                importlib.import_module(f"{package}.{info.name}")
