"""The game as pure code: `start` deals, `apply` turns a command into events, `replay`
folds a log back into a state. No I/O, no clock (time comes in on each command), no
global randomness (the deal is seeded)."""
from __future__ import annotations

import random
from datetime import datetime

from . import events as ev
from .commands import (
    Command,
    Expire,
    HostAbort,
    HostClose,
    HostDisqualify,
    HostExtend,
    HostPause,
    HostRecord,
    HostReplace,
    HostResume,
    HostSkip,
    MissionOrder,
    Postpone,
    Propose,
    Refusal,
    Remind,
    TeamVote,
)
from .config import GameConfig
from .events import Event
from .hooks import RulePlugin, plugins_for
from .presets import MISSIONS_TO_WIN, REJECTIONS_TO_LOSE, fails_needed, team_size
from .roles import role_set
from .state import (
    _FOLDS,
    FINISHED,
    MISSION,
    PROPOSAL,
    RESISTANCE,
    SETUP,
    SPIES,
    TEAM_VOTE,
    GameState,
    fold,
    phase_words,
)


class Tx:
    """One command's transaction: a working state and the events emitted so far. The
    working state is a copy-on-write clone of the state the command came to (it shares
    the config and every container no event of this command changes), so a refusal, or
    an exception, leaves the original as it was."""

    __slots__ = ("state", "at", "plugins", "events")

    def __init__(self, state: GameState, at: datetime, plugins: list[RulePlugin]):
        self.state = state.clone()  # copy on write: see GameState.own
        self.at = at
        self.plugins = plugins
        self.events: list[Event] = []

    def emit(self, type_: str, **data) -> Event:
        event = Event(type_, self.at, data)
        state = self.state
        state.last_event_at = self.at  # (fold(state, event), inline)
        f = _FOLDS.get(type_)
        if f is not None:
            f(state, event)
        self.events.append(event)
        return event


def _deal(config: GameConfig, seed: int) -> dict:
    roles_ = role_set(config)
    order, roles = roles_.deal(config, random.Random(seed))
    sides = {n: roles_.side(config, r) for n, r in roles.items()}
    return dict(order=order, roles=roles, sides=sides, seed=seed)


def _start(config: GameConfig, seed: int, at: datetime) -> Tx:
    tx = Tx(GameState(config), at, plugins_for(config))
    deal = _deal(config, seed)
    tx.emit(ev.GAME_STARTED, **deal)
    for p in tx.plugins:
        p.after_start(tx)
    _open_proposal(tx, 1, _first_leader(tx, deal["order"][0]))
    return tx


def start(config: GameConfig, seed: int, at: datetime) -> list[Event]:
    """Deal the game from its seed and open the first proposal."""
    return _start(config, seed, at).events


def started(config: GameConfig, seed: int, at: datetime) -> tuple[GameState, list[Event]]:
    """`start`, with the state after its events (each folded once)."""
    tx = _start(config, seed, at)
    return tx.state, tx.events


def replay(config: GameConfig, seed: int, events: list[Event]) -> GameState:
    """The state after `events`. Refuses a log whose deal is not the seed's."""
    state = GameState(config)
    if events:
        if events[0].type != ev.GAME_STARTED or events[0].data != _deal(config, seed):
            raise ValueError("the event log does not start with this seed's deal")
    for e in events:
        fold(state, e)
    return state


_OVER = (SETUP, FINISHED)  # not running

# How players write each command: for a refusal of one the game does not have.
COMMAND_WORDS = {"Assassinate": "ASSASSINATE", "LadyTarget": "LADY", "GiveCard": "GIVE",
                 "PlayCard": "PLAY", "TakeCard": "TAKE", "Choose": "CHOOSE", "PassCard": "PASS",
                 "ProxyVote": "PROXY"}


def apply(
    state: GameState, command: Command, plugins: list[RulePlugin] | None = None
) -> list[Event] | Refusal:
    """The events a command causes, or why it is refused. `state` is not changed (fold
    the events into it; or use `advance`, which returns the state after them)."""
    owned = state._owned
    try:
        result = advance(state, command, plugins)
    finally:
        state._owned = owned  # the working state is gone: what `state` held is its own again
    return result if result.__class__ is Refusal else result[1]


