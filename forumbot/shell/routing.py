"""Which game a message is for: pure functions of the message and the games it could be
for, each answering a game, a refusal to send (`Unrouted`), or nothing at all."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ..parsing import game_tags
from ..render import ops
from ..render import replies as words
from ..rules.commands import Refusal
from ..rules.plugin import Parsed
from ..rules.state import GameState
from ..store import Game, Inbound


class Unrouted(NamedTuple):
    """Not for any one game: `refusal` told to the sender (about `game`, if any), by PM
    unless it is not `private`."""

    refusal: Refusal
    game: Game | None = None


def seat_name(state: GameState, author: str) -> str | None:
    """The id of the seat the forum user `author` plays now, if any."""
    seat = state.seat_of(author)
    return seat.id if seat is not None else None


def replaced_by(state: GameState, author: str) -> str | None:
    """The username of whoever took `author`'s seat, if someone did."""
    folded = author.casefold()
    for old, seat in state.replaced.items():
        if old.casefold() == folded:
            return state.shown(seat)
    return None


def watches(game: Game, user: str) -> bool:
    return any(s.casefold() == user.casefold() for s in game.game_config().spectators)


def comment_game(commands: list[Parsed], body: str, here: Sequence[Game]) -> Game | Unrouted | None:
    """The game a thread comment is for, among `here` (the thread's games created by the
    comment's time, oldest first): the one running or taking sign-ups; with several, the
    one whose tag the comment names (without one it is refused with the candidates). A
    finished game never takes commands."""
    if not here:
        return None  # not a game thread, or a comment from before the game (an existing thread)
    live = [g for g in here if g.status in ("running", "signup")]
    if len(live) > 1:
        tags = game_tags(*(c.text for c in commands)) or game_tags(body)
        hits = [g for g in live if g.id in tags]
        if len(hits) == 1:
            return hits[0]
        if commands:
            return Unrouted(Refusal(ops.which_game([g.tag for g in live])))
        return None
    if live:
        return live[0]
    if any(c.verb not in ("status", "help") for c in commands):
        return Unrouted(Refusal(words.game_over(here[-1].tag), private=True), here[-1])
    return None


def pm_game(row: Inbound, mine: Sequence[Game], sent_game: int | None,
            replaced: Callable[[], Sequence[tuple[Game, GameState]]]) -> Game | Unrouted:
    """The game a PM is for: `mine` are the running games its sender plays, watches or
    hosts; `sent_game` the game of the bot's PM it answers (if it answers one); `replaced()`
    the running games (with their states) where a seat may have been given away."""
    tags = game_tags(row.subject, row.body)
    if tags:
        hits = [g for g in mine if g.id in tags]
        if len(hits) == 1:
            return hits[0]
        if hits:  # several of the sender's own games named: never a guess, and not "not in"
            return _refused(words.several_games([g.tag for g in hits]))
        gone = _seat_gone(row.author, [(g, s) for g, s in replaced() if g.id in tags])
        return gone or _refused(words.not_in_tagged(sorted(tags)))
    if sent_game is not None and len(mine) > 1:  # a reply to a PM the bot sent about one of them
        hit = [g for g in mine if g.id == sent_game]
        if hit:
            return hit[0]
    if len(mine) == 1:
        return mine[0]
    if not mine:
        return _seat_gone(row.author, replaced()) or _refused(words.not_in_a_game())
    return _refused(words.several_games([g.tag for g in mine]))


def _seat_gone(author: str, games: Sequence[tuple[Game, GameState]]) -> Unrouted | None:
    """A PM from someone whose seat was given to another: say so (and change nothing)."""
    for g, state in games:
        now = replaced_by(state, author)
        if now:
            return _refused(words.seat_taken(g.tag, now), g)
    return None


def _refused(reason: str, game: Game | None = None) -> Unrouted:
    """A PM's refusal: answered by PM."""
    return Unrouted(Refusal(reason, private=True), game)
