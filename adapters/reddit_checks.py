"""Reddit's checks for `forumbot doctor`: does the login work, may the account post in
each subreddit, may it send PMs. Each check is `(status, name, detail)` with status
`ok | fail | warn | skip`; nothing is posted or sent.

What Reddit answers, and what it means (the token exchange as praw's recorded tests show it):

- a wrong password, or a password alone on an account with two-factor authentication:
  200 `{"error": "invalid_grant"}` (prawcore.OAuthException); the two cannot be told apart;
- a password on an app that is not a "script" app: 200 `{"error": "unauthorized_client"}`;
- a wrong client_id or client_secret: 401 (prawcore.ResponseException);
- a revoked (or another app's) refresh token: 400 `{"error": "invalid_grant"}`;
- a missing subreddit: 404 (or a redirect to the search); a private one: 403.

Since late 2025 a new app's keys work only once Reddit has approved the app (the Responsible
Builder Policy), and since March 2026 Reddit asks automated accounts to register as apps: an
app that is not approved yet looks like a wrong client_id or client_secret (401), and an
account Reddit stopped for being a bot like a locked one (403). Both say so.
"""
from __future__ import annotations

import prawcore
from praw.exceptions import PRAWException

from .reddit_errors import failed_host, network_reason, one_line

OK, FAIL, WARN, SKIP = "ok", "fail", "warn", "skip"
GUIDE = 'docs/operating.md, "Deploying on a server"'
APPROVAL = 'docs/operating.md, "Reddit in 2026: ask for approval first"'
# What the bot does with each OAuth scope (a refresh token carries only those granted).
SCOPES = {
    "identity": "know its own name",
    "read": "read the game threads",
    "submit": "post threads and comments",
    "edit": "keep the status block up to date",
    "privatemessages": "send and read private messages",
    "history": "find its own posts after a failure",
}


def reddit_checks(target, subreddits: list[str], username: str | None = None):
    """`target`: a RedditForum or a praw.Reddit. Yields (status, name, detail)."""
    reddit = getattr(target, "reddit", target)
    uses_token = bool(getattr(reddit.config, "refresh_token", None)) and not getattr(
        reddit.config, "password", None)
    try:
        me = reddit.user.me()
        if me is None:
            raise PRAWException("Reddit did not say who the account is")
        name = str(me.name)
    except Exception as e:  # noqa: BLE001 - every failure is one line
        yield FAIL, "login", login_failure(e, uses_token)
        for sub in subreddits:
            yield SKIP, f"subreddit r/{sub}", "not checked: the login failed"
        yield SKIP, "private messages", "not checked: the login failed"
        return
    how = "a refresh token" if uses_token else "the password"
    if username and name.casefold() != username.casefold():
        yield FAIL, "login", (f"the credentials log in as u/{name}, but [reddit] username is "
                              f"{username}: the bot would take its own posts for players'")
    else:
        yield OK, "login", f"logged in as u/{name} with {how}"
    scopes = _scopes(reddit)
    missing = [s for s in SCOPES if not _has(scopes, s) and s != "privatemessages"]  # (below)
    if missing:
        yield FAIL, "scopes", ("the refresh token lacks " + ", ".join(
            f"{s} (to {SCOPES[s]})" for s in missing) + f": get a new one with every scope the "
            f"bot needs ({GUIDE})")
    if vars(me).get("is_suspended"):  # (getattr would fetch the profile: a request more)
        yield FAIL, "account", f"u/{name} is suspended: it can neither post nor send PMs"
    for sub in subreddits:
        yield _subreddit(reddit, sub, name, scopes)
    yield _messages(reddit, name, scopes)


def _has(scopes: set[str] | None, scope: str) -> bool:
    return scopes is None or "*" in scopes or scope in scopes


def _scopes(reddit) -> set[str] | None:
    try:
        return set(reddit.auth.scopes())
    except Exception:  # noqa: BLE001 - unknown: the other checks still tell
        return None


