"""The config's sections and groups of keys, each checked by itself (gameconfig.parse_config
puts them together): the host's options, `deadlines:` and `missed:`, and the keys the rule
modules declare."""
from __future__ import annotations

import re
from dataclasses import Field, replace
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .config_values import (
    MAX_MISSES,
    MAX_PEOPLE,
    MAX_THREAD_REF,
    MAX_TIMEZONE,
    MAX_WORD,
    MAX_WORDS_EACH,
    SIGNUP_WORD_COMMANDS,
    WORD_COMMANDS,
    key_name,
    plain,
    shown,
    word_key,
)
from .rules.deadlines import parse_duration
from .rules.hooks import plugin_classes
from .rules.presets import CHOICE, COUNT, DURATION, FLAG, TIME_OF_DAY, section_keys

_USERNAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
MAX_INTRO = 5000
# In the contract (commands.md) but not built yet: refused with a clear word, never ignored.
PLANNED_DEADLINE_KEYS: set[str] = set()
PLANNED_MISSED_KEYS: set[str] = set()


def _clock_time(value) -> str | None:
    """"21:00" -> "21:00". YAML reads an unquoted 21:00 as the number 1260 (base 60)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 24 * 60:
        return f"{value // 60:02d}:{value % 60:02d}"
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", str(value))
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        return None
    return f"{int(m.group(1)):02d}:{m.group(2)}"


def _people(doc: dict, key: str, bad) -> tuple[str, ...]:
    value = doc.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or len(value) > MAX_PEOPLE:
        bad(key, f"must be a list of at most {MAX_PEOPLE} usernames, like [alice, bob]")
        return ()
    names = [re.sub(r"^(?:/?u/|@)", "", str(v).strip()) for v in value]
    for n in names:
        if not _USERNAME.match(n):
            bad(key, f"{shown(n)} is not a forum username")
    return tuple(names)


def _who(names) -> str:
    """Names a message repeats: a username as it is, anything else shown inert."""
    return ", ".join(n if _USERNAME.match(n) else shown(n) for n in names)


def _host_options(doc: dict, names: list[str], host: str, kw: dict, bad) -> None:
    """intro, timezone, cohosts, spectators, forward_pms, reserves, signup_thread."""
    if "intro" in doc:
        if not isinstance(doc["intro"], (str, int, float)) or not str(doc["intro"]).strip():
            bad("intro", "must be text (Markdown)")
        elif len(str(doc["intro"])) > MAX_INTRO:
            bad("intro", f"must be at most {MAX_INTRO} characters")
        else:
            kw["intro"] = str(doc["intro"]).strip()
    if "timezone" in doc:
        tz = doc["timezone"].strip() if isinstance(doc["timezone"], str) else ""
        try:
            if not re.fullmatch(r"[A-Za-z0-9_+-]+(?:/[A-Za-z0-9_+-]+)*", tz) or len(tz) > MAX_TIMEZONE:
                raise ValueError(tz)
            ZoneInfo(tz)
            kw["timezone"] = tz
        except (ZoneInfoNotFoundError, ValueError, OSError):
            bad("timezone", f"{shown(doc['timezone'])} is not a time zone; write one like Europe/Berlin or "
                            "America/New_York")
    players = {n.casefold() for n in names}
    for key in ("cohosts", "spectators", "reserves"):
        if key in doc:
            people = _people(doc, key, bad)
            if key != "cohosts":
                clash = [p for p in people if p.casefold() in players]
                if clash:
                    bad(key, f"{_who(clash)} also play{'s' if len(clash) == 1 else ''}")
            if key == "reserves":  # a reserve may take a seat; a spectator has seen every role
                watching = {w.casefold() for w in kw.get("spectators", ())}
                clash = [p for p in people if p.casefold() in watching]
                if clash:
                    bad(key, f"{_who(clash)} {'is a spectator' if len(clash) == 1 else 'are spectators'}: "
                             "spectators have seen every role and cannot take a seat")
            kw[key] = people
    if "forward_pms" in doc:
        if not isinstance(doc["forward_pms"], bool):
            bad("forward_pms", "must be true or false")
        else:
            kw["forward_pms"] = doc["forward_pms"]
    if "signup_thread" in doc:
        if doc.get("players") != "signup":
            bad("signup_thread", "is only for sign-ups (`players: signup`)")
        elif (isinstance(doc["signup_thread"], bool) or not isinstance(doc["signup_thread"], (str, int))
              or not str(doc["signup_thread"]).strip() or len(str(doc["signup_thread"]).strip()) > MAX_THREAD_REF
              or "\n" in str(doc["signup_thread"]).strip()):
            bad("signup_thread", f"must be an existing thread's URL or id (one line, at most {MAX_THREAD_REF} "
                                 "characters)")
        else:
            kw["signup_thread"] = str(doc["signup_thread"]).strip()


_THE_BOT = {"players": "the bot cannot play", "cohosts": "the bot cannot co-host",
            "spectators": "the bot cannot be a spectator", "reserves": "the bot cannot be a reserve"}


def _not_the_bot(bot_name: str, names: list[str], kw: dict, bad) -> None:
    """The bot's own account named in the config: it never reads its own words as commands."""
    me = re.sub(r"^(?:/?u/|@)", "", bot_name).casefold()
    for key, why in _THE_BOT.items():
        people = names if key == "players" else kw.get(key, ())
        if any(p.casefold() == me for p in people):
            bad(key, f"{bot_name} is the bot's own account: {why}")
    if any(str(a).casefold() == me for a in kw.get("aliases", {})):
        bad("aliases", f"{bot_name} is the bot's own account: it cannot be an alias")


