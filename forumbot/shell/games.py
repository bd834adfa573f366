"""Games: their rows and states cached, and changed only through `apply`, whose events are
committed with the posts they cause. The one path to the rules for players, the host,
sign-ups and deadlines alike."""
from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from adapters.base import Forum, Outgoing

from .. import store
from ..render import Message, render_events
from ..render import replies as words
from ..render.markup import Markup, markup_for
from ..render.status import status_block
from ..render.subjects import subject
from ..render.words import block_separator
from ..rules import Refusal, advance, deadlines, replay
from ..rules.commands import Command
from ..rules.events import PLAYER_REPLACED, Event
from ..rules.state import FINISHED, GameState
from ..store import Game, Outbox, db

log = logging.getLogger("forumbot")

LIVE = ("running", "signup")
ENDED = {"aborted": "aborted", "abandoned": "abandoned"}  # a game's status by how it ended


class Digest:
    """The live rows as a cycle asks for them (every one read plainly, by its field), made in
    one pass: the rows' dict it was made of, and `Game.changes` and their number then."""

    def __init__(self, rows: dict[int, Game]):
        self.rows = rows
        self.changes = Game.changes
        self.count = len(rows)
        self.live: list[Game] = []
        self.running: list[Game] = []
        self.signup: list[Game] = []
        self.ended = False  # a row that is no longer live (its game ended in the last cycle)
        threads: set[str] = set()
        first = None
        for g in rows.values():
            data = g.__data__
            status = data.get("status")
            if status not in LIVE:
                self.ended = True
                continue
            self.live.append(g)
            (self.running if status == "running" else self.signup).append(g)
            if (thread := data.get("thread")) is not None:
                threads.add(thread)
            if (at := data.get("next_deadline")) is not None and (first is None or store.aware(at) < first):
                first = store.aware(at)
        self.running_by_id = {g.id: g for g in self.running}
        self.threads = sorted(threads)
        self.first: datetime | None = first  # the earliest next deadline of a live game


