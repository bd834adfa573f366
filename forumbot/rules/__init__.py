"""The game as pure code."""
from .commands import Command, Expire, MissionOrder, Propose, Refusal, TeamVote
from .config import GameConfig, make_config
from .engine import apply, replay, start
from .events import Event
from .state import GameState, fold
from . import assassin, commander, lady, mission_cards, plot, preload, replace  # noqa: F401  (registers how their events fold)

__all__ = [
    "Command", "Expire", "MissionOrder", "Propose", "Refusal", "TeamVote", "GameConfig",
    "make_config", "apply", "replay", "start", "Event", "GameState", "fold",
]