def advance(
    state: GameState, command: Command, plugins: list[RulePlugin] | None = None
) -> tuple[GameState, list[Event]] | Refusal:
    """The state after a command and the events it caused (each folded once), or why it
    is refused. `state` is not changed; the new state shares with it, copy on write, what
    the command did not change."""
    if state.phase in _OVER:
        return Refusal("This game is over.")
    if plugins is None:
        plugins = plugins_for(state.config)
    handler = _handler(command, plugins) if plugins else _HANDLERS.get(type(command))
    if handler is None:
        word = COMMAND_WORDS.get(type(command).__name__, type(command).__name__.upper())
        return Refusal(f"{word} is not part of this game ({state.config.rules.title}).")
    at, last = command.at, state.last_event_at
    if last and last > at:
        at = last
    tx = Tx(state, at, plugins)
    refusal = handler(tx, command)
    if refusal is not None:
        return refusal
    return tx.state, tx.events


def _handler(command: Command, plugins: list[RulePlugin]):
    handler = _HANDLERS.get(type(command))
    for p in plugins:
        if type(command) in p.handles:
            handler = p.handle
    return handler


# --- proposals ----------------------------------------------------------------------


def _propose(tx: Tx, cmd: Propose) -> Refusal | None:
    s = tx.state
    # The leader may replace a proposal until the first vote on it arrives.
    revising = s.phase == TEAM_VOTE and cmd.author == s.leader and not s.votes and not s.proxied
    if s.phase == TEAM_VOTE and cmd.author == s.leader and not revising:
        return Refusal("Votes have come in on your team, so it stands.")
    if s.phase != PROPOSAL and not revising:
        return Refusal(f"There is no team to propose now: {_phase_words(s)}.")
    if cmd.author != s.leader:
        return Refusal(f"Only the leader, {s.leader}, may propose a team now.")
    size = s.team_size()

    def example() -> str:
        return "**PROPOSE: " + ", ".join(_example_team(s, size)) + "**"

    if len(set(cmd.team)) != len(cmd.team):
        return Refusal("A player can be on the team only once.", example())
    if len(cmd.team) != size:
        return Refusal(
            f"Mission {s.mission} needs a team of {size}; you named {len(cmd.team)}.", example()
        )
    for name in cmd.team:
        seat = s.seat(name)
        if seat is None:
            return Refusal(f"{name} is not a player in this game.", example())
        if seat.disqualified:
            return Refusal(f"{name} is disqualified and cannot go on a mission.", example())
    if s.mission in s.config.rules.public_order_missions:
        if cmd.public is None or cmd.public not in cmd.team:
            public = example()[:-2] + "; PUBLIC: " + _example_team(s, size)[0] + "**"
            if cmd.public is None:
                return Refusal(f"On mission {s.mission} the leader names one team member who plays "
                               "their order in the thread.", public)
            return Refusal(f"{cmd.public} is not on the team you proposed.", public)
    elif cmd.public is not None:
        return Refusal(f"PUBLIC: is not part of mission {s.mission} in this game.", example())
    for p in tx.plugins:
        if (r := p.before_proposal(s, cmd)) is not None:
            return r
    extra = {"public": cmd.public} if cmd.public else {}
    if revising:
        extra["revised"] = True
    barred = sorted({n for p in tx.plugins for n in p.barred_voters(s)}, key=s.names.index) if tx.plugins else ()
    if barred:
        extra["not_voting"] = barred
    proposal = tx.emit(ev.TEAM_PROPOSED, mission=s.mission, proposal=s.attempt, leader=s.leader,
                       team=list(cmd.team), **extra)
    for p in tx.plugins:
        p.after_proposal(tx, proposal.data)
    return None


def _example_team(s: GameState, size: int) -> list[str]:
    names = [x.name for x in s.active()]
    return (names * 2)[:size]


# --- team votes ---------------------------------------------------------------------


