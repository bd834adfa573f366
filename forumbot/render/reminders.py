"""The clock's words: reminders before a deadline, the host's notice of a player who keeps
missing, and a deadline moved on because nobody could act on it."""
from __future__ import annotations

from datetime import datetime

from ..rules import events as ev
from ..rules.deadlines import due, stamp
from ..rules.events import DeadlineMoved, MissionResolved, RemindersSent, VoteClosed
from ..rules.hooks import phase_words
from ..rules.state import GameState
from .markup import Markdown, Markup
from .registry import private, public
from .words import Message, free_reserves, missed_rules, order_forms, propose_form, vote_forms

# Per phase: what a player still has to do, and the command to type (shown in bold).
REMINDER_FORMS = {
    "proposal": ("post your team: ", "PROPOSE: name, name"),
    "team_vote": ("vote on the team: ", "APPROVE", " or ", "REJECT"),
    "mission": ("send your mission order by PM: ", "SUPPORT", " or ", "SABOTAGE"),
}


def reminder_words(phase: str, m: Markup) -> str:
    """Words and commands alternate in REMINDER_FORMS: every second part is bold."""
    parts = REMINDER_FORMS.get(phase)
    if parts is None:
        return "act: see the thread"
    return "".join(m.bold(p) if i % 2 else p for i, p in enumerate(parts))


REMINDER_WORDS = {phase: reminder_words(phase, Markdown()) for phase in REMINDER_FORMS}


@private(ev.REMINDERS_SENT)
def _reminders(state: GameState, e: RemindersSent, tag: str, m: Markup) -> list[Message]:
    return [Message(f"remind:{seat}", _reminder(state, e, tag, m, seat), to=state.shown(seat),
                    subject=f"{tag}: reminder", priority=2)
            for seat in e.players]


def _reminder(state: GameState, e: RemindersSent, tag: str, m: Markup, seat: str) -> str:

    when = due(state)
    what = reminder_words(e.phase, m)
    if e.phase == "proposal":  # (with what a rule module adds to a team: Excalibur's holder)
        what = "post your team: " + m.bold(propose_form(state))
    if state.config.words and e.phase in ("team_vote", "mission"):  # with the host's own words
        forms = vote_forms(state.config, m) if e.phase == "team_vote" else order_forms(state.config, m)
        what = REMINDER_FORMS[e.phase][0] + forms
    by = f" by {stamp(when, state.config)}" if when else ""
    return f"{tag} reminder: you still have to {what}{by}."


@private(ev.VOTE_CLOSED, ev.MISSION_RESOLVED)
def _missed_notices(state: GameState, e: VoteClosed | MissionResolved, tag: str, m: Markup) -> list[Message]:
    return _missed_notice(state, e, tag, m)


def _missed_notice(state: GameState, e: VoteClosed | MissionResolved, tag: str,
                   m: Markup | None = None) -> list[Message]:
    """missed.notify_host_after: the host hears when a player has missed that many in a row."""
    m = m or Markdown()  # (its old callers gave no markup)
    after = missed_rules(state).notify_host_after
    if not after or (e.type == ev.MISSION_RESOLVED and not missed_rules(state).orders_count):
        return []
    out = []
    for seat_id in e.defaulted:
        seat = state.seat(seat_id)
        if seat is not None and seat.missed == after and not seat.disqualified:
            name = seat.name
            reserves = free_reserves(state)
            offer = f" Your reserves: {', '.join(reserves)}." if reserves else ""
            replace = m.code(f"REPLACE {tag} {name} WITH {reserves[0] if reserves else 'newname'}")
            out.append(Message(f"missed:{seat_id}", f"{tag}: {name} has missed {after} in a row. Nothing "
                               f"happens to them for it; if they are gone, PM me {replace} "
                               f"or {m.code(f'DISQUALIFY {tag} {name}')}.{offer}",
                               to=state.config.host, subject=f"{tag}: {name} is missing"))
    return out


@public(ev.DEADLINE_MOVED)
def _deadline_moved(state: GameState, e: DeadlineMoved, tag: str, m: Markup) -> str:
    step = phase_words(e.phase)
    step = "the open " + step.removeprefix("the ") if step.startswith("the ") else step
    gone = ("the forum could not be read" if e.reason == "forum" else "the bot was not running")
    since, was, until = (datetime.fromisoformat(x) for x in (e.down_since, e.was, e.until))
    return (f"{gone[0].upper()}{gone[1:]} from {stamp(since, state.config)} to "
            f"{stamp(e.at, state.config)}, so the deadline of {step}, "
            f"{stamp(was, state.config)}, fell while nobody could act on it. It is now "
            f"{m.bold(stamp(until, state.config))}.")
