"""Which game a message is for, and who the bot answers at all."""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

from adapters.base import ForumError, Outgoing

from . import store
from .basics import at_or_now
from .help import help_for
from .limits import POINTER_EVERY
from .parsing import Parsed, game_tags, parse_comment, parse_pm
from .render import ops
from .rules.state import GameState
from .store import Game, Inbound, Outbox

log = logging.getLogger("forumbot")


class Routing:
    """Which game a message is for, and who the bot answers at all."""

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
