"""forumbot: a game master for play-by-post The Resistance and Avalon.

Ctrl-C while `forumbot` starts: this is the first of the bot's code that runs (Python imports
the package before any module of it, whether from the `forumbot` script or `python -m
forumbot`), so when this process is the command line it puts in at once the handler that
stops it in one line, before anything heavy is imported. It stays until `run`'s scheduler
puts in its own (the cycle under way finishes first, a second Ctrl-C stops at once): before
that there is nothing to finish, and a handler that raised KeyboardInterrupt could see it
swallowed (a C extension's import, a finalizer) and the bot carry on. A program that
imports the bot (a test, the bench) keeps Python's handler. What Python does before this
line runs (its own start-up, some milliseconds) is Python's."""
import os as _os
import signal as _signal
import sys as _sys

__version__ = "0.1.0"


def stop_at_once(signum, frame) -> None:
    """Ctrl-C: one line, exit 130, nothing else run (no traceback, no clean-up to wait for)."""
    _os.write(2, b"forumbot: interrupted\n")
    _os._exit(130)


def is_the_command_line(argv: list[str] | None = None) -> bool:
    """This process is `forumbot` (the script pip makes), `python -m forumbot`, or `python -m
    forumbot.cli...`, read from the interpreter's own arguments."""
    args = list(_sys.orig_argv if argv is None else argv)[1:]
    while args:
        arg = args.pop(0)
        if arg in ("-X", "-W"):  # (the options that take a separate value)
            args[:1] = []
        elif arg == "-m" or (arg.startswith("-m") and len(arg) > 2):
            module = arg[2:] or (args[0] if args else "")
            return module == "forumbot" or module.startswith("forumbot.cli")
        elif arg == "-" or arg.startswith("-c") or arg == "--":
            return False
        elif not arg.startswith("-"):  # the script: bin/forumbot, or forumbot/__main__.py
            name = _os.path.basename(arg)
            return name.partition(".")[0] == "forumbot" or (
                name == "__main__.py" and _os.path.basename(_os.path.dirname(arg)) == "forumbot")
    return False


if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler and is_the_command_line():
    try:
        _signal.signal(_signal.SIGINT, stop_at_once)
    except ValueError:  # (not the main thread: no handler can be set there)
        pass
