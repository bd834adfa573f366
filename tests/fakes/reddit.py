"""A fake Reddit: a real HTTP server on 127.0.0.1 that answers the endpoints the adapter
uses with Reddit's JSON shapes, so that real praw and prawcore run end to end.

Tests drive the players through its helpers (`comment`, `pm_bot`) and read what the bot
did (`thread_comments`, `pms_to`, `requests`). `faults` lets a test make the next
requests fail the way Reddit does.

Shapes. Every comment (t1), submission (t3) and message (t4) is a recorded Reddit object
(tests/fixtures/fake/templates.json, from praw's own cassettes) with the fake's values laid
over it: `fake.comments`, `fake.submissions` and `fake.messages` hold exactly the dicts
that are served (76 fields a comment, 95 a submission, 25 a message; `edited` is `false`
or a float; `created_utc` is a float of whole seconds, so many comments share a second).
`fake.messages` is the inbox and the sent mail: t4 messages and t1 comment replies
(`was_comment: true`; their `name` says which). Comment pages (`GET /comments/{id}`) are
nested trees, with `more` objects and `/api/morechildren` (GET or POST) as Reddit's.
Its `limit` (praw sends 2048) cuts the tree too, and `sort=new` puts the newest first.
`/message/unread`, `/inbox`, `/messages` and `/comments` are newest first. A reply to a
"[deleted]" comment, or to a thing that is not there, gets DELETED_COMMENT or DELETED_LINK.

People and mail (helpers):
  submit, comment, edit, pm_bot          as before
  delete_comment(id)                     author and body "[deleted]" (the user deleted it)
  remove_comment(id)                     body "[removed]", author "[deleted]" (a mod removed it)
  delete_account(user)                   every comment of `user` keeps its body, author "[deleted]"
  inbox_admin(subject, body)             a t4 from u/reddit, distinguished "admin"
  inbox_modmail(sub, subject, body)      a t4 from a subreddit: author None, `subreddit` set
  inbox_bot_mail(author, subject, body)  a t4 from another bot (AutoModerator, ...)
  inbox_comment_reply(author, thread, body, parent=None)
                                         a comment in the thread and its t1 in the inbox
                                         ("comment reply" / "post reply", `context` link)
  load_recorded_inbox()                  the recorded unread inbox (admins, modmail, bots,
                                         comment replies), with the bot as `dest`

Switches (attributes; set them in a test, they stay until changed):
  reply_notifications = False   True: a reply to the bot's comment or thread also lands in
                                the bot's inbox as a t1, as on Reddit (not for a thread
                                submitted with sendreplies=False)
  autoresponders = {}           {user: text}: `user` answers every PM the bot sends with a
                                "re: ..." reply (a bot that answers every PM)
  forbidden_subs = set()        these subreddits answer 403 (private, quarantined, banned
                                from): listings, their threads, comments into them; a dict
                                {sub: reason} adds Reddit's `reason` ("private", ...);
                                `/api/submit` there answers SUBREDDIT_NOTALLOWED
  missing_subs = set()          these answer 404 (a dict adds `reason`, e.g. "banned");
                                `/api/submit` there answers SUBREDDIT_NOEXIST
  empty_comment_answer = False  True / "created": `/api/comment` creates the comment but
                                answers `things: []` (praw's reply() returns None);
                                "not_created": the same answer, no comment
  submit_error = None           an error code (e.g. "SUBMIT_VALIDATION_TITLE_BLACKLISTED_STRING",
                                "SUBMIT_VALIDATION_BODY_BLACKLISTED_STRING"): `/api/submit`
                                refuses; "html400": the recorded HTML 400 page
  submit_error_status = 200     200: the code in `json.errors` (praw's format); 400: an HTTP 400
                                with {"reason", "explanation", "fields"} (praw turns both into
                                RedditAPIException)
  sent_listing = None           "redirect": `/message/sent` answers 302 to /login/
                                (prawcore.Redirect); 403 or 404: that error
  more_after = None             top-level comments on a comment page before a `more`
  more_replies_after = None     replies under one comment before a `more`
  max_depth = None              depth of a comment page; deeper replies become a
                                "continue this thread" more (id "_", count 0)
  morechildren_limit = 100      comments one `/api/morechildren` answer carries; the rest
                                come as new `more` objects
  login = "ok"                  the token endpoint: "bad_password", "bad_otp" (2FA on: a
                                password alone is refused), "not_script", "revoked" (a
                                refresh token), "bad_client" (401); see _route_token
  scope = "*"                   the scopes an access token from a refresh token carries
  about = {}                    {sub: fields} over a public subreddit's /r/{sub}/about
                                (subreddit_type, submission_type, user_is_banned, ...)"""
from __future__ import annotations

