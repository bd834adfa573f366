"""The fake Reddit answers in Reddit's shapes: real praw parses every one of them, and the
fields of what it serves cover the recorded ones (tests/fixtures/fake/recorded_keys.json,
taken from praw's own cassettes)."""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

import praw
import prawcore
import pytest
from praw.exceptions import RedditAPIException
from praw.models import Comment, Message, MoreComments, SubredditMessage

from tests.fakes.reddit import FIXTURES, FakeReddit

RECORDED = json.loads((FIXTURES / "recorded_keys.json").read_text())
SUB = "resistancegames"
T0 = 1_700_000_000.0


class Clock:
    def __init__(self, at: float = T0 + 0.75):  # mid-second: Reddit still says whole seconds
        self.at = at

    def __call__(self) -> float:
        return self.at


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def fake(clock):
    f = FakeReddit(clock=clock).start()
    yield f
    f.stop()


@pytest.fixture
def reddit(fake):
    return praw.Reddit(**fake.praw_kwargs())


def get(fake, path, **params):
    url = fake.url + path + ("?" + urllib.parse.urlencode(params) if params else "")
    with urllib.request.urlopen(url) as r:
        return json.load(r)


def post(fake, path, **form):
    data = urllib.parse.urlencode(form).encode()
    with urllib.request.urlopen(fake.url + path, data=data) as r:
        return json.load(r)


def covers(data: dict, shape: str):
    missing = set(RECORDED[shape]["keys"]) - set(RECORDED["_retired"]["keys"]) - set(data)
    assert not missing, f"{shape}: the fake lacks {sorted(missing)}"


def thread(fake, n=0, author="host", title="Game 1: signups"):
    s = fake.submit(author, SUB, title, "Sign up below.")
    comments = [fake.comment(f"p{i}", s["id"], f"comment {i}") for i in range(n)]
    return s, comments


# --- the field sets ---------------------------------------------------------------------

def test_listing_comments_carry_the_recorded_fields_and_praw_reads_them(fake, reddit):
    s, _ = thread(fake, 3)
    page = get(fake, f"/r/{SUB}/comments", limit=100)
    assert set(page["data"]) >= {"after", "before", "dist", "modhash", "children"}
    for child in page["data"]["children"]:
        assert child["kind"] == "t1"
        covers(child["data"], "listing_comment")
        assert child["data"]["num_comments"] == 3 and child["data"]["link_title"] == s["title"]
    got = list(reddit.subreddit(SUB).comments(limit=10))
    assert [c.body for c in got] == ["comment 2", "comment 1", "comment 0"]
    assert all(isinstance(c, Comment) and c.link_id == s["name"] and c.edited is False for c in got)
    assert str(got[0].author) == "p2" and got[0].subreddit.display_name == SUB


def test_a_comment_page_carries_the_recorded_fields(fake):
    s, (c,) = thread(fake, 1)
    fake.comment("p9", s["id"], "a reply", parent=c["name"])
    post_listing, comments = get(fake, f"/comments/{s['id']}", limit=2048, sort="new")
    covers(post_listing["data"]["children"][0]["data"], "thread_submission")
    top = comments["data"]["children"][0]["data"]
    covers(top, "thread_comment")
    assert top["depth"] == 0
    reply = top["replies"]["data"]["children"][0]["data"]
    covers(reply, "thread_comment")
    assert reply["depth"] == 1 and reply["replies"] == "" and reply["parent_id"] == c["name"]


def test_write_answers_carry_the_recorded_fields(fake):
    s = fake.submit(fake.bot, SUB, "Game 2", "opening post")
    answer = post(fake, "/api/comment", thing_id=s["name"], text="hello", api_type="json")
    c = answer["json"]["data"]["things"][0]["data"]
    covers(c, "reply_answer_comment")
    edited = post(fake, "/api/editusertext", thing_id=c["name"], text="hello again")
    thing = edited["json"]["data"]["things"][0]["data"]
    covers(thing, "edit_answer_comment")
    assert isinstance(thing["edited"], float) and thing["body"] == "hello again"
    edited = post(fake, "/api/editusertext", thing_id=s["name"], text="new opening")
    covers(edited["json"]["data"]["things"][0]["data"], "edit_answer_submission")
    submitted = get(fake, f"/user/{fake.bot}/submitted")["data"]["children"][0]["data"]
    covers(submitted, "user_submission")
    mine = get(fake, f"/user/{fake.bot}/comments")["data"]["children"][0]["data"]
    covers(mine, "user_comment")
    info = get(fake, "/api/info", id=f"{c['name']},{s['name']}")["data"]["children"]
    assert [t["kind"] for t in info] == ["t1", "t3"]  # in the order asked for
    covers(info[0]["data"], "info_comment")
    assert info[1]["data"]["num_comments"] == 1


