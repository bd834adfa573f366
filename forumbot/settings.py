"""The bot's INI settings (see settings.example.ini). With none, the local forum and SQLite."""
from __future__ import annotations

import configparser
import os
from dataclasses import dataclass, field

from adapters import ADAPTERS

from .deadlines import parse_duration


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
        with open(path, encoding="utf-8-sig") as f:
            cp.read_file(f, source=path)
    except (OSError, UnicodeDecodeError) as e:
        raise SettingsError(f"settings file {path} cannot be read: {e}") from None
    except configparser.MissingSectionHeaderError:
        raise SettingsError(f"settings file {path} is not a valid INI file: it must start with a "
                            "section header such as [bot] (see settings.example.ini)") from None
    except configparser.Error as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise SettingsError(f"settings file {path} is not a valid INI file: {first}") from None
    s.path = path
    bot = cp["bot"] if cp.has_section("bot") else {}
    # With no `forum =`, the first forum whose section is there (local if none).
    default = next((name for name in ADAPTERS if name != "local" and cp.has_section(name)), "local")
    s.forum = bot.get("forum", default).strip() or "local"
    if s.forum not in ADAPTERS:
        raise SettingsError(f"[bot] forum = {s.forum}: must be {_either(list(ADAPTERS))}")
    adapter = ADAPTERS[s.forum]
    try:
        s.poll_interval = parse_duration(bot.get("poll_interval", "30s")) or 30
    except ValueError as e:
        raise SettingsError(f"[bot] poll_interval: {e}") from None
    try:
        grace = parse_duration(bot.get("outage_grace", "").strip() or "1h")
    except ValueError as e:
        raise SettingsError(f"[bot] outage_grace: {e}") from None
    if grace is None:
        raise SettingsError("[bot] outage_grace: must be a duration like 30m or 1h, not none")
    s.outage_grace = grace
    try:
        s.writes_per_minute = int(bot.get("writes_per_minute", str(adapter.writes_per_minute)))
        if s.writes_per_minute < 1:
            raise ValueError
    except ValueError:
        raise SettingsError("[bot] writes_per_minute: must be a whole number of at least 1") from None
    # a host as an operator may write one: alice, u/alice (Reddit), @alice (Discourse)
    s.hosts = {h.strip().removeprefix("u/").removeprefix("@") for h in bot.get("hosts", "").split(",") if h.strip()}
    s.log_level = (bot.get("log_level", "") or "info").strip().lower()
    if s.log_level not in LOG_LEVELS:
        raise SettingsError(f"[bot] log_level = {s.log_level}: must be one of {', '.join(LOG_LEVELS)}")
    s.log_format = (bot.get("log_format", "") or "text").strip().lower()
    if s.log_format not in ("text", "json"):
        raise SettingsError(f"[bot] log_format = {s.log_format}: must be text or json")
    if cp.has_section("database"):
        s.database_url = cp["database"].get("url", s.database_url).strip() or s.database_url
        check_database_url(s.database_url)
    if cp.has_section("local"):
        s.local_path = cp["local"].get("path", s.local_path)
        s.bot_name = cp["local"].get("bot_name", s.bot_name)
    for name in ADAPTERS:
        if name != "local" and cp.has_section(name):
            s.sections[name] = {k: v.strip() for k, v in cp[name].items() if v.strip()}
    if adapter.bot_name_key:
        s.bot_name = s.section().get(adapter.bot_name_key, s.bot_name)
    return s


def _either(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


LOG_LEVELS = ("debug", "info", "warning", "error")
DATABASE_SCHEMES = ("sqlite", "sqlite+pool", "postgresql", "postgres", "postgresql+pool",
                    "postgres+pool", "postgresext", "postgresqlext", "postgresext+pool",
                    "postgresqlext+pool", "psycopg3", "psycopg3+pool")


def check_database_url(url: str) -> None:
    """A URL the store can open: SQLite or PostgreSQL, in peewee's db_url form."""
    scheme, sep, rest = url.partition("://")
    example = "sqlite:///forumbot.db or postgresql://user:password@host/dbname"
    if not sep or not scheme:
        raise SettingsError(f"[database] url = {url}: not a database URL; write {example}")
    if scheme.lower() not in DATABASE_SCHEMES:
        raise SettingsError(f"[database] url = {url}: {scheme} databases are not supported; "
                            f"use SQLite or PostgreSQL: {example}")
    if scheme.lower().startswith("sqlite") and not rest.startswith("/"):
        raise SettingsError(f"[database] url = {url}: an SQLite URL has three slashes before a "
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
            f"{where}: fill in [{s.forum}] {', '.join(missing)} (README, \"{adapter.guide}\"), "
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
        raise SettingsError(f"[{s.forum}] {first}") from None
