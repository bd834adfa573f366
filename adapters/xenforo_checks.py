"""`forumbot doctor` on XenForo: the key works and acts as the bot, it has the scopes the bot
needs, the game forum takes new threads from it, and it may start conversations.

Nothing is posted: every check is a GET. The key's scopes are read from the API's index
(`GET /api/`, XF\\Api\\Controller\\Index: `key.allow_all_scopes` and `key.scopes`, which
needs no scope of its own)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .base import ForumError
from .http_forum import acts_as, login

if TYPE_CHECKING:
    from .xenforo import XenForoForum

OK, FAIL, WARN, SKIP = "ok", "fail", "warn", "skip"
GUIDE = 'docs/operating.md, "Hosting on XenForo"'
SCOPES = ("thread:read", "thread:write", "conversation:read", "conversation:write", "user:read")


def missing_scopes(index) -> list[str] | None:
    """The scopes the bot needs that the API's index says its key lacks (None: it says nothing
    of them). `scopes` is read as a list of names or as names to true."""
    key = index.get("key") if isinstance(index, dict) else None
    if not isinstance(key, dict):
        return None
    if key.get("allow_all_scopes") is True:
        return []
    scopes = key.get("scopes")
    if isinstance(scopes, dict):
        have = {str(k) for k, v in scopes.items() if v}
    elif isinstance(scopes, list):
        have = {str(k) for k in scopes}
    else:
        return None
    return [s for s in SCOPES if s not in have]


def xenforo_checks(forum: "XenForoForum", nodes: list[str], username: str | None = None):
    """Yields (status, name, detail) for `forumbot doctor`."""
    me = yield from login(lambda: (forum._get("/me") or {}).get("me") or {}, forum.api, ["scopes"])
    if me is None:
        return
    name = str(me.get("username") or "")
    if not me.get("user_id") or not name:
        yield FAIL, "login", ("the key acts as a guest: make a user key for the bot's account, or for a super "
                              f"user key set [xenforo] user_id to the bot's user id ({GUIDE})")
        return
    yield acts_as(name, username, "[xenforo] api_user")
    try:
        missing = missing_scopes(forum._get("/"))
    except ForumError as e:
        yield WARN, "scopes", f"the API's index cannot be read: {e}; check the key's scopes by hand ({GUIDE})"
    else:
        if missing is None:
            yield WARN, "scopes", f"the API's index does not say the key's scopes: check them by hand ({GUIDE})"
        elif missing:
            yield FAIL, "scopes", f"the key lacks {', '.join(missing)}: add them in Setup > API keys ({GUIDE})"
        else:
            yield OK, "scopes", ", ".join(SCOPES)
    if not nodes:
        yield WARN, "node", "none configured: set [xenforo] node (the forum new game threads go in)"
    for ref in nodes:
        label = f"node {ref}"
        try:
            f = (forum._get(f"/forums/{int(ref)}") or {}).get("forum") or {}
        except (ValueError, TypeError):
            yield FAIL, label, "not a node id (a number)"
            continue
        except ForumError as e:
            yield FAIL, label, f"cannot be read: {e}"
            continue
        if f.get("can_create_thread") is False:
            yield FAIL, label, f"{name} may not post new threads in {f.get('title')} (its permissions, {GUIDE})"
        else:
            yield OK, label, f"{f.get('title')} takes new threads from {name}"
    try:
        marks = forum.own_marks()
    except ForumError as e:
        yield WARN, "marker", f"the bot's recent posts cannot be read: {e}"
    else:
        if marks:
            yield OK, "marker", "the bot's recent posts keep their invisible marker"
        else:
            yield SKIP, "marker", ("no marker in the bot's recent posts: it has posted nothing yet, or the forum "
                                   "drops an empty [USER] tag (then a post may go out twice after a timeout)")
    if me.get("can_start_conversation") is False:
        yield FAIL, "conversations", (f"{name} may not start conversations: it could not deal roles "
                                      f"(its group's permissions, {GUIDE})")
    elif me.get("can_start_conversation") is True:
        yield OK, "conversations", f"{name} may start conversations"
    else:
        yield SKIP, "conversations", f"the forum does not say whether {name} may start conversations ({GUIDE})"

