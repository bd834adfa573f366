"""Deadlines: closed only up to where the forum was read and every earlier message was
handled, one phase at a time; moved after the bot was down."""
from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from adapters.base import Outgoing

from .. import db_trouble, store
from ..basics import Deferred
from ..limits import WAIT_NOTICE
from ..render import ops
from ..render.subjects import subject
from ..rules import deadlines
from ..rules.commands import Command, Expire, Postpone, Remind
from ..rules.state import GameState
from ..store import Cursor, Game
from .games import GameBook
from .horizon import Horizon
from .signups import Signups

log = logging.getLogger("forumbot")



class Clockwork:
    """Deadlines: closed only up to where the forum was read and every earlier message was
handled, one phase at a time; moved after the bot was down."""

    def __init__(self, forum_name: str, book: GameBook, horizon: Horizon, signups: Signups,
                 clock: Callable[[], datetime], outage_grace: int | None, outage_after: int):
        self.forum_name = forum_name
        self.book = book
        self.horizon = horizon
        self.signups = signups
        self.clock = clock
        # None (tests, the demo, whose clocks jump while the bot is taken to be running):
        # no outage is ever detected.
        self.outage_grace = outage_grace
        self.outage_after = outage_after

    def reached(self, game: Game, now: datetime) -> datetime | None:
        """Up to when this game's deadlines may close: `now`, held back to where the forum
        was read and to the oldest message of the game not yet handled."""
        horizon = self.horizon.of(game.thread, game.id)
        return None if horizon is None else min(now, horizon)

    def _apply(self, game: Game, command: Command) -> bool:
        return isinstance(self.book.apply(game, command), list)

    def fire_game_deadlines(self, game: Game, now: datetime, command: bool = False) -> int:
        """Close what is due by `now` (a message's time when `command`): only up to the
        horizon, one phase at a time: a second phase that would close at once (the bot or
        the forum was away longer than it lasts) is moved to now + outage_grace instead.
        A message after a deadline that cannot close yet is put back (Deferred)."""
        fired = 0
        closed = False
        cap = self.reached(game, now)
        while cap is not None:
            state = self.book.state(game)
            cmd = (deadlines.resume(state, cap) or deadlines.expired(state, cap)
                   or deadlines.reminder(state, cap))
            if cmd is None:
                break
            if isinstance(cmd, Remind) and (game.id, state.phase_id) in self.book.opened:
                break  # never in the cycle that opened the phase
            if isinstance(cmd, Expire) and closed:
                self.postpone(game, store.aware(cmd.at), "forum")
                break
            if not self._apply(game, cmd):
                break
            closed = closed or isinstance(cmd, Expire)
            fired += 1
        if command:
            state = self.book.state(game)
            if _due_now(state, now):
                raise Deferred(game.id)
        return fired

    def signup_ready(self, game: Game, at: datetime) -> None:
        """A message after the sign-up deadline, which cannot close yet: put it back."""
        if game.next_deadline is None or store.aware(game.next_deadline) > at:
            return
        cap = self.reached(game, at)
        if cap is None or cap < store.aware(game.next_deadline):
            raise Deferred(game.id)

    def postpone(self, game: Game, missed: datetime, reason: str) -> bool:
        now = self.clock()
        return self._apply(game, Postpone(at=now, author="the bot", down_since=missed, reason=reason,
                                          until=now + timedelta(seconds=self.outage_grace or 0)))

    def catch_up(self, now: datetime) -> int:
        """After the bot was down (no cycle for `outage_after`), the deadlines that fell
        meanwhile move to now + outage_grace, announced once per game in the thread."""
        if self.outage_grace is None:
            return 0
        row = Cursor.get_or_none((Cursor.forum == f"{self.forum_name}#bot") & (Cursor.name == "alive"))
        if row is None:
            return 0
        alive = store.aware(json.loads(row.value))
        if (now - alive).total_seconds() <= self.outage_after:
            return 0
        moved = 0
        for game in self.book.live():
            if game.next_deadline is None or not alive < store.aware(game.next_deadline) <= now:
                continue
            with self.book.unit():
                if game.status == "signup":  # sign-ups: the deadline moves quietly
                    game.next_deadline = store.naive(now + timedelta(seconds=self.outage_grace))
                    game.save()
                    moved += 1
                    continue
                if (resumed := deadlines.resume(self.book.state(game), now)) is not None:
                    self._apply(game, resumed)  # a PAUSE ... UNTIL that ran out meanwhile
                due = deadlines.due(self.book.state(game))
                if due is not None and alive < due <= now:
                    moved += self.postpone(game, alive, "outage")
        log.warning("the bot was not running since %s: %d deadlines moved", alive, moved)
        return moved

    def fire_deadlines(self, now: datetime) -> int:
        fired = 0
        for game in self.book.due(now):
            try:
                with self.book.unit():
                    cap = self.reached(game, now)
                    if cap is not None and game.status == "signup":
                        fired += self.signups.deadline(game, cap)
                    if game.status == "running":
                        fired += self.fire_game_deadlines(game, now)
                    self._tell_host_waiting(game, now)
            except Exception as e:
                if db_trouble.is_db_trouble(e):
                    raise
                log.exception("deadline of %s failed", game.tag)
        return fired

    def _tell_host_waiting(self, game: Game, now: datetime) -> None:
        """A deadline that has waited WAIT_NOTICE for the forum: the host is told, once."""
        if game.status == "running":
            due = deadlines.due(self.book.state(game))
        else:
            due = store.aware(game.next_deadline) if game.next_deadline is not None else None
        if due is None:
            return
        cap = self.reached(game, now)
        if (cap is not None and cap >= due) or (now - due).total_seconds() < WAIT_NOTICE:
            return
        out = Outgoing(key=f"{game.tag}:waiting:{due:%Y%m%d%H%M%S}", kind="pm", to=game.host,
                       subject=subject("deadline_waits", game.tag),
                       body=ops.deadline_waits(game.tag, due, self.horizon.why(game.thread)))
        store.enqueue(out, game.id, now, priority=0)

    def next_deadline(self) -> datetime | None:
        g = (Game.select(Game.next_deadline).where(
            Game.status.in_(("running", "signup")) & Game.next_deadline.is_null(False)
            & (Game.forum == self.forum_name))
            .order_by(Game.next_deadline).first())
        return store.aware(g.next_deadline) if g else None


def _due_now(state: GameState, now: datetime) -> bool:
    return bool(deadlines.expired(state, now) or deadlines.resume(state, now))

