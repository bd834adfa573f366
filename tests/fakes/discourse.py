"""A fake Discourse: a real HTTP server on 127.0.0.1 that answers the endpoints the adapter
uses with the shapes of Discourse's serializers (tests/fixtures/discourse/, see its
README), and keeps Discourse's rules, read from its source:

- `GET /posts.json` lists the newest *public* posts site-wide, 50 a page, highest id first,
  `before=N` meaning ids <= N (posts_controller.rb `latest`); PMs, whispers, small actions
  and deleted posts are never in it, and an edited post keeps its place.
  `GET /private-posts.json` is the same for PM posts (an admin sees everyone's).
- `GET /topics/private-messages/{user}.json`: that user's PM topics, newest bump first, 30 a
  page, leaving out topics nobody else posted in (topic_query `have_posts_from_others`).
  `/topics/private-messages-sent/{user}.json`: the PM topics the user posted in.
- `GET /t/{id}.json`: the topic view, its first 20 posts and the whole `stream` of ids;
  `raw` only with `include_raw`. `GET /t/{id}/posts.json`: by `post_ids[]`, or after
  `post_number` with `asc`, or the first 20. Staff see deleted posts (`deleted_at` set).
- `POST /posts.json`: a reply (`topic_id`), a topic (`title`, `category` as a numeric id:
  a name finds nothing), a PM (`archetype=private_message`, `target_recipients`; a
  `target_usernames` is not a permitted parameter and is dropped). Its answer is the post.
  An identical API request within 120 s gets the first one's answer again and creates
  nothing (posts_controller.rb memoizes API creates). `PUT /posts/{id}.json`: an edit;
  by the same user within the grace period (5 min, <100 characters changed) it keeps
  `version` (post_revisor.rb).
- Validation (post_validator.rb, text_sentinel.rb, stripped_length_validator.rb, the
  site settings' defaults): posts 20 characters (the first post too, PMs 10), HTML
  comments not counted; titles 15 (PM titles 2) and not all capitals; a body needs
  entropy and, unless `allow_uppercase_posts`, a lowercase letter; for non-staff: no
  same text within 5 minutes, one post per 5 s (30 s at trust level 0), at most 3
  consecutive replies, and at trust level 0 at most 3 replies in a topic until someone
  answers; starting a PM needs trust level 1 (personal_message_enabled_groups) or staff.
  A failed validation answers 422 `{"action": "create_post", "errors": [...]}`.
- Auth: `Api-Key` and `Api-Username`; a wrong one answers 403 "... The API username or key
  is invalid.". `api_reqs_per_minute` (None: off) is the site-wide limit of the admin API
  keys (60 by default on a real site), counted on the fake's clock: 429 with
  `extras.wait_seconds` and `Retry-After`.

People (helpers, which keep the same rules unless `rules=False`): `user`, `new_topic`,
`reply`, `pm` (a new PM topic), `reply_pm`, `edit` (quick: within the grace period),
`whisper` (post_type 4), `small_action` (post_type 3), `delete_topic` (a moderator's),
`user_delete` (raw "(post deleted by author)", `user_deleted`), `staff_delete`
(`deleted_at`), `close`, `archive`, `unlist` (its posts leave /posts.json), `make_private`. Faults and crashes as the fake
Reddit's (the server, faults and crash hook are tests/fakes/server.py's): `faults`,
`fault_rate`/`fault_rng`/`injected`, `kill_at`/`victim`."""
from __future__ import annotations

import copy
import itertools
import json
import math
import re
import threading
import time
from collections import deque
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from tests.fakes.server import FakeServer, JSONHandler, Raw, load_fixture

__all__ = ["DEFAULT_SITE", "DELETED_BY_AUTHOR", "ERRORS", "FAULTS", "FAULT_KINDS", "FakeDiscourse", "Raw",
           "Refused"]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "discourse"


def _fixture(name: str):
    return load_fixture(FIXTURES, name)


POST = _fixture("post.json")
LIST_ITEM = _fixture("topic_list_item.json")
TOPIC_VIEW = _fixture("topic_view.json")
CATEGORY = _fixture("category.json")
CURRENT_USER = _fixture("current_user.json")
ERRORS = _fixture("errors.json")
TEXTS = ERRORS["texts"]
DELETED_BY_AUTHOR = "(post deleted by author)"  # js.post.deleted_by_author_simple

# config/site_settings.yml defaults (and config/discourse_defaults.conf's API limit)
DEFAULT_SITE = {
    "min_post_length": 20, "min_first_post_length": 20, "min_personal_message_post_length": 10,
    "max_post_length": 32000, "body_min_entropy": 7, "min_topic_title_length": 15,
    "max_topic_title_length": 255, "title_min_entropy": 10, "title_max_word_length": 30,
    "min_personal_message_title_length": 2, "allow_uppercase_posts": False,
    "allow_duplicate_topic_titles": False, "unique_posts_mins": 5, "rate_limit_create_post": 5,
    "rate_limit_new_user_create_post": 30, "max_consecutive_replies": 3,
    "newuser_max_replies_per_topic": 3, "personal_message_min_trust_level": 1,
    "editing_grace_period": 300, "editing_grace_period_max_diff": 100,
    "allow_uncategorized_topics": False,
}
CHUNK = 20
PAGE = 50
PER_PAGE = 30
MEMO_SECONDS = 120


class Refused(Exception):
    """What Discourse answers a write it refuses: (status, body, headers)."""

    def __init__(self, status: int, body, headers: dict | None = None):
        super().__init__(f"{status}: {body}")
        self.status, self.body, self.headers = status, body, headers or {}


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(ts * 1000) % 1000:03d}Z"


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:80] or "topic"


def _cook(raw: str) -> str:
    """Near enough Discourse's cooking for tests: HTML comments are stripped (the
    sanitizer's js-xss without allowCommentTag), the rest escaped into paragraphs."""
    import html

    text = re.sub(r"<!--.*?-->", "", raw, flags=re.S)
    return "".join(f"<p>{html.escape(p.strip())}</p>" for p in text.split("\n\n") if p.strip())


