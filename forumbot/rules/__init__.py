"""The game as pure code."""
from . import folds, replace  # noqa: F401  (they register how the core's events fold)
from .commands import Command, Expire, MissionOrder, Propose, Refusal, TeamVote
from .config import GameConfig
from .engine import advance, apply, replay, start, started
from .events import Event
from .hooks import make_config
from .modules import assassin, commander, lady, mission_cards, plot, preload  # noqa: F401  (their folds)
from .state import GameState, fold

__all__ = [
    "Command", "Expire", "MissionOrder", "Propose", "Refusal", "TeamVote", "GameConfig",
    "make_config", "apply", "advance", "replay", "start", "started", "Event", "GameState", "fold",
]
