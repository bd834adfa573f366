"""forumbot: a game master for play-by-post The Resistance and Avalon."""
__version__ = "0.1.0"
