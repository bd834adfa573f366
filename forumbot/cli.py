"""forumbot run | run --once | demo | export | check-config"""
from __future__ import annotations

import argparse
import json
import logging
import sys

from . import store


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="forumbot", description="A game master bot for The Resistance and Avalon on forums.")
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="moderate forever: poll, process, post, keep deadlines")
    run.add_argument("--once", action="store_true", help="one full cycle, then exit")
    run.add_argument("--settings")
    demo = sub.add_parser("demo", help="a whole game with simulated players on the local forum")
    demo.add_argument("--preset", default="resistance")
    demo.add_argument("--players", type=int, default=7)
    demo.add_argument("--seed", type=int, default=1)
    exp = sub.add_parser("export", help="a game's full record as JSON")
    exp.add_argument("game", help="the game tag, like G12")
    exp.add_argument("--settings")
    chk = sub.add_parser("check-config", help="validate a config message")
    chk.add_argument("file")
    chk.add_argument("--settings", help="the bot's settings: its account may not be named in the config")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    return {"run": _run, "demo": _demo, "export": _export, "check-config": _check}[args.command](args)


def _settings_and_store(args, hold=None):
    """Load the settings and open the database; None (after saying why) if they are bad or
    the database cannot be opened. With `hold` (a contextlib.ExitStack), first take the bot
    lock (one bot per database) and keep it on `hold`; raises botlock.BotLockHeld if another
    bot has it."""
    from .botlock import BotLockHeld, acquire
    from .settings import SettingsError, load_settings

    try:
        settings = load_settings(args.settings)
    except SettingsError as e:
        print(f"settings: {e}", file=sys.stderr)
        return None
    try:
        if hold is not None:
            hold.enter_context(acquire(settings.database_url))
        store.connect(settings.database_url)
    except BotLockHeld:
        raise
    except Exception as e:  # unreachable, a bad URL, a missing directory: one line
        why = (str(e).strip().splitlines() or [type(e).__name__])[0]
        print(f"database: {why}", file=sys.stderr)
        return None
    return settings


def _run(args) -> int:
    from contextlib import ExitStack

    from .botlock import BotLockHeld
    from .moderator import Moderator
    from .scheduler import run_forever
    from .settings import make_forum

    with ExitStack() as hold:  # the bot lock, held until the bot is done
        try:
            settings = _settings_and_store(args, hold=hold)
        except BotLockHeld as e:
            print(f"run: {e}", file=sys.stderr)
            return 3
        if settings is None:
            return 2
        mod = Moderator(make_forum(settings), hosts=settings.hosts,
                        writes_per_minute=settings.writes_per_minute,
                        outage_grace=settings.outage_grace, poll_interval=settings.poll_interval)
        if args.once:
            report = mod.cycle()
            print(f"fetched {report.fetched}, handled {report.handled}, posted {report.posted}, "
                  f"deadlines {report.deadlines}")
            return 0
        run_forever(mod, settings.poll_interval)
        return 0


def _demo(args) -> int:
    from .demo import NAMES, run_demo
    from .rules.presets import MAX_PLAYERS, MIN_PLAYERS, PRESETS

    if args.preset not in PRESETS or not PRESETS[args.preset].available:
        ok = ", ".join(p for p, v in PRESETS.items() if v.available)
        print(f"demo: preset {args.preset!r} is not playable yet; choose one of: {ok}", file=sys.stderr)
        return 2
    fixed = PRESETS[args.preset].fixed_roster
    if fixed and args.players != len(fixed[0]) + len(fixed[1]):
        print(f"demo: {args.preset} is for exactly {len(fixed[0]) + len(fixed[1])} players", file=sys.stderr)
        return 2
    if not MIN_PLAYERS <= args.players <= min(MAX_PLAYERS, len(NAMES)):
        print(f"demo: --players must be {MIN_PLAYERS} to {MAX_PLAYERS}", file=sys.stderr)
        return 2
    logging.getLogger().setLevel(logging.WARNING)
    result = run_demo(args.preset, args.players, args.seed)
    return 0 if result["winner"] else 1


def _export(args) -> int:
    from .export import export_game

    if _settings_and_store(args) is None:
        return 2
    tag = args.game.strip().upper().removeprefix("G")
    game = store.Game.get_or_none(store.Game.id == int(tag)) if tag.isdigit() else None
    if game is None:
        print(f"export: no game {args.game}", file=sys.stderr)
        return 1
    json.dump(export_game(game), sys.stdout, indent=2, ensure_ascii=False)
    print()
    return 0


def _check(args) -> int:
    from .parsing import parse_config
    from .settings import SettingsError, load_settings

    try:  # the bot's own account (the default `forumbot` with no settings file)
        bot_name = load_settings(args.settings).bot_name
    except SettingsError as e:
        print(f"settings: {e}", file=sys.stderr)
        return 2
    try:
        with open(args.file, encoding="utf-8-sig") as f:
            text = f.read()
    except OSError as e:
        print(f"check-config: {e}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"check-config: {args.file} is not UTF-8 text", file=sys.stderr)
        return 2
    cfg, problems = parse_config(text, host="(host)", bot_name=bot_name)
    if problems:
        print(f"{args.file}: {len(problems)} problem{'s' if len(problems) != 1 else ''}:")
        for p in problems:
            print(f"  {p.key}: {p.message}")
        return 1
    print(f"{args.file}: OK: {cfg.preset}, {len(cfg.players)} players")
    return 0


if __name__ == "__main__":
    sys.exit(main())
