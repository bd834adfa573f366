"""The words of every post and PM. One function per event type; the thread gets one
post per batch of events, each player their own PMs. Roles and who played which order
never appear in a public post before the game ends."""
from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ..deadlines import format_duration, stamp
from ..rules import events as ev
from ..rules.commands import Refusal
from ..rules.presets import TEAM_SIZES, fails_needed
from ..rules.roles import role_set
from ..rules.state import SPIES, GameState, phase_words
from .markup import markup_for

THREAD = "thread"


@dataclass(frozen=True)
class Message:
    slot: str  # unique within one batch: becomes part of the outbox key
    body: str
    to: str | None = None  # None: the game thread
    subject: str = ""
    opening: bool = False  # the game's opening post (a new thread, or a first comment)
    title: str = ""
    priority: int = 1  # 0: results and prompts; 1: replies; 2: reminders; 3: status


# When the posts being rendered go out (render_events' `now`): "in 12h" counts from then.
_NOW: ContextVar[datetime | None] = ContextVar("render_now", default=None)


def when(at: datetime, seconds: int | None, state: GameState | None = None) -> str:
    """A deadline `seconds` after `at`, as posts show it (aligned and in the game's zone). The
    relative part counts from when the post is made, if render_events was told, since a
    command read late opens its phase at the time it was written, not when it is answered."""
    from ..deadlines import aligned, stamp
    from ..status import relative

    if seconds is None:
        return "no deadline"
    config = state.config if state is not None else None
    due = at + timedelta(seconds=seconds)
    if config is not None:
        due = aligned(due, config)
    now = _NOW.get()
    start = max(at, now) if now is not None else at
    return f"{stamp(due, config)} (in {relative(max(0, int((due - start).total_seconds())))})"


ROLE_NAMES = {
    "servant": "Loyal Servant of Arthur", "minion": "Minion of Mordred",
    "merlin-or-morgana": "Merlin or Morgana", "human": "Human", "cylon": "Cylon",
}


def role_name(state: GameState, role: str) -> str:
    return ROLE_NAMES.get(role, role.replace("-", " ").title())


def side_name(state: GameState, side: str) -> str:
    p = state.config.rules
    return p.spies_name if side == SPIES else p.resistance_name


def track(state: GameState, m) -> str:
    marks = []
    for i in range(1, 6):
        done = next((x for x in state.missions if x["number"] == i), None)
        if done:
            marks.append("✔" if done["result"] == "success" else "✘")
        else:
            marks.append(str(TEAM_SIZES[len(state.seats)][i - 1]))
    return f"Missions: {' '.join(marks)} (✔ success, ✘ fail, a number: team size still to play)"


# --- per event ---------------------------------------------------------------------


def _opening(state: GameState, e: ev.Event, tag: str, m) -> str:
    c = state.config
    p = c.rules
    n = len(state.seats)
    d = c.deadlines
    rows = [[str(i), str(TEAM_SIZES[n][i - 1]) + (" (2 SABOTAGEs to fail)" if fails_needed(p, n, i) == 2 else "")]
            for i in range(1, 6)]
    votes_where = "by PM to the bot only" if c.team_votes == "pm" else "in a bold comment here, or by PM"
    parts = [
        m.heading(f"{c.title} ({tag})"),
        *([c.intro] if c.intro else []),
        f"{p.title}. Host: {c.host}. {n} players, {len(state.spies())} of them {p.spies_name.removeprefix('the ')}.",
        p.summary,
        m.bold("Leader order") + ": " + ", ".join(state.names),
        m.table(["Mission", "Team size"], rows),
        m.bold("Deadlines") + f": proposal {format_duration(d.proposal)}, team vote "
        f"{format_duration(d.team_vote)}, mission {format_duration(d.mission)}. A missed team "
        f"vote counts as {c.missed.team_vote.upper()}; a missed mission order as "
        + (f"SUPPORT for {p.resistance_name} and SABOTAGE for {p.spies_name}"
           if c.missed.mission == "by-side" else c.missed.mission.upper()) + "."
        + (f" Missing {c.missed.disqualify_after} votes in a row disqualifies a player."
           if c.missed.disqualify_after else ""),
        m.bold("How to play") + ": the leader posts " + m.bold("PROPOSE: name, name") + ". "
        f"Everyone votes {m.bold('APPROVE')} or {m.bold('REJECT')} {votes_where}; you may change "
        "your vote until it closes. Team members PM the bot " + m.bold("SUPPORT") + " or "
        + m.bold("SABOTAGE") + f" (put {tag} in the subject if you play several games). Only "
        "bold text counts; quotes and code never do. Editing a comment does not change a vote: "
        "post a new comment. Everyone has been sent their role by PM.",
    ]
    if c.roles or c.rules.fixed_roster or c.preset.startswith("avalon"):
        good, evil = role_set(c).roster(c, n)
        parts.append(m.bold("Roles in play") + ": " + ", ".join(role_name(state, r) for r in good + evil) + ".")
    if "lady" in state.extra:
        parts.append(f"The {m.bold('Lady of the Lake')} starts with {state.extra['lady']}. Right "
                     "after missions 2, 3 and 4 its holder names a player who has not held it "
                     f"({m.bold('LADY: name')}) and learns their allegiance by PM.")
    return "\n\n".join(parts)