def _rails_true(value: str) -> bool:
    """ActiveModel::Type::Boolean's cast of a parameter (what topics_controller#posts does with
    `asc`): "" is nil, the FALSE_VALUES are false, anything else is true ("TRUE", "yes")."""
    return value != "" and value not in {"0", "f", "F", "false", "FALSE", "off", "OFF", "no", "NO"}


def _sanitized_length(raw: str) -> int:
    """StrippedLengthValidator.get_sanitized_value: comments out, emoji one character."""
    value = re.sub(r"<!--(.*?)-->", "", raw, flags=re.S)
    value = re.sub(r":\w+(:\w+)?:", "X", value)
    value = re.sub(r"\.{2,}", "\u2026", value)
    value = re.sub(r",{2,}", ",", value)
    return len(value.strip())


def _rate_limited(wait: int, code: str):
    body = copy.deepcopy(ERRORS["rate_limit"])
    body["errors"] = [body["errors"][0] % {"wait": wait}]
    body["extras"] = {"wait_seconds": wait, "time_left": f"{wait} seconds"}
    return Refused(429, body, {"Retry-After": str(wait), "Discourse-Rate-Limit-Error-Code": code})


class FakeDiscourse(FakeServer):
    def __init__(self, bot: str = "forumbot", clock=time.time, api_key: str = "test-key"):
        self.bot = bot
        self.clock = clock
        self.api_keys = {api_key: None}  # key -> the only user it may act as (None: all users)
        self.lock = threading.RLock()
        self._user_ids = itertools.count(10)
        self._topic_ids = itertools.count(100)
        self._post_ids = itertools.count(5000)
        self.users: dict[str, dict] = {}
        self.topics: dict[int, dict] = {}
        self.posts: dict[int, dict] = {}
        self._by_topic: dict[int, list[dict]] = {}  # each topic's posts, in post_number order
        self.site = dict(DEFAULT_SITE)
        self.categories: list[dict] = []
        self.requests: list[tuple[str, str]] = []
        self.queries: list[tuple[str, str, str]] = []  # (method, path, query string) of every request
        self.bodies: list[tuple[str, str, dict]] = []  # (method, path, form) of every write
        self._init_faults()
        self.api_reqs_per_minute: int | None = None
        self._api_window: deque[float] = deque()
        self._memo: dict[str, tuple[float, int, object]] = {}
        self._unique: dict[str, float] = {}  # unique post keys -> until
        self._last_post_at: dict[int, float] = {}
        self.read_only = False
        self.people_rate_limits = False
        self._rev = 0  # bumped by every change of a post or topic: listings are cached by it
        self._cache: dict = {}
        self.user("system", id=-1, admin=True, moderator=True, trust_level=4)
        self.user("discobot", id=-2, admin=True, moderator=True, trust_level=4)
        self.user(bot, admin=True, moderator=False, trust_level=1)
        self.category("Uncategorized", "uncategorized", id=1)
        self.category("General", "general", id=4)
        games = self.category("Game Night", "games", id=5)
        self.category("Resistance", "resistance", id=7, parent=games["id"])
        self.category("Staff", "staff", id=3, read_restricted=True, permission=None)
        welcome = self.new_topic("system", "Welcome to our community forum", "This is the place "
                                 "for everything about this community.", "general", rules=False)
        self.reply("system", welcome["id"], "Be kind, and read the guidelines before you post.", rules=False)
        self._listen(self._handler())

    # --- lifecycle (url, start, stop: tests/fakes/server.py) -------------------------------

    def settings(self, **extra) -> dict:
        """The `[discourse]` settings of a bot on this fake."""
        return {"url": self.url, "api_key": next(iter(self.api_keys)), "api_username": self.bot,
                "category": "games", **extra}

    def now(self) -> float:
        return round(float(self.clock()), 3)

    # --- the site ----------------------------------------------------------------------

    def user(self, name: str, id: int | None = None, trust_level: int | None = None,
             admin: bool | None = None, moderator: bool | None = None) -> dict:
        with self.lock:
            u = self.users.get(name.lower())
            if u is None:
                u = {"id": id if id is not None else next(self._user_ids), "username": name, "name": name.title(),
                     "trust_level": 1, "admin": False, "moderator": False}
                self.users[name.lower()] = u
            for k, v in (("trust_level", trust_level), ("admin", admin), ("moderator", moderator)):
                if v is not None:
                    u[k] = v
            return u

    def _by_id(self, uid: int) -> dict:
        return next(u for u in self.users.values() if u["id"] == uid)

    @staticmethod
    def staff(u: dict) -> bool:
        return bool(u["admin"] or u["moderator"])

    def category(self, name: str, slug: str, id: int, parent: int | None = None,
                 read_restricted: bool = False, permission: int | None = 1) -> dict:
        c = {"id": id, "name": name, "slug": slug, "parent_category_id": parent,
             "read_restricted": read_restricted, "permission": permission}
        self.categories.append(c)
        return c

    def _category(self, cid) -> dict | None:
        return next((c for c in self.categories if c["id"] == cid), None)

    # --- what people do ------------------------------------------------------------------

    def new_topic(self, author: str, title: str, raw: str, category: str | int | None,
                  rules: bool = True) -> dict:
        """A topic and its first post; `category` a slug or an id. Returns the topic."""
        cat = next((c for c in self.categories if category in (c["id"], c["slug"])), None)
        with self.lock:
            u = self.user(author)
            if rules:
                self._check_create(u, None, raw, title=title, category=cat, pm=False, rate=self.people_rate_limits)
            return self._create_topic(u, title, raw, cat["id"] if cat else None, "regular", [])

    def pm(self, author: str, to: list[str] | str, title: str, raw: str, rules: bool = True) -> dict:
        """A new PM topic from `author` to `to`. Returns the topic."""
        names = [to] if isinstance(to, str) else list(to)
        with self.lock:
            u = self.user(author)
            targets = [self.user(n) for n in names]
            if rules:
                self._check_create(u, None, raw, title=title, pm=True, targets=targets, rate=self.people_rate_limits)
            return self._create_topic(u, title, raw, None, "private_message", targets)

    def reply(self, author: str, topic: int | str, raw: str, reply_to: int | None = None,
              rules: bool = True) -> dict:
        """A reply in a topic (a topic id, or the adapter's `topic:<id>`). Returns the post."""
        tid = int(str(topic).rpartition(":")[2])
        with self.lock:
            u = self.user(author)
            t = self.topics[tid]
            if rules:
                self._check_create(u, t, raw, pm=t["archetype"] == "private_message", rate=self.people_rate_limits)
            return self._create_post(u, t, raw, reply_to)

    def reply_pm(self, author: str, topic: int, raw: str, rules: bool = True) -> dict:
        return self.reply(author, topic, raw, rules=rules)

    def edit(self, post_id: int, raw: str, quick: bool = False, by: str | None = None) -> dict:
        """An edit. `quick`: within the grace period by its author, so `version` stays."""
        with self.lock:
            p = self.posts[post_id]
            self._rev += 1
            p["raw"], p["cooked"] = raw, _cook(raw)
            p["updated_at"] = self.now() + 0.001
            if not quick:
                p["version"] += 1
                p["public_version"] += 1
                # PostRevisor#bump_topic: an edit of a topic's last post bumps the topic
                # (`bumped_at`, the order of topic lists), not its `last_posted_at`.
                t = self.topics[p["topic_id"]]
                if p is self._by_topic[t["id"]][-1]:
                    t["bumped_at"] = p["updated_at"]
            return p

    def whisper(self, author: str, topic: int | str, raw: str) -> dict:
        """A staff whisper (post_type 4): only staff see it, in the topic view; never listed."""
        p = self.reply(author, topic, raw, rules=False)
        with self.lock:
            p["post_type"] = 4
            self._rev += 1
        return p

    def small_action(self, author: str, topic: int | str, code: str) -> dict:
        """A small action post (post_type 3, empty raw, an `action_code` such as
        "invited_user" or "user_left"): shown in the topic, never listed."""
        tid = int(str(topic).rpartition(":")[2])
        with self.lock:
            p = self._create_post(self.user(author), self.topics[tid], "", None)
            p["post_type"], p["action_code"] = 3, code
            return p

    def user_delete(self, post_id: int) -> dict:
        """The author deletes it (PostDestroyer#mark_for_deletion): a new version whose raw is
        "(post deleted by author)", `user_deleted` set; it stays (for 24 hours)."""
        with self.lock:
            t = self.topics[self.posts[post_id]["topic_id"]]
            bumped = t["bumped_at"]
            p = self.edit(post_id, DELETED_BY_AUTHOR)
            t["bumped_at"] = bumped  # (its revision bypasses the bump)
            p["user_deleted"] = True
            self._rev += 1
            return p

    def staff_delete(self, post_id: int) -> dict:
        with self.lock:
            p = self.posts[post_id]
            p["deleted_at"] = self.now()
            self._rev += 1
            return p

    def delete_topic(self, topic: int) -> None:
        """A moderator deletes a topic (Topic is Trashable: a topic with `deleted_at` set is out
        of every list by its default scope, the bot's PM list too)."""
        with self.lock:
            self.topics[topic]["deleted_at"] = self.now()
            self._rev += 1

    def close(self, topic: int) -> None:
        self.topics[topic]["closed"] = True
        self._rev += 1

    def archive(self, topic: int) -> None:
        self.topics[topic]["archived"] = True
        self._rev += 1

    def unlist(self, topic: int) -> None:
        """A moderator unlists it: its posts leave /posts.json (Post.visible)."""
        self.topics[topic]["visible"] = False
        self._rev += 1

    def make_private(self, topic: int) -> None:
        """Moved to a category the bot cannot see."""
        self.topics[topic]["category_id"] = 3
        self._rev += 1

    def _create_topic(self, u: dict, title: str, raw: str, cid, archetype: str, targets: list[dict]) -> dict:
        tid = next(self._topic_ids)
        now = self.now()
        t = {"id": tid, "title": title, "slug": _slug(title), "category_id": cid, "archetype": archetype,
             "user_id": u["id"], "created_at": now, "bumped_at": now, "last_posted_at": now,
             "allowed": [u["id"]] + [x["id"] for x in targets if x["id"] != u["id"]],
             "closed": False, "archived": False, "deleted_at": None, "visible": True, "views": 1}
        self.topics[tid] = t
        self._create_post(u, t, raw, None)
        return t

    def _create_post(self, u: dict, t: dict, raw: str, reply_to: int | None) -> dict:
        pid = next(self._post_ids)
        now = self.now()
        number = 1 + max((p["post_number"] for p in self._by_topic.get(t["id"], [])), default=0)
        p = {"id": pid, "topic_id": t["id"], "post_number": number, "user_id": u["id"], "raw": raw,
             "cooked": _cook(raw), "created_at": now, "updated_at": now, "version": 1, "public_version": 1,
             "post_type": 1, "reply_to_post_number": reply_to, "deleted_at": None, "user_deleted": False,
             "hidden": False}
        self.posts[pid] = p
        self._rev += 1
        self._by_topic.setdefault(t["id"], []).append(p)
        t["bumped_at"] = t["last_posted_at"] = now
        self._last_post_at[u["id"]] = now
        if self.site["unique_posts_mins"]:
            self._unique[self._unique_key(u, t, raw)] = now + 60 * self.site["unique_posts_mins"]
        return p

    @staticmethod
    def _unique_key(u: dict, t: dict, raw: str) -> str:
        return f"unique{'-pm' if t['archetype'] == 'private_message' else ''}-post-{u['id']}:{raw}"

    # --- Discourse's rules -----------------------------------------------------------

    def _check_create(self, u: dict, t: dict | None, raw: str, title: str | None = None,
                      category: dict | None = None, pm: bool = False, targets: list[dict] | None = None,
                      rate: bool = True):
        """Refused (as Discourse refuses it) or None. `rate`: the per-user rate limits too
        (people's helpers skip them unless `people_rate_limits`: the tests' clock is not a
        person's)."""
        s = self.site
        staff = self.staff(u)
        errors: list[str] = []
        now = self.now()
        if rate and not staff and u["id"] > 0:  # RateLimiter: staff and the system user are never limited
            gap = s["rate_limit_new_user_create_post"] if u["trust_level"] == 0 else s["rate_limit_create_post"]
            last = self._last_post_at.get(u["id"])
            if gap and last is not None and now - last < gap:
                raise _rate_limited(max(1, math.ceil(gap - (now - last))), "create_post")
        if t is None:  # a new topic: TopicCreator's checks
            if pm:
                if not targets:
                    raise Refused(422, {"action": "create_post", "errors": [TEXTS["no_user_selected"]]})
                if not staff and u["trust_level"] < s["personal_message_min_trust_level"] and u["id"] > 0:
                    raise Refused(422, {"action": "create_post", "errors": [TEXTS["cant_send_pm"]]})
            else:
                if category is None and not s["allow_uncategorized_topics"]:
                    raise Refused(422, {"action": "create_post", "errors": [TEXTS["category_blank"]]})
                if category is not None and (category.get("permission") is None and not staff
                                             or category.get("read_restricted") and not staff):
                    raise Refused(403, ERRORS["invalid_access"])
            lo = s["min_personal_message_title_length"] if pm else s["min_topic_title_length"]
            if len((title or "").strip()) < lo:
                errors.append(TEXTS["too_short"] % {"attr": "Title", "count": lo})
            elif len(title) > s["max_topic_title_length"]:
                errors.append(TEXTS["too_long"] % {"attr": "Title", "count": s["max_topic_title_length"],
                                                   "length": len(title)})
            elif not pm and not self._sentinel_title(title):
                errors.append(TEXTS["is_invalid"] % {"attr": "Title"})
            elif not pm and not s["allow_duplicate_topic_titles"] and any(
                    x["title"].casefold() == title.casefold() and x["archetype"] == "regular"
                    for x in self.topics.values()):
                errors.append(TEXTS["title_taken"])
        else:
            if t["deleted_at"] or (t["archetype"] == "private_message" and u["id"] not in t["allowed"]):
                raise Refused(403, ERRORS["invalid_access"])
            if t["archived"] or (t["closed"] and not staff):
                raise Refused(403, ERRORS["invalid_access"])
        first = t is None
        lo = (s["min_personal_message_post_length"] if pm else s["min_first_post_length"] if first
              else s["min_post_length"])
        length = _sanitized_length(raw)
        if not raw.strip():
            errors.append(TEXTS["blank"] % {"attr": "Body"})
        elif len(raw) > s["max_post_length"]:
            errors.append(TEXTS["too_long"] % {"attr": "Body", "count": s["max_post_length"], "length": len(raw)})
        elif length < lo:
            errors.append(TEXTS["too_short"] % {"attr": "Body", "count": lo})
        elif not self._sentinel_body(raw, pm):
            errors.append(TEXTS["is_invalid"] % {"attr": "Body"})
        if t is not None and not staff:
            if (not pm and u["trust_level"] == 0 and t["user_id"] != u["id"]
                    and self._replies_since_answer(u, t) >= s["newuser_max_replies_per_topic"]):
                errors.append(TEXTS["too_many_replies"] % {"count": s["newuser_max_replies_per_topic"]})
            n = s["max_consecutive_replies"]
            mine = [p for p in self._by_topic.get(t["id"], []) if not p["deleted_at"]]
            last = mine[-n:] if n else []
            if (n and not pm and t["user_id"] != u["id"] and len(last) == n
                    and all(p["user_id"] == u["id"] for p in last)):
                errors.append(TEXTS["max_consecutive_replies"] % {"count": n})
        if not staff and s["unique_posts_mins"]:
            probe = t or {"archetype": "private_message" if pm else "regular"}
            if self._unique.get(self._unique_key(u, probe, raw), 0) > now:
                errors.append(TEXTS["just_posted_that"])
        if errors:
            raise Refused(422, {"action": "create_post", "errors": errors})

    def _replies_since_answer(self, u: dict, t: dict) -> int:
        here = self._by_topic.get(t["id"], [])
        mine = [p for p in here if p["user_id"] == u["id"]]
        answered = [p for p in here if p["user_id"] != u["id"]
                    and p["reply_to_post_number"] in {m["post_number"] for m in mine}]
        since = max((p["id"] for p in answered), default=0)
        return sum(1 for p in mine if p["id"] > since)

    def _sentinel_body(self, raw: str, pm: bool) -> bool:
        s = self.site
        entropy = s["body_min_entropy"]
        if pm:
            entropy = int(entropy * s["min_personal_message_post_length"] / s["min_post_length"])
            if entropy > s["min_personal_message_post_length"]:
                entropy = int(s["min_personal_message_post_length"] * 0.7)
        elif entropy > s["min_post_length"]:
            entropy = int(s["min_post_length"] * 0.7)
        return self._sentinel(raw, entropy, None)

    def _sentinel_title(self, title: str) -> bool:
        s = self.site
        entropy = (s["title_min_entropy"] if s["min_topic_title_length"] > s["title_min_entropy"]
                   else int(s["min_topic_title_length"] * 0.7))
        return self._sentinel(title, entropy, s["title_max_word_length"])

    def _sentinel(self, text: str, entropy: int, max_word: int | None) -> bool:
        """TextSentinel#valid?: entropy (unique bytes), an alphanumeric, no overlong word,
        and (unless uppercase is allowed) a lowercase letter where there are letters."""
        stripped = text.strip()
        if not stripped or len(set(stripped.encode())) < entropy:
            return False
        if not re.search(r"[^\W_]", stripped):
            return False
        if max_word and re.search(r"[^\W_]{%d,}" % (max_word + 1), stripped):
            return False
        has_letter = any(c.isalpha() for c in stripped)
        has_lower = any(c.islower() or (c.isalpha() and not c.isupper()) for c in stripped)
        return self.site["allow_uppercase_posts"] or has_lower or not has_letter

    # --- what tests read -----------------------------------------------------------------

    def topic_posts(self, topic: int | str) -> list[dict]:
        tid = int(str(topic).rpartition(":")[2])
        return list(self._by_topic.get(tid, []))

    def username(self, p: dict) -> str:
        return self._by_id(p["user_id"])["username"]

    def pms_to(self, user: str) -> list[dict]:
        """The posts by others in PM topics that `user` is in, oldest first."""
        u = self.users[user.lower()]
        return sorted((p for p in self.posts.values()
                       if self.topics[p["topic_id"]]["archetype"] == "private_message"
                       and u["id"] in self.topics[p["topic_id"]]["allowed"] and p["user_id"] != u["id"]),
                      key=lambda p: p["id"])

    def bot_posts(self) -> list[str]:
        bot = self.users[self.bot.lower()]["id"]
        return [p["raw"] for p in sorted(self.posts.values(), key=lambda p: p["id"]) if p["user_id"] == bot]

    def public_posts(self) -> list[dict]:
        return [p for p in sorted(self.posts.values(), key=lambda p: p["id"])
                if self.topics[p["topic_id"]]["archetype"] != "private_message"]

    # --- serializers -------------------------------------------------------------------

    def _post_json(self, p: dict, viewer: dict, raw: bool = False, title: bool = False) -> dict:
        t = self.topics[p["topic_id"]]
        author = self._by_id(p["user_id"])
        d = dict(POST, badges_granted=[], actions_summary=[], mentioned_users=[])
        staff = self.staff(viewer)
        d.update({
            "id": p["id"], "name": author["name"], "username": author["username"],
            "avatar_template": f"/letter_avatar_proxy/v4/letter/{author['username'][0].lower()}/8797f3/{{size}}.png",
            "created_at": _iso(p["created_at"]), "cooked": p["cooked"], "post_number": p["post_number"],
            "post_type": p["post_type"], "updated_at": _iso(p["updated_at"]),
            "reply_to_post_number": p["reply_to_post_number"], "topic_id": t["id"], "topic_slug": t["slug"],
            "display_username": author["name"], "version": p["version"] if staff else p["public_version"],
            "yours": viewer["id"] == author["id"], "can_edit": staff or viewer["id"] == author["id"],
            "can_delete": staff, "moderator": author["moderator"], "admin": author["admin"],
            "staff": self.staff(author), "user_id": author["id"], "hidden": p["hidden"],
            "trust_level": author["trust_level"], "deleted_at": _iso(p["deleted_at"]) if p["deleted_at"] else None,
            "user_deleted": p["user_deleted"], "post_url": f"/t/{t['slug']}/{t['id']}/{p['post_number']}",
            "posts_count": len(self._by_topic.get(t["id"], [])),
            "reads": 1, "can_recover": bool(staff and (p["deleted_at"] or p["user_deleted"])),
            "action_code": p.get("action_code")})
        if raw:
            d["raw"] = p["raw"]
        if title:
            d.update({"topic_title": t["title"], "topic_html_title": t["title"], "category_id": t["category_id"]})
        return self.oddly(d, p["raw"])

    def _visible(self, p: dict, viewer: dict) -> bool:
        t = self.topics[p["topic_id"]]
        if t["archetype"] == "private_message":
            return viewer["id"] in t["allowed"] or bool(viewer["admin"])
        cat = self._category(t["category_id"])
        return not (cat and cat["read_restricted"] and not self.staff(viewer))

    def _list_item(self, t: dict, viewer: dict) -> dict:
        mine = [p for p in self.topic_posts(t["id"]) if not p["deleted_at"]]
        d = copy.deepcopy(LIST_ITEM)
        op = t["user_id"]
        last = mine[-1]["user_id"] if mine else op
        posters = [{"extras": None, "description": "Original Poster", "user_id": op,
                    "primary_group_id": None, "flair_group_id": None}]
        if last != op:
            posters.append({"extras": "latest", "description": "Most Recent Poster", "user_id": last,
                            "primary_group_id": None, "flair_group_id": None})
        else:
            posters[0]["description"] = "Original Poster, Most Recent Poster"
            posters[0]["extras"] = "latest single"
        d.update({"id": t["id"], "title": t["title"], "fancy_title": t["title"], "slug": t["slug"],
                  "posts_count": len(mine), "reply_count": max(0, len(mine) - 1),
                  "highest_post_number": max((p["post_number"] for p in mine), default=1),
                  "created_at": _iso(t["created_at"]), "last_posted_at": _iso(t["last_posted_at"]),
                  "bumped": t["bumped_at"] > t["created_at"], "bumped_at": _iso(t["bumped_at"]),
                  "archetype": t["archetype"], "closed": t["closed"], "archived": t["archived"],
                  "last_poster_username": self._by_id(last)["username"], "category_id": t["category_id"],
                  "allowed_user_count": len(t["allowed"]), "posters": posters,
                  "participants": [{"extras": None, "description": None, "user_id": uid,
                                    "primary_group_id": None, "flair_group_id": None}
                                   for uid in dict.fromkeys(p["user_id"] for p in mine)]})
        return d

    def _topic_list(self, topics: list[dict], viewer: dict, page: int, path: str) -> dict:
        chunk = topics[page * PER_PAGE:(page + 1) * PER_PAGE]
        items = [self._list_item(t, viewer) for t in chunk]
        ids = {p["user_id"] for it in items for p in it["posters"] + it["participants"]}
        users = [{"id": u["id"], "username": u["username"], "name": u["name"],
                  "avatar_template": f"/letter_avatar_proxy/v4/letter/{u['username'][0].lower()}/8797f3/{{size}}.png",
                  "trust_level": u["trust_level"]} for u in self.users.values() if u["id"] in ids]
        body = {"can_create_topic": True, "per_page": PER_PAGE, "topics": items}
        if len(chunk) == PER_PAGE:
            body["more_topics_url"] = f"{path}?page={page + 1}"
        return {"users": users, "primary_groups": [], "flair_groups": [], "topic_list": body}

    def _topic_view(self, t: dict, viewer: dict, raw: bool) -> dict:
        posts = [p for p in self.topic_posts(t["id"]) if self._seen_in_topic(p, viewer)]
        d = copy.deepcopy(TOPIC_VIEW)
        op = self._by_id(t["user_id"])
        last = self._by_id(posts[-1]["user_id"]) if posts else op
        basic = lambda u: {"id": u["id"], "username": u["username"], "name": u["name"],  # noqa: E731
                           "avatar_template": ""}
        d.update({"id": t["id"], "title": t["title"], "fancy_title": t["title"], "slug": t["slug"],
                  "posts_count": len(posts), "created_at": _iso(t["created_at"]),
                  "last_posted_at": _iso(t["last_posted_at"]), "archetype": t["archetype"],
                  "category_id": t["category_id"], "closed": t["closed"], "archived": t["archived"],
                  "visible": t["visible"], "user_id": op["id"], "highest_post_number": max((p["post_number"] for p in posts), default=1),
                  "participant_count": len({p["user_id"] for p in posts}),
                  "draft_key": f"topic_{t['id']}"})
        d["post_stream"] = {"posts": [self._post_json(p, viewer, raw=raw) for p in posts[:CHUNK]],
                            "stream": [p["id"] for p in posts]}
        d["details"]["created_by"] = basic(op)
        d["details"]["last_poster"] = basic(last)
        if t["archetype"] == "private_message":
            d["details"]["allowed_users"] = [basic(self._by_id(i)) for i in t["allowed"]]
        return d

    def _seen_in_topic(self, p: dict, viewer: dict) -> bool:
        """TopicView's visible post types: regular, moderator action and small action for
        everyone, whispers for staff; deleted posts for staff."""
        return (p["post_type"] in (1, 2, 3) or p["post_type"] == 4 and self.staff(viewer)) and (
            not p["deleted_at"] or self.staff(viewer))

    # --- the HTTP side -------------------------------------------------------------------

    def _handler(self):
        fake = self

        class Handler(JSONHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as a real site behind nginx

            def setup(self):
                super().setup()
                import socket

                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _serve(self, method: str):
                url = urlparse(self.path)
                query = parse_qs(url.query)
                form: dict[str, list[str]] = {}
                if method in ("POST", "PUT"):
                    n = int(self.headers.get("Content-Length") or 0)
                    raw = self.rfile.read(n).decode()
                    if "json" in (self.headers.get("Content-Type") or ""):
                        form = {k: [v] if not isinstance(v, list) else v for k, v in (json.loads(raw or "{}")).items()}
                    else:
                        form = parse_qs(raw, keep_blank_values=True)
                path = url.path.rstrip("/") or "/"
                writes = method in ("POST", "PUT", "DELETE")
                with fake.lock:
                    fake.requests.append((method, path))
                    fake.queries.append((method, path, url.query))
                    if writes:
                        fake.bodies.append((method, path, {k: v[-1] for k, v in form.items()}))
                    fault = fake.pick_fault(method, path, FAULT_KINDS if writes else FAULT_KINDS[:5], FAULTS)
                if fault is not None:
                    status, payload, *rest = fault
                    if rest and rest[0] == "commit":
                        with fake.lock:
                            answer = fake.route(method, path, query, form, self.headers)
                        if writes and answer[0] < 400:
                            fake.after_mutation()
                    if status == 0:
                        self.close_connection = True
                        return
                    headers = {"Retry-After": "1"} if status == 429 else None
                    return self.reply(status, payload, headers)
                with fake.lock:
                    status, payload, *headers = fake.route(method, path, query, form, self.headers)
                if writes and status < 400:
                    fake.after_mutation()  # may SIGKILL the bot: the write has landed, no answer
                self.reply(status, payload, headers[0] if headers else None)

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

            def do_PUT(self):
                self._serve("PUT")

        return Handler

    def _auth(self, headers) -> dict | tuple:
        key, name = headers.get("Api-Key"), headers.get("Api-Username") or ""
        if key not in self.api_keys or name.lower() not in self.users:
            return 403, ERRORS["invalid_key"]
        only = self.api_keys[key]
        if only is not None and only.lower() != name.lower():
            return 403, ERRORS["invalid_key"]
        return self.users[name.lower()]

    def _api_limit(self):
        """The site-wide admin API limit (all keys together), on the fake's clock."""
        if self.api_reqs_per_minute is None:
            return None
        now = self.now()
        while self._api_window and self._api_window[0] <= now - 60:
            self._api_window.popleft()
        if len(self._api_window) >= self.api_reqs_per_minute:
            wait = max(1, math.ceil(self._api_window[0] + 60 - now))
            r = _rate_limited(wait, "admin_api_key_rate_limit")
            return r.status, r.body, r.headers
        self._api_window.append(now)
        return None

    def route(self, method: str, path: str, q: dict, form: dict, headers):
        viewer = self._auth(headers)
        if isinstance(viewer, tuple):
            return viewer
        if (limited := self._api_limit()) is not None:
            return limited
        one = lambda d, k, default=None: (d.get(k) or [default])[-1]  # noqa: E731
        try:
            if method == "GET" and path in ("/posts.json", "/private-posts.json"):
                return 200, self._cached((path, viewer["id"], one(q, "before")), lambda: self._latest(
                    viewer, path == "/private-posts.json", one(q, "before")))
            if method == "GET" and (m := re.fullmatch(r"/topics/private-messages(-sent)?/([^/]+)\.json", path)):
                return self._cached((path, viewer["id"], one(q, "page")), lambda: self._route_pms(
                    viewer, m.group(2), bool(m.group(1)), int(one(q, "page", 0) or 0), path))
            if method == "GET" and (m := re.fullmatch(r"/t/(?:[^/]+/)?(\d+)\.json", path)):
                t = self._readable_topic(int(m.group(1)), viewer)
                return 200, self._topic_view(t, viewer, bool(one(q, "include_raw")))
            if method == "GET" and (m := re.fullmatch(r"/t/(\d+)/posts\.json", path)):
                return 200, self._route_topic_posts(viewer, int(m.group(1)), q)
            if method == "GET" and (m := re.fullmatch(r"/posts/by_number/(\d+)/(\d+)\.json", path)):
                t = self._readable_topic(int(m.group(1)), viewer)
                p = next((p for p in self.topic_posts(t["id"]) if p["post_number"] == int(m.group(2))), None)
                if p is None:
                    raise Refused(404, ERRORS["not_found"])
                return 200, self._post_json(p, viewer, raw=True)
            if method == "GET" and (m := re.fullmatch(r"/posts/(\d+)\.json", path)):
                p = self.posts.get(int(m.group(1)))
                if p is None or not self._visible(p, viewer):
                    raise Refused(404, ERRORS["not_found"])
                return 200, self._post_json(p, viewer, raw=True)
            if method == "POST" and path == "/posts.json":
                return self._route_create(viewer, {k: v[-1] for k, v in form.items()})
            if method == "PUT" and (m := re.fullmatch(r"/posts/(\d+)\.json", path)):
                return self._route_edit(viewer, int(m.group(1)), {k: v[-1] for k, v in form.items()})
            if method == "GET" and path == "/categories.json":
                return 200, self._route_categories(viewer)
            if method == "GET" and path == "/session/current.json":
                d = copy.deepcopy(CURRENT_USER)
                d.update({k: viewer[k] for k in ("id", "username", "name", "admin", "moderator", "trust_level")})
                d["staff"] = self.staff(viewer)
                d["can_send_private_messages"] = self.staff(viewer) or viewer["trust_level"] >= \
                    self.site["personal_message_min_trust_level"]
                return 200, {"current_user": d}
            if method == "GET" and path == "/admin/site_settings.json":
                if not viewer["admin"]:
                    raise Refused(404, ERRORS["not_found"])
                return 200, {"site_settings": [
                    {"setting": k, "value": str(v).lower() if isinstance(v, bool) else str(v),
                     "default": str(DEFAULT_SITE.get(k, v)).lower() if isinstance(v, bool) else str(DEFAULT_SITE.get(k, v)),
                     "type": "bool" if isinstance(v, bool) else "integer", "category": "posting"}
                    for k, v in self.site.items()]}
        except Refused as e:
            return e.status, e.body, e.headers
        return 404, ERRORS["not_found"]

    def _cached(self, key, make):
        """A listing as it was last served, while no post or topic has changed since (the
        answer is the same; this only spares the fake the work)."""
        hit = self._cache.get(key)
        if hit is not None and hit[0] == self._rev:
            return hit[1]
        value = make()
        if isinstance(value, tuple):  # (status, body): kept encoded
            value = (value[0], Raw(json.dumps(value[1]), "application/json; charset=utf-8"))
        else:
            value = Raw(json.dumps(value), "application/json; charset=utf-8")
        self._cache[key] = (self._rev, value)
        return value

    def _readable_topic(self, tid: int, viewer: dict) -> dict:
        t = self.topics.get(tid)
        if t is None or (t["deleted_at"] and not self.staff(viewer)):
            raise Refused(404, ERRORS["not_found"])
        if t["archetype"] == "private_message" and viewer["id"] not in t["allowed"] and not viewer["admin"]:
            raise Refused(403, ERRORS["invalid_access"])
        cat = self._category(t["category_id"])
        if cat and cat["read_restricted"] and not self.staff(viewer):
            raise Refused(403, ERRORS["invalid_access"])
        if cat and cat["permission"] is None and not viewer["admin"]:
            raise Refused(403, ERRORS["invalid_access"])
        return t

    def _latest(self, viewer: dict, private: bool, before) -> dict:
        """posts_controller.rb `latest`: 50 posts, id desc, `before` meaning id <= before."""
        out = []
        for p in reversed(list(self.posts.values())):  # created in id order
            if before and p["id"] > int(before):
                continue
            t = self.topics[p["topic_id"]]
            if p["deleted_at"] or t["deleted_at"] or p["hidden"] or p["post_type"] != 1 or not t["visible"]:
                continue
            if private:
                if t["archetype"] != "private_message" or not (viewer["admin"] or viewer["id"] in t["allowed"]):
                    continue
            else:
                cat = self._category(t["category_id"])
                if t["archetype"] == "private_message" or (cat and (cat["read_restricted"] and not self.staff(viewer)
                                                                    or cat["permission"] is None)):
                    continue
            out.append(self._post_json(p, viewer, raw=True, title=True))
            if len(out) == PAGE:
                break
        return {"private_posts" if private else "latest_posts": out}

    def _route_pms(self, viewer: dict, username: str, sent: bool, page: int, path: str):
        target = self.users.get(username.lower())
        if target is None:
            raise Refused(404, ERRORS["not_found"])
        if target["id"] != viewer["id"] and not viewer["admin"]:
            raise Refused(403, ERRORS["invalid_access"])
        topics = []
        for t in self.topics.values():
            if t["archetype"] != "private_message" or target["id"] not in t["allowed"] or t["deleted_at"]:
                continue
            posters = {p["user_id"] for p in self.topic_posts(t["id"]) if not p["deleted_at"]}
            if sent:
                if target["id"] not in posters:
                    continue
            elif posters == {target["id"]} and t["user_id"] == target["id"]:
                continue  # have_posts_from_others: nobody else has posted in it
            topics.append(t)
        topics.sort(key=lambda t: (-t["bumped_at"], -t["id"]))
        return 200, self._topic_list(topics, viewer, page, path.removesuffix(".json"))

    def _route_topic_posts(self, viewer: dict, tid: int, q: dict) -> dict:
        t = self._readable_topic(tid, viewer)
        raw = bool((q.get("include_raw") or [""])[-1])
        posts = [p for p in self.topic_posts(tid) if self._seen_in_topic(p, viewer)]
        ids = [int(i) for i in q.get("post_ids[]", []) + q.get("post_ids", [])]
        if ids:
            chosen = [p for p in posts if p["id"] in ids]
        elif q.get("post_number"):
            n = int(q["post_number"][-1])
            if _rails_true((q.get("asc") or [""])[-1]):  # topics_controller#posts casts it so
                chosen = [p for p in posts if p["post_number"] > max(n, 1)][:CHUNK]
            else:
                chosen = [p for p in posts if p["post_number"] < n][-CHUNK:]
        else:
            chosen = posts[:CHUNK]
        return {"post_stream": {"posts": [self._post_json(p, viewer, raw=raw) for p in chosen]}, "id": t["id"]}

    def _route_categories(self, viewer: dict) -> dict:
        def render(c):
            d = copy.deepcopy(CATEGORY)
            kids = [k for k in self.categories if k["parent_category_id"] == c["id"]]
            d.update({"id": c["id"], "name": c["name"], "slug": c["slug"], "read_restricted": c["read_restricted"],
                      "permission": c["permission"] if not self.staff(viewer) else 1,
                      "has_children": bool(kids), "subcategory_ids": [k["id"] for k in kids],
                      "is_uncategorized": c["id"] == 1,
                      "subcategory_list": [render(k) for k in kids if self._can_see_cat(k, viewer)]})
            return d
        top = [render(c) for c in self.categories if c["parent_category_id"] is None and self._can_see_cat(c, viewer)]
        return {"category_list": {"can_create_category": bool(viewer["admin"]), "can_create_topic": True,
                                  "categories": top}}

    def _can_see_cat(self, c: dict, viewer: dict) -> bool:
        return not c["read_restricted"] or self.staff(viewer)

    def _signature(self, viewer: dict, form: dict) -> str:
        return json.dumps([viewer["id"], sorted(form.items())])

    def _route_create(self, viewer: dict, form: dict):
        """PostsController#create for an API request: memoized for 120 s by its parameters."""
        now = self.now()
        sig = self._signature(viewer, form)
        memo = self._memo.get(sig)
        if memo is not None and memo[0] > now:
            return memo[1], memo[2]
        if self.read_only:
            return 503, ERRORS["read_only"]
        status, payload, *headers = self._create(viewer, form)
        if status < 429:  # a raised error (a rate limit) is not memoized; a refusal is
            self._memo[sig] = (now + MEMO_SECONDS, status, payload)
        return (status, payload, *headers)

    def _create(self, viewer: dict, form: dict):
        permitted = {"raw", "topic_id", "archetype", "category", "target_recipients", "reply_to_post_number",
                     "title", "auto_track", "typing_duration_msecs", "composer_open_duration_msecs",
                     "visible", "draft_key", "skip_validations", "created_at", "external_id", "embed_url",
                     "nested_post"}
        form = {k: v for k, v in form.items() if k in permitted}  # target_usernames is not among them
        raw = form.get("raw", "")
        try:
            if form.get("topic_id"):
                t = self.topics.get(int(form["topic_id"]))
                if t is None:
                    return 404, ERRORS["not_found"]
                self._check_create(viewer, t, raw, pm=t["archetype"] == "private_message")
                reply_to = int(form["reply_to_post_number"]) if form.get("reply_to_post_number") else None
                p = self._create_post(viewer, t, raw, reply_to)
            elif form.get("archetype") == "private_message":
                names = [n.strip() for n in (form.get("target_recipients") or "").split(",") if n.strip()]
                targets = [self.users[n.lower()] for n in names if n.lower() in self.users]
                self._check_create(viewer, None, raw, title=form.get("title", ""), pm=True, targets=targets)
                t = self._create_topic(viewer, form.get("title", ""), raw, None, "private_message", targets)
                p = self.topic_posts(t["id"])[0]
            else:
                cat = form.get("category")
                c = self._category(int(cat)) if cat and str(cat).isdigit() else None  # a name finds nothing
                self._check_create(viewer, None, raw, title=form.get("title", ""), category=c)
                t = self._create_topic(viewer, form.get("title", ""), raw, c["id"] if c else None, "regular", [])
                p = self.topic_posts(t["id"])[0]
        except Refused as e:
            return e.status, e.body, e.headers
        return 200, self._post_json(p, viewer, raw=False)

    def _route_edit(self, viewer: dict, pid: int, form: dict):
        p = self.posts.get(pid)
        if p is None or (p["deleted_at"] and not self.staff(viewer)):
            return 404, ERRORS["not_found"]
        t = self.topics[p["topic_id"]]
        if not (self.staff(viewer) or p["user_id"] == viewer["id"]) or t["archived"]:
            return 403, ERRORS["invalid_access"]
        if self.read_only:
            return 503, ERRORS["read_only"]
        raw = form.get("post[raw]")
        if raw is None:
            return 400, {"errors": ["param is missing or the value is empty: post"], "error_type": "invalid_parameters"}
        if raw != p["raw"]:
            lo = self.site["min_personal_message_post_length"] if t["archetype"] == "private_message" else (
                self.site["min_first_post_length"] if p["post_number"] == 1 else self.site["min_post_length"])
            if _sanitized_length(raw) < lo:
                return 422, {"errors": [TEXTS["too_short"] % {"attr": "Body", "count": lo}]}
            grace = (p["user_id"] == viewer["id"] and self.now() - p["updated_at"] < self.site["editing_grace_period"]
                     and abs(len(raw) - len(p["raw"])) < self.site["editing_grace_period_max_diff"])
            self.edit(pid, raw, quick=grace)
        return 200, {"post": self._post_json(p, viewer, raw=True)}


ERROR_HTML = "<html><body><h1>502 Bad Gateway</h1></body></html>"
FAULTS = {
    "429": (429, None),
    "500": (500, {"status": 500, "error": "Internal Server Error"}),
    "502": (502, Raw(ERROR_HTML)),
    "503": (503, Raw("<html><body>Service Unavailable</body></html>")),
    "drop": (0, None),
    "commit-500": (500, {"status": 500, "error": "Internal Server Error"}, "commit"),
    "commit-drop": (0, None, "commit"),
}
FAULT_KINDS = list(FAULTS)
FAULTS["429"] = (429, _rate_limited(1, "admin_api_key_rate_limit").body)
