"""How often cron or a systemd timer runs `forumbot run --once`, for `forumbot doctor`.

A bot run from cron must set `[bot] poll_interval` to the cron's cadence: the bot takes a
pause of ten poll intervals (at least 10 minutes) for an outage and moves the deadlines that
fell in it, so a 15-minute cron with the default 30s would see an outage after every pause. doctor looks where
docs/operating.md ("Running from cron or a timer") tells operators to install one: the
system's crontab and /etc/cron.d, the user's crontab (`crontab -l`), and the systemd timers
in /etc/systemd/system and ~/.config/systemd/user. It only reads them."""
from __future__ import annotations

import configparser
import glob
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass

ROOT = "/"  # where the system's files are looked for (a test's folder, in the tests)
SPECIAL = {"@hourly": 3600, "@daily": 86400, "@midnight": 86400, "@weekly": 7 * 86400}
UNITS = {"us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1, "sec": 1, "second": 1,
         "seconds": 1, "m": 60, "min": 60, "minute": 60, "minutes": 60, "h": 3600, "hr": 3600,
         "hour": 3600, "hours": 3600, "d": 86400, "day": 86400, "days": 86400,
         "w": 7 * 86400, "week": 7 * 86400, "weeks": 7 * 86400}
CALENDAR = {"minutely": 60, "hourly": 3600, "daily": 86400, "weekly": 7 * 86400}


@dataclass(frozen=True)
class Schedule:
    where: str  # the file (or "your crontab") and what in it runs the bot
    seconds: int  # how often


def runs_the_bot(command: str) -> bool:
    words = command.replace("=", " ").split()
    return any(os.path.basename(w) == "forumbot" or w == "forumbot" for w in words) and \
        "run" in words and "--once" in words