def test_inbox_items_carry_the_recorded_fields(fake):
    s = fake.submit(fake.bot, SUB, "Game 3", "opening")
    fake.pm_bot("alice", "hello", "a PM")
    fake.inbox_admin("Your free awards are expiring!", "use them")
    fake.inbox_modmail("resistancegames", "About your bot", "please slow down")
    fake.inbox_comment_reply("bob", s["id"], "a reply to the post")
    for item in get(fake, "/message/unread")["data"]["children"]:
        covers(item["data"], "inbox_comment" if item["kind"] == "t1" else "inbox_message")


def test_more_objects_carry_the_recorded_fields(fake):
    s, _ = thread(fake, 4)
    fake.more_after = 1
    comments = get(fake, f"/comments/{s['id']}")[1]["data"]["children"]
    assert [c["kind"] for c in comments] == ["t1", "more"]
    covers(comments[1]["data"], "more")


# --- timestamps and deleted authors -----------------------------------------------------

def test_created_utc_is_a_float_of_whole_seconds_and_many_comments_share_one(fake, reddit):
    thread(fake, 5)
    page = get(fake, f"/r/{SUB}/comments")["data"]["children"]
    assert {c["data"]["created_utc"] for c in page} == {T0}
    assert all(type(c["data"]["created_utc"]) is float and c["data"]["created"] == T0 for c in page)
    got = list(reddit.subreddit(SUB).comments(limit=10))
    assert [c.body for c in got] == [f"comment {i}" for i in (4, 3, 2, 1, 0)]  # still newest first


def test_edited_is_false_then_a_float(fake, reddit, clock):
    _, (c,) = thread(fake, 1)
    assert reddit.comment(c["id"]).edited is False
    clock.at += 61.4
    fake.edit(c["id"], "changed my mind")
    (again,) = reddit.info(fullnames=[c["name"]])
    assert again.edited == T0 + 62 and again.body == "changed my mind"  # 0.75 + 61.4, floored
    assert "changed my mind" in again.body_html


def test_deleted_removed_and_gone_authors(fake, reddit):
    _, (a, b, c) = thread(fake, 3)
    fake.delete_comment(a["id"])
    fake.remove_comment(b["id"])
    fake.delete_account("p2")
    got = {x.id: x for x in reddit.info(fullnames=[a["name"], b["name"], c["name"]])}
    assert (got[a["id"]].author, got[a["id"]].body) == (None, "[deleted]")
    assert (got[b["id"]].author, got[b["id"]].body) == (None, "[removed]")
    assert (got[c["id"]].author, got[c["id"]].body) == (None, "comment 2")
    raw = get(fake, "/api/info", id=a["name"])["data"]["children"][0]["data"]
    assert raw["author"] == "[deleted]" and raw["body_html"] == '<div class="md"><p>[deleted]</p>\n</div>'


# --- the inbox ---------------------------------------------------------------------------

def test_admin_modmail_bot_mail_and_comment_replies_in_the_inbox(fake, reddit):
    s = fake.submit(fake.bot, SUB, "Game 4", "opening")
    bots_comment = fake.comment(fake.bot, s["id"], "the status block")
    pm = fake.pm_bot("alice", "vote", "APPROVE")
    fake.inbox_admin("Your free awards are expiring!", "use them")
    fake.inbox_modmail(SUB, "About your bot", "please slow down")
    fake.inbox_modmail(SUB, "signed", "from a named mod", author="modjane")
    fake.inbox_bot_mail("AutoModerator", "Your post was removed", "beep", distinguished="moderator")
    post_reply = fake.inbox_comment_reply("bob", s["id"], "on the post")
    comment_reply = fake.inbox_comment_reply("carol", s["id"], "on the block", parent=bots_comment["name"])
    items = list(reddit.inbox.unread(limit=None))
    by_body = {i.body: i for i in items}
    assert len(items) == 7
    assert type(by_body["APPROVE"]) is Message and by_body["APPROVE"].id == pm["id"]
    admin = by_body["use them"]
    assert type(admin) is Message and str(admin.author) == "reddit" and admin.distinguished == "admin"
    modmail = by_body["please slow down"]
    assert type(modmail) is SubredditMessage and modmail.author is None
    assert modmail.subreddit.display_name == SUB and modmail.subreddit_name_prefixed == f"r/{SUB}"
    assert type(by_body["from a named mod"]) is SubredditMessage and str(by_body["from a named mod"].author) == "modjane"
    assert type(by_body["beep"]) is Message and str(by_body["beep"].author) == "AutoModerator"
    for reply, subject, parent in ((by_body["on the post"], "post reply", s["name"]),
                                   (by_body["on the block"], "comment reply", bots_comment["name"])):
        assert type(reply) is Comment and reply.was_comment is True and reply.subject == subject
        assert reply.parent_id == parent and reply.context.endswith(f"/{reply.id}/?context=3")
        assert any(c["name"] == reply.fullname for c in fake.thread_comments(s["id"]))  # and it is in the thread
    assert post_reply["name"] == by_body["on the post"].fullname and comment_reply["type"] == "comment_reply"
    reddit.inbox.mark_read(items)
    assert list(reddit.inbox.unread(limit=None)) == []
    assert all(not m["new"] for m in fake.messages)