def _role_pm(state: GameState, tag: str, name: str, m) -> str:
    seat = state.seat(name)
    c = state.config
    lines = [f"Your role in {c.title} ({tag}): {m.bold(role_name(state, seat.role))}, "
             f"one of {side_name(state, seat.side)}."]
    known = role_set(c).knowledge(state, name)
    if known:
        lines.append("You know: " + ", ".join(f"{k.name} ({role_name(state, k.label)})" for k in known) + ".")
    elif seat.side == SPIES and not c.rules.spies_know_each_other:
        lines.append("In this game the spies do not know each other.")
    if seat.side == SPIES:
        lines.append("On a mission you may PM me SUPPORT or SABOTAGE.")
    else:
        lines.append("On a mission you can only SUPPORT.")
    if seat.role == "assassin":
        lines.append("If three missions succeed, you name Merlin in the thread: "
                     + m.bold("ASSASSINATE: name") + ". If you are right, your side wins.")
    lines.append("Keep this message secret. The game thread will say what to do and when.")
    return "\n\n".join(lines)


def _proposal_opened(state, e, tag, m) -> str:
    d = e.data
    fails = " Two SABOTAGEs are needed to fail it." if d["fails_needed"] == 2 else ""
    warning = ("\n\nFour teams have been rejected in this mission: if the next one is "
               "rejected too, the spies win." if d.get("rejections", 0) == 4 else "")
    title = m.bold(f"Mission {d['mission']}")
    return (f"{title} (proposal {d['attempt']}): the leader is {m.bold(d['leader'])}, "
            f"with a team of {d['team_size']}.{fails}{warning}\n\n"
            f"{d['leader']}, post {m.bold('PROPOSE: ' + ', '.join(['name'] * d['team_size']))} "
            f"by {when(e.at, state.config.deadlines.proposal, state)}.")


def _team_proposed(state, e, tag, m) -> str:
    d = e.data
    where = "by PM to the bot" if state.config.team_votes == "pm" else "in a bold comment here or by PM"
    close = " The vote closes as soon as everyone has voted." if state.config.deadlines.close_early else ""
    public = (f" {m.bold(d['public'])} plays their order in the thread, not by PM." if d.get("public") else "")
    if state.config.rules.critical_votes:
        close = close + (" Each player may once in the game vote " + m.bold("CRITICAL APPROVE")
                         + " or " + m.bold("CRITICAL REJECT") + ", which counts double.")
    if d["mission"] in state.config.rules.pm_vote_missions:
        where = "by PM to the bot only (they are revealed when the vote closes)"
    verb = "changes the proposal to" if d.get("revised") else "proposes"
    return (f"{d['leader']} {verb} {m.bold(', '.join(d['team']))} for mission {d['mission']}.{public}\n\n"
            f"Everyone: vote {m.bold('APPROVE')} or {m.bold('REJECT')} {where}, by "
            f"{when(e.at, state.config.deadlines.team_vote, state)}.{close}")


def _vote_closed(state, e, tag, m) -> str:
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


def _proposal_missed(state, e, tag, m) -> str:
    d = e.data
    extra = " It counts as a rejected team." if d.get("counts_as_rejection") else ""
    return f"{d['leader']} did not propose a team in time. The leadership passes.{extra}"


def _proposals_stalled(state, e, tag, m) -> str:
    return (f"Nobody has proposed a team for a full turn of the leadership: each of the "
            f"{e.data['turn']} leaders in turn let the proposal deadline pass. The host has been "
            "told. If another full turn passes with no proposal, the bot ends the game as "
            "abandoned.")


def _host_stalled(state: GameState, e, tag: str, m) -> str:
    """The host's PM after one full turn with no proposal: the ways to step in."""
    d = e.data
    reserves = free_reserves(state)
    newcomer = reserves[0] if reserves else "newname"
    offer = f" Your reserves: {', '.join(reserves)}." if reserves else ""
    leader = state.leader or "name"
    seat = state.seat(leader)
    target = "name" if seat is None or seat.disqualified else leader  # (every seat out: REPLACE helps)
    return (f"{tag}: nobody has proposed a team for a full turn of the leadership: each of the "
            f"{d['turn']} leaders in turn missed the proposal deadline ({d['missed']} in a row). "
            f"If another full turn passes with no proposal, I end the game as abandoned and "
            f"reveal the roles. A human GM would step in; you can, by PM:\n\n"
            f"- {m.code(f'SKIP {tag}')}: the leader now, {leader}, is passed over at once (it "
            "counts as a missed proposal);\n"
            f"- {m.code(f'REPLACE {tag} {leader} WITH {newcomer}')}: someone else takes a seat, "
            f"role and all;{offer}\n"
            f"- {m.code(f'DISQUALIFY {tag} {target}')}: the seat stays but never leads again;\n"
            f"- {m.code(f'ABORT {tag}')}: the game ends now, with no winner.")


