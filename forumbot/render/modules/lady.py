"""The Lady of the Lake: who holds it, whom it is used on, and the holder's PM; its line
in the opening post, and its step in HELP."""
from __future__ import annotations

from ...rules.events import GameStarted
from ...rules.modules.lady import PHASE, LadyOpened, LadySkipped, LadyUsed, holder
from ...rules.state import GameState
from ..markup import Markup
from ..registry import help_step, moment, opening_note, private, public
from ..words import Message, limits, side_member, side_name, when


@public(LadyOpened.type)
def _lady_opened(state: GameState, e: LadyOpened, tag: str, m: Markup) -> str:
    holder = state.shown(e.holder)
    return (f"{holder} holds the Lady of the Lake: {holder}, name a player who has not "
            f"held it, {m.bold('LADY: name')}, by {when(e.at, limits(state).choice, state)}.")


@public(LadyUsed.type)
def _lady_used(state: GameState, e: LadyUsed, tag: str, m: Markup) -> str:
    target = state.shown(e.target)
    return (f"{state.shown(e.holder)} uses the Lady of the Lake on {m.bold(target)}. The Lady passes "
            f"to {target}.")


@private(LadyUsed.type)
def _lady_shows(state: GameState, e: LadyUsed, tag: str, m: Markup) -> list[Message]:
    return [Message(f"lady:{e.holder}", f"{tag}: the Lady of the Lake shows you that "
                    f"{m.bold(state.shown(e.target))} is {side_member(state, e.side)}.",
                    to=state.shown(e.holder), subject=f"{tag}: the Lady of the Lake", priority=0)]


@public(LadySkipped.type)
def _lady_skipped(state: GameState, e: LadySkipped, tag: str, m: Markup) -> str:
    return (f"The Lady of the Lake is not used this time ({e.reason}); it stays with "
            f"{state.shown(e.holder)}.")


@opening_note
def _lady_starts(state: GameState, e: GameStarted, tag: str, m: Markup) -> str | None:
    first = holder(state)
    if first is None:
        return None
    return (f"The {m.bold('Lady of the Lake')} starts with {state.shown(first)}. Right "
            "after missions 2, 3 and 4 its holder names a player who has not held it "
            f"({m.bold('LADY: name')}) and learns their allegiance by PM.")


@help_step(PHASE)
def _help_holder(state: GameState, seat: str, m: Markup) -> str:
    return f"you hold the Lady of the Lake: post {m.bold('LADY: name')} (someone who has not held it)."


# --- the archive page: its use, and what it showed once the game is over


@moment(LadyUsed)
def _page_used(state: GameState, e: LadyUsed, reveal: bool, name) -> dict:
    text = f"{name(e.holder)} uses the Lady of the Lake on {name(e.target)}."
    if reveal:
        text += f" The Lady showed {side_name(state, e.side)}."
    return {"symbol": "◈", "kind": "Lady of the Lake", "text": text}


@moment(LadySkipped)
def _page_skipped(state: GameState, e: LadySkipped, reveal: bool, name) -> dict:
    return {"symbol": "◈", "kind": "Lady of the Lake", "text": f"Not used ({e.reason})."}
