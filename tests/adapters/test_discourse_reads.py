"""Tests with teeth for reading Discourse (issue 22): the adapter against the fake Discourse
(tests/fakes/discourse.py), whole bot cycles, and what the inbox, the game and the bot's posts
show: which posts and PMs become messages, with which author, text, time, thread, subject,
parent and origin; the listing paged back to the bookmark and the gaps beyond it; the bot's
PM topics read in chunks and pages, nothing lost and nothing read twice; edits re-checked."""
from __future__ import annotations

import pytest

from adapters.base import TransientError
from adapters.discourse_http import topic_of
from forumbot import store
from tests.fakes.discourse import ERRORS
from tests.fakes.driver import settle
from tests.fakes.table import discourse_forum as make_forum
from tests.fakes.table import edit_notices

BOT = "forumbot"


@pytest.fixture
def fake(fake_discourse):
    """The fake Discourse of the test (`dtable` plays on it)."""
    return fake_discourse


def inbox_rows(ids) -> dict[str, tuple]:
    rows = store.Inbound.select().where(store.Inbound.ext_id.in_(list(ids)))
    return {r.ext_id: (r.kind, r.author, r.body, r.subject, r.thread, r.parent, r.origin, r.created, r.edited)
            for r in rows}


def ref(p: dict) -> str:
    """The forum id the bot gives a post: topic/number/id."""
    return f"{p['topic_id']}/{p['post_number']}/{p['id']}"


def first_post(site, topic: dict) -> dict:
    return site.topic_posts(topic["id"])[0]


def test_each_kind_of_post_read_is_stored_as_it_was_written(dtable, fake, clock):  # noqa: F811
    """What a cycle makes of each kind of post: a reply in the game topic, one edited (a new
    version) and one edited in the grace period (same version, later update), a post its
    author deleted and one typed on the bot's own account (neither is a message); a PM
    topic from a player (its title the subject), a reply in the bot's own PM to a player
    (its parent that PM), and PMs from the forum's own accounts (never answered). Each keeps
    the time it was written, not the time it was read."""
    t = dtable()
    thread = t.game.thread
    at = clock().replace(tzinfo=None)
    plain = fake.reply("alice", thread, "just a remark in the game topic")
    edited = fake.reply("bob", thread, "a remark that will be edited")
    fake.edit(edited["id"], "a remark, edited since")
    quick = fake.reply("carol", thread, "a remark with a typo in it")
    fake.edit(quick["id"], "a remark with no typo in it", quick=True)
    gone = fake.reply("dave", thread, "a remark its author took back")
    fake.user_delete(gone["id"])
    own = fake.reply(BOT, thread, "typed on the bot's account: **STATUS**", rules=False)
    pm = first_post(fake, fake.pm("dave", BOT, f"{t.game.tag} a question for you", "is it my turn now?"))
    role = next(x for x in fake.topics.values() if x["archetype"] == "private_message"
                and fake.users["erin"]["id"] in x["allowed"] and x["user_id"] == fake.users[BOT]["id"])
    reply = fake.reply_pm("erin", role["id"], "thanks for the role")
    system = first_post(fake, fake.pm("system", BOT, "Welcome to the forum", "Read the guidelines.", rules=False))
    fake.user("sysbot", id=-3)
    other = first_post(fake, fake.pm("sysbot", BOT, "A note from the site", "Nothing to answer.", rules=False))
    clock.advance(minutes=10)
    t.cycle()
    rows = inbox_rows([ref(p) for p in (plain, edited, quick, gone, own, pm, reply, system, other)])
    assert rows == {
        ref(plain): ("comment", "alice", "just a remark in the game topic", "", thread, None, "", at, False),
        ref(edited): ("comment", "bob", "a remark, edited since", "", thread, None, "", at, True),
        ref(quick): ("comment", "carol", "a remark with no typo in it", "", thread, None, "", at, True),
        ref(pm): ("pm", "dave", "is it my turn now?", f"{t.game.tag} a question for you", None, None, "", at,
                  False),
        ref(reply): ("pm", "erin", "thanks for the role", role["title"], None, f"pm:{role['id']}", "", at, False),
        ref(system): ("pm", "system", "Read the guidelines.", "Welcome to the forum", None, None, "admin", at,
                      False),
        ref(other): ("pm", "sysbot", "Nothing to answer.", "A note from the site", None, None, "admin", at, False),
    }
    assert own["id"] and gone["id"]
    settle(t)
    assert not [p for p in fake.pms_to("system") + fake.pms_to("sysbot")]  # never answered


# --- the listing, paged back to the bookmark ---------------------------------------------------


def listing_reads(site, n: int) -> list[str]:
    """The queries of the /posts.json requests since request n."""
    return [q for m, p, q in site.queries[n:] if p == "/posts.json"]


@pytest.mark.parametrize("new, pages", [(49, 1), (50, 2), (98, 2), (99, 3)])
def test_the_listing_is_paged_back_just_to_the_bookmark(dtable, fake, new, pages):  # noqa: F811
    """/posts.json gives 50 posts a page, `before` meaning ids <= it: the bot pages back until
    a page reaches the post it read last, and not a page further; the oldest new post (a
    vote) is read, and the next cycle reads the first page only and nothing again."""
    t = dtable()
    t.propose()
    settle(t)
    voter = t.state.waiting_for()[0]
    t.say(voter, "**APPROVE**")
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    for i in range(new - 2):
        fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
    public = sorted(p["id"] for p in fake.public_posts())
    n = len(fake.queries)
    t.cycle()
    reads = listing_reads(fake, n)
    assert len(reads) == pages and reads[0] == ""
    assert reads[1:] == [f"before={public[-1 - 49 * k]}" for k in range(1, pages)]
    assert t.state.votes == {voter: "approve"}
    n = len(fake.queries)
    rows = store.Inbound.select().count()
    t.cycle()
    assert listing_reads(fake, n) == [""] and store.Inbound.select().count() == rows