def _deadline_moved(state, e, tag, m) -> str:
    from datetime import datetime as _dt

    d = e.data
    step = phase_words(d["phase"])
    step = "the open " + step.removeprefix("the ") if step.startswith("the ") else step
    gone = ("the forum could not be read" if d.get("reason") == "forum" else "the bot was not running")
    since, was, until = (_dt.fromisoformat(d[k]) for k in ("down_since", "was", "until"))
    return (f"{gone[0].upper()}{gone[1:]} from {stamp(since, state.config)} to "
            f"{stamp(e.at, state.config)}, so the deadline of {step}, "
            f"{stamp(was, state.config)}, fell while nobody could act on it. It is now "
            f"{m.bold(stamp(until, state.config))}.")


def _mission_opened(state, e, tag, m) -> str:
    d = e.data
    public = ""
    if d.get("public"):
        public = (f" {d['public']}: your order is public; post {m.bold('SUPPORT')} or "
                  f"{m.bold('SABOTAGE')} here in the thread (you may change it until the mission closes).")
    return (f"Mission {d['mission']} goes ahead with {', '.join(d['team'])}. Team members: "
            f"PM the bot {m.bold('SUPPORT')} or {m.bold('SABOTAGE')} by "
            f"{when(e.at, state.config.deadlines.mission, state)}.{public} The result comes when every order "
            "is in.")


def _order_prompt(state, e, tag, m, name=None) -> str:
    d = e.data
    if name is not None and name == d.get("public"):
        return (f"You are on the team for mission {d['mission']} of {tag}, and your order is "
                f"public: post {m.bold('SUPPORT')} or {m.bold('SABOTAGE')} in the thread by "
                f"{when(e.at, state.config.deadlines.mission, state)}. Members of "
                f"{state.config.rules.resistance_name} can only SUPPORT.")
    return (f"You are on the team for mission {d['mission']} of {tag}. Reply to this message "
            f"with {m.bold('SUPPORT')} or {m.bold('SABOTAGE')} by "
            f"{when(e.at, state.config.deadlines.mission, state)}. Members of "
            f"{state.config.rules.resistance_name} can only SUPPORT. You may change your order "
            "until the mission closes." + (" If you sent your order already, it stands." if
                                          state.config.rules.commander else ""))


def _mission_resolved(state, e, tag, m) -> str:
    d = e.data
    result = "SUCCEEDED" if d["result"] == "success" else "FAILED"
    needed = f" ({d['fails_needed']} were needed to fail it)" if d["fails_needed"] > 1 else ""
    title = m.bold(f"Mission {d['number']} {result}")
    count = (f": {d['sabotages']} SABOTAGE{'' if d['sabotages'] == 1 else 's'}{needed}"
             if d.get("count_shown", True) else " (the number of SABOTAGEs is not revealed on this mission)")
    if state.config.rules.quest_cards_shown and d.get("count_shown", True):
        import random

        cards = ["FAIL"] * d["sabotages"] + ["SUCCESS"] * (len(d["team"]) - d["sabotages"])
        random.Random(f"{state.seed}:quest:{d['number']}").shuffle(cards)
        count += f". The quest cards: {', '.join(cards)}"
    public = ""
    if d.get("public"):
        p = d["public"]
        public = (f"\n\n{p}'s public order: {m.bold(d['orders'][p].upper())}"
                  + (" (default)" if p in d["defaulted"] else "") + ".")
    return f"{title}{count}.{public}\n\n{track(state, m)}"


def _disqualified(state, e, tag, m) -> str:
    d = e.data
    return (f"{d['player']} is disqualified ({d['reason']}). The slot stays in the game and "
            "plays the default from now on.")


def _game_ended(state, e, tag, m) -> str:
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


def _assassination_opened(state, e, tag, m) -> str:
    return ("Three missions have succeeded, but it is not over: the Assassin now names the "
            f"player they believe is Merlin, in the thread: {m.bold('ASSASSINATE: name')}, by "
            f"{when(e.at, state.config.deadlines.choice, state)}. The first valid shot is final.")


def _assassinated(state, e, tag, m) -> str:
    d = e.data
    verdict = "and hits Merlin" if d["hit"] else "and misses: they were not Merlin"
    return f"The Assassin, {d['assassin']}, names {m.bold(d['target'])} {verdict}."


def _assassination_overdue(state, e, tag, m) -> str:
    return "The Assassin's deadline has passed. The game waits for the shot; the host has been told."


def _lady_opened(state, e, tag, m) -> str:
    d = e.data
    return (f"{d['holder']} holds the Lady of the Lake: {d['holder']}, name a player who has not "
            f"held it, {m.bold('LADY: name')}, by {when(e.at, state.config.deadlines.choice, state)}.")


def _lady_used(state, e, tag, m) -> str:
    d = e.data
    return (f"{d['holder']} uses the Lady of the Lake on {m.bold(d['target'])}. The Lady passes "
            f"to {d['target']}.")


def _lady_skipped(state, e, tag, m) -> str:
    return f"The Lady of the Lake is not used this time ({e.data['reason']}); it stays with {e.data['holder']}."


def _commander_named(state, e, tag, m) -> str:
    d = e.data
    return (f"{m.bold(d['commander'])} is the Mission Commander for mission {d['mission']}; the "
            "mission's first leader is the player after them.")


