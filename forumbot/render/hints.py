"""The private "did you mean" answer to a bold span (or PM line) that is almost a command
(`forumbot.shell.hints`). It repeats only `Hint.meant` (plain letters, the bot's own reading),
never what the player typed."""
from __future__ import annotations

from .markup import Markdown, Markup

_NOT_COUNTED = {
    "vote": "Your vote was not counted.",
    "order": "Your order was not counted.",
    "propose": "No team was proposed.",
}
_WHY = {
    "letters": "it has letters that only look like plain ones (from another alphabet, with accents, "
               "or hidden characters): type it with plain letters",
    "spelling": "it is not spelt as the command",
    "words": "a command counts only when it is the whole bold text, with no other words",
    "team": "a team counts only after the word PROPOSE",
    "bold": "in the thread only bold text counts (not plain text, colour or italics)",
}


def did_you_mean(kind: str, verb: str, meant: str, tag: str, via: str, m: Markup | None = None) -> str:
    """`meant` is the command a span of `kind` (forumbot.shell.hints.Hint) meant, for `verb`."""
    m = m or Markdown()
    where = ("in a comment in the thread, with only the command inside the bold" if via == "thread"
             else "on a line of its own in a PM to me")
    not_counted = _NOT_COUNTED.get(verb, "Nothing was changed.")
    return (f"{tag}: did you mean {m.bold(meant)}? {not_counted} I did not take it as a "
            f"command: {_WHY[kind]}. Write {m.bold(meant)} {where}. "
            f"(I say this once a phase; PM me HELP for the commands.)")


def host_command_by_pm(tag: str, verb: str, m: Markup | None = None) -> str:
    """The host wrote a host command in the thread: they go by PM (repeats only the verb)."""
    m = m or Markdown()
    return (f"{tag}: host commands go by PM to me, not in the thread. PM me {m.bold(f'{verb.upper()} {tag}')} "
            f"(with what follows it). Nothing was changed.")
