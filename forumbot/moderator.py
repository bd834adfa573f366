"""One cycle: fetch -> store -> parse -> apply -> render -> outbox -> flush -> deadlines.

The imperative shell around the pure core. Every inbound message is handled in one
transaction that appends its events and outbox items and marks it done; PMs are marked
read on the forum only after they are stored; an outbox item is marked `uncertain` before
it is posted, so that after a crash the forum is searched for it before posting again.
"""
from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable

from adapters.base import (Forum, ForumError, Inbound as ForumInbound, Outgoing,
                           PermanentError, TransientError, UncertainError)

from . import deadlines, store
from .horizon import Horizon
from .parsing import NameProblem, Parsed, clean_name, game_tags, parse_command, parse_comment, parse_config, parse_pm, resolve_name
from .render import Message, ops, render_events, render_refusal
from .render.ops import defuse
from .rules import MissionOrder, Propose, Refusal, TeamVote, apply, replay, start
from .rules.commands import (Assassinate, Choose, GiveCard, HostAbort, HostClose, HostDisqualify,
                             HostExtend, HostPause, HostRecord, HostReplace, HostResume, HostSkip, LadyTarget, PassCard, PlayCard,
                             Expire, Postpone, ProxyVote, Remind, TakeCard)
from .render.markup import markup_for
from .render.posts import block_separator, with_block, with_footer
from .budget import WriteBudget, backoff
from .signups import Signups
from .help import help_for
from .status import host_status, status_block
from .rules.state import FINISHED, GameState
from .store import Cursor, Game, Inbound, Outbox, db

log = logging.getLogger("forumbot")

TARGET_COMMANDS = {"assassinate": Assassinate, "lady": LadyTarget}
SIDED = {"order", "assassinate"}  # whether these are taken depends on a hidden side or role
HOST_COMMANDS = {"signups": None, "close": HostClose, "extend": HostExtend, "pause": HostPause, "resume": HostResume,
                 "disqualify": HostDisqualify, "abort": HostAbort, "replace": HostReplace,
                 "skip": HostSkip, "record": HostRecord, "status": None}
PER_AUTHOR_PER_CYCLE = 20  # messages of one sender handled in a cycle; the rest wait their turn
REPLIES_PER_AUTHOR = 5  # answers to one sender in REPLY_WINDOW; past that the bot stays quiet
REPLY_WINDOW = 600  # seconds
RECHECK_LIMIT = 100  # comments re-checked for edits in one cycle (one info() request on Reddit)
RECHECK_AFTER = 30  # seconds before looking again for a post whose fate is unknown
STATUS_EVERY = 60  # seconds: at most one public STATUS answer per game in this time
POINTER_EVERY = 86400  # seconds: a stranger gets at most one pointer to HELP in this time
MAX_TRIES = 3  # a message that fails this often (not for the database) is set aside
PM_RESEND_AFTER = 600  # seconds an uncertain PM waits for its look-up before it is sent again
WAIT_NOTICE = 3600  # seconds a deadline may wait for the forum before the host is told
UNREADABLE_NOTICE = 600  # seconds a game thread may go unread before its host is told
OUTAGE_AFTER = 600  # seconds with no cycle (at least; 10 polls) that count as the bot down


class Deferred(Exception):
    """A message comes after a deadline of its game that cannot close yet (the forum was not
    read up to it, or an earlier message waits): it is put back, to be handled after it."""

    def __init__(self, game: int):
        super().__init__(f"G{game}: a deadline before this message waits")
        self.game = game


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class CycleReport:
    fetched: int = 0
    handled: int = 0
    posted: int = 0
    deadlines: int = 0
    errors: list[str] = field(default_factory=list)


