"""Excalibur (avalon, `excalibur: true`; variants.md, "Beyond the seeds"). With each team
the leader names a team member other than himself to hold Excalibur: `PROPOSE: a, b, c;
EXCALIBUR: b`. Once the team is approved and every order is in, the holder may, within
`deadlines.choice`, switch one other team member's order (`EXCALIBUR: name` by PM), or
`PASS`; a missed choice, or a disqualified holder, is a PASS. The holder learns by PM the
order it was before; the thread learns only who used Excalibur on whom. The mission is
counted with the switched order (a loyal member's SABOTAGE made by Excalibur counts: it is
the holder's act, not the member's). A mission closed before every order is in (its deadline,
the host's CLOSE) has its missing orders filled by the defaults, and then the holder gets the
window all the same (variants.md, "Excalibur after a mission closed early"): a spy cannot
block Excalibur by staying silent. In the Spotlight and Keeping a Close Eye on You show the
order as sent, before the switch (`as_sent`).

Everything the plug-in keeps is `state.extra["excalibur"]`, an `Excalibur`, changed only
by its events.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..commands import Command, Propose, Refusal, said
from ..events import Event, TeamProposed, event, opt
from ..missions import default_order, resolve_mission
from ..plugin import ConfigKey, Parsed, RulePlugin, Word
from ..state import GameState, open_phase, register_fold

PHASE = "excalibur"
KEY = "excalibur"

GIVEN = "excalibur_given"  # the leader named the holder with a proposal
OPENED = "excalibur_opened"  # every order is in: the holder may use it
USED = "excalibur_used"  # holder, target, was (the order before: the holder's PM only)
PASSED = "excalibur_passed"  # holder, reason


@dataclass(frozen=True)
class Excalibur:
    """Who holds Excalibur on the team being voted on or on its mission."""

    holder: str
    mission: int
    proposal: int
    switched: str | None = None  # the team member whose order the holder switched
    was: str | None = None  # that order as sent (or its default), before the switch


@dataclass(frozen=True, slots=True)
class WieldExcalibur(Command):
    """The holder switches `target`'s order; None: PASS."""

    target: str | None
    via: str = "pm"


@event(GIVEN)
class ExcaliburGiven(Event):
    holder: str
    mission: int
    proposal: int


@event(OPENED)
class ExcaliburOpened(Event):
    holder: str
    mission: int
    closed: bool = opt(False)  # the mission was closed early: the defaults filled the missing orders


@event(USED)
class ExcaliburUsed(Event):
    holder: str
    target: str
    was: str  # the target's order before (support | sabotage): the holder's PM only
    mission: int


@event(PASSED)
class ExcaliburPassed(Event):
    holder: str
    mission: int
    reason: str  # passed | the deadline passed | the holder is disqualified


@register_fold(ExcaliburGiven.type)
def _given(state: GameState, e: ExcaliburGiven) -> None:
    state.put_extra(KEY, Excalibur(e.holder, e.mission, e.proposal))


@register_fold(ExcaliburOpened.type)
def _opened(state: GameState, e: ExcaliburOpened) -> None:
    open_phase(state, PHASE, e, [e.holder])


@register_fold(ExcaliburUsed.type)
def _used(state: GameState, e: ExcaliburUsed) -> None:
    x = state.extra.get(KEY)
    if x is not None:  # (the count, engine.resolve_mission, is told the switched order)
        state.put_extra(KEY, Excalibur(x.holder, x.mission, x.proposal, e.target, e.was))


@register_fold(ExcaliburPassed.type)
def _passed(state: GameState, e: ExcaliburPassed) -> None:
    pass


def holder(state: GameState) -> str | None:
    x = state.extra.get(KEY)
    return x.holder if x is not None and x.mission == state.mission else None


def switched(was: str) -> str:
    return "support" if was == "sabotage" else "sabotage"


def as_sent(state: GameState, mission: int, seat: str, counted: str) -> tuple[str, bool]:
    """The order `seat` sent on `mission` (or its default), before Excalibur, given the order
    that was `counted`; and whether Excalibur switched it."""
    x = state.extra.get(KEY)
    if x is not None and x.mission == mission and x.switched == seat and x.was is not None:
        return x.was, True
    return counted, False


def _switch(value, preset=None) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


FORM = "PROPOSE: a, b, c; EXCALIBUR: b"