def _vote(tx: Tx, cmd: TeamVote) -> Refusal | None:
    s = tx.state
    seat = s.seat(cmd.author)
    if seat is None:
        return Refusal("Only the players of this game can vote.")
    if s.phase != TEAM_VOTE:
        return Refusal(f"No team vote is open now: {_phase_words(s)}.")
    if seat.disqualified:
        return Refusal("You are disqualified: your vote takes the default.", private=True)
    if cmd.author in s.not_voting:
        return Refusal("A card bars you from voting on this proposal.", private=cmd.via == "pm")
    config = s.config
    rules = config.rules
    if cmd.critical:
        if not rules.critical_votes:
            return Refusal("Critical votes are not part of this game.", "**APPROVE** or **REJECT**")
        if cmd.author in s.critical_spent:
            return Refusal("You have spent your Critical Vote already.", "**APPROVE** or **REJECT**")
        if cmd.choice == "abstain":
            return Refusal("A Critical Vote is an APPROVE or a REJECT.", "**CRITICAL APPROVE**")
    if cmd.choice == "abstain" and not config.missed.allow_abstain:
        return Refusal("This game does not allow ABSTAIN: vote APPROVE or REJECT.",
                       "**APPROVE** or **REJECT**")
    if cmd.via == "thread":
        if s.mission in rules.pm_vote_missions:
            return Refusal(
                f"Team votes on mission {s.mission} go by PM only. Your comment was not counted.",
                "PM the bot **APPROVE** or **REJECT**", private=True,
            )
        if config.team_votes == "pm" and not any(p.votes_in_thread(s, cmd.author) for p in tx.plugins):
            return Refusal(
                "Team votes in this game go by PM only, so that they stay secret until the vote "
                "closes. Your comment was not counted.",
                "PM the bot **APPROVE** or **REJECT**",
                private=True,
            )
    for p in tx.plugins:
        if (r := p.before_vote(s, cmd)) is not None:
            return r
    if cmd.critical:
        tx.emit(ev.VOTE_CAST, player=cmd.author, vote=cmd.choice, via=cmd.via, critical=True)
    else:
        tx.emit(ev.VOTE_CAST, player=cmd.author, vote=cmd.choice, via=cmd.via)
    deadlines = s.config.deadlines
    if deadlines.close_early and not deadlines.close_grace and _all_voted(s):
        _close_vote(tx)  # (with close_grace the vote closes that long after the last vote: deadlines.due)
    return None


def _all_voted(s: GameState) -> bool:
    """No one is left to vote (`not s.waiting_for()` in a team vote)."""
    votes, barred = s.votes, s.not_voting
    for seat in s.seats:
        if not seat.disqualified and seat.name not in votes and seat.name not in barred:
            return False
    return True


def _close_vote(tx: Tx) -> None:
    s = tx.state
    default = s.config.missed.team_vote
    abstain_as = s.config.rules.abstain_counts_as
    cast, barred = s.votes, s.not_voting
    votes: dict[str, str] = {}
    defaulted: list[str] = []
    for seat in s.seats:
        name = seat.name
        if name in barred:
            votes[name] = "abstain"  # barred by a card: not counted, not a miss
        elif name in cast and not seat.disqualified:
            vote = cast[name]
            votes[name] = abstain_as if vote == "abstain" and abstain_as else vote
        else:
            votes[name] = default
            defaulted.append(name)
    critical = [n for n in s.names if n in s.critical and n not in defaulted] if s.critical else []
    approve = reject = 0
    for n, v in votes.items():
        if v == "approve":
            approve += 2 if n in critical else 1
        elif v == "reject":
            reject += 2 if n in critical else 1
    record = {
        "mission": s.mission, "proposal": s.attempt, "leader": s.leader, "team": list(s.team), "votes": votes,
        "defaulted": defaulted, "critical": critical, "proxied": dict(s.proxied), "not_voting": list(barred),
        "approve": approve, "reject": reject, "approved": approve > reject,
        "rejections": s.rejections + (0 if approve > reject else 1),
    }
    tx.emit(ev.VOTE_CLOSED, **record)
    if defaulted:
        _disqualify_missing(tx, defaulted)
    for p in tx.plugins:
        p.after_vote(tx, record)
    if not record["approved"]:
        after_rejection(tx)
    elif not (tx.plugins and any(p.before_mission_opens(tx) for p in tx.plugins)):
        open_mission(tx)


