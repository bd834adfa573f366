"""The named points where roles, cards and mission modifiers plug into the engine, and the
table of rule modules.

A rule beyond the core is one module, `forumbot/rules/modules/<name>.py`, with one `RulePlugin`
subclass, and one row in MODULES: its name, when a game has it, and where its plug-in runs.
The engine calls the game's plug-ins at each point in the order of their rows (`order`); a
row may run its plug-in at another place for one hook (`hook_orders`). A `before_*` point
may refuse the command; an `after_*` point may emit more events through the transaction.

A module also declares, on its plug-in class, what the rest of the bot needs from it (see
`RulePlugin`): its config keys (gameconfig), its command words (parsing) and how a parsed
command becomes its command (intake), its phases and their deadlines, its roles, its random
moves (random_play) and the demo's config. Nothing outside the module names it.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Protocol

if TYPE_CHECKING:
    import random
    from datetime import datetime

    from .commands import Command, Refusal
    from .config import GameConfig
    from .engine import Tx
    from .events import GameEnded, MissionResolved, TeamProposed, VoteClosed
    from .roles import Role
    from .state import GameState


@dataclass(frozen=True)
class Parsed:
    """A command as typed (parsing makes it; a module's `reads` and `command` take it): a verb
    and its raw arguments (names not yet resolved)."""

    verb: str  # propose | vote | order | status | help | join | leave | host:<verb> ...
    names: tuple[str, ...] = ()
    choice: str = ""
    extra: str = ""
    text: str = ""  # the span or line it came from
    more: tuple[tuple[str, str], ...] = ()  # a rule module's "; WORD: value" after a PROPOSE


class Reading(Protocol):
    """What the shell gives a module's `command`: the core's reading of a parsed command
    (`core(parsed)`, a Propose say, to build on) and the seats that typed names name
    (`core.names(raws)`: their ids, or the refusal of the first that names no one)."""

    def __call__(self, parsed: Parsed) -> "Command | Refusal": ...

    def names(self, raws: tuple[str, ...] | list[str]) -> "list[str] | Refusal": ...


@dataclass(frozen=True)
class ConfigKey:
    """A top-level config key a module adds (`excalibur: true`). `check(value, preset)` is
    the value to keep, or raises ValueError with the words the host reads."""

    name: str
    presets: frozenset[str]
    check: Callable[[Any, Any], Any]
    doc: str = ""


@dataclass(frozen=True)
class Word:
    """A command word a module reads: a pattern over one bold span or PM line (whitespace
    already collapsed), and the Parsed it makes of a match. Module words are tried before
    the core's."""

    pattern: re.Pattern
    parse: Callable[[re.Match, str], "Parsed"]


class RulePlugin:
    name = "plugin"
    handles: tuple[type, ...] = ()  # command types this plug-in answers

    # --- what the module declares (class attributes: read before any game exists) -----
    config_keys: ClassVar[tuple[ConfigKey, ...]] = ()
    words: ClassVar[tuple[Word, ...]] = ()
    suffixes: ClassVar[tuple[str, ...]] = ()  # "; EXCALIBUR: b" after a PROPOSE
    phases: ClassVar[dict[str, str]] = {}  # phase -> the config deadline that times it
    phase_words: ClassVar[dict[str, str]] = {}  # phase -> its words ("the use of Excalibur")
    command_words: ClassVar[dict[str, str]] = {}  # command class name -> how players write it
    roles: ClassVar[tuple["Role", ...]] = ()  # the roles it adds: side, what each sees (roles.Role)
    demo: ClassVar[dict[str, Any]] = {}  # config keys the demo sets to play it

    @classmethod
    def check_config(cls, preset, names: list[str], size: int, kw: dict, bad) -> None:
        """Rules across keys (both lovers or neither, 7+ players): `bad(key, message)`."""

    @classmethod
    def reads(cls, state: "GameState", parsed: "Parsed") -> bool:
        """True if this module turns `parsed` into a command (intake asks it first)."""
        return False

    @classmethod
    def command(cls, state: "GameState", parsed: "Parsed", seat: str, via: str,
                at: "datetime", core: Reading) -> "Command | Refusal":
        """The module's command for `parsed` (which `reads` claimed), or its refusal.
        `core(parsed)` is the core's reading, to build on (a Propose, say); `core.names`
        reads typed names as seats."""
        return core(parsed)

    # --- the hooks ------------------------------------------------------------------
    def handle(self, tx: "Tx", command: Any) -> "Refusal | None":
        """Answer one of the commands in `handles`."""
        return None

    def on_expire(self, tx: "Tx") -> bool:
        """The deadline of a phase this plug-in opened has passed. True if it was ours."""
        return False

    def after_start(self, tx: "Tx") -> None:
        """The roles are dealt; the first proposal is not open yet."""

    def before_proposal(self, state: "GameState", command: "Command") -> "Refusal | None":
        return None

    def after_proposal(self, tx: "Tx", proposal: "TeamProposed", command: "Command") -> None:
        """A team has been proposed; `proposal` is its `TeamProposed` event (`proposal.team`,
        `proposal.public`, ...), `command` the Propose (with a module's part of it in `more`)."""

    def barred_voters(self, state: "GameState") -> set[str]:
        """The seats (ids) a card bars from voting on the proposal being made now."""
        return set()

    def votes_in_thread(self, state: "GameState", seat: str) -> bool:
        """True if the team votes of seat `seat` (an id) go in the thread even in a PM-only game."""
        return False

    def before_vote(self, state: "GameState", command: "Command") -> "Refusal | None":
        return None

    def after_vote(self, tx: "Tx", record: "VoteClosed") -> None:
        """A team vote has closed; `record` is its `VoteClosed` event (`record.approved`,
        `record.votes`, ...), as `state.vote_history[-1]` holds it."""

    def before_round(self, tx: "Tx", mission: int, leader: str) -> bool:
        """A new mission round is about to open its first proposal, led by seat `leader` (an
        id). Return True to hold it;
        call `engine.open_proposal(tx, mission, leader)` when done."""
        return False

    def before_mission_opens(self, tx: "Tx") -> bool:
        """A team was approved. Return True to hold a window first; then call
        `engine.open_mission(tx)`, or reject the team and call `engine.after_rejection(tx)`."""
        return False

    def after_mission_opened(self, tx: "Tx") -> None:
        """A team was approved and its mission is open (orders may already be in)."""

    def first_leader(self, state: "GameState") -> "str | None":
        """The first leader (a seat's id) of the mission about to start (None: the next in order)."""
        return None

    def before_mission(self, state: "GameState", command: "Command") -> "Refusal | None":
        return None

    def before_resolve(self, tx: "Tx") -> bool:
        """Every order of the mission is in; it is about to be counted. Return True to hold
        it for a phase of this plug-in; then call `engine.resolve_mission(tx)`."""
        return False

    def after_mission(self, tx: "Tx", record: "MissionResolved") -> bool | None:
        """A mission has been resolved; `record` is its `MissionResolved` event
        (`record.number`, `record.result`, ...), as `state.missions[-1]` holds it. Return True
        to hold the game for a phase of this plug-in; when it is over, call
        `engine.resume_after_mission(tx, after=self)`."""
        return None

    def before_game_end(self, tx: "Tx", winner: str, reason: str) -> bool:
        """Return False to hold the end back (an assassination still to come, say)."""
        return True

    def after_game_end(self, tx: "Tx", end: "GameEnded") -> None:
        """The game has ended; `end` is its `GameEnded` event (`end.winner`, `end.reason`)."""

    # --- random play (property tests, the bench, the demo) ----------------------------
    def random_move(self, state: "GameState", rng: "random.Random", at: "datetime") -> "Command | None":
        """A legal move in a phase of this plug-in (None: not its phase, the core's move)."""
        return None

    def random_amend(self, state: "GameState", rng: "random.Random", command: "Command") -> "Command":
        """The core's random move, with what this module adds to it (an Excalibur holder)."""
        return command

    def written(self, state: "GameState", command: "Command") -> "tuple[str, str] | None":
        """How a player writes one of this module's commands, and where: (text, "pm" or
        "thread"), naming players by the usernames on their seats (`state.shown`); for the
        demo's players. None: the core writes it."""
        return None


@dataclass(frozen=True)
class Row:
    """One rule module: `forumbot.rules.<module>`, whose `PLUGIN` is its plug-in class;
    `on(config)`: whether a game has it; `order`: where its plug-in runs (lower first);
    `hook_orders`: a hook for which it runs at another place."""

    module: str
    on: Callable[["GameConfig"], bool]
    order: int
    hook_orders: dict[str, int] = field(default_factory=dict)


def _option(key: str) -> Callable[["GameConfig"], bool]:
    return lambda config: bool(config.options.get(key))


_AVALON = ("avalon", "avalon-2020")

# The rule modules, and the order their plug-ins run in. Why this order:
# - the Lady's deal (after_start) comes before the Plot deck's shuffle;
# - after a mission, the Plot Cards come first: the In the Spotlight order belongs in the
#   result post, and Keeping a Close Eye on You opens right after the result (variants.md),
#   both before the Lady of the Lake is used;
# - the Mission Cards come before the Commander: a Tracker reports to its own Commander.
MODULES: tuple[Row, ...] = (
    Row("lady", lambda c: c.lady_of_the_lake, 10),
    Row("plot", lambda c: c.plot_cards and c.preset in ("resistance-plot", *_AVALON), 20,
        hook_orders={"after_mission": 5}),
    Row("mission_cards", lambda c: c.mission_cards and c.preset == "so-say-we-all", 20),
    Row("commander", lambda c: c.preset == "so-say-we-all", 30),
    Row("preload", lambda c: c.preset == "so-say-we-all", 40),
    Row("assassin", lambda c: c.preset in _AVALON, 50),
    Row("lovers", lambda c: "tristan" in c.roles and c.preset in _AVALON, 55),
    Row("excalibur", lambda c: c.preset == "avalon" and _option("excalibur")(c), 60),
)

HOOKS = ("after_mission",)  # hooks some row runs in an order of their own


def plugin_class(row: Row) -> type[RulePlugin]:
    cls = _CLASSES.get(row.module)
    if cls is None:
        cls = _CLASSES[row.module] = importlib.import_module(f"{__package__}.modules.{row.module}").PLUGIN
    return cls


_CLASSES: dict[str, type[RulePlugin]] = {}


def plugin_classes() -> list[type[RulePlugin]]:
    """Every module's plug-in class, in table order (whether a game has it or not)."""
    return [plugin_class(r) for r in MODULES]


def config_key_names() -> frozenset[str]:
    """The config keys the rule modules declare (RulePlugin.config_keys)."""
    global _KEY_NAMES
    if _KEY_NAMES is None:
        _KEY_NAMES = frozenset(k.name for cls in plugin_classes() for k in cls.config_keys)
    return _KEY_NAMES


_KEY_NAMES: frozenset[str] | None = None


class Plugins(list):
    """A game's plug-ins in the order they run (a list), and per hook of HOOKS, the order
    that hook runs them in (`for_hook`)."""

    def __init__(self, rows: list[Row], plugins: list[RulePlugin]):
        super().__init__(plugins)
        self.rows = rows
        self.hooks = {h: [p for _, p in sorted(zip(rows, plugins, strict=True),
                                                  key=lambda x: x[0].hook_orders.get(h, x[0].order))]
                      for h in HOOKS}


def for_hook(plugins: list[RulePlugin], hook: str) -> list[RulePlugin]:
    """`plugins` in the order `hook` runs them."""
    hooks = getattr(plugins, "hooks", None)
    return hooks[hook] if hooks is not None else plugins


_PLUGINS: dict[tuple, Plugins] = {}


def plugins_for(config) -> list[RulePlugin]:
    """The plug-ins of a game, in the order they run: the rows of MODULES it has. The base
    game is the core alone. The plug-ins keep nothing of a game, so games of one kind share
    one list (do not change it)."""
    global _last
    last = _last
    if last[0] is config:  # (the same game's config, command after command)
        return last[1]
    key = (config.preset, *(r.on(config) for r in MODULES))
    plugins = _PLUGINS.get(key)
    if plugins is None:
        plugins = _PLUGINS[key] = _build(config)
    _last = (config, plugins)
    return plugins


_last: tuple = (None, None)  # the config asked for last, and its plug-ins


def _build(config) -> Plugins:
    rows = sorted((r for r in MODULES if r.on(config)), key=lambda r: r.order)
    plugins = [_make(plugin_class(r), config) for r in rows]
    return Plugins(rows, plugins)


def _make(cls: type[RulePlugin], config) -> RulePlugin:
    make = getattr(cls, "for_config", None)
    return make(config) if make is not None else cls()


def module_of(config, cls: type[RulePlugin]) -> bool:
    """Whether the game of `config` has the module whose plug-in class is `cls`."""
    return any(r.on(config) for r in MODULES if plugin_class(r) is cls)