import copy
import html
import itertools
import json
import re
import threading
import time
import zlib
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from tests.fakes.server import FakeServer, JSONHandler, Raw, load_fixture

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fake"
TEMPLATES = load_fixture(FIXTURES, "templates.json")  # recorded objects; see tests/fixtures/fake/README.md
ANSWERS = load_fixture(FIXTURES, "answers.json")  # recorded answers and error bodies
FORBIDDEN = json.loads(ANSWERS["forbidden"]["body"])  # {"message": "Forbidden", "error": 403}
NOT_FOUND = {"message": "Not Found", "error": 404}
SUBMIT_ERRORS = {  # not in the recordings: the codes are Reddit's, the texts are ours
    "SUBMIT_VALIDATION_TITLE_BLACKLISTED_STRING": ("This community doesn't allow that word or phrase in the title", "title"),
    "SUBMIT_VALIDATION_BODY_BLACKLISTED_STRING": ("This community doesn't allow that word or phrase in the body", "text"),
    "SUBREDDIT_NOTALLOWED": ("you aren't allowed to post there.", "sr"),
    "SUBREDDIT_NOEXIST": ("that subreddit doesn't exist", "sr"),
}


def _t2(user: str | None) -> str | None:
    """A stable fake account fullname for a user name."""
    return None if user is None else "t2_" + b36(zlib.crc32(user.lower().encode()))


def _t5(sub: str) -> str:
    return "t5_" + b36(zlib.crc32(sub.lower().encode()))


def _md(body: str, sc: bool = True) -> str:
    """Reddit's body_html, near enough: paragraphs, escaped (SC_OFF marks in most answers)."""
    paras = "</p>\n\n<p>".join(html.escape(p, quote=True).replace("&#x27;", "&#39;")
                               for p in body.split("\n\n"))
    inner = f'<div class="md"><p>{paras}</p>\n</div>'
    return f"<!-- SC_OFF -->{inner}<!-- SC_ON -->" if sc else inner


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")[:50] or "_"


def _from(template: str) -> dict:
    """A fresh copy of a recorded object (its nested lists and dicts copied too)."""
    return {k: copy.deepcopy(v) if isinstance(v, (dict, list)) else v for k, v in TEMPLATES[template].items()}


def b36(n: int) -> str:
    chars = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = chars[r] + out
        if n == 0:
            return out


