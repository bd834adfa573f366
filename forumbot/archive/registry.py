"""What a rule module adds to the archive page. Each module of archive/modules/ registers,
per event type, what the page tells of it; story.py and page.py are loops over these and
name no module.

    @moment(LadyUsed)
    def _lady(state, e, reveal, name) -> dict | None: ...   # a public moment of a mission
    @timeline_item(AssassinationOverdue)
    def _overdue(state, e, name) -> dict | None: ...        # an item of the timeline
    @undoes_vote(TeamVetoed)
    def _vetoed(e) -> tuple[int, int]: ...                  # the closed vote (mission, proposal) it undoes
    @reveal_note
    def _shot(state, events) -> str | None: ...             # a line under the spies at the reveal
    now_text("assassination", "The assassination: ...")     # the open step of a module's phase

`name(seat)` is the username on a seat as the thread named it then. A moment or an item is
{"symbol", "kind", "text"} (an item: {"kind", "label", "symbol", "text"}). A module of
archive/modules/ is found by `load()`; a new rule's part of the page is one new file there.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:
    from ..rules.events import Event

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


def _register(table: dict, what: str, types: tuple["type[Event]", ...]) -> Callable[[_F], _F]:
    def register(fn: _F) -> _F:
        for t in types:
            if table.get(t.type, fn) is not fn:
                raise ValueError(f"two {what} for the event {t.type}")
            table[t.type] = fn
        return fn
    return register


def moment(*types: "type[Event]") -> Callable[[_F], _F]:
    return _register(MOMENTS, "moments", types)


def timeline_item(*types: "type[Event]") -> Callable[[_F], _F]:
    return _register(ITEMS, "timeline items", types)


def undoes_vote(*types: "type[Event]") -> Callable[[_F], _F]:
    return _register(UNDONE, "undone votes", types)


def reveal_note(fn: _F) -> _F:
    if fn not in REVEAL_NOTES:
        REVEAL_NOTES.append(fn)
    return fn


def now_text(phase: str, text: str) -> None:
    NOW[phase] = text


_loaded = False


def load() -> None:
    """Import every module of archive/modules/, so that each has registered its part."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import modules

    for info in pkgutil.iter_modules(modules.__path__):
        if not info.ispkg:
            importlib.import_module(f"{modules.__name__}.{info.name}")
