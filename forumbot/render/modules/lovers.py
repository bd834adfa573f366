"""Tristan and Isolde: each lover's role PM names the other; the Assassin is told of the
double shot, and so is everyone: the opening post, the assassination prompt, the
Assassin's role PM and HELP say the Assassin may name both lovers instead of Merlin, and
how; the thread hears whom the Assassin named."""
from __future__ import annotations

from typing import Any

from ...rules.events import GameStarted
from ...rules.modules.assassin import PHASE as ASSASSINATION
from ...rules.modules.assassin import AssassinationOpened
from ...rules.modules.lovers import LoversShot, lover_of, lovers
from ...rules.state import SPIES, GameState
from ..registry import help_note, opening_note, private, public, public_note, reveal_note, role_end_note, role_note
from ..words import Message, side_wins


@role_note
def _your_lover(state: GameState, seat: str, m: Any) -> str | None:
    other = lover_of(state, seat)  # (`seat`: the id of the seat whose role PM this is)
    if other is None:
        return None
    return (f"Your lover: {m.bold(state.shown(other))}. You know each other, and nothing else. If the "
            "Assassin names you both, your side loses.")


@private(AssassinationOpened.type)
def _double_shot(state: GameState, e: AssassinationOpened, tag: str, m: Any) -> list[Message]:
    if len(lovers(state)) < 2:
        return []
    return [Message("assassin:lovers", f"{tag}: Tristan and Isolde are in this game. Instead of "
                    f"Merlin you may name both lovers: {m.bold('ASSASSINATE: name, name')}. If both "
                    "are the lovers, your side wins.",
                    to=state.shown(e.assassin), subject=f"{tag}: or name the lovers", priority=0)]


@public(LoversShot.type)
def _shot(state: GameState, e: LoversShot, tag: str, m: Any) -> str:
    a, b = (state.shown(t) for t in e.targets)
    verdict = "and finds the lovers" if e.hit else "and misses: they were not both lovers"
    return (f"The Assassin, {state.shown(e.assassin)}, names {m.bold(a)} and {m.bold(b)} as Tristan "
            f"and Isolde {verdict}.")


def _in_game(state: GameState) -> bool:
    return len(lovers(state)) == 2


def _form(m: Any) -> str:
    return m.bold("ASSASSINATE: name, name")


@opening_note
def _opening(state: GameState, e: GameStarted, tag: str, m: Any) -> str | None:
    if not _in_game(state):
        return None
    return (f"{m.bold('Tristan and Isolde')}: two loyal servants who know each other as lovers, and "
            "nothing else. At the assassination the Assassin may, instead of naming Merlin, name "
            f"both lovers: {_form(m)}. If both are Tristan and Isolde, "
            f"{side_wins(state, SPIES)}; if not, they lose.")


@public_note(AssassinationOpened.type)
def _prompt_note(state: GameState, e: AssassinationOpened, tag: str, m: Any) -> str | None:
    if not _in_game(state):
        return None
    return (f"Tristan and Isolde are in this game: instead of Merlin, the Assassin may name both "
            f"lovers, {_form(m)}. If both are the lovers, {side_wins(state, SPIES)}; if not, they lose.")


@role_end_note
def _assassin_role(state: GameState, seat: str, m: Any) -> str | None:
    mine = state.seat(seat)
    if mine is None or mine.role != "assassin" or not _in_game(state):
        return None
    return (f"Tristan and Isolde are in this game: instead of Merlin you may name both lovers, "
            f"{_form(m)}. If both are the lovers, your side wins; if not, it loses.")


@help_note
def _help_assassin(state: GameState, seat: str, m: Any) -> str | None:
    mine = state.seat(seat)
    if state.phase != ASSASSINATION or mine is None or mine.role != "assassin" or not _in_game(state):
        return None
    return f"Or, instead of Merlin, name both lovers, Tristan and Isolde: {_form(m)}."


# --- the archive page: the double shot, under the spies at the reveal (registered by
# archive/modules/lovers.py, as the shot at Merlin is by archive/modules/assassin.py).
@reveal_note
def archive_shot(state: GameState, events) -> str | None:
    shot = next((e for e in events if isinstance(e, LoversShot)), None)
    if shot is None:
        return None
    a, b = (state.shown(t) for t in shot.targets)
    return (f"{state.shown(shot.assassin)}, the Assassin, named {a} and {b} as Tristan and Isolde: "
            + ("both lovers, a hit." if shot.hit else "a miss, they were not both lovers."))
