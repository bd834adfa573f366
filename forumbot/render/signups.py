"""The words of sign-ups (`players: signup`), per markup: the block at the top of the
sign-up post, its announcement, and the answers to JOIN, LEAVE and the host. Pure: what
they show (who joined, the deadline) is passed in."""
from __future__ import annotations

from datetime import datetime

from ..rules.config import GameConfig
from ..rules.deadlines import stamp
from .markup import Markdown, Markup
from .words import own_words, relative

MD: Markup = Markdown()


def block(tag: str, cfg: GameConfig, names: list[str], deadline: datetime | None, at: datetime,
          m: Markup = MD) -> str:
    """The status block of a game in sign-ups (`deadline`: when sign-ups close, if set)."""
    lines = [m.bold(f"Status of {tag}") + f" (as of {at:%Y-%m-%d %H:%M} UTC)",
             f"Sign-ups are open: {len(names)} joined ({cfg.min_players} needed, room for "
             f"{cfg.max_players})" + (": " + ", ".join(names) if names else "") + "."]
    if deadline is not None:
        left = max(0, int((deadline - at).total_seconds()))
        lines.append(f"Sign-ups close {stamp(deadline, cfg)} (in {relative(left)}).")
    elif cfg.deadlines.signup is not None:
        lines.append("The sign-up deadline has passed; the host decides whether to extend or abort.")
    return "  \n".join(lines) if m.name == "markdown" else "\n".join(lines)


def announcement(tag: str, cfg: GameConfig, m: Markup = MD) -> str:
    p = cfg.rules
    close = (f" or when sign-ups close, if at least {cfg.min_players} have joined by then"
             if cfg.deadlines.signup is not None else "")
    order = "in the order of joining" if cfg.leader_order == "listed" else "in a random order"
    return "\n\n".join([
        m.heading(f"{cfg.title} ({tag}): sign-ups"),
        *([cfg.intro] if cfg.intro else []),
        f"{p.title}. Host: {cfg.host}. {cfg.min_players} to {cfg.max_players} players.",
        p.summary,
        f"To play, comment {m.bold('JOIN')}{own_words(cfg, 'join', m)} in this thread; to drop out "
        f"before the start, {m.bold('LEAVE')}{own_words(cfg, 'leave', m)}. The game starts when "
        f"{cfg.max_players} have joined{close}. "
        f"Seats (and the leader order) go {order}. Everyone gets their role by PM at the start.",
    ])


def not_started(tag: str, m: Markup = MD) -> str:
    return f"{tag} has not started: sign-ups are open. Comment {m.bold('JOIN')} to play."


def joined_already(tag: str) -> str:
    return f"You have joined {tag} already."


def spectator(tag: str) -> str:
    return (f"You are a spectator of {tag}: spectators have seen every role and cannot play. "
            "Nothing was changed.")


def full(tag: str) -> str:
    return f"{tag} is full."


def welcome(tag: str, count: int, room: int | None, m: Markup = MD) -> str:
    return (f"You have joined {tag} ({count} of {room}). Comment {m.bold('LEAVE')} to drop out "
            "before the start.")


def left(tag: str, was_in: bool) -> str:
    return f"You have left {tag}." if was_in else f"You had not joined {tag}; nothing was changed."


def too_few(tag: str, count: int, needed: int | None, m: Markup = MD) -> str:
    return (f"{tag}: sign-ups closed with {count} of the {needed} players needed. To give them "
            f"more time, PM me {m.code(f'EXTEND {tag} 1d')}; to call the game off, "
            f"{m.code(f'ABORT {tag}')}. Until you decide, JOINs are still taken.")


def called_off(tag: str) -> str:
    return f"The host has called off {tag} before it started."


def close_form(tag: str, m: Markup = MD) -> str:
    return f"The right form: {m.code(f'SIGNUPS {tag} CLOSE')}"


def host_before_start(tag: str) -> str:
    return (f"{tag} has not started: sign-ups are open. Until the start only EXTEND, SIGNUPS "
            "... CLOSE, ABORT and STATUS apply. Nothing was changed.")