def open_mission(tx: Tx) -> None:
    """The approved team goes on its mission (after any window a plug-in held open)."""
    s = tx.state
    tx.emit(ev.MISSION_OPENED, mission=s.mission, leader=s.leader, team=list(s.team),
            fails_needed=s.fails_needed(), public=s.public)
    for p in tx.plugins:
        p.after_mission_opened(tx)
    _maybe_resolve(tx)


def after_rejection(tx: Tx) -> None:
    """A team was rejected (by the vote, or by a card): five in a mission lose; else the
    leadership passes."""
    s = tx.state
    if s.rejections >= REJECTIONS_TO_LOSE:
        _end(tx, SPIES, "rejections")
    else:
        _open_proposal(tx, s.mission, s.next_leader(s.leader))


def _disqualify_missing(tx: Tx, missed: list[str]) -> None:
    s = tx.state
    limit = s.config.missed.disqualify_after
    if not limit:
        return
    for name in missed:
        seat = s.seat(name)
        if not seat.disqualified and seat.missed >= limit:
            tx.emit(ev.PLAYER_DISQUALIFIED, player=name, missed=seat.missed,
                    reason=f"missed {seat.missed} votes in a row")


# --- missions -----------------------------------------------------------------------


def order(tx: Tx, cmd: MissionOrder) -> Refusal | None:
    return _order(tx, cmd)


def _order(tx: Tx, cmd: MissionOrder) -> Refusal | None:
    s = tx.state
    if s.phase != MISSION:
        return Refusal(f"No mission is open now: {_phase_words(s)}.", private=True)
    if cmd.author not in s.team:
        return Refusal(f"You are not on the team of mission {s.mission}.", private=True)
    if cmd.author == s.public and cmd.via == "pm":
        return Refusal("Your order on this mission is public: post it in the thread.",
                       "**SUPPORT** or **SABOTAGE** in a bold comment", private=True)
    if cmd.via != "pm" and cmd.author != s.public:
        return Refusal(
            "Mission orders go by PM only. Your comment was not counted.",
            "PM the bot **SUPPORT** or **SABOTAGE**", private=True,
        )
    seat = s.seat(cmd.author)
    if seat.disqualified:
        return Refusal("You are disqualified: your order takes the default.", private=True)
    if cmd.choice == "sabotage" and seat.side == RESISTANCE:
        p = s.config.rules
        return Refusal(
            f"Members of {p.resistance_name} can only SUPPORT a mission. Your SABOTAGE was not "
            "counted.", "PM the bot **SUPPORT**", private=True,
        )
    for p in tx.plugins:
        if (r := p.before_mission(s, cmd)) is not None:
            return r
    tx.emit(ev.ORDER_CAST, player=cmd.author, order=cmd.choice)
    _maybe_resolve(tx)
    return None


def _maybe_resolve(tx: Tx) -> None:
    s = tx.state
    orders = s.orders
    for name in s.team:  # resolve once no one is left to order (`not s.waiting_for()`)
        if name not in orders and not s.seat(name).disqualified:
            return
    _resolve_mission(tx)


def default_order(state: GameState, name: str) -> str:
    rule = state.config.missed.mission
    side = state.seat(name).side
    if side == RESISTANCE:
        return "support"  # the resistance can never sabotage, whatever the default says
    return "sabotage" if rule in ("sabotage", "by-side") else "support"


def _resolve_mission(tx: Tx) -> None:
    s = tx.state
    orders: dict[str, str] = {}
    defaulted: list[str] = []
    cast = s.orders
    for name in s.team:
        if name in cast and not s.seat(name).disqualified:
            orders[name] = cast[name]
        else:
            orders[name] = default_order(s, name)
            defaulted.append(name)
    sabotages = list(orders.values()).count("sabotage")
    needed = s.fails_needed()
    record = {
        "number": s.mission, "leader": s.leader, "team": list(s.team), "sabotages": sabotages,
        "fails_needed": needed, "result": "fail" if sabotages >= needed else "success",
        "orders": orders, "defaulted": defaulted,
        "count_shown": s.mission not in s.config.rules.hidden_count_missions,
    }
    if s.public:
        record["public"] = s.public
    tx.emit(ev.MISSION_RESOLVED, **record)
    if defaulted and s.config.missed.orders_count:
        _disqualify_missing(tx, defaulted)
    resume_after_mission(tx)