# --- the bot's PM topics ----------------------------------------------------------------------


def pm_topic_reads(site, n: int, tid: int) -> list[str]:
    return [q for m, p, q in site.queries[n:] if p == f"/t/{tid}/posts.json"]


def stored(posts) -> int:
    ids = [ref(p) for p in posts]
    return store.Inbound.select().where(store.Inbound.ext_id.in_(ids)).count()


def test_pm_topics_past_the_first_page_and_a_long_one_are_all_read_once(dtable, fake, clock):  # noqa: F811
    """More PM topics bumped since the last read than a page of the PM list holds (30), and
    one topic with 130 new posts: every post is read, the long topic 100 posts a fetch (5
    requests of 20) and the rest in the next fetch, from where the first stopped; then a
    quiet fetch reads one page of the list and no topic."""
    t = dtable()
    settle(t)
    clock.advance(minutes=1)
    long = fake.pm("alice", BOT, "a long talk with the bot", "hello bot, a long talk follows")
    for i in range(129):
        fake.reply_pm("alice", long["id"], f"line {i}: nothing to see here", rules=False)
    others = []
    for i in range(34):
        clock.advance(seconds=1)
        others.append(first_post(fake, fake.pm(f"guest{i}", BOT, f"hello number {i}", f"just saying hello, {i}")))
    posts = fake.topic_posts(long["id"])
    n = len(fake.queries)
    t.cycle()
    lists = [q for m, p, q in fake.queries[n:] if p == f"/topics/private-messages/{BOT}.json"]
    assert lists == ["", "page=1"]
    assert stored(others) == 34 and stored(posts) == 100
    assert pm_topic_reads(fake, n, long["id"]) == ["include_raw=true"] + [
        f"include_raw=true&post_number={k}&asc=true" for k in (20, 40, 60, 80)]
    n = len(fake.queries)
    t.cycle()
    assert stored(posts) == 130
    assert pm_topic_reads(fake, n, long["id"]) == [f"include_raw=true&post_number={k}&asc=true" for k in (100, 120)]
    assert not [q for m, p, q in fake.queries[n:] if p.startswith("/t/") and p != f"/t/{long['id']}/posts.json"
                and int(p.split("/")[2]) in [o["topic_id"] for o in others]]
    settle(t)
    n = len(fake.queries)
    t.cycle()
    assert [p for m, p, q in fake.queries[n:]] == ["/posts.json", f"/topics/private-messages/{BOT}.json"]
    assert store.Inbound.select().where(store.Inbound.author == "alice").count() == 130


# --- gaps: the game topics read by post id ------------------------------------------------------


def start_games(t, n: int) -> list:
    for i in range(n):
        t.people.pm(f"host{i}", "new game", f"title: Another game number {i}\npreset: resistance\n"
                    f"players: [p{i}a, p{i}b, p{i}c, p{i}d, p{i}e]\n")
    settle(t)
    return sorted((g for g in store.Game.select() if g.thread), key=lambda g: topic_of(g.thread))


@pytest.mark.parametrize("budget", [3, 4])
def test_a_gap_reads_the_game_topics_by_id_50_a_request_within_a_budget(dtable, fake, monkeypatch,  # noqa: F811
                                                                          budget):
    """Past what the listing reaches (a gap), each game topic is read by post id: its stream,
    then its new posts 50 ids a request (a post a moderator deleted, which the bot as an
    admin still sees there, counts for nothing). A fetch spends at most GAP_TOPIC_READS requests so;
    a topic it does not reach is read in the next fetch, and no vote is lost."""
    import adapters.discourse_reads as D

    t = dtable(start=False)
    a, b = start_games(t, 2)
    for g in (a, b):
        s = t.mod.state(g)
        t.people.comment(s.shown(s.leader), g.thread, "**PROPOSE: " + ", ".join(
            [x.name for x in s.active()][: s.team_size()]) + "**")
    settle(t)
    votes = {}
    for g in (a, b):
        voter, other_voter = t.mod.state(g).waiting_for()[:2]
        votes[g.id] = voter
        fake.staff_delete(fake.reply(other_voter, g.thread, "**REJECT**")["id"])  # a moderator deleted it
        fake.reply(voter, g.thread, "**APPROVE**")
    for i in range(58):
        fake.reply("zed", a.thread, f"chatter in the first game, number {i}", rules=False)
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    for i in range(60):
        fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
    monkeypatch.setattr(D, "MAX_PAGES", 1)
    monkeypatch.setattr(D, "GAP_TOPIC_READS", budget)  # the first topic costs 3 requests, the second 2
    ta, tb = topic_of(a.thread), topic_of(b.thread)
    n = len(fake.queries)
    t.cycle()
    reads = [(p, q.count("post_ids")) for m, p, q in fake.queries[n:] if p.startswith("/t/")]
    assert reads[:3] == [(f"/t/{ta}.json", 0), (f"/t/{ta}/posts.json", 50), (f"/t/{ta}/posts.json", 10)]
    assert ((f"/t/{tb}.json", 0) in reads) is (budget == 4)
    assert (t.mod.state(a).votes, t.mod.state(b).votes) == (
        {votes[a.id]: "approve"}, {votes[b.id]: "approve"} if budget == 4 else {})
    if budget == 4:
        return
    n = len(fake.queries)
    t.cycle()
    reads = [(p, q.count("post_ids")) for m, p, q in fake.queries[n:] if p.startswith("/t/")]
    assert reads[:2] == [(f"/t/{tb}.json", 0), (f"/t/{tb}/posts.json", 2)]
    assert t.mod.state(b).votes == {votes[b.id]: "approve"}
    assert t.forum.gaps == 1


