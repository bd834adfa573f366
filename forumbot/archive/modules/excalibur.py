"""Excalibur on the archive page: who held it on each mission, and whom it was used on. The
words are the render module's (render/modules/excalibur.py), next to the thread's."""
from __future__ import annotations

from ...render.modules.excalibur import archive_passed, archive_used
from ...rules.modules.excalibur import ExcaliburPassed, ExcaliburUsed
from ..registry import moment

moment(ExcaliburUsed)(archive_used)
moment(ExcaliburPassed)(archive_passed)
