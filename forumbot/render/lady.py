"""The Lady of the Lake: who holds it, whom it is used on, and the holder's PM."""
from __future__ import annotations

from ..rules import events as ev
from ..rules.events import Event
from ..rules.state import GameState
from .markup import Markup
from .registry import private, public
from .words import Message, limits, side_name, when


@public(ev.LADY_OPENED)
def _lady_opened(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    return (f"{d['holder']} holds the Lady of the Lake: {d['holder']}, name a player who has not "
            f"held it, {m.bold('LADY: name')}, by {when(e.at, limits(state).choice, state)}.")


@public(ev.LADY_USED)
def _lady_used(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    return (f"{d['holder']} uses the Lady of the Lake on {m.bold(d['target'])}. The Lady passes "
            f"to {d['target']}.")


@private(ev.LADY_USED)
def _lady_shows(state: GameState, e: Event, tag: str, m: Markup) -> list[Message]:
    d = e.data
    return [Message(f"lady:{d['holder']}", f"{tag}: the Lady of the Lake shows you that "
                    f"{m.bold(d['target'])} is one of {side_name(state, d['side'])}.",
                    to=d["holder"], subject=f"{tag}: the Lady of the Lake", priority=0)]


@public(ev.LADY_SKIPPED)
def _lady_skipped(state: GameState, e: Event, tag: str, m: Markup) -> str:
    return f"The Lady of the Lake is not used this time ({e.data['reason']}); it stays with {e.data['holder']}."
