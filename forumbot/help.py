"""HELP: its words live in render/help.py, per markup; importable from here as before."""
from __future__ import annotations

from .render.help import GENERAL, help_for

__all__ = ["GENERAL", "help_for"]