@pytest.mark.parametrize("budget, first", [(2, "b"), (3, "b"), (4, "b c")])
def test_a_gap_with_a_game_topic_gone_still_reads_the_others(dtable, fake, clock, monkeypatch,  # noqa: F811
                                                                          budget, first):
    """After a gap, a game topic that is gone costs one request (its deadlines wait); the
    other game topics are still read, as far as the fetch's budget goes
    (a topic costs its stream and one request per 50 new posts), the rest in the next fetch."""
    import adapters.discourse_reads as D

    t = dtable(start=False)
    games = dict(zip("abc", start_games(t, 3)))
    for g in games.values():
        s = t.mod.state(g)
        t.people.comment(s.shown(s.leader), g.thread, "**PROPOSE: " + ", ".join(
            [x.name for x in s.active()][: s.team_size()]) + "**")
    settle(t)
    voters = {}
    for k, g in games.items():
        voters[k] = t.mod.state(g).waiting_for()[0]
        fake.reply(voters[k], g.thread, "**APPROVE**")
    ta = topic_of(games["a"].thread)
    with fake.lock:  # deleted for good (the bot is an admin: a soft delete it could still read)
        for p in fake._by_topic.pop(ta):
            del fake.posts[p["id"]]
        del fake.topics[ta]
        fake._rev += 1
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    for i in range(60):
        fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
    monkeypatch.setattr(D, "MAX_PAGES", 1)
    monkeypatch.setattr(D, "GAP_TOPIC_READS", budget)
    clock.advance(minutes=11)
    t.cycle()
    voted = lambda: " ".join(k for k, g in games.items() if t.mod.state(g).votes)  # noqa: E731
    assert voted() == first
    t.cycle()
    assert voted() == "b c"


# --- PM topics bumped out of order, and the bookmark's memory of them ---------------------------


def role_pm(site, player: str) -> dict:
    """The PM topic the bot started with a player (its role)."""
    return next(x for x in site.topics.values() if x["archetype"] == "private_message"
                and site.users[player]["id"] in x["allowed"] and x["user_id"] == site.users[BOT]["id"])


def test_a_pm_topic_bumped_by_an_edit_does_not_hide_the_topics_bumped_before_it(dtable, fake, clock):  # noqa: F811
    """Editing the last post of a PM topic bumps the topic (it goes to the top of the bot's
    PM list) but is no new post: a PM sent before that edit, in another topic, is still read."""
    t = dtable()
    settle(t)
    clock.advance(minutes=1)
    edited = fake.reply_pm("alice", role_pm(fake, "alice")["id"], "thanks, a question later maybe")
    clock.advance(seconds=5)
    fake.reply_pm("carol", role_pm(fake, "carol")["id"], "thanks for the role, all clear")
    clock.advance(seconds=5)
    t.cycle()
    clock.advance(seconds=5)
    sent = fake.reply_pm("bob", role_pm(fake, "bob")["id"], "who leads the next mission?")
    clock.advance(seconds=5)
    fake.edit(edited["id"], "thanks, no question after all")
    clock.advance(seconds=5)
    t.cycle()
    assert inbox_rows([ref(sent)]) == {ref(sent): (
        "pm", "bob", "who leads the next mission?", role_pm(fake, "bob")["title"], None,
        f"pm:{role_pm(fake, 'bob')['id']}", "", sent_at(sent), False)}


def sent_at(p: dict):
    from datetime import datetime, timezone

    return datetime.fromtimestamp(p["created_at"], timezone.utc).replace(tzinfo=None)


def test_the_bookmark_remembers_the_most_recently_bumped_pm_topics(dtable, fake, clock, monkeypatch):  # noqa: F811
    """The PM bookmark keeps at most PM_KEEP topics, those bumped last: a topic talked in
    lately is read on from where the last read stopped, one dropped from the bookmark is read
    from its start again, and neither gives a message twice."""
    import adapters.discourse_reads as D

    monkeypatch.setattr(D, "PM_KEEP", 2)
    t = dtable()
    settle(t)
    said = []

    def talk(name: str, text: str) -> list[str]:
        clock.advance(seconds=5)
        said.append(fake.reply_pm(name, role_pm(fake, name)["id"], text))
        n = len(fake.queries)
        t.cycle()
        return pm_topic_reads(fake, n, role_pm(fake, name)["id"])

    assert talk("alice", "alice says a first thing") == ["include_raw=true"]
    assert talk("bob", "bob says a first thing") == ["include_raw=true"]
    # the two topics bumped last are remembered: each read on from the reply before
    assert talk("alice", "alice says a second thing") == ["include_raw=true&post_number=2&asc=true"]
    assert talk("bob", "bob says a second thing") == ["include_raw=true&post_number=2&asc=true"]
    assert talk("carol", "carol says a first thing") == ["include_raw=true"]
    assert talk("bob", "bob says a third thing") == ["include_raw=true&post_number=3&asc=true"]
    # alice's topic was dropped from the bookmark (carol's and bob's are newer): from its start
    assert talk("alice", "alice says a third thing") == ["include_raw=true"]
    # and, bumped last now, is remembered again (by its bump, though carol's topic is newer)
    assert talk("alice", "alice says a fourth thing") == ["include_raw=true&post_number=4&asc=true"]
    assert stored(said) == 8
    assert store.Inbound.select().where(store.Inbound.kind == "pm",
                                        store.Inbound.author.in_(["alice", "bob", "carol"])).count() == 8


