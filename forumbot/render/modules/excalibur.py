"""Excalibur: who holds it with each team, the holder's prompt, and its use. The thread
learns only who used it on whom; the order it switched goes to the holder alone."""
from __future__ import annotations

from typing import Any

from ...rules import events as ev
from ...rules.deadlines import format_duration
from ...rules.events import GameStarted, ProposalOpened
from ...rules.modules.excalibur import KEY, PHASE, ExcaliburGiven, ExcaliburOpened, ExcaliburPassed, ExcaliburUsed
from ...rules.state import PROPOSAL, GameState
from ..registry import help_note, help_step, moment, opening_note, private, propose_tail, public, public_note
from ..words import Message, propose_form, when


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
    team = next((x.team for x in state.missions if x.number == e.mission), state.team)  # (a later state: its record)
    others = [state.shown(n) for n in team if n != e.holder and not state.player(n).disqualified]
    done = (f"Mission {e.mission} is closed, and the defaults fill the missing orders" if e.closed
            else f"Every order of mission {e.mission} is in")
    if len(others) == 1:  # a two-person team: the one other member, by name
        how = (f"To switch {others[0]}'s order (SUPPORT becomes SABOTAGE, and back), PM me "
               f"{m.bold('EXCALIBUR: ' + others[0])}; or {m.bold('PASS')}. You will learn the order it was.")
    elif others:
        how = (f"To switch one team member's order (SUPPORT becomes SABOTAGE, and back), PM me "
               f"{m.bold('EXCALIBUR: name')} (one of {', '.join(others)}); or {m.bold('PASS')}. You will "
               "learn the order it was.")
    else:  # (every other member is disqualified: their orders are defaults, which it cannot switch)
        how = f"No other team member's order can be switched: PM me {m.bold('PASS')}."
    return [Message(f"excalibur:{e.holder}", f"{tag}: you hold Excalibur. {done}. {how}",
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
        return "With Excalibur, name its holder too: a team member other than you."
    return None


@public_note(ev.PROPOSAL_OPENED)
def _prompt_note(state: GameState, e: ProposalOpened, tag: str, m: Any) -> str | None:
    if not state.config.options.get(KEY):
        return None
    return f"With the team, name who holds Excalibur: {m.bold(propose_form(state, e.team_size))}."


@propose_tail
def _tail(state: GameState) -> str | None:
    return "; EXCALIBUR: name" if state.config.options.get(KEY) else None


@opening_note
def _opening(state: GameState, e: GameStarted, tag: str, m: Any) -> str | None:
    if not state.config.options.get(KEY):
        return None
    choice = state.config.deadlines.choice if state.config.deadlines else None
    within = f", within {format_duration(choice)}" if choice else ""
    return (f"{m.bold('Excalibur')}: with each team the leader also names a team member other than "
            f"himself to hold Excalibur: {m.bold(propose_form(state))}. Once the team is approved "
            "and every order is in (or the mission's time is up and the defaults fill the missing "
            "ones), the holder may switch one other team member's order, SUPPORT to SABOTAGE or "
            f"back, by PM: {m.bold('EXCALIBUR: name')}, or {m.bold('PASS')}{within}. The holder "
            "learns the order it was; the thread learns only who used Excalibur on whom. The "
            "mission counts the switched order.")


# --- the archive page: who held Excalibur on each mission, and whom it was used on (never the
# order: the thread never learns it). Registered by archive/modules/excalibur.py; `name(seat)`
# is the username on a seat as the thread named it then.
@moment(ExcaliburUsed)
def archive_used(state: GameState, e: ExcaliburUsed, reveal: bool, name) -> dict:
    return {"symbol": "⚔", "kind": "Excalibur",
            "text": f"{name(e.holder)} held Excalibur and used it on {name(e.target)}."}


@moment(ExcaliburPassed)
def archive_passed(state: GameState, e: ExcaliburPassed, reveal: bool, name) -> dict:
    why = {"passed": "did not use it", "the deadline passed": "did not use it in time",
           "the holder is disqualified": "could not use it (disqualified)"}
    return {"symbol": "⚔", "kind": "Excalibur",
            "text": f"{name(e.holder)} held Excalibur and {why.get(e.reason, f'did not use it ({e.reason})')}."}