def login_failure(e: BaseException, uses_token: bool) -> str:
    """What went wrong with the login, in one line, with what to do."""
    if isinstance(e, prawcore.OAuthException):
        error = getattr(e, "error", "") or ""
        said = getattr(e, "description", None)
        if error == "unauthorized_client":
            return (f"Reddit refused the login ({error}: {said or 'not allowed'}): password "
                    "login works only for an app of type \"script\"; create one at "
                    f"https://www.reddit.com/prefs/apps ({GUIDE})")
        if uses_token:
            return (f"Reddit refused the refresh token ({error}): it was revoked, or it belongs "
                    f"to another app; get a new one ({GUIDE})")
        return (f"Reddit refused the username and password ({error}): check [reddit] username "
                "and password. An account with two-factor authentication cannot log in with "
                f"its password alone: use a refresh token instead ({GUIDE})")
    if isinstance(e, prawcore.ResponseException):
        status = getattr(getattr(e, "response", None), "status_code", None)
        if status == 401:
            return ("Reddit refused the app (401): check [reddit] client_id and client_secret "
                    "(https://www.reddit.com/prefs/apps). A likely cause for an app made since late "
                    "2025: Reddit has not approved it yet, and its keys work only once it has "
                    f"({APPROVAL})")
        if status == 400 and uses_token:
            return (f"Reddit refused the refresh token (400 invalid_grant): it was revoked, or it "
                    f"belongs to another app; get a new one ({GUIDE})")
        if status == 403:
            return ("Reddit refused the account (403): it may be suspended or locked, or, since "
                    "March 2026, an automated account Reddit wants registered as an approved app "
                    f"({APPROVAL})")
        if status is not None and status >= 500:
            return f"Reddit answered {status}: it is having trouble; try again later"
        return f"Reddit answered {status} to the login"
    if isinstance(e, prawcore.RequestException):  # the host that failed (the login's is
        return f"cannot reach {failed_host(e)}: {network_reason(e)}"  # reddit_url, not oauth_url)
    if isinstance(e, PRAWException):
        return f"praw: {one_line(e)}"
    return f"{type(e).__name__}: {one_line(e)}"


def _subreddit(reddit, name: str, me: str, scopes):
    label = f"subreddit r/{name}"
    try:
        sub = reddit.subreddit(name)
        kind = sub.subreddit_type  # fetches /r/{name}/about
        banned = bool(getattr(sub, "user_is_banned", False))
        approved = bool(getattr(sub, "user_is_contributor", False)
                        or getattr(sub, "user_is_moderator", False))
        posts = getattr(sub, "submission_type", "any") or "any"
    except (prawcore.NotFound, prawcore.Redirect):
        return FAIL, label, f"r/{name} does not exist (or is banned): check the name"
    except prawcore.Forbidden:
        return FAIL, label, f"r/{name} is private or quarantined: u/{me} cannot read it"
    except prawcore.PrawcoreException as e:
        return FAIL, label, f"r/{name} could not be checked: {one_line(e)}"
    except (KeyError, TypeError, AttributeError, PRAWException):
        return FAIL, label, f"r/{name} does not exist: Reddit gave no subreddit for that name"
    if banned:
        return FAIL, label, f"u/{me} is banned from r/{name}"
    if kind in ("restricted", "private", "gold_restricted", "employees_only") and not approved:
        return FAIL, label, (f"r/{name} is {kind}: only approved users may post; ask its "
                             f"moderators to approve u/{me}")
    if kind == "archived":
        return FAIL, label, f"r/{name} is archived: nobody may post there"
    if posts == "link":
        return FAIL, label, f"r/{name} takes only link posts, and the bot opens games with text posts"
    if not (_has(scopes, "submit") and _has(scopes, "read")):
        return FAIL, label, "the refresh token may not read or post (scopes read and submit)"
    return OK, label, f"r/{name} exists and u/{me} may post there ({kind})"


def _messages(reddit, me: str, scopes):
    label = "private messages"
    if not _has(scopes, "privatemessages"):
        return FAIL, label, ("the refresh token lacks the privatemessages scope: the bot could "
                             f"not deal roles or take orders; get a new one ({GUIDE})")
    try:
        list(reddit.inbox.sent(limit=1))  # the PM endpoints answer this account
    except prawcore.PrawcoreException as e:
        return FAIL, label, f"u/{me} cannot use private messages: {one_line(e)}"
    return OK, label, f"u/{me} may send private messages"


def doctor_checks(forum, section: dict[str, str], game_threads: list[str]):
    """`forumbot doctor` on Reddit: the user agent, the subreddits (the configured one and
    those of the running games: a game thread is `subreddit:id`), the login, PMs."""
    agent = section.get("user_agent", "")
    if not agent or "yourname" in agent:
        yield (WARN, "user agent", "[reddit] user_agent should name the bot and you "
               "(forumbot/1.0 by u/yourname): Reddit throttles generic ones")
    configured = [x for x in [section.get("subreddit")] if x]
    of_games = [t.partition(":")[0] for t in game_threads if ":" in t]
    subs = list(dict.fromkeys(x.removeprefix("/r/").removeprefix("r/") for x in configured + of_games))
    if not subs:
        yield (WARN, "subreddit", "none configured: set [reddit] subreddit (where new game "
               "threads go), or every config must name `subreddit:`")
    yield from reddit_checks(forum, subs, username=section.get("username"))
