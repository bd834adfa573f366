"""The core of every game: proposals, team votes, missions and the end of the game, with the
acknowledgements of votes and orders sent by PM."""
from __future__ import annotations

import random

from ..rules import events as ev
from ..rules.events import Event
from ..rules.state import GameState
from .markup import Markup
from .registry import private, public
from .words import Message, limits, role_name, side_name, track, when


@public(ev.PROPOSAL_OPENED)
def _proposal_opened(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    fails = " Two SABOTAGEs are needed to fail it." if d["fails_needed"] == 2 else ""
    warning = ("\n\nFour teams have been rejected in this mission: if the next one is "
               "rejected too, the spies win." if d.get("rejections", 0) == 4 else "")
    title = m.bold(f"Mission {d['mission']}")
    return (f"{title} (proposal {d['attempt']}): the leader is {m.bold(d['leader'])}, "
            f"with a team of {d['team_size']}.{fails}{warning}\n\n"
            f"{d['leader']}, post {m.bold('PROPOSE: ' + ', '.join(['name'] * d['team_size']))} "
            f"by {when(e.at, limits(state).proposal, state)}.")


@public(ev.TEAM_PROPOSED)
def _team_proposed(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    where = "by PM to the bot" if state.config.team_votes == "pm" else "in a bold comment here or by PM"
    close = " The vote closes as soon as everyone has voted." if limits(state).close_early else ""
    public = (f" {m.bold(d['public'])} plays their order in the thread, not by PM." if d.get("public") else "")
    if state.config.rules.critical_votes:
        close = close + (" Each player may once in the game vote " + m.bold("CRITICAL APPROVE")
                         + " or " + m.bold("CRITICAL REJECT") + ", which counts double.")
    if d["mission"] in state.config.rules.pm_vote_missions:
        where = "by PM to the bot only (they are revealed when the vote closes)"
    verb = "changes the proposal to" if d.get("revised") else "proposes"
    return (f"{d['leader']} {verb} {m.bold(', '.join(d['team']))} for mission {d['mission']}.{public}\n\n"
            f"Everyone: vote {m.bold('APPROVE')} or {m.bold('REJECT')} {where}, by "
            f"{when(e.at, limits(state).team_vote, state)}.{close}")


@private(ev.VOTE_CAST)
def _vote_ack(state: GameState, e: Event, tag: str, m: Markup) -> list[Message]:
    if e.data["via"] != "pm":
        return []
    return [Message(f"ack-vote:{e.data['player']}",
                    f"{tag}: your vote {m.bold(e.data['vote'].upper())} is recorded. You "
                    "may change it until the vote closes.",
                    to=e.data["player"], subject=f"{tag}: vote recorded")]


@public(ev.VOTE_CLOSED)
def _vote_closed(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    defaulted = set(d["defaulted"])
    critical = set(d.get("critical", []))
    proxied = d.get("proxied", {})
    barred = set(d.get("not_voting", []))
    rows = [[n + (f" (proxied by {proxied[n]})" if n in proxied else ""),
             ("— (barred by a card)" if n in barred else v.upper())
             + (" ×2 (critical)" if n in critical else "") + (" (default)" if n in defaulted else "")]
            for n, v in d["votes"].items()]
    verdict = "APPROVED" if d["approved"] else "REJECTED"
    text = (f"The vote on {d['leader']}'s team ({', '.join(d['team'])}) is closed: "
            f"{m.bold(verdict)}, {d['approve']} APPROVE to {d['reject']} REJECT.\n\n"
            + m.table(["Player", "Vote"], rows))
    if not d["approved"]:
        text += f"\n\nRejected teams this mission: {d.get('rejections', state_rejections(state, d))} of 5."
    return text


def state_rejections(state: GameState, d: dict) -> int:
    return sum(1 for v in state.vote_history if v["mission"] == d["mission"] and not v["approved"]
               and v["proposal"] <= d["proposal"])


@public(ev.PROPOSAL_MISSED)
def _proposal_missed(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    extra = " It counts as a rejected team." if d.get("counts_as_rejection") else ""
    return f"{d['leader']} did not propose a team in time. The leadership passes.{extra}"


@public(ev.MISSION_OPENED)
def _mission_opened(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    public = ""
    if d.get("public"):
        public = (f" {d['public']}: your order is public; post {m.bold('SUPPORT')} or "
                  f"{m.bold('SABOTAGE')} here in the thread (you may change it until the mission closes).")
    return (f"Mission {d['mission']} goes ahead with {', '.join(d['team'])}. Team members: "
            f"PM the bot {m.bold('SUPPORT')} or {m.bold('SABOTAGE')} by "
            f"{when(e.at, limits(state).mission, state)}.{public} The result comes when every order "
            "is in.")


@private(ev.MISSION_OPENED)
def _order_prompts(state: GameState, e: Event, tag: str, m: Markup) -> list[Message]:
    return [Message(f"orders:{name}", _order_prompt(state, e, tag, m, name), to=name,
                    subject=f"{tag}: mission {e.data['mission']} orders", priority=0)
            for name in e.data["team"]]


def _order_prompt(state: GameState, e: Event, tag: str, m: Markup, name: str | None = None) -> str:
    d = e.data
    if name is not None and name == d.get("public"):
        return (f"You are on the team for mission {d['mission']} of {tag}, and your order is "
                f"public: post {m.bold('SUPPORT')} or {m.bold('SABOTAGE')} in the thread by "
                f"{when(e.at, limits(state).mission, state)}. Members of "
                f"{state.config.rules.resistance_name} can only SUPPORT.")
    return (f"You are on the team for mission {d['mission']} of {tag}. Reply to this message "
            f"with {m.bold('SUPPORT')} or {m.bold('SABOTAGE')} by "
            f"{when(e.at, limits(state).mission, state)}. Members of "
            f"{state.config.rules.resistance_name} can only SUPPORT. You may change your order "
            "until the mission closes." + (" If you sent your order already, it stands." if
                                          state.config.rules.commander else ""))


@private(ev.ORDER_PRELOADED)
def _preload_ack(state: GameState, e: Event, tag: str, m: Markup) -> list[Message]:
    return [Message(f"ack-preload:{e.data['player']}",
                    f"{tag}: your order {m.bold(e.data['order'].upper())} is preloaded. It "
                    "applies if this team is approved; you may change it until then.",
                    to=e.data["player"], subject=f"{tag}: order preloaded")]


@private(ev.ORDER_CAST)
def _order_ack(state: GameState, e: Event, tag: str, m: Markup) -> list[Message]:
    if e.data.get("preloaded"):
        return []
    return [Message(f"ack-order:{e.data['player']}",
                    f"{tag}: your order {m.bold(e.data['order'].upper())} is recorded. You "
                    "may change it until the mission closes.",
                    to=e.data["player"], subject=f"{tag}: order recorded")]


@public(ev.MISSION_RESOLVED)
def _mission_resolved(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    result = "SUCCEEDED" if d["result"] == "success" else "FAILED"
    needed = f" ({d['fails_needed']} were needed to fail it)" if d["fails_needed"] > 1 else ""
    title = m.bold(f"Mission {d['number']} {result}")
    count = (f": {d['sabotages']} SABOTAGE{'' if d['sabotages'] == 1 else 's'}{needed}"
             if d.get("count_shown", True) else " (the number of SABOTAGEs is not revealed on this mission)")
    if state.config.rules.quest_cards_shown and d.get("count_shown", True):
        cards = ["FAIL"] * d["sabotages"] + ["SUCCESS"] * (len(d["team"]) - d["sabotages"])
        random.Random(f"{state.seed}:quest:{d['number']}").shuffle(cards)
        count += f". The quest cards: {', '.join(cards)}"
    public = ""
    if d.get("public"):
        p = d["public"]
        public = (f"\n\n{p}'s public order: {m.bold(d['orders'][p].upper())}"
                  + (" (default)" if p in d["defaulted"] else "") + ".")
    return f"{title}{count}.{public}\n\n{track(state, m)}"


@public(ev.GAME_ENDED)
def _game_ended(state: GameState, e: Event, tag: str, m: Markup) -> str:
    d = e.data
    if d["reason"] == "aborted":
        roles = m.table(["Player", "Role"], [[s.name, role_name(state, s.role)] for s in state.seats])
        return "\n\n".join([m.heading("The host has aborted the game."),
                             "The game ends here, with no winner. The roles were:", roles])
    if d["reason"] == "abandoned":
        roles = m.table(["Player", "Role"], [[s.name, role_name(state, s.role)] for s in state.seats])
        return "\n\n".join([
            m.heading("The game is abandoned: nobody proposed a team."),
            "Two full turns of the leadership have passed with no proposal "
            f"({d.get('missed', 0)} proposal deadlines missed in a row). A human GM would step "
            "in here; the bot does, and ends the game with no winner. The roles were:",
            roles])
    from ..status import WIN_REASONS

    winner = side_name(state, d["winner"])
    why = WIN_REASONS[d["reason"]]
    roles = m.table(["Player", "Role"], [[s.name, role_name(state, s.role)] for s in state.seats])
    missions = m.table(["Mission", "Leader", "Team", "Result"],
                       [[str(x["number"]), x["leader"], ", ".join(x["team"]),
                         f"{x['result'].upper()} ({_sabotages(x['sabotages'])})"] for x in state.missions])
    history = m.table(
        ["Mission", "Proposal", "Leader", "Team", "Result"] + state.names,
        [[str(v["mission"]), str(v["proposal"]), v["leader"], ", ".join(v["team"]),
          "approved" if v["approved"] else "rejected"]
         + [v["votes"][n][:3].upper() + ("*" if n in v["defaulted"] else "") for n in state.names]
         for v in state.vote_history])
    return "\n\n".join([
        m.heading(f"{winner[0].upper()}{winner[1:]} win, by {why}."),
        roles,
        m.bold("Missions"), missions,
        m.bold("Every team vote") + " (APP approve, REJ reject, ABS abstain; * a default)",
        history,
    ])


def _sabotages(n: int) -> str:
    return f"{n} SABOTAGE{'' if n == 1 else 's'}"
