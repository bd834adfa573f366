"""Discourse: the adapter against a fake Discourse (tests/fakes/discourse.py, a real HTTP
server with the JSON shapes of Discourse's serializers and its site rules), through the
same moderator as every other forum: what real Discourse does that a naive adapter gets
wrong has a test each, and doctor.
Whole games, faults, crashes, the bad-input corpus and secrecy: tests/adapters/test_forum_sweeps.py
(with every other forum's)."""
from __future__ import annotations

import re

import pytest
import requests

from adapters.base import LoginFailed, Outgoing, PermanentError, TransientError, UncertainError
from adapters.discourse import DiscourseForum, marker
from adapters.discourse_checks import RECOMMENDED_SITE_SETTINGS
from adapters.discourse_http import post_ref, topic_of
from forumbot import markers, store
from forumbot.shell.moderator import Moderator
from tests.fakes.discourse import DELETED_BY_AUTHOR
from tests.fakes.driver import settle
from tests.fakes.table import NAMES, discourse_config, edit_notices
from tests.fakes.table import discourse_forum as make_forum
from tests.support import sweeps

MARK = sweeps.SWEPT["discourse"].mark


@pytest.fixture
def fake(fake_discourse):
    """The fake Discourse of the test (`dtable` plays on it)."""
    return fake_discourse


def dups(texts) -> list[str]:
    return sweeps.dups([m for text in texts for m in MARK.findall(text or "")])


def api(fake, method, path, user=None, **kw):
    """A request to the fake as the bot's key would send it (or as another user)."""
    headers = {"Api-Key": next(iter(fake.api_keys)), "Api-Username": user or fake.bot}
    return requests.request(method, fake.url + path, headers=headers, timeout=10, **kw)


def requests_of(t, fn):
    n = len(t.fake.requests)
    fn()
    return t.fake.requests[n:]


def test_a_quiet_cycle_costs_two_requests_whatever_the_number_of_games(dtable, fake):
    t = dtable()
    assert requests_of(t, t.cycle) == [("GET", "/posts.json"), ("GET", "/topics/private-messages/forumbot.json")]
    for i in range(9):
        t.people.pm(f"host{i}", "new game", f"title: Game number {i} of ten\npreset: resistance\n"
                    f"players: [p{i}a, p{i}b, p{i}c, p{i}d, p{i}e]\n")
    settle(t)
    assert store.Game.select().where(store.Game.thread.is_null(False)).count() == 10
    assert requests_of(t, t.cycle) == [("GET", "/posts.json"), ("GET", "/topics/private-messages/forumbot.json")]


# --- what real Discourse does, which a naive adapter gets wrong -----------------------


def test_the_listing_is_public_posts_only_newest_first_50_a_page_and_before_is_inclusive(fake):
    t = fake.new_topic("alice", "A topic for the listing test", "The first post of this topic.", "games")
    for i in range(60):
        fake.reply("bob", t["id"], f"reply number {i} in the topic", rules=False)
    fake.pm("carol", fake.bot, "a private note", "this one is private and stays out")
    page = api(fake, "GET", "/posts.json").json()["latest_posts"]
    assert len(page) == 50
    ids = [p["id"] for p in page]
    assert ids == sorted(ids, reverse=True)
    assert all("raw" in p and p["topic_title"] for p in page)
    assert "this one is private" not in " ".join(p["raw"] for p in page)  # PMs are not in it
    older = api(fake, "GET", "/posts.json", params={"before": ids[-1]}).json()["latest_posts"]
    assert older[0]["id"] == ids[-1]  # `before` means id <= before
    mine = api(fake, "GET", "/private-posts.json").json()["private_posts"]
    assert [p["raw"] for p in mine][:1] == ["this one is private and stays out"]


def test_many_new_posts_are_paged_back_to_the_bookmark(dtable, fake):
    t = dtable()
    t.propose()
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    voters = iter(t.state.waiting_for())
    for i in range(120):  # more than two pages of the listing, most of them in another topic
        fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
        if i in (10, 70, 110):
            t.say(next(voters), "**APPROVE**")
    reqs = requests_of(t, t.cycle)
    assert reqs.count(("GET", "/posts.json")) == 3
    assert len(t.state.votes) == 3


