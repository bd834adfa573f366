"""The bot's words about its own running: deadlines that wait for the forum, messages set
aside, forwarded PMs, pointers to HELP. And `defuse`, for anything that echoes what a
user typed."""
from __future__ import annotations

import re
from datetime import datetime

from ..rules.commands import SAID_CLOSE, SAID_OPEN, said
from ..rules.deadlines import stamp
from ..rules.modules import mission_cards, plot_deck
from .markup import Markdown, Markup

# An empty or fragment link (`[](#fb-...)`, `[x](#...)`) and a link reference definition
# (`[x]: http://...` at a line's start): Markdown that renders as nothing or that re-targets
# links. The bot's markers have this shape, so echoed text must never carry it.
_FRAGMENT_LINK = re.compile(r"\[([^\]\n]*)\]\(\s*#[^)\n]*\)")
_LINK_DEF = re.compile(r"^([ \t]{0,3})\[([^\]\n]+)\]:", re.M)


# A command as the rules write it in a refusal (`said("PROPOSE: a, b")`), and, while the
# rules switch to said(), a command written `**PROPOSE: a, b**`: both are bold in the markup.
_SAID = re.compile(re.escape(SAID_OPEN) + "([^" + re.escape(SAID_OPEN + SAID_CLOSE) + "]*)" + re.escape(SAID_CLOSE))
_LITERAL_BOLD = re.compile(r"\*\*(?=\S)([^*\n]+?)\*\*")
# A command to type, as render's own refusals write it (`as_code("G12 APPROVE")`): in the
# markup's code span once rendered (render_refusal).
CODE_OPEN, CODE_CLOSE = "\ue004", "\ue005"
_CODE = re.compile(re.escape(CODE_OPEN) + "([^" + re.escape(CODE_OPEN + CODE_CLOSE) + "]*)" + re.escape(CODE_CLOSE))
_MARKS = str.maketrans("", "", SAID_OPEN + SAID_CLOSE + CODE_OPEN + CODE_CLOSE)


def as_code(text: str) -> str:
    """`text` as a command to type, to be shown in the markup's code span by render_refusal."""
    return f"{CODE_OPEN}{text}{CODE_CLOSE}"


def coded(text: str, m: Markup) -> str:
    """`text` with each command in as_code() in the markup's code span."""
    return _CODE.sub(lambda g: m.code(g.group(1)), text)


def spoken(text: str, m: Markup, literal: bool = True) -> str:
    """`text` with each command in said() (and, if `literal`, each `**command**`) in the
    markup's bold. On Markdown a `**command**` stays as it is."""
    text = _SAID.sub(lambda g: m.bold(g.group(1)), text)
    if literal and not isinstance(m, Markdown):
        text = _LITERAL_BOLD.sub(lambda g: m.bold(g.group(1)), text)
    return text


def scrub(text: str) -> str:
    """`text` without the marks of said() and as_code(): they must never reach a forum (a
    stray one, or one a user typed)."""
    return text.translate(_MARKS)


def defuse(text: str) -> str:
    """`text` with marker-shaped links and link reference definitions made visible and
    inert, so a user cannot make the bot post a hidden marker (or retarget its links), and
    without the marks of said(), so that what a user typed cannot pass for the bot's command."""
    text = scrub(text)
    text = _FRAGMENT_LINK.sub(lambda m: "\\[" + m.group(1) + "\\](" + m.group(0).split("(", 1)[1], text)
    return _LINK_DEF.sub(lambda m: m.group(1) + "\\[" + m.group(2) + "\\]:", text)


def which_game(tags: list[str]) -> str:
    """A refusal's reason (render_refusal shows the command in bold)."""
    return (f"Several games run in this thread ({', '.join(tags)}): put the game's tag in the "
            f"bold command, like {said(f'{tags[-1]} APPROVE')}. Nothing was changed.")


def thread_unreadable(tag: str, why: str) -> str:
    return (f"{tag}: I cannot read the game thread just now ({why}). I keep trying, and its "
            "deadlines wait until I have read it, so no vote sent in time is lost. If the "
            "thread's forum went private or was removed, you can ABORT the game by PM.")


def not_started(tag: str, title: str, error: str, m: Markup | None = None) -> str:
    m = m or Markdown()
    return (f"{tag}: the forum refused the game's opening post, so the game did not start and "
            f"no roles went out. The forum said: {error}\n\nThe title was: {title}\n\nTo try "
            f"again, PM me the config once more with the subject {m.code('new game')}, with a new "
            f"{m.code('title:')} (and {m.code('intro:')} if that was the problem).")


def pm_resent(tag: str, to: str, error: str) -> str:
    return (f"{tag}: a PM to {to} may not have gone out, and I cannot read my sent messages to "
            f"check ({error}), so I sent it again. {to} may get it twice. (I tell you this once.)")


def deadline_waits(tag: str, due: datetime, why: str) -> str:
    return (f"{tag}: the deadline of {stamp(due)} has not closed yet, because {why}. It closes "
            "as soon as the bot has read everything sent before it, so that no vote or order "
            "sent in time is lost. You can EXTEND, PAUSE or SKIP as usual.")


def set_aside(tag: str, author: str, kind: str, created: datetime, m: Markup | None = None) -> str:
    m = m or Markdown()
    what = "comment" if kind == "comment" else "PM"
    return (f"{tag}: I could not handle a {what} from {author} sent {stamp(created)}, and set it "
            "aside: it changed nothing, and the deadlines no longer wait for it. If it held a "
            f"command, please enter it with {m.code(f'RECORD {tag} {author} ...')}, or ask them to "
            "send it again.")


def not_handled(kind: str, created: datetime, tag: str | None, host: str | None) -> str:
    """To the sender of a message that was set aside: nothing of why (no internals)."""
    what = "comment" if kind == "comment" else "message"
    ask = (f"please write to the host of {tag}, {host}, who can enter it for you" if tag and host
           else "please write to the host of your game")
    return (f"I could not handle your {what} of {stamp(created)}, so I set it aside: it "
            f"changed nothing. If it held a command, {ask}.")


def same_new_game(tag: str, link: str | None, m: Markup | None = None) -> str:
    """To a host who sent the same `new game` PM again (a double click, a resend)."""
    m = m or Markdown()
    where = (f"It runs here: {link}" if link else
             "Its thread is not open yet: I send you its link as soon as it is.")
    return (f"You sent me this config already, and it started {tag}. {where} I did not start a "
            "second game. To start another game with the same config, wait until this one has "
            f"ended, or change its {m.code('title:')}.")


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


def pointer(m: Markup | None = None) -> str:
    m = m or Markdown()
    return ("I am a game master bot for The Resistance and Avalon, and I found no command in "
            f"your message. PM me HELP for the commands, or {m.code('new game')} as the subject to start "
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

    names = []
    if getattr(state.config, "plot_cards", False) or getattr(state.config, "mission_cards", False):
        cards = [(c.name, c.key) for c in plot_deck.CARDS] + [(c.name, c.key) for c in mission_cards.CARDS]
        for name_and_key in cards:
            for text in name_and_key:
                names.append(re.sub(r"[^a-z]", "", text.casefold()))
    return names
