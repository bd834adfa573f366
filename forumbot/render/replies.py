"""The bot's answers to one sender (and its notes to a host) in the shell's own words: a
message it cannot route, a host command's form, a post that could not go out. Each takes
the forum's markup (`markup_for(forum.markup.value)`), so a BBCode forum never shows `**`
or backticks. (Sign-ups: render/signups.py; the rules' refusals: render_refusal.)"""
from __future__ import annotations

from .markup import Markdown, Markup, heard
from .ops import as_code

MD: Markup = Markdown()
FORWARD_LIMIT = 5000  # characters of a PM passed on to the host


# --- routing: which game, and whom the bot answers ----------------------------------------

def game_over(tag: str) -> str:
    return f"{tag} is over: it takes no commands."


def passed_to_host(tag: str) -> str:
    return (f"I found no command in your message, so I passed it on to the host of {tag}. "
            "PM me HELP for the commands.")


def no_command(m=MD) -> str:
    return (f"I found no command in your message. PM me HELP for the commands, or "
            f"{m.code('new game')} as the subject to start a game.")


def config_without_subject(m=MD) -> str:
    """A host's PM that holds a game's config but not the subject that starts a game."""
    return (f"This looks like a game's config, but a game starts only from a PM with the subject "
            f"{m.code('new game')}. Send the config again with that subject. Nothing was changed.")


def not_in_tagged(tags: list[int]) -> str:
    return f"You are not in a running game tagged {', '.join(f'G{t}' for t in sorted(tags))}."


def not_in_a_game() -> str:
    return "You are not in a running game."


def several_games(tags: list[str]) -> str:
    """A refusal's reason (render_refusal shows the example in the markup's code span)."""
    return (f"You are in several games ({', '.join(tags)}). Put the game's tag in the subject "
            f"or the message, like {as_code('G12 APPROVE')}. Nothing was changed.")


def seat_taken(tag: str, by: str) -> str:
    return f"You no longer play in {tag}: {by} took your seat. Nothing was changed."


def edit_ignored() -> str:
    return ("Editing a comment does not change a command: the bot takes each command as it "
            "read when first seen. To change your vote, post a new comment.")


# --- a player's command ---------------------------------------------------------------------

def no_such_player(typed: str) -> str:
    """A typed name that names no seat (what the player typed is shown as text)."""
    return f"'{heard(typed)}' is not a player in this game."


def ambiguous_name(typed: str, candidates: tuple[str, ...] | list[str]) -> str:
    return f"'{heard(typed)}' could be {', '.join(heard(c) for c in candidates)}: write more of the name."


def name_problem(typed: str, candidates: tuple[str, ...]) -> str:
    """A typed name that names no seat, or several (what was typed is shown as text)."""
    return ambiguous_name(typed, candidates) if candidates else no_such_player(typed)


def nothing_changed() -> str:
    return "Nothing was changed."


def not_part_of_game(typed: str, title: str) -> str:
    return f"{heard(typed)} is not part of this game ({title})."


def not_available(typed: str) -> str:
    return f"{heard(typed)} is not available in this game."


def this_game_over() -> str:
    return "This game is over."


def not_a_player() -> str:
    return "Only the players of this game can do that; you are not one of them."


# --- new games ------------------------------------------------------------------------------

def hosts_only() -> str:
    return "Only the hosts this bot is set up for may start games."


def not_a_thread(ref: str, m=MD) -> str:
    return f"{m.text(ref)} is not a thread I can post in"


def no_new_threads() -> str:
    return ("this forum does not let the bot open a thread: open one for the game and name it "
            "here (its link or id)")


def config_problems(problems: list[tuple[str, str]], shown: int, m=MD) -> str:
    """No game: the config's problems (key, message), the first `shown` of them."""
    lines = "\n".join(f"- {m.code(key)}: {message[:300]}" for key, message in problems[:shown])
    if len(problems) > shown:
        lines += f"\n- ... and {len(problems) - shown} more; fix these first."
    return (f"No game was created. Your config has {len(problems)} "
            f"problem{'s' if len(problems) != 1 else ''}:\n\n{lines}")


