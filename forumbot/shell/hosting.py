"""The host's commands by PM (EXTEND, CLOSE, PAUSE, RESUME, DISQUALIFY, REPLACE, SKIP,
RECORD, ABORT, STATUS), from the game's host or a cohost; and `new game`."""
from __future__ import annotations

import json
import logging
import os
import re
from datetime import datetime, timedelta, timezone
from typing import cast
from zoneinfo import ZoneInfo

from adapters.base import Forum

from .. import store
from ..gameconfig import Problem, parse_config
from ..limits import HOST_COMMANDS, SAME_NEW_GAME_WITHIN, SIDED
from ..parsing import NameProblem, clean_name, game_number, parse_command, tag_shown
from ..render import ops, render_refusal
from ..render import replies as words
from ..render.status import host_status
from ..rules import Refusal, deadlines, started
from ..rules.commands import Command, HostDisqualify, HostExtend, HostPause, HostRecord, HostReplace
from ..rules.plugin import Parsed
from ..store import Game, Inbound
from .clockwork import Clockwork
from .games import LIVE, GameBook
from .intake import command_for, seat_named
from .replies import Answers, People
from .routing import seat_name, watches
from .signups import Signups

MAX_PROBLEMS_SHOWN = 20  # problems of a config listed in one reply

log = logging.getLogger("forumbot")


def _until(text: str, config) -> datetime | None:
    """"UNTIL 2026-12-05 18:00" in the game's time zone (UTC if none) -> a UTC moment."""

    m = re.fullmatch(r"(?i)until\s+(\d{4}-\d{2}-\d{2})[ T](\d{1,2}:\d{2})\s*", text.strip())
    if not m:
        return None
    try:
        local = datetime.fromisoformat(f"{m.group(1)} {int(m.group(2).split(':')[0]):02d}:{m.group(2).split(':')[1]}")
    except ValueError:
        return None
    return local.replace(tzinfo=ZoneInfo(config.timezone or "UTC")).astimezone(timezone.utc)

