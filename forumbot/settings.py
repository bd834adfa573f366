"""The bot's INI settings (see settings.example.ini). With none, the local forum and SQLite."""
from __future__ import annotations

import configparser
import difflib
import os
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

from adapters import ADAPTERS

from .masking import masked, masked_text, remember_secrets
from .rules.deadlines import format_duration, parse_duration

# The bounds of the [bot] numbers (a value outside is refused, naming the range).
POLL_INTERVAL = (1, 86400)  # 1s to 1d
OUTAGE_GRACE = (1, 30 * 86400)  # 1s to 30d
WRITES_PER_MINUTE = (1, 1000)
MAX_SETTINGS_BYTES = 1_000_000  # a settings file is a page of text, not a megabyte
# Keys of an adapter's section whose values are secret: never printed, never logged.
SECRET_KEYS = ("client_secret", "password", "refresh_token", "api_key")


@dataclass
class Settings:
    forum: str = "local"
    poll_interval: int = 30
    writes_per_minute: int = 60  # posts, PMs and edits a minute (Reddit allows 100 requests)
    hosts: set[str] = field(default_factory=set)
    database_url: str = "sqlite:///forumbot.db"
    local_path: str = "forumbot-local.db"
    bot_name: str = "forumbot"
    # Each forum adapter's INI section ([reddit], [discourse], ...), as written.
    sections: dict[str, dict[str, str]] = field(default_factory=dict)
    outage_grace: int = 3600  # deadlines that fell while the bot was down: restart + this
    log_level: str = "info"  # debug | info | warning | error
    log_format: str = "text"  # text | json (one object a line)
    path: str | None = None  # the file these came from (None: no settings file)

    def secrets(self) -> list[str]:
        """Every secret these settings hold: the database password, API keys, passwords."""

        out = [v for section in self.sections.values() for k, v in section.items() if k in SECRET_KEYS]
        try:
            url = urlsplit(self.database_url)
            passwords = [url.password or ""] + parse_qs(url.query).get("password", [])
        except ValueError:
            passwords = []
        return out + [p for password in passwords if password for p in (password, unquote(password))]

    def section(self, name: str | None = None) -> dict[str, str]:
        """An adapter's settings (the chosen forum's, by default)."""
        return self.sections.get(name or self.forum, {})

    @property
    def reddit(self) -> dict[str, str]:
        return self.section("reddit")

    @property
    def discourse(self) -> dict[str, str]:
        return self.section("discourse")


class SettingsError(Exception):
    pass


