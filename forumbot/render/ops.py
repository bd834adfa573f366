"""The bot's words about its own running: deadlines that wait for the forum, messages set
aside, forwarded PMs, pointers to HELP. And `defuse`, for anything that echoes what a
user typed."""
from __future__ import annotations

import re
from datetime import datetime

from ..deadlines import stamp

# An empty or fragment link (`[](#fb-...)`, `[x](#...)`) and a link reference definition
# (`[x]: http://...` at a line's start): Markdown that renders as nothing or that re-targets
# links. The bot's markers have this shape, so echoed text must never carry it.
_FRAGMENT_LINK = re.compile(r"\[([^\]\n]*)\]\(\s*#[^)\n]*\)")
_LINK_DEF = re.compile(r"^([ \t]{0,3})\[([^\]\n]+)\]:", re.M)


def defuse(text: str) -> str:
    """`text` with marker-shaped links and link reference definitions made visible and
    inert, so a user cannot make the bot post a hidden marker (or retarget its links)."""
    text = _FRAGMENT_LINK.sub(lambda m: "\\[" + m.group(1) + "\\](" + m.group(0).split("(", 1)[1], text)
    return _LINK_DEF.sub(lambda m: m.group(1) + "\\[" + m.group(2) + "\\]:", text)


def which_game(tags: list[str]) -> str:
    return (f"Several games run in this thread ({', '.join(tags)}): put the game's tag in the "
            f"bold command, like **{tags[-1]} APPROVE**. Nothing was changed.")


def thread_unreadable(tag: str, why: str) -> str:
    return (f"{tag}: I cannot read the game thread just now ({why}). I keep trying, and its "
            "deadlines wait until I have read it, so no vote sent in time is lost. If the "
            "subreddit went private or was banned, you can ABORT the game by PM.")


def not_started(tag: str, title: str, error: str) -> str:
    return (f"{tag}: the forum refused the game's opening post, so the game did not start and "
            f"no roles went out. The forum said: {error}\n\nThe title was: {title}\n\nTo try "
            "again, PM me the config once more with the subject `new game`, with a new `title:` "
            "(and `intro:` if that was the problem).")


def pm_resent(tag: str, to: str, error: str) -> str:
    return (f"{tag}: a PM to {to} may not have gone out, and I cannot read my sent messages to "
            f"check ({error}), so I sent it again. {to} may get it twice. (I tell you this once.)")


def deadline_waits(tag: str, due: datetime, why: str) -> str:
    return (f"{tag}: the deadline of {stamp(due)} has not closed yet, because {why}. It closes "
            "as soon as the bot has read everything sent before it, so that no vote or order "
            "sent in time is lost. You can EXTEND, PAUSE or SKIP as usual.")


def set_aside(tag: str, author: str, kind: str, created: datetime) -> str:
    what = "comment" if kind == "comment" else "PM"
    return (f"{tag}: I could not handle a {what} from {author} sent {stamp(created)}, after "
            "several tries, and set it aside. If it held a command, please enter it with "
            f"`RECORD {tag} {author} ...`, or ask them to send it again.")


def forwarded(tag: str, author: str, body: str) -> str:
    quoted = "\n".join("> " + ln for ln in defuse(body[:5000]).split("\n"))
    return f"{tag}: {author} wrote to the bot (no command in it):\n\n{quoted}"


def not_forwarded(tag: str) -> str:
    return (f"I found no command in your message. It names a mission order or a card, and the "
            f"host of {tag} plays, so I did not pass it on. To send an order, PM me SUPPORT or "
            f"SABOTAGE alone on a line (with {tag} if you play in several games). PM me HELP "
            "for the commands.")


def record_sided(tag: str) -> str:
    return (f"{tag}: you play in this game, so you cannot RECORD mission orders or the "
            "assassination: whether one is taken depends on a hidden side. Ask a cohost, or "
            f"SKIP {tag} to apply the defaults. Nothing was changed.")


def pointer() -> str:
    return ("I am a game master bot for The Resistance and Avalon, and I found no command in "
            "your message. PM me HELP for the commands, or `new game` as the subject to start "
            "a game. (I answer messages like this one at most once a day.)")


_ORDER_WORDS = re.compile(r"\b(support|sabotage|success|succeed|fail|failure)\b", re.I)


def looks_secret(body: str, state) -> bool:
    """Does a PM name a mission order or a card? Forwarded to a host who plays, it could
    tell the host a side."""
    if _ORDER_WORDS.search(body):
        return True
    folded = re.sub(r"[^a-z]", "", body.casefold())
    return any(len(n) >= 4 and n in folded for n in _card_names(state))


def _card_names(state) -> list[str]:
    from ..rules import mission_cards, plot_deck

    names = []
    if getattr(state.config, "plot_cards", False) or getattr(state.config, "mission_cards", False):
        for card in (*plot_deck.CARDS, *mission_cards.CARDS):
            for text in (card.name, card.key):
                names.append(re.sub(r"[^a-z]", "", text.casefold()))
    return names