def test_a_gap_is_filled_from_the_game_topics_by_post_id(dtable, fake, monkeypatch):
    import adapters.discourse_reads as D

    t = dtable()
    t.propose()
    monkeypatch.setattr(D, "MAX_PAGES", 2)
    voter = t.state.waiting_for()[0]
    t.say(voter, "**APPROVE**")  # behind 150 newer posts: further back than two pages
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    for i in range(150):
        fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
    reqs = requests_of(t, t.cycle)
    tid = topic_of(t.game.thread)
    assert ("GET", f"/t/{tid}.json") in reqs and ("GET", f"/t/{tid}/posts.json") in reqs
    assert t.state.votes == {voter: "approve"}
    assert t.forum.gaps == 1
    again = requests_of(t, t.cycle)  # no more gap reads (the vote is re-read for edits by id)
    assert ("GET", f"/t/{tid}.json") not in again and again[:2] == [
        ("GET", "/posts.json"), ("GET", "/topics/private-messages/forumbot.json")]


def test_commands_off_the_listing_cost_one_topic_read_a_cycle_whatever_the_number_of_games(dtable, fake):
    t = dtable()
    for i in range(3):
        t.people.pm(f"host{i}", "new game", f"title: Another game number {i}\npreset: resistance\n"
                    f"players: [p{i}a, p{i}b, p{i}c, p{i}d, p{i}e]\n")
    settle(t)
    games = [g for g in store.Game.select() if g.thread]
    for g in games:  # a command in every game: re-checked for edits while its phase is open
        leader = t.mod.state(g).leader
        t.people.comment(leader, g.thread, f"**PROPOSE: {leader}, {t.mod.state(g).names[1]}**")
    settle(t)
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    for i in range(60):  # the proposals leave the listing's first page
        fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
    settle(t)
    quiet = [("GET", "/posts.json"), ("GET", "/topics/private-messages/forumbot.json")]
    for fresh in (False, True):  # one process, and a new process each cycle (`run --once`)
        topics = set()
        for i in range(len(games)):
            if fresh:
                t.forum = make_forum(fake, monotonic=lambda: t.clock().timestamp())
                t.mod = Moderator(t.forum, clock=t.clock)
            assert requests_of(t, t.cycle) == quiet  # nothing new: no re-check, 2 requests
            fake.reply("zed", other["id"], f"more chatter, number {i} of {fresh}", rules=False)
            reqs = requests_of(t, t.cycle)  # something new on the site: one topic re-checked
            assert reqs[:2] == quiet
            assert len(reqs) == 3 and re.fullmatch(r"/t/\d+/posts\.json", reqs[2][1]), reqs
            topics.add(reqs[2][1])
        assert len(topics) == len(games) == 4, fresh  # each game's topic in turn


def test_a_second_gap_reads_first_the_topics_the_first_did_not_reach(dtable, fake, monkeypatch):
    import adapters.discourse_reads as D

    t = dtable()
    for i in range(2):
        t.people.pm(f"host{i}", "new game", f"title: Another game number {i}\npreset: resistance\n"
                    f"players: [p{i}a, p{i}b, p{i}c, p{i}d, p{i}e]\n")
    settle(t)
    topics = sorted(topic_of(g.thread) for g in store.Game.select() if g.thread)
    assert len(topics) == 3
    monkeypatch.setattr(D, "MAX_PAGES", 1)  # 50 posts a fetch
    monkeypatch.setattr(D, "GAP_TOPIC_READS", 1)  # one game topic a fetch
    said = {tid: fake.reply("zed", tid, f"just chatting in topic {tid}, nothing more", rules=False)["id"]
            for tid in topics}
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")

    def flood():
        for i in range(60):
            fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)

    def read():
        return {tid for tid, pid in said.items()
                if store.Inbound.select().where(store.Inbound.ext_id.endswith(f"/{pid}")).exists()}
    flood()
    t.cycle()
    assert read() == {topics[0]}  # the first gap read one topic
    flood()
    t.cycle()  # a second gap: the first topic is behind again, the others further behind
    assert read() == {topics[0], topics[1]}
    t.cycle()
    assert read() == set(topics)


def test_an_edited_post_keeps_its_place_and_the_edit_is_noticed(dtable, fake):
    t = dtable()
    t.propose()
    voter = t.state.waiting_for()[0]
    post = t.people.comment(voter, t.game.thread, "**APPROVE**")
    t.cycle()
    later = fake.reply("zed", t.game.thread, "Good luck to everyone at this table!")
    fake.edit(post["id"], "**REJECT** after all")
    listing = api(fake, "GET", "/posts.json").json()["latest_posts"]
    assert listing[0]["id"] == later["id"]  # an edit does not move a post up
    again = t.forum.fetch([t.game.thread], {**store.get_cursor("discourse"), "post": later["id"]})
    assert [i for i in again.inbound if i.kind == "comment"] == []  # nor make it new
    t.cycle()
    assert t.state.votes[voter] == "approve"  # an edit changes no vote
    assert edit_notices(t) == [voter]