# a section's words: what its keys look like, what one of them is, and its planned keys
_SECTIONS = {"deadlines": ("`team_vote: 12h`", "a deadline", PLANNED_DEADLINE_KEYS),
             "missed": ("`team_vote: abstain`", "a setting", PLANNED_MISSED_KEYS)}


def read_section(name: str, section, defaults, bad):
    """The `deadlines:` or `missed:` section over its defaults (the preset's): each key as its
    declaration (rules.presets.section_key) says, and the keys it does not declare refused."""
    if section is None:
        return defaults
    like, what, planned = _SECTIONS[name]
    if not isinstance(section, dict):
        bad(name, f"must be keys such as {like}")
        return defaults
    keys = section_keys(type(defaults))
    changes = {}
    for key, value in section.items():
        k = str(key)
        full = f"{name}.{k}"
        if k in planned:
            bad(full, "is not supported by this version of the bot yet; remove it")
        elif k not in keys:
            bad(key_name(full), f"is not {what}: one of {', '.join(sorted(keys))}")
        else:
            try:
                changes[k] = _value(keys[k], value)
            except ValueError as e:
                bad(full, str(e))
    return replace(defaults, **changes)


def _value(key: Field, value):
    """A key's value read by its kind; ValueError with the words of the problem."""
    kind, choices = key.metadata["kind"], key.metadata["choices"]
    if kind == DURATION:
        try:
            return parse_duration(value)
        except ValueError as e:
            raise ValueError(f"{shown(value)} {e}") from None
    if kind == FLAG:
        if not isinstance(value, bool):
            raise ValueError("must be true or false")
        return value
    if kind == TIME_OF_DAY:
        text = _clock_time(value)
        if text is None:
            raise ValueError(f"{shown(value)} must be a time of day from \"00:00\" to \"23:59\" (in quotes)")
        return text
    if kind == COUNT:  # (of misses)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_MISSES:
            raise ValueError(f"must be a whole number from 0 to {MAX_MISSES}, 0 for never")
        return value
    if kind == CHOICE:
        word = str(value).strip().lower()
        if word not in choices:
            raise ValueError(f"{shown(value)} must be one of: {' | '.join(choices)}")
        return word
    raise TypeError(f"{key.name}: no reader for the kind {kind!r}")


# --- the rule modules' keys (hooks.ConfigKey, RulePlugin.check_config) --------------------


def _module_keys() -> dict:
    return {k.name: k for cls in plugin_classes() for k in cls.config_keys}


def _module_options(doc: dict, preset, names: list[str], kw: dict, bad) -> None:
    """A rule module's keys, checked by the module, into `options`; then each module's
    rules across keys."""
    options: dict = {}
    for name, key in _module_keys().items():
        if name not in doc:
            continue
        if preset.name not in key.presets:
            bad(name, f"does not belong to the {preset.name} preset")
            continue
        try:
            options[name] = key.check(doc[name], preset)
        except ValueError as e:
            bad(name, plain(str(e)))
    if options:
        kw["options"] = options
    low = kw.get("min_players")
    size: int = len(names) or (low if isinstance(low, int) else 0)
    for cls in plugin_classes():
        cls.check_config(preset, names, size, kw, bad)


# --- the host's own words (`words:`) ---------------------------------------------------

# What the core reads as a whole span, by the command it is (parsing.parse_command): a host's
# word may not be one of these (tests/test_own_words.py holds this table to the parser).
_BUILT_IN = {"approve": "APPROVE", "reject": "REJECT", "abstain": "ABSTAIN", "support": "SUPPORT",
             "success": "SUPPORT", "sabotage": "SABOTAGE", "fail": "SABOTAGE", "pass": "PASS",
             "status": "STATUS", "help": "HELP", "join": "JOIN", "leave": "LEAVE"}