class FakeReddit(FakeServer):
    def __init__(self, bot: str = "forumbot", clock=time.time):
        self.bot = bot
        self.clock = clock
        self.lock = threading.RLock()
        self._ids = itertools.count(1000)
        self.submissions: dict[str, dict] = {}
        self.comments: list[dict] = []
        self.messages: list[dict] = []
        self._names: dict[str, dict] = {}  # comments and submissions by fullname
        self.requests: list[tuple[str, str]] = []
        self.info_asked: list[list[str]] = []  # the fullnames each /api/info asked for
        self.agents: set[str] = set()  # every User-Agent header a request carried
        self.logins: list[tuple[str, dict]] = []  # each token request: (its Authorization header, its form)
        # Writes that land are POSTs other than the token and morechildren; random faults
        # are FAULT_KINDS (a GET: the first four), never on the token endpoint.
        self._init_faults()
        self.ratelimit = {"x-ratelimit-remaining": "590", "x-ratelimit-used": "10",
                          "x-ratelimit-reset": "300"}
        # Reddit's own refusals and quirks, switchable per test (see the module docstring).
        self.reply_notifications = False
        self.autoresponders: dict[str, str] = {}
        self.refuse_pms: dict[str, str] = {}  # {user (lower case): Reddit's error code}: a PM to them is refused
        self.forbidden_subs: set[str] | dict[str, str] = set()
        self.missing_subs: set[str] | dict[str, str] = set()
        self.empty_comment_answer: bool | str = False
        self.submit_error: str | None = None
        self.submit_error_status = 200
        self.sent_listing: str | int | None = None
        self.more_after: int | None = None
        self.more_replies_after: int | None = None
        self.max_depth: int | None = None
        self.morechildren_limit = 100
        self.login = "ok"  # the token endpoint (doctor's tests): see _route_token
        self.scope = "*"  # the scopes a refresh token grants
        self.about: dict[str, dict] = {}  # {sub: fields} laid over a public sub's /r/{sub}/about
        self._listen(self._handler())

    def praw_kwargs(self) -> dict:
        return dict(client_id="test", client_secret="secret", username=self.bot, password="pw",
                    user_agent="forumbot tests", oauth_url=self.url, reddit_url=self.url,
                    check_for_updates=False)

    # --- what people do --------------------------------------------------------------

    def _id(self) -> str:
        return b36(next(self._ids))

    def now(self) -> float:
        """Reddit's timestamps: a float of whole seconds (many things share one second)."""
        return float(int(self.clock()))

    def submit(self, author: str, sub: str, title: str, body: str) -> dict:
        with self.lock:
            sid = self._id()
            now = self.now()
            permalink = f"/r/{sub}/comments/{sid}/{_slug(title)}/"
            s = _from("submission")
            s.update({
                "id": sid, "name": f"t3_{sid}", "title": title, "selftext": body,
                "selftext_html": _md(body) if body else None, "author": author,
                "author_fullname": _t2(author), "subreddit": sub, "subreddit_id": _t5(sub),
                "subreddit_name_prefixed": f"r/{sub}", "created": now, "created_utc": now,
                "locked": False, "edited": False, "num_comments": 0, "permalink": permalink,
                "url": f"https://www.reddit.com{permalink}", "domain": f"self.{sub}",
                "is_self": True, "distinguished": None, "stickied": False, "pinned": False,
                "score": 1, "ups": 1, "downs": 0, "upvote_ratio": 1.0, "gilded": 0, "gildings": {},
                "num_crossposts": 0, "subreddit_subscribers": 1, "author_flair_text": None,
                "author_flair_css_class": None, "author_flair_text_color": None,
                "author_flair_background_color": None, "link_flair_background_color": "",
                "is_crosspostable": True, "can_gild": True, "no_follow": False})
            self.submissions[sid] = s
            self._names[s["name"]] = s
            return s

    def comment(self, author: str, thread: str, body: str, parent: str | None = None,
                distinguished: str | None = None) -> dict:
        """`thread` is a submission id or the adapter's "sub:id"; `parent` a t1_/t3_ name."""
        sid = thread.partition(":")[2] or thread
        with self.lock:
            s = self.submissions[sid]
            cid = self._id()
            now = self.now()
            sub = s["subreddit"]
            s["num_comments"] = s.get("num_comments", 0) + 1
            c = _from("comment")
            c.update({
                "id": cid, "name": f"t1_{cid}", "link_id": f"t3_{sid}", "author": author,
                "author_fullname": _t2(author), "body": body, "body_html": _md(body, sc=False),
                "created": now, "created_utc": now, "edited": False, "subreddit": sub,
                "subreddit_id": _t5(sub), "subreddit_name_prefixed": f"r/{sub}",
                "parent_id": parent or f"t3_{sid}", "permalink": f"{s['permalink']}{cid}/",
                "link_title": s["title"], "link_author": s["author"], "link_permalink": s["url"],
                "link_url": s["url"], "num_comments": s["num_comments"],
                "is_submitter": author == s["author"], "distinguished": distinguished,
                "locked": False, "score": 1, "ups": 1, "replies": ""})
            self.comments.append(c)
            self._names[c["name"]] = c
            if self.reply_notifications and author != self.bot:
                above = self._thing(c["parent_id"])
                if above is not None and above.get("author") == self.bot and above.get("send_replies", True):
                    self._inbox_reply(c)
            return c

    def _thing(self, name: str) -> dict | None:
        """A comment or submission by fullname."""
        thing = self._names.get(name)
        if thing is None:  # a test may have put one in by hand
            if name.startswith("t3_"):
                thing = self.submissions.get(name[3:])
            else:
                thing = next((c for c in self.comments if c["name"] == name), None)
        return thing

    def _set_body(self, thing: dict, body: str, edited: bool = True) -> None:
        key = "selftext" if thing["name"].startswith("t3_") else "body"
        thing[key] = body
        thing[f"{key}_html"] = _md(body, sc=key == "selftext")
        if edited:
            thing["edited"] = self.now()

    def edit(self, comment_id: str, body: str) -> None:
        with self.lock:
            c = self._thing(f"t1_{comment_id}")
            self._set_body(c, body)

    def delete_comment(self, comment_id: str) -> dict:
        """The author deleted it: author and body "[deleted]" (its replies stay)."""
        with self.lock:
            c = self._thing(f"t1_{comment_id}")
            self._set_body(c, "[deleted]", edited=False)
            c.update(author="[deleted]", author_fullname=None, is_submitter=False)
            return c

    def remove_comment(self, comment_id: str) -> dict:
        """A moderator removed it: what everyone else sees is body "[removed]", author "[deleted]"."""
        with self.lock:
            c = self._thing(f"t1_{comment_id}")
            self._set_body(c, "[removed]", edited=False)
            c.update(author="[deleted]", author_fullname=None, is_submitter=False)
            return c

    def delete_account(self, user: str) -> list[dict]:
        """The account is gone: its comments keep their bodies, their author is "[deleted]"."""
        with self.lock:
            hit = [c for c in self.comments if (c["author"] or "").lower() == user.lower()]
            for c in hit:
                c.update(author="[deleted]", author_fullname=None)
            return hit

    def pm_bot(self, author: str, subject: str, body: str, parent: str | None = None) -> dict:
        return self._message(author, self.bot, subject, body, parent)

    def _message(self, author, dest, subject, body, parent=None, **fields) -> dict:
        """A t4; `parent` is the id (no t4_) of the message it answers."""
        parent = parent.removeprefix("t4_") if parent else None
        with self.lock:
            mid = self._id()
            now = self.now()
            first = None
            if parent:
                above = next((m for m in self.messages if m["id"] == parent), None)
                first = (above or {}).get("first_message_name") or f"t4_{parent}"
            m = _from("message")
            m.update({
                "id": mid, "name": f"t4_{mid}", "author": author, "author_fullname": _t2(author),
                "dest": dest, "subject": subject, "body": body, "body_html": _md(body),
                "created": now, "created_utc": now, "new": True,
                "parent_id": f"t4_{parent}" if parent else None,
                "first_message": int(first[3:], 36) if first else None, "first_message_name": first,
                "was_comment": False, "replies": "", "subreddit": None,
                "subreddit_name_prefixed": None, "context": "", "distinguished": None,
                "type": "unknown", "num_comments": None, "score": 0})
            m.update(fields)
            self.messages.append(m)
            if author == self.bot and dest in self.autoresponders and dest != self.bot:
                self._message(dest, self.bot, f"re: {subject}", self.autoresponders[dest], parent=mid)
            return m

    # --- real-world mail -------------------------------------------------------------

    def inbox_admin(self, subject: str, body: str, author: str = "reddit") -> dict:
        """Mail from Reddit itself (u/reddit, u/ModNewsletter): distinguished "admin"."""
        return self._message(author, self.bot, subject, body, distinguished="admin")

    def inbox_modmail(self, sub: str, subject: str, body: str, author: str | None = None,
                      parent: str | None = None) -> dict:
        """Mail from a subreddit's moderators: no author (or the moderator's name, when
        they sign), `subreddit` and `subreddit_name_prefixed` set, distinguished "moderator".
        praw makes it a SubredditMessage."""
        return self._message(author, self.bot, subject, body, parent, author_fullname=_t2(author),
                             subreddit=sub, subreddit_name_prefixed=f"r/{sub}",
                             distinguished="moderator")

    def inbox_bot_mail(self, author: str, subject: str, body: str, parent: str | None = None,
                       distinguished: str | None = None) -> dict:
        """A PM from another bot (AutoModerator, a bot that answers every PM)."""
        return self._message(author, self.bot, subject, body, parent, distinguished=distinguished)

    def inbox_comment_reply(self, author: str, thread: str, body: str, parent: str | None = None,
                            distinguished: str | None = None) -> dict:
        """`author` comments in `thread` (under `parent`, a t1_ name, or the post) and the
        bot's inbox gets it as a t1: "comment reply" or "post reply". Returns the inbox item;
        the comment itself is in `fake.comments` under the same name."""
        c = self.comment(author, thread, body, parent, distinguished=distinguished)
        with self.lock:
            return next((m for m in self.messages if m["name"] == c["name"]), None) or self._inbox_reply(c)

    def _inbox_reply(self, c: dict) -> dict:
        link = self.submissions[c["link_id"][3:]]
        post = c["parent_id"].startswith("t3_")
        m = _from("inbox_comment")
        m.update({
            "id": c["id"], "name": c["name"], "author": c["author"],
            "author_fullname": c["author_fullname"], "body": c["body"], "body_html": _md(c["body"]),
            "created": c["created_utc"], "created_utc": c["created_utc"], "dest": self.bot,
            "new": True, "parent_id": c["parent_id"], "subreddit": c["subreddit"],
            "subreddit_name_prefixed": c["subreddit_name_prefixed"],
            "subject": "post reply" if post else "comment reply",
            "type": "post_reply" if post else "comment_reply", "link_title": link["title"],
            "num_comments": link["num_comments"], "context": f"{c['permalink']}?context=3",
            "distinguished": c["distinguished"], "was_comment": True, "replies": "", "score": 1,
            "first_message": None, "first_message_name": None})
        self.messages.append(m)
        return m

    def load_recorded_inbox(self) -> list[dict]:
        """The recorded unread inbox (tests/fixtures/fake/inbox_unread.json: a user's PM,
        admin mail, modmail with no author, another bot's PMs and replies, comment and post
        replies from a user and from AutoModerator), unread, with the bot as `dest`. Their
        timestamps are the recorded ones (2023-2025). Returns them, newest first."""
        items = copy.deepcopy(load_fixture(FIXTURES, "inbox_unread.json")["children"])
        with self.lock:
            for thing in reversed(items):  # the listing is newest first; `messages` oldest first
                thing["data"].update(dest=self.bot, new=True)
                self.messages.append(thing["data"])
        return [t["data"] for t in items]

    # --- what tests read -------------------------------------------------------------

    def thread_comments(self, thread: str) -> list[dict]:
        sid = thread.partition(":")[2] or thread
        return [c for c in self.comments if c["link_id"] == f"t3_{sid}"]

    def pms_to(self, user: str) -> list[dict]:
        """The private messages (t4) sent to `user`, oldest first."""
        return [m for m in self.messages
                if m["name"].startswith("t4_") and (m["dest"] or "").lower() == user.lower()]

    def bot_posts(self) -> list[str]:
        """Every text the bot published or sent, in order."""
        out = [s["selftext"] for s in self.submissions.values() if s["author"] == self.bot]
        out += [c["body"] for c in self.comments if c["author"] == self.bot]
        out += [m["body"] for m in self.messages if m["author"] == self.bot]
        return out

    def _count(self, link: str) -> int:
        return sum(1 for c in self.comments if c["link_id"] == link)

    def mutating_requests(self) -> int:
        return sum(1 for m, p in self.requests if m == "POST" and _writes(p))

    # --- the HTTP side ---------------------------------------------------------------

    def _handler(self):
        fake = self

        class Handler(JSONHandler):
            json_type = "application/json; charset=UTF-8"  # Reddit's spelling

            def _serve(self, method: str):
                url = urlparse(self.path)
                query = {k: v[-1] for k, v in parse_qs(url.query).items()}
                form = {}
                if method == "POST":
                    n = int(self.headers.get("Content-Length") or 0)
                    form = {k: v[-1] for k, v in parse_qs(self.rfile.read(n).decode()).items()}
                path = url.path.rstrip("/")
                with fake.lock:
                    fake.requests.append((method, path))
                    fake.agents.add(self.headers.get("User-Agent") or "")
                    if "access_token" in path:
                        fake.logins.append((self.headers.get("Authorization") or "", form))
                    kinds = None if "access_token" in path else FAULT_KINDS if method == "POST" else FAULT_KINDS[:4]
                    fault = fake.pick_fault(method, path, kinds, FAULTS)
                if fault is not None:
                    status, payload, after = fault if len(fault) == 3 else (*fault, None)
                    if after == "commit":  # the write lands (not counted), then the answer fails
                        fake.route(method, path, query, form)
                    return self.reply_fault(status, payload, "retry-after")
                status, payload = fake.route(method, path, query, form)
                if method == "POST" and _writes(path):
                    fake.after_mutation()  # may SIGKILL the bot: the write has landed, no answer
                self.reply(status, payload, dict(fake.ratelimit))

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

        return Handler

    def route(self, method: str, path: str, q: dict, form: dict):
        with self.lock:
            if path == "/api/v1/access_token":
                return self._route_token(form)
            if path == "/api/v1/me":
                return 200, {"name": self.bot, "id": "bot1"}
            if path.startswith("/r/") and (refused := self._refused(path.split("/")[2])):
                return refused
            if path.startswith("/r/") and path.endswith("/about"):
                sub = path.split("/")[2]
                return 200, {"kind": "t5", "data": {
                    "display_name": sub, "name": _t5(sub),
                    "subreddit_type": "public", "submission_type": "any", "user_is_banned": False,
                    "user_is_contributor": False, "user_is_moderator": False,
                    **self.about.get(sub.lower(), {})}}
            if too_long := self._too_long(path, form):
                return too_long
            if path == "/api/submit":
                return self._route_submit(form)
            if path == "/api/comment":
                return self._route_comment(form)
            if path == "/api/editusertext":
                name = form["thing_id"]
                thing = self._thing(name)
                if thing is not None and thing["author"] == self.bot:
                    link = thing["name"] if name.startswith("t3_") else thing["link_id"]
                    if refused := self._refused(self.submissions[link[3:]]["subreddit"]):
                        return refused
                    self._set_body(thing, form["text"])
                    data = thing if name.startswith("t3_") else self._listed(thing)
                    return 200, {"json": {"errors": [], "data": {"things": [{"kind": name[:2], "data": data}]}}}
                return 403, dict(FORBIDDEN)
            if path == "/api/compose" and (refusal := self.refuse_pms.get(form["to"].removeprefix("/u/").lower())):
                return 200, {"json": {"errors": [[refusal, f"{refusal.lower()} (fake)", "to"]]}}
            if path == "/api/compose":
                self._message(self.bot, form["to"].removeprefix("/u/").removeprefix("u/"),
                              form["subject"], form["text"])
                return 200, {"json": {"errors": []}}
            if path == "/api/sendreplies":  # "disable/enable inbox replies" of one's own thing
                thing = self._thing(form.get("id", ""))
                if thing is None or thing.get("author") != self.bot:
                    return 403, dict(FORBIDDEN)
                thing["send_replies"] = form.get("state", "true").lower() != "false"
                return 200, {}
            if path == "/api/read_message":
                names = set(form.get("id", "").split(","))
                for m in self.messages:
                    if m["name"] in names:
                        m["new"] = False
                return 200, {}
            if path in ("/message/unread", "/message/inbox", "/message/messages", "/message/comments"):
                which = path.rsplit("/", 1)[1]
                items = [m for m in self.messages if (m["dest"] or "").lower() == self.bot.lower()
                         and (m["new"] or which != "unread")
                         and (which != "messages" or m["name"].startswith("t4_"))
                         and (which != "comments" or m["name"].startswith("t1_"))]
                return 200, listing(None, _newest_first(items), q)
            if path.startswith("/message/messages/"):  # one message (praw's inbox.message)
                mid = path.rsplit("/", 1)[1]
                found = [dict(m, replies="") for m in self.messages if m["id"] == mid and m["name"].startswith("t4_")]
                if not found:
                    return 404, dict(NOT_FOUND)
                return 200, listing(None, found, q)
            if path == "/message/sent":
                if self.sent_listing == "redirect":  # what Reddit does when it takes you for logged out
                    return 302, Raw("", headers={"Location": "https://www.reddit.com/login/?dest=https%3A%2F%2Fwww.reddit.com%2Fmessage%2Fsent"})
                if self.sent_listing in (403, 404):
                    return self.sent_listing, dict(FORBIDDEN if self.sent_listing == 403 else NOT_FOUND)
                items = [m for m in self.messages if m["author"] == self.bot and m["name"].startswith("t4_")]
                return 200, listing(None, _newest_first(items), q, lambda m: dict(m, new=False))
            if path.startswith("/r/") and path.endswith("/comments"):
                sub = path.split("/")[2].lower()
                items = [c for c in self.comments if c["subreddit"].lower() == sub]
                return 200, listing("t1", list(reversed(items)), q, self._listed)
            if path.startswith("/user/") and path.endswith(("/comments", "/submitted")):
                user = path.split("/")[2].lower()
                if path.endswith("/comments"):
                    items = [c for c in self.comments if (c["author"] or "").lower() == user]
                    return 200, listing("t1", list(reversed(items)), q, self._listed)
                items = [s for s in self.submissions.values() if (s["author"] or "").lower() == user]
                return 200, listing("t3", list(reversed(items)), q)
            if path.startswith("/comments/"):  # a thread and its comment tree
                return self._route_thread(path, q)
            if path == "/api/morechildren":
                return self._route_morechildren({**q, **form})
            if path == "/api/info":
                self.info_asked.append(q.get("id", "").split(","))
                things = []
                for name in q.get("id", "").split(","):
                    thing = self._thing(name) if name[:3] in ("t1_", "t3_") else None
                    if thing is not None:
                        things.append({"kind": name[:2], "data": self._listed(thing) if name.startswith("t1_") else thing})
                return 200, {"kind": "Listing", "data": {"after": None, "dist": len(things), "modhash": None,
                                                         "geo_filter": "", "children": things, "before": None}}
            return 404, dict(NOT_FOUND)

    # --- Reddit's answers, in its shapes ----------------------------------------------

    def _route_token(self, form: dict):
        """The token exchange as praw's recorded TestScriptAuthorizer cassettes show it.
        `login`: "ok"; "bad_password" and "bad_otp" (an account with 2FA: a password alone is
        refused, a refresh token works): 200 {"error": "invalid_grant"}; "not_script": 200
        {"error": "unauthorized_client"} for a password; "revoked": a refresh token gets 400
        {"error": "invalid_grant"}; "bad_client": 401."""
        grant = form.get("grant_type")
        if self.login == "bad_client":
            return 401, {"message": "Unauthorized", "error": 401}
        if grant == "password" and self.login in ("bad_password", "bad_otp"):
            return 200, {"error": "invalid_grant"}
        if grant == "password" and self.login == "not_script":
            return 200, {"error_description": "Only script apps may use password auth",
                         "error": "unauthorized_client"}
        if grant == "refresh_token" and self.login == "revoked":
            return 400, {"error": "invalid_grant"}
        return 200, {"access_token": "token", "token_type": "bearer", "expires_in": 86400,
                     "scope": self.scope if grant == "refresh_token" else "*"}

    def _refused(self, sub: str):
        """403 or 404 for a subreddit the test made private or gone (None: it is readable)."""
        for subs, status, body in ((self.forbidden_subs, 403, FORBIDDEN), (self.missing_subs, 404, NOT_FOUND)):
            for name in subs:
                if name.lower() == sub.lower():
                    reason = subs[name] if isinstance(subs, dict) else None
                    return status, ({"reason": reason, **body} if reason else dict(body))
        return None

    def _listed(self, c: dict) -> dict:
        """A comment as listings show it: with its thread's comment count as of now."""
        s = self.submissions.get(c["link_id"][3:])
        return self.oddly(dict(c, num_comments=s["num_comments"]) if s is not None else c, c["body"])

    LIMITS = {"text": 10000, "title": 300, "subject": 100}  # what Reddit takes, in characters

    def _too_long(self, path: str, form: dict):
        """Reddit's TOO_LONG for a body, title or subject past its limit (a refusal for good)."""
        if path not in ("/api/submit", "/api/comment", "/api/compose", "/api/editusertext"):
            return None
        for field, limit in self.LIMITS.items():
            if len(form.get(field) or "") > limit:
                return 200, {"json": {"errors": [["TOO_LONG", f"this is too long (max: {limit})", field]]}}
        return None

    def _route_submit(self, form: dict):
        sub = form["sr"]
        refused = self._refused(sub)
        code = None
        if refused is not None:
            code = "SUBREDDIT_NOTALLOWED" if refused[0] == 403 else "SUBREDDIT_NOEXIST"
        elif self.submit_error == "html400":
            return 400, Raw(ANSWERS["bad_request_html"]["body"], ANSWERS["bad_request_html"]["content_type"])
        elif self.submit_error:
            code = self.submit_error
        if code is not None:
            text, field = SUBMIT_ERRORS.get(code, (code.lower().replace("_", " "), "title"))
            if self.submit_error_status == 400 and refused is None:
                return 400, {"reason": code, "explanation": text, "fields": [field]}
            return 200, {"json": {"errors": [[code, text, field]]}}
        s = self.submit(self.bot, sub, form["title"], form.get("text", ""))
        s["send_replies"] = form.get("sendreplies", "true").lower() != "false"  # "inbox replies"
        return 200, {"json": {"errors": [], "data": {"url": s["url"], "id": s["id"], "name": s["name"]}}}

    def _route_comment(self, form: dict):
        parent = form["thing_id"]
        above = self._thing(parent)
        if above is None or above.get("body") == "[deleted]":
            code = ("DELETED_LINK", "the link you are commenting on has been deleted") if parent.startswith("t3_") \
                else ("DELETED_COMMENT", "that comment has been deleted")
            return 200, {"json": {"errors": [[*code, "parent"]]}}
        sid = above["id"] if parent.startswith("t3_") else above["link_id"][3:]
        s = self.submissions[sid]
        if refused := self._refused(s["subreddit"]):
            return refused
        if s["locked"]:
            return 200, {"json": {"errors": [["THREAD_LOCKED", "that thread is locked", "parent"]]}}
        nothing = {"json": {"errors": [], "data": {"things": []}}}
        if self.empty_comment_answer == "not_created":
            return 200, nothing
        c = self.comment(self.bot, sid, form["text"], parent)
        if self.empty_comment_answer:
            return 200, nothing
        return 200, {"json": {"errors": [], "data": {"things": [{"kind": "t1", "data": self._listed(c)}]}}}

    def _tree_index(self, link: str, sort: str) -> dict[str, list[dict]]:
        """The thread's comments by parent fullname, in the page's order. A reply whose
        parent is not in the thread hangs from the post."""
        mine = [c for c in self.comments if c["link_id"] == link]
        if sort == "new":
            mine = sorted(mine, key=lambda c: c["created_utc"])[::-1]  # one second: last made first
        names = {c["name"] for c in mine}
        kids: dict[str, list[dict]] = {}
        for c in mine:
            kids.setdefault(c["parent_id"] if c["parent_id"] in names else link, []).append(c)
        return kids

    def _depth(self, c: dict, link: str, kids: dict) -> int:
        d = 0
        seen = {c["name"]}
        while c["parent_id"] != link and c["parent_id"] not in seen:
            up = self._thing(c["parent_id"])
            if up is None or up["link_id"] != link:
                break
            seen.add(up["name"])
            c, d = up, d + 1
        return d

    def _size(self, c: dict, kids: dict) -> int:
        return 1 + sum(self._size(k, kids) for k in kids.get(c["name"], []))

    def _more(self, hidden: list[dict], parent: str, depth: int, kids: dict) -> dict:
        ids = [c["id"] for c in hidden]
        return {"kind": "more", "data": {"count": sum(self._size(c, kids) for c in hidden),
                                         "name": f"t1_{ids[0]}", "id": ids[0], "parent_id": parent,
                                         "depth": depth, "children": ids}}

    @staticmethod
    def _continue(c: dict, depth: int) -> dict:
        """Reddit's "continue this thread": a more with id "_", count 0 and no children."""
        return {"kind": "more", "data": {"count": 0, "name": "t1__", "id": "_", "parent_id": c["name"],
                                         "depth": depth, "children": []}}

    def _tree(self, nodes, parent, depth, kids, budget, max_depth, toward=None) -> list[dict]:
        cap = self.more_after if depth == 0 and parent.startswith("t3_") else self.more_replies_after
        shown, hidden = (list(nodes), []) if cap is None else (list(nodes[:cap]), list(nodes[cap:]))
        out = []
        for i, c in enumerate(shown):
            if budget[0] <= 0:
                hidden = shown[i:] + hidden
                break
            budget[0] -= 1
            below = [toward[c["name"]]] if toward and c["name"] in toward else kids.get(c["name"], [])
            if below and max_depth is not None and depth + 1 >= max_depth:
                replies = thread_listing([self._continue(c, depth + 1)])
            elif below:
                replies = thread_listing(self._tree(below, c["name"], depth + 1, kids, budget, max_depth, toward))
            else:
                replies = ""
            out.append({"kind": "t1", "data": dict(self._listed(c), depth=depth, replies=replies)})
        if hidden:
            out.append(self._more(hidden, parent, depth, kids))
        return out

    def _route_thread(self, path: str, q: dict):
        """`/comments/{id}[/{slug}[/{comment}]]`: the post and its comment tree, nested, with
        `more` objects past `more_after` / `more_replies_after` / `limit` and "continue this
        thread" past `max_depth`; a comment's own page (with `context` parents above it)."""
        parts = path.split("/")
        s = self.submissions.get(parts[2])
        if s is None:
            return 404, dict(NOT_FOUND)
        if refused := self._refused(s["subreddit"]):
            return refused
        kids = self._tree_index(s["name"], q.get("sort", "confidence"))
        budget = [int(q.get("limit") or 10 ** 9)]
        max_depth = int(q["depth"]) if q.get("depth") else self.max_depth
        if len(parts) > 4 and parts[4]:  # one comment's page
            c = self._thing(f"t1_{parts[4]}")
            comments = []
            if c is not None and c["link_id"] == s["name"]:
                toward, top = {}, c
                for _ in range(int(q.get("context") or 0)):
                    up = self._thing(top["parent_id"])
                    if up is None or not up["name"].startswith("t1_") or up["link_id"] != s["name"]:
                        break
                    toward[up["name"]], top = top, up
                comments = self._tree([top], top["parent_id"], 0, kids, budget, max_depth, toward)
        else:
            comments = self._tree(kids.get(s["name"], []), s["name"], 0, kids, budget, max_depth)
        return 200, [thread_listing([{"kind": "t3", "data": s}], dist=1), thread_listing(comments)]

    def _route_morechildren(self, args: dict):
        """`/api/morechildren`: the asked-for comments and their replies, flat (each with its
        `parent_id` and `depth`), at most `morechildren_limit`; the rest as new `more`s."""
        link = args.get("link_id", "")
        s = self.submissions.get(link[3:])
        ids = [i for i in args.get("children", "").split(",") if i]
        if s is None or not ids:  # what Reddit answered praw's test of a bad request
            return 400, Raw(ANSWERS["bad_request_html"]["body"], ANSWERS["bad_request_html"]["content_type"])
        if refused := self._refused(s["subreddit"]):
            return refused
        kids = self._tree_index(link, args.get("sort", "confidence"))
        max_depth = int(args["depth"]) if args.get("depth") else self.max_depth
        left = [self.morechildren_limit]
        things: list[dict] = []
        pending: dict[str, list[dict]] = {}  # parent -> the comments left out under it
        depth_of: dict[str, int] = {}  # the comments in the answer
        parents: dict[str, int] = {link: -1}  # and the ones they hang from

        def visit(c, d):
            if left[0] <= 0:
                up = c["parent_id"] if c["parent_id"] in depth_of or c["parent_id"] in parents else link
                pending.setdefault(up, []).append(c)
                return
            left[0] -= 1
            depth_of[c["name"]] = d
            things.append({"kind": "t1", "data": dict(self._listed(c), depth=d, replies="")})
            below = kids.get(c["name"], [])
            if below and max_depth is not None and d + 1 >= max_depth:
                things.append(self._continue(c, d + 1))
                return
            for k in below:
                visit(k, d + 1)

        for i in ids:
            c = self._thing(f"t1_{i}")
            if c is not None and c["link_id"] == link and c["name"] not in depth_of:
                d = self._depth(c, link, kids)
                if d:
                    parents[c["parent_id"]] = d - 1
                visit(c, d)
        for parent, hidden in pending.items():
            things.append(self._more(hidden, parent, {**parents, **depth_of}[parent] + 1, kids))
        return 200, {"json": {"errors": [], "data": {"things": things}}}