def test_the_recorded_inbox_parses_as_recorded(fake, reddit):
    loaded = fake.load_recorded_inbox()
    items = list(reddit.inbox.unread(limit=None))
    assert [i.fullname for i in items] == [m["name"] for m in loaded]  # newest first
    assert all(str(i.dest) == fake.bot for i in items)
    kinds = {i.fullname: type(i) for i in items}
    assert all(kinds[m["name"]] is Comment for m in loaded if m["was_comment"])
    assert any(t is SubredditMessage for t in kinds.values())
    assert any(i.author is None for i in items)  # modmail
    assert any(getattr(i, "distinguished", None) == "admin" for i in items)
    assert {str(i.author) for i in items} >= {"reddit", "AutoModerator", "UnExplanationBot"}
    reddit.inbox.mark_read(items[:3])
    assert len(list(reddit.inbox.unread(limit=None))) == len(items) - 3


def test_reply_notifications_are_off_unless_asked_for(fake, reddit):
    s = fake.submit(fake.bot, SUB, "Game 5", "opening")
    mine = reddit.submission(s["id"]).reply("the bot's comment")
    fake.comment("alice", s["id"], "under the bot's comment", parent=mine.fullname)
    assert list(reddit.inbox.unread(limit=None)) == []
    fake.reply_notifications = True
    fake.comment("alice", s["id"], "again", parent=mine.fullname)
    fake.comment("bob", s["id"], "on the bot's post")
    fake.comment(fake.bot, s["id"], "the bot's own")  # no notification for itself
    got = {i.body: i.subject for i in reddit.inbox.unread(limit=None)}
    assert got == {"again": "comment reply", "on the bot's post": "post reply"}
    quiet = reddit.subreddit(SUB).submit("Game 5b", selftext="no replies please", send_replies=False)
    fake.comment("carol", quiet.id, "on the quiet post")
    assert "on the quiet post" not in {i.body for i in reddit.inbox.unread(limit=None)}


def test_a_bot_that_answers_every_pm(fake, reddit):
    fake.autoresponders = {"EchoBot": "I am a bot and I got your message."}
    reddit.redditor("EchoBot").message(subject="your role", message="You are Merlin")
    (sent,) = fake.pms_to("EchoBot")
    (answer,) = list(reddit.inbox.unread(limit=None))
    assert type(answer) is Message and str(answer.author) == "EchoBot"
    assert answer.subject == "re: your role" and answer.parent_id == sent["name"]
    assert answer.first_message_name == sent["name"]
    (out,) = list(reddit.inbox.sent(limit=10))
    assert out.id == sent["id"] and out.new is False


# --- Reddit's refusals --------------------------------------------------------------------

def test_a_private_subreddit_answers_403_with_reddits_body(fake, reddit):
    s, _ = thread(fake, 1)
    fake.forbidden_subs = {SUB}
    with pytest.raises(prawcore.Forbidden) as e:
        list(reddit.subreddit(SUB).comments(limit=10))
    assert e.value.response.json() == {"message": "Forbidden", "error": 403}
    with pytest.raises(prawcore.Forbidden):
        reddit.submission(s["id"]).reply("into a private sub")
    with pytest.raises(prawcore.Forbidden):
        reddit.submission(s["id"]).comments.list()
    with pytest.raises(RedditAPIException) as e:
        reddit.subreddit(SUB).submit("a new game", selftext="x")
    assert e.value.items[0].error_type == "SUBREDDIT_NOTALLOWED"
    fake.forbidden_subs = {SUB: "private"}
    with pytest.raises(prawcore.Forbidden) as e:
        list(reddit.subreddit(SUB).comments(limit=10))
    assert e.value.response.json() == {"reason": "private", "message": "Forbidden", "error": 403}
    assert list(reddit.subreddit("othersub").comments(limit=10)) == []  # others still answer