def _card(key: str) -> str:
    from ..rules.plot_deck import BY_KEY

    return BY_KEY[key].name


def _plot_window(state, e, tag, m) -> str:
    d = e.data
    holders = ", ".join(d["holders"])
    wait = when(e.at, state.config.deadlines.card_window, state)
    if d["window"] == "round_start":
        return (f"Before this round's Plot Cards are drawn, {holders} may play Strong Leader "
                f"({m.bold('PLAY: Strong Leader')}) and lead the round, or {m.bold('PASS')}, by {wait}.")
    if d["window"] == "after_veto":
        return (f"After the No Confidence, {holders} may play Strong Leader "
                f"({m.bold('PLAY: Strong Leader')}) and lead the next proposal, or {m.bold('PASS')}, by {wait}.")
    if d["window"] == "approved":
        return (f"Before the orders: {holders} may play a card now: {m.bold('PLAY: No Confidence')} "
                f"(the team is rejected) or {m.bold('PLAY: In the Spotlight -> name')} (that team "
                f"member's order is shown with the result), or {m.bold('PASS')}, by {wait}.")
    return (f"Keeping a Close Eye on You: {holders}, you may now name one member of the team by PM "
            f"({m.bold('CHOOSE: name')}) and learn their order, or {m.bold('PASS')}, by {wait}.")


def _plot_drawn(state, e, tag, m) -> str:
    d = e.data
    cards = ", ".join(m.bold(_card(c)) for c in d["cards"])
    own = "establish-confidence" in d["cards"]
    given = [c for c in d["cards"] if c != "establish-confidence"]
    if not given:  # only the leader's own card: nothing to hand out
        return (f"Plot Cards for mission {d['mission']}: {cards}. Establish Confidence stays with "
                f"the leader, {d['leader']}.")
    each = "hand it to another player" if len(given) == 1 else "hand each to a different player"
    return (f"Plot Cards for mission {d['mission']}: {cards}. {d['leader']}, {each}, not "
            f"yourself: {m.bold('GIVE: card -> name')}, by "
            f"{when(e.at, state.config.deadlines.choice, state)}."
            + (" Establish Confidence stays with the leader." if own else "")
            + (" A card not given in time is discarded." if len(given) == 1
               else " Cards not given in time are discarded."))


def _plot_given(state, e, tag, m) -> str:
    d = e.data
    if d.get("own"):
        return f"{m.bold('Establish Confidence')} is the leader's own card: {d['to']} resolves it."
    return f"{d['by']} gives {m.bold(_card(d['card']))} to {m.bold(d['to'])}."


def _plot_choice_opened(state, e, tag, m) -> str:
    d = e.data
    wait = when(e.at, state.config.deadlines.choice, state)
    if d["card"] == "take-responsibility":
        return (f"{d['holder']}: Take Responsibility lets you take one Plot Card from another "
                f"player: {m.bold('TAKE: card FROM name')}, by {wait}.")
    if d["card"] == "overheard":
        a, b = d["neighbours"]
        return (f"{d['holder']}: Overheard Conversation: choose a neighbour, {a} or {b} "
                f"({m.bold('CHOOSE: name')}), by {wait}; you will learn their allegiance by PM.")
    what = {"open-up": "who will learn your allegiance by PM",
            "establish-confidence": "who will learn your allegiance by PM"}[d["card"]]
    return f"{d['holder']}: {_card(d['card'])}: choose a player {what} ({m.bold('CHOOSE: name')}), by {wait}."


def _plot_reveal(state, e, tag, m) -> str:
    d = e.data
    if d["card"] == "close-eye":
        return ""
    return f"{d['holder']} chooses {m.bold(d['target'])} for {_card(d['card'])}."


def _plot_played(state, e, tag, m) -> str:
    d = e.data
    if d["card"] == "strong-leader":
        return f"{d['holder']} plays {m.bold('Strong Leader')} and leads this round."
    if d["card"] == "chicago-proxy":
        return (f"{d['holder']} plays {m.bold('Chicago Proxy')} on {m.bold(d['target'])}: "
                f"{d['holder']} casts {d['target']}'s vote on this team "
                f"({m.bold('PROXY: name APPROVE')} to change it).")
    target = f" on {m.bold(d['target'])}" if d.get("target") else ""
    return f"{d['holder']} plays {m.bold(_card(d['card']))}{target}."


def _plot_declared(state, e, tag, m) -> str:
    return f"{e.data['holder']} plays {m.bold('Keeping a Close Eye on You')}, and names a team member by PM."


def _team_vetoed(state, e, tag, m) -> str:
    return (f"{m.bold('No Confidence')}: the approved team is rejected after all. It counts as "
            f"a rejected team ({e.data['rejections']} of 5 this mission).")


def _plot_spotlight(state, e, tag, m) -> str:
    d = e.data
    return (f"In the Spotlight: {m.bold(d['target'])}'s order on mission {d['mission']} "
            f"was {m.bold(d['order'].upper())}.")


def _plot_skipped(state, e, tag, m) -> str:
    return f"{_card(e.data['card'])} goes unused ({e.data['reason']})."


