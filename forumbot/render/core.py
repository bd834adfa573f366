"""The core of every game: proposals, team votes, missions and the end of the game, with the
acknowledgements of votes and orders sent by PM.

Events name players by their seats' ids; every name a reader sees is the username on the
seat now (`state.shown`), and so is every PM's recipient."""
from __future__ import annotations

import random

from ..rules import events as ev
from ..rules.events import (
    GameEnded,
    MissionOpened,
    MissionResolved,
    OrderCast,
    ProposalMissed,
    ProposalOpened,
    TeamProposed,
    VoteCast,
    VoteClosed,
)
from ..rules.modules.preload import OrderPreloaded
from ..rules.state import GameState
from .markup import Markup
from .registry import private, public
from .status import WIN_REASONS
from .words import Message, limits, listed, order_forms, role_name, side_wins, track, vote_forms, when


@public(ev.PROPOSAL_OPENED)
def _proposal_opened(state: GameState, e: ProposalOpened, tag: str, m: Markup) -> str:
    fails = " Two SABOTAGEs are needed to fail it." if e.fails_needed == 2 else ""
    warning = ("\n\nFour teams have been rejected in this mission: if the next one is "
               "rejected too, the spies win." if e.rejections == 4 else "")
    title = m.bold(f"Mission {e.mission}")
    leader = state.shown(e.leader)
    return (f"{title} (proposal {e.attempt}): the leader is {m.bold(leader)}, "
            f"with a team of {e.team_size}.{fails}{warning}\n\n"
            f"{leader}, post {m.bold('PROPOSE: ' + ', '.join(['name'] * e.team_size))} "
            f"by {when(e.at, limits(state).proposal, state)}.")


@public(ev.TEAM_PROPOSED)
def _team_proposed(state: GameState, e: TeamProposed, tag: str, m: Markup) -> str:
    where = "by PM to the bot" if state.config.team_votes == "pm" else "in a bold comment here or by PM"
    close = " The vote closes as soon as everyone has voted." if limits(state).close_early else ""
    public = (f" {m.bold(state.shown(e.public))} plays their order in the thread, not by PM."
              if e.public else "")
    if state.config.rules.critical_votes:
        close = close + (" Each player may once in the game vote " + m.bold("CRITICAL APPROVE")
                         + " or " + m.bold("CRITICAL REJECT") + ", which counts double.")
    if e.mission in state.config.rules.pm_vote_missions:
        where = "by PM to the bot only (they are revealed when the vote closes)"
    verb = "changes the proposal to" if e.revised else "proposes"
    return (f"{state.shown(e.leader)} {verb} {m.bold(listed(state, e.team))} for mission "
            f"{e.mission}.{public}\n\n"
            f"Everyone: vote {vote_forms(state.config, m)} {where}, by "
            f"{when(e.at, limits(state).team_vote, state)}.{close}")


@private(ev.VOTE_CAST)
def _vote_ack(state: GameState, e: VoteCast, tag: str, m: Markup) -> list[Message]:
    if e.passed:  # in the thread too: a player who meant another vote must see it at once
        return [Message(f"ack-vote:{e.player}", _passed(state, tag, m), to=state.shown(e.player),
                        subject=f"{tag}: vote recorded")]
    if e.via != "pm":
        return []
    return [Message(f"ack-vote:{e.player}",
                    f"{tag}: your vote {m.bold(e.vote.upper())} is recorded. You "
                    "may change it until the vote closes.",
                    to=state.shown(e.player), subject=f"{tag}: vote recorded")]


def _passed(state: GameState, tag: str, m: Markup) -> str:
    """The answer to PASS in a team vote, with no card waiting for the player: an abstention
    (an APPROVE where an abstention counts as one, avalon-2020)."""
    counts = state.config.rules.abstain_counts_as
    recorded = (f"in this game an abstention counts as {counts.upper()}, so your vote is recorded as "
                f"{m.bold(counts.upper())}" if counts else
                f"your vote {m.bold('ABSTAIN')} is recorded: it counts neither for nor against the team")
    return (f"{tag}: PASS, in a team vote with no card waiting for your answer, is an abstention: "
            f"{recorded}. If you meant another vote, send {vote_forms(state.config, m)} before the vote "
            "closes.")