# --- an unlisted game topic, the bot's own posts, a refused login ---------------------------------


def site_requests(t, fn) -> list[tuple[str, str]]:
    n = len(t.fake.requests)
    fn()
    return t.fake.requests[n:]


QUIET = [("GET", "/posts.json"), ("GET", f"/topics/private-messages/{BOT}.json")]


def test_a_game_topic_unlisted_later_is_read_by_id_and_listed_again_is_not(dtable, fake, monkeypatch):  # noqa: F811
    """Every VERIFY_EVERY fetches the game topic is looked at: once a moderator has unlisted
    it (its posts leave the listing), it is read by id and a vote in it counts; once it is
    listed again, a quiet cycle is back to its 2 requests."""
    import adapters.discourse_reads as D

    monkeypatch.setattr(D, "VERIFY_EVERY", 3)
    t = dtable()  # fetches 1 and 2
    t.propose()  # fetch 3 looks at the topic: listed
    tid = topic_of(t.game.thread)
    fake.unlist(tid)
    for _ in range(3):  # fetch 6 looks again: unlisted
        t.cycle()
    voter = t.state.waiting_for()[0]
    t.say(voter, "**APPROVE**")
    t.cycle()
    t.cycle()
    assert t.state.votes == {voter: "approve"}
    fake.topics[tid]["visible"] = True  # listed again
    reqs = site_requests(t, t.cycle)  # fetch 9 looks: listed
    assert ("GET", f"/t/{tid}.json") in reqs
    monkeypatch.setattr(D, "VERIFY_EVERY", 1000)
    settle(t)
    assert site_requests(t, t.cycle) == QUIET


def test_a_cycle_where_only_the_bot_posted_rechecks_no_topic(dtable, fake):  # noqa: F811
    """Commands off the listing are re-checked for edits only on a cycle when someone else
    posted: the bot's own posts on the listing do not count, and cost no request."""
    t = dtable()
    t.propose()
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    for i in range(60):  # the proposal leaves the listing's first page
        fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
    settle(t)
    assert site_requests(t, t.cycle) == QUIET
    fake.reply(BOT, other["id"], "typed on the bot's account, nothing to re-check", rules=False)
    assert site_requests(t, t.cycle) == QUIET
    fake.reply("zed", other["id"], "someone else says something", rules=False)
    reqs = site_requests(t, t.cycle)
    assert reqs[:2] == QUIET and [p for m, p in reqs[2:]] == [f"/t/{topic_of(t.game.thread)}/posts.json"]


def test_a_new_process_whose_login_is_refused_reports_it_and_goes_on_later(dtable, fake):  # noqa: F811
    """A new process (`run --once`) whose API key the forum refuses: its first cycle reads
    nothing, reports the refused login and fails no other way; with the key fixed, the
    next process reads the vote made meanwhile."""
    from adapters.discourse import DiscourseForum
    from forumbot.shell.moderator import Moderator
    from tests.fakes.table import discourse_forum as make_forum

    t = dtable()
    t.propose()  # a command in the game: re-checked for edits while its phase is open
    voter = t.state.waiting_for()[0]
    t.say(voter, "**APPROVE**")
    refused = DiscourseForum.from_settings(fake.settings(api_key="wrong"), backoff=0, max_wait=0,
                                           requests_per_minute=None, recheck_every=0)
    report = Moderator(refused, clock=t.clock).cycle()
    # one error, the read's: nothing else was asked of the forum (no re-check for edits)
    assert [e.partition(": ")[0] for e in report.errors] == ["fetch"]
    assert "The API username or key is invalid" in report.errors[0]
    assert t.state.votes == {}
    t.forum = make_forum(fake, monotonic=lambda: t.clock().timestamp())
    t.mod = Moderator(t.forum, clock=t.clock)
    t.cycle()
    assert t.state.votes == {voter: "approve"}


def test_more_pm_topics_bumped_than_the_pages_of_one_fetch_are_all_read_in_the_next(dtable, fake, clock,  # noqa: F811
                                                                                      monkeypatch):
    """More PM topics bumped since the last read than PM_PAGES pages of the PM list hold
    (30 topics a page): a fetch reads what its pages hold; the next ones read the first page
    (what is new) and go on down the list from a page before where the last stopped, until
    the list is read down to the bookmark; then the fetch after reads what was bumped since
    the first of them, and every message is read once."""
    import adapters.discourse_reads as D

    monkeypatch.setattr(D, "PM_PAGES", 3)
    t = dtable()
    settle(t)
    sent = []

    def hello(who: str, n: int) -> None:
        for i in range(n):
            clock.advance(seconds=1)
            sent.append(first_post(fake, fake.pm(f"{who}{i}", BOT, f"hello from {who} {i}", f"{who} {i} says hello",
                                                 rules=False)))

    def lists() -> list[str]:
        n = len(fake.queries)
        t.cycle()
        clock.advance(seconds=1)
        return [q for m, p, q in fake.queries[n:] if p == f"/topics/private-messages/{BOT}.json"]

    hello("guest", 100)
    assert lists() == ["", "page=1", "page=2"] and stored(sent) == 90  # the 90 bumped last
    hello("newcomer", 35)  # more new ones than the first page holds
    assert lists() == ["", "page=2", "page=3"] and stored(sent) == 120
    assert lists() == ["", "page=3", "page=4"] and stored(sent) == 130  # down to the bookmark
    assert lists() == ["", "page=1"] and stored(sent) == 135  # what was bumped since the first
    assert lists() == [""]
    assert store.Inbound.select().where(store.Inbound.kind == "pm", store.Inbound.author.startswith("guest")
                                        | store.Inbound.author.startswith("newcomer")).count() == 135


