"""A mission's team: the leader's proposal and the team vote, up to the mission or the
next proposal."""
from __future__ import annotations

from . import events as ev
from .commands import (
    Propose,
    Refusal,
    TeamVote,
    said,
)
from .missions import resolve_when_all_in
from .plugin import Tx
from .presets import REJECTIONS_TO_LOSE
from .state import (
    PROPOSAL,
    SPIES,
    TEAM_VOTE,
    GameState,
    state_fails_needed,
    state_next_leader,
    state_team_size,
)
from .steps import begin_proposal, disqualify_missing, end_game, phase_status

# --- proposals ----------------------------------------------------------------------


def propose(tx: Tx, cmd: Propose) -> Refusal | None:
    """The leader's PROPOSE: a team for the mission (a revised one until the first vote on it)."""
    s = tx.state
    # The leader may replace a proposal until the first vote on it arrives.
    revising = s.phase == TEAM_VOTE and cmd.author == s.leader and not s.votes and not s.proxied
    if s.phase == TEAM_VOTE and cmd.author == s.leader and not revising:
        return Refusal("Votes have come in on your team, so it stands.")
    if s.phase != PROPOSAL and not revising:
        return Refusal(f"There is no team to propose now: {phase_status(s)}.")
    if cmd.author != s.leader:
        return Refusal(f"Only the leader, {s.shown(s.leader or '')}, may propose a team now.")
    size = state_team_size(s)

    def example() -> str:
        return said("PROPOSE: " + ", ".join(map(s.shown, _example_team(s, size))))

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
            return Refusal(f"{s.shown(name)} is disqualified and cannot go on a mission.", example())
    if s.mission in s.config.rules.public_order_missions:
        if cmd.public is None or cmd.public not in cmd.team:
            team = [s.shown(n) for n in _example_team(s, size)]
            public = said("PROPOSE: " + ", ".join(team) + "; PUBLIC: " + team[0])
            if cmd.public is None:
                return Refusal(f"On mission {s.mission} the leader names one team member who plays "
                               "their order in the thread.", public)
            return Refusal(f"{s.shown(cmd.public)} is not on the team you proposed.", public)
    elif cmd.public is not None:
        return Refusal(f"PUBLIC: is not part of mission {s.mission} in this game.", example())
    for p in tx.plugins:
        if (r := p.before_proposal(s, cmd)) is not None:
            return r
    barred = sorted({n for p in tx.plugins for n in p.barred_voters(s)}, key=s.ids.index) if tx.plugins else ()
    proposal = tx.add(_TEAM_PROPOSED(
        tx.at, mission=s.mission, proposal=s.attempt, leader=s.leader, team=list(cmd.team),
        public=cmd.public or None, revised=revising, not_voting=barred or None))
    for p in tx.plugins:
        p.after_proposal(tx, proposal, cmd)
    return None


def _example_team(s: GameState, size: int) -> list[str]:
    """A team of `size` for a refusal's hint: the first active seats (ids; the hint shows
    `s.shown` of each)."""
    ids = [x.id for x in s.active()]
    return (ids * 2)[:size]


# --- team votes ---------------------------------------------------------------------


