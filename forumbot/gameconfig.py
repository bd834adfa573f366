"""The host's `new game` message (YAML) -> a GameConfig, or every problem at once, by key."""
from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from . import config_yaml
from .config_sections import (
    _host_options,
    _module_keys,
    _module_options,
    _not_the_bot,
    read_section,
    read_words,
)
from .config_values import MAX_ALIASES, MAX_ROLES, MAX_SEED, MAX_THREAD_REF, is_alias, key_name, plain, shown
from .rules.config import GameConfig, default_deadlines, default_missed
from .rules.presets import MAX_PLAYERS, MIN_PLAYERS, PRESETS, spy_count
from .rules.roles import always_dealt, module_roles, side_of
from .rules.state import SPIES


@dataclass(frozen=True)
class Problem:
    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"


TOP_KEYS = {
    "title", "preset", "players", "team_votes", "aliases", "thread", "subreddit", "category",
    "leader_order", "seed", "deadlines", "missed", "min_players", "max_players",
    "intro", "timezone", "cohosts", "spectators", "forward_pms", "reserves", "signup_thread", "words",
}
# In the contract (commands.md) but not built yet: refused with a clear word, never ignored.
PLANNED_KEYS: set[str] = set()
PRESET_KEYS = {"roles", "lady_of_the_lake", "plot_cards", "mission_cards"}

_USERNAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
# (the closing fence's indent is `[ \t]*`, not `\s*`: that would try every later line at every
# line, quadratic in a message of blank lines)
_FENCE = re.compile(r"^\s*(```|~~~)[^\n]*\n(?P<body>.*?)\n[ \t]*\1\s*$", re.S)
_FENCE_ANYWHERE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(?P<body>.*?)\n[ \t]*\1[ \t]*$", re.S | re.M)


def _unwrap(text: str) -> str:
    """The YAML may sit in a fenced or indented code block, with words around it ("Hi bot,
    here is my game:"): the first fenced block is the config, or else an indented block
    after a blank line."""
    text = text.replace("\r\n", "\n")
    if m := _FENCE.match(text):
        return m.group("body")
    lines = text.split("\n")
    body = [ln for ln in lines if ln.strip()]
    if body and all(ln.startswith("    ") for ln in body):
        return "\n".join(ln[4:] for ln in lines)
    if _is_mapping(text):  # plain YAML (an `intro:` may hold a fence of its own)
        return text
    if m := _FENCE_ANYWHERE.search(text):
        return m.group("body")
    # Markdown's indented block after words: every line of it starts with 4 spaces, and a
    # blank line comes before it. (Each block is tried once: the text is read in one pass.)
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("    ") and ln.strip() and (i == 0 or not lines[i - 1].strip()):
            block = []
            for rest in lines[i:]:
                if rest.strip() and not rest.startswith("    "):
                    break
                block.append(rest[4:])
            candidate = "\n".join(block)
            if _is_mapping(candidate):
                return candidate
            i += len(block)
        else:
            i += 1
    return text


def _is_mapping(text: str) -> bool:
    """(The same guarded reading as the config's: no anchors, bounded size and depth.)"""
    return config_yaml.is_mapping(text)


CONFIG_KEYS = ("preset", "players")  # a message with one of these top-level keys is a config


def looks_like_config(text: str) -> bool:
    """Whether a message holds a game's config (YAML with `preset:` or `players:`), found and
    read as parse_config finds and reads it (bounded; never raises): a config sent without
    the `new game` subject."""
    text = text or ""
    if config_yaml.too_long(text) or not any(k in text for k in CONFIG_KEYS):
        return False
    try:
        doc, refusals = config_yaml.load(_unwrap(text))
    except yaml.YAMLError:
        return False
    return not refusals and isinstance(doc, dict) and any(k in doc for k in CONFIG_KEYS)