def test_a_quick_edit_keeps_its_version_and_is_noticed_by_its_text(dtable, fake):
    t = dtable()
    t.propose()
    voter = t.state.waiting_for()[0]
    post = t.people.comment(voter, t.game.thread, "**APPROVE**")
    t.cycle()
    fake.edit(post["id"], "**REJECT**", quick=True)  # within the grace period: no new version
    shown = api(fake, "GET", f"/t/{post['topic_id']}/posts.json",
                params={"post_ids[]": post["id"], "include_raw": "true"}).json()["post_stream"]["posts"][0]
    assert shown["version"] == 1 and shown["raw"] == "**REJECT**"
    ref = f"{post['topic_id']}/{post['post_number']}/{post['id']}"
    t.forum._listing, t.forum._listing_floor = {}, None  # not on the listing: read by id
    assert [i.body for i in t.forum.recheck([ref])] == ["**REJECT**"]
    t.cycle()
    assert edit_notices(t) == [voter]


def test_a_post_its_author_deleted_stays_but_is_left_out_of_the_recheck(dtable, fake):
    t = dtable()
    t.propose()
    a, b = t.state.waiting_for()[:2]
    pa = t.people.comment(a, t.game.thread, "**APPROVE**")
    pb = t.people.comment(b, t.game.thread, "**REJECT**")
    t.cycle()
    fake.user_delete(pa["id"])
    fake.staff_delete(pb["id"])
    shown = api(fake, "GET", f"/t/{pa['topic_id']}/posts.json",
                params={"post_ids[]": [pa["id"], pb["id"]], "include_raw": "true"}).json()["post_stream"]["posts"]
    assert shown[0]["raw"] == DELETED_BY_AUTHOR and shown[0]["user_deleted"] and shown[0]["version"] == 2
    assert shown[1]["deleted_at"]  # staff (the bot) still see a deleted post
    refs = [f"{p['topic_id']}/{p['post_number']}/{p['id']}" for p in (pa, pb)]
    for listing in (True, False):
        if listing:  # as in a cycle: the fetch just read the listing
            t.forum.fetch([t.game.thread], store.get_cursor("discourse"))
        else:
            t.forum._listing, t.forum._listing_floor = {}, None
        assert t.forum.recheck(refs) == []
    t.cycle()
    assert t.state.votes == {a: "approve", b: "reject"}  # a deleted vote still counts
    assert not edit_notices(t)


def test_a_pm_needs_target_recipients_target_usernames_is_dropped(fake):
    fake.user("alice")
    common = {"title": "G1: your role", "raw": "You are a spy in this game, keep it secret.",
              "archetype": "private_message"}
    naive = api(fake, "POST", "/posts.json", data=dict(common, target_usernames="alice"))
    assert naive.status_code == 422 and naive.json()["errors"]
    good = api(fake, "POST", "/posts.json", data=dict(common, target_recipients="alice"))
    assert good.status_code == 200 and good.json()["topic_id"]


def test_the_pm_and_the_topic_are_sent_the_way_discourse_takes_them(dtable, fake):
    t = dtable()
    writes = [form for m, path, form in fake.bodies if m == "POST" and path == "/posts.json"]
    pms = [f for f in writes if f.get("archetype") == "private_message"]
    assert pms and all(f["target_recipients"] and "target_usernames" not in f for f in pms)
    opening = next(f for f in writes if f.get("title", "").endswith(f"({t.game.tag})"))
    assert opening["category"] == "5"  # "games" resolved to its numeric id
    assert ("GET", "/categories.json") in fake.requests


def test_a_category_name_in_the_post_itself_creates_nothing(fake):
    r = api(fake, "POST", "/posts.json", data={"title": "A game of The Resistance (G9)",
                                               "raw": "The opening post of a new game.", "category": "games"})
    assert r.status_code == 422 and "Category" in r.json()["errors"][0]


def test_the_category_is_resolved_by_name_slug_path_or_id(fake):
    forum = make_forum(fake)
    assert forum.category("Game Night")["id"] == 5
    assert forum.category("games")["id"] == 5
    assert forum.category("games/resistance")["id"] == 7
    assert forum.category("Resistance")["id"] == 7
    assert forum.category("7")["id"] == 7
    assert forum.category("nowhere") is None
    with pytest.raises(PermanentError, match="no category 'nowhere'"):
        forum.post(Outgoing(key="k1", kind="thread", body="An opening post here.", title="A title long enough",
                            where="nowhere"))