class Moderator:
    def __init__(self, forum: Forum, clock: Callable[[], datetime] = utcnow,
                 hosts: set[str] | None = None, writes_per_minute: int | None = None,
                 outage_grace: int | None = None, poll_interval: int = 30):
        self.forum = forum
        self.clock = clock
        # `run` passes `[bot] outage_grace` (1h by default). None (tests, the demo, whose
        # clocks jump while the bot is taken to be running): no outage is ever detected.
        self.outage_grace = outage_grace
        self.outage_after = max(OUTAGE_AFTER, 10 * poll_interval)
        self.horizon = Horizon(forum.name)
        self._opened: set[tuple[int, int]] = set()  # (game, phase) opened in this cycle
        self._dirty: set[int] = set()  # games whose cached state the open transaction changed
        self._people_cache: tuple[set[str], set[str]] | None = None  # see _people
        self.budget = WriteBudget(writes_per_minute, clock)  # None: no budget (tests, the demo)
        self.hosts = {h.casefold() for h in hosts} if hosts else set()
        self._states: dict[int, GameState] = {}
        self._recheck_from = 0  # where the next cycle's edit re-check starts
        self.signups = Signups(self)

    # --- the cycle -----------------------------------------------------------------

    def cycle(self) -> CycleReport:
        report = CycleReport()
        self._opened = set()
        self._people_cache = None
        try:
            try:
                report.fetched = self.fetch()
            except ForumError as e:  # the forum is down: still post what waits; deadlines wait
                log.error("fetch failed: %s", e)
                report.errors.append(f"fetch: {e}")
                self.horizon.fetch_failed(str(e))
            self.catch_up(self.clock())
            report.handled = self.process_inbox()
            try:
                self.notice_edits()
            except ForumError as e:
                report.errors.append(f"recheck: {e}")
            report.posted += self.flush()
            report.deadlines = self.fire_deadlines(self.clock())
            report.posted += self.flush()
            store.set_cursor(f"{self.forum.name}#bot", {"alive": self.clock().isoformat()})
        except Exception as e:
            if not store.is_db_trouble(e):
                raise
            # A lock, a full disk, a lost connection: nothing is lost (every message stays
            # `new`, every post stays in the outbox); the next cycle tries again.
            log.error("database: %s (the next cycle tries again)", _cause(e))
            report.errors.append(f"database: {_cause(e)}")
            self._states.clear()
            self.horizon.forget()
            store.recover()
        return report

    def fetch(self) -> int:
        threads = sorted({g.thread for g in Game.select(Game.thread).where(
            Game.status.in_(("running", "signup")) & Game.thread.is_null(False) & (Game.forum == self.forum.name))})
        started = self.clock()
        fetched = self.forum.fetch(threads, store.get_cursor(self.forum.name))
        for thread, why in fetched.failed.items():
            log.error("reading %s failed: %s (its deadlines wait)", thread, why)
        with db.atomic():
            for m in fetched.inbound:
                if m.kind in ("comment", "pm"):
                    self._store_inbound(m)
            store.set_cursor(self.forum.name, fetched.cursor)
            waiting = dict(fetched.failed)
            waiting.update({t: "read in part" for t in fetched.partial if t not in waiting})
            for thread, since in self.horizon.read(started, threads, waiting).items():
                if thread in fetched.failed and (started - since).total_seconds() >= UNREADABLE_NOTICE:
                    self._tell_hosts_unreadable(thread, fetched.failed[thread], since)
        pms = [m.id for m in fetched.inbound if m.kind != "comment"]
        if pms:
            self.forum.mark_read(pms)  # only now that they are committed
        return len(fetched.inbound)

    def _tell_hosts_unreadable(self, thread: str, why: str, since: datetime) -> None:
        """A game thread that could not be read for UNREADABLE_NOTICE (since it was last
        read at `since`): its hosts are told, once for each such spell."""
        for g in Game.select().where((Game.thread == thread) & (Game.forum == self.forum.name)
                                     & Game.status.in_(("running", "signup"))):
            out = Outgoing(key=f"{g.tag}:unreadable:{since:%Y%m%d%H%M%S}", kind="pm", to=g.host,
                           subject=f"{g.tag}: I cannot read the game thread",
                           body=ops.thread_unreadable(g.tag, why))
            store.enqueue(out, g.id, since, priority=0)

    def _store_inbound(self, m: ForumInbound) -> None:
        (Inbound.insert(forum=self.forum.name, ext_id=m.id, kind=m.kind, author=m.author,
                        subject=m.subject or "", body=m.body, thread=m.thread, parent=m.parent,
                        created=store.naive(m.created), edited=m.edited, origin=m.origin)
         .on_conflict_ignore().execute())

    def notice_edits(self) -> int:
        """A command comment edited while its phase is open: the edit changes nothing, and
        the bot says so once, asking for a new comment. (A deleted one still counts.)"""
        games = {g.id: g for g in self._running_games()}
        if not games:
            return 0
        rows = [r for r in Inbound.select().where(
            (Inbound.forum == self.forum.name) & (Inbound.kind == "comment") & (Inbound.commands > 0)
            & (Inbound.note == "") & Inbound.game.in_(list(games))).order_by(Inbound.id)
            if store.aware(r.created) >= (self.state(games[r.game]).phase_opened_at or store.aware(r.created))]
        if not rows:
            return 0
        # One info() request of RECHECK_LIMIT comments a cycle; with more, they take turns.
        start = self._recheck_from % len(rows) if len(rows) > RECHECK_LIMIT else 0
        window = (rows + rows)[start:start + min(RECHECK_LIMIT, len(rows))]
        self._recheck_from = start + len(window)
        by_id = {r.ext_id: r for r in window}
        noticed = 0
        for now in self.forum.recheck(list(by_id)):
            row = by_id[now.id]
            if now.body.strip() == row.body.strip():
                continue
            with db.atomic():
                row.note = "edited"
                row.save()
                self._reply(row, games[row.game], "Editing a comment does not change a command: "
                            "the bot takes each command as it read when first seen. To change "
                            "your vote, post a new comment.", 99, private=False)
            noticed += 1
        return noticed

    def process_inbox(self) -> int:
        """Every new message, oldest first, each in its own transaction. What is not handled
        now (a flood's excess, a database error, a message after a deadline that must wait)
        stays `new` and holds back the deadlines it could concern."""
        count = 0
        self.horizon.reset_hold()
        pending = list(Inbound.select().where((Inbound.state == "new") & (Inbound.forum == self.forum.name))
                       .order_by(Inbound.created, Inbound.id))
        chosen = fair_share(pending, PER_AUTHOR_PER_CYCLE)
        taken = {r.id for r in chosen}
        for r in pending:
            if r.id not in taken:  # its sender's turn comes in a later cycle
                self.horizon.hold(None, store.aware(r.created))
                break
        for row in chosen:
            self._dirty = set()
            try:
                with db.atomic():
                    self._handle(row)
                    row.state = "done"
                    row.save()
            except Deferred as d:
                self._forget_dirty()
                self.horizon.hold(d.game, store.aware(row.created))
                continue
            except Exception as e:
                self._forget_dirty()
                if store.is_db_trouble(e):  # not the message's fault: it stays new
                    log.error("database: %s; message %s waits for the next cycle", _cause(e), row.ext_id)
                    store.recover()
                    self.horizon.hold(None, store.aware(row.created))
                    break  # the later ones wait behind it
                self._failed(row, e)  # a bug must not stop every other game
            count += 1
        return count

    def _forget_dirty(self) -> None:
        """The transaction was rolled back: the cached states it changed are stale."""
        for g in self._dirty:
            self._states.pop(g, None)
        self._dirty = set()

    def _failed(self, row: Inbound, e: Exception) -> None:
        """A message whose handling raised: tried again next cycle, and after MAX_TRIES set
        aside, with the host of its game told (a message that is never handled must not
        hold every deadline for ever)."""
        log.exception("inbound %s failed", row.ext_id)
        tries = (row.tries or 0) + 1
        if tries < MAX_TRIES:
            Inbound.update(tries=tries, note=repr(e)[:500]).where(Inbound.id == row.id).execute()
            self.horizon.hold(None, store.aware(row.created))
            return
        Inbound.update(state="error", tries=tries, note=repr(e)[:500]).where(Inbound.id == row.id).execute()
        for game in self._games_for_failure(row):
            out = Outgoing(key=f"{game.tag}:set-aside:{self.forum.name}:{row.ext_id}", kind="pm",
                           to=game.host, subject=f"{game.tag}: a message I could not handle",
                           body=ops.set_aside(game.tag, row.author, row.kind, store.aware(row.created)))
            store.enqueue(out, game.id, self.clock(), priority=0)

    def _games_for_failure(self, row: Inbound) -> list[Game]:
        try:
            if row.kind == "comment":
                return [g for g in self._running_games() if g.thread == row.thread]
            tags = game_tags(row.subject, row.body)
            return [g for g in self._games_of(row.author) if not tags or g.id in tags]
        except Exception:  # the same bug may be in the way: then no one can be told
            log.exception("no game found for the failed message %s", row.ext_id)
            return []

    # --- routing -------------------------------------------------------------------

    def _handle(self, row: Inbound) -> None:
        at = store.aware(row.created)
        if row.author.casefold() == self.forum.bot_name.casefold():
            return  # the bot's own words are never commands
        if row.kind == "pm" and row.origin:
            return  # mail from the forum's staff or a community: never answered
        if row.kind == "pm" and row.parent and not self._known(row.author) and not parse_pm(row.body):
            return  # a stranger answering one of the bot's messages (a bot's auto-reply): silence
        if row.kind == "pm" and row.subject.strip().lower() == "new game":
            self._new_game(row, at)
            return
        if row.kind == "comment":
            commands = parse_comment(row.body)
            game = self._game_for_comment(row, commands, at)
            if game is None:
                return
            if game.status == "signup":
                self._signup_ready(game, at)
                self.signups.comment(game, row, commands, at)
            else:
                self._comment_commands(game, row, commands, at)
            return
        commands = parse_pm(row.body)
        if not commands:
            self._no_command(row)
            return
        if all(c.verb == "help" for c in commands):
            tags = game_tags(row.subject, row.body)
            games = [g for g in self._games_of(row.author) if not tags or g.id in tags]
            if len(games) != 1:  # HELP about no game of theirs, or several: the general words
                self._reply(row, None, help_for(None, None, row.author, None), 0)
                return
        for i, parsed in enumerate(commands):
            if parsed.verb.startswith("host:"):
                self._host_command(row, parsed, at, i)
                continue
            game = self._game_for_pm(row, i)
            if game is not None:
                self._player_command(game, row, parsed, "pm", at, i)

    def _game_for_comment(self, row: Inbound, commands: list[Parsed], at: datetime) -> Game | None:
        """The game a thread comment is for: the one running in its thread; with several,
        the one whose tag the comment names (without one it is refused with the
        candidates). A finished game never takes commands."""
        here = list(Game.select().where((Game.thread == row.thread) & (Game.forum == self.forum.name)
                                        & (Game.created_at <= store.naive(at))).order_by(Game.id))
        if not here:
            return None  # not a game thread, or a comment from before the game (an existing thread)
        live = [g for g in here if g.status in ("running", "signup")]
        if len(live) > 1:
            tags = game_tags(*(c.text for c in commands)) or game_tags(row.body)
            hits = [g for g in live if g.id in tags]
            if len(hits) == 1:
                return hits[0]
            if commands:
                self._reply(row, None, ops.which_game([g.tag for g in live]), 0, private=False)
            return None
        if live:
            return live[0]
        if any(c.verb not in ("status", "help") for c in commands):
            self._reply(row, here[-1], f"{here[-1].tag} is over: it takes no commands.", 0)
        return None

    def _no_command(self, row: Inbound) -> None:
        """A PM with no command: a pointer to HELP, and with `forward_pms`, on to the host."""
        tags = game_tags(row.subject, row.body)
        games = [g for g in self._games_of(row.author, hosts=False)
                 if g.game_config().forward_pms and (not tags or g.id in tags)]
        if len(games) == 1:
            g = games[0]
            if self._seat_name(g, g.host) is not None and ops.looks_secret(row.body, self.state(g)):
                # the host plays: a malformed order or a card's name could tell a side
                self._reply(row, g, ops.not_forwarded(g.tag), 0)
                return
            out = Outgoing(key=f"fwd:{self.forum.name}:{row.ext_id}", kind="pm", to=g.host,
                           subject=f"{g.tag}: a message from {row.author}",
                           body=ops.forwarded(g.tag, row.author, row.body))
            store.enqueue(out, g.id, at_or_now(row, self.clock))
            self._reply(row, g, "I found no command in your message, so I passed it on to the "
                        f"host of {g.tag}. PM me HELP for the commands.", 0)
            return
        if not self._known(row.author):
            self._pointer(row)
            return
        self._reply(row, None, "I found no command in your message. PM me HELP for the "
                    "commands, or `new game` as the subject to start a game.", 0)

    def _people(self) -> tuple[set[str], set[str]]:
        """(hosts and cohosts, everyone else the bot knows) of the games that run or take
        sign-ups, case-folded; worked out once a cycle (and after a new game or seat)."""
        if self._people_cache is None:
            hosts: set[str] = set()
            known: set[str] = set()
            for g in self._running_games() + self._signup_games():
                cfg = g.game_config()
                hosts.update(h.casefold() for h in (cfg.host, *cfg.cohosts))
                known.update(r.casefold() for r in (*cfg.reserves, *cfg.spectators))
                if g.status == "running":
                    known.update(n.casefold() for n in self.state(g).names)
            self._people_cache = (hosts, known | hosts)
        return self._people_cache

    def _known(self, user: str) -> bool:
        """Someone the bot answers whatever they write: a player, host, cohost, spectator
        or reserve of a running game, or a host on the allow-list."""
        folded = user.casefold()
        return folded in self.hosts or folded in self._people()[1]

    def _pointer(self, row: Inbound) -> None:
        """A stranger's message with no command: one pointer to HELP a day, no more, and
        none for mail that waited unread over a day (a new bot's old inbox)."""
        if (self.clock() - at_or_now(row, self.clock)).total_seconds() > POINTER_EVERY:
            return
        since = store.naive(at_or_now(row, self.clock) - timedelta(seconds=POINTER_EVERY))
        if self._flooding(row) or Outbox.select().where(
                Outbox.key.startswith(f"pointer:{self.forum.name}:")
                & (Outbox.to == row.author) & (Outbox.created_at > since)).exists():
            return
        out = Outgoing(key=f"pointer:{self.forum.name}:{row.ext_id}", kind="pm", to=row.author,
                       subject="re: your message", body=ops.pointer())
        store.enqueue(out, None, at_or_now(row, self.clock))

    def _signup_games(self) -> list[Game]:
        return list(Game.select().where((Game.status == "signup") & (Game.forum == self.forum.name)))

    @staticmethod
    def _watches(game: Game, user: str) -> bool:
        return any(s.casefold() == user.casefold() for s in game.game_config().spectators)

    def _comment_commands(self, game: Game, row: Inbound, commands: list[Parsed], at: datetime) -> None:
        row.game = game.id
        row.commands = sum(1 for c in commands if c.verb not in ("status", "help"))
        for i, parsed in enumerate(commands):
            self._player_command(game, row, parsed, "thread", at, i)

    def _game_for_pm(self, row: Inbound, i: int) -> Game | None:
        mine = self._games_of(row.author)
        tags = game_tags(row.subject, row.body)
        if tags:
            hits = [g for g in mine if g.id in tags]
            if len(hits) == 1:
                return hits[0]
            if self._tell_replaced(row, [g for g in self._running_games() if g.id in tags], i):
                return None
            self._reply(row, None, f"You are not in a running game tagged "
                        f"{', '.join(f'G{t}' for t in sorted(tags))}.", i)
            return None
        if row.parent and len(mine) > 1:  # a reply to a PM the bot sent about one of them
            sent = Outbox.get_or_none((Outbox.ext_id == row.parent) & (Outbox.kind == "pm"))
            if sent is None and hasattr(self.forum, "sent_id"):  # Reddit: found by its marker
                try:
                    sent_id = self.forum.sent_id(row.parent)
                except ForumError as e:
                    log.warning("could not read the PM %s answers: %s", row.ext_id, e)
                    sent_id = None
                if sent_id:
                    sent = Outbox.get_or_none((Outbox.ext_id == sent_id) & (Outbox.kind == "pm"))
            if sent is not None and sent.game is not None:
                hit = [g for g in mine if g.id == sent.game]
                if hit:
                    return hit[0]
        if len(mine) == 1:
            return mine[0]
        if not mine:
            if self._tell_replaced(row, self._running_games(), i):
                return None
            self._reply(row, None, "You are not in a running game.", i)
        else:
            tags_ = ", ".join(g.tag for g in mine)
            self._reply(row, None, f"You are in several games ({tags_}). Put the game's tag in "
                        "the subject or the message, like `G12 APPROVE`. Nothing was changed.", i)
        return None

    def _games_of(self, user: str, hosts: bool = True) -> list[Game]:
        """The running games `user` plays in, watches, or (with `hosts`) hosts."""
        return [g for g in self._running_games() if self._seat_name(g, user) or self._watches(g, user)
                or (hosts and g.game_config().is_host(user))]

    def _running_games(self) -> list[Game]:
        return list(Game.select().where((Game.status == "running") & (Game.forum == self.forum.name)))

    def _seat_name(self, game: Game, author: str) -> str | None:
        folded = author.casefold()
        for n in self.state(game).names:
            if n.casefold() == folded:
                return n
        return None

    def _tell_replaced(self, row: Inbound, games: list[Game], i: int) -> bool:
        """A PM from someone whose seat was given to another: say so (and change nothing)."""
        for g in games:
            now = self._replaced_by(self.state(g), row.author)
            if now:
                self._reply(row, g, f"You no longer play in {g.tag}: {now} took your seat. "
                            "Nothing was changed.", i)
                return True
        return False

    @staticmethod
    def _replaced_by(state: GameState, author: str) -> str | None:
        folded = author.casefold()
        for old, new in state.replaced.items():
            if old.casefold() == folded:
                return new
        return None

    # --- commands ------------------------------------------------------------------

    def _player_command(self, game: Game, row: Inbound, parsed: Parsed, via: str,
                        at: datetime, i: int) -> None:
        self._fire_game_deadlines(game, at, command=True)
        state = self.state(game)
        tag = game.tag
        if parsed.verb == "status":
            public = via == "thread" and not self._public_status_recently(game, at)
            self._reply(row, game, self.status_text(game), i, private=not public,
                        key=f"{tag}:status:{row.ext_id}:{i}" if public else None)
            return
        if parsed.verb == "help":
            self._reply(row, game, help_for(state, tag, row.author, self._seat_name(game, row.author)),
                        i, private=True)
            return
        if not state.running:
            self._reply(row, game, "This game is over.", i)
            return
        seat = self._seat_name(game, row.author)
        if seat is None and (now := self._replaced_by(state, row.author)):
            self._reply(row, game, f"You no longer play in {tag}: {now} took your seat. Nothing "
                        "was changed.", i, private=True)
            return
        if seat is None:
            self._reply(row, game, "Only the players of this game can do that; you are not one "
                        "of them.", i, private=via == "pm")
            return
        command = self._command_for(state, parsed, seat, via, at)
        if isinstance(command, str):
            self._reply(row, game, command, i, private=via == "pm")
            return
        self._apply(game, command, row, i)

    @staticmethod
    def _command_for(state: GameState, parsed: Parsed, seat: str, via: str, at: datetime):
        """The rules' command for a parsed one from `seat`, or the reason it cannot be."""
        if parsed.verb == "propose":
            team = []
            for raw in parsed.names:
                name = resolve_name(raw, state.names, state.aliases())
                if isinstance(name, NameProblem):
                    return name.message + " Nothing was changed. The right form: **PROPOSE: name, name**"
                team.append(name)
            public = None
            if parsed.extra:
                public = resolve_name(parsed.extra, state.names, state.aliases())
                if isinstance(public, NameProblem):
                    return public.message + " Nothing was changed."
            command = Propose(at=at, author=seat, team=tuple(team), public=public)
        elif parsed.verb == "vote" and parsed.extra == "pass" and seat in state.actors \
                and state.phase not in ("proposal", "team_vote", "mission"):
            command = PassCard(at=at, author=seat)  # PASS on an optional card
        elif parsed.verb == "vote":
            command = TeamVote(at=at, author=seat, choice=parsed.choice, via=via,
                               critical=parsed.extra == "critical")
        elif parsed.verb in ("give", "take", "play", "choose", "proxy"):
            names = []
            for raw in parsed.names:
                name = resolve_name(raw, state.names, state.aliases())
                if isinstance(name, NameProblem) and parsed.verb == "play" and not name.candidates:
                    name = raw  # PLAY may name a card (Prepare for the Future -> card): the card decides
                if isinstance(name, NameProblem):
                    return name.message + " Nothing was changed."
                names.append(name)
            if parsed.verb == "give":
                command = GiveCard(at=at, author=seat, card=parsed.extra, target=names[0])
            elif parsed.verb == "take":
                command = TakeCard(at=at, author=seat, card=parsed.extra, source=names[0])
            elif parsed.verb == "play":
                command = PlayCard(at=at, author=seat, card=parsed.extra,
                                   target=names[0] if names else None, choice=parsed.choice)
            elif parsed.verb == "proxy":
                command = ProxyVote(at=at, author=seat, target=names[0], choice=parsed.choice)
            else:
                command = Choose(at=at, author=seat, target=names[0], via=via)
        elif parsed.verb == "order":
            command = MissionOrder(at=at, author=seat, choice=parsed.choice, via=via)
        elif parsed.verb in TARGET_COMMANDS:
            name = resolve_name(parsed.names[0], state.names, state.aliases())
            if isinstance(name, NameProblem):
                return name.message + " Nothing was changed."
            command = TARGET_COMMANDS[parsed.verb](at=at, author=seat, target=name)
        else:
            return f"{parsed.text} is not available in this game."
        return command

    def _host_command(self, row: Inbound, parsed: Parsed, at: datetime, i: int) -> None:
        """EXTEND, CLOSE, PAUSE, RESUME, DISQUALIFY, ABORT, STATUS: by PM, from the game's host."""
        verb = parsed.verb.split(":")[1]
        game = Game.get_or_none((Game.id == int(parsed.choice)) & (Game.forum == self.forum.name))
        tag = f"G{parsed.choice}"
        if game is None:
            self._reply(row, None, f"There is no game {tag}.", i)
            return
        if not game.game_config().is_host(row.author):
            self._reply(row, game, f"Only the host of {tag} may use {verb.upper()}. Nothing was changed.", i)
            return
        if verb not in HOST_COMMANDS:
            self._reply(row, game, f"{verb.upper()} is not available in this version of the bot yet.", i)
            return
        rest = parsed.extra.strip()
        if game.status == "signup":
            self._signup_ready(game, at)
            self.signups.host(game, verb, rest, row, i, at)
        else:
            self._host_command_on(game, verb, rest, row, i, at)

    def _host_command_on(self, game: Game, verb: str, rest: str, row: Inbound, i: int, at: datetime) -> None:
        tag = game.tag
        self._fire_game_deadlines(game, at, command=True)
        state = self.state(game)
        if verb == "signups":
            self._reply(row, game, f"{tag} has started: sign-ups are over.", i)
            return
        if verb == "status":
            plays = self._seat_name(game, row.author) is not None
            self._reply(row, game, self.status_text(game) if plays else host_status(state, game.tag), i)
            return
        if not state.running:
            self._reply(row, game, f"{tag} is over.", i)
            return
        if verb == "pause" and rest:
            until = _until(rest, state.config)
            if until is None:
                self._reply(row, game, f"PAUSE ... UNTIL needs a date and time. The right form: "
                            f"`PAUSE {tag} UNTIL 2026-12-05 18:00` (in "
                            f"{state.config.timezone or 'UTC'})", i)
                return
            command = HostPause(at=at, author=row.author, until=until)
        elif verb == "extend":
            seconds = deadlines.extension(rest)
            if not seconds:
                self._reply(row, game, f"EXTEND needs a duration. The right form: `EXTEND {tag} 6h`", i)
                return
            command = HostExtend(at=at, author=row.author, seconds=seconds)
        elif verb == "disqualify":
            name = resolve_name(rest, state.names, state.aliases())
            if isinstance(name, NameProblem):
                self._reply(row, game, name.message + f" The right form: `DISQUALIFY {tag} name`", i)
                return
            command = HostDisqualify(at=at, author=row.author, target=name)
        elif verb == "record":
            form = (f"The right form: `RECORD {tag} name APPROVE` (or REJECT, SUPPORT, SABOTAGE, "
                    "`PROPOSE: a, b`, `LADY: x` ...)")
            first, _, what = rest.partition(" ")
            name = resolve_name(first, state.names, state.aliases())
            if isinstance(name, NameProblem):
                self._reply(row, game, f"{name.message} {form}", i)
                return
            inner = parse_command(what)
            if inner is None or inner.verb in ("status", "help", "join", "leave") or inner.verb.startswith("host:"):
                self._reply(row, game, f"RECORD needs a player and what they sent. {form}", i)
                return
            plays = self._seat_name(game, row.author) is not None
            if plays and inner.verb in SIDED:
                # whether it would be taken depends on a side or a role, and so would the
                # thread's "the host recorded ...": a host who plays learns nothing from it
                self._reply(row, game, ops.record_sided(tag), i)
                return
            built = self._command_for(state, inner, name, "thread" if name == state.public else "pm", at)
            if isinstance(built, str):
                self._reply(row, game, built, i)
                return
            command = HostRecord(at=at, author=row.author, inner=built)
            if plays:  # a host who plays: a refusal could tell a side
                result = apply(state, command)
                if isinstance(result, Refusal):
                    self._reply(row, game, f"{tag}: that could not be recorded for {name} now. "
                                "Nothing was changed.", i)
                    return
        elif verb == "replace":
            form = f"The right form: `REPLACE {tag} oldname WITH newname`"
            parts = re.split(r"\s+with\s+", rest, flags=re.I)
            if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
                self._reply(row, game, f"REPLACE needs two names. {form}", i)
                return
            name = resolve_name(parts[0], state.names, state.aliases())
            if isinstance(name, NameProblem):
                self._reply(row, game, f"{name.message} {form}", i)
                return
            newcomer = clean_name(parts[1])
            if self._watches(game, newcomer):
                self._reply(row, game, f"{newcomer} is a spectator of {tag} and has seen every "
                            "role, so they cannot take a seat. Nothing was changed.", i)
                return
            command = HostReplace(at=at, author=row.author, target=name, newcomer=newcomer)
        else:
            command = HOST_COMMANDS[verb](at=at, author=row.author)
        if self._apply(game, command, row, i):
            self._reply(row, game, f"{tag}: {verb.upper()} done.", i)

    def _apply(self, game: Game, command, row: Inbound | None = None, i: int = 0) -> bool:
        result = apply(self.state(game), command)
        if isinstance(result, Refusal):
            if row is not None:
                text = render_refusal(result, game.tag)
                self._reply(row, game, text, i, private=result.private or row.kind == "pm")
            return False
        self._commit_events(game, result)
        return True

    def _commit_events(self, game: Game, events) -> None:
        first = store.append_events(game, events)
        if any(e.type in ("game_started", "player_replaced") for e in events):
            self._people_cache = None
        before = self._states[game.id].phase_id if game.id in self._states else None
        state = self.state(game, refresh_from=events)
        self._dirty.add(game.id)
        if state.phase_id != before:
            self._opened.add((game.id, state.phase_id))
        for msg in render_events(state, events, game.tag, self.forum.markup.value, now=self.clock()):
            self._enqueue_message(game, msg, f"{game.tag}:{first}:{msg.slot}")
        if (not any(e.type == "game_started" for e in events) or self._block_in_signup_post(game)
                or Outbox.select().where(Outbox.key == f"{game.tag}:status-block").exists()):
            # (a new game's opening post carries its block already)
            block = status_block(state, game.tag, markup_for(self.forum.markup.value))
            store.set_status_edit(game.id, f"{game.tag}:status-block", block, self.clock())
        due = deadlines.next_wakeup(state)
        game.next_deadline = store.naive(due) if due else None
        if state.phase == FINISHED:
            game.status = {"aborted": "aborted", "abandoned": "abandoned"}.get(state.win_reason, "finished")
        game.save()

    def _enqueue_message(self, game: Game, msg: Message, key: str) -> None:
        now = self.clock()
        body = msg.body
        if msg.opening and not key.endswith(":0:opening") and self._block_in_signup_post(game):
            sep = block_separator(markup_for(self.forum.markup.value))  # the sign-up post keeps the block
            body = body.split(sep, 1)[1] if sep in body else body
            msg = Message(msg.slot, body, msg.to, msg.subject, msg.opening, msg.title, msg.priority)
        if msg.to is not None:
            out = Outgoing(key=key, kind="pm", body=msg.body, to=msg.to, subject=msg.subject)
        elif msg.opening and game.thread is None:
            cfg = game.game_config()
            out = Outgoing(key=key, kind="thread", body=msg.body, title=msg.title, where=cfg.subreddit)
        else:
            out = Outgoing(key=key, kind="comment", body=msg.body, thread=game.thread)
        store.enqueue(out, game.id, now, msg.priority)

    @staticmethod
    def _block_in_signup_post(game: Game) -> bool:
        """Does the sign-up post hold the status block? Yes, unless sign-ups had a thread of
        their own (`signup_thread`) and the game has started in its new thread."""
        if not Outbox.select().where(Outbox.key == f"{game.tag}:0:opening").exists():
            return False
        return not (game.game_config().signup_thread and game.status != "signup")

    def _public_status_recently(self, game: Game, at: datetime) -> bool:
        since = store.naive(at - timedelta(seconds=STATUS_EVERY))
        return Outbox.select().where(Outbox.key.startswith(f"{game.tag}:status:") &
                                     (Outbox.created_at > since)).exists()

    def _reply(self, row: Inbound, game: Game | None, text: str, i: int, private: bool = True,
               key: str | None = None) -> None:
        if not self._hosts_any(row.author) and self._flooding(row):
            log.info("not answering %s: %d answers in %ds already", row.author, REPLIES_PER_AUTHOR, REPLY_WINDOW)
            return
        text = defuse(text)  # it may quote what the sender wrote
        key = key or f"re:{self.forum.name}:{row.ext_id}:{i}"
        tag = game.tag if game else None
        if row.kind == "comment" and not private:
            out = Outgoing(key=key, kind="comment", body=f"u/{row.author}: {text}",
                           thread=row.thread, reply_to=row.ext_id)
        else:
            subject = f"{tag}: re: your message" if tag else "re: your message"
            body = with_footer(text, tag) if tag else text
            out = Outgoing(key=key, kind="pm", body=body, to=row.author, subject=subject)
        store.enqueue(out, game.id if game else None, at_or_now(row, self.clock))

    def _hosts_any(self, user: str) -> bool:
        """A host or cohost of a game that runs or takes sign-ups: always answered."""
        return user.casefold() in self._people()[0]

    def _flooding(self, row: Inbound) -> bool:
        """Has this sender had REPLIES_PER_AUTHOR answers in the last REPLY_WINDOW seconds?"""
        since = store.naive(at_or_now(row, self.clock) - timedelta(seconds=REPLY_WINDOW))
        answered = Outbox.select().where(
            (Outbox.key.startswith(f"re:{self.forum.name}:") | Outbox.key.startswith(f"pointer:{self.forum.name}:"))
            & (Outbox.created_at > since)
            & ((Outbox.to == row.author) | Outbox.body.startswith(f"u/{row.author}:"))).count()
        return answered >= REPLIES_PER_AUTHOR

    # --- games ---------------------------------------------------------------------

    def _new_game(self, row: Inbound, at: datetime) -> None:
        if self.hosts and row.author.casefold() not in self.hosts:
            self._reply(row, None, "Only the hosts this bot is set up for may start games.", 0)
            return
        cfg, problems = parse_config(row.body, row.author, bot_name=self.forum.bot_name)
        thread = None
        for key in ("thread", "signup_thread"):
            ref = getattr(cfg, key, None) if cfg is not None else None
            if ref and ref != "new":
                thread = self.forum.thread_id(ref)
                if thread is None:
                    from .gameconfig import Problem
                    problems = [Problem(key, f"{ref!r} is not a thread I can post in")]
                    break
                if key == "signup_thread":
                    break  # sign-ups first; the game's own thread comes at the start
        if problems:
            lines = "\n".join(f"- `{p.key}`: {p.message}" for p in problems)
            self._reply(row, None, f"No game was created. Your config has {len(problems)} "
                        f"problem{'s' if len(problems) != 1 else ''}:\n\n{lines}", 0)
            return
        seed = cfg.seed if cfg.seed is not None else int.from_bytes(os.urandom(4), "big")
        game = Game.create(forum=self.forum.name, host=row.author, preset=cfg.preset,
                           config=_json(cfg.to_json()), seed=seed, thread=thread,
                           created_at=store.naive(at))
        if cfg.signup:
            self.signups.open(game, at)
        else:
            self._commit_events(game, start(cfg, seed, at))
        if thread:  # a new thread's link goes to the host once the thread exists
            self._tell_host_started(game, thread)

    def state(self, game: Game, refresh_from=None) -> GameState:
        """The live state of a game: cached, rebuilt by replaying its log when needed."""
        cached = self._states.get(game.id)
        if cached is not None and refresh_from is not None:
            from .rules.state import fold
            for e in refresh_from:
                fold(cached, e)
            return cached
        if cached is None:
            cached = replay(game.game_config(), game.seed, store.game_events(game))
            self._states[game.id] = cached
        return cached

    # --- deadlines -----------------------------------------------------------------

    def reached(self, game: Game, now: datetime) -> datetime | None:
        """Up to when this game's deadlines may close: `now`, held back to where the forum
        was read and to the oldest message of the game not yet handled."""
        horizon = self.horizon.of(game.thread, game.id)
        return None if horizon is None else min(now, horizon)

    def _fire_game_deadlines(self, game: Game, now: datetime, command: bool = False) -> int:
        """Close what is due by `now` (a message's time when `command`): only up to the
        horizon, one phase at a time: a second phase that would close at once (the bot or
        the forum was away longer than it lasts) is moved to now + outage_grace instead.
        A message after a deadline that cannot close yet is put back (Deferred)."""
        fired = 0
        closed = False
        cap = self.reached(game, now)
        while cap is not None:
            state = self.state(game)
            cmd = (deadlines.resume(state, cap) or deadlines.expired(state, cap)
                   or deadlines.reminder(state, cap))
            if cmd is None:
                break
            if isinstance(cmd, Remind) and (game.id, state.phase_id) in self._opened:
                break  # never in the cycle that opened the phase
            if isinstance(cmd, Expire) and closed:
                self._postpone(game, store.aware(cmd.at), "forum")
                break
            if not self._apply(game, cmd):
                break
            closed = closed or isinstance(cmd, Expire)
            fired += 1
        if command:
            state = self.state(game)
            if deadlines.expired(state, now) or deadlines.resume(state, now):
                raise Deferred(game.id)
        return fired

    def _signup_ready(self, game: Game, at: datetime) -> None:
        """A message after the sign-up deadline, which cannot close yet: put it back."""
        if game.next_deadline is None or store.aware(game.next_deadline) > at:
            return
        cap = self.reached(game, at)
        if cap is None or cap < store.aware(game.next_deadline):
            raise Deferred(game.id)

    def _postpone(self, game: Game, missed: datetime, reason: str) -> bool:
        now = self.clock()
        return self._apply(game, Postpone(at=now, author="the bot", down_since=missed, reason=reason,
                                          until=now + timedelta(seconds=self.outage_grace or 0)))

    def catch_up(self, now: datetime) -> int:
        """After the bot was down (no cycle for `outage_after`), the deadlines that fell
        meanwhile move to now + outage_grace, announced once per game in the thread."""
        if self.outage_grace is None:
            return 0
        row = Cursor.get_or_none((Cursor.forum == f"{self.forum.name}#bot") & (Cursor.name == "alive"))
        if row is None:
            return 0
        alive = store.aware(json.loads(row.value))
        if (now - alive).total_seconds() <= self.outage_after:
            return 0
        moved = 0
        for game in Game.select().where(Game.status.in_(("running", "signup")) & (Game.forum == self.forum.name)
                                        & (Game.next_deadline > store.naive(alive))
                                        & (Game.next_deadline <= store.naive(now))):
            with db.atomic():
                if game.status == "signup":  # sign-ups: the deadline moves quietly
                    game.next_deadline = store.naive(now + timedelta(seconds=self.outage_grace))
                    game.save()
                    moved += 1
                    continue
                if (resumed := deadlines.resume(self.state(game), now)) is not None:
                    self._apply(game, resumed)  # a PAUSE ... UNTIL that ran out meanwhile
                due = deadlines.due(self.state(game))
                if due is not None and alive < due <= now:
                    moved += self._postpone(game, alive, "outage")
        log.warning("the bot was not running since %s: %d deadlines moved", alive, moved)
        return moved

    def fire_deadlines(self, now: datetime) -> int:
        fired = 0
        due = Game.select().where(Game.status.in_(("running", "signup")) & (Game.forum == self.forum.name) &
                                  (Game.next_deadline <= store.naive(now)))
        for game in list(due):
            self._dirty = set()
            try:
                with db.atomic():
                    cap = self.reached(game, now)
                    if cap is not None and game.status == "signup":
                        fired += self.signups.deadline(game, cap)
                    if game.status == "running":
                        fired += self._fire_game_deadlines(game, now)
                    self._tell_host_waiting(game, now)
            except Exception as e:
                self._forget_dirty()
                if store.is_db_trouble(e):
                    raise
                log.exception("deadline of %s failed", game.tag)
        return fired

    def _tell_host_waiting(self, game: Game, now: datetime) -> None:
        """A deadline that has waited WAIT_NOTICE for the forum: the host is told, once."""
        if game.status == "running":
            due = deadlines.due(self.state(game))
        else:
            due = store.aware(game.next_deadline) if game.next_deadline is not None else None
        if due is None:
            return
        cap = self.reached(game, now)
        if (cap is not None and cap >= due) or (now - due).total_seconds() < WAIT_NOTICE:
            return
        out = Outgoing(key=f"{game.tag}:waiting:{due:%Y%m%d%H%M%S}", kind="pm", to=game.host,
                       subject=f"{game.tag}: a deadline is waiting",
                       body=ops.deadline_waits(game.tag, due, self.horizon.why(game.thread)))
        store.enqueue(out, game.id, now, priority=0)

    def next_deadline(self) -> datetime | None:
        g = (Game.select(Game.next_deadline).where(
            Game.status.in_(("running", "signup")) & Game.next_deadline.is_null(False)
            & (Game.forum == self.forum.name))
            .order_by(Game.next_deadline).first())
        return store.aware(g.next_deadline) if g else None

    # --- the outbox ----------------------------------------------------------------

    def flush(self) -> int:
        """Post what waits. The posts of one thread (and the PMs to one person) go out in
        the order they were written: while one waits, the later ones wait behind it."""
        posted = 0
        now = self.clock()
        pending = list(Outbox.select().where(Outbox.state == "pending").order_by(Outbox.id))
        first: dict[tuple, int] = {}  # per thread or recipient: the oldest item not yet out
        for i in pending:
            first.setdefault(_lane(i), i.id)
        # A game's PMs (the roles) wait for its opening post: if Reddit refuses that post,
        # the game does not start, and no one may have been dealt a role for it.
        unopened = {i.game for i in pending if i.kind == "thread" and i.game is not None}
        items = [i for i in pending if i.not_before is None or store.aware(i.not_before) <= now]
        if len(items) > self.budget.room():  # more than the budget takes: the most urgent first
            items.sort(key=lambda i: (i.priority, i.id))
        left = getattr(self.forum, "requests_left", lambda: None)
        for item in items:
            lane = _lane(item)
            if lane[0] != "edit" and first.get(lane) != item.id:
                continue  # an older post of its thread waits: this one waits behind it
            if item.kind == "pm" and item.game in unopened:
                continue
            if not self.budget.allow(item.priority, left()):
                continue  # waits for a later cycle: it stays in the outbox
            done = self._send(item, now)
            posted += done
            if item.kind == "thread" and item.state == "posted":
                unopened.discard(item.game)
            if (done or item.state != "pending") and lane[0] != "edit":
                later = [i.id for i in pending if _lane(i) == lane and i.id > item.id]
                if later:
                    first[lane] = later[0]
                else:
                    first.pop(lane, None)
        return posted

    def _send(self, item: Outbox, now: datetime) -> int:
        """One outbox item: 1 if it went out (or was found to have landed), else 0."""
        if item.kind == "edit":
            self.budget.spend()
            return self._edit(item, now)
        if item.kind == "comment" and item.thread is None:
            game = Game.get_by_id(item.game)
            if game.thread is None:
                return 0  # the opening post is not out yet
            item.thread = game.thread
        out = Outgoing(key=item.key, kind=item.kind, body=item.body, thread=item.thread,
                       to=item.to, subject=item.subject, title=item.title, where=item.place,
                       reply_to=item.reply_to, token=store.marker_token(item.key))
        if item.uncertain:  # it may have landed: look before posting again
            try:
                found = self.forum.find_posted(out)
            except ForumError as e:
                if item.kind != "pm" or (now - store.aware(item.created_at)).total_seconds() < PM_RESEND_AFTER:
                    item.not_before = store.naive(now + timedelta(seconds=RECHECK_AFTER))
                    item.error = f"could not look for it: {e}"[:500]
                    item.save()  # still uncertain
                    return 0
                # The sent PMs cannot be read (Reddit moved PMs to Chat; the listing may
                # redirect to a login page): a PM twice beats a role PM never sent.
                log.warning("sending %s again: the sent messages cannot be read (%s)", item.key, e)
                self._tell_host_resent(item, str(e))
                found = None
            if found is not None:
                self._posted(item, found)
                return 1
        try:
            item.uncertain = True
            item.attempts += 1
            item.save()
            self.budget.spend()
            self._posted(item, self.forum.post(out))
            return 1
        except TransientError as e:
            wait = backoff(item.attempts, e.retry_after)
            item.uncertain = False
            item.not_before = store.naive(now + timedelta(seconds=wait))
            item.error = str(e)[:500]
            item.save()
        except UncertainError as e:
            item.error = str(e)[:500]
            item.save()  # still uncertain: the next flush looks for it first
        except PermanentError as e:
            item.state = "failed"
            item.uncertain = False
            item.error = str(e)[:500]
            item.save()
            if item.kind == "thread" and item.game is not None:
                self._not_started(item, str(e))
            else:
                self._tell_host_of_failure(item, str(e))
        return 0

    def _not_started(self, item: Outbox, error: str) -> None:
        """The forum refused a game's opening post for good (a title or body that breaks a
        rule): the game does not start, nothing else of it goes out, and the host is told
        what the forum said and how to try again."""
        game = Game.get_by_id(item.game)
        with db.atomic():
            Outbox.update(state="failed", error="the game did not start").where(
                (Outbox.game == game.id) & (Outbox.state == "pending") & (Outbox.id != item.id)).execute()
            game.status = "aborted"
            game.next_deadline = None
            game.save()
            self._states.pop(game.id, None)
            out = Outgoing(key=f"{game.tag}:not-started", kind="pm", to=game.host,
                           subject=f"{game.tag}: the game could not start",
                           body=ops.not_started(game.tag, item.title, error))
            store.enqueue(out, None, self.clock(), priority=0)

    def _tell_host_resent(self, item: Outbox, error: str) -> None:
        if item.game is None:
            return
        game = Game.get_by_id(item.game)
        out = Outgoing(key=f"{game.tag}:pm-resent", kind="pm", to=game.host,
                       subject=f"{game.tag}: a PM may have gone out twice",
                       body=ops.pm_resent(game.tag, item.to or "", error))
        store.enqueue(out, game.id, self.clock(), priority=0)

    def _edit(self, item: Outbox, now: datetime) -> int:
        """A status-block edit of the opening post. Edits are idempotent: after an
        uncertain failure the same edit is simply sent again."""
        tag = f"G{item.game}"  # the sign-up post if there is one, else the game's opening
        game = Game.get_by_id(item.game)
        first = f"{tag}:0:opening" if self._block_in_signup_post(game) else f"{tag}:1:opening"
        opening = Outbox.get_or_none(Outbox.key == first)
        if opening is None or opening.state != "posted":
            return 0  # the opening post is not out yet
        body = with_block(opening.body, item.body, markup_for(self.forum.markup.value))
        out = Outgoing(key=opening.key, kind="edit", body=body, thread=opening.ext_id, where=opening.kind,
                       token=store.marker_token(opening.key))  # the edited post keeps its marker
        try:
            item.attempts += 1
            posted = self.forum.post(out)
        except TransientError as e:
            wait = backoff(item.attempts, e.retry_after)
            item.not_before = store.naive(now + timedelta(seconds=wait))
            item.error = str(e)[:500]
            item.save()
            return 0
        except UncertainError as e:
            item.error = str(e)[:500]
            item.save()
            return 0
        except PermanentError as e:
            item.state = "failed"
            item.error = str(e)[:500]
            item.save()
            self._tell_host_of_failure(item, str(e))
            return 0
        self._posted(item, posted)
        return 1

    def _posted(self, item: Outbox, posted) -> None:
        with db.atomic():
            item.state = "posted"
            item.uncertain = False
            item.ext_id = posted.id
            item.url = posted.url
            item.posted_at = store.naive(self.clock())
            item.save()
            if item.kind == "thread" and item.game is not None:
                Game.update(thread=posted.id, thread_url=posted.url).where(
                    Game.id == item.game).execute()
                self._tell_host_started(Game.get_by_id(item.game), posted.url or posted.id)

    def _tell_host_started(self, game: Game, where: str) -> None:
        if game.status == "signup":
            out = Outgoing(key=f"{game.tag}:started", kind="pm", to=game.host,
                           subject=f"{game.tag}: sign-ups are open",
                           body=f"Sign-ups for {game.tag} are open: {where}\n\nPlayers comment "
                                "**JOIN** there. The game starts by itself; put "
                                f"{game.tag} in your PMs about this game.")
            store.enqueue(out, game.id, self.clock(), priority=0)
            return
        out = Outgoing(key=f"{game.tag}:started", kind="pm", to=game.host,
                       subject=f"{game.tag}: your game is running",
                       body=f"Game {game.tag} is running: {where}\n\nThe roles have gone out by "
                            f"PM. Put {game.tag} in your PMs about this game.")
        store.enqueue(out, game.id, self.clock(), priority=0)

    def _tell_host_of_failure(self, item: Outbox, error: str) -> None:
        if item.game is None:
            return
        game = Game.get_by_id(item.game)
        if item.kind == "pm" and item.to and item.to.casefold() == game.host.casefold():
            return
        what = {"pm": f"a PM to {item.to}", "edit": "an update of the status block in the opening post"
                }.get(item.kind, "a post in the game thread")
        out = Outgoing(key=f"{item.key}:failed", kind="pm", to=game.host,
                       subject=f"{game.tag}: a message could not be delivered",
                       body=f"{game.tag}: I could not deliver {what}: {error}")
        store.enqueue(out, game.id, self.clock())

    def status_text(self, game: Game) -> str:
        state = self.state(game)
        from .status import public_status
        return public_status(state, game.tag)


