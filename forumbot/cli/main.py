"""forumbot run | run --once | demo | export | check-config | doctor | local (commands.md,
"The command line"). Every error a user can cause is one line on stderr and a non-zero
exit, never a traceback:

- EXIT_CODES below (docs/reference.md, "Exit codes"): 0 done; 1 the work failed; 2 the
  command or a file it was given is unusable; 3 another bot holds the database.

What only some commands need (the database libraries, the cycle, YAML, the archive page) is
imported inside the command, when it runs: every other command starts without it."""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from contextlib import ExitStack

from .. import __version__, stop_at_once
from ..logs import configure_logging, held_back
from ..masking import masked_text
from ..rules.presets import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from .problems import database_problem, one_line, read_text, short_error

SETTINGS_HELP = "the settings file (default: ./settings.ini, or the path in $FORUMBOT_SETTINGS)"
EXIT_CODES = ("Exit codes: 0 done; 1 the work failed (the forum or the database failed, a check "
              "found a problem: doctor, check-config, no such game or thread); 2 the command or a "
              "file it was given is unusable (usage, a missing or unwritable file, a bad setting "
              "or option); 3 another bot holds the database.")


def version() -> str:
    from importlib.metadata import version as installed  # (only for --version: it loads slowly)

    try:
        return installed("forumbot")
    except Exception:  # not installed as a package (run from a checkout)
        return __version__