def test_a_topic_view_has_20_posts_and_raw_only_with_include_raw(fake):
    t = fake.new_topic("alice", "A long topic of many posts", "The first post of this topic.", "games")
    for i in range(30):
        fake.reply("bob", t["id"], f"reply number {i} in the topic", rules=False)
    view = api(fake, "GET", f"/t/{t['id']}.json").json()
    assert len(view["post_stream"]["posts"]) == 20 and len(view["post_stream"]["stream"]) == 31
    assert "raw" not in view["post_stream"]["posts"][0]
    assert "raw" in api(fake, "GET", f"/t/{t['id']}.json", params={"include_raw": "true"}).json()["post_stream"]["posts"][0]
    after = api(fake, "GET", f"/t/{t['id']}/posts.json", params={"post_number": 20, "asc": "true"}).json()
    assert [p["post_number"] for p in after["post_stream"]["posts"]] == list(range(21, 32))


def test_many_new_posts_in_one_pm_topic_are_read_in_chunks_of_20(dtable, fake):
    t = dtable()
    t.propose()
    tid = fake.pm("alice", fake.bot, "a long talk", "hello bot, a long talk follows")["id"]
    for i in range(44):
        fake.reply_pm("alice", tid, f"line {i}: nothing to see", rules=False)
    fake.reply_pm("alice", tid, f"{t.game.tag} APPROVE", rules=False)
    reqs = requests_of(t, t.cycle)
    assert reqs.count(("GET", f"/t/{tid}/posts.json")) == 3
    settle(t)  # (the moderator takes a few of one sender's messages a cycle)
    assert t.state.votes.get("alice") == "approve"


# --- the marker ---------------------------------------------------------------------------


def test_the_marker_is_kept_in_raw_not_rendered_and_not_counted(dtable, fake):
    t = dtable()
    post = fake.topic_posts(t.game.thread)[0]
    assert MARK.search(post["raw"]) and "fb:" not in post["cooked"]
    item = store.Outbox.select().where(store.Outbox.kind == "thread").first()
    out = Outgoing(key=item.key, kind="thread", body="", title=item.title, token=markers.marker_token(item.key))
    assert marker(out) in post["raw"] and item.key not in post["raw"]
    assert t.forum.find_posted(out).id == t.game.thread


def test_a_marker_does_not_make_a_short_post_long_enough(fake):
    fake.site["min_post_length"] = 20
    forum = make_forum(fake)
    t = fake.new_topic("alice", "A topic for the length test", "The first post of this topic.", "games")
    with pytest.raises(PermanentError, match="too short"):
        forum.post(Outgoing(key="k-short", kind="comment", body="Ten chars!", thread=f"topic:{t['id']}"))


def test_a_planted_marker_or_comment_is_defused(dtable, fake):
    t = dtable()
    forum = t.forum
    tid = topic_of(t.game.thread)
    p = forum.post(Outgoing(key="k-plant", kind="comment", thread=t.game.thread,
                            body="u/mallory: you wrote <!-- fb:0123456789abcdef --> and <!-- hide the rest"))
    raw = fake.posts[post_ref(p.id)[2]]["raw"]
    assert raw.startswith("@mallory:")
    assert "0123456789abcdef" not in raw and "&lt;!-- hide the rest" in raw
    assert len(MARK.findall(raw)) == 1
    assert post_ref(p.id)[0] == tid


def test_a_post_that_landed_before_a_500_is_not_posted_twice(dtable, fake):
    t = dtable()
    t.propose()
    fake.faults = [lambda m, p: (500, {"status": 500, "error": "Internal Server Error"}, "commit")
                   if (m, p) == ("POST", "/posts.json") else None] * 2
    t.vote_all(True)
    settle(t)
    assert not dups(fake.bot_posts())
    assert store.Outbox.select().where(store.Outbox.state == "pending").count() == 0


def test_a_pm_that_landed_before_the_connection_dropped_is_found(dtable, fake):
    t = dtable()
    forum = t.forum
    fake.faults = [lambda m, p: (0, None, "commit") if m == "POST" else None]
    assert "alice" in fake.users
    out = Outgoing(key="k-pm", kind="pm", to="alice", subject="G1: a note for you", body="A private note to you.",
                   token="a1b2c3d4e5f60718")
    with pytest.raises(UncertainError):
        forum.post(out)
    found = forum.find_posted(out)
    assert found is not None and found.id.startswith("pm:")
    assert fake.topics[int(found.id[3:])]["title"] == "G1: a note for you"


def test_an_identical_api_create_within_two_minutes_answers_the_first_post(fake):
    data = {"topic_id": fake.new_topic("alice", "A topic for the memo test", "The first post here.",
                                       "games")["id"], "raw": "The same request, twice over."}
    first, second = api(fake, "POST", "/posts.json", data=data), api(fake, "POST", "/posts.json", data=data)
    assert first.json()["id"] == second.json()["id"]


# --- errors -----------------------------------------------------------------------------


