"""The game as pure code."""
from . import replace  # noqa: F401  (registers how its events fold)
from .commands import Command, Expire, MissionOrder, Propose, Refusal, TeamVote
from .config import GameConfig, make_config
from .engine import advance, apply, replay, start, started
from .events import Event
from .modules import assassin, commander, lady, mission_cards, plot, preload  # noqa: F401  (their folds)
from .state import GameState, fold

__all__ = [
    "Command", "Expire", "MissionOrder", "Propose", "Refusal", "TeamVote", "GameConfig",
    "make_config", "apply", "advance", "replay", "start", "started", "Event", "GameState", "fold",
]