def test_every_edited_command_on_the_listing_is_noticed(dtable, fake):  # noqa: F811
    """Two votes edited, both still on the listing the cycle read: each voter is told once
    that an edit changes nothing, and both votes stand as first written."""
    from tests.fakes.table import edit_notices

    t = dtable()
    t.propose()
    a, b = t.state.waiting_for()[:2]
    pa = t.people.comment(a, t.game.thread, "**APPROVE**")
    pb = t.people.comment(b, t.game.thread, "**REJECT**")
    t.cycle()
    fake.edit(pa["id"], "**REJECT** after all")
    fake.edit(pb["id"], "**APPROVE** after all")
    settle(t)
    assert t.state.votes == {a: "approve", b: "reject"}
    assert sorted(edit_notices(t)) == sorted([a, b])


def test_a_reply_in_the_bots_pm_whose_first_post_it_cannot_see_still_has_it_as_parent(dtable, fake):  # noqa: F811
    """A bot that is not staff does not see its own role PM's first post once a moderator
    deleted it: the PM list's posters still say the bot started the topic, so a player's
    reply there still has that PM as its parent (and so finds its game)."""
    t = dtable()
    settle(t)
    role = role_pm(fake, "erin")
    fake.staff_delete(first_post(fake, role)["id"])
    fake.users[BOT].update(admin=False, moderator=False)
    reply = fake.reply_pm("erin", role["id"], "thanks for the role")
    t.cycle()
    assert [r[5] for r in inbox_rows([ref(reply)]).values()] == [f"pm:{role['id']}"]


# --- at the edges: posts that are no message, deleted edits, refused and empty reads --------------

def test_a_small_action_in_a_pm_topic_is_no_message(dtable, fake):  # noqa: F811
    """A small action (post_type 3: someone invited, someone left) shows in the PM topic
    the bot reads, with no text: only the player's own reply there becomes a message."""
    t = dtable()
    settle(t)
    role = role_pm(fake, "erin")
    fake.small_action("erin", role["id"], "invited_user")
    reply = fake.reply_pm("erin", role["id"], "thanks for the role, all clear")
    fake.small_action("erin", role["id"], "user_left")
    t.cycle()
    rows = store.Inbound.select().where((store.Inbound.kind == "pm") & (store.Inbound.author == "erin"))
    assert [(r.ext_id, r.body) for r in rows] == [(f"{role['id']}/{reply['post_number']}/{reply['id']}",
                                                   "thanks for the role, all clear")]


def test_a_whispered_vote_read_by_id_is_not_counted(dtable, fake, monkeypatch):  # noqa: F811
    """A player who is staff whispers a vote (post_type 4, seen by staff only) in a game
    topic read by id (unlisted): the other players cannot see it, so it counts for nothing;
    the vote posted openly counts."""
    import adapters.discourse_reads as D

    monkeypatch.setattr(D, "VERIFY_EVERY", 3)
    t = dtable()
    t.propose()
    tid = topic_of(t.game.thread)
    fake.unlist(tid)
    for _ in range(3):
        t.cycle()
    a, b = t.state.waiting_for()[:2]
    fake.user(a, moderator=True)
    fake.whisper(a, tid, "**REJECT**")
    fake.reply(b, tid, "**APPROVE**")
    t.cycle()
    t.cycle()
    assert t.state.votes == {b: "approve"}


@pytest.mark.parametrize("chatter", [0, 60])
def test_a_vote_deleted_after_an_edit_earns_no_edit_notice(dtable, fake, chatter):  # noqa: F811
    """Votes edited and then deleted (by a moderator, by their author, hidden by flags) are
    gone: the bot says nothing of their edits; a vote merely edited earns its notice. Whether
    the votes are still on the listing the cycle read (then no topic is read again) or
    re-read by id (60 posts later: one request)."""
    t = dtable()
    t.propose()
    a, b, c, d = t.state.waiting_for()[:4]
    posts = {v: t.people.comment(v, t.game.thread, "**APPROVE**") for v in (a, b, c, d)}
    t.cycle()
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    for i in range(chatter):
        fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
    settle(t)
    for v in (a, b, c, d):
        fake.edit(posts[v]["id"], "**REJECT** after all")
    fake.staff_delete(posts[a]["id"])
    fake.user_delete(posts[b]["id"])
    with fake.lock:
        posts[c]["hidden"] = True
        fake._rev += 1
    fake.reply("zed", other["id"], "someone else says something", rules=False)
    n = len(fake.requests)
    settle(t)
    assert edit_notices(t) == [d]
    # on the listing (or in the range it covered and gone from it): no topic is read again
    reread = [p for m, p in fake.requests[n:] if p == f"/t/{topic_of(t.game.thread)}/posts.json"]
    assert len(reread) == (0 if chatter == 0 else 1)