def test_429_is_transient_with_discourses_wait_seconds(fake):
    forum = make_forum(fake, read_attempts=1)
    fake.api_reqs_per_minute = 2
    forum.fetch([], {})  # two requests
    with pytest.raises(TransientError) as e:
        forum.fetch([], {})
    assert e.value.retry_after is not None and 0 < e.value.retry_after <= 61
    t = fake.new_topic("alice", "A topic for the limit test", "The first post of this topic.", "games")
    with pytest.raises(TransientError) as e:
        forum.post(Outgoing(key="k", kind="comment", body="A reply long enough here.", thread=f"topic:{t['id']}"))
    assert forum.requests_left() is None or forum.requests_left() == 0


def test_the_site_wide_limit_is_waited_out_on_reads(fake, clock):
    forum = make_forum(fake, read_attempts=3, requests_per_minute=60)
    fake.api_reqs_per_minute = 3
    fake.faults = []
    forum.fetch([], {})
    assert forum.requests_left() == 58


def test_errors_map_to_the_adapters_kinds(fake):
    forum = make_forum(fake)
    t = fake.new_topic("alice", "A topic for the errors test", "The first post of this topic.", "games")
    thread = f"topic:{t['id']}"
    reply = Outgoing(key="k1", kind="comment", body="A reply that is long enough.", thread=thread)
    fake.faults = [lambda m, p: (502, None) if m == "POST" else None]
    from tests.fakes.discourse import Raw
    fake.faults = [lambda m, p: (502, Raw("<html>bad gateway</html>")) if m == "POST" else None]
    with pytest.raises(UncertainError):
        forum.post(reply)
    fake.archive(t["id"])
    with pytest.raises(PermanentError, match="not permitted"):
        forum.post(Outgoing(key="k2", kind="comment", body="Another reply long enough.", thread=thread))
    with pytest.raises(PermanentError, match="could not be found"):
        forum.post(Outgoing(key="k3", kind="comment", body="A reply to a topic that is not.", thread="topic:99999"))
    with pytest.raises(PermanentError, match="too short"):
        forum.post(Outgoing(key="k4", kind="thread", body="An opening post for a game.", title="Short (G1)",
                            where="games"))
    fake.read_only = True
    with pytest.raises(TransientError, match="read only"):
        forum.post(Outgoing(key="k5", kind="pm", to="alice", subject="G1", body="A note for you, alice."))
    fake.read_only = False
    bad = DiscourseForum.from_settings(fake.settings(api_key="wrong"), backoff=0, max_wait=0)
    with pytest.raises(LoginFailed, match="API username or key is invalid"):
        bad.fetch([], {})
    with pytest.raises(LoginFailed):
        bad.post(reply)


def test_a_dropped_read_is_retried_and_a_refused_connection_is_transient(fake):
    forum = make_forum(fake, read_attempts=3)
    fake.faults = [lambda m, p: (0, None) if m == "GET" else None] * 2
    forum.fetch([], {})
    dead = DiscourseForum("http://127.0.0.1:9", "k", "forumbot", backoff=0, max_wait=0, read_attempts=1)
    with pytest.raises(TransientError):
        dead.post(Outgoing(key="k", kind="comment", body="A reply long enough.", thread="topic:1"))
    with pytest.raises(TransientError):
        dead.fetch([], {})


# --- site rules that hit a game -----------------------------------------------------------


def test_a_title_under_15_characters_stops_the_game_with_discourses_words(dtable, fake):
    t = dtable(start=False)
    t.people.pm("host", "new game", discourse_config(t.players, title="Short"))  # "Short (G1)": 10
    settle(t)
    game = store.Game.select().first()
    assert game.status == "aborted" and game.thread is None
    told = t.people.pms_to("host")[-1]
    assert "Title is too short (minimum is 15 characters)" in told


def test_with_discourses_defaults_a_bare_approve_is_refused_by_discourse_itself(fake):
    for key in RECOMMENDED_SITE_SETTINGS:
        fake.site[key] = __import__("tests.fakes.discourse", fromlist=["DEFAULT_SITE"]).DEFAULT_SITE[key]
    t = fake.new_topic("forumbot", "The Resistance (G1)", "The game starts now, vote in bold.", "games")
    from tests.fakes.discourse import Refused
    with pytest.raises(Refused, match="too short"):
        fake.reply("alice", t["id"], "**APPROVE**")
    with pytest.raises(Refused, match="unclear"):
        fake.reply("alice", t["id"], "**APPROVE** THIS TEAM, I SAY YES")  # all capitals
    ok = fake.reply("alice", t["id"], "I **APPROVE** of this team, good luck")
    assert ok["post_number"] == 2
    with pytest.raises(Refused, match="too similar"):
        fake.reply("alice", t["id"], "I **APPROVE** of this team, good luck")
    with pytest.raises(Refused, match="too short"):
        fake.pm("alice", "forumbot", "G1", "G1 PASS")


