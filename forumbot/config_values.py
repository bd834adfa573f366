"""The bounds of a config's values (variants.md, "Untrusted text and numbers"), and how a
problem message shows a value the host wrote: short, one line, and inert (in code ticks,
never a live link, mention, heading or marker)."""
from __future__ import annotations

import re
import reprlib
import unicodedata

MAX_SEED = 2**63 - 1  # the database keeps a seed in a signed 64-bit column
MAX_ALIASES = 64
MAX_PEOPLE = 64  # cohosts, spectators, reserves: each list
MAX_ROLES = 20
MAX_MISSES = 100  # missed.disqualify_after, missed.notify_host_after
MAX_THREAD_REF = 300  # a thread's URL or id
MAX_TIMEZONE = 64
MAX_SHOWN = 40  # characters of a value a problem message repeats
MAX_WORDS_EACH = 10  # `words:`: a command's own words
MAX_WORD = 40  # characters of one

# Unicode categories never shown: controls, format marks (zero-width, bidi overrides),
# surrogates, private use, unassigned, line and paragraph separators.
_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_ALIAS = re.compile(r"^\w(?:[\w .'-]{0,38}\w)?$")
_repr = reprlib.Repr()
_repr.maxlevel, _repr.maxlist, _repr.maxdict, _repr.maxstring, _repr.maxother = 2, 4, 4, 40, 40


def _text(value: object) -> str:
    """A value as the host wrote it, at most a few hundred characters of it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        if value.bit_length() > 200:  # (str() of a huge int is slow, or refused)
            return f"a number of about {int(value.bit_length() * 0.30103)} digits"
        return str(value)
    if isinstance(value, str):
        return value[:4 * MAX_SHOWN]
    if isinstance(value, float):  # (config_yaml.Huge: the digits as written)
        return str(value)[:4 * MAX_SHOWN]
    if isinstance(value, (list, dict, tuple, set)):
        return _repr.repr(value)
    return type(value).__name__


def _one_line(text: str, most: int, ticks: bool = False) -> str:
    kept = "".join(" " if c.isspace() else c for c in text if unicodedata.category(c) not in _HIDDEN)
    kept = re.sub(r" {2,}", " ", kept if ticks else kept.replace("`", "\u02cb")).strip()
    return kept if len(kept) <= most else kept[:most - 1] + "…"


def shown(value: object, most: int = MAX_SHOWN) -> str:
    """A value a problem message repeats: shortened, one line, in code ticks (no backtick
    inside), so that no link, mention or heading in it is live."""
    text = _one_line(_text(value), most)
    return f"`{text}`" if text else "an empty value"


def key_name(key: object, most: int = MAX_SHOWN) -> str:
    """A key as a problem names it (the reply puts it in code ticks): short, one line."""
    return _one_line(_text(key), most) or "(empty key)"


def plain(text: str, most: int = 300) -> str:
    """A message from elsewhere (a rule module, the YAML reader): one line, bounded."""
    return _one_line(str(text)[:4 * most], most, ticks=True)


def is_alias(name: str) -> bool:
    """An alias a player may type for a name: 1 to 40 letters, digits, spaces, `.`, `'`, `-`."""
    return bool(_ALIAS.match(name))


# --- the host's own words (`words:`) ---------------------------------------------------

# The commands a host may give words of their own, and the built-in word each stands for.
WORD_COMMANDS = {"approve": "APPROVE", "reject": "REJECT", "abstain": "ABSTAIN", "support": "SUPPORT",
                 "sabotage": "SABOTAGE", "join": "JOIN", "leave": "LEAVE"}
VOTE_WORD_COMMANDS = ("approve", "reject", "abstain")
SIGNUP_WORD_COMMANDS = ("join", "leave")


def word_key(text: str) -> str:
    """A word as it is compared: letters folded (case, full-width forms), spaces collapsed,
    and the punctuation around it taken off (`**Yay!**`, `IN!`, `/in`: yay, in, in)."""
    s = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    start, end = 0, len(s)
    while start < end and (unicodedata.category(s[start])[0] == "P" or s[start].isspace()):
        start += 1
    while end > start and (unicodedata.category(s[end - 1])[0] == "P" or s[end - 1].isspace()):
        end -= 1
    return s[start:end]