def test_a_game_topic_gone_at_its_check_is_named_in_the_failure(fake):  # noqa: F811
    """Every VERIFY_EVERY fetches a game topic is looked at; one deleted for good fails the
    read of its game, and the failure says which topic and what Discourse answered."""
    import adapters.discourse_reads as D

    t = fake.new_topic("alice", "A game topic about to vanish", "The first post of the game topic.", "games")
    tid = t["id"]
    with fake.lock:
        for p in fake._by_topic.pop(tid):
            del fake.posts[p["id"]]
        del fake.topics[tid]
        fake._rev += 1
    forum = make_forum(fake)
    got = forum.fetch([f"topic:{tid}"], {"n": D.VERIFY_EVERY - 1, "post": 1})
    why = got.failed[f"topic:{tid}"]
    assert why.startswith(f"topic {tid}: ") and ERRORS["not_found"]["errors"][0] in why


@pytest.mark.parametrize("status", [404, 403])
def test_a_pm_list_refused_fails_the_read_as_transient(fake, status):  # noqa: F811
    """The bot's PM list refused (a 404 or 403, not a rate limit): the read fails as one to
    try again, naming the PM list, and nothing of it counts."""
    forum = make_forum(fake, read_attempts=1)
    cursor = forum.fetch([], {}).cursor
    body = ERRORS["not_found"] if status == 404 else ERRORS["invalid_access"]
    fake.faults.append(lambda m, p: (status, body) if p.startswith("/topics/private-messages/") else None)
    with pytest.raises(TransientError, match="^private messages: ") as e:
        forum.fetch([], cursor)
    assert e.value.retry_after is None


def test_a_rate_limited_pm_list_passes_on_discourses_wait(fake):  # noqa: F811
    forum = make_forum(fake, read_attempts=1)
    cursor = forum.fetch([], {}).cursor
    fake.faults.append(lambda m, p: (429, {"errors": ["slow down"], "error_type": "rate_limit",
                                           "extras": {"wait_seconds": 7}}, )
                       if p.startswith("/topics/private-messages/") else None)
    with pytest.raises(TransientError, match="^private messages: ") as e:
        forum.fetch([], cursor)
    assert e.value.retry_after is not None and 1 <= e.value.retry_after <= 7


def test_a_listing_whose_older_posts_all_left_it_is_read_in_one_page(fake):  # noqa: F811
    """Every post up to the bookmark has left the listing (their topics unlisted): the new
    posts make a short page, the oldest public one; the fetch reads no page beyond it, and
    sees no gap (it reads no game topic by id)."""
    game = fake.new_topic("alice", "A game topic, unlisted soon", "The first post of the game topic.", "games")
    thread = f"topic:{game['id']}"
    forum = make_forum(fake)
    cursor = forum.fetch([thread], {}).cursor
    for tid, t in list(fake.topics.items()):
        if t["archetype"] == "regular":
            fake.unlist(tid)
    new = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    n = len(fake.queries)
    got = forum.fetch([thread], cursor)
    # no gap either: the game topic is not read by id
    assert [(p, q) for m, p, q in fake.queries[n:]] == [("/posts.json", ""), (f"/topics/private-messages/{BOT}.json", "")]
    assert got.failed == {} and got.partial == set()
    assert got.cursor["post"] == fake.topic_posts(new["id"])[0]["id"]


def test_a_login_refused_in_the_middle_of_a_new_processs_first_fetch_fails_no_other_way(dtable, fake,  # noqa: F811
                                                                                         monkeypatch):
    """A new process (`run --once`) reads the listing, then the forum refuses its key while it
    reads a game topic past a gap: the cycle reports the refused login and goes on (the
    re-check for edits of the vote made before fails no other way); the vote stands."""
    import adapters.discourse_reads as D
    from forumbot.shell.moderator import Moderator

    t = dtable()
    t.propose()
    voter = t.state.waiting_for()[0]
    t.say(voter, "**APPROVE**")
    t.cycle()
    assert t.state.votes == {voter: "approve"}
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    for i in range(60):
        fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
    monkeypatch.setattr(D, "MAX_PAGES", 1)
    tid = topic_of(t.game.thread)
    fake.faults.append(lambda m, p: (403, ERRORS["invalid_key"]) if p == f"/t/{tid}.json" else None)
    forum = make_forum(fake, monotonic=lambda: t.clock().timestamp())
    report = Moderator(forum, clock=t.clock).cycle()
    assert [e.partition(": ")[0] for e in report.errors] == ["fetch"]
    assert "The API username or key is invalid" in report.errors[0]
    assert t.state.votes == {voter: "approve"}


def test_a_first_read_takes_one_page_of_the_listing_and_starts_from_its_newest_post(fake):  # noqa: F811
    """A bot with no bookmark yet (its first fetch) reads the first page of the listing only,
    however many posts the site has, and from then on reads what comes after its newest."""
    forum = make_forum(fake)
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    for i in range(120):
        fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
    n = len(fake.queries)
    got = forum.fetch([], {})
    assert [q for m, p, q in fake.queries[n:] if p == "/posts.json"] == [""]
    assert got.cursor["post"] == fake.public_posts()[-1]["id"]


def test_an_empty_listing_is_no_gap(fake):  # noqa: F811
    """Every public topic unlisted (the listing answers no post at all): nothing is new and
    nothing was missed, so the fetch reads no game topic by id; its 2 requests, as a quiet one."""
    game = fake.new_topic("alice", "A game topic, unlisted soon", "The first post of the game topic.", "games")
    forum = make_forum(fake)
    thread = f"topic:{game['id']}"
    cursor = forum.fetch([thread], {}).cursor
    for tid, t in list(fake.topics.items()):
        if t["archetype"] == "regular":
            fake.unlist(tid)
    n = len(fake.requests)
    got = forum.fetch([thread], cursor)
    assert fake.requests[n:] == [("GET", "/posts.json"), ("GET", f"/topics/private-messages/{BOT}.json")]
    assert got.failed == {} and got.partial == set()