def test_a_bot_that_is_not_staff_meets_the_5_second_limit_and_its_texts_never_repeat(fake, clock):
    fake.user("forumbot", admin=False, moderator=False)
    forum = make_forum(fake)
    t = fake.new_topic("alice", "A topic for the bot limit", "The first post of this topic.", "games")
    thread = f"topic:{t['id']}"
    same = "You are not in a running game."
    forum.post(Outgoing(key="r1", kind="comment", body=same, thread=thread))
    with pytest.raises(TransientError) as e:
        forum.post(Outgoing(key="r2", kind="comment", body=same, thread=thread))
    assert 0 < e.value.retry_after <= 5
    clock.advance(seconds=6)
    forum._blocked_until = 0
    forum.post(Outgoing(key="r2", kind="comment", body=same, thread=thread))  # the marker makes it unique
    assert len(fake.topic_posts(t["id"])) == 3


def test_a_player_below_trust_level_1_cannot_start_a_pm_but_can_answer_the_bots(dtable, fake):
    t = dtable()
    low = t.players[0]
    fake.user(low, trust_level=0)
    from tests.fakes.discourse import Refused
    with pytest.raises(Refused, match="cannot send a personal message"):
        fake.pm(low, fake.bot, t.game.tag, f"{t.game.tag} STATUS")
    role = next(x for x in fake.topics.values() if x["archetype"] == "private_message"
                and fake.users[low]["id"] in x["allowed"] and x["user_id"] == fake.users["forumbot"]["id"])
    t.propose()
    fake.reply_pm(low, role["id"], "APPROVE")
    t.cycle()
    assert t.state.votes.get(low) == "approve"
    row = store.Inbound.select().where(store.Inbound.author == low, store.Inbound.kind == "pm").first()
    assert row.parent == f"pm:{role['id']}"


def test_a_reply_in_the_bots_pm_finds_its_game_without_a_tag(db, bot, fake):
    b = bot("discourse", fake=fake)
    t1 = b.table(5)
    t2 = b.table(5, start=False)
    t2.mod = t1.mod
    t2.start(title="Second game on Discourse")
    t2.mod = t1.mod
    assert t1.game.id != t2.game.id
    alice = fake.users["alice"]["id"]
    role2 = [x for x in fake.topics.values() if x["archetype"] == "private_message" and alice in x["allowed"]
             and t2.game.tag in x["title"]][0]
    t2.propose()
    fake.reply_pm("alice", role2["id"], "APPROVE")
    t1.cycle()
    assert t2.state.votes.get("alice") == "approve" and not t1.state.votes


def test_the_forums_own_accounts_are_never_answered(dtable, fake):
    t = dtable()
    fake.pm("discobot", fake.bot, "Greetings!", "Hi! I am the site's bot. Reply to learn the tricks.", rules=False)
    fake.pm("system", fake.bot, "Welcome to the forum", "Thanks for joining, read the guidelines.", rules=False)
    before = len([p for p in fake.bot_posts()])
    settle(t)
    assert len(fake.bot_posts()) == before
    rows = store.Inbound.select().where(store.Inbound.author.in_(["discobot", "system"]))
    assert {r.origin for r in rows} == {"admin"}


def test_an_existing_topic_takes_the_opening_post_and_its_status_block(db, bot, fake):
    t = bot("discourse", fake=fake).table(5, start=False)
    topic = fake.new_topic("host", "Our own game topic here", "We will play here, the bot will join.", "games")
    t.start(extra=f"thread: {fake.url}/t/{topic['slug']}/{topic['id']}\n")
    assert t.game.thread == f"topic:{topic['id']}"
    posts = fake.topic_posts(topic["id"])
    assert fake.username(posts[1]) == "forumbot"
    opening = posts[1]["raw"]
    t.propose()
    settle(t)
    assert fake.topic_posts(topic["id"])[1]["raw"] != opening  # the status block was edited


def test_a_game_topic_read_after_a_restart_edits_the_first_post_by_number(dtable, fake):
    t = dtable()
    t.propose()
    before = fake.topic_posts(t.game.thread)[0]["raw"]
    fresh = make_forum(fake)
    t.forum = fresh
    t._make = lambda: Moderator(fresh, clock=t.clock)
    t.cycle(fresh=True)
    t.vote_all(True)
    settle(t)
    tid = topic_of(t.game.thread)
    assert ("GET", f"/posts/by_number/{tid}/1.json") in fake.requests
    assert fake.topic_posts(tid)[0]["raw"] != before


# --- doctor (faults, crashes and the corpus: tests/adapters/test_forum_sweeps.py) -------------