class Hosting:
    """The host's commands by PM (EXTEND, CLOSE, PAUSE, RESUME, DISQUALIFY, REPLACE, SKIP,
RECORD, ABORT, STATUS), from the game's host or a cohost; and new games."""

    def __init__(self, forum: Forum, book: GameBook, people: People, answers: Answers,
                 clockwork: Clockwork, signups: Signups):
        self.forum = forum
        self.book = book
        self.people = people
        self.answers = answers
        self.clockwork = clockwork
        self.signups = signups

    def _reply(self, row: Inbound, game: Game | None, text: str, i: int) -> None:
        self.answers.reply(row, game, text, i)

    def command(self, row: Inbound, parsed: Parsed, at: datetime, i: int) -> None:
        """EXTEND, CLOSE, PAUSE, RESUME, DISQUALIFY, ABORT, STATUS: by PM, from the game's host."""
        verb = parsed.verb.split(":")[1]
        game = self.book.get(game_number(parsed.choice))
        tag = tag_shown(parsed.choice)
        if game is None:
            self._reply(row, None, words.no_such_game(tag), i)
            return
        if not game.game_config().is_host(row.author):
            self._reply(row, game, words.host_only(tag, verb), i)
            return
        if verb not in HOST_COMMANDS:
            self._reply(row, game, words.not_yet_available(verb), i)
            return
        rest = parsed.extra.strip()
        if game.status == "signup":
            self.clockwork.signup_ready(game, at)
            self.signups.host(game, verb, rest, row, i, at)
        else:
            self.command_on(game, verb, rest, row, i, at)

    def command_on(self, game: Game, verb: str, rest: str, row: Inbound, i: int, at: datetime) -> None:
        tag = game.tag
        m = self.book.markup
        self.clockwork.fire_game_deadlines(game, at, command=True)
        state = self.book.state(game)
        plays = seat_name(state, row.author) is not None
        if verb == "signups":
            self._reply(row, game, words.signups_over(tag), i)
            return
        if verb == "status":
            self._reply(row, game, self.answers.status_text(game) if plays else host_status(state, game.tag), i)
            return
        if not state.running:
            self._reply(row, game, words.over(tag), i)
            return
        command: Command
        if verb == "pause" and rest:
            until = _until(rest, state.config)
            if until is None:
                self._reply(row, game, words.pause_form(tag, state.config.timezone or "UTC", m), i)
                return
            command = HostPause(at=at, author=row.author, until=until)
        elif verb == "extend":
            seconds = deadlines.extension(rest)
            if not seconds:
                most = deadlines.format_duration(deadlines.MAX_DURATION)
                self._reply(row, game, words.extend_form(tag, "6h", m, most), i)
                return
            command = HostExtend(at=at, author=row.author, seconds=seconds)
        elif verb == "disqualify":
            name = seat_named(state, rest)
            if isinstance(name, NameProblem):
                self._reply(row, game, words.disqualify_form(words.name_problem(name.name, name.candidates), tag, m), i)
                return
            command = HostDisqualify(at=at, author=row.author, target=name)
        elif verb == "record":
            form = words.record_form(tag, m)
            first, _, what = rest.partition(" ")
            name = seat_named(state, first)
            if isinstance(name, NameProblem):
                self._reply(row, game, f"{words.name_problem(name.name, name.candidates)} {form}", i)
                return
            inner = parse_command(what)
            if inner is None or inner.verb in ("status", "help", "join", "leave") or inner.verb.startswith("host:"):
                self._reply(row, game, words.record_needs(tag, m), i)
                return
            if plays and inner.verb in SIDED:
                # whether it would be taken depends on a side or a role, and so would the
                # thread's "the host recorded ...": a host who plays learns nothing from it
                self._reply(row, game, ops.record_sided(tag), i)
                return
            built = command_for(state, inner, name, "thread" if name == state.public else "pm", at)
            if isinstance(built, Refusal):
                self._reply(row, game, render_refusal(built, None, m), i)
                return
            command = HostRecord(at=at, author=row.author, inner=built)
            if plays:  # a host who plays: a refusal could tell a side
                result = self.book.apply(game, command)
                if isinstance(result, Refusal):
                    self._reply(row, game, words.not_recorded(tag, state.shown(name)), i)
                    return
                self._reply(row, game, words.done(tag, verb), i)
                return
        elif verb == "replace":
            form = words.replace_form(tag, m)
            parts = re.split(r"\s+with\s+", rest, flags=re.I)
            if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
                self._reply(row, game, words.replace_needs(tag, m), i)
                return
            name = seat_named(state, parts[0])
            if isinstance(name, NameProblem):
                self._reply(row, game, f"{words.name_problem(name.name, name.candidates)} {form}", i)
                return
            newcomer = clean_name(parts[1])
            if watches(game, newcomer):
                self._reply(row, game, words.spectator_cannot_sit(newcomer, tag), i)
                return
            if newcomer.casefold() == self.forum.bot_name.casefold():
                self._reply(row, game, words.bot_cannot_sit(newcomer, tag), i)
                return
            command = HostReplace(at=at, author=row.author, target=name, newcomer=newcomer)
        else:
            make = HOST_COMMANDS[verb]
            assert make is not None  # (SIGNUPS and STATUS were answered above)
            command = make(at=at, author=row.author)
        result = self.book.apply(game, command)
        if isinstance(result, Refusal):
            self._reply(row, game, render_refusal(result, tag, m.name), i)
        else:
            self._reply(row, game, words.done(tag, verb), i)

    def new_game(self, row: Inbound, at: datetime) -> None:
        """A PM with the subject `new game`: its config checked, the game created, and its
        sign-ups opened or its roles dealt."""
        m = self.book.markup
        if not self.people.may_start(row.author):
            self._reply(row, None, words.hosts_only(), 0)
            return
        first = self._same_new_game(row, at)
        if first is not None:  # a double click, or a resend after no answer: nothing new
            self._reply(row, first, ops.same_new_game(first.tag, first.thread_url or first.thread, m), 0)
            return
        cfg, problems = parse_config(row.body, row.author, bot_name=self.forum.bot_name)
        thread = None
        for key in ("thread", "signup_thread"):
            ref = getattr(cfg, key, None) if cfg is not None else None
            if ref and ref != "new":
                thread = self.forum.thread_id(ref)
                if thread is None:
                    problems = [Problem(key, words.not_a_thread(ref, self.book.markup))]
                    break
                if key == "signup_thread":
                    break  # sign-ups first; the game's own thread comes at the start
        if cfg is not None and not problems and thread is None and not self.forum.traits.new_threads:
            problems = [Problem("thread", words.no_new_threads())]  # the forum lets the bot open none
        if problems or cfg is None:
            # (a forum takes 10,000 (Reddit) to 32,000 characters)
            self._reply(row, None, words.config_problems([(p.key, p.message) for p in problems],
                                                         MAX_PROBLEMS_SHOWN, m), 0)
            return
        seed = cfg.seed if cfg.seed is not None else int.from_bytes(os.urandom(4), "big")
        game = Game.create(forum=self.forum.name, host=row.author, preset=cfg.preset,
                           config=json.dumps(cfg.to_json()), seed=seed, thread=thread,
                           created_at=store.naive(at))
        self.book.created(game)
        row.game = game.id  # (now, in the transaction: the same PM again in this batch finds it)
        Inbound.update(game=game.id).where(Inbound.id == row.id).execute()
        if cfg.signup:
            self.signups.open(game, at)
        else:
            state, events = started(cfg, seed, at)
            self.book.commit(game, events, state)
        if thread:  # a new thread's link goes to the host once the thread exists
            self.book.tell_host_started(game, thread)

    def _same_new_game(self, row: Inbound, at: datetime) -> Game | None:
        """The game that the same `new game` PM (the same body, whitespace aside) from the
        same host started within SAME_NEW_GAME_WITHIN, if it has not ended (variants.md,
        "The same `new game` twice")."""
        body = _normalised(row.body)
        since = store.naive(at - timedelta(seconds=SAME_NEW_GAME_WITHIN))
        earlier = (Inbound.select().where(
            (Inbound.forum == row.forum) & (Inbound.kind == "pm") & (Inbound.author == row.author)
            & Inbound.game.is_null(False) & (Inbound.created >= since) & (Inbound.id != row.id))
            .order_by(Inbound.created, Inbound.id))
        for r in earlier:
            if r.subject.strip().lower() != "new game" or _normalised(r.body) != body:
                continue
            game = self.book.get(cast(int, r.game))
            if game is not None and game.status in LIVE:
                return game
        return None


def _normalised(body: str) -> str:
    """A config's text as compared for "the same `new game` twice": line endings, runs of
    spaces and blank lines do not count."""
    text = body.replace("\r\n", "\n").replace("\r", "\n")
    lines = (re.sub(r"[^\S\n]+", " ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)