def test_a_pm_topic_deleted_after_it_was_read_leaves_the_quiet_cycles_at_one_page(dtable, fake, clock):  # noqa: F811
    """A moderator deletes the PM topic the bot read last (it leaves the bot's PM list, whose
    newest topic is then older than the bookmark): the bookmark stays where it was, so every
    quiet cycle after still reads one page of the PM list, however many pages it has, and
    no PM topic."""
    t = dtable()
    settle(t)
    for i in range(31):  # more than a page of the PM list (30)
        clock.advance(seconds=1)
        fake.pm(f"guest{i}", BOT, f"hello number {i}", f"just saying hello, {i}", rules=False)
    clock.advance(seconds=1)
    spam = fake.pm("spammer", BOT, "cheap things for sale", "cheap things, buy them here now", rules=False)
    settle(t)
    fake.delete_topic(spam["id"])
    for _ in range(3):
        assert site_requests(t, t.cycle) == QUIET
        clock.advance(seconds=5)


def test_a_pm_deleted_while_the_bot_reads_its_topic_is_skipped_and_the_rest_is_read(dtable, fake, clock):  # noqa: F811
    """A moderator deletes a player's PM between the bot's read of its PM list (which still
    counts it) and its read of the topic (a bot that is not staff no longer sees it there):
    the cycle goes on without an error, the other player's PM is read in the same cycle,
    and the topic is not read again for the post it can no longer see."""
    t = dtable()
    settle(t)
    fake.users[BOT].update(admin=False, moderator=False)
    clock.advance(minutes=1)
    kept = fake.reply_pm("alice", role_pm(fake, "alice")["id"], "thanks, all clear for me")
    clock.advance(seconds=5)
    erin = role_pm(fake, "erin")["id"]
    gone = fake.reply_pm("erin", erin, "a question I will take back")
    deleted: list[int] = []

    def delete_meanwhile(method, path):
        if path == f"/t/{erin}/posts.json" and not deleted:
            deleted.append(fake.staff_delete(gone["id"])["id"])
        return None  # no fault: the read is answered

    fake.faults.append(delete_meanwhile)
    report = t.cycle()
    assert deleted and report.errors == []
    assert set(inbox_rows([ref(kept), ref(gone)])) == {ref(kept)}
    clock.advance(seconds=5)
    n = len(fake.queries)
    t.cycle()
    assert pm_topic_reads(fake, n, erin) == []


def test_a_first_read_takes_one_page_of_the_pm_list_and_goes_on_from_its_newest_bump(fake, clock):  # noqa: F811
    """A bot with no PM bookmark yet (its first fetch) whose account already has more PM
    topics than a page of its PM list holds (30) reads that one page, the 30 bumped last,
    and not the older ones; the next fetch reads only what was bumped since."""
    forum = make_forum(fake)
    for i in range(35):
        clock.advance(seconds=1)
        fake.pm(f"guest{i}", BOT, f"hello number {i}", f"just saying hello, {i}", rules=False)

    def lists(cursor: dict):
        n = len(fake.queries)
        got = forum.fetch([], cursor)
        return [q for m, p, q in fake.queries[n:] if p == f"/topics/private-messages/{BOT}.json"], got

    pages, got = lists({})
    assert pages == [""]
    assert sorted(m.author for m in got.inbound) == sorted(f"guest{i}" for i in range(5, 35))
    clock.advance(seconds=1)
    late = fake.pm("latecomer", BOT, "hello from a latecomer", "just arrived, hello to you")
    pages, got = lists(got.cursor)
    assert pages == [""] and [m.body for m in got.inbound] == [first_post(fake, late)["raw"]]


def test_a_pm_from_the_sites_first_admin_is_a_persons_and_is_answered(dtable, fake):  # noqa: F811
    """On a real Discourse the forum's own accounts have ids below 1 (system -1, discobot -2)
    and the first person to sign up, usually the site's admin, has id 1: a PM from that
    person is a person's PM (no `admin` origin), and the bot answers it."""
    t = dtable()
    settle(t)
    fake.user("founder", id=1, admin=True, moderator=True, trust_level=4)
    pm = first_post(fake, fake.pm("founder", BOT, "a word from the site's admin", "hello bot, what can you do?"))
    settle(t)
    assert [r[6] for r in inbox_rows([ref(pm)]).values()] == [""]
    assert fake.pms_to("founder")  # answered, unlike the forum's own accounts


def test_a_game_topic_gone_costs_its_recheck_one_request_however_many_posts(fake):  # noqa: F811
    """The posts re-checked for edits are read by id, 50 a request; when the first read
    says their topic is gone (Discourse answers for the topic, TopicView.new, before it looks
    at any post id), none of them is there any more: no more requests are spent on the rest,
    and none of them comes back."""
    game = fake.new_topic("alice", "A game topic about to vanish", "The first post of the game topic.", "games")
    posts = [fake.reply("alice", game["id"], f"**APPROVE** number {i}", rules=False) for i in range(60)]
    other = fake.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    for i in range(60):  # the game topic's posts leave the listing's first page
        fake.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
    forum = make_forum(fake)
    cursor = forum.fetch([], {}).cursor
    fake.reply("zed", other["id"], "someone else says something", rules=False)  # a busy fetch
    forum.fetch([], cursor)
    with fake.lock:  # deleted for good (the bot is an admin: a soft delete it could still read)
        for p in fake._by_topic.pop(game["id"]):
            del fake.posts[p["id"]]
        del fake.topics[game["id"]]
        fake._rev += 1
    n = len(fake.requests)
    assert forum.recheck([ref(p) for p in posts]) == []
    assert fake.requests[n:] == [("GET", f"/t/{game['id']}/posts.json")]