def doctor_lines(fake, forum=None, categories=("games",), username="forumbot"):
    from adapters.discourse_checks import discourse_checks

    return [(s, n, d) for s, n, d in discourse_checks(forum or make_forum(fake), list(categories), username)]


def test_doctor_on_discourse(fake):
    lines = doctor_lines(fake)
    assert [(s, n) for s, n, _ in lines] == [("ok", "login"), ("ok", "staff"), ("ok", "private messages"),
                                             ("ok", "category games"), ("ok", "site settings")]
    for key, value in __import__("tests.fakes.discourse", fromlist=["DEFAULT_SITE"]).DEFAULT_SITE.items():
        fake.site[key] = value  # Discourse's defaults
    warn = dict(((n, (s, d)) for s, n, d in doctor_lines(fake)))["site settings"]
    assert warn[0] == "warn" and "min_post_length is 20" in warn[1] and "allow_uppercase_posts" in warn[1]
    assert "unique_posts_mins" in warn[1] and "Hosting on Discourse" in warn[1]


def test_doctor_names_what_is_wrong(fake):
    bad = DiscourseForum.from_settings(fake.settings(api_key="nope"), backoff=0, max_wait=0)
    lines = doctor_lines(fake, bad)
    assert lines[0][0] == "fail" and "API username or key is invalid" in lines[0][2]
    assert {s for s, _, _ in lines[1:]} == {"skip"}
    assert doctor_lines(fake, username="otherbot")[0][0] == "fail"
    missing = dict(((n, (s, d)) for s, n, d in doctor_lines(fake, categories=["nowhere"])))["category nowhere"]
    assert missing[0] == "fail" and "Game Night (games)" in missing[1]
    fake.user("forumbot", admin=False, moderator=False, trust_level=0)
    lines = {n: (s, d) for s, n, d in doctor_lines(fake)}
    assert lines["staff"][0] == "fail" and "Grant Moderation" in lines["staff"][1]
    assert lines["private messages"][0] == "fail" and "trust level 0" in lines["private messages"][1]
    assert lines["site settings"][0] == "skip"


def nested_quote(depth: int, markup: str = "bbcode") -> str:
    """A Discourse quote `depth` deep: each level quotes the one inside it, each voting
    in bold (as the post it quotes did); the innermost says APPROVE, the others REJECT.
    In BBCode (what Discourse's quote button writes) or in HTML (which its raw takes)."""
    def quote(level, inner):
        if markup == "html":
            return f"<blockquote>\n{NAMES[level]} wrote:\n{inner}\n</blockquote>"
        return f'[quote="{NAMES[level]}, post:{level + 2}, topic:9"]\n{inner}\n[/quote]'
    text = "I vote **APPROVE**"
    for level in range(1, depth):
        text = quote(level, text) + "\nand me **REJECT**"
    return quote(depth, text) + "\n"


@pytest.mark.parametrize("markup", ["bbcode", "html"])
@pytest.mark.parametrize("depth", [2, 3])
def test_bold_in_a_nested_quote_is_not_a_command(dtable, depth, markup):
    """A vote quoted inside a quote is the quoted player's, at any depth: it never counts
    for the one who quotes it, neither alone nor after a vote of their own."""
    t = dtable()
    t.propose()
    quoted = nested_quote(depth, markup)
    assert quoted.count("[quote=" if markup == "bbcode" else "<blockquote>") == depth
    events, said = t.export()["events"], len(t.people.pms_to("carol"))
    t.say("carol", f"Look what they said:\n\n{quoted}\nWell.")
    t.cycle()
    assert t.export()["events"] == events and "carol" not in t.state.votes
    assert len(t.people.pms_to("carol")) == said
    t.say("dave", f"Mine: **APPROVE**\n\n{quoted}\nthat is all")  # the quote's votes come last
    t.vote_all(True, skip=("dave",))
    votes = [b for b in t.people.thread(t.game.thread) if "| Player | Vote |" in b][-1]
    assert "| dave | APPROVE |" in votes and "| REJECT |" not in votes, votes


def test_bold_in_discourses_quotes_and_code_is_not_a_command():
    from forumbot.parsing import parse_comment

    text = ('[quote="bob, post:3, topic:9, full:true"]\n**REJECT**\n[/quote]\n\n> **REJECT**\n\n'
            '```\n**REJECT**\n```\n\nI say **APPROVE**')
    assert [c.choice for c in parse_comment(text)] == ["approve"]


def test_an_unlisted_game_topic_is_noticed_and_read_by_id(dtable, fake, monkeypatch):
    import adapters.discourse_reads as D

    monkeypatch.setattr(D, "VERIFY_EVERY", 3)
    t = dtable()
    t.propose()
    tid = topic_of(t.game.thread)
    fake.unlist(tid)  # its posts are not on /posts.json any more
    voter = t.state.waiting_for()[0]
    t.say(voter, "**APPROVE**")
    assert all(p["topic_id"] != tid for p in api(fake, "GET", "/posts.json").json()["latest_posts"])
    for _ in range(4):
        t.cycle()
    assert t.state.votes == {voter: "approve"}