def resume_after_mission(tx: Tx, after=None) -> None:
    """Run the after-mission plug-ins in order, from the one after `after`. One that opens a
    phase of its own (the Lady, a card window) returns True, and calls this again with
    itself as `after` when its phase is over. Then the game goes on."""
    record = tx.state.missions[-1]
    plugins = tx.plugins
    start = plugins.index(after) + 1 if after is not None else 0
    for p in plugins[start:]:
        if p.after_mission(tx, record):
            return
    advance_after_mission(tx)


def advance_after_mission(tx: Tx) -> None:
    """After a mission and whatever follows it: the game ends, or the next mission starts."""
    s = tx.state
    if s.successes() >= MISSIONS_TO_WIN:
        _end(tx, RESISTANCE, "missions")
    elif s.failures() >= MISSIONS_TO_WIN:
        _end(tx, SPIES, "missions")
    else:
        _open_proposal(tx, s.mission + 1, _first_leader(tx, s.next_leader(s.leader)))


def _first_leader(tx: Tx, default: str) -> str:
    for p in tx.plugins:
        if (name := p.first_leader(tx.state)) is not None:
            return name
    return default


# --- deadlines ----------------------------------------------------------------------


def _expire(tx: Tx, cmd: Expire) -> Refusal | None:
    s = tx.state
    if cmd.phase_id != s.phase_id:
        return Refusal("That deadline belongs to a phase that is already over.")
    if s.phase == PROPOSAL:
        counts = s.config.rules.missed_proposal_counts_as_rejection
        tx.emit(ev.PROPOSAL_MISSED, mission=s.mission, leader=s.leader,
                counts_as_rejection=counts)
        if counts and s.rejections >= REJECTIONS_TO_LOSE:
            _end(tx, SPIES, "rejections")
        elif not _stalled(tx):
            _open_proposal(tx, s.mission, s.next_leader(s.leader))
    elif s.phase == TEAM_VOTE:
        _close_vote(tx)
    elif s.phase == MISSION:
        _resolve_mission(tx)
    elif not any(p.on_expire(tx) for p in tx.plugins):
        return Refusal(f"Nothing in phase {s.phase} has a deadline.")
    return None


def _stalled(tx: Tx) -> bool:
    """A table that never proposes (a binding ruling): once every seat in turn has missed its
    proposal deadline (one full turn of the leadership with no proposal), the host is told,
    once; if a second full turn passes with no proposal, the game ends, abandoned, winner
    none, the roles revealed as ABORT does. The count is of missed proposal deadlines in a
    row (a SKIP of a proposal is one); any proposal resets it. Disqualified seats never lead
    (they are skipped), so a turn is as many misses as there are seats that can lead; when
    every seat is disqualified the leadership passes over them all, so a turn is every seat.
    True if the game ended."""
    s = tx.state
    turn = s.leader_rotation()
    if not s.stall_warned_at:
        if s.missed_proposals >= turn:
            tx.emit(ev.PROPOSALS_STALLED, mission=s.mission, missed=s.missed_proposals, turn=turn)
        return False
    if s.missed_proposals - s.stall_warned_at < turn:
        return False
    tx.emit(ev.GAME_ENDED, winner=None, reason="abandoned", missed=s.missed_proposals,
            roles={x.name: x.role for x in s.seats})
    return True


# --- shared steps -------------------------------------------------------------------


def _open_proposal(tx: Tx, mission: int, leader: str, ready: bool = False) -> None:
    s = tx.state
    same = mission == s.mission
    if not same and not ready:  # a new round: plug-ins may hold it (the plot cards)
        for p in tx.plugins:
            if p.before_round(tx, mission, leader):
                return
    tx.emit(ev.PROPOSAL_OPENED, mission=mission, leader=leader,
            attempt=s.attempt + 1 if same else 1, rejections=s.rejections if same else 0,
            team_size=_size(s, mission), fails_needed=_fails(s, mission))