@public(ev.VOTE_CLOSED)
def _vote_closed(state: GameState, e: VoteClosed, tag: str, m: Markup) -> str:
    defaulted = set(e.defaulted)
    critical = set(e.critical)
    proxied = e.proxied
    barred = set(e.not_voting)
    shown = state.shown
    rows = [[shown(n) + (f" (proxied by {shown(proxied[n])})" if n in proxied else ""),
             ("— (barred by a card)" if n in barred else v.upper())
             + (" ×2 (critical)" if n in critical else "") + (" (default)" if n in defaulted else "")]
            for n, v in e.votes.items()]
    verdict = "APPROVED" if e.approved else "REJECTED"
    text = (f"The vote on {shown(e.leader)}'s team ({listed(state, e.team)}) is closed: "
            f"{m.bold(verdict)}, {e.approve} APPROVE to {e.reject} REJECT.\n\n"
            + m.table(["Player", "Vote"], rows))
    if not e.approved:
        text += f"\n\nRejected teams this mission: {e.rejections} of 5."
    return text


def state_rejections(state: GameState, v: VoteClosed) -> int:
    """The teams rejected in `v`'s mission up to `v`'s proposal, as the history has them."""
    return sum(1 for x in state.vote_history if x.mission == v.mission and not x.approved
               and x.proposal <= v.proposal)


@public(ev.PROPOSAL_MISSED)
def _proposal_missed(state: GameState, e: ProposalMissed, tag: str, m: Markup) -> str:
    extra = " It counts as a rejected team." if e.counts_as_rejection else ""
    return f"{state.shown(e.leader)} did not propose a team in time. The leadership passes.{extra}"


@public(ev.MISSION_OPENED)
def _mission_opened(state: GameState, e: MissionOpened, tag: str, m: Markup) -> str:
    public = ""
    if e.public:
        public = (f" {state.shown(e.public)}: your order is public; post {order_forms(state.config, m)} "
                  "here in the thread (you may change it until the mission closes).")
    return (f"Mission {e.mission} goes ahead with {listed(state, e.team)}. Team members: "
            f"PM the bot {order_forms(state.config, m)} by "
            f"{when(e.at, limits(state).mission, state)}.{public} The result comes when every order "
            "is in.")


@private(ev.MISSION_OPENED)
def _order_prompts(state: GameState, e: MissionOpened, tag: str, m: Markup) -> list[Message]:
    return [Message(f"orders:{seat}", _order_prompt(state, e, tag, m, seat), to=state.shown(seat),
                    subject=f"{tag}: mission {e.mission} orders", priority=0)
            for seat in e.team]


def _order_prompt(state: GameState, e: MissionOpened, tag: str, m: Markup, seat: str | None = None) -> str:
    """The order prompt of team member `seat` (a seat's id)."""
    if seat is not None and seat == e.public:
        return (f"You are on the team for mission {e.mission} of {tag}, and your order is "
                f"public: post {order_forms(state.config, m)} in the thread by "
                f"{when(e.at, limits(state).mission, state)}. Members of "
                f"{state.config.rules.resistance_name} can only SUPPORT.")
    return (f"You are on the team for mission {e.mission} of {tag}. Reply to this message "
            f"with {order_forms(state.config, m)} by "
            f"{when(e.at, limits(state).mission, state)}. Members of "
            f"{state.config.rules.resistance_name} can only SUPPORT. You may change your order "
            "until the mission closes." + (" If you sent your order already, it stands." if
                                          state.config.rules.commander else ""))


@private(ev.ORDER_PRELOADED)
def _preload_ack(state: GameState, e: OrderPreloaded, tag: str, m: Markup) -> list[Message]:
    return [Message(f"ack-preload:{e.player}",
                    f"{tag}: your order {m.bold(e.order.upper())} is preloaded. It "
                    "applies if this team is approved; you may change it until then.",
                    to=state.shown(e.player), subject=f"{tag}: order preloaded")]