class ExcaliburPlugin(RulePlugin):
    name = "excalibur"
    handles = (WieldExcalibur,)
    config_keys = (ConfigKey(KEY, frozenset({"avalon"}), _switch,
                             "true: with each team the leader hands Excalibur to a team member"),)
    words = (Word(re.compile(r"^EXCALIBUR\s*:?\s*(\S+)\s*$", re.I),
                  lambda m, s: _parsed("excalibur", (m.group(1),), s)),)
    suffixes = ("EXCALIBUR",)
    phases = {PHASE: "choice"}
    phase_words = {PHASE: "the use of Excalibur"}
    command_words = {"WieldExcalibur": "EXCALIBUR"}
    demo = {KEY: True}

    # --- intake -------------------------------------------------------------------
    @classmethod
    def reads(cls, state, parsed) -> bool:
        if parsed.verb == "excalibur" or any(k == KEY for k, _ in parsed.more):
            return True
        return parsed.verb == "vote" and parsed.extra == "pass" and state.phase == PHASE

    @classmethod
    def command(cls, state, parsed, seat, via, at, core):
        if parsed.verb == "vote":  # PASS
            return WieldExcalibur(at=at, author=seat, target=None, via=via)
        if parsed.verb == "excalibur":
            found = core.names(parsed.names)
            if isinstance(found, Refusal):
                return found
            return WieldExcalibur(at=at, author=seat, target=found[0], via=via)
        more = dict(parsed.more)
        proposal = core(parsed)
        if not isinstance(proposal, Propose):
            return proposal
        found = core.names([more[KEY]])
        if isinstance(found, Refusal):
            return found
        return Propose(at=proposal.at, author=proposal.author, team=proposal.team,
                       public=proposal.public, more=((KEY, found[0]),))

    # --- the rules ----------------------------------------------------------------
    def before_proposal(self, state, cmd) -> Refusal | None:
        named = dict(cmd.more).get(KEY)
        if named is None:
            return Refusal("With each team the leader names a team member, not himself, to "
                           "hold Excalibur.", said(FORM))
        if named not in cmd.team:
            return Refusal(f"{state.shown(named)} is not on the team you proposed: Excalibur goes to a "
                           "team member.", said(FORM))
        if named == cmd.author:
            return Refusal("The leader hands Excalibur to another team member, not himself.", said(FORM))
        return None

    def after_proposal(self, tx, proposal: TeamProposed, command) -> None:
        named = dict(command.more).get(KEY)
        if named is not None:  # (before_proposal refused a team without one)
            tx.emit(ExcaliburGiven, holder=named, mission=proposal.mission, proposal=proposal.proposal)

    def before_resolve(self, tx) -> bool:
        s = tx.state
        who = holder(s)
        if who is None:
            return False
        if s.player(who).disqualified:
            tx.emit(ExcaliburPassed, holder=who, mission=s.mission, reason="the holder is disqualified")
            return False
        closed = any(n not in s.orders and not s.player(n).disqualified for n in s.team)
        tx.emit(ExcaliburOpened, holder=who, mission=s.mission, closed=closed)
        return True

    def handle(self, tx, cmd: WieldExcalibur) -> Refusal | None:
        s = tx.state
        if s.phase != PHASE:
            return Refusal("Excalibur is not in use now: its holder uses it once every order "
                           "of an approved team is in.", private=cmd.via == "pm")
        who = s.actors[0]
        if cmd.author != who:
            return Refusal(f"Only the holder of Excalibur, {s.shown(who)}, may use it.", private=cmd.via == "pm")
        if cmd.via != "pm":
            return Refusal("Excalibur is used by PM. Your comment was not counted.",
                           "PM the bot " + said("EXCALIBUR: name") + " or " + said("PASS"), private=True)
        if cmd.target is None:
            tx.emit(ExcaliburPassed, holder=who, mission=s.mission, reason="passed")
            resolve_mission(tx)
            return None
        team = [n for n in s.team if n != who]
        if cmd.target not in team:
            return Refusal(f"Name another member of the team: {', '.join(s.shown(n) for n in team)}.",
                           said("EXCALIBUR: name"), private=True)
        if s.player(cmd.target).disqualified:
            return Refusal(f"{s.shown(cmd.target)} is disqualified: their order is the default, and "
                           "Excalibur cannot switch it.", said("EXCALIBUR: name"), private=True)
        was = s.orders.get(cmd.target) or default_order(s, cmd.target)  # (a missed order: its default)
        tx.emit(ExcaliburUsed, holder=who, target=cmd.target, was=was, mission=s.mission)
        resolve_mission(tx, {cmd.target: switched(was)})
        return None

    def on_expire(self, tx) -> bool:
        s = tx.state
        if s.phase != PHASE:
            return False
        tx.emit(ExcaliburPassed, holder=s.actors[0], mission=s.mission, reason="the deadline passed")
        resolve_mission(tx)
        return True

    # --- random play and the demo ------------------------------------------------------
    def random_move(self, state, rng, at):
        if state.phase != PHASE:
            return None
        who = state.actors[0]
        team = [n for n in state.team if n != who and not state.player(n).disqualified]
        if not team or rng.random() < 0.4:
            return WieldExcalibur(at, who, None)
        return WieldExcalibur(at, who, rng.choice(team))

    def random_amend(self, state, rng, command):
        if isinstance(command, Propose):
            others = [n for n in command.team if n != command.author]
            return Propose(command.at, command.author, command.team, command.public,
                           more=((KEY, rng.choice(others)),))
        return command

    def written(self, state, command):
        if isinstance(command, WieldExcalibur):
            return ("EXCALIBUR: " + state.shown(command.target) if command.target else "PASS"), "pm"
        return None


def _parsed(verb: str, names: tuple[str, ...], text: str) -> "Parsed":
    return Parsed(verb, names=names, text=text)


PLUGIN = ExcaliburPlugin