def off_the_listing(site, topics: int, before: int = 0):
    """Game topics with a vote each (after `before` other posts of the topic), then 60 posts
    elsewhere: the votes are off the listing's first page. (topics, votes, the other topic)"""
    games = [site.new_topic("alice", f"A game topic, number {i}", "The first post of the game topic.", "games")
             for i in range(topics)]
    for g in games:
        for i in range(before):
            site.reply("alice", g["id"], f"a remark in the game topic, number {i}", rules=False)
    votes = [site.reply("bob", g["id"], "**APPROVE**") for g in games]
    other = site.new_topic("zed", "Chatter elsewhere on the site", "Something else entirely here.", "general")
    for i in range(60):
        site.reply("zed", other["id"], f"unrelated chatter number {i}", rules=False)
    return games, votes, other


def busy_rechecks(site, forum, other: dict):
    """recheck(posts) after a fetch whose listing has a new post: (paths read, texts given)."""
    cursor = forum.fetch([], {}).cursor

    def recheck(posts):
        nonlocal cursor
        site.reply("zed", other["id"], "someone else says something", rules=False)
        cursor = forum.fetch([], cursor).cursor
        n = len(site.requests)
        got = forum.recheck([ref(p) for p in posts])
        return [p for m, p in site.requests[n:]], [m.body for m in got]
    return recheck


def test_a_topic_re_checked_for_edits_is_read_again_only_recheck_every_later(fake, clock):  # noqa: F811
    """A vote off the listing (post 27 of its topic) is re-read for edits at most once every
    `recheck_every` seconds, however busy the site: a fetch a moment after the last read reads
    nothing, one exactly `recheck_every` later reads the topic again, and the edit made
    meanwhile comes back."""
    (game,), (vote,), other = off_the_listing(fake, 1, before=25)
    forum = make_forum(fake, recheck_every=60, monotonic=lambda: clock().timestamp())
    recheck = busy_rechecks(fake, forum, other)
    read = f"/t/{game['id']}/posts.json"
    assert recheck([vote]) == ([read], ["**APPROVE**"])
    fake.edit(vote["id"], "**REJECT** after all")
    clock.advance(seconds=59)
    assert recheck([vote]) == ([], [])
    clock.advance(seconds=1)
    assert recheck([vote]) == ([read], ["**REJECT** after all"])


def test_the_topic_re_checked_longest_ago_goes_first(fake, clock):  # noqa: F811
    """One topic a busy fetch is re-read for edits, the topics in turn; when one leaves the
    turn (its command is no longer re-checked), the topic read longest ago goes next, not the
    one the turn now points at, read a moment ago."""
    games, votes, other = off_the_listing(fake, 3)
    forum = make_forum(fake, monotonic=lambda: clock().timestamp())
    recheck = busy_rechecks(fake, forum, other)
    read = {v["id"]: f"/t/{g['id']}/posts.json" for g, v in zip(games, votes)}
    order = []
    for _ in range(3):
        clock.advance(seconds=1)
        paths, _ = recheck(votes)
        order += paths
    assert sorted(order) == sorted(read.values())  # each topic in turn
    clock.advance(seconds=1)
    left = [v for v in votes if read[v["id"]] != order[0]]  # the first read leaves the turn
    assert recheck(left)[0] == [order[1]]


def test_a_re_check_that_fails_names_the_topic(fake):  # noqa: F811
    """A re-read for edits that Discourse fails (a 502) fails as one to try again, and the
    failure says which topic it was reading."""
    (game,), (vote,), other = off_the_listing(fake, 1)
    forum = make_forum(fake, read_attempts=1)
    recheck = busy_rechecks(fake, forum, other)
    fake.faults.append(lambda m, p: (502, {"errors": ["bad gateway"]}) if p.endswith("/posts.json")
                       and p.startswith("/t/") else None)
    with pytest.raises(TransientError, match=f"^re-reading posts of topic {game['id']}: "):
        recheck([vote])


def test_pm_topics_arriving_after_an_empty_pm_list_are_all_read(fake, clock, monkeypatch):  # noqa: F811
    """The bot's PM list was empty when it last read it (a new bot account, before anyone
    wrote to it): then more PM topics arrive than one fetch's pages hold. The next fetches
    read on down the list until every one of them is read; none is passed over because the
    last read had no bump to stop at."""
    import adapters.discourse_reads as D

    monkeypatch.setattr(D, "PM_PAGES", 3)
    forum = make_forum(fake)
    cursor = forum.fetch([], {}).cursor  # the PM list: empty
    for i in range(100):
        clock.advance(seconds=1)
        fake.pm(f"guest{i}", BOT, f"hello from guest {i}", f"guest {i} says hello", rules=False)
    read: set[str] = set()
    for _ in range(6):
        clock.advance(seconds=1)
        got = forum.fetch([], cursor)
        cursor = got.cursor
        read |= {m.author for m in got.inbound if m.kind == "pm"}
    assert read == {f"guest{i}" for i in range(100)}