def settings_named(command: str) -> str | None:
    """The settings file a command line names (`--settings FILE`, FORUMBOT_SETTINGS=FILE)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for i, w in enumerate(words):
        if w == "--settings" and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--settings="):
            return w.partition("=")[2]
        if w.startswith("FORUMBOT_SETTINGS="):
            return w.partition("=")[2]
    return None


def _gap(values: list[int], span: int) -> int:
    """The longest wait between the times in a cycle of `span` (cron's minutes or hours)."""
    values = sorted(set(values))
    return max([b - a for a, b in zip(values, values[1:])] + [values[0] + span - values[-1]])


def _field(text: str, span: int) -> list[int] | None:
    """A cron field's values within 0..span-1 (None: not one this reads)."""
    if text == "*":
        return list(range(span))
    if m := re.fullmatch(rf"(\*|0-{span - 1})/(\d+)", text):
        step = int(m.group(2))
        return list(range(0, span, step)) if 0 < step < span else None
    if re.fullmatch(r"\d+(,\d+)*", text):
        values = [int(x) for x in text.split(",")]
        return values if all(v < span for v in values) else None
    return None


def cron_seconds(fields: list[str]) -> int | None:
    """How often a cron line's five time fields (or an @-word) run it, or None."""
    if fields[0].startswith("@"):
        return SPECIAL.get(fields[0])
    minute, hour, day, month, weekday = fields[:5]
    if (day, month, weekday) != ("*", "*", "*"):
        return None
    minutes, hours = _field(minute, 60), _field(hour, 24)
    if minutes is None or hours is None:
        return None
    if hour == "*":
        return _gap(minutes, 60) * 60
    if len(minutes) == 1:
        return _gap(hours, 24) * 3600
    return None


def crontab_schedules(text: str, where: str, system: bool, settings: str | None) -> list[Schedule]:
    """The lines of a crontab that run `forumbot run --once` for these settings, and how often.
    A system crontab has a user before the command."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or re.match(r"[A-Za-z_][A-Za-z0-9_]*\s*=", line):
            continue
        words = line.split()
        n = 1 if words[0].startswith("@") else 5
        command = " ".join(words[n + (1 if system else 0):])
        if not runs_the_bot(command) or not _same_settings(settings_named(command), settings):
            continue
        seconds = cron_seconds(words[:n])
        if seconds:
            out.append(Schedule(f"{where}: {shorter(line)}", seconds))
    return out


def span_seconds(text: str) -> int | None:
    """A systemd time span (`5min`, `1h 30min`, `300`) in seconds."""
    total = 0.0
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*([a-z]*)", text.strip().lower())
    if not parts or re.sub(r"[\d.\sa-z]", "", text.lower()):
        return None
    for number, unit in parts:
        if unit and unit not in UNITS:
            return None
        total += float(number) * UNITS[unit or "s"]
    return int(total) or None


def calendar_seconds(text: str) -> int | None:
    """How often an OnCalendar= expression of the usual kinds fires (`*:0/5`, `hourly`)."""
    text = text.strip().lower()
    if text in CALENDAR:
        return CALENDAR[text]
    words = text.split()
    if len(words) > 2 or (len(words) == 2 and words[0] != "*-*-*"):  # (every day, or not read)
        return None
    parts = words[-1].split(":") if words else []
    if len(parts) not in (2, 3) or parts[0] != "*":
        return None
    minute, second = parts[1], (parts[2] if len(parts) == 3 else "00")
    if minute == "*" and (every := re.fullmatch(r"0?0/(\d+)", second)):
        return int(every.group(1))
    if second not in ("0", "00"):
        return None
    if minute == "*":
        return 60
    if every := re.fullmatch(r"0?0/(\d+)", minute):
        return int(every.group(1)) * 60
    return 3600 if re.fullmatch(r"\d+", minute) else None


def timer_schedules(timer_path: str, settings: str | None) -> list[Schedule]:
    """A systemd timer whose service runs `forumbot run --once`, and how often."""
    timer = _unit(timer_path)
    if timer is None or not timer.has_section("Timer"):
        return []
    service_name = timer["Timer"].get("Unit") or os.path.basename(timer_path)[:-len(".timer")] + ".service"
    service = _unit(os.path.join(os.path.dirname(timer_path), service_name))
    if service is None or not service.has_section("Service"):
        return []
    command = service["Service"].get("ExecStart", "")
    named = settings_named(command) or next(
        (e.partition("=")[2] for e in shlex.split(service["Service"].get("Environment", ""))
         if e.startswith("FORUMBOT_SETTINGS=")), None)
    if not runs_the_bot(command) or not _same_settings(named, settings):
        return []
    for key, read in (("OnUnitActiveSec", span_seconds), ("OnUnitInactiveSec", span_seconds),
                      ("OnCalendar", calendar_seconds)):
        value = timer["Timer"].get(key)
        seconds = read(value) if value else None
        if seconds:
            return [Schedule(f"{timer_path}: {key}={value}", seconds)]
    return []


def _unit(path: str) -> configparser.ConfigParser | None:
    cp = configparser.ConfigParser(strict=False, interpolation=None)
    cp.optionxform = str  # type: ignore[assignment,method-assign]  # (systemd's keys keep their case)
    try:
        with open(path, encoding="utf-8") as f:
            cp.read_file(f)
    except (OSError, UnicodeDecodeError, configparser.Error):
        return None
    return cp


def _same_settings(named: str | None, settings: str | None) -> bool:
    """A line that names no settings file may be this bot's; one that names another is not."""
    if named is None or settings is None:
        return True
    return os.path.realpath(named) == os.path.realpath(settings)


def shorter(line: str, limit: int = 100) -> str:
    return line if len(line) <= limit else line[:limit - 3] + "..."


def user_crontab() -> str:
    """`crontab -l` (empty without cron, or without a crontab)."""
    if shutil.which("crontab") is None:
        return ""
    try:
        done = subprocess.run(["crontab", "-l"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout if done.returncode == 0 else ""


def installed(settings: str | None) -> list[Schedule]:
    """Every cron line and systemd timer found that runs `forumbot run --once` for these
    settings."""
    found: list[Schedule] = []
    system = [os.path.join(ROOT, "etc/crontab"), *sorted(glob.glob(os.path.join(ROOT, "etc/cron.d/*")))]
    for path in system:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                found += crontab_schedules(f.read(), path, system=True, settings=settings)
        except OSError:
            continue
    found += crontab_schedules(user_crontab(), "your crontab", system=False, settings=settings)
    folders = [os.path.join(ROOT, "etc/systemd/system"),
               os.path.join(os.path.expanduser("~") if ROOT == "/" else ROOT, ".config/systemd/user")]
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(folder, "*.timer"))):
            found += timer_schedules(path, settings)
    return found


def written(path: str | None, key: str = "poll_interval") -> bool:
    """Whether the settings file sets [bot] `key` (doctor has read it already: it is valid)."""
    if not path:
        return False
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), interpolation=None)
    try:
        with open(path, encoding="utf-8-sig") as f:
            cp.read_file(f)
    except (OSError, UnicodeDecodeError, configparser.Error):
        return False
    return cp.has_section("bot") and bool(cp["bot"].get(key, "").strip())
