"""What the command line says of a problem, in one line: an error (no credentials in it), a
file that cannot be read, a database that cannot be opened where the settings put it."""
from __future__ import annotations

import os
import re
import sys

from ..masking import masked, masked_text


def one_line(e: BaseException, limit: int = 500) -> str:
    """An error's text in one line, without credentials (a driver may quote the URL)."""
    text = masked_text(re.sub(r"\s+", " ", str(e)).strip())
    text = text if len(text) <= limit else text[:limit - 1] + "…"
    return text or type(e).__name__


def read_text(path: str, who: str) -> str | None:
    """A UTF-8 text file's text; None after saying in one line why it cannot be read."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            return f.read()
    except OSError as e:
        print(f"{who}: {path}: {e.strerror or one_line(e)}", file=sys.stderr)
    except UnicodeDecodeError:
        print(f"{who}: {path} is not UTF-8 text", file=sys.stderr)
    return None


def short_error(text: str) -> str:
    """An HTTP library's long "Max retries exceeded ... [Errno 111] Connection refused" as
    "cannot connect to host:port (Connection refused)"."""
    m = re.search(r"host='([^']+)', port=(\d+)\).*?\[Errno -?\d+\] ([^'\")\]]+)", text)
    if not m:
        return text
    head = text[:text.index("error with request")] if "error with request" in text else ""
    return f"{head}cannot connect to {m.group(1)}:{m.group(2)} ({m.group(3).strip()})"


def database_problem(url: str, must_exist: bool = False) -> str | None:
    """What is wrong with an SQLite database's place, before anything is made there."""
    from ..botlock import sqlite_path  # (the database libraries load only for a command that opens one)

    if not url.lower().startswith("sqlite"):
        return None
    shown = masked(url)
    try:
        path = sqlite_path(url)
    except Exception as e:
        return f"[database] url = {shown}: {one_line(e)}"
    if path is None:
        return None
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        return (f"the folder {folder} does not exist ([database] url = {shown}); create it, "
                "or change the url")
    if must_exist and not os.path.exists(path):
        return (f"there is no database at {path}: the bot has not run here yet (run it in the "
                "folder where it keeps forumbot.db, or name its settings with --settings)")
    return None