ERROR = {"message": "error", "error": 500}
FAULTS = {
    "429": (429, {"message": "Too Many Requests", "error": 429}),
    "500": (500, ERROR),
    "503": (503, ERROR),
    "drop": (0, None),  # the connection closes with no answer
    "commit-500": (500, ERROR, "commit"),  # the write lands, then the answer is an error
    "commit-drop": (0, None, "commit"),  # the write lands, then the connection drops
}
FAULT_KINDS = list(FAULTS)


def _writes(path: str) -> bool:
    """A POST that changes something (not the token, not a read that praw POSTs)."""
    return "access_token" not in path and "morechildren" not in path


def _newest_first(items: list[dict]) -> list[dict]:
    """Mail as Reddit lists it: newest first; things of one second, last made first."""
    return sorted(items, key=lambda m: m["created_utc"])[::-1]


def thread_listing(children: list[dict], dist: int | None = None) -> dict:
    """The Listing wrapper of a comment page's two parts and of a comment's replies."""
    return {"kind": "Listing", "data": {"modhash": "", "dist": dist, "children": children,
                                        "after": None, "before": None}}


def listing(kind: str | None, items: list[dict], q: dict, render=None) -> dict:
    """A Reddit listing page, newest first, honouring `limit`, `after` and `before`. `kind`
    None: each item's own, from its fullname (the inbox mixes t1 and t4). `render` makes
    the served dict of an item (only the page's items are rendered)."""
    limit = min(int(q.get("limit", 25)), 100)
    start, end = 0, None
    if q.get("after") or q.get("before"):
        names = [i["name"] for i in items]
    if q.get("after"):
        start = names.index(q["after"]) + 1 if q["after"] in names else len(items)
    elif q.get("before"):  # the page just newer than `before`
        end = names.index(q["before"]) if q["before"] in names else 0
        start = max(0, end - limit)
    page = items[start:start + limit] if end is None else items[start:end]
    after = page[-1]["name"] if len(page) == limit and start + limit < len(items) else None
    before = page[0]["name"] if page and start > 0 and q.get("before") else None
    children = [{"kind": kind or i["name"][:2], "data": render(i) if render else i} for i in page]
    return {"kind": "Listing", "data": {"after": after, "dist": len(page), "modhash": None,
                                        "geo_filter": "", "children": children, "before": before}}