def test_thread_ids_from_what_a_host_writes(fake):
    forum = make_forum(fake)
    t = fake.new_topic("host", "Our own game topic here", "We will play here, the bot will join.", "games")
    tid = t["id"]
    for ref in (f"{fake.url}/t/{t['slug']}/{tid}", f"{fake.url}/t/{t['slug']}/{tid}/3", f"{fake.url}/t/{tid}",
                str(tid), f"topic:{tid}", f"https://forum.example.org/t/{t['slug']}/{tid}?u=host"):
        assert forum.thread_id(ref) == f"topic:{tid}", ref
    pm = fake.pm("host", fake.bot, "a private talk", "this is a private message")
    assert forum.thread_id(str(pm["id"])) is None  # a PM is no game topic
    fake.close(tid)
    assert forum.thread_id(str(tid)) is None
    assert forum.thread_id("99999") is None and forum.thread_id("no topic at all") is None


def test_the_settings_must_name_the_forum_the_key_and_the_bot():
    with pytest.raises(ValueError, match="api_key, api_username"):
        DiscourseForum.from_settings({"url": "https://forum.example.org"})
    with pytest.raises(ValueError, match="not a web address"):
        DiscourseForum.from_settings({"url": "forum.example.org", "api_key": "k", "api_username": "bot"})
    forum = DiscourseForum.from_settings({"url": "https://forum.example.org/", "api_key": "k",
                                          "api_username": "gamebot", "category": "games"})
    assert (forum.base, forum.bot_name, forum.default_category) == ("https://forum.example.org", "gamebot", "games")
    assert forum.session.headers["Api-Key"] == "k" and forum.session.headers["Api-Username"] == "gamebot"


# --- with the settings and config edits of issue 15 (skipped until they are in) -------------

def _engine_knows_category() -> bool:
    from forumbot.gameconfig import PLANNED_KEYS
    return "category" not in PLANNED_KEYS


@pytest.mark.skipif(not _engine_knows_category(), reason="gameconfig does not take `category:` yet")
def test_a_configs_category_overrides_the_settings(dtable, fake):
    t = dtable(extra="category: games/resistance\n")
    assert fake.topics[topic_of(t.game.thread)]["category_id"] == 7
    t2 = dtable(start=False)
    t2.people.pm("host2", "new game", discourse_config(t2.players, title="Another game here", extra="category: nowhere\n"))
    settle(t2)
    assert "there is no category 'nowhere'" in t2.people.pms_to("host2")[-1]


@pytest.mark.skipif(not _engine_knows_category(), reason="settings do not know forum = discourse yet")
def test_settings_make_a_discourse_forum_and_doctor_checks_it(tmp_path, fake, capsys):
    from forumbot.cli.doctor import doctor
    from forumbot.settings import load_settings, make_forum

    path = tmp_path / "settings.ini"
    path.write_text(f"[bot]\nforum = discourse\n\n[database]\nurl = sqlite:///{tmp_path}/bot.db\n\n"
                    f"[discourse]\nurl = {fake.url}\napi_key = test-key\napi_username = forumbot\ncategory = games\n")
    s = load_settings(str(path))
    forum = make_forum(s)
    assert isinstance(forum, DiscourseForum) and forum.bot_name == "forumbot" == s.bot_name
    assert doctor(str(path)) == 0
    out = capsys.readouterr().out
    assert "ok    category games: Game Night (id 5)" in out and "FAIL" not in out
    path.write_text(path.read_text().replace("api_key = test-key", "api_key = wrong"))
    assert doctor(str(path)) == 1
    assert "API username or key is invalid" in capsys.readouterr().out


def test_a_player_who_floods_the_topic_gets_at_most_five_answers_in_ten_minutes(dtable, fake):
    """The flood guard counts the bot's public answers by the forum's own mention (@name on
    Discourse), so a spammer is answered at most REPLIES_PER_AUTHOR times in REPLY_WINDOW."""
    from forumbot.limits import REPLIES_PER_AUTHOR

    t = dtable()
    spammer = next(p for p in t.players if p != t.state.leader)
    for i in range(12):
        t.say(spammer, f"**PROPOSE: {spammer}, {t.players[0]}** attempt number {i} of many")
        t.cycle()
    answers = [b for b in t.people.thread(t.game.thread) if b.startswith(f"@{spammer}:")]
    assert 1 <= len(answers) <= REPLIES_PER_AUTHOR, answers