def vote(tx: Tx, cmd: TeamVote) -> Refusal | None:
    """A player's APPROVE, REJECT or ABSTAIN (or CRITICAL ...) on the proposed team."""
    s = tx.state
    author = cmd.author
    for seat in s.seats:  # s.seat(author), inline
        if seat.id == author:
            break
    else:
        return Refusal("Only the players of this game can vote.")
    if s.phase != TEAM_VOTE:
        return Refusal(f"No team vote is open now: {phase_status(s)}.")
    if seat.disqualified:
        return Refusal("You are disqualified: your vote takes the default.", private=True)
    if cmd.author in s.not_voting:
        return Refusal("A card bars you from voting on this proposal.", private=cmd.via == "pm")
    config = s.config
    rules = config.rules
    if cmd.critical:
        if not rules.critical_votes:
            return Refusal("Critical votes are not part of this game.", (said("APPROVE") + " or " + said("REJECT")))
        if cmd.author in s.critical_spent:
            return Refusal("You have spent your Critical Vote already.", (said("APPROVE") + " or " + said("REJECT")))
        if cmd.choice == "abstain":
            return Refusal("A Critical Vote is an APPROVE or a REJECT.", said("CRITICAL APPROVE"))
    if cmd.choice == "abstain" and not config.missed.allow_abstain:
        return Refusal("This game does not allow ABSTAIN: vote APPROVE or REJECT.",
                       (said("APPROVE") + " or " + said("REJECT")))
    if cmd.via == "thread":
        if s.mission in rules.pm_vote_missions:
            return Refusal(
                f"Team votes on mission {s.mission} go by PM only. Your comment was not counted.",
                ("PM the bot " + said("APPROVE") + " or " + said("REJECT")), private=True,
            )
        if config.team_votes == "pm" and not any(p.votes_in_thread(s, cmd.author) for p in tx.plugins):
            return Refusal(
                "Team votes in this game go by PM only, so that they stay secret until the vote "
                "closes. Your comment was not counted.",
                ("PM the bot " + said("APPROVE") + " or " + said("REJECT")),
                private=True,
            )
    for p in tx.plugins:
        if (r := p.before_vote(s, cmd)) is not None:
            return r
    if cmd.critical:
        tx.add(_VOTE_CAST(tx.at, player=cmd.author, vote=cmd.choice, via=cmd.via, critical=True))
    elif cmd.passed:
        tx.add(_VOTE_CAST(tx.at, player=cmd.author, vote=cmd.choice, via=cmd.via, passed=True))
    else:
        tx.add(_VOTE_CAST(tx.at, player=cmd.author, vote=cmd.choice, via=cmd.via))  # (tx.emit(ev.VoteCast, ...))
    deadlines = s.config.deadlines
    if deadlines.close_early and not deadlines.close_grace:
        votes, barred = s.votes, s.not_voting
        for seat in s.seats:  # _all_voted(s), inline
            if not seat.disqualified and seat.id not in votes and seat.id not in barred:
                return None
        close_vote(tx)  # (with close_grace the vote closes that long after the last vote: deadlines.due)
    return None


def close_vote(tx: Tx) -> None:
    """Close the team vote: every vote missing takes the default; then the mission opens (once
    any window a plug-in holds is over), or the leadership passes."""
    s = tx.state
    default = s.config.missed.team_vote
    abstain_as = s.config.rules.abstain_counts_as
    given, barred = s.votes, s.not_voting
    votes: dict[str, str] = {}
    defaulted: list[str] = []
    for seat in s.seats:
        name = seat.id
        if name in barred:
            votes[name] = "abstain"  # barred by a card: not counted, not a miss
        elif name in given and not seat.disqualified:
            vote = given[name]
            votes[name] = abstain_as if vote == "abstain" and abstain_as else vote
        else:
            votes[name] = default
            defaulted.append(name)
    critical = [n for n in s.ids if n in s.critical and n not in defaulted] if s.critical else []
    approve = reject = 0
    for n, v in votes.items():
        if v == "approve":
            approve += 2 if n in critical else 1
        elif v == "reject":
            reject += 2 if n in critical else 1
    approved = approve > reject
    record = tx.add(_VOTE_CLOSED(
        tx.at, mission=s.mission, proposal=s.attempt, leader=s.leader, team=list(s.team),
        votes=votes, defaulted=defaulted, critical=critical, proxied=dict(s.proxied),
        not_voting=list(barred), approve=approve, reject=reject, approved=approved,
        rejections=s.rejections + (0 if approved else 1),
    ))
    if defaulted:
        disqualify_missing(tx, defaulted)
    for p in tx.plugins:
        p.after_vote(tx, record)
    if not approved:
        after_rejection(tx)
    elif not (tx.plugins and any(p.before_mission_opens(tx) for p in tx.plugins)):
        open_mission(tx)


def open_mission(tx: Tx) -> None:
    """The approved team goes on its mission (after any window a plug-in held open)."""
    s = tx.state
    tx.add(_MISSION_OPENED(tx.at, mission=s.mission, leader=s.leader, team=list(s.team),
                           fails_needed=state_fails_needed(s), public=s.public))
    for p in tx.plugins:
        p.after_mission_opened(tx)
    resolve_when_all_in(tx)


def after_rejection(tx: Tx) -> None:
    """A team was rejected (by the vote, or by a card): five in a mission lose; else the
    leadership passes."""
    s = tx.state
    if s.rejections >= REJECTIONS_TO_LOSE:
        end_game(tx, SPIES, "rejections")
    else:
        begin_proposal(tx, s.mission, state_next_leader(s, s.leader))


_VOTE_CAST, _MISSION_OPENED = ev.maker(ev.VoteCast), ev.maker(ev.MissionOpened)  # (the hot paths: no keyword dict)
_TEAM_PROPOSED, _VOTE_CLOSED = ev.maker(ev.TeamProposed), ev.maker(ev.VoteClosed)
