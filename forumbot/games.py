"""Games: created from a config, cached, and changed only through `apply`, whose events
are committed with the posts they cause."""
from __future__ import annotations

import json
import logging
import os
from datetime import datetime

from adapters.base import Outgoing

from . import deadlines, store
from .parsing import parse_config
from .render import Message, render_events, render_refusal
from .render.markup import markup_for
from .render.posts import block_separator
from .rules import Refusal, apply, replay, start
from .rules.state import FINISHED, GameState
from .status import status_block
from .store import Game, Inbound, Outbox

log = logging.getLogger("forumbot")
MAX_PROBLEMS_SHOWN = 20  # problems of a config listed in one reply


def _json(obj) -> str:
    return json.dumps(obj)

class Games:
    """Games: created from a config, cached, and changed only through `apply`, whose events
are committed with the posts they cause."""

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
            out = Outgoing(key=key, kind="thread", body=msg.body, title=msg.title,
                           where=cfg.category or cfg.subreddit)
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
            shown = problems[:MAX_PROBLEMS_SHOWN]  # a forum takes 10,000 (Reddit) to 32,000 characters
            lines = "\n".join(f"- `{p.key}`: {p.message[:300]}" for p in shown)
            if len(problems) > len(shown):
                lines += f"\n- ... and {len(problems) - len(shown)} more; fix these first."
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