def test_a_missing_subreddit_answers_404(fake, reddit):
    fake.missing_subs = {"gonesub"}
    with pytest.raises(prawcore.NotFound) as e:
        list(reddit.subreddit("gonesub").comments(limit=10))
    assert e.value.response.json() == {"message": "Not Found", "error": 404}
    fake.missing_subs = {"gonesub": "banned"}
    with pytest.raises(prawcore.NotFound) as e:
        list(reddit.subreddit("GoneSub").comments(limit=10))
    assert e.value.response.json()["reason"] == "banned"
    with pytest.raises(RedditAPIException) as e:
        reddit.subreddit("gonesub").submit("a new game", selftext="x")
    assert e.value.items[0].error_type == "SUBREDDIT_NOEXIST"


@pytest.mark.parametrize("mode, created", [(True, 1), ("created", 1), ("not_created", 0)])
def test_an_empty_things_answer_makes_reply_return_none(fake, reddit, mode, created):
    s = fake.submit(fake.bot, SUB, "Game 6", "opening")
    fake.empty_comment_answer = mode
    assert reddit.submission(s["id"]).reply("did it land?") is None
    assert len(fake.thread_comments(s["id"])) == created


@pytest.mark.parametrize("status", [200, 400])
@pytest.mark.parametrize("code, field", [("SUBMIT_VALIDATION_TITLE_BLACKLISTED_STRING", "title"),
                                         ("SUBMIT_VALIDATION_BODY_BLACKLISTED_STRING", "text")])
def test_a_submit_validation_error_raises_reddit_api_exception(fake, reddit, code, field, status):
    fake.submit_error, fake.submit_error_status = code, status
    with pytest.raises(RedditAPIException) as e:
        reddit.subreddit(SUB).submit("Game 7", selftext="opening")
    (item,) = e.value.items
    assert (item.error_type, item.field) == (code, field)
    if status == 400:
        assert isinstance(e.value.__cause__, prawcore.BadRequest)
    assert fake.submissions == {}
    fake.submit_error = None
    assert reddit.subreddit(SUB).submit("Game 7", selftext="opening").id in fake.submissions


def test_an_html_400_and_a_json_400(fake, reddit):
    fake.submit_error = "html400"
    with pytest.raises(RedditAPIException) as e:  # praw 8 turns the page into the error's text
        reddit.subreddit(SUB).submit("Game 8", selftext="opening")
    assert isinstance(e.value.__cause__, prawcore.BadRequest)
    assert e.value.items[0].error_type.startswith("<html><body><h1>400 Bad request</h1>")
    assert e.value.__cause__.response.headers["Content-Type"] == "text/html"
    fake.submit_error = None
    fake.faults = [lambda m, p: (400, {"message": "Bad Request", "error": 400}) if p == "/api/submit" else None]
    with pytest.raises(prawcore.BadRequest):  # Reddit's own {"message", "error"} body
        reddit.subreddit(SUB).submit("Game 8", selftext="opening")


@pytest.mark.parametrize("mode, error", [("redirect", prawcore.Redirect), (403, prawcore.Forbidden),
                                         (404, prawcore.NotFound)])
def test_the_sent_listing_can_refuse(fake, reddit, mode, error):
    reddit.redditor("alice").message(subject="hi", message="x")
    fake.sent_listing = mode
    with pytest.raises(error) as e:
        list(reddit.inbox.sent(limit=10))
    if mode == "redirect":
        assert e.value.path == "/login/" and e.value.response.status_code == 302
    fake.sent_listing = None
    assert len(list(reddit.inbox.sent(limit=10))) == 1


# --- comment trees ------------------------------------------------------------------------

def big_thread(fake, top=12, chain=9):
    """`top` top-level comments; under the first, 5 replies with replies; under the second,
    a chain `chain` deep."""
    s, tops = thread(fake, top)
    made = list(tops)
    for i in range(5):
        r = fake.comment(f"r{i}", s["id"], f"reply {i}", parent=tops[0]["name"])
        made.append(r)
        made.append(fake.comment(f"rr{i}", s["id"], f"reply to reply {i}", parent=r["name"]))
    above = tops[1]
    for i in range(chain):
        above = fake.comment(f"c{i}", s["id"], f"chain {i}", parent=above["name"])
        made.append(above)
    return s, made