def _plot_discarded(state, e, tag, m) -> str:
    return f"{_card(e.data['card'])} is discarded ({e.data['reason']})."


def _plot_taken(state, e, tag, m) -> str:
    d = e.data
    return f"{d['by']} takes {m.bold(_card(d['card']))} from {d['source']}."


def _mc(key: str) -> str:
    from ..rules.mission_cards import BY_KEY

    return BY_KEY[key].name


def _mc_drawn(state, e, tag, m) -> str:
    d = e.data
    cards = " and ".join(m.bold(_mc(c)) for c in d["cards"])
    return (f"Mission Prep for mission {d['mission']}: the Mission Commander, {d['commander']}, "
            f"draws {cards}. The first proposal waits until the cards are followed.")


def _mc_window(state, e, tag, m) -> str:
    """Each holder is offered the kept cards they hold, and no other."""
    d = e.data
    hands = d.get("cards") or {h: state.extra.get("mc", {}).get("hands", {}).get(h, [])
                               for h in d["holders"]}
    forms = {"prepare": m.bold("PLAY: Prepare for the Future -> drawn card")
             + " (you act as Commander for it)",
             "counterespionage": m.bold("PLAY: Counterespionage -> name")
             + " (you learn their allegiance by PM)"}
    offers = []
    for holder in d["holders"]:
        options = [forms[c] for c in dict.fromkeys(hands.get(holder, [])) if c in forms]
        offers.append(f"{holder}: you may play your kept card now, " if len(options) == 1 else
                      f"{holder}: you may play one of your kept cards now, ")
        offers[-1] += " or ".join(options) + f", or {m.bold('PASS')}."
    return ("\n\n".join(offers) + " Answer by "
            f"{when(e.at, state.config.deadlines.card_window, state)}.")


def _mc_played(state, e, tag, m) -> str:
    d = e.data
    if d["card"] == "prepare":
        drawn = state.extra["mc"]["drawn"][d["index"]]
        return f"{d['holder']} plays Prepare for the Future and acts as Commander for {m.bold(_mc(drawn))}."
    return f"{d['holder']} plays Counterespionage on {m.bold(d['target'])}."


def _mc_follow(state, e, tag, m) -> str:
    d = e.data
    form = f"GIVE: {_mc(d['card'])} -> name" if d["action"] == "give" else "CHOOSE: name"
    return (f"{d['commander']}: follow {m.bold(_mc(d['card']))} with {m.bold(form)}, by "
            f"{when(e.at, state.config.deadlines.choice, state)}.")


def _mc_done(state, e, tag, m) -> str:
    d = e.data
    if d["card"] == "delayed" and d.get("applied"):
        return (f"{m.bold('Delayed by Bureaucracy')}: {d['commander']} may neither be proposed for "
                "nor vote on the first proposal of this mission (the first two, if both copies are drawn).")
    if d["card"] == "counterfeit":
        return f"{m.bold('Counterfeit Equipment')}: the other card is discarded without effect."
    if d.get("result") == "kept" and d.get("to"):
        return f"{m.bold(_mc(d['card']))}: kept by {m.bold(d['to'])}, to play in a later Mission Prep."
    return f"{m.bold(_mc(d['card']))}: {d['result']}."


def _mc_badge(state, e, tag, m) -> str:
    d = e.data
    return (f"{d['holder']} plays {m.bold('Badge of Merit')} and moves to just after {d['after']}. "
            f"Leader order now: {', '.join(state.names)}.")


def _host_action(state, e, tag, m) -> str:
    d = e.data
    action = d.get("action", "close")
    if action == "skip":
        return (f"The host skipped {phase_words(d['phase'])}: it ends now, as if its deadline "
                "had passed.")
    if action == "record":
        if d["kind"] == "MissionOrder":  # never who has ordered: that would narrow the spies down
            return "The host recorded a mission order that was sent to them privately."
        what = {"TeamVote": "vote", "Propose": "proposal"}.get(d["kind"], "choice")
        return f"The host recorded {d['player']}'s {what}, sent to them privately."
    what = "team vote" if d["phase"] == "team_vote" else "mission"
    return f"The host closed the {what} now; what is missing takes its default."


def _deadline_extended(state, e, tag, m) -> str:
    from ..deadlines import due

    when = due(state)
    new = f" It is now {stamp(when, state.config)}." if when and state.phase == e.data["phase"] else ""
    return f"The host extended the deadline by {format_duration(e.data['seconds'])}.{new}"


def _game_paused(state, e, tag, m) -> str:
    if e.data.get("until"):
        from datetime import datetime as _dt

        return ("The host paused the game: every clock is stopped until "
                f"{stamp(_dt.fromisoformat(e.data['until']), state.config)}, when it resumes by itself.")
    return "The host paused the game: every clock is stopped until it resumes."


def _game_resumed(state, e, tag, m) -> str:
    from ..deadlines import due

    when = due(state)
    new = f" The deadline is now {stamp(when, state.config)}." if when else ""
    return f"The game resumes, with the time that was left when it was paused.{new}"


