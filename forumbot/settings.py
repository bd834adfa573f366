"""The bot's INI settings (see settings.example.ini). With none, the local forum and SQLite."""
from __future__ import annotations

import configparser
import os
from dataclasses import dataclass, field

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
    reddit: dict[str, str] = field(default_factory=dict)
    discourse: dict[str, str] = field(default_factory=dict)
    outage_grace: int = 3600  # deadlines that fell while the bot was down: restart + this
    log_level: str = "info"  # debug | info | warning | error
    log_format: str = "text"  # text | json (one object a line)
    path: str | None = None  # the file these came from (None: no settings file)


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
    default = "reddit" if cp.has_section("reddit") else "discourse" if cp.has_section("discourse") else "local"
    s.forum = bot.get("forum", default).strip() or "local"
    if s.forum not in ("reddit", "discourse", "local"):
        raise SettingsError(f"[bot] forum = {s.forum}: must be reddit, discourse or local")
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
        # Discourse allows 60 requests a minute for all of a site's admin keys, reads included
        s.writes_per_minute = int(bot.get("writes_per_minute", "40" if s.forum == "discourse" else "60"))
        if s.writes_per_minute < 1:
            raise ValueError
    except ValueError:
        raise SettingsError("[bot] writes_per_minute: must be a whole number of at least 1") from None
    s.hosts = {h.strip().removeprefix("u/") for h in bot.get("hosts", "").split(",") if h.strip()}
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
    if cp.has_section("reddit"):
        s.reddit = {k: v.strip() for k, v in cp["reddit"].items() if v.strip()}
        if s.forum == "reddit":
            s.bot_name = s.reddit.get("username", s.bot_name)
    if cp.has_section("discourse"):
        s.discourse = {k: v.strip() for k, v in cp["discourse"].items() if v.strip()}
        if s.forum == "discourse":
            s.bot_name = s.discourse.get("api_username", s.bot_name)
    return s


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


# What a Reddit bot needs, and where it comes from (README, "Deploying on a server").
REDDIT_NEEDS = {
    "client_id": "the id under the app's name at https://www.reddit.com/prefs/apps",
    "client_secret": "the app's secret",
    "username": "the bot's Reddit account",
}


# What a Discourse bot needs (README, "Hosting on Discourse").
DISCOURSE_NEEDS = {
    "url": "the forum's address, like https://forum.example.org",
    "api_key": "a key for the bot's user (Admin > Advanced > API Keys)",
    "api_username": "the bot's username",
}


def forum_problems(s: Settings) -> list[str]:
    """The settings the forum still needs (an unfilled settings.example.ini lists them all)."""
    if s.forum == "discourse":
        return [k for k in DISCOURSE_NEEDS if not s.discourse.get(k)]
    if s.forum != "reddit":
        return []
    missing = [k for k in REDDIT_NEEDS if not s.reddit.get(k)]
    if not (s.reddit.get("password") or s.reddit.get("refresh_token")):
        missing.append("password (or refresh_token)")
    return missing


def require_forum(s: Settings) -> None:
    """SettingsError, in one line, if the forum's settings are not filled in."""
    missing = forum_problems(s)
    if missing and s.forum == "discourse":
        where = s.path or "the settings file"
        raise SettingsError(
            f"{where}: fill in [discourse] {', '.join(missing)} (README, \"Hosting on Discourse\"), "
            "or set [bot] forum = local to try the bot without a forum account")
    if missing:
        where = s.path or "the settings file"
        raise SettingsError(
            f"{where}: fill in [reddit] {', '.join(missing)} (README, \"Deploying on a server\"), "
            "or set [bot] forum = local to try the bot without a Reddit account")


def make_forum(s: Settings, clock=None):
    if s.forum == "discourse":
        require_forum(s)
        from adapters.discourse import DiscourseForum

        try:
            return DiscourseForum.from_settings(s.discourse)
        except ValueError as e:
            raise SettingsError(f"[discourse] {e}") from None
    if s.forum == "reddit":
        require_forum(s)
        from adapters.reddit import RedditForum

        try:
            return RedditForum.from_settings(s.reddit)
        except Exception as e:  # praw's own checks of its configuration
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise SettingsError(f"[reddit]: {first}") from None
    from adapters.local import LocalForum

    kw = {"clock": clock} if clock else {}
    return LocalForum(s.local_path, bot_name=s.bot_name, **kw)