@private(ev.ORDER_CAST)
def _order_ack(state: GameState, e: OrderCast, tag: str, m: Markup) -> list[Message]:
    if e.preloaded:
        return []
    return [Message(f"ack-order:{e.player}",
                    f"{tag}: your order {m.bold(e.order.upper())} is recorded. You "
                    "may change it until the mission closes.",
                    to=state.shown(e.player), subject=f"{tag}: order recorded")]


@public(ev.MISSION_RESOLVED)
def _mission_resolved(state: GameState, e: MissionResolved, tag: str, m: Markup) -> str:
    result = "SUCCEEDED" if e.result == "success" else "FAILED"
    needed = f" ({e.fails_needed} were needed to fail it)" if e.fails_needed > 1 else ""
    title = m.bold(f"Mission {e.number} {result}")
    count = (f": {e.sabotages} SABOTAGE{'' if e.sabotages == 1 else 's'}{needed}"
             if e.count_shown else " (the number of SABOTAGEs is not revealed on this mission)")
    if state.config.rules.quest_cards_shown and e.count_shown:
        cards = ["FAIL"] * e.sabotages + ["SUCCESS"] * (len(e.team) - e.sabotages)
        random.Random(f"{state.seed}:quest:{e.number}").shuffle(cards)
        count += f". The quest cards: {', '.join(cards)}"
    public = ""
    if e.public:
        p = e.public
        public = (f"\n\n{state.shown(p)}'s public order: {m.bold(e.orders[p].upper())}"
                  + (" (default)" if p in e.defaulted else "") + ".")
    return f"{title}{count}.{public}\n\n{track(state, m)}"


@public(ev.GAME_ENDED)
def _game_ended(state: GameState, e: GameEnded, tag: str, m: Markup) -> str:
    if e.reason == "aborted":
        roles = m.table(["Player", "Role"], [[s.name, role_name(state, s.role)] for s in state.seats])
        return "\n\n".join([m.heading("The host has aborted the game."),
                             "The game ends here, with no winner. The roles were:", roles])
    if e.reason == "abandoned":
        roles = m.table(["Player", "Role"], [[s.name, role_name(state, s.role)] for s in state.seats])
        return "\n\n".join([
            m.heading("The game is abandoned: nobody proposed a team."),
            "Two full turns of the leadership have passed with no proposal "
            f"({e.missed or 0} proposal deadlines missed in a row). A human GM would step "
            "in here; the bot does, and ends the game with no winner. The roles were:",
            roles])

    wins = side_wins(state, e.winner or "")
    why = WIN_REASONS[e.reason]
    shown = state.shown
    roles = m.table(["Player", "Role"], [[s.name, role_name(state, s.role)] for s in state.seats])
    missions = m.table(["Mission", "Leader", "Team", "Result"],
                       [[str(x.number), shown(x.leader), listed(state, x.team),
                         f"{x.result.upper()} ({_sabotages(x.sabotages)})"] for x in state.missions])
    history = m.table(
        ["Mission", "Proposal", "Leader", "Team", "Result"] + state.names,
        [[str(v.mission), str(v.proposal), shown(v.leader), listed(state, v.team),
          "approved" if v.approved else "rejected"]
         + [("—" if s.id in v.not_voting else v.votes[s.id][:3].upper()) + ("*" if s.id in v.defaulted else "")
            for s in state.seats]
         for v in state.vote_history])
    barred = "; — barred by a card" if any(v.not_voting for v in state.vote_history) else ""  # as the live table
    return "\n\n".join([
        m.heading(f"{wins[0].upper()}{wins[1:]}, by {why}."),
        roles,
        m.bold("Missions"), missions,
        m.bold("Every team vote") + f" (APP approve, REJ reject, ABS abstain{barred}; * a default)",
        history,
    ])


def _sabotages(n: int) -> str:
    return f"{n} SABOTAGE{'' if n == 1 else 's'}"