# The words that begin a command with more after them (`PROPOSE: a, b`, `CRITICAL APPROVE`).
_LEADING = ("propose", "team", "give", "play", "take", "proxy", "choose", "assassinate", "shoot", "critical",
            "order")
# A letter or digit first (after one `/`, `#`, `!` or `+`: `/in`), then letters, digits, spaces and
# a little punctuation; no `.` or `/` inside (a word the posts show is never a link or a u/ mention).
_WORD_CHARS = re.compile(r"^[/#!+]?[^\W_][\w ,'!?+:-]*$")
_TAG_LIKE = re.compile(r"\bG\d+\b", re.I)
_EXAMPLE = "like {approve: [yay, aye], reject: [nay]}"


def _built_in_word(word: str, key: str) -> str | None:
    """The built-in command `word` (`key`, as word_key folds it) already is, if any."""
    first, _, rest = key.partition(" ")
    if key in _BUILT_IN:
        return _BUILT_IN[key]
    if first == "vote" and word_key(rest) in ("approve", "reject", "abstain"):
        return _BUILT_IN[word_key(rest)]
    if first in _LEADING:
        return first.upper()
    spaced = " ".join(word.split())
    for cls in plugin_classes():
        for w in cls.words:
            if w.pattern.match(spaced):
                return spaced.split(" ")[0].rstrip(":").upper()
    return None


def read_words(doc: dict, names: list[str], kw: dict, bad) -> None:
    """`words:` the host's own words for commands (`{approve: [yay, aye]}`): each a whole
    bold span or PM line, read as the command. Refused: a word that is a player's name or
    alias, a built-in word, or one used twice."""
    if "words" not in doc:
        return
    value = doc["words"]
    if not isinstance(value, dict) or not value:
        bad("words", f"must map commands to lists of words, {_EXAMPLE}")
        return
    people = ({n.casefold(): f"the name of the player {n}" for n in names}
              | {str(a).casefold(): f"an alias of {t}" for a, t in kw.get("aliases", {}).items()})
    seen: dict[str, str] = {}  # word_key -> the command it is for
    words: dict[str, tuple[str, ...]] = {}
    for command, said in value.items():
        c = str(command).strip().lower()
        full = f"words.{key_name(command)}"
        if c not in WORD_COMMANDS:
            bad(full, f"is not a command that takes words of its own: one of {', '.join(WORD_COMMANDS)}")
            continue
        if c in SIGNUP_WORD_COMMANDS and doc.get("players") != "signup":
            bad(full, "is only for sign-ups (`players: signup`); remove it")
            continue
        if isinstance(said, (str, int)) and not isinstance(said, bool):
            said = [said]
        if not isinstance(said, list) or not said or len(said) > MAX_WORDS_EACH:
            bad(full, f"must be a list of 1 to {MAX_WORDS_EACH} words, {_EXAMPLE}")
            continue
        kept = []
        for w in said:
            text = " ".join(str(w).split()) if isinstance(w, (str, int)) and not isinstance(w, bool) else ""
            key = word_key(text)
            if not key or len(text) > MAX_WORD or not _WORD_CHARS.match(text):
                bad(full, f"{shown(w)} is not a word: 1 to {MAX_WORD} letters, digits and spaces (a `/` or `!` "
                          "may come first, and `,'!?+:-` after the first letter); remove it or write it so")
            elif _TAG_LIKE.search(key):
                bad(full, f"{shown(w)} looks like a game tag (G12); choose another word")
            elif key in people:
                bad(full, f"{shown(w)} is {people[key]}: a bold {shown(w)} may be talk about them; "
                          "choose another word")
            elif (built := _built_in_word(text, key)) is not None and not (
                    built == WORD_COMMANDS[c] and text.casefold().rstrip(".!") != key):
                # (a form of the command's own word the parser does not read, `/join`, is a word)
                bad(full, f"{shown(w)} already counts as {built}: remove it" if built == WORD_COMMANDS[c] else
                          f"{shown(w)} is the built-in command {built}; choose another word")
            elif key in seen:
                bad(full, f"{shown(w)} is listed twice" if seen[key] == c else
                          f"{shown(w)} is also a word for {seen[key]}: a word may stand for one command only")
            else:
                seen[key] = c
                kept.append(text)
        if kept:
            words[c] = tuple(kept)
    kw["words"] = words
