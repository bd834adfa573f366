"""`forumbot local say | pm | read | inbox`: acting on the embedded local forum as a player
would, so that the bot can be tried on one machine (commands.md, "The command line")."""
from __future__ import annotations

import os
import re
import sys

from adapters.base import PermanentError
from adapters.local import LocalForum

from ..settings import SettingsError, load_settings
from .problems import one_line, read_text


def local(args) -> int:
    return _local(args)


def _local(args) -> int:
    try:
        settings = load_settings(getattr(args, "settings", None))
    except SettingsError as e:
        print(f"settings: {e}", file=sys.stderr)
        return 2
    if settings.forum != "local":
        print(f"local: the settings use forum = {settings.forum}; these commands act on the "
              "embedded local forum ([bot] forum = local)", file=sys.stderr)
        return 2
    path = settings.local_path
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        print(f"local: the folder {folder} does not exist ([local] path = {path})", file=sys.stderr)
        return 2
    try:
        forum = LocalForum(path, bot_name=settings.bot_name)
    except Exception as e:
        print(f"local: {path}: {one_line(e)}", file=sys.stderr)
        return 2
    return {"say": _say, "pm": _pm, "read": _read, "inbox": _inbox}[args.action](forum, args)


def _user(name: str) -> str | None:
    name = re.sub(r"^(?:/?u/|@)", "", name.strip())
    return name if re.fullmatch(r"[A-Za-z0-9_-]{1,40}", name) else None


def _stamp(created: str) -> str:
    return created[:16].replace("T", " ")


def _say(forum, args) -> int:
    user = _user(args.user)
    if user is None:
        print(f"local say: {args.user!r} is not a username (letters, digits, _ and -)", file=sys.stderr)
        return 2
    thread = forum.find_thread(args.thread)
    if thread is None:
        print(f"local say: no thread {args.thread} on the local forum (`forumbot local read` "
              "lists them)", file=sys.stderr)
        return 1
    try:
        cid = forum.comment(user, thread, args.text)
    except PermanentError as e:
        print(f"local say: {e}", file=sys.stderr)
        return 1
    print(f"{user} commented in {thread} ({cid})")
    return 0


def _pm(forum, args) -> int:
    user = _user(args.user)
    if user is None:
        print(f"local pm: {args.user!r} is not a username (letters, digits, _ and -)", file=sys.stderr)
        return 2
    if args.file:
        read = read_text(args.file, "local pm")
        if read is None:
            return 2
        text = read
    elif args.text == "-":
        text = sys.stdin.read()
    elif args.text:
        text = args.text
    else:
        print("local pm: write the message (or --file FILE, or - to read it from stdin)",
              file=sys.stderr)
        return 2
    mid = forum.send_pm(user, forum.bot_name, args.subject, text)
    print(f"{user} sent a PM to {forum.bot_name} ({mid})")
    return 0


def _read(forum, args) -> int:
    if args.thread is None:
        threads = forum.threads()
        if not threads:
            print("No threads yet on the local forum: the bot opens one when a game starts "
                  "(PM it a config, then `forumbot run --once`).")
            return 0
        for t in threads:
            n = len(forum.thread_comments(f"t{t['id']}"))
            print(f"t{t['id']}  {t['title']}  (by {t['author']}, {n} comment{'s' if n != 1 else ''})")
        return 0
    thread = forum.find_thread(args.thread)
    if thread is None:
        print(f"local read: no thread {args.thread} on the local forum (`forumbot local read` "
              "lists them)", file=sys.stderr)
        return 1
    t = forum.thread_row(thread)
    print(f"=== {t['title']} ({thread}) ===\n[{_stamp(t['created'])}] {t['author']}:\n{t['body']}\n")
    for c in forum.thread_comments(thread):
        print(f"[{_stamp(c['created'])}] {c['author']}:\n{c['body']}\n")
    return 0


def _inbox(forum, args) -> int:
    user = _user(args.user)
    if user is None:
        print(f"local inbox: {args.user!r} is not a username", file=sys.stderr)
        return 2
    rows = forum.messages_to(user, unread_only=not args.all)
    if not rows:
        print(f"No new messages for {user}." + ("" if args.all else " (--all shows every one)"))
        return 0
    for r in rows:
        subject = f" | {r['subject']}" if r["subject"] else ""
        print(f"--- [{_stamp(r['created'])}] from {r['sender']}{subject}\n{r['body']}\n")
    forum.mark_user_read(user, [r["id"] for r in rows])
    return 0
