"""The bot's log on stderr: `[bot] log_level` and `log_format` (text, or one JSON object a
line). Every line is masked: no password of a URL, no secret of the settings."""
from __future__ import annotations

import json
import logging
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Iterator

from .masking import MaskingFilter


class _Stderr(logging.StreamHandler):
    """A handler that writes to whatever sys.stderr is now."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC), level, logger, message (and error, a traceback)."""

    def format(self, record: logging.LogRecord) -> str:

        out = {"time": datetime.fromtimestamp(record.created, timezone.utc)
               .isoformat(timespec="milliseconds").replace("+00:00", "Z"),
               "level": record.levelname.lower(), "logger": record.name,
               "message": record.getMessage()}
        if record.exc_text:  # (the traceback as MaskingFilter left it)
            out["error"] = record.exc_text
        elif record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


# The HTTP libraries' own warnings about a request they try again ("Retrying due to
# ConnectionError(MaxRetryError(...", a paragraph each): what finally failed reaches the log
# once, in the bot's own one-line error that names the host (adapters/reddit_errors.py).
_RETRIES = ("prawcore", "urllib3", "requests")


def _routine(record: logging.LogRecord) -> bool:
    """APScheduler's routine INFO lines (a job added, run, done) and the HTTP libraries'
    warnings about a retry count as DEBUG."""
    name = record.name.partition(".")[0]
    if ((name == "apscheduler" and record.levelno == logging.INFO)
            or (name in _RETRIES and record.levelno == logging.WARNING)):
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger().isEnabledFor(logging.DEBUG)
    return True


def configure_logging(level: str = "info", fmt: str = "text") -> None:
    """The bot's log on stderr: [bot] log_level and log_format."""
    root = logging.getLogger()
    for h in [h for h in root.handlers if getattr(h, "_forumbot", False)]:
        root.removeHandler(h)
    handler: Any = _Stderr()
    handler._forumbot = True
    handler.addFilter(_routine)
    handler.addFilter(MaskingFilter())  # no password or API key in any line, whoever logs it
    handler.setFormatter(JsonFormatter() if fmt == "json" else
                         logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper(), logging.INFO))




class HeldBack(logging.Filter):
    """While a `run --once` cycle runs, the bot's own ERROR lines wait: the command's verdict
    names the failure that stopped the cycle in one line, so the log line that says the same
    is dropped (`drop`), and the others are written after the cycle, in their order, with
    their own times (`release`)."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list[logging.LogRecord] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and record.name.partition(".")[0] == "forumbot":
            self.held.append(record)
            return False
        return True

    def drop(self, failure: str) -> None:
        """Forget the held lines that tell `failure` (the verdict says it)."""
        if failure:
            self.held = [r for r in self.held if failure not in r.getMessage()]


@contextmanager
def held_back() -> Iterator[HeldBack]:
    """The bot's ERROR lines are held while the block runs (HeldBack), then written."""
    hold = HeldBack()
    handlers = [h for h in logging.getLogger().handlers if getattr(h, "_forumbot", False)]
    for h in handlers:
        h.addFilter(hold)
    try:
        yield hold
    finally:
        for h in handlers:
            h.removeFilter(hold)
        for record in hold.held:
            for h in handlers:
                h.handle(record)