class GameBook:
    """The games of one forum: rows and states kept between cycles (the rows read once, the
    states rebuilt from the log when needed; all read again after a rollback, or when
    another bot has worked on the database meanwhile), and every change of a game through
    `apply`/`commit`, inside a `unit` (one transaction) that also writes the status blocks
    it changed."""

    def __init__(self, forum: Forum, clock: Callable[[], datetime]):
        self.forum = forum
        self.clock = clock
        self.markup: Markup = markup_for(forum.markup.value)
        self.opened: set[tuple[int, int]] = set()  # (game, phase) opened in this cycle
        self.people_version = 0  # bumped when who plays may have changed (see People)
        self._rows: dict[int, Game] | None = None  # the live games, by id (None: read again)
        self._digested: Digest | None = None  # what the cycle asks of all of them (see `_digest`)
        self._states: dict[int, GameState] = {}
        self._seq: dict[int, int] = {}  # game -> the seq of its last event
        self._openings: dict[str, Outbox] = {}  # opening posts that are out, by key
        self._signup_posts: dict[int, bool] = {}  # game -> do its sign-ups have an opening post
        self._dirty: set[int] = set()  # games the open unit changed
        self._blocks: dict[int, str] = {}  # status blocks the open unit changed
        self._depth = 0  # units open
        self._changed: set[int] = set()  # games changed (or rebuilt) since `take_changed`
        # The live games by thread, as of people_version (which a new game, a game's start
        # or a rollback bumps; a thread that comes later drops it too)
        self._by_thread: tuple[int, dict[str | None, list[Game]]] | None = None

    # --- rows ----------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the rows again when next asked."""
        self._rows = None
        self._by_thread = None

    def new_cycle(self) -> None:
        """A cycle begins: the games that ended are no longer kept (their rows and states)."""
        if self._rows is not None and self._digest().ended:
            self._rows = {gid: g for gid, g in self._rows.items() if g.status in LIVE}
            for gid in [gid for gid in self._states if gid not in self._rows]:
                self.forget(gid)

    def _live(self) -> dict[int, Game]:
        if self._rows is None:
            self._rows = _rows(Game.select().where(Game.status.in_(LIVE) & (Game.forum == self.forum.name))
                               .order_by(Game.id))
        return self._rows

    def _digest(self) -> Digest:
        """What the cycle asks of all the rows, worked out again only when a row changed (a
        status, a thread or a deadline set on it: `Game.changes`), came or went."""
        rows = self._live()
        d = self._digested
        if d is None or d.rows is not rows or d.changes != Game.changes or d.count != len(rows):
            d = self._digested = Digest(rows)
        return d

    def running(self) -> list[Game]:
        return list(self._digest().running)

    def running_by_id(self) -> dict[int, Game]:
        return dict(self._digest().running_by_id)

    def signup_games(self) -> list[Game]:
        return list(self._digest().signup)

    def live(self) -> list[Game]:
        return list(self._digest().live)

    def threads(self) -> list[str]:
        """The live games' threads (those that have one), sorted, each once."""
        return list(self._digest().threads)

    def due(self, now: datetime) -> list[Game]:
        """The live games whose row's next deadline is by `now`, oldest first: none (no pass
        over the rows) while the first of them is later, as in most quiet cycles."""
        first = self._digest().first
        if first is None or first > now:
            return []
        cap = store.naive(now)
        out = []
        for g in self._live().values():
            data = g.__data__
            at = data.get("next_deadline")
            if at is None or data.get("status") not in LIVE:
                continue
            if at <= cap if type(at) is datetime and at.tzinfo is None else store.aware(at) <= now:
                out.append(g)
        return out

    def get(self, game_id: int) -> Game | None:
        """A game of this forum by id, live or not (a live one is the cached row)."""
        game = self._live().get(game_id)
        if game is None:
            game = Game.get_or_none((Game.id == game_id) & (Game.forum == self.forum.name))
        return game

    def in_thread(self, thread: str | None, at: datetime) -> list[Game]:
        """The games of a thread created by `at`, oldest first: the live ones from the
        cache; only a thread with none of those is looked up (a finished game's thread)."""
        index = self._by_thread
        if index is None or index[0] != self.people_version:
            by: dict[str | None, list[Game]] = {}
            for g in self._live().values():
                by.setdefault(g.thread, []).append(g)
            index = self._by_thread = (self.people_version, by)
        live = [g for g in index[1].get(thread, ()) if g.status in LIVE and g.thread == thread
                and store.aware(g.created_at) <= at]
        if live:
            return live
        return list(Game.select().where((Game.thread == thread) & (Game.forum == self.forum.name)
                                        & (Game.created_at <= store.naive(at))).order_by(Game.id))

    def created(self, game: Game) -> None:
        self._live()[game.id] = game
        self._digested = None
        self.people_version += 1

    # --- states --------------------------------------------------------------------

    def state(self, game: Game) -> GameState:
        """The live state of a game: cached, rebuilt by replaying its log when needed (and
        then the row's copy of when its phase opened is checked against it)."""
        cached = self._states.get(game.id)
        if cached is None:
            events = store.game_events(game)
            cached = replay(game.game_config(), game.seed, events)
            self._states[game.id] = cached
            self._seq[game.id] = len(events)
            opened = _naive_or_none(cached.phase_opened_at)
            if opened != _naive_or_none(game.phase_opened):
                if game.phase_opened is not None:
                    log.warning("%s: the stored opening of its phase (%s) was not its log's (%s)",
                                game.tag, game.phase_opened, opened)
                game.phase_opened = opened
                Game.update(phase_opened=opened).where(Game.id == game.id).execute()
                self._changed.add(game.id)
        return cached

    def seated(self, players: dict[int, tuple[str, ...]]) -> dict[int, list[str]]:
        """The usernames on the seats of running games (game -> its config's players): a state's
        when it is at hand, else the players with the log's replacements, read in one statement
        for them all (no replay)."""
        out = {gid: self._states[gid].names for gid in players if gid in self._states}
        seats = {gid: {p: p for p in dealt} for gid, dealt in players.items() if gid not in out}  # seat -> name
        if seats:
            rows: Any = (store.Event.select(store.Event.game, store.Event.data)
                         .where(store.Event.game.in_(list(seats)) & (store.Event.type == PLAYER_REPLACED))
                         .order_by(store.Event.game, store.Event.seq).tuples())
            for gid, data in rows:
                e = json.loads(data)
                if e.get("keeps_id"):  # the seat keeps its id; only the username on it changes
                    seats[gid][e["player"]] = e["by"]
                else:  # a log from before seats had ids: the seat renamed by value (rules/replace.py)
                    seats[gid] = {(e["by"] if k == e["player"] else k): (e["by"] if k == e["player"] else v)
                                  for k, v in seats[gid].items()}
        out.update({gid: list(names.values()) for gid, names in seats.items()})
        return out

    def take_changed(self) -> set[int]:
        """The games changed, or rebuilt from their log, since this was last asked."""
        changed, self._changed = self._changed, set()
        return changed

    def phase_opened(self, game: Game) -> datetime | None:
        """When the game's open phase opened: its state's when the state is at hand, else the
        row's copy (no replay), else the state's (rebuilt)."""
        cached = self._states.get(game.id)
        if cached is not None:
            return cached.phase_opened_at
        if game.phase_opened is not None:
            return store.aware(game.phase_opened)
        return self.state(game).phase_opened_at

    def forget(self, game_id: int) -> None:
        self._states.pop(game_id, None)
        self._seq.pop(game_id, None)

    def clear(self) -> None:
        self._signup_posts.clear()
        self._states.clear()
        self._seq.clear()
        self._openings.clear()
        self.refresh()

    def apply(self, game: Game, command: Command) -> list[Event] | Refusal:
        """The one way a game changes: the rules' answer to `command`, committed."""
        result = advance(self.state(game), command)
        if isinstance(result, Refusal):
            return result
        state, events = result
        self.commit(game, events, state)
        return events

    def commit(self, game: Game, events: list[Event], state: GameState | None = None) -> None:
        """Append `events` (with `state`, the state after them, if known) to the log, with
        the posts they cause; the status block is written when the unit ends."""
        seq = self._seq.get(game.id) if game.id in self._states else None
        first = store.append_events(game, events, None if seq is None else seq + 1)
        before = self._states[game.id].phase_id if game.id in self._states else None
        if state is None:
            self.forget(game.id)
            state = self.state(game)  # (replayed: the events are in the log now)
        else:
            self._states[game.id] = state
            self._seq[game.id] = first + len(events) - 1
        self._dirty.add(game.id)
        self._changed.add(game.id)
        started = any(e.type == "game_started" for e in events)
        if started or any(e.type == "player_replaced" for e in events):
            self.people_version += 1
        if state.phase_id != before:
            self.opened.add((game.id, state.phase_id))
        for msg in render_events(state, events, game.tag, self.forum.markup.value, now=self.clock()):
            self.enqueue_message(game, msg, f"{game.tag}:{first}:{msg.slot}")
        if (not started or self.block_in_signup_post(game) or game.id in self._blocks
                or Outbox.select().where(Outbox.key == f"{game.tag}:status-block").exists()):
            # (a new game's opening post carries its block already)
            self.set_block(game, status_block(state, game.tag, self.markup))
        due = deadlines.next_wakeup(state)
        status = ENDED.get(state.win_reason or "", "finished") if state.phase == FINISHED else game.status
        deadline = store.naive(due) if due else None
        opened = _naive_or_none(state.phase_opened_at)
        if (deadline != _naive_or_none(game.next_deadline) or status != game.status
                or opened != _naive_or_none(game.phase_opened)):
            game.next_deadline = deadline
            game.status = status
            game.phase_opened = opened
            game.save()

    def set_block(self, game: Game, block: str) -> None:
        """A status block (sign-ups make their own) to write when the unit ends."""
        self._blocks[game.id] = block
        if not self._depth:
            self.write_blocks()

    # --- units ---------------------------------------------------------------------

    @contextmanager
    def unit(self) -> Iterator[None]:
        """One transaction of changes to games. Rolled back, it leaves the caches as if it
        had not run (the states and rows it changed are read again from the store)."""
        opened = set(self.opened)
        outer = self._dirty, self._blocks
        self._dirty, self._blocks = set(), {}
        self._depth += 1
        try:
            with db.atomic():
                yield
                self.write_blocks()
        except BaseException:
            for g in self._dirty:
                self.forget(g)
            self.opened = opened
            self.people_version += 1
            self._signup_posts.clear()
            self._reread()
            raise
        finally:
            self._depth -= 1
            self._dirty, self._blocks = outer[0] | self._dirty, outer[1]

    def _reread(self) -> None:
        """After a rollback: the cached rows take back what the store holds (in place, as
        callers may hold them); a game the unit created is gone."""
        self._digested = None  # (the rows change in place, not through their fields)
        if self._rows is None:
            return
        try:
            fresh = {g.id: g for g in Game.select().where(
                Game.status.in_(LIVE) & (Game.forum == self.forum.name)).order_by(Game.id)}
        except Exception:  # the database is in trouble: read them all again later
            self._rows = None
            return
        for gid, g in list(self._rows.items()):
            if gid in fresh:
                store.reload_into(g, fresh[gid])
            else:
                del self._rows[gid]
        for gid, g in fresh.items():
            self._rows.setdefault(gid, g)

    def write_blocks(self) -> None:
        if not self.forum.traits.edits:  # a forum that takes no edits: the opening post keeps
            self._blocks = {}  # the block it was posted with, and STATUS tells the rest
        if self._blocks:
            store.set_status_edits([(g, f"G{g}:status-block", b) for g, b in self._blocks.items()],
                                   self.clock())
            self._blocks = {}

    # --- posts ---------------------------------------------------------------------

    def enqueue_message(self, game: Game, msg: Message, key: str) -> None:
        now = self.clock()
        body = msg.body
        if msg.opening and not key.endswith(":0:opening") and self.block_in_signup_post(game):
            sep = block_separator(self.markup)  # the sign-up post keeps the block
            body = body.split(sep, 1)[1] if sep in body else body
            msg = Message(msg.slot, body, msg.to, msg.subject, msg.opening, msg.title, msg.priority)
        if key.endswith(":0:opening"):
            self._signup_posts[game.id] = True
        if msg.to is not None:
            out = Outgoing(key=key, kind="pm", body=msg.body, to=msg.to, subject=msg.subject)
        elif msg.opening and game.thread is None:
            cfg = game.game_config()
            out = Outgoing(key=key, kind="thread", body=msg.body, title=msg.title,
                           where=cfg.place(self.forum.traits.place_key))
        else:
            out = Outgoing(key=key, kind="comment", body=msg.body, thread=game.thread)
        store.enqueue(out, game.id, now, msg.priority)

    def tell_host_started(self, game: Game, where: str) -> None:
        """The host learns where the game (or its sign-ups) runs, once its thread exists."""
        self._by_thread = None  # (found in its thread from now on)
        if game.status == "signup":
            out = Outgoing(key=f"{game.tag}:started", kind="pm", to=game.host,
                           subject=subject("signups_open", game.tag),
                           body=words.signups_open_note(game.tag, where, self.markup))
        else:
            out = Outgoing(key=f"{game.tag}:started", kind="pm", to=game.host,
                           subject=subject("running", game.tag),
                           body=words.running_note(game.tag, where))
        store.enqueue(out, game.id, self.clock(), priority=0)

    def block_in_signup_post(self, game: Game) -> bool:
        """Does the sign-up post hold the status block? Yes, unless sign-ups had a thread of
        their own (`signup_thread`) and the game has started in its new thread."""
        if game.id not in self._signup_posts:
            self._signup_posts[game.id] = bool(
                Outbox.select().where(Outbox.key == f"{game.tag}:0:opening").exists())
        if not self._signup_posts[game.id]:
            return False
        return not (game.game_config().signup_thread and game.status != "signup")

    def opening(self, game: Game) -> Outbox | None:
        """The opening post that holds the status block, once it is out (cached then)."""
        key = f"{game.tag}:0:opening" if self.block_in_signup_post(game) else f"{game.tag}:1:opening"
        row = self._openings.get(key)
        if row is None:
            row = Outbox.get_or_none(Outbox.key == key)
            if row is None or row.state != "posted":
                return None
            self._openings[key] = row
        return row


def _rows(query) -> dict[int, Game]:
    """The games of `query` by id, each row made as peewee makes it (no field dirty), less its
    setattr per field: a restart reads every live game."""
    out = {}
    for data in query.dicts():
        g = Game(__no_default__=1)
        g.__data__ = data
        out[data["id"]] = g
    return out


def _naive_or_none(at: datetime | str | None) -> datetime | None:
    return None if at is None else store.naive(store.aware(at))
