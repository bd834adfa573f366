"""`forumbot export GAME --html FILE`: a game as one self-contained page to share.

The page holds no script and loads nothing: the CSS is inline, the symbols are text. It
is built from the game's record (export.py) and the state its events replay to, through
Jinja2 templates with autoescape on, since names, the title and the intro come from users.

While a game runs, the page shows only what the thread has shown: no role, no side, no
one's mission order (a designated public order and In the Spotlight excepted), no card or
Lady of the Lake reveal, no sabotage count on a mission that hides it, and not the seed
(it would replay the deal). Once the game has ended, the roles and the orders are revealed.
"""
from __future__ import annotations

import os
import sys
import tempfile

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from .. import store
from ..render import archive as words
from ..rules import events as ev
from ..rules import replay
from ..rules.presets import TEAM_SIZES, fails_needed
from ..rules.roles import role_set
from ..rules.state import FINISHED, SPIES, GameState
from .export import export_game
from .seats import seat_changes
from .story import _Clock, _grid, _missions, _reveal, _timeline

__all__ = ["render_html", "write_html", "export_html_command", "archive_view"]

_ENV: Environment | None = None


def _env() -> Environment:
    global _ENV
    if _ENV is None:
        _ENV = Environment(loader=PackageLoader("forumbot", "templates"), autoescape=True,
                           undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return _ENV


def render_html(game: store.Game) -> str:
    """The page of `game`, as one HTML document."""
    env = _env()
    assert env.loader is not None  # (_env gives it one)
    css = Markup(env.loader.get_source(env, "archive.css")[0])  # CSS as it is: never escaped
    return env.get_template("archive.html").render(css=css, **archive_view(game))


def write_html(game: store.Game, path: str | os.PathLike) -> None:
    """Write the page of `game` to `path`, whole or not at all (a temporary file, renamed)."""
    text = render_html(game)
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".archive-", suffix=".html", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def export_html_command(game: store.Game, path: str) -> int:
    """What `forumbot export GAME --html FILE` does: the page to FILE (`-`: stdout), and one
    clear line on stderr, never a traceback, if FILE cannot be written."""
    try:
        if path == "-":
            sys.stdout.write(render_html(game))
            sys.stdout.flush()
        else:
            write_html(game, path)
    except OSError as e:
        print(f"export: cannot write {path}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


# --- the view: everything the template shows, secrets already left out ------------------
def archive_view(game: store.Game) -> dict:
    """What the page shows, as plain data. A running game's view holds only public facts."""
    record = export_game(game)
    cfg = game.game_config()
    rows = list(store.Event.select().where(store.Event.game == game).order_by(store.Event.seq))
    events = [r.to_rule_event() for r in rows]
    state = replay(cfg, game.seed, events)
    reveal = state.phase == FINISHED  # the end post has revealed every role
    clock = _Clock(cfg.timezone)
    n = len(state.seats)
    p = cfg.rules

    started = next((e.at for e in events if e.type == ev.GAME_STARTED), None)
    ended = next((e.at for e in events if e.type == ev.GAME_ENDED), None)
    created = store.aware(game.created_at) if game.created_at else None

    view: dict = {
        "tag": record["game"], "title": cfg.title, "intro": cfg.intro, "preset": p.title,
        "host": cfg.host, "cohosts": list(cfg.cohosts),
        "status": record["status"], "reveal": reveal, "running": state.running,
        "players_count": n, "spy_count": len(state.spies()) if n else 0,
        "spies_word": p.spies_name.removeprefix("the "),
        "started": clock.day(started) if started else (clock.day(created) if created else ""),
        "ended": clock.day(ended) if ended else "",
        "lasted": words.lasted((ended - started).total_seconds()) if started and ended else None,
        "as_of": clock.moment(state.last_event_at)["full"] if state.last_event_at else "",
        "thread_url": _thread_link(record.get("thread")),
        "roles_in_play": _roles_in_play(state) if n else [],
        "signups": record.get("signups", []),
    }
    view["outcome"] = words.outcome(state) if state.phase == FINISHED else None
    view["now"] = {"text": words.open_step(state), "mission": state.mission} if state.running else None
    replacements = seat_changes(events)
    view["players"] = [_player(state, s, reveal, replacements) for s in state.seats]
    view["track"] = _track(state) if n in TEAM_SIZES else []
    view["score"] = {"success": state.successes(), "fail": state.failures()}
    view["grid"] = _grid(state, view["players"], events)
    view["missions"] = _missions(state, events, reveal)
    view["reveal_sides"] = _reveal(state, events) if reveal else []
    view["timeline"] = _timeline(state, events, clock)
    view["deadlines"] = words.deadline_words(cfg)
    return view


def _thread_link(thread) -> str | None:
    """Only a web address is a link: never a `javascript:` or a local id."""
    if isinstance(thread, str) and thread.startswith(("https://", "http://")):
        return thread
    return None


def _roles_in_play(state: GameState) -> list[str]:
    c = state.config
    roster = getattr(role_set(c), "roster", None)  # (a role set without special roles has none)
    if roster is None or not (c.roles or c.rules.fixed_roster or c.preset.startswith("avalon")):
        return []
    good, evil = roster(c, len(state.seats))
    return [words.role_name(r) for r in good + evil]


def _player(state: GameState, seat, reveal: bool, replacements) -> dict:
    """A seat as the page shows it: the username on it now (`seat`: its id, for the grid)."""
    out = {"name": seat.name, "seat": seat.id, "disqualified": seat.disqualified,
           "replaced": replacements.get(seat.id, []), "role": None, "short_role": None,
           "side": None, "side_name": None}
    if reveal:
        out.update(role=words.role_name(seat.role), short_role=words.short_role(seat.role),
                   side="spies" if seat.side == SPIES else "resistance",
                   side_name=words.side_title(state, seat.side))
    return out


def _track(state: GameState) -> list[dict]:
    n = len(state.seats)
    out = []
    for i in range(1, 6):
        done = next((m for m in state.missions if m.number == i), None)
        out.append({
            "number": i, "size": TEAM_SIZES[n][i - 1], "two_fails": fails_needed(state.config.rules, n, i) == 2,
            "result": done.result if done else None,
            "current": state.running and state.mission == i and not done,
        })
    return out
