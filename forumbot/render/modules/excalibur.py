"""Excalibur: who holds it with each team, the holder's prompt, and its use. The thread
learns only who used it on whom; the order it switched goes to the holder alone."""
from __future__ import annotations

from typing import Any

from ...rules import events as ev
from ...rules.events import ProposalOpened
from ...rules.modules.excalibur import KEY, PHASE, ExcaliburGiven, ExcaliburOpened, ExcaliburPassed, ExcaliburUsed
from ...rules.state import PROPOSAL, GameState
from ..registry import help_note, help_step, private, public, public_note
from ..words import Message, when


@public(ExcaliburGiven.type)
def _given(state: GameState, e: ExcaliburGiven, tag: str, m: Any) -> str:
    return f"{m.bold(state.shown(e.holder))} holds {m.bold('Excalibur')} for this team."


@public(ExcaliburOpened.type)
def _opened(state: GameState, e: ExcaliburOpened, tag: str, m: Any) -> str:
    if e.closed:  # (the mission's deadline, or the host's CLOSE)
        return (f"The mission is closed, and the defaults fill the missing orders. {state.shown(e.holder)} "
                f"holds Excalibur and may now switch one other team member's order, by PM, by "
                f"{when(e.at, state.config.deadlines.choice, state)}.")
    return (f"Every order is in. {state.shown(e.holder)} holds Excalibur and may switch one other team "
            f"member's order, by PM, by {when(e.at, state.config.deadlines.choice, state)}.")


@private(ExcaliburOpened.type)
def _prompt(state: GameState, e: ExcaliburOpened, tag: str, m: Any) -> list[Message]:
    others = ", ".join(state.shown(n) for n in state.team if n != e.holder)
    done = (f"Mission {e.mission} is closed, and the defaults fill the missing orders" if e.closed
            else f"Every order of mission {e.mission} is in")
    return [Message(f"excalibur:{e.holder}", f"{tag}: you hold Excalibur. {done}. To switch one team "
                    f"member's order (SUPPORT becomes SABOTAGE, and back), PM me {m.bold('EXCALIBUR: name')} "
                    f"(one of {others}); or {m.bold('PASS')}. You will learn the order it was.",
                    to=state.shown(e.holder), subject=f"{tag}: Excalibur", priority=0)]


@public(ExcaliburUsed.type)
def _used(state: GameState, e: ExcaliburUsed, tag: str, m: Any) -> str:
    return f"{state.shown(e.holder)} uses Excalibur on {m.bold(state.shown(e.target))}."


@private(ExcaliburUsed.type)
def _before(state: GameState, e: ExcaliburUsed, tag: str, m: Any) -> list[Message]:
    now = "SABOTAGE" if e.was == "support" else "SUPPORT"
    return [Message(f"excalibur:{e.holder}", f"{tag}: Excalibur shows you that "
                    f"{m.bold(state.shown(e.target))}'s order was {m.bold(e.was.upper())}. It counts as {now}.",
                    to=state.shown(e.holder), subject=f"{tag}: Excalibur", priority=0)]


@public(ExcaliburPassed.type)
def _passed(state: GameState, e: ExcaliburPassed, tag: str, m: Any) -> str:
    why = "" if e.reason == "passed" else f" ({e.reason})"
    return f"Excalibur is not used on mission {e.mission}{why}."


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
def _prompt_note(state: GameState, e: ProposalOpened, tag: str, m: Any) -> str | None:
    if not state.config.options.get(KEY):
        return None
    return f"With the team, name who holds Excalibur: {m.bold('PROPOSE: name, name; EXCALIBUR: name')}."
