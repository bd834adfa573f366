"""Excalibur: who holds it with each team, the holder's prompt, and its use. The thread
learns only who used it on whom; the order it switched goes to the holder alone."""
from __future__ import annotations

from typing import Any

from ..rules import events as ev
from ..rules.events import Event
from ..rules.excalibur import GIVEN, KEY, OPENED, PASSED, PHASE, USED
from ..rules.state import PROPOSAL, GameState
from .registry import help_note, help_step, private, public, public_note
from .words import Message, when


@public(GIVEN)
def _given(state: GameState, e: Event, tag: str, m: Any) -> str:
    return f"{m.bold(e.data['holder'])} holds {m.bold('Excalibur')} for this team."


@public(OPENED)
def _opened(state: GameState, e: Event, tag: str, m: Any) -> str:
    return (f"Every order is in. {e.data['holder']} holds Excalibur and may switch one other team "
            f"member's order, by PM, by {when(e.at, state.config.deadlines.choice, state)}.")


@private(OPENED)
def _prompt(state: GameState, e: Event, tag: str, m: Any) -> list[Message]:
    d = e.data
    others = ", ".join(n for n in state.team if n != d["holder"])
    return [Message(f"excalibur:{d['holder']}", f"{tag}: you hold Excalibur. Every order of mission "
                    f"{d['mission']} is in. To switch one team member's order (SUPPORT becomes SABOTAGE, "
                    f"and back), PM me {m.bold('EXCALIBUR: name')} (one of {others}); or "
                    f"{m.bold('PASS')}. You will learn the order it was.",
                    to=d["holder"], subject=f"{tag}: Excalibur", priority=0)]


@public(USED)
def _used(state: GameState, e: Event, tag: str, m: Any) -> str:
    return f"{e.data['holder']} uses Excalibur on {m.bold(e.data['target'])}."


@private(USED)
def _before(state: GameState, e: Event, tag: str, m: Any) -> list[Message]:
    d = e.data
    now = "SABOTAGE" if d["was"] == "support" else "SUPPORT"
    return [Message(f"excalibur:{d['holder']}", f"{tag}: Excalibur shows you that {m.bold(d['target'])}'s "
                    f"order was {m.bold(d['was'].upper())}. It counts as {now}.",
                    to=d["holder"], subject=f"{tag}: Excalibur", priority=0)]


@public(PASSED)
def _passed(state: GameState, e: Event, tag: str, m: Any) -> str:
    why = "" if e.data["reason"] == "passed" else f" ({e.data['reason']})"
    return f"Excalibur is not used on mission {e.data['mission']}{why}."


@help_step(PHASE)
def _help_holder(state: GameState, seat: str, m: Any) -> str:
    return (f"you hold Excalibur: PM me {m.bold('EXCALIBUR: name')} (another team member) to switch "
            f"their order, or {m.bold('PASS')}.")


@help_note
def _help_leader(state: GameState, seat: str, m: Any) -> str | None:
    if state.config.options.get(KEY) and state.phase == PROPOSAL and state.leader == seat:
        return (f"With Excalibur, name its holder too (a team member other than you): "
                f"{m.bold('PROPOSE: name, name; EXCALIBUR: name')}.")
    return None


@public_note(ev.PROPOSAL_OPENED)
def _prompt_note(state: GameState, e: Event, tag: str, m: Any) -> str | None:
    if not state.config.options.get(KEY):
        return None
    return f"With the team, name who holds Excalibur: {m.bold('PROPOSE: name, name; EXCALIBUR: name')}."
