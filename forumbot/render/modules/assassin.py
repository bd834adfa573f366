"""The assassination: the Assassin's shot at Merlin, and the host's word when it is late;
the Assassin's line in its role PM, and its step in HELP."""
from __future__ import annotations

from ...rules.modules.assassin import PHASE, Assassinated, AssassinationOpened, AssassinationOverdue
from ...rules.state import GameState
from ..markup import Markup
from ..registry import help_step, now_text, private, public, reveal_note, role_end_note, timeline_item
from ..words import Message, host_plays, limits, when


@public(AssassinationOpened.type)
def _assassination_opened(state: GameState, e: AssassinationOpened, tag: str, m: Markup) -> str:
    return ("Three missions have succeeded, but it is not over: the Assassin now names the "
            f"player they believe is Merlin, in the thread: {m.bold('ASSASSINATE: name')}, by "
            f"{when(e.at, limits(state).choice, state)}. The first valid shot is final.")


@private(AssassinationOpened.type)
def _assassin_pm(state: GameState, e: AssassinationOpened, tag: str, m: Markup) -> list[Message]:
    return [Message("assassin", f"{tag}: three missions have succeeded. As the Assassin, "
                    f"post {m.bold('ASSASSINATE: name')} in the thread.",
                    to=state.shown(e.assassin), subject=f"{tag}: name Merlin", priority=0)]


@public(Assassinated.type)
def _assassinated(state: GameState, e: Assassinated, tag: str, m: Markup) -> str:
    verdict = "and hits Merlin" if e.hit else "and misses: they were not Merlin"
    return f"The Assassin, {state.shown(e.assassin)}, names {m.bold(state.shown(e.target))} {verdict}."


@public(AssassinationOverdue.type)
def _assassination_overdue(state: GameState, e: AssassinationOverdue, tag: str, m: Markup) -> str:
    return "The Assassin's deadline has passed. The game waits for the shot; the host has been told."


@private(AssassinationOverdue.type)
def _host_overdue(state: GameState, e: AssassinationOverdue, tag: str, m: Markup) -> list[Message]:
    who = "" if host_plays(state) else f" ({state.shown(e.assassin)})"  # never to a playing host
    return [Message("host-assassin", f"{tag}: the assassination deadline has passed and "
                    f"the Assassin{who} has not shot. The game waits; "
                    "there is no default for the shot.",
                    to=state.config.host, subject=f"{tag}: the assassination waits")]


@role_end_note
def _assassin_role(state: GameState, seat: str, m: Markup) -> str | None:
    mine = state.seat(seat)
    if mine is None or mine.role != "assassin":
        return None
    return ("If three missions succeed, you name Merlin in the thread: "
            + m.bold("ASSASSINATE: name") + ". If you are right, your side wins.")


@help_step(PHASE)
def _help_assassin(state: GameState, seat: str, m: Markup) -> str:
    return f"you are the Assassin: name Merlin in the thread with {m.bold('ASSASSINATE: name')}."


# --- the archive page: the open step, a deadline that passed, and the shot under the spies
# at the reveal

now_text(PHASE, "The assassination: the Assassin names the player they believe is Merlin.")


@timeline_item(AssassinationOverdue)
def _page_overdue(state: GameState, e: AssassinationOverdue, name) -> dict:
    return {"kind": "bot", "label": "Bot", "symbol": "⟳",
            "text": "The assassination's deadline passed; the game waited for the shot."}


@reveal_note
def _page_shot(state: GameState, events) -> str | None:
    shot = next((e for e in events if isinstance(e, Assassinated)), None)
    if shot is None:
        return None
    return (f"{state.shown(shot.assassin)}, the Assassin, named {state.shown(shot.target)}: "
            + ("Merlin, a hit." if shot.hit else "a miss, they were not Merlin."))