REMINDER_WORDS = {
    "proposal": "post your team: **PROPOSE: name, name**",
    "team_vote": "vote on the team: **APPROVE** or **REJECT**",
    "mission": "send your mission order by PM: **SUPPORT** or **SABOTAGE**",
}


def _reminder(state, e, tag, m, name) -> str:
    from ..deadlines import due

    when = due(state)
    what = REMINDER_WORDS.get(e.data["phase"], "act: see the thread")
    by = f" by {stamp(when, state.config)}" if when else ""
    return f"{tag} reminder: you still have to {what}{by}."


def _host_disqualified(state, e, tag, m) -> str:
    d = e.data
    reserves = free_reserves(state)
    command = m.code(f"REPLACE {tag} {d['player']} WITH {reserves[0] if reserves else 'newname'}")
    offer = f" Your reserves: {', '.join(reserves)}." if reserves else ""
    return (f"{d['player']} was disqualified in {tag} ({d['reason']}). To put someone in the "
            f"slot, PM me: {command}{offer}")


def free_reserves(state: GameState) -> list[str]:
    """The host's reserves who neither play nor played in this game."""
    taken = {n.casefold() for n in state.names} | {n.casefold() for n in state.replaced}
    return [r for r in state.config.reserves if r.casefold() not in taken]


def _host_plays(state: GameState) -> bool:
    return any(state.config.is_host(n) for n in state.names)


def _spectator_pm(state: GameState, tag: str, m) -> str:
    rows = [[s.name, role_name(state, s.role), side_name(state, s.side)] for s in state.seats]
    return (f"You are watching {state.config.title} ({tag}). The roles, which nobody else is told:"
            f"\n\n{m.table(['Player', 'Role', 'Side'], rows)}\n\nKeep them secret. Spectators "
            "cannot vote or act.")


def _missed_notice(state: GameState, e, tag: str) -> list[Message]:
    """missed.notify_host_after: the host hears when a player has missed that many in a row."""
    after = state.config.missed.notify_host_after
    if not after or (e.type == ev.MISSION_RESOLVED and not state.config.missed.orders_count):
        return []
    out = []
    for name in e.data.get("defaulted", []):
        seat = state.seat(name)
        if seat is not None and seat.missed == after and not seat.disqualified:
            reserves = free_reserves(state)
            offer = f" Your reserves: {', '.join(reserves)}." if reserves else ""
            out.append(Message(f"missed:{name}", f"{tag}: {name} has missed {after} in a row. Nothing "
                               f"happens to them for it; if they are gone, PM me "
                               f"`REPLACE {tag} {name} WITH {reserves[0] if reserves else 'newname'}` "
                               f"or `DISQUALIFY {tag} {name}`.{offer}",
                               to=state.config.host, subject=f"{tag}: {name} is missing"))
    return out


def _replaced(state, e, tag, m) -> str:
    d = e.data
    back = " The seat was disqualified; it plays again from now on." if d.get("was_disqualified") else ""
    return (f"{m.bold(d['by'])} replaces {d['player']}: {d['by']} takes over that seat, with "
            f"everything {d['player']} did so far in this game (votes and orders stand). From now on "
            f"only {d['by']} answers for it.{back}")


def _newcomer_pm(state, e, tag, m) -> str:
    from ..deadlines import due

    new, old = e.data["by"], e.data["player"]
    parts = [f"You now play in {tag} in place of {old}: the seat, its role, its cards and "
             f"everything {old} did so far are yours.", _role_pm(state, tag, new, m)]
    hands = [card_key for key in ("plot", "mc") if key in state.extra
             for card_key in state.extra[key].get("hands", {}).get(new, [])]
    if hands:
        names = [(_card(k) if "plot" in state.extra else _mc(k)) for k in hands]
        parts.append("Your cards: " + ", ".join(m.bold(n) for n in names) + ".")
    deadline = due(state)
    by = f" by {stamp(deadline, state.config)}" if deadline else ""
    if state.phase == "mission" and new in state.team:
        if new in state.orders:
            parts.append(f"Your seat's order for mission {state.mission} is in: "
                         f"{m.bold(state.orders[new].upper())}. You may change it{by}.")
        else:
            parts.append(f"You are on the team for mission {state.mission}: PM me "
                         f"{m.bold('SUPPORT')} or {m.bold('SABOTAGE')}{by}.")
    elif state.phase == "team_vote" and new not in state.not_voting:
        if new in state.votes:
            parts.append(f"Your seat's vote on the team is {m.bold(state.votes[new].upper())}. "
                         f"You may change it{by}.")
        else:
            parts.append(f"Vote on the team {', '.join(state.team)}: {m.bold('APPROVE')} or "
                         f"{m.bold('REJECT')}{by}.")
    elif state.phase == "proposal" and state.leader == new:
        parts.append(f"You lead now: post {m.bold('PROPOSE: name, name')} in the thread "
                     f"({state.team_size()} players){by}.")
    elif new in state.actors:
        parts.append(f"It is your turn to act; see the thread{by}.")
    return "\n\n".join(parts)


