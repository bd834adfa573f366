"""Sign-ups: `players: signup`. Players comment bold JOIN or LEAVE in the game thread; the
game starts when `max_players` have joined, or when the sign-up deadline passes with at
least `min_players`. Below that, the host is asked to EXTEND or ABORT.

Before the start a game has no event log (the rules need a table); who has joined is kept
in the `Signup` table, and the game's status is `signup`.
"""
from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta

from . import deadlines, store
from .parsing import Parsed
from .render import Message
from .render.markup import markup_for
from .render.posts import block_separator
from .rules import start
from .status import relative
from .store import Game, Inbound, Signup

# How a forum shows the author of a deleted comment or account: no one can take a seat
# (or read a reply) under it.
GONE_AUTHORS = {"", "[deleted]", "[removed]"}


def gone(author: str | None) -> bool:
    return (author or "").strip().casefold() in GONE_AUTHORS


def joined(game: Game) -> list[str]:
    return [s.name for s in Signup.select().where(Signup.game == game).order_by(Signup.id)]


def signup_block(game: Game, m, at: datetime) -> str:
    cfg = game.game_config()
    names = joined(game)
    lines = [m.bold(f"Status of {game.tag}") + f" (as of {at:%Y-%m-%d %H:%M} UTC)",
             f"Sign-ups are open: {len(names)} joined ({cfg.min_players} needed, room for "
             f"{cfg.max_players})" + (": " + ", ".join(names) if names else "") + "."]
    if game.next_deadline is not None:
        when = store.aware(game.next_deadline)
        left = max(0, int((when - at).total_seconds()))
        lines.append(f"Sign-ups close {deadlines.stamp(when, cfg)} (in {relative(left)}).")
    elif cfg.deadlines.signup is not None:
        lines.append("The sign-up deadline has passed; the host decides whether to extend or abort.")
    return "  \n".join(lines) if m.name == "markdown" else "\n".join(lines)


def announcement(game: Game, m) -> str:
    cfg = game.game_config()
    p = cfg.rules
    close = (f" or when sign-ups close, if at least {cfg.min_players} have joined by then"
             if cfg.deadlines.signup is not None else "")
    order = "in the order of joining" if cfg.leader_order == "listed" else "in a random order"
    return "\n\n".join([
        m.heading(f"{cfg.title} ({game.tag}): sign-ups"),
        *([cfg.intro] if cfg.intro else []),
        f"{p.title}. Host: {cfg.host}. {cfg.min_players} to {cfg.max_players} players.",
        p.summary,
        f"To play, comment {m.bold('JOIN')} in this thread; to drop out before the start, "
        f"{m.bold('LEAVE')}. The game starts when {cfg.max_players} have joined{close}. "
        f"Seats (and the leader order) go {order}. Everyone gets their role by PM at the start.",
    ])


