"""One inbound message, handled: whom the bot answers at all, which game it is for
(routing), then the controller that takes it (players, the host, sign-ups)."""
from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from adapters.base import Forum, ForumError, Outgoing

from .. import store
from ..basics import at_or_now
from ..gameconfig import looks_like_config
from ..limits import POINTER_EVERY
from ..parsing import game_tags, parse_comment, parse_pm
from ..render import ops, render_refusal
from ..render import replies as words
from ..render.help import help_for
from ..render.subjects import subject
from ..store import Game, Inbound, Outbox
from .clockwork import Clockwork
from .games import GameBook
from .hosting import Hosting
from .playing import Playing, game_words, pm_words
from .replies import Answers, People
from .routing import Unrouted, comment_game, pm_game, seat_name, watches
from .signups import Signups

log = logging.getLogger("forumbot")


class Inbox:
    """Takes one stored message to where it belongs; every answer goes through `answers`."""

    def __init__(self, forum: Forum, clock: Callable[[], datetime], book: GameBook, people: People,
                 answers: Answers, players: Playing, host: Hosting, signups: Signups,
                 clockwork: Clockwork):
        self.forum = forum
        self.clock = clock
        self.book = book
        self.people = people
        self.answers = answers
        self.players = players
        self.host = host
        self.signups = signups
        self.clockwork = clockwork

    def handle(self, row: Inbound) -> None:
        at = store.aware(row.created)
        if row.author.casefold() == self.forum.bot_name.casefold():
            return  # the bot's own words are never commands
        if row.kind == "pm" and row.origin:
            return  # mail from the forum's staff or a community: never answered
        if row.kind == "pm" and row.parent and not self.people.known(row.author) and not parse_pm(row.body):
            return  # a stranger answering one of the bot's messages (a bot's auto-reply): silence
        if row.kind == "pm" and row.subject.strip().lower() == "new game":
            self.host.new_game(row, at)
            return
        if row.kind == "comment":
            self._comment(row, at)
            return
        if looks_like_config(row.body):  # (its keys are no commands: `excalibur: true`)
            if self.people.may_start(row.author):
                self._config_without_subject(row)
            else:
                self._no_command(row)  # (a stranger: the pointer, one a day)
            return
        commands = parse_pm(row.body, pm_words(row, self.games_of(row.author, hosts=False)))
        if not commands:
            if not self.players.pm_hint(row, self.games_of(row.author, hosts=False), at):
                self._no_command(row)  # (an almost-command gets its "did you mean" instead)
            return
        if all(c.verb == "help" for c in commands):
            tags = game_tags(row.subject, row.body)
            games = [g for g in self.games_of(row.author) if not tags or g.id in tags]
            if len(games) != 1:  # HELP about no game of theirs, or several: the general words
                self.answers.reply(row, None, help_for(None, None, row.author, None, self.book.markup), 0)
                return
        for i, parsed in enumerate(commands):
            if parsed.verb.startswith("host:"):
                self.host.command(row, parsed, at, i)
                continue
            game = self._pm_game(row, i)
            if game is not None:
                self.players.command(game, row, parsed, "pm", at, i)

    def _comment(self, row: Inbound, at: datetime) -> None:
        commands = parse_comment(row.body)
        routed = comment_game(commands, row.body, self.book.in_thread(row.thread, at))
        if isinstance(routed, Unrouted):
            self._refuse(row, routed, 0)
            return
        if routed is None:
            return
        if own := game_words(routed):  # the host's own words count in this game's thread
            commands = parse_comment(row.body, own)
        if routed.status == "signup":
            self.clockwork.signup_ready(routed, at)
            self.signups.comment(routed, row, commands, at)
        else:
            self.players.comment(routed, row, commands, at)

    def _pm_game(self, row: Inbound, i: int) -> Game | None:
        mine = self.games_of(row.author)
        sent = None
        if row.parent and len(mine) > 1 and not game_tags(row.subject, row.body):
            sent = self._sent_game(row)
        routed = pm_game(row, mine, sent, lambda: [(g, self.book.state(g)) for g in self.book.running()])
        if isinstance(routed, Unrouted):
            self._refuse(row, routed, i)
            return None
        return routed

    def _refuse(self, row: Inbound, unrouted: Unrouted, i: int) -> None:
        """A message that is for no one game: its refusal, in the forum's markup."""
        text = render_refusal(unrouted.refusal, None, self.book.markup)
        self.answers.reply(row, unrouted.game, text, i, private=unrouted.refusal.private)

    def _sent_game(self, row: Inbound) -> int | None:
        """The game of the bot's PM that `row` answers, if the bot knows it."""
        sent = Outbox.get_or_none((Outbox.ext_id == row.parent) & (Outbox.kind == "pm"))
        sent_id_of = getattr(self.forum, "sent_id", None)
        if sent is None and sent_id_of is not None:  # Reddit: found by its marker
            try:
                sent_id = sent_id_of(row.parent)
            except ForumError as e:
                log.warning("could not read the PM %s answers: %s", row.ext_id, e)
                sent_id = None
            if sent_id:
                sent = Outbox.get_or_none((Outbox.ext_id == sent_id) & (Outbox.kind == "pm"))
        return sent.game if sent is not None else None

    def games_of(self, user: str, hosts: bool = True) -> list[Game]:
        """The running games `user` plays in, watches, or (with `hosts`) hosts."""
        return [g for g in self.book.running() if seat_name(self.book.state(g), user) or watches(g, user)
                or (hosts and g.game_config().is_host(user))]

    def _no_command(self, row: Inbound) -> None:
        """A PM with no command: a pointer to HELP, and with `forward_pms`, on to the host."""
        tags = game_tags(row.subject, row.body)
        games = [g for g in self.games_of(row.author, hosts=False)
                 if g.game_config().forward_pms and (not tags or g.id in tags)]
        if len(games) == 1:
            g = games[0]
            state = self.book.state(g)
            if seat_name(state, g.host) is not None and ops.looks_secret(row.body, state):
                # the host plays: a malformed order or a card's name could tell a side
                self.answers.reply(row, g, ops.not_forwarded(g.tag), 0)
                return
            out = Outgoing(key=f"fwd:{self.forum.name}:{row.ext_id}", kind="pm", to=g.host,
                           subject=subject("forwarded", g.tag, sender=row.author),
                           body=words.forwarded(g.tag, row.author, row.body, self.book.markup))
            store.enqueue(out, g.id, at_or_now(row, self.clock))
            self.answers.reply(row, g, words.passed_to_host(g.tag), 0)
            return
        if not self.people.known(row.author):
            self.to_stranger(row, ops.pointer(self.book.markup))
            return
        self.answers.reply(row, None, words.no_command(self.book.markup), 0)

    def _config_without_subject(self, row: Inbound) -> None:
        """A config sent by someone who may start games, without the subject `new game`:
        how to send it (to a stranger of an open bot, one answer a day, as any pointer)."""
        text = words.config_without_subject(self.book.markup)
        if self.people.known(row.author):
            self.answers.reply(row, None, text, 0)
        else:
            self.to_stranger(row, text)

    def to_stranger(self, row: Inbound, body: str) -> None:
        """An answer to a stranger's message (a pointer to HELP, a message set aside): one a
        day, no more, and none for mail that waited unread over a day (a new bot's old inbox)."""
        if (self.clock() - at_or_now(row, self.clock)).total_seconds() > POINTER_EVERY:
            return
        since = store.naive(at_or_now(row, self.clock) - timedelta(seconds=POINTER_EVERY))
        if self.answers.flooding(row) or Outbox.select().where(
                Outbox.key.startswith(f"pointer:{self.forum.name}:")
                & (Outbox.to == row.author) & (Outbox.created_at > since)).exists():
            return
        out = Outgoing(key=f"pointer:{self.forum.name}:{row.ext_id}", kind="pm", to=row.author,
                       subject=subject("reply"), body=body)
        store.enqueue(out, None, at_or_now(row, self.clock))
