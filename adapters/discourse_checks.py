"""`forumbot doctor` on Discourse, and the site settings a game needs."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .base import ForumError
from .http_forum import acts_as, login

if TYPE_CHECKING:
    from .discourse import DiscourseForum

# Site settings (Admin > Settings) that let a bare command such as `**APPROVE**` or a PM
# `G1 PASS` through Discourse's own checks, and a player post a fourth reply in a row
# (docs/operating.md, "Hosting on Discourse"). Discourse's defaults are in brackets.
RECOMMENDED_SITE_SETTINGS = {
    "min_post_length": 8,  # [20] `**PASS**` is 8 characters
    "min_personal_message_post_length": 2,  # [10] `G1 PASS` is 7
    "body_min_entropy": 3,  # [7] unique characters: `**PASS**` has 4
    "allow_uppercase_posts": True,  # [false] `**APPROVE**` has no lowercase letter
    "max_consecutive_replies": 0,  # [3] 0 = off: a 4th reply in a row is refused, and an edit is no command
    "unique_posts_mins": 0,  # [5] 0 = off: a second **APPROVE** within 5 minutes is "too similar"
}


OK, FAIL, WARN, SKIP = "ok", "fail", "warn", "skip"
GUIDE = 'docs/operating.md, "Hosting on Discourse"'
WHY = {
    "min_post_length": "a bare `**PASS**` or `**APPROVE**` in the game topic is refused as too short",
    "min_personal_message_post_length": "a PM such as `G1 PASS` is refused as too short",
    "body_min_entropy": "a short command such as `**PASS**` is refused as unclear",
    "allow_uppercase_posts": "a post with no lowercase letter, such as `**APPROVE**`, is refused",
    "max_consecutive_replies": "a player's 4th post in a row is refused (and an edit is not a command)",
    "unique_posts_mins": "a player's second `**APPROVE**` within minutes is refused as too similar",
}


def discourse_checks(forum: DiscourseForum, categories: list[str], username: str | None = None):
    """`forumbot doctor` on Discourse: the key logs in as the bot, the bot is staff (or may
    at least send PMs), each category exists and takes new topics from it, and the site
    settings let players' short commands through. Yields (status, name, detail); nothing
    is posted."""
    me = yield from login(lambda: (forum._get("/session/current.json") or {}).get("current_user") or {},
                          forum.base, [*(f"category {ref}" for ref in categories), "private messages"])
    if me is None:
        return
    name = str(me.get("username") or "")
    if not name:
        yield FAIL, "login", (f"{forum.base} did not say who the key belongs to: check [discourse] "
                              "url (the forum's own address) and api_key")
        return
    yield acts_as(name, username, "[discourse] api_username", "@")
    staff = bool(me.get("admin") or me.get("moderator"))
    if staff:
        yield OK, "staff", (f"@{name} is {'an admin' if me.get('admin') else 'a moderator'}: Discourse's "
                            "limits for ordinary users (5 s between posts, 20 PMs a day, no text twice "
                            "in 5 minutes) do not apply to it")
    else:
        yield FAIL, "staff", (f"@{name} is not staff: Discourse would make it wait 5 s between posts "
                              "and refuse its 21st PM of the day; make it a moderator (Admin > Users > "
                              f"{name} > Grant Moderation) ({GUIDE})")
    tl = int(me.get("trust_level") or 0)
    if staff or me.get("can_send_private_messages") or tl >= 1:
        yield OK, "private messages", f"@{name} may send private messages"
    else:
        yield FAIL, "private messages", (f"@{name} is at trust level {tl} and may not send private "
                                         "messages: it could not deal roles; raise it to trust level 1 "
                                         f"or make it a moderator ({GUIDE})")
    if not categories:
        yield WARN, "category", ("none configured: set [discourse] category (where new game topics "
                                 "go), or every config must name `category:`")
    for ref in categories:
        label = f"category {ref}"
        try:
            found = forum.category(ref)
        except ForumError as e:
            yield FAIL, label, f"the categories cannot be read: {e}"
            continue
        if found is None:
            names = ", ".join(f"{x.get('name')} ({x.get('slug')})" for x in forum.categories()[:12])
            yield FAIL, label, f"there is no category {ref!r} that @{name} can see; there are: {names}"
        elif int(found.get("permission") or 0) != 1 and not staff:
            yield FAIL, label, f"@{name} may not start topics in {found.get('name')} (its permission is not \"Create\")"
        else:
            yield OK, label, f"{found.get('name')} (id {found.get('id')}) takes new topics from @{name}"
    if not me.get("admin"):
        yield SKIP, "site settings", (f"only an admin's key can read them; check by hand the settings "
                                      f"in {GUIDE}")
        return
    try:
        rows = (forum._get("/admin/site_settings.json") or {}).get("site_settings") or []
    except ForumError as e:
        yield WARN, "site settings", f"could not be read: {e}"
        return
    have = {r.get("setting"): r.get("value") for r in rows}
    off = []
    for key, want in RECOMMENDED_SITE_SETTINGS.items():
        if key not in have:
            continue
        value = str(have[key]).lower()
        if isinstance(want, bool):
            bad = value != str(want).lower()
        elif key in ("max_consecutive_replies", "unique_posts_mins"):
            bad = value not in ("0", str(want))
        else:
            bad = value.isdigit() and int(value) > want
        if bad:
            off.append(f"{key} is {have[key]} ({WHY[key]}; set {str(want).lower()})")
    title = have.get("min_topic_title_length")
    if title and str(title).isdigit() and int(title) > 15:
        off.append(f"min_topic_title_length is {title}: game titles, with their tag, need that many characters")
    if off:
        yield WARN, "site settings", "; ".join(off) + f" ({GUIDE})"
    else:
        yield OK, "site settings", "players' short commands pass Discourse's checks"
