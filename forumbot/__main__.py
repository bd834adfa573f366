import sys

try:  # Ctrl-C while Python finds and loads the command line: one line, no traceback
    from .cli.main import main
except KeyboardInterrupt:
    print("forumbot: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