def test_by_default_the_whole_tree_comes_in_one_page(fake, reddit):
    s, made = big_thread(fake)
    forest = reddit.submission(s["id"]).comments
    assert not [c for c in forest.list() if isinstance(c, MoreComments)]
    assert sorted(c.id for c in forest.list()) == sorted(c["id"] for c in made)
    assert len(forest) == 12  # nested: only the top level at the top


def test_more_objects_and_morechildren_expand_to_the_whole_tree(fake, reddit):
    s, made = big_thread(fake)
    fake.more_after, fake.more_replies_after, fake.max_depth = 3, 2, 4
    _, comments = get(fake, f"/comments/{s['id']}")
    top = comments["data"]["children"]
    assert [c["kind"] for c in top] == ["t1", "t1", "t1", "more"]
    more = top[3]["data"]
    assert more["count"] == 9 and more["children"] == [c["id"] for c in made[3:12]]
    assert more["parent_id"] == s["name"] and more["depth"] == 0 and more["name"] == f"t1_{made[3]['id']}"
    # the chain under the second comment stops at depth 4 with a "continue this thread"
    node = top[1]["data"]
    for _ in range(3):
        node = node["replies"]["data"]["children"][0]["data"]
    (cont,) = node["replies"]["data"]["children"]
    assert node["depth"] == 3 and cont == {"kind": "more", "data": {
        "count": 0, "name": "t1__", "id": "_", "parent_id": node["name"], "depth": 4, "children": []}}
    covers(cont["data"], "more")
    submission = reddit.submission(s["id"])
    submission.comment_sort = "old"
    submission.comments.replace_more(limit=None)
    everything = submission.comments.list()
    assert not [c for c in everything if isinstance(c, MoreComments)]
    assert sorted(c.id for c in everything) == sorted(c["id"] for c in made)
    paths = [p for _, p in fake.requests]
    assert "/api/morechildren" in paths
    assert any(p.startswith(f"/comments/{s['id']}/_/") for p in paths)  # continue this thread
    assert fake.mutations == 0  # praw POSTs morechildren: a read, not a write


def test_morechildren_answers_in_reddits_shape_and_in_pieces(fake, reddit):
    s, made = big_thread(fake, top=30)
    fake.more_after, fake.morechildren_limit = 2, 10
    children = ",".join(c["id"] for c in made[2:30])
    got = get(fake, "/api/morechildren", link_id=s["name"], children=children, sort="confidence")
    things = got["json"]["data"]["things"]
    assert got["json"]["errors"] == [] and [t["kind"] for t in things] == ["t1"] * 10 + ["more"]
    assert all(t["data"]["replies"] == "" and t["data"]["depth"] == 0 for t in things[:10])
    assert things[10]["data"]["children"] == [c["id"] for c in made[12:30]]
    covers(things[0]["data"], "reply_answer_comment")
    submission = reddit.submission(s["id"])
    submission.comments.replace_more(limit=None)
    assert sorted(c.id for c in submission.comments.list()) == sorted(c["id"] for c in made)
    with pytest.raises(RedditAPIException):  # a bad request: the recorded HTML 400
        reddit.get("/api/morechildren", params={"link_id": "t3_nothere", "children": "abc"})


def test_a_comment_page_with_context_and_refresh(fake, reddit):
    s, made = big_thread(fake)
    chain_end = made[-1]
    comment = reddit.comment(chain_end["id"])
    comment.refresh()  # praw asks /comments/{id}/_/{comment}?context=100
    assert comment.body == "chain 8" and comment.parent_id == made[-2]["name"]
    parent = reddit.comment(made[0]["id"])
    parent.refresh()
    assert sorted(r.id for r in parent.replies) == sorted(c["id"] for c in made[12:22:2])
    _, page = get(fake, f"/comments/{s['id']}/_/{made[-1]['id']}", context=2)
    (top,) = page["data"]["children"]
    assert top["data"]["id"] == made[-3]["id"]  # two parents above, each with just the way down


def test_a_comment_page_sorted_new_puts_the_newest_first(fake, reddit, clock):
    s, _ = thread(fake, 0)
    first = fake.comment("a", s["id"], "first")
    clock.at += 5
    second = fake.comment("b", s["id"], "second")
    submission = reddit.submission(s["id"])
    submission.comment_sort = "new"
    assert [c.id for c in submission.comments] == [second["id"], first["id"]]
