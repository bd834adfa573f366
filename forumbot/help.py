"""HELP: the commands that fit the sender's situation now, with the exact words to type.
Pure: from the game's state and who asks."""
from __future__ import annotations

from .rules.state import MISSION, PROPOSAL, RESISTANCE, TEAM_VOTE, GameState, phase_words

GENERAL = ("In a game thread, only **bold** commands count; by PM, one command a line. Put the "
           "game tag (G12) in the subject if you play several games. **STATUS** shows a game's "
           "state. To host a game, PM me a config with the subject `new game` (see the README).")


def help_for(state: GameState | None, tag: str | None, who: str, seat: str | None) -> str:
    if state is None or tag is None:
        return GENERAL
    config = state.config
    if seat is None:
        if any(s.casefold() == who.casefold() for s in config.spectators):
            return (f"{tag}: you are watching this game. Spectators cannot vote or act; "
                    "**STATUS** shows where it stands.")
        if config.is_host(who):
            return (f"{tag}: as host you may PM me `EXTEND {tag} 6h`, `CLOSE {tag}`, `SKIP {tag}`, "
                    f"`PAUSE {tag}` / `RESUME {tag}`, `RECORD {tag} name APPROVE`, "
                    f"`REPLACE {tag} old WITH new`, `DISQUALIFY {tag} name`, `ABORT {tag}` and "
                    f"`STATUS {tag}`.")
        return f"{tag}: you are not a player in this game. " + GENERAL
    lines = [f"{tag}, for you now:"]
    s = state
    if not s.running:
        lines.append("the game is over.")
    elif s.paused_at is not None:
        lines.append("the game is paused by the host; nothing can be done until it resumes.")
    elif s.phase == PROPOSAL:
        if s.leader == seat:
            lines.append(f"you lead mission {s.mission}: post **PROPOSE: name, name** in the thread "
                         f"with {s.team_size()} players.")
        else:
            lines.append(f"the leader, {s.leader}, is choosing a team; wait for the proposal.")
    elif s.phase == TEAM_VOTE:
        if seat in s.not_voting:
            lines.append("a card bars you from this vote.")
        elif seat in s.votes:
            lines.append(f"your vote {s.votes[seat].upper()} is in; you may change it with "
                         "**APPROVE** or **REJECT** until the vote closes.")
        else:
            lines.append(f"vote on {', '.join(s.team)}: **APPROVE** or **REJECT**, in the thread or "
                         f"by PM (`{tag} APPROVE`).")
        if s.leader == seat and not s.votes:
            lines.append("As leader you may still replace your team with **PROPOSE: name, name** "
                         "until the first vote arrives.")
    elif s.phase == MISSION:
        if seat in s.team and seat not in s.orders:
            forms = "SUPPORT" if s.seat(seat).side == RESISTANCE else "SUPPORT or SABOTAGE"
            where = "in the thread" if seat == s.public else f"by PM (`{tag} SUPPORT`)"
            lines.append(f"you are on mission {s.mission}: send {forms} {where}.")
        elif seat in s.team:
            lines.append(f"your order {s.orders[seat].upper()} is in; you may change it until "
                         "the mission closes.")
        else:
            lines.append(f"mission {s.mission} is under way; you are not on it.")
    elif seat in s.actors:
        lines.append(_step_forms(s, seat))
    else:
        lines.append(f"the game is at {phase_words(s.phase)}; "
                     f"{', '.join(s.actors) or 'nobody'} to act.")
    lines.append("**STATUS** shows the whole state.")
    return " ".join(lines)


def _step_forms(s: GameState, seat: str) -> str:
    if s.phase == "assassination":
        return "you are the Assassin: name Merlin in the thread with **ASSASSINATE: name**."
    if s.phase == "lady":
        return "you hold the Lady of the Lake: post **LADY: name** (someone who has not held it)."
    if s.phase == "hand_out":
        return "give the drawn cards in the thread: **GIVE: card name -> player**."
    if s.phase in ("card_window", "prep_window"):
        return "you may play a card now, **PLAY: card name** (with `-> name` if it targets someone), or **PASS**."
    return "you have a choice to make: **CHOOSE: name** (see the thread)."