def parse_config(text: str, host: str, bot_name: str | None = None) -> tuple[GameConfig | None, list[Problem]]:
    """`bot_name`: the bot's own account, which may be no player, cohost, spectator, reserve
    or alias (the bot never reads its own words as commands)."""
    problems: list[Problem] = []
    text = text or ""
    if refused := config_yaml.too_long(text):  # (before anything reads it, _unwrap included)
        return None, [Problem(*refused)]
    try:
        doc, refusals = config_yaml.load(_unwrap(text))
    except yaml.YAMLError as e:
        where = getattr(e, "problem_mark", None)
        at = f" at line {where.line + 1}" if where is not None else ""
        if isinstance(e, yaml.reader.ReaderError):  # (a control character, say)
            return None, [Problem("(yaml)", f"the message holds a character YAML does not allow: "
                                            f"U+{e.character if isinstance(e.character, int) else 0:04X}")]
        why = plain(getattr(e, "problem", None) or "it cannot be read", 80)
        return None, [Problem("(yaml)", f"the message is not valid YAML{at}: {shown(why, 80)}")]
    if refusals:
        return None, _tidy([Problem(key, message) for key, message in refusals])
    if not isinstance(doc, dict):
        return None, [Problem("(yaml)", "the message must be YAML keys such as `preset:` and `players:`")]

    def bad(key: str, message: str) -> None:
        problems.append(Problem(key, message))

    for key in doc:
        k = str(key)
        if k in TOP_KEYS:
            continue
        if k in PLANNED_KEYS:
            bad(k, "is not supported by this version of the bot yet; remove it")
        elif k not in PRESET_KEYS and k not in _module_keys():
            bad(key_name(k), "is not a config key")

    # preset
    preset_name = doc.get("preset")
    preset = PRESETS.get(preset_name) if isinstance(preset_name, str) else None
    if preset_name is None:
        bad("preset", f"is required: one of {', '.join(PRESETS)}")
    elif preset is None:
        bad("preset", f"{shown(preset_name)} is not a preset: one of {', '.join(PRESETS)}")
    elif not preset.available:
        ok = ", ".join(n for n, x in PRESETS.items() if x.available)
        bad("preset", f"{shown(preset_name)} is not playable in this version yet; playable: {ok}")
    for k in sorted(PRESET_KEYS & {str(x) for x in doc}):
        if preset is not None and k not in preset.allowed_keys:
            bad(k, f"does not belong to the {preset.name} preset")

    # players
    players = doc.get("players")
    names: list[str] = []
    if players is None:
        bad("players", f"is required: a list of {MIN_PLAYERS} to {MAX_PLAYERS} usernames")
    elif players == "signup":
        pass  # min_players / max_players below
    elif not isinstance(players, list):
        bad("players", f"must be a list of {MIN_PLAYERS} to {MAX_PLAYERS} usernames, like [alice, bob]")
    else:
        names = [str(p).strip() for p in players]
        names = [re.sub(r"^(?:/?u/|@)", "", n) for n in names]
        for n in names:
            if not _USERNAME.match(n):
                bad("players", f"{shown(n)} is not a forum username")
        seen: set[str] = set()
        for n in names:
            if n.casefold() in seen:
                bad("players", f"{n if _USERNAME.match(n) else shown(n)} is listed twice")
            seen.add(n.casefold())
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            bad("players", f"needs {MIN_PLAYERS} to {MAX_PLAYERS} players; {len(names)} listed")

    kw: dict = {}
    _signup_limits(doc, preset, players == "signup", kw, bad)
    _choice(doc, "team_votes", ("any", "pm"), kw, bad)
    _choice(doc, "leader_order", ("random", "listed"), kw, bad)
    if "title" in doc:
        if not isinstance(doc["title"], (str, int)) or not str(doc["title"]).strip():
            bad("title", "must be a line of text")
        elif len(str(doc["title"])) > 300:
            bad("title", "must be at most 300 characters")
        else:
            kw["title"] = str(doc["title"]).strip()
    if "seed" in doc:
        if isinstance(doc["seed"], bool) or not isinstance(doc["seed"], int) or not 0 <= doc["seed"] <= MAX_SEED:
            bad("seed", f"must be a whole number from 0 to {MAX_SEED} (2^63 - 1)")
        else:
            kw["seed"] = doc["seed"]
    if "thread" in doc:
        if not _thread_ref(doc["thread"]):
            bad("thread", f"must be `new`, or an existing thread's URL or id (one line, at most {MAX_THREAD_REF} "
                          "characters)")
        else:
            kw["thread"] = str(doc["thread"]).strip()
    if "subreddit" in doc:
        sub = str(doc["subreddit"]).strip()
        sub = re.sub(r"^/?r/", "", sub)
        if not re.match(r"^[A-Za-z0-9_]{2,21}$", sub):
            bad("subreddit", f"{shown(doc['subreddit'])} is not a subreddit name")
        else:
            kw["subreddit"] = sub
    if "category" in doc:  # Discourse: a category's name, slug, parent/child slug or id
        cat = str(doc["category"]).strip() if isinstance(doc["category"], (str, int)) else ""
        if not cat or len(cat) > 100 or "\n" in cat:
            bad("category", f"{shown(doc['category'])} is not a category name, slug or id (at most 100 characters)")
        else:
            kw["category"] = cat
    if "aliases" in doc:
        aliases = doc["aliases"]
        if not isinstance(aliases, dict):
            bad("aliases", "must map extra names to players, like {al: alice}")
        elif len(aliases) > MAX_ALIASES:
            bad("aliases", f"has {len(aliases)} names; a game has at most {MAX_ALIASES} aliases")
        else:
            folded = {n.casefold(): n for n in names}
            clean = {}
            for alias, target in aliases.items():
                t = folded.get(str(target).casefold()) if isinstance(target, (str, int)) else None
                if not isinstance(alias, (str, int)) or not is_alias(str(alias)):
                    bad("aliases", f"{shown(alias)} is not a name: 1 to 40 letters, digits, spaces, `.`, `'` or `-`")
                elif t is None:
                    bad("aliases", f"{shown(alias)}: {shown(target)} is not one of the players")
                elif str(alias).casefold() in folded and folded[str(alias).casefold()] != t:
                    bad("aliases", f"{shown(alias)} is already another player's name")
                else:
                    clean[str(alias)] = t
            kw["aliases"] = clean

    if preset is not None:
        _preset_options(doc, preset, names, kw, bad)
        _module_options(doc, preset, names, kw, bad)
    _host_options(doc, names, host, kw, bad)
    read_words(doc, names, kw, bad)
    if bot_name and bot_name.strip():
        _not_the_bot(bot_name.strip(), names, kw, bad)

    base = preset or PRESETS["resistance"]
    kw["deadlines"] = read_section("deadlines", doc.get("deadlines"), default_deadlines(base), bad)
    kw["missed"] = read_section("missed", doc.get("missed"), default_missed(base), bad)
    kw.setdefault("team_votes", base.team_votes)

    if problems or preset is None:
        return None, _tidy(problems)
    return GameConfig(preset=preset.name, players=tuple(names), host=host, **kw), []


