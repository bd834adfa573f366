"""HELP: the commands that fit the sender's situation now, with the exact words to type, in
the forum's markup. Pure: from the game's state and who asks."""
from __future__ import annotations

from ..rules.hooks import phase_words
from ..rules.state import MISSION, PROPOSAL, RESISTANCE, TEAM_VOTE, GameState
from . import registry
from .markup import Markup, markup_for
from .words import own_words, propose_form, vote_forms


def general(m: Markup) -> str:
    return (f"In a game thread, only {m.bold('bold')} commands count; by PM, one command a line. Put the "
            f"game tag (G12) in the subject if you play several games. {m.bold('STATUS')} shows a game's "
            f"state. To host a game, PM me a config with the subject {m.code('new game')} (see the README).")


GENERAL = general(markup_for("markdown"))


def help_for(state: GameState | None, tag: str | None, who: str, seat: str | None,
             markup: str | Markup = "markdown") -> str:
    """HELP for `who` (a username), who plays seat `seat` (its id; None: no seat)."""
    m = markup_for(markup)
    registry.load()
    if state is None or tag is None:
        return general(m)
    config = state.config
    if seat is None:
        if any(s.casefold() == who.casefold() for s in config.spectators):
            return (f"{tag}: you are watching this game. Spectators cannot vote or act; "
                    f"{m.bold('STATUS')} shows where it stands.")
        if config.is_host(who):
            c = m.code
            return (f"{tag}: as host you may PM me {c(f'EXTEND {tag} 6h')}, {c(f'CLOSE {tag}')}, "
                    f"{c(f'SKIP {tag}')}, {c(f'PAUSE {tag}')} / {c(f'RESUME {tag}')}, "
                    f"{c(f'RECORD {tag} name APPROVE')}, {c(f'REPLACE {tag} old WITH new')}, "
                    f"{c(f'DISQUALIFY {tag} name')}, {c(f'ABORT {tag}')} and {c(f'STATUS {tag}')}.")
        return f"{tag}: you are not a player in this game. " + general(m)
    lines = [f"{tag}, for you now:"]
    s = state
    if not s.running:
        lines.append("the game is over.")
    elif s.paused_at is not None:
        lines.append("the game is paused by the host; nothing can be done until it resumes.")
    elif s.phase == PROPOSAL:
        if s.leader == seat:
            lines.append(f"you lead mission {s.mission}: post {m.bold(propose_form(s))} in the thread "
                         f"with {s.team_size()} players.")
        else:
            lines.append(f"the leader, {s.shown(s.leader or '')}, is choosing a team; wait for the proposal.")
    elif s.phase == TEAM_VOTE:
        either = vote_forms(config, m)
        if seat in s.not_voting:
            lines.append("a card bars you from this vote.")
        elif seat in s.votes:
            lines.append(f"your vote {s.votes[seat].upper()} is in; you may change it with "
                         f"{either} until the vote closes.")
        else:
            lines.append(f"vote on {', '.join(s.shown(n) for n in s.team)}: {either}, in the thread or "
                         f"by PM ({m.code(f'{tag} APPROVE')}).")
        if s.leader == seat and not s.votes:
            lines.append(f"As leader you may still replace your team with {m.bold(propose_form(s))} "
                         "until the first vote arrives.")
    elif s.phase == MISSION:
        if seat in s.team and seat not in s.orders:
            mine = s.seat(seat)
            support = "SUPPORT" + own_words(config, "support", m)
            forms = (support if mine is not None and mine.side == RESISTANCE
                     else f"{support} or SABOTAGE{own_words(config, 'sabotage', m)}")
            where = "in the thread" if seat == s.public else f"by PM ({m.code(f'{tag} SUPPORT')})"
            lines.append(f"you are on mission {s.mission}: send {forms} {where}.")
        elif seat in s.team:
            lines.append(f"your order {s.orders[seat].upper()} is in; you may change it until "
                         "the mission closes.")
        else:
            lines.append(f"mission {s.mission} is under way; you are not on it.")
    elif seat in s.actors:
        lines.append(_step_forms(s, seat, m))
    else:
        lines.append(f"the game is at {phase_words(s.phase)}; "
                     f"{', '.join(s.shown(n) for n in s.actors) or 'nobody'} to act.")
    if s.running and s.paused_at is None:
        lines += [note for fn in registry.HELP_NOTES if (note := fn(s, seat, m))]
    lines.append(f"{m.bold('STATUS')} shows the whole state.")
    return " ".join(lines)


def _step_forms(s: GameState, seat: str, m: Markup) -> str:
    registry.load()
    if (step := registry.HELP_STEPS.get(s.phase)) and (text := step(s, seat, m)):
        return text
    if s.phase == "hand_out":
        return f"give the drawn cards in the thread: {m.bold('GIVE: card name -> player')}."
    if s.phase in ("card_window", "prep_window"):
        return (f"you may play a card now, {m.bold('PLAY: card name')} (with {m.code('-> name')} if it "
                f"targets someone), or {m.bold('PASS')}.")
    return f"you have a choice to make: {m.bold('CHOOSE: name')} (see the thread)."
