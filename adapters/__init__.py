"""Forum adapters: one module per forum, each behind the `Forum` protocol in base.py.

`ADAPTERS` is the registry the settings find a forum in: `[bot] forum = <name>` takes the
adapter of that name, its settings come from the INI section of the same name, and its
class builds itself from that section (`from_settings`). A new forum is one module and
one row here; nothing in forumbot/ names a forum.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable


@dataclass(frozen=True)
class Adapter:
    name: str  # `[bot] forum = name`, and its INI section
    target: str  # "module:Class"; the class has from_settings(section, bot_name, clock)
    # The settings it cannot work without, and where an operator finds each.
    needs: dict[str, str] = field(default_factory=dict)
    one_of: tuple[tuple[str, ...], ...] = ()  # of each group, at least one must be set
    guide: str = ""  # the section of docs/operating.md that explains these settings
    bot_name_key: str | None = None  # the setting that names the bot's account
    writes_per_minute: int = 60  # the default of `[bot] writes_per_minute` for this forum
    checks: str = ""  # "module:function": doctor's checks, (forum, section, places) -> (status, name, detail)
    optional: tuple[str, ...] = ()  # the other keys its section may hold (any other is a typo)

    def load(self) -> Any:
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def missing(self, section: dict[str, str]) -> list[str]:
        """The needed settings not filled in, as an operator should be told them."""
        out = [k for k in self.needs if not section.get(k)]
        for group in self.one_of:
            if not any(section.get(k) for k in group):
                out.append(f"{group[0]} (or {' or '.join(group[1:])})")
        return out

    def keys(self) -> tuple[str, ...]:
        """Every key its INI section may hold."""
        return (*self.needs, *(k for group in self.one_of for k in group), *self.optional)

    def doctor(self) -> Callable[..., Iterable[tuple[str, str, str]]] | None:
        if not self.checks:
            return None
        module, _, name = self.checks.partition(":")
        return getattr(importlib.import_module(module), name)


ADAPTERS: dict[str, Adapter] = {a.name: a for a in (
    Adapter("local", "adapters.local:LocalForum", checks="adapters.local:local_checks"),
    Adapter("reddit", "adapters.reddit:RedditForum",
            needs={"client_id": "the id under the app's name at https://www.reddit.com/prefs/apps",
                   "client_secret": "the app's secret",
                   "username": "the bot's Reddit account"},
            one_of=(("password", "refresh_token"),), guide="Deploying on a server",
            bot_name_key="username", checks="adapters.reddit_checks:doctor_checks",
            optional=("user_agent", "subreddit", "oauth_url", "reddit_url")),
    Adapter("discourse", "adapters.discourse:DiscourseForum",
            needs={"url": "the forum's address, like https://forum.example.org",
                   "api_key": "a key for the bot's user (Admin > Advanced > API Keys)",
                   "api_username": "the bot's username"},
            guide="Hosting on Discourse", bot_name_key="api_username",
            # Discourse allows 60 requests a minute for all of a site's admin keys, reads included
            writes_per_minute=40, checks="adapters:discourse_doctor",
            optional=("category", "max_post_length")),
    Adapter("xenforo", "adapters.xenforo:XenForoForum",
            needs={"url": "the forum's address, like https://forum.example.org (the API is under /api/)",
                   "api_key": "a key for the bot's account (Setup > API keys, a super administrator's)",
                   "api_user": "the bot's username"},
            guide="Hosting on XenForo", bot_name_key="api_user",
            # the flood check, not a request budget, limits a bot without its bypass
            writes_per_minute=60, checks="adapters:xenforo_doctor",
            optional=("node", "user_id")),
)}


def discourse_doctor(forum, section: dict[str, str], game_threads: list[str]):
    """`forumbot doctor` on Discourse: the key, the bot's user, the category, the site settings."""
    from .discourse_checks import discourse_checks  # (requests loads only for a doctor of Discourse)

    categories = [x for x in [section.get("category")] if x]
    yield from discourse_checks(forum, categories, username=section.get("api_username"))


def xenforo_doctor(forum, section: dict[str, str], game_threads: list[str]):
    """`forumbot doctor` on XenForo: the key, the bot's account, the scopes, the game forum."""
    from .xenforo_checks import xenforo_checks  # (requests loads only for a doctor of XenForo)

    nodes = [x for x in [section.get("node")] if x]
    yield from xenforo_checks(forum, nodes, username=section.get("api_user"))