def load_settings(path: str | None = None) -> Settings:
    path = path or os.environ.get("FORUMBOT_SETTINGS") or "settings.ini"
    s = Settings()
    if not os.path.exists(path):
        if path != "settings.ini":
            raise SettingsError(f"settings file {path} does not exist")
        return s
    # No interpolation: a value is taken as written (a password may hold a %).
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), interpolation=None)
    try:
        size = os.path.getsize(path)
        if size > MAX_SETTINGS_BYTES:
            raise SettingsError(f"settings file {path} is {size} bytes: a settings file is at most "
                                f"{MAX_SETTINGS_BYTES} bytes (see settings.example.ini)")
        with open(path, encoding="utf-8-sig") as f:
            cp.read_file(f, source=path)
    except (OSError, UnicodeDecodeError) as e:
        raise SettingsError(f"settings file {path} cannot be read: {e}") from None
    except configparser.MissingSectionHeaderError:
        raise SettingsError(f"settings file {path} is not a valid INI file: it must start with a "
                            "section header such as [bot] (see settings.example.ini)") from None
    except configparser.ParsingError as e:  # (the line itself is not shown: it may hold a password)
        lines = ", ".join(str(n) for n, _ in e.errors[:5]) + (", ..." if len(e.errors) > 5 else "")
        raise SettingsError(f"settings file {path}, line {lines}: not a setting; write key = value under "
                            "its [section] (see settings.example.ini)") from None
    except configparser.Error as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise SettingsError(f"settings file {path} is not a valid INI file: {shown(first, 400)}") from None
    s.path = path
    _known_only(cp, path)
    for name in ADAPTERS:  # (first: no message below may show a secret)
        if name != "local" and cp.has_section(name):
            s.sections[name] = {k: v.strip() for k, v in cp[name].items() if v.strip()}
    if cp.has_section("database"):
        s.database_url = cp["database"].get("url", s.database_url).strip() or s.database_url
    remember_secrets(s.secrets())
    bot = cp["bot"] if cp.has_section("bot") else {}
    # With no `forum =`, the first forum whose section is there (local if none).
    default = next((name for name in ADAPTERS if name != "local" and cp.has_section(name)), "local")
    s.forum = bot.get("forum", default).strip() or "local"
    if s.forum not in ADAPTERS:
        raise SettingsError(f"[bot] forum = {shown(s.forum)}: must be {_either(list(ADAPTERS))}")
    adapter = ADAPTERS[s.forum]
    s.poll_interval = _duration(bot, "poll_interval", "30s", POLL_INTERVAL, "30s or 2m")
    s.outage_grace = _duration(bot, "outage_grace", "1h", OUTAGE_GRACE, "30m or 1h")
    low, high = WRITES_PER_MINUTE
    written = bot.get("writes_per_minute", "").strip() or str(adapter.writes_per_minute)
    if not (written.isascii() and written.isdigit() and len(written) <= 6 and low <= int(written) <= high):
        raise SettingsError(f"[bot] writes_per_minute = {shown(written)}: must be a whole number "
                            f"from {low} to {high}")
    s.writes_per_minute = int(written)
    # a host as an operator may write one: alice, u/alice (Reddit), @alice (Discourse)
    s.hosts = {h.strip().removeprefix("u/").removeprefix("@") for h in bot.get("hosts", "").split(",") if h.strip()}
    s.log_level = (bot.get("log_level", "") or "info").strip().lower()
    if s.log_level not in LOG_LEVELS:
        raise SettingsError(f"[bot] log_level = {shown(s.log_level)}: must be one of {', '.join(LOG_LEVELS)}")
    s.log_format = (bot.get("log_format", "") or "text").strip().lower()
    if s.log_format not in ("text", "json"):
        raise SettingsError(f"[bot] log_format = {shown(s.log_format)}: must be text or json")
    check_database_url(s.database_url)
    if cp.has_section("local"):
        s.local_path = cp["local"].get("path", s.local_path)
        s.bot_name = cp["local"].get("bot_name", s.bot_name)
    if adapter.bot_name_key:
        s.bot_name = s.section().get(adapter.bot_name_key, s.bot_name)
    return s


def _known_only(cp: configparser.ConfigParser, path: str) -> None:
    """SettingsError naming each section or key the bot does not know, and the nearest one it
    does (a misspelt setting would otherwise be left at its default in silence)."""
    known = dict(KNOWN_KEYS)
    known.update({name: a.keys() for name, a in ADAPTERS.items() if name != "local"})
    wrong = [f"[DEFAULT] {k}: the settings have no [DEFAULT] section; write it under its own section"
             for k in cp.defaults()]
    for name in cp.sections():
        if name not in known:
            near = difflib.get_close_matches(name.lower(), list(known), n=1, cutoff=0.6)
            wrong.append(f"[{shown(name, 40)}] is not a section" + (f" (did you mean [{near[0]}]?)" if near else
                         f" (the sections are {', '.join(f'[{k}]' for k in known)})"))
            continue
        for key in cp[name]:
            if key in known[name] or key in cp.defaults():
                continue
            near = difflib.get_close_matches(key, list(known[name]), n=1, cutoff=0.6)
            wrong.append(f"[{name}] {shown(key, 40)} is not a setting" + (f" (did you mean {near[0]}?)" if near else
                         f" ([{name}] takes {', '.join(known[name])})"))
    if wrong:
        told = [wrong[0]]  # (at most five, and a message of one readable line, about 600 characters)
        for w in wrong[1:5]:
            if len("; ".join(told)) + len(w) > 400:
                break
            told.append(w)
        more = len(wrong) - len(told)
        raise SettingsError(f"settings file {shown(path, 120)}: {'; '.join(told)}"
                            f"{f' (and {more} more)' if more else ''}. "
                            "settings.example.ini lists every setting")


