"""The named points where roles, cards and mission modifiers plug into the engine.

A rule set beyond the core is one `RulePlugin` subclass in its own module, listed for its
preset in PLUGINS. The engine calls every plug-in of the game's preset, in order, at each
point. A `before_*` point may refuse the command; an `after_*` point may emit more events
through the transaction it is given.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .commands import Command, Refusal
    from .engine import Tx
    from .state import GameState


class RulePlugin:
    name = "plugin"
    handles: tuple[type, ...] = ()  # command types this plug-in answers

    def handle(self, tx: "Tx", command: "Command") -> "Refusal | None":
        """Answer one of the commands in `handles`."""
        return None

    def on_expire(self, tx: "Tx") -> bool:
        """The deadline of a phase this plug-in opened has passed. True if it was ours."""
        return False

    def after_start(self, tx: "Tx") -> None:
        """The roles are dealt; the first proposal is not open yet."""

    def before_proposal(self, state: "GameState", command: "Command") -> "Refusal | None":
        return None

    def after_proposal(self, tx: "Tx", proposal: dict) -> None:
        """A team has been proposed; `proposal` is the team_proposed data."""

    def barred_voters(self, state: "GameState") -> set[str]:
        """Players a card bars from voting on the proposal being made now."""
        return set()

    def votes_in_thread(self, state: "GameState", name: str) -> bool:
        """True if this player's team votes go in the thread even in a PM-only game."""
        return False

    def before_vote(self, state: "GameState", command: "Command") -> "Refusal | None":
        return None

    def after_vote(self, tx: "Tx", record: dict) -> None:
        """A team vote has closed; `record` is the vote_closed data."""

    def before_round(self, tx: "Tx", mission: int, leader: str) -> bool:
        """A new mission round is about to open its first proposal. Return True to hold it;
        call `engine.open_proposal(tx, mission, leader)` when done."""
        return False

    def before_mission_opens(self, tx: "Tx") -> bool:
        """A team was approved. Return True to hold a window first; then call
        `engine.open_mission(tx)`, or reject the team and call `engine.after_rejection(tx)`."""
        return False

    def after_mission_opened(self, tx: "Tx") -> None:
        """A team was approved and its mission is open (orders may already be in)."""

    def first_leader(self, state: "GameState") -> "str | None":
        """The first leader of the mission about to start (None: the next in order)."""
        return None

    def before_mission(self, state: "GameState", command: "Command") -> "Refusal | None":
        return None

    def after_mission(self, tx: "Tx", record: dict) -> bool | None:
        """A mission has been resolved; `record` is the mission_resolved data. Return True
        to hold the game for a phase of this plug-in; when it is over, call
        `engine.resume_after_mission(tx, after=self)`."""

    def before_game_end(self, tx: "Tx", winner: str, reason: str) -> bool:
        """Return False to hold the end back (an assassination still to come, say)."""
        return True

    def after_game_end(self, tx: "Tx", record: dict) -> None:
        """The game has ended; `record` is the game_ended data."""


_PLUGINS: dict[tuple, list[RulePlugin]] = {}


def plugins_for(config) -> list[RulePlugin]:
    """The plug-ins of a game, in the order they run: the preset's table row, plus the
    options the host switched on. The base game is the core alone. The plug-ins keep
    nothing of a game, so games of one kind share one list (do not change it)."""
    global _last
    last = _last
    if last[0] is config:  # (the same game's config, command after command)
        return last[1]
    key = (config.preset, config.plot_cards, config.mission_cards, config.lady_of_the_lake)
    plugins = _PLUGINS.get(key)
    if plugins is None:
        plugins = _PLUGINS[key] = _build(config)
    _last = (config, plugins)
    return plugins


_last: tuple = (None, None)  # the config asked for last, and its plug-ins


def _build(config) -> list[RulePlugin]:
    from .assassin import Assassination
    from .commander import MissionCommander
    from .lady import LadyOfTheLake
    from .mission_cards import MissionCards
    from .plot import PlotCards
    from .preload import Preloading

    table: dict[str, list[RulePlugin]] = {
        "resistance": [],
        "resistance-plot": [],
        "avalon": [Assassination()],
        "avalon-2020": [Assassination()],
        "so-say-we-all": [MissionCommander(), Preloading()],
    }
    plugins = list(table.get(config.preset, []))
    if config.plot_cards and config.preset in ("resistance-plot", "avalon", "avalon-2020"):
        plugins.insert(0, PlotCards(config.preset))
    if config.mission_cards and config.preset == "so-say-we-all":
        plugins.insert(0, MissionCards())  # before the Commander: a Tracker reports to its own
    if config.lady_of_the_lake:
        plugins.insert(0, LadyOfTheLake())
    return plugins
