"""Tristan and Isolde on the archive page: the Assassin's double shot, under the spies at the
reveal. The words are the render module's (render/modules/lovers.py), next to the thread's."""
from __future__ import annotations

from ...render.modules.lovers import archive_shot
from ..registry import reveal_note

reveal_note(archive_shot)