_PUBLIC = {
    "player_replaced": _replaced,
    ev.PROPOSAL_OPENED: _proposal_opened,
    ev.TEAM_PROPOSED: _team_proposed,
    ev.VOTE_CLOSED: _vote_closed,
    ev.PROPOSAL_MISSED: _proposal_missed,
    ev.PROPOSALS_STALLED: _proposals_stalled,
    ev.DEADLINE_MOVED: _deadline_moved,
    ev.MISSION_OPENED: _mission_opened,
    ev.MISSION_RESOLVED: _mission_resolved,
    ev.PLAYER_DISQUALIFIED: _disqualified,
    ev.GAME_ENDED: _game_ended,
    ev.ASSASSINATION_OPENED: _assassination_opened,
    ev.ASSASSINATED: _assassinated,
    ev.ASSASSINATION_OVERDUE: _assassination_overdue,
    ev.LADY_OPENED: _lady_opened,
    ev.LADY_USED: _lady_used,
    ev.LADY_SKIPPED: _lady_skipped,
    ev.COMMANDER_NAMED: _commander_named,
    ev.HOST_ACTION: _host_action,
    ev.DEADLINE_EXTENDED: _deadline_extended,
    ev.GAME_PAUSED: _game_paused,
    ev.GAME_RESUMED: _game_resumed,
    ev.PLOT_WINDOW: _plot_window,
    ev.PLOT_DRAWN: _plot_drawn,
    ev.PLOT_GIVEN: _plot_given,
    ev.PLOT_CHOICE_OPENED: _plot_choice_opened,
    ev.PLOT_REVEAL: _plot_reveal,
    ev.PLOT_PLAYED: _plot_played,
    ev.TEAM_VETOED: _team_vetoed,
    ev.PLOT_SPOTLIGHT: _plot_spotlight,
    ev.PLOT_CHOICE_SKIPPED: _plot_skipped,
    ev.PLOT_DISCARDED: _plot_discarded,
    ev.PLOT_TAKEN: _plot_taken,
    ev.PLOT_DECLARED: _plot_declared,
    "mc_drawn": _mc_drawn,
    "mc_window": _mc_window,
    "mc_played": _mc_played,
    "mc_follow": _mc_follow,
    "mc_done": _mc_done,
    "mc_badge": _mc_badge,
}


def block_separator(m) -> str:
    """Between the status block and the rest of the opening post."""
    return f"\n\n{m.rule()}\n\n"


def with_block(opening: str, block: str, m) -> str:
    """The opening post with its status block replaced by `block`."""
    sep = block_separator(m)
    rest = opening.split(sep, 1)[1] if sep in opening else opening
    return block + sep + rest


def pm_footer(tag: str) -> str:
    """The last line of every PM about a game: a chat (Reddit's) may drop the subject, and the
    tag is how the bot knows which game an answer is for."""
    return f"Put {tag} in any message you send me about this game (a chat may drop the subject)."


def with_footer(body: str, tag: str) -> str:
    footer = pm_footer(tag)
    return body if body.rstrip().endswith(footer) else f"{body}\n\n{footer}"


def render_events(state: GameState, events: list[ev.Event], tag: str, markup: str = "markdown",
                  now: datetime | None = None) -> list[Message]:
    """The posts and PMs for one batch of events. `state` is the state after them. `now`: when
    they go out, if known; relative deadlines ("in 12h") count from it."""
    token = _NOW.set(now)
    try:
        out = _render_events(state, events, tag, markup)
    finally:
        _NOW.reset(token)
    return [replace(msg, body=with_footer(msg.body, tag)) if msg.to is not None else msg
            for msg in out]