def _signup_limits(doc: dict, preset, signup: bool, kw: dict, bad) -> None:
    """`players: signup` takes `min_players` and `max_players` (the preset's limits by default)."""
    low, high = MIN_PLAYERS, MAX_PLAYERS
    if preset is not None and preset.fixed_roster:
        low = high = len(preset.fixed_roster[0]) + len(preset.fixed_roster[1])
    if not signup:
        for k in ("min_players", "max_players"):
            if k in doc:
                bad(k, "is only for sign-ups (`players: signup`)")
        return
    got = {}
    for k, default in (("min_players", low), ("max_players", high)):
        v = doc.get(k, default)
        if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
            bad(k, f"must be a whole number from {low} to {high}")
        got[k] = v
    if isinstance(got["min_players"], int) and isinstance(got["max_players"], int) \
            and got["min_players"] > got["max_players"]:
        bad("min_players", f"is more than max_players ({got['max_players']})")
    if "aliases" in doc:
        bad("aliases", "needs a list of players; with sign-ups there is none yet")
    kw.update(got)


def _preset_options(doc: dict, preset, names: list[str], kw: dict, bad) -> None:
    """The keys that depend on the preset: roles, the Lady, the card decks, table sizes."""
    if preset.fixed_roster and names and len(names) != len(preset.fixed_roster[0]) + len(preset.fixed_roster[1]):
        size = len(preset.fixed_roster[0]) + len(preset.fixed_roster[1])
        bad("players", f"{preset.name} is for exactly {size} players; {len(names)} listed")
    if "roles" in doc and "roles" in preset.allowed_keys:
        roles = doc["roles"]
        if not isinstance(roles, list) or len(roles) > MAX_ROLES:
            bad("roles", f"must be a list of at most {MAX_ROLES} optional roles: "
                         f"{', '.join(sorted(preset.optional_roles))}")
        else:
            wanted = [str(r).strip().lower() for r in roles]
            optional = preset.optional_roles | module_roles()
            always = {r.name for r in always_dealt()}
            for r in wanted:
                if r not in optional | always:
                    bad("roles", f"{shown(r)} is not a role of {preset.name}: one of "
                                 f"{', '.join(sorted(optional))} (Merlin and the "
                                 "Assassin are always in)")
            if len(set(wanted)) != len(wanted):
                bad("roles", "a role is listed twice")
            evil = len({r for r in (optional & set(wanted)) | always if side_of(r) == SPIES})
            low = kw.get("min_players")
            size = len(names) or (low if isinstance(low, int) else 0)
            if size and MIN_PLAYERS <= size <= MAX_PLAYERS and evil > spy_count(size):
                bad("roles", f"{evil} special spies (the Assassin included) do not fit: "
                             f"{size} players have {spy_count(size)} spies")
            kw["roles"] = tuple(sorted(set(wanted) - always))
    for key in ("lady_of_the_lake", "plot_cards", "mission_cards"):
        if key in doc and key in preset.allowed_keys and not isinstance(doc[key], bool):
            bad(key, "must be true or false")
    if "lady_of_the_lake" in preset.allowed_keys and isinstance(doc.get("lady_of_the_lake"), bool):
        kw["lady_of_the_lake"] = doc["lady_of_the_lake"]
    # The card decks play by default, as in the seeds; `false` switches one off.
    for key, has in (("plot_cards", preset.has_plot_deck), ("mission_cards", preset.name == "so-say-we-all")):
        if has:
            value = doc.get(key, True)
            if isinstance(value, bool):
                kw[key] = value


def _choice(doc: dict, key: str, allowed: tuple[str, ...], kw: dict, bad) -> None:
    if key in doc:
        v = str(doc[key]).strip().lower()
        if v not in allowed:
            bad(key, f"{shown(doc[key])} must be one of: {' | '.join(allowed)}")
        else:
            kw[key] = v


def _thread_ref(value) -> bool:
    """`new`, or a thread's URL or id: one line of at most 300 characters."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return False
    text = str(value).strip()
    return bool(text) and len(text) <= MAX_THREAD_REF and "\n" not in text


def _tidy(problems: list[Problem]) -> list[Problem]:
    """Each problem once, and none longer than a reply line may be (a rule module's words
    included)."""
    seen: set[Problem] = set()
    tidy = []
    for p in problems:
        p = Problem(key_name(p.key, 80), plain(p.message, 300))
        if p not in seen:
            seen.add(p)
            tidy.append(p)
    return tidy
