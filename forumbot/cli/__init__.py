"""The command line: run, demo, doctor, the local forum's tools (cli/main.py).

Ctrl-C while it starts stops it at once, in one line: forumbot/__init__.py puts that handler
in before the command line's modules load, and main() leaves it there."""
