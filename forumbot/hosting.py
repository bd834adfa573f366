"""The host's commands by PM (EXTEND, CLOSE, PAUSE, RESUME, DISQUALIFY, REPLACE, SKIP,
RECORD, ABORT, STATUS), from the game's host or a cohost."""
from __future__ import annotations

import logging
import re
from datetime import datetime, timezone

from . import deadlines
from .limits import HOST_COMMANDS, SIDED
from .parsing import NameProblem, Parsed, clean_name, parse_command, resolve_name
from .render import ops
from .rules import Refusal, apply
from .rules.commands import HostDisqualify, HostExtend, HostPause, HostRecord, HostReplace
from .status import host_status
from .store import Game, Inbound

log = logging.getLogger("forumbot")


def _until(text: str, config) -> datetime | None:
    """"UNTIL 2026-12-05 18:00" in the game's time zone (UTC if none) -> a UTC moment."""
    import re
    from zoneinfo import ZoneInfo

    m = re.fullmatch(r"(?i)until\s+(\d{4}-\d{2}-\d{2})[ T](\d{1,2}:\d{2})\s*", text.strip())
    if not m:
        return None
    try:
        local = datetime.fromisoformat(f"{m.group(1)} {int(m.group(2).split(':')[0]):02d}:{m.group(2).split(':')[1]}")
    except ValueError:
        return None
    return local.replace(tzinfo=ZoneInfo(config.timezone or "UTC")).astimezone(timezone.utc)

class Hosting:
    """The host's commands by PM (EXTEND, CLOSE, PAUSE, RESUME, DISQUALIFY, REPLACE, SKIP,
RECORD, ABORT, STATUS), from the game's host or a cohost."""

    def _host_command(self, row: Inbound, parsed: Parsed, at: datetime, i: int) -> None:
        """EXTEND, CLOSE, PAUSE, RESUME, DISQUALIFY, ABORT, STATUS: by PM, from the game's host."""
        verb = parsed.verb.split(":")[1]
        game = Game.get_or_none((Game.id == int(parsed.choice)) & (Game.forum == self.forum.name))
        tag = f"G{parsed.choice}"
        if game is None:
            self._reply(row, None, f"There is no game {tag}.", i)
            return
        if not game.game_config().is_host(row.author):
            self._reply(row, game, f"Only the host of {tag} may use {verb.upper()}. Nothing was changed.", i)
            return
        if verb not in HOST_COMMANDS:
            self._reply(row, game, f"{verb.upper()} is not available in this version of the bot yet.", i)
            return
        rest = parsed.extra.strip()
        if game.status == "signup":
            self._signup_ready(game, at)
            self.signups.host(game, verb, rest, row, i, at)
        else:
            self._host_command_on(game, verb, rest, row, i, at)

    def _host_command_on(self, game: Game, verb: str, rest: str, row: Inbound, i: int, at: datetime) -> None:
        tag = game.tag
        self._fire_game_deadlines(game, at, command=True)
        state = self.state(game)
        if verb == "signups":
            self._reply(row, game, f"{tag} has started: sign-ups are over.", i)
            return
        if verb == "status":
            plays = self._seat_name(game, row.author) is not None
            self._reply(row, game, self.status_text(game) if plays else host_status(state, game.tag), i)
            return
        if not state.running:
            self._reply(row, game, f"{tag} is over.", i)
            return
        if verb == "pause" and rest:
            until = _until(rest, state.config)
            if until is None:
                self._reply(row, game, f"PAUSE ... UNTIL needs a date and time. The right form: "
                            f"`PAUSE {tag} UNTIL 2026-12-05 18:00` (in "
                            f"{state.config.timezone or 'UTC'})", i)
                return
            command = HostPause(at=at, author=row.author, until=until)
        elif verb == "extend":
            seconds = deadlines.extension(rest)
            if not seconds:
                self._reply(row, game, f"EXTEND needs a duration. The right form: `EXTEND {tag} 6h`", i)
                return
            command = HostExtend(at=at, author=row.author, seconds=seconds)
        elif verb == "disqualify":
            name = resolve_name(rest, state.names, state.aliases())
            if isinstance(name, NameProblem):
                self._reply(row, game, name.message + f" The right form: `DISQUALIFY {tag} name`", i)
                return
            command = HostDisqualify(at=at, author=row.author, target=name)
        elif verb == "record":
            form = (f"The right form: `RECORD {tag} name APPROVE` (or REJECT, SUPPORT, SABOTAGE, "
                    "`PROPOSE: a, b`, `LADY: x` ...)")
            first, _, what = rest.partition(" ")
            name = resolve_name(first, state.names, state.aliases())
            if isinstance(name, NameProblem):
                self._reply(row, game, f"{name.message} {form}", i)
                return
            inner = parse_command(what)
            if inner is None or inner.verb in ("status", "help", "join", "leave") or inner.verb.startswith("host:"):
                self._reply(row, game, f"RECORD needs a player and what they sent. {form}", i)
                return
            plays = self._seat_name(game, row.author) is not None
            if plays and inner.verb in SIDED:
                # whether it would be taken depends on a side or a role, and so would the
                # thread's "the host recorded ...": a host who plays learns nothing from it
                self._reply(row, game, ops.record_sided(tag), i)
                return
            built = self._command_for(state, inner, name, "thread" if name == state.public else "pm", at)
            if isinstance(built, str):
                self._reply(row, game, built, i)
                return
            command = HostRecord(at=at, author=row.author, inner=built)
            if plays:  # a host who plays: a refusal could tell a side
                result = apply(state, command)
                if isinstance(result, Refusal):
                    self._reply(row, game, f"{tag}: that could not be recorded for {name} now. "
                                "Nothing was changed.", i)
                    return
        elif verb == "replace":
            form = f"The right form: `REPLACE {tag} oldname WITH newname`"
            parts = re.split(r"\s+with\s+", rest, flags=re.I)
            if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
                self._reply(row, game, f"REPLACE needs two names. {form}", i)
                return
            name = resolve_name(parts[0], state.names, state.aliases())
            if isinstance(name, NameProblem):
                self._reply(row, game, f"{name.message} {form}", i)
                return
            newcomer = clean_name(parts[1])
            if self._watches(game, newcomer):
                self._reply(row, game, f"{newcomer} is a spectator of {tag} and has seen every "
                            "role, so they cannot take a seat. Nothing was changed.", i)
                return
            command = HostReplace(at=at, author=row.author, target=name, newcomer=newcomer)
        else:
            command = HOST_COMMANDS[verb](at=at, author=row.author)
        if self._apply(game, command, row, i):
            self._reply(row, game, f"{tag}: {verb.upper()} done.", i)