class _Version(argparse.Action):
    """--version, looked up only when asked (argparse's own action wants the text up front)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show the program's version number and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"forumbot {version()}")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    presets = ", ".join(p for p, v in PRESETS.items() if v.available)
    ap = argparse.ArgumentParser(
        prog="forumbot", description="A game master bot for The Resistance and Avalon on forums.",
        epilog="Start with `forumbot demo`; the README has a game on the local forum, and "
               "docs/operating.md how to deploy on a server. " + EXIT_CODES)
    ap.add_argument("--version", action=_Version)
    # --settings before the command too (`forumbot --settings FILE doctor`); the commands'
    # own --settings leave it alone unless given (SUPPRESS), and win when both are
    ap.add_argument("--settings", metavar="FILE", default=None, help=SETTINGS_HELP)
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND",
                            help="what to do (each has --help)")

    run = sub.add_parser("run", help="moderate forever: poll, process, post, keep deadlines",
                         description="Moderate forever: poll the forum, process, post, keep the "
                                     "deadlines. SIGTERM finishes the cycle under way, then stops.")
    run.add_argument("--once", action="store_true",
                     help="one full cycle, then exit (non-zero if the forum could not be read)")
    run.add_argument("--settings", metavar="FILE", default=argparse.SUPPRESS, help=SETTINGS_HELP)

    demo = sub.add_parser("demo", help="a whole game with simulated players on the local forum",
                          description="A whole game with simulated players on the built-in local "
                                      "forum, printed as the thread would read. Needs no account.")
    demo.add_argument("--preset", default="resistance", metavar="P",
                      help=f"the rule set: {presets} (default: resistance)")
    demo.add_argument("--players", type=int, default=None, metavar="N",
                      help=f"the table size, {MIN_PLAYERS} to {MAX_PLAYERS} (default: 7, or the "
                           "preset's only size)")
    demo.add_argument("--seed", type=int, default=1, metavar="S",
                      help="the same seed plays the same game (default: 1)")
    demo.add_argument("--with", dest="modules", action="append", default=[], metavar="MODULE",
                      help="play a rule module too (repeatable): excalibur, lovers (avalon)")
    demo.add_argument("--html", metavar="FILE",
                      help="also write the finished game's archive page to FILE, as `export --html` does")

    exp = sub.add_parser("export", help="a game's full record as JSON (roles included)",
                         description="A game's full record as JSON on stdout: the operator's "
                                     "view, hidden roles included.")
    exp.add_argument("game", help="the game tag, like G12")
    exp.add_argument("--html", metavar="FILE",
                     help="instead, a one-page HTML archive of the game for its players (- for stdout)")
    exp.add_argument("--settings", metavar="FILE", default=argparse.SUPPRESS, help=SETTINGS_HELP)

    chk = sub.add_parser("check-config", help="validate a config message without starting a game")
    chk.add_argument("file", help="the config (YAML, as a host would PM it)")
    chk.add_argument("--settings", metavar="FILE", default=argparse.SUPPRESS,
                     help="the bot's settings: its account may not be named in the config")

    doc = sub.add_parser("doctor", help="check the settings against the real forum before a first run",
                         description="Check the settings before a first run: the login, each "
                                     "place for new threads (a subreddit, a category), private messages, "
                                     "the database and its lock. One line per check; non-zero if any fails.")
    doc.add_argument("--settings", metavar="FILE", default=argparse.SUPPRESS, help=SETTINGS_HELP)

    loc = sub.add_parser("local", help="act as a person on the embedded local forum",
                         description="Act as a person on the embedded local forum, so that people "
                                     "can play a real game there without an account. Run "
                                     "`forumbot run` beside it, or `forumbot run --once` after "
                                     "each step.")
    loc.add_argument("--settings", metavar="FILE", default=argparse.SUPPRESS,
                     help=SETTINGS_HELP + "; [local] path names the forum")
    acts = loc.add_subparsers(dest="action", required=True, metavar="ACTION",
                              help="what the person does")
    say = acts.add_parser("say", help="comment in a thread as USER")
    say.add_argument("user", help="who writes")
    say.add_argument("thread", help="the thread: t1, or a game tag like G1")
    say.add_argument("text", help="the comment; commands in bold: '**APPROVE**'")
    pm = acts.add_parser("pm", help="send the bot a private message as USER")
    pm.add_argument("user", help="who writes")
    pm.add_argument("text", nargs="?", help="the message (- reads it from stdin)")
    pm.add_argument("--subject", "-s", default="", help="the subject: `new game` for a config")
    pm.add_argument("--file", "-f", metavar="FILE", help="the message is this file (a config)")
    read = acts.add_parser("read", help="list the threads, or read one")
    read.add_argument("thread", nargs="?", help="the thread: t1, or a game tag like G1")
    inbox = acts.add_parser("inbox", help="USER's private messages from the bot (new ones)")
    inbox.add_argument("user", help="whose messages")
    inbox.add_argument("--all", action="store_true", help="every message, not only the new ones")
    for p in (say, pm, read, inbox):
        p.add_argument("--settings", metavar="FILE", default=argparse.SUPPRESS, help=SETTINGS_HELP)
    return ap


def main(argv: list[str] | None = None) -> int:
    before = _catch_interrupts()
    command = "forumbot"  # (the command's name, once it is known)
    try:
        ap = _parser()
        try:
            args, extra = ap.parse_known_args(argv)
            if (extra and len(extra) == 1 and getattr(args, "action", None) == "pm"
                    and args.text is None and not extra[0].startswith("-")):
                args.text = extra[0]  # `local pm USER --subject S TEXT`: the text after an option
            elif extra:
                ap.error(f"unrecognized arguments: {' '.join(extra)}")
        except SystemExit as e:  # --help, --version, a usage error (argparse said why)
            return e.code if isinstance(e.code, int) else 2
        command = args.command
        configure_logging("info", "text")
        commands = {"run": _run, "demo": _demo, "export": _export, "check-config": _check,
                    "doctor": _doctor, "local": _local}
        code = commands[args.command](args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:  # `forumbot export G1 | head`: the reader stopped reading
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # (so that the flush at exit is quiet too)
        print(f"{command}: the output was closed before all of it was written", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C anywhere: starting (settings, the database), working
        print(f"{command}: interrupted", file=sys.stderr)
        return 130
    finally:
        if before is not None:
            signal.signal(signal.SIGINT, before)


def _catch_interrupts():
    """Ctrl-C: the first raises KeyboardInterrupt (main() says "interrupted" in one line; `run`'s
    scheduler puts its own handler in while it runs: the cycle under way finishes first); a
    second one, while the first is being dealt with, stops the process at once, in one line.
    The handler it replaced (None outside the main thread, where no handler can be set, and
    in the command line, where forumbot/__init__.py's stops at once: raised as an exception,
    a Ctrl-C could be swallowed on the way, by a C extension's import or a finalizer)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is stop_at_once):
        return None
    seen = []

    def interrupted(signum, frame):
        if seen:
            os.write(2, b"forumbot: interrupted again: stopped at once\n")
            os._exit(130)
        seen.append(signum)
        raise KeyboardInterrupt

    return signal.signal(signal.SIGINT, interrupted)


# --- settings and the database ---------------------------------------------------------------


def _settings_and_store(args, hold=None, must_exist: bool = False):
    """Load the settings and open the database: (the settings, 0), or (None, the exit code)
    after saying why: 2 if the settings or the database's file cannot be used, 1 if a
    database server failed (it is unreachable, it refused the login). With `hold` (a
    contextlib.ExitStack), first take the bot lock (one bot per database) and keep it on
    `hold`; raises botlock.BotLockHeld if another bot has it. With `must_exist`, an SQLite
    database that is not there yet is not made."""
    from .. import store  # (imported when the command runs)
    from ..botlock import BotLockHeld, acquire  # (imported when the command runs)
    from ..settings import SettingsError, load_settings  # (imported when the command runs)

    try:
        settings = load_settings(args.settings)
    except SettingsError as e:
        print(f"settings: {e}", file=sys.stderr)
        return None, 2
    configure_logging(settings.log_level, settings.log_format)
    url = settings.database_url
    problem = database_problem(url, must_exist)
    if problem:
        print(f"database: {problem}", file=sys.stderr)
        return None, 2
    try:
        if hold is not None:
            hold.lock = hold.enter_context(acquire(url))  # (for run's Keeper)
        store.connect(url)
    except BotLockHeld:
        raise
    except Exception as e:  # unreachable, a bad URL, a missing directory: one line
        why = one_line(e)
        if (url.lower().startswith("postgres") and ("refused" in why or "timeout" in why)
                and "Is the server running" not in why):
            why += " (is PostgreSQL running there, and is [database] url right?)"
        print(f"database: {why}", file=sys.stderr)
        return None, 1 if url.lower().startswith(("postgres", "psycopg")) else 2
    return settings, 0


# --- the commands -----------------------------------------------------------------------------


def _run(args) -> int:
    from ..botlock import BotLockHeld, Keeper  # (imported when the command runs)
    from ..settings import SettingsError, load_settings, make_forum, require_forum  # (imported when the command runs)
    from ..shell.moderator import Moderator  # (imported when the command runs)

    try:  # an unfilled settings.example.ini: say what to fill in, before anything is made
        require_forum(load_settings(args.settings))
    except SettingsError as e:
        print(f"settings: {e}", file=sys.stderr)
        return 2
    with ExitStack() as hold:  # the bot lock, held until the bot is done
        try:
            settings, code = _settings_and_store(args, hold=hold)
        except BotLockHeld as e:
            print(f"run: {e}", file=sys.stderr)
            return 3
        if settings is None:
            return code
        try:
            forum = make_forum(settings)
        except SettingsError as e:
            print(f"settings: {e}", file=sys.stderr)
            return 2
        mod = Moderator(forum, hosts=settings.hosts,
                        writes_per_minute=settings.writes_per_minute,
                        outage_grace=settings.outage_grace, poll_interval=settings.poll_interval)
        if args.once:
            with held_back() as log_lines:  # (the failure the verdict names is not logged too)
                report = mod.cycle()
                failed = [e for e in report.errors if e.startswith(("fetch:", "database:"))]
                if failed:
                    log_lines.drop(failed[0].partition(": ")[2])
            print(f"fetched {report.fetched}, handled {report.handled}, posted {report.posted}, "
                  f"deadlines {report.deadlines}")
            if failed:
                hint = " (`forumbot doctor` checks the settings)" if settings.forum != "local" else ""
                print(f"run: the cycle did not get through: {masked_text(short_error(failed[0]))}{hint}",
                      file=sys.stderr)
                return 1
            return 0
        from ..shell.scheduler import run_forever  # (APScheduler: not for a cycle run --once)

        keeper = Keeper(hold.lock, settings.database_url)  # type: ignore[attr-defined]
        hold.callback(keeper.release)  # (the lock it holds may be a new one)
        mod.keeper = keeper
        return run_forever(mod, settings.poll_interval) or 0


def _demo(args) -> int:
    from .demo import NAMES, run_demo, write_archive  # (imported when the command runs)

    if args.preset not in PRESETS or not PRESETS[args.preset].available:
        ok = ", ".join(p for p, v in PRESETS.items() if v.available)
        print(f"demo: preset {args.preset!r} is not playable yet; choose one of: {ok}", file=sys.stderr)
        return 2
    fixed = PRESETS[args.preset].fixed_roster
    size = len(fixed[0]) + len(fixed[1]) if fixed else None
    players = args.players if args.players is not None else (size or 7)
    if fixed and players != size:
        print(f"demo: {args.preset} is for exactly {size} players", file=sys.stderr)
        return 2
    if not MIN_PLAYERS <= players <= min(MAX_PLAYERS, len(NAMES)):
        print(f"demo: --players must be {MIN_PLAYERS} to {MAX_PLAYERS}", file=sys.stderr)
        return 2
    configure_logging("warning")
    result = run_demo(args.preset, players, args.seed, modules=tuple(args.modules))
    if result.get("problems"):  # a --with MODULE the preset does not have: the command's fault
        return 2
    if args.html:
        if write_archive(args.html):  # (it cannot write FILE)
            return 2
        if args.html != "-":
            print(f"The game's archive page: {args.html}")
    return 0 if result["winner"] else 1


def _export(args) -> int:
    from .. import store  # (imported when the command runs)
    from ..archive.export import export_game  # (imported when the command runs)
    from ..parsing import game_number  # (imported when the command runs)

    settings, code = _settings_and_store(args, must_exist=True)
    if settings is None:
        return code
    tag = args.game.strip().upper().removeprefix("G")
    game = store.Game.get_or_none(store.Game._meta.primary_key == game_number(tag)) if tag.isdigit() else None
    if game is None:
        print(f"export: no game {args.game}", file=sys.stderr)
        return 1
    if args.html:
        from ..archive.page import export_html_command  # (imported when the command runs)

        return 2 if export_html_command(game, args.html) else 0  # (it cannot write FILE)
    json.dump(export_game(game), sys.stdout, indent=2, ensure_ascii=False)
    print()
    sys.stdout.flush()
    return 0


def _check(args) -> int:
    from ..gameconfig import parse_config  # (imported when the command runs)
    from ..settings import SettingsError, load_settings  # (imported when the command runs)

    try:  # the bot's own account (the default `forumbot` with no settings file)
        bot_name = load_settings(args.settings).bot_name
    except SettingsError as e:
        print(f"settings: {e}", file=sys.stderr)
        return 2
    text = read_text(args.file, "check-config")
    if text is None:
        return 2
    cfg, problems = parse_config(text, host="(host)", bot_name=bot_name)
    listed = 20  # problems listed; the rest counted (as the bot's answer does)
    if problems:
        print(f"{args.file}: {len(problems)} problem{'s' if len(problems) != 1 else ''}:")
        for p in problems[:listed]:
            print(f"  {p.key}: {p.message}")
        if len(problems) > listed:
            print(f"  ... and {len(problems) - listed} more; fix these first.")
        return 1
    assert cfg is not None  # (no problems: a config)
    if cfg.players:
        table = f"{len(cfg.players)} players"
    else:
        table = f"sign-ups for {cfg.min_players} to {cfg.max_players} players"
    print(f"{args.file}: OK: {cfg.preset}, {table}")
    return 0


def _doctor(args) -> int:
    from .doctor import doctor  # (imported when the command runs)

    return doctor(args.settings)


# --- the local forum, as people use it ------------------------------------------------------


def _local(args) -> int:
    from .local import local  # (imported when the command runs)

    return local(args)


if __name__ == "__main__":
    sys.exit(main())