class Signups:
    def __init__(self, moderator):
        self.mod = moderator

    def open(self, game: Game, at: datetime) -> None:
        cfg = game.game_config()
        game.status = "signup"
        game.next_deadline = (store.naive(at + timedelta(seconds=cfg.deadlines.signup))
                              if cfg.deadlines.signup is not None else None)
        game.save()
        m = markup_for(self.mod.forum.markup.value)
        body = signup_block(game, m, at) + block_separator(m) + announcement(game, m)
        self.mod._enqueue_message(game, Message("opening", body, opening=True,
                                                title=f"{cfg.title} ({game.tag})", priority=0),
                                  f"{game.tag}:0:opening")

    def comment(self, game: Game, row: Inbound, commands: list[Parsed], at: datetime) -> None:
        self.deadline(game, at)
        if game.status != "signup":  # the deadline started the game: these are game commands
            return self.mod._comment_commands(game, row, commands, at)
        row.game = game.id
        if gone(row.author):  # a deleted author: no seat, and no reply (no one can read it)
            return
        for i, parsed in enumerate(commands):
            if game.status != "signup":
                return
            if parsed.verb == "join":
                self._join(game, row, at, i)
            elif parsed.verb == "leave":
                self._leave(game, row, at, i)
            elif parsed.verb == "status":
                self.mod._reply(row, game, signup_block(game, markup_for("markdown"), at), i)
            else:
                self.mod._reply(row, game, f"{game.tag} has not started: sign-ups are open. "
                                "Comment **JOIN** to play.", i)

    def _join(self, game: Game, row: Inbound, at: datetime, i: int) -> None:
        cfg = game.game_config()
        names = joined(game)
        if row.author.casefold() in {n.casefold() for n in names}:
            self.mod._reply(row, game, f"You have joined {game.tag} already.", i)
            return
        if any(s.casefold() == row.author.casefold() for s in cfg.spectators):
            self.mod._reply(row, game, f"You are a spectator of {game.tag}: spectators have seen "
                            "every role and cannot play. Nothing was changed.", i)
            return
        if len(names) >= cfg.max_players:
            self.mod._reply(row, game, f"{game.tag} is full.", i)
            return
        Signup.create(game=game, name=row.author, folded=row.author.casefold(), joined_at=store.naive(at))
        count = len(names) + 1
        self.mod._reply(row, game, f"You have joined {game.tag} ({count} of {cfg.max_players}). "
                        "Comment **LEAVE** to drop out before the start.", i)
        if count >= cfg.max_players:
            self.begin(game, at)
        else:
            self.changed(game, at)

    def _leave(self, game: Game, row: Inbound, at: datetime, i: int) -> None:
        gone = Signup.delete().where((Signup.game == game) & (Signup.folded == row.author.casefold())).execute()
        self.mod._reply(row, game, f"You have left {game.tag}." if gone else
                        f"You had not joined {game.tag}; nothing was changed.", i)
        if gone:
            self.changed(game, at)

    def changed(self, game: Game, at: datetime) -> None:
        block = signup_block(game, markup_for(self.mod.forum.markup.value), at)
        store.set_status_edit(game.id, f"{game.tag}:status-block", block, at)

    def deadline(self, game: Game, now: datetime) -> int:
        """The sign-up deadline: start with enough players, else ask the host."""
        if game.status != "signup" or game.next_deadline is None or store.aware(game.next_deadline) > now:
            return 0
        at = store.aware(game.next_deadline)
        cfg = game.game_config()
        names = joined(game)
        if len(names) >= cfg.min_players:
            self.begin(game, at)
            return 1
        game.next_deadline = None
        game.save()
        tag = game.tag
        self.mod._enqueue_message(game, Message(
            "signup-short", f"{tag}: sign-ups closed with {len(names)} of the {cfg.min_players} "
            f"players needed. To give them more time, PM me `EXTEND {tag} 1d`; to call the game "
            f"off, `ABORT {tag}`. Until you decide, JOINs are still taken.", to=cfg.host,
            subject=f"{tag}: too few players"), f"{tag}:signup-short:{at:%Y%m%d%H%M%S}")
        self.changed(game, at)
        return 1

    def begin(self, game: Game, at: datetime) -> None:
        cfg = replace(game.game_config(), players=tuple(joined(game)))
        game.config = json.dumps(cfg.to_json())
        game.status = "running"
        if cfg.signup_thread:  # the game gets its own thread (a new one, or `thread:`)
            game.thread = self.mod.forum.thread_id(cfg.thread) if cfg.thread != "new" else None
        game.save()
        self.mod._states.pop(game.id, None)
        self.mod._commit_events(game, start(cfg, game.seed, at))

    def host(self, game: Game, verb: str, rest: str, row: Inbound, i: int, at: datetime) -> None:
        tag = game.tag
        self.deadline(game, at)
        if game.status != "signup":
            return self.mod._host_command_on(game, verb, rest, row, i, at)
        if verb == "extend":
            seconds = deadlines.extension(rest)
            if not seconds:
                self.mod._reply(row, game, f"EXTEND needs a duration. The right form: `EXTEND {tag} 1d`", i)
                return
            base = store.aware(game.next_deadline) if game.next_deadline else at
            game.next_deadline = store.naive(max(base, at) + timedelta(seconds=seconds))
            game.save()
            self.changed(game, at)
        elif verb == "abort":
            game.status = "aborted"
            game.next_deadline = None
            game.save()
            self.mod._enqueue_message(game, Message("aborted", f"The host has called off {tag} "
                                                    "before it started."), f"{tag}:signup-aborted")
            self.changed(game, at)
        elif verb == "status":
            self.mod._reply(row, game, signup_block(game, markup_for("markdown"), at), i)
            return
        elif verb == "signups" and rest.lower() == "close":
            if len(joined(game)) >= game.game_config().min_players:
                self.begin(game, at)
            else:
                game.next_deadline = store.naive(at)
                game.save()
                self.deadline(game, at)  # too few: the host is asked, as at the deadline
        elif verb == "signups":
            self.mod._reply(row, game, f"The right form: `SIGNUPS {tag} CLOSE`", i)
            return
        else:
            self.mod._reply(row, game, f"{tag} has not started: sign-ups are open. Until the start "
                            "only EXTEND, SIGNUPS ... CLOSE, ABORT and STATUS apply. Nothing was "
                            "changed.", i)
            return
        self.mod._reply(row, game, f"{tag}: {verb.upper()} done.", i)