def shown(value: str, limit: int = 60) -> str:
    """A value as a message may show it: one line, at most `limit` characters, no credential."""
    text = " ".join(masked_text(str(value)).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _duration(bot, key: str, default: str, bounds: tuple[int, int], like: str) -> int:
    """A [bot] duration within its bounds (empty: the default)."""

    low, high = bounds
    written = bot.get(key, "").strip() or default
    why = f"must be a duration from {format_duration(low)} to {format_duration(high)}, like {like}"
    if written.strip("0").lower() in ("s", "m", "h", "d", ""):  # 0, 0s, 00m: nothing
        raise SettingsError(f"[bot] {key} = {shown(written)}: must be more than 0 ({why})")
    try:
        seconds = parse_duration(written) if len(written) <= 20 else None
    except ValueError:
        seconds = None
    if seconds is None or not low <= seconds <= high:
        raise SettingsError(f"[bot] {key} = {shown(written)}: {why}")
    return seconds


def _either(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


LOG_LEVELS = ("debug", "info", "warning", "error")
KNOWN_KEYS = {"bot": ("forum", "poll_interval", "writes_per_minute", "outage_grace", "hosts", "log_level",
                      "log_format"),
              "database": ("url",), "local": ("path", "bot_name")}
DATABASE_SCHEMES = ("sqlite", "sqlite+pool", "postgresql", "postgres", "postgresql+pool",
                    "postgres+pool", "postgresext", "postgresqlext", "postgresext+pool",
                    "postgresqlext+pool", "psycopg3", "psycopg3+pool")


def check_database_url(url: str) -> None:
    """A URL the store can open: SQLite or PostgreSQL, in peewee's db_url form."""

    scheme, sep, rest = url.partition("://")
    example = "sqlite:///forumbot.db or postgresql://user:password@host/dbname"
    if not sep or not scheme:
        raise SettingsError(f"[database] url = {shown(masked(url), 200)}: not a database URL; write {example}")
    if any(c.isspace() or not c.isprintable() for c in url):
        raise SettingsError(f"[database] url = {shown(masked(url), 200)}: a URL holds no spaces or control "
                            f"characters (in a password, write a space as %20); write {example}")
    if scheme.lower() not in DATABASE_SCHEMES:
        raise SettingsError(f"[database] url = {shown(masked(url), 200)}: {shown(scheme, 30)} databases are not "
                            f"supported; use SQLite or PostgreSQL: {example}")
    try:
        port = urlsplit(url).port
    except ValueError:
        port = -1
    if port is not None and not 0 < port < 65536:
        raise SettingsError(f"[database] url = {shown(masked(url), 200)}: the port (after the host and a colon) "
                            "must be a number from 1 to 65535; a password that holds / # ? or @ is "
                            "written %-encoded (/ as %2F)")
    if scheme.lower().startswith("sqlite") and not rest.startswith("/"):
        raise SettingsError(f"[database] url = {shown(masked(url), 200)}: an SQLite URL has three slashes before a "
                            "relative path (sqlite:///forumbot.db) and four before an absolute "
                            "one (sqlite:////var/lib/forumbot/forumbot.db)")


def forum_problems(s: Settings) -> list[str]:
    """The settings the forum still needs (an unfilled settings.example.ini lists them all)."""
    return ADAPTERS[s.forum].missing(s.section())


def require_forum(s: Settings) -> None:
    """SettingsError, in one line, if the forum's settings are not filled in."""
    missing = forum_problems(s)
    if missing:
        adapter = ADAPTERS[s.forum]
        where = s.path or "the settings file"
        raise SettingsError(
            f"{where}: fill in [{s.forum}] {', '.join(missing)} (docs/operating.md, \"{adapter.guide}\"), "
            f"or set [bot] forum = local to try the bot without a {s.forum.capitalize()} account")


def make_forum(s: Settings, clock=None):
    """The forum adapter the settings name, built from its section."""
    require_forum(s)
    adapter = ADAPTERS[s.forum]
    section, kw = s.section(), {}
    if s.forum == "local":  # (its settings are the bot's own: [local] path and bot_name)
        section, kw = {"path": s.local_path, "bot_name": s.bot_name}, {"clock": clock} if clock else {}
    try:
        return adapter.load().from_settings(section, **kw)
    except SettingsError:
        raise
    except Exception as e:  # the adapter's (or its client library's) checks of its settings
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise SettingsError(f"[{s.forum}] {shown(masked_text(first, s.secrets()), 300)}") from None