def _until(text: str, config) -> datetime | None:
    """"UNTIL 2026-12-05 18:00" in the game's time zone (UTC if none) -> a UTC moment."""
    import re
    from zoneinfo import ZoneInfo

    m = re.fullmatch(r"(?i)until\s+(\d{4}-\d{2}-\d{2})[ T](\d{1,2}:\d{2})\s*", text.strip())
    if not m:
        return None
    try:
        local = datetime.fromisoformat(f"{m.group(1)} {int(m.group(2).split(':')[0]):02d}:{m.group(2).split(':')[1]}")
    except ValueError:
        return None
    return local.replace(tzinfo=ZoneInfo(config.timezone or "UTC")).astimezone(timezone.utc)


def _cause(e: BaseException) -> BaseException:
    """The error that counts: after a full disk SQLite has rolled back already, and the
    rollback that follows fails, hiding what happened."""
    if "no transaction is active" in str(e) and e.__context__ is not None:
        return e.__context__
    return e


def _lane(item: Outbox) -> tuple:
    """What an outbox item keeps its order within: its thread, or its recipient."""
    if item.kind == "edit":
        return ("edit", item.id)
    if item.kind == "pm":
        return ("pm", (item.to or "").casefold())
    if item.game is not None:
        return ("game", item.game)  # a game's opening post and every comment after it
    return ("thread", item.thread)


def fair_share(rows: list[Inbound], per_author: int) -> list[Inbound]:
    """At most `per_author` messages of each sender, in time order: one sender's flood must
    not hold up everyone else's votes (the rest wait for the next cycles)."""
    taken: dict[str, int] = {}
    out = []
    for r in rows:
        n = taken.get(r.author.casefold(), 0)
        if n < per_author:
            taken[r.author.casefold()] = n + 1
            out.append(r)
    return out


def at_or_now(row: Inbound, clock) -> datetime:
    """When a reply was caused: the message's own time (deterministic on a re-run)."""
    return store.aware(row.created) if row.created else clock()


def _json(obj) -> str:
    import json
    return json.dumps(obj)