def _render_events(state: GameState, events: list[ev.Event], tag: str, markup: str) -> list[Message]:
    m = markup_for(markup)
    out: list[Message] = []
    public: list[str] = []
    priority = 1
    for e in events:
        if e.type == ev.GAME_STARTED:
            from ..status import status_block

            body = status_block(state, tag, m) + block_separator(m) + _opening(state, e, tag, m)
            out.append(Message("opening", body, opening=True,
                               title=f"{state.config.title} ({tag})", priority=0))
            for name in state.names:
                out.append(Message(f"role:{name}", _role_pm(state, tag, name, m), to=name,
                                   subject=f"{tag}: your role", priority=0))
            for name in state.config.spectators:
                out.append(Message(f"spectator:{name}", _spectator_pm(state, tag, m), to=name,
                                   subject=f"{tag}: you are watching", priority=0))
            continue
        if e.type in _PUBLIC and (text := _PUBLIC[e.type](state, e, tag, m)):
            public.append(text)
            priority = 0
        if e.type == ev.MISSION_OPENED:
            for name in e.data["team"]:
                out.append(Message(f"orders:{name}", _order_prompt(state, e, tag, m, name), to=name,
                                   subject=f"{tag}: mission {e.data['mission']} orders", priority=0))
        elif e.type == "player_replaced":
            d = e.data
            out.append(Message(f"newcomer:{d['by']}", _newcomer_pm(state, e, tag, m), to=d["by"],
                               subject=f"{tag}: you are in the game", priority=0))
            out.append(Message(f"replaced:{d['player']}", f"{tag}: the host has given your seat to "
                               f"{d['by']}. You no longer play in this game; thank you for playing.",
                               to=d["player"], subject=f"{tag}: you were replaced"))
        elif e.type in (ev.VOTE_CLOSED, ev.MISSION_RESOLVED) and (notes := _missed_notice(state, e, tag)):
            out.extend(notes)
        if e.type == ev.PROPOSALS_STALLED:
            out.append(Message("host-stalled", _host_stalled(state, e, tag, m), to=state.config.host,
                               subject=f"{tag}: nobody proposes", priority=0))
        if e.type == ev.PLAYER_DISQUALIFIED:
            out.append(Message(f"host-dq:{e.data['player']}", _host_disqualified(state, e, tag, m),
                               to=state.config.host, subject=f"{tag}: a player was disqualified"))
        elif e.type == ev.LADY_USED:
            d = e.data
            out.append(Message(f"lady:{d['holder']}", f"{tag}: the Lady of the Lake shows you that "
                               f"{m.bold(d['target'])} is one of {side_name(state, d['side'])}.",
                               to=d["holder"], subject=f"{tag}: the Lady of the Lake", priority=0))
        elif e.type == ev.ASSASSINATION_OPENED:
            out.append(Message("assassin", f"{tag}: three missions have succeeded. As the Assassin, "
                               f"post {m.bold('ASSASSINATE: name')} in the thread.",
                               to=e.data["assassin"], subject=f"{tag}: name Merlin", priority=0))
        elif e.type == ev.ASSASSINATION_OVERDUE:
            who = "" if _host_plays(state) else f" ({e.data['assassin']})"  # never to a playing host
            out.append(Message("host-assassin", f"{tag}: the assassination deadline has passed and "
                               f"the Assassin{who} has not shot. The game waits; "
                               "there is no default for the shot.",
                               to=state.config.host, subject=f"{tag}: the assassination waits"))
        elif e.type == ev.VOTE_CAST and e.data["via"] == "pm":
            out.append(Message(f"ack-vote:{e.data['player']}",
                               f"{tag}: your vote {m.bold(e.data['vote'].upper())} is recorded. You "
                               "may change it until the vote closes.",
                               to=e.data["player"], subject=f"{tag}: vote recorded"))
        elif e.type == ev.PLOT_REVEAL:
            d = e.data
            if d["card"] == "close-eye":
                text = (f"{tag}: Keeping a Close Eye on You: {m.bold(d['subject'])} played "
                        f"{m.bold(d['order'].upper())} on mission {d['mission']}.")
            else:
                text = (f"{tag}: {_card(d['card'])}: {m.bold(d['subject'])} is one of "
                        f"{side_name(state, d['side'])}.")
            out.append(Message(f"reveal:{d['viewer']}", text, to=d["viewer"],
                               subject=f"{tag}: {_card(d['card'])}", priority=0))
        elif e.type == ev.REMINDERS_SENT:
            for name in e.data["players"]:
                out.append(Message(f"remind:{name}", _reminder(state, e, tag, m, name), to=name,
                                   subject=f"{tag}: reminder", priority=2))
        elif e.type == "mc_reveal":
            d = e.data
            if d["card"] == "tracker":
                text = (f"{tag}: Secret Tracker: {m.bold(d['subject'])} played "
                        f"{m.bold(d['order'].upper())} on mission {d['mission']}.")
            else:
                text = f"{tag}: {_mc(d['card'])}: {m.bold(d['subject'])} is one of {side_name(state, d['side'])}."
            out.append(Message(f"mc-reveal:{d['viewer']}", text, to=d["viewer"],
                               subject=f"{tag}: {_mc(d['card'])}", priority=0))
        elif e.type == ev.PLOT_WINDOW:
            for holder in e.data["holders"]:
                out.append(Message(f"window:{holder}", f"{tag}: you may play a card now; see the "
                                   "thread. Answer " + ("by PM: **CHOOSE: name** or **PASS**."
                                   if e.data["window"] == "after_result" else "in the thread, or **PASS**."),
                                   to=holder, subject=f"{tag}: your card", priority=0))
        elif e.type == ev.ORDER_PRELOADED:
            out.append(Message(f"ack-preload:{e.data['player']}",
                               f"{tag}: your order {m.bold(e.data['order'].upper())} is preloaded. It "
                               "applies if this team is approved; you may change it until then.",
                               to=e.data["player"], subject=f"{tag}: order preloaded"))
        elif e.type == ev.ORDER_CAST and not e.data.get("preloaded"):
            out.append(Message(f"ack-order:{e.data['player']}",
                               f"{tag}: your order {m.bold(e.data['order'].upper())} is recorded. You "
                               "may change it until the mission closes.",
                               to=e.data["player"], subject=f"{tag}: order recorded"))
    if public:
        first = 1 if out and out[0].opening else 0  # after the opening post, before the PMs
        out.insert(first, Message("post", "\n\n".join(public), priority=priority))
    return out


def render_refusal(refusal: Refusal, tag: str | None, markup: str = "markdown") -> str:
    prefix = f"{tag}: " if tag else ""
    text = f"{prefix}{refusal.reason}"
    if refusal.hint:
        text += f" The right form: {refusal.hint}"
    return text