def _size(s: GameState, mission: int) -> int:
    return team_size(len(s.seats), mission)


def _fails(s: GameState, mission: int) -> int:
    return fails_needed(s.config.rules, len(s.seats), mission)


def end_game(tx: Tx, winner: str, reason: str) -> None:
    _end(tx, winner, reason)


def open_proposal(tx: Tx, mission: int, leader: str) -> None:
    """Open a proposal; for a new round, only once its plug-ins are done with it."""
    _open_proposal(tx, mission, leader, ready=True)


def _end(tx: Tx, winner: str, reason: str) -> None:
    for p in tx.plugins:
        if not p.before_game_end(tx, winner, reason):
            return
    s = tx.state
    end = tx.emit(ev.GAME_ENDED, winner=winner, reason=reason,
                  roles={x.name: x.role for x in s.seats})
    for p in tx.plugins:
        p.after_game_end(tx, end.data)


def _phase_words(s: GameState) -> str:
    if s.phase == PROPOSAL:
        return f"the leader, {s.leader}, is choosing a team for mission {s.mission}"
    if s.phase == TEAM_VOTE:
        return f"the team for mission {s.mission} is being voted on"
    if s.phase == MISSION:
        return f"mission {s.mission} is under way"
    if s.running:
        who = f" ({', '.join(s.actors)} to act)" if s.actors else ""
        return f"the game is at {phase_words(s.phase)}{who}"
    return "the game is not running"


# --- the host's commands, and reminders --------------------------------------------------


def _host_close(tx: Tx, cmd: HostClose) -> Refusal | None:
    s = tx.state
    if s.phase not in (TEAM_VOTE, MISSION):
        return Refusal(f"There is no open vote to close: {_phase_words(s)}.")
    tx.emit(ev.HOST_ACTION, action="close", by=cmd.author, phase=s.phase)
    _close_vote(tx) if s.phase == TEAM_VOTE else _resolve_mission(tx)
    return None


def _host_extend(tx: Tx, cmd: HostExtend) -> Refusal | None:
    from ..deadlines import due

    s = tx.state
    if s.paused_at is not None:
        return Refusal("The game is paused; RESUME it first.")
    if due(s) is None:
        return Refusal("Nothing open has a deadline to extend.")
    tx.emit(ev.DEADLINE_EXTENDED, seconds=cmd.seconds, by=cmd.author, phase=s.phase)
    return None


def _postpone(tx: Tx, cmd: Postpone) -> Refusal | None:
    """The deadline of the open phase fell while the bot was not running: it moves to
    `cmd.until`. The whole deadline moves (a close_grace after the last vote too), so that
    `deadlines.due` is `until` afterwards."""
    from ..deadlines import due

    s = tx.state
    if s.paused_at is not None:
        return Refusal("The game is paused: its clocks stood still, so no deadline fell.")
    when = due(s)
    if when is None:
        return Refusal("Nothing open has a deadline to move.")
    if when > cmd.at:
        return Refusal("The deadline of the open step has not passed yet; nothing to move.")
    if cmd.until < cmd.at or cmd.until <= when:
        return Refusal("A deadline can only be moved to the restart or after it.")
    if cmd.down_since > cmd.at:
        return Refusal("The bot cannot have been down since a time after its restart.")
    seconds = (cmd.until - when).total_seconds()
    tx.emit(ev.DEADLINE_MOVED, reason=cmd.reason, phase=s.phase, was=when.isoformat(),
            until=cmd.until.isoformat(), down_since=cmd.down_since.isoformat(),
            seconds=int(seconds) if seconds == int(seconds) else seconds)
    return None


def _host_pause(tx: Tx, cmd: HostPause) -> Refusal | None:
    if tx.state.paused_at is not None:
        return Refusal("The game is paused already.")
    if cmd.until is not None and cmd.until <= tx.at:
        return Refusal("That time has passed already.")
    until = {"until": cmd.until.isoformat()} if cmd.until else {}
    tx.emit(ev.GAME_PAUSED, by=cmd.author, **until)
    return None