# --- the host's commands ----------------------------------------------------------------------

def no_such_game(tag: str) -> str:
    return f"There is no game {tag}."


def host_only(tag: str, verb: str) -> str:
    return f"Only the host of {tag} may use {verb.upper()}. Nothing was changed."


def not_yet_available(verb: str) -> str:
    return f"{verb.upper()} is not available in this version of the bot yet."


def signups_over(tag: str) -> str:
    return f"{tag} has started: sign-ups are over."


def over(tag: str) -> str:
    return f"{tag} is over."


def pause_form(tag: str, timezone: str, m=MD) -> str:
    return (f"PAUSE ... UNTIL needs a date and time. The right form: "
            f"{m.code(f'PAUSE {tag} UNTIL 2026-12-05 18:00')} (in {timezone})")


def extend_form(tag: str, example: str = "6h", m=MD, most: str = "30d") -> str:
    return f"EXTEND needs a duration of at most {most}. The right form: {m.code(f'EXTEND {tag} {example}')}"


def disqualify_form(problem: str, tag: str, m=MD) -> str:
    return problem + f" The right form: {m.code(f'DISQUALIFY {tag} name')}"


def record_form(tag: str, m=MD) -> str:
    return (f"The right form: {m.code(f'RECORD {tag} name APPROVE')} (or REJECT, SUPPORT, "
            f"SABOTAGE, {m.code('PROPOSE: a, b')}, {m.code('LADY: x')} ...)")


def record_needs(tag: str, m=MD) -> str:
    return f"RECORD needs a player and what they sent. {record_form(tag, m)}"


def not_recorded(tag: str, name: str) -> str:
    return f"{tag}: that could not be recorded for {name} now. Nothing was changed."


def replace_form(tag: str, m=MD) -> str:
    return f"The right form: {m.code(f'REPLACE {tag} oldname WITH newname')}"


def replace_needs(tag: str, m=MD) -> str:
    return f"REPLACE needs two names. {replace_form(tag, m)}"


def spectator_cannot_sit(newcomer: str, tag: str) -> str:
    return (f"{newcomer} is a spectator of {tag} and has seen every role, so they cannot take "
            "a seat. Nothing was changed.")


def bot_cannot_sit(newcomer: str, tag: str) -> str:
    return (f"{newcomer} is the bot's own account: it runs {tag} and cannot take a seat. "
            "Nothing was changed.")


def done(tag: str, verb: str) -> str:
    return f"{tag}: {verb.upper()} done."


# --- notes to the host about the outbox -----------------------------------------------------

def signups_open_note(tag: str, where: str, m=MD) -> str:
    return (f"Sign-ups for {tag} are open: {where}\n\nPlayers comment {m.bold('JOIN')} there. "
            f"The game starts by itself; put {tag} in your PMs about this game.")


def running_note(tag: str, where: str) -> str:
    return (f"Game {tag} is running: {where}\n\nThe roles have gone out by PM. Put {tag} in "
            "your PMs about this game.")


def forwarded(tag: str, author: str, body: str, m=MD) -> str:
    """A PM with no command, passed on to the host: quoted line by line, each line as text
    (a player's link, image, heading or marker never becomes the bot's)."""
    lines = [m.text(line, limit=None) for line in body[:FORWARD_LIMIT].split("\n")]
    quoted = "  \n".join("> " + line if line else ">" for line in lines)
    return f"{tag}: {m.text(author)} wrote to the bot (no command in it):\n\n{quoted}"


def undelivered(tag: str, kind: str, to: str | None, error: str) -> str:
    what = {"pm": f"a PM to {to}", "edit": "an update of the status block in the opening post"
            }.get(kind, "a post in the game thread")
    return f"{tag}: I could not deliver {what}: {error}"
