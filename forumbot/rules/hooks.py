"""The table of rule modules: which a game has, and the order the engine calls their plug-ins
in at each of the named points (`plugin.RulePlugin`); and what the bot reads of the modules'
declarations together (their config keys, their phases' words).

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
from dataclasses import dataclass, field
from typing import Callable

from .config import GameConfig, default_deadlines, default_missed
from .plugin import RulePlugin
from .presets import PRESETS
from .state import PHASE_WORDS


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


def make_config(preset: str, players: list[str] | tuple[str, ...], host: str = "host", **kw) -> GameConfig:
    """A config with the preset's defaults; for code and tests (hosts use YAML). A rule
    module's key (`excalibur=True`) goes into `options`."""
    p = PRESETS[preset]
    keys = config_key_names()
    if "options" in kw or not keys.isdisjoint(kw):
        options = dict(kw.pop("options", {}))
        options.update({k: kw.pop(k) for k in list(kw) if k in keys})
        kw["options"] = options
    kw.setdefault("deadlines", default_deadlines(p))
    kw.setdefault("missed", default_missed(p))
    kw.setdefault("team_votes", p.team_votes)
    return GameConfig(preset=preset, players=tuple(players), host=host, **kw)


def phase_words(phase: str) -> str:
    """A phase in words, with its article: "the hand-out of the Plot Cards" (the core's
    phases: state.PHASE_WORDS; a module's: RulePlugin.phase_words)."""
    words = PHASE_WORDS.get(phase)
    if words is None:
        words = next((c.phase_words[phase] for c in plugin_classes() if phase in c.phase_words),
                     "the " + phase.replace("_", " "))
    return words


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