def _host_resume(tx: Tx, cmd: HostResume) -> Refusal | None:
    s = tx.state
    if s.paused_at is None:
        return Refusal("The game is not paused.")
    tx.emit(ev.GAME_RESUMED, by=cmd.author, paused_seconds=int((tx.at - s.paused_at).total_seconds()))
    return None


def _host_disqualify(tx: Tx, cmd: HostDisqualify) -> Refusal | None:
    s = tx.state
    seat = s.seat(cmd.target)
    if seat is None:
        return Refusal(f"{cmd.target} is not a player in this game.")
    if seat.disqualified:
        return Refusal(f"{cmd.target} is disqualified already.")
    tx.emit(ev.PLAYER_DISQUALIFIED, player=seat.name, missed=seat.missed, reason="disqualified by the host")
    # whatever waited for that player goes on without them
    if s.phase == PROPOSAL and s.leader == seat.name:
        _open_proposal(tx, s.mission, s.next_leader(seat.name))
    elif s.phase == TEAM_VOTE and s.config.deadlines.close_early and not s.waiting_for():
        _close_vote(tx)
    elif s.phase == MISSION and not s.waiting_for():
        _resolve_mission(tx)
    elif s.actors == [seat.name] and s.phase != "assassination":  # a card or the Lady: skipped
        for p in tx.plugins:
            if p.on_expire(tx):
                break
    return None


def _host_replace(tx: Tx, cmd: HostReplace) -> Refusal | None:
    from . import replace

    s = tx.state
    refusal = replace.check(s, cmd.target, cmd.newcomer)
    if refusal is not None:
        return refusal
    seat = s.seat(cmd.target)
    tx.emit(replace.PLAYER_REPLACED, player=seat.name, by=cmd.newcomer, was_disqualified=seat.disqualified,
            host=cmd.author)
    return None


def _host_skip(tx: Tx, cmd: HostSkip) -> Refusal | None:
    s = tx.state
    if s.paused_at is not None:
        return Refusal("The game is paused; RESUME it first.")
    if s.phase == "assassination":
        return Refusal("The assassination has no default: it waits for the Assassin's shot "
                       "(or ABORT the game).")
    tx.emit(ev.HOST_ACTION, action="skip", by=cmd.author, phase=s.phase, mission=s.mission)
    return _expire(tx, Expire(at=tx.at, author="", phase_id=s.phase_id))


def _host_record(tx: Tx, cmd: HostRecord) -> Refusal | None:
    inner = cmd.inner
    handler = _handler(inner, tx.plugins)
    if handler is None:
        word = COMMAND_WORDS.get(type(inner).__name__, type(inner).__name__.upper())
        return Refusal(f"{word} is not part of this game.")
    tx.emit(ev.HOST_ACTION, action="record", by=cmd.author, phase=tx.state.phase,
            player=inner.author, kind=type(inner).__name__)
    return handler(tx, inner)


def _host_abort(tx: Tx, cmd: HostAbort) -> Refusal | None:
    s = tx.state
    tx.emit(ev.GAME_ENDED, winner=None, reason="aborted", by=cmd.author,
            roles={x.name: x.role for x in s.seats})
    return None


def _remind(tx: Tx, cmd: Remind) -> Refusal | None:
    s = tx.state
    if cmd.phase_id != s.phase_id or s.reminded == s.phase_id or not s.waiting_for():
        return Refusal("No reminder is due.")
    tx.emit(ev.REMINDERS_SENT, phase_id=s.phase_id, phase=s.phase, players=s.waiting_for())
    return None


_HANDLERS = {
    HostClose: _host_close,
    HostExtend: _host_extend,
    Postpone: _postpone,
    HostPause: _host_pause,
    HostResume: _host_resume,
    HostDisqualify: _host_disqualify,
    HostAbort: _host_abort,
    HostReplace: _host_replace,
    HostSkip: _host_skip,
    HostRecord: _host_record,
    Remind: _remind,
    Propose: _propose,
    TeamVote: _vote,
    MissionOrder: _order,
    Expire: _expire,
}
