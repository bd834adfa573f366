"""The command line: run, demo, doctor, the local forum's tools.

Ctrl-C while the command line's modules load (about half a second, before main() runs, and
wherever in the import machinery it lands) ends the process at once, in one line: there is
nothing to finish yet. cli/main.py puts Python's own handler back once its modules are in,
and main() puts in its own. A program that imports a part of the command line (the bench,
a test) keeps Python's handler."""
import os
import signal
import sys


def interrupted_while_loading(signum, frame) -> None:
    os.write(2, b"forumbot: interrupted\n")
    os._exit(130)


def _is_the_command_line() -> bool:
    """This process is `forumbot` (the script pip makes) or `python -m forumbot`."""
    argv0 = (sys.argv or [""])[0]
    name = os.path.basename(argv0)
    return name.partition(".")[0] == "forumbot" or (
        name == "__main__.py" and os.path.basename(os.path.dirname(argv0)) == "forumbot")


if _is_the_command_line() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    try:
        signal.signal(signal.SIGINT, interrupted_while_loading)
    except ValueError:  # (not the main thread: no handler can be set there)
        pass
