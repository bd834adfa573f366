"""XenForo: the adapter against the fake XenForo (tests/fakes/xenforo.py), through the same
moderator as every other forum: what a naive adapter would get wrong has a test each (the
cost of a poll, pages, the marker, the flood check, the error ladder, deleted and edited
posts, conversations), and the settings and doctor. The whole-game, fault, crash, secrecy
and corpus suites: test_forum_sweeps.py (with Discourse's)."""
from __future__ import annotations

import pytest
import requests

from adapters.base import LoginFailed, Outgoing, PermanentError, TransientError, UncertainError
from adapters.xenforo import MARK_TOKEN, XenForoForum, marker, prepare
from adapters.xenforo_checks import xenforo_checks
from forumbot import store
from tests.fakes.driver import settle
from tests.fakes.table import edit_notices
from tests.fakes.xenforo import FakeXenForo, xenforo_forum


@pytest.fixture
def fake(clock):
    f = FakeXenForo(clock=lambda: clock().timestamp()).start()
    yield f
    f.stop()


@pytest.fixture
def xtable(db, bot, fake):
    def make(players=5, start=True, **kw):
        return bot("xenforo", fake=fake).table(players, start=start, **kw)
    return make


def api(fake, method, path, key="test-key", **kw):
    return requests.request(method, f"{fake.url}/api{path}", headers={"XF-Api-Key": key}, timeout=10, **kw)


def requests_of(t, fn):
    n = len(t.fake.requests)
    fn()
    return t.fake.requests[n:]


QUIET = [("GET", "/api/forums/2/threads"), ("GET", "/api/conversations")]


def test_a_quiet_poll_costs_two_requests_whatever_the_number_of_games(xtable, fake):
    t = xtable()
    assert requests_of(t, t.cycle) == QUIET
    for i in range(9):
        for p in "abcde":
            fake.user(f"p{i}{p}")
        t.people.pm(f"host{i}", "new game", f"title: Game number {i} of ten\npreset: resistance\n"
                    f"players: [p{i}a, p{i}b, p{i}c, p{i}d, p{i}e]\n")
    settle(t)
    assert store.Game.select().where(store.Game.thread.is_null(False)).count() == 10
    got = requests_of(t, t.cycle)
    assert got == QUIET, got


def test_a_busy_poll_reads_only_the_threads_that_moved(xtable, fake):
    t1 = xtable()
    t2 = xtable(start=False)
    t2.mod = t1.mod
    t2.start(seed=8)  # (another config: the same one twice is refused)
    assert t1.game.id != t2.game.id
    settle(t1)
    t1.propose()
    got = requests_of(t1, t1.cycle)
    reads = [p for m, p in got if m == "GET" and "/posts" in p]
    assert reads and all(p == f"/api/threads/{t1.game.thread.partition(':')[2]}/posts" for p in reads), got


def test_a_long_thread_is_read_across_its_pages_from_where_the_bot_stopped(xtable, fake):
    t = xtable()
    t.propose()
    settle(t)
    voters = t.state.waiting_for()
    for i in range(45):  # chatter: three pages of 20
        fake.reply("zed", t.game.thread, f"Just chatting, message {i}.")
    t.say(voters[0], "**APPROVE**")
    pages = [p for m, p in requests_of(t, t.cycle) if p.endswith("/posts")]
    assert len(pages) >= 2
    assert t.state.votes.get(voters[0]) == "approve"
    pages = [p for m, p in requests_of(t, lambda: (t.say(voters[1], "**REJECT**"), t.cycle())) if p.endswith("/posts")]
    assert len(pages) == 1 and t.state.votes.get(voters[1]) == "reject"  # the last page only


def test_a_thread_outside_the_game_forum_is_read_by_id(xtable, fake):
    thread = fake.new_thread("host", 3, "Our own game thread", "We play here, the bot will join.")
    fake.nodes[3]["can_post"] = True
    t = xtable(extra=f"thread: {fake.url}/threads/our-own-game-thread.{thread['thread_id']}/\n")
    assert t.game.thread == f"thread:{thread['thread_id']}"
    t.propose()
    assert t.state.phase == "team_vote"
    assert ("GET", f"/api/threads/{thread['thread_id']}") in requests_of(t, t.cycle)


# --- the marker, BBCode, quotes ----------------------------------------------------------


def test_the_marker_is_an_empty_user_tag_and_survives_the_bots_edit(xtable, fake):
    t = xtable()
    first = fake.thread_posts(t.game.thread)[0]
    assert MARK_TOKEN.search(first["message"]) and first["message"].rstrip().endswith("[/USER]")
    before = first["message"]
    t.propose()
    settle(t)
    edited = fake.thread_posts(t.game.thread)[0]
    assert edited["last_edit_date"] and edited["message"] != before  # the status block was edited
    assert len(MARK_TOKEN.findall(edited["message"])) == 1
    assert MARK_TOKEN.findall(edited["message"])[0] in t.forum.own_marks()


def test_a_planted_marker_is_taken_out_and_a_players_bbcode_is_never_a_marker():
    planted = "hi [USER=fb:0123456789abcdef][/USER] and [user='fb:x'] [/user] there"
    assert "fb:" not in prepare(planted)
    assert marker(Outgoing(key="k", kind="comment", body="", token="ab" * 8)) == "[USER=fb:abababababababab][/USER]"


def test_votes_in_bbcode_count_and_quotes_and_inline_code_do_not(xtable, fake):
    t = xtable()
    t.propose()
    a, b, c = t.state.waiting_for()[:3]
    t.say(a, '[QUOTE="bob, post: 12, member: 3"]\n[B]REJECT[/B]\n[/QUOTE]\nI say [B]APPROVE[/B]')
    t.say(b, "Not a vote: [ICODE]**REJECT**[/ICODE] is how you would write it")
    t.say(c, "[SPOILER]**REJECT**[/SPOILER]")  # a spoiler is the player's own text, as on Reddit
    t.cycle()
    assert t.state.votes == {a: "approve", c: "reject"}
    mine = [p["message"] for p in fake.thread_posts(t.game.thread) if p["username"] == fake.bot]
    assert all("**" not in m for m in mine) and any("[b]" in m for m in mine)  # the bot writes BBCode


# --- the flood check and the error ladder --------------------------------------------------


def test_the_flood_check_is_transient_with_its_wait_and_blocks_writes_till_then(fake, clock):
    fake.user(fake.bot, bypass_flood=False)
    forum = xenforo_forum(fake, monotonic=lambda: clock().timestamp())
    tid = fake.threads[min(fake.threads)]["thread_id"]
    forum.post(Outgoing(key="a", kind="comment", body="First of two replies.", thread=f"thread:{tid}"))
    with pytest.raises(TransientError) as e:
        forum.post(Outgoing(key="b", kind="comment", body="Second of two replies.", thread=f"thread:{tid}"))
    assert 25 <= e.value.retry_after <= 30 and forum.requests_left() == 0
    n = len(fake.requests)
    with pytest.raises(TransientError):  # not even sent while the forum's wait runs
        forum.post(Outgoing(key="b", kind="comment", body="Second of two replies.", thread=f"thread:{tid}"))
    assert len(fake.requests) == n
    clock.advance(seconds=31)
    assert forum.post(Outgoing(key="b", kind="comment", body="Second of two replies.", thread=f"thread:{tid}"))


def test_a_bot_without_the_bypass_still_plays_its_game_waiting_out_the_flood_check(xtable, fake, clock):
    fake.user(fake.bot, bypass_flood=False)
    fake.flood_seconds = 5
    t = xtable(start=False)
    for name in ["host", *t.players]:
        fake.user(name)
    t.people.pm("host", "new game", "title: Test game\npreset: resistance\nplayers: [alice, bob, carol, dave, erin]\n"
                "seed: 7\nleader_order: listed\n")
    settle(t)  # settle() moves the clock 2 s a cycle
    game = store.Game.select().first()
    assert game.thread and all(any("Your role" in m for m in t.people.pms_to(p)) for p in t.players)


def test_errors_map_to_the_adapters_kinds(fake):
    forum = xenforo_forum(fake)
    tid = min(fake.threads)
    with pytest.raises(LoginFailed):
        XenForoForum.from_settings(fake.settings(api_key="nope"), backoff=0, max_wait=0).fetch([], {})
    fake.api_keys["narrow"] = (fake.bot, {"thread:read"})
    narrow = XenForoForum.from_settings(fake.settings(api_key="narrow"), backoff=0, max_wait=0)
    with pytest.raises(PermanentError, match="conversation:write"):
        narrow._write("/conversations", {})
    fake.lock_thread(tid)
    with pytest.raises(PermanentError, match="permission"):
        forum.post(Outgoing(key="x", kind="comment", body="In a locked thread.", thread=f"thread:{tid}"))
    with pytest.raises(PermanentError, match="no member"):
        forum.post(Outgoing(key="y", kind="pm", body="To no one.", to="nobody-here", subject="G1"))
    fake.faults.append(lambda m, p: (500, {"errors": []}, "commit") if m == "POST" else None)
    with pytest.raises(UncertainError):
        forum.post(Outgoing(key="z", kind="thread", body="Opening.", title="A new game (G2)"))
    fake.faults.append(lambda m, p: (0, None) if m == "GET" else None)
    assert forum.thread_id(str(min(fake.threads))) is None  # locked: no game thread
    assert forum._get(f"/threads/{tid}")["thread"]["thread_id"] == tid  # a dropped read is tried again


def test_a_post_that_landed_before_a_500_is_found_not_posted_twice(xtable, fake):
    t = xtable()
    t.propose()
    fake.faults.append(lambda m, p: (500, {"errors": []}, "commit") if (m, p) == ("POST", "/api/posts") else None)
    voter = t.state.waiting_for()[0]
    t.say(voter, "**VOTE: maybe**")
    settle(t)
    texts = fake.bot_posts()
    tokens = [tok for text in texts for tok in MARK_TOKEN.findall(text)]
    assert len(tokens) == len(set(tokens))
    assert store.Outbox.select().where(store.Outbox.state != "posted").count() == 0


def test_a_page_past_the_last_is_invalid_page(fake):
    r = api(fake, "GET", f"/threads/{min(fake.threads)}/posts", params={"page": 9})
    assert r.status_code == 400 and r.json()["errors"][0]["code"] == "invalid_page"
    assert r.json()["errors"][0]["params"] == {"max": 1}


# --- deleted and edited posts, conversations -----------------------------------------------


def test_a_deleted_post_is_left_out_of_the_fetch_and_the_recheck(xtable, fake):
    t = xtable()
    t.propose()
    a, b = t.state.waiting_for()[:2]
    pa = t.people.comment(a, t.game.thread, "**APPROVE**")
    fake.delete(pa["post_id"])
    t.cycle()
    assert a not in t.state.votes
    pb = t.people.comment(b, t.game.thread, "**REJECT**")
    t.cycle()
    fake.delete(pb["post_id"])
    ref = f"{pb['thread_id']}/{pb['post_id']}"
    t.forum._seen = {}
    t.forum._busy = True
    assert t.forum.recheck([ref]) == []


def test_an_edit_is_noticed_and_changes_no_vote(xtable, fake):
    t = xtable()
    t.propose()
    voter = t.state.waiting_for()[0]
    post = t.people.comment(voter, t.game.thread, "**APPROVE**")
    t.cycle()
    fake.edit(post["post_id"], "**REJECT** after all")
    fake.reply("zed", t.game.thread, "Good luck to everyone at this table!")  # someone posts: a busy cycle
    t.cycle()
    t.cycle()
    assert t.state.votes[voter] == "approve"
    assert edit_notices(t) == [voter]


def test_a_reply_in_the_bots_conversation_finds_its_game_without_a_tag(db, bot, fake):
    b = bot("xenforo", fake=fake)
    t1 = b.table(5)
    t2 = b.table(5, start=False)
    t2.mod = t1.mod
    t2.start(seed=8)
    assert t1.game.id != t2.game.id
    alice = fake.users["alice"]["user_id"]
    role2 = next(c for c in fake.convs.values() if alice in c["recipients"] and t2.game.tag in c["title"]
                 and c["username"] == fake.bot)
    t2.propose()
    fake.reply_pm("alice", role2["conversation_id"], "APPROVE")
    t1.cycle()
    assert t2.state.votes.get("alice") == "approve" and not t1.state.votes
    row = store.Inbound.select().where(store.Inbound.author == "alice", store.Inbound.kind == "pm").first()
    assert row.parent == f"conv:{role2['conversation_id']}"


def test_thread_ids_from_what_a_host_writes(fake):
    forum = xenforo_forum(fake)
    t = fake.new_thread("host", 2, "Our own game thread", "We will play here.")
    tid = t["thread_id"]
    for ref in (f"{fake.url}/threads/our-own-game-thread.{tid}/", f"{fake.url}/threads/{tid}/",
                f"https://forum.example.org/threads/x.{tid}/page-2", str(tid), f"thread:{tid}"):
        assert forum.thread_id(ref) == f"thread:{tid}", ref
    fake.lock_thread(tid)
    assert forum.thread_id(str(tid)) is None
    assert forum.thread_id("99999") is None and forum.thread_id("not a thread") is None


# --- settings and doctor ----------------------------------------------------------------


def test_the_settings_must_name_the_forum_the_key_and_the_bot():
    with pytest.raises(ValueError, match="api_key, api_user"):
        XenForoForum.from_settings({"url": "https://forum.example.org"})
    with pytest.raises(ValueError, match="not a web address"):
        XenForoForum.from_settings({"url": "forum.example.org", "api_key": "k", "api_user": "bot"})
    with pytest.raises(ValueError, match="node id"):
        XenForoForum.from_settings({"url": "https://f.org", "api_key": "k", "api_user": "bot", "node": "games"})
    forum = XenForoForum.from_settings({"url": "https://forum.example.org/", "api_key": "k", "api_user": "gamebot",
                                        "node": "12", "user_id": "7"})
    assert (forum.api, forum.bot_name, forum.node) == ("https://forum.example.org/api", "gamebot", 12)
    assert forum.session.headers["XF-Api-Key"] == "k" and forum.session.headers["XF-Api-User"] == "7"


def doctor(fake, forum=None, nodes=("2",), username="forumbot"):
    return [(s, n, d) for s, n, d in xenforo_checks(forum or xenforo_forum(fake), list(nodes), username)]


def test_doctor_on_xenforo(fake):
    lines = doctor(fake)
    assert [(s, n) for s, n, _ in lines] == [("ok", "login"), ("ok", "scopes"), ("ok", "node 2"),
                                             ("skip", "marker"), ("ok", "conversations")]
    assert not fake.bodies or all(p != "/api/threads" for _, p, _ in fake.bodies)
    assert fake.mutations == 0  # nothing was posted
    assert ("GET", "/api") in fake.requests and {m for m, _ in fake.requests} == {"GET"}  # nor even tried


def test_doctor_reads_the_keys_scopes_from_the_index(fake):
    from adapters.xenforo_checks import SCOPES, missing_scopes

    assert missing_scopes({"key": {"allow_all_scopes": True, "scopes": {}}}) == []
    assert missing_scopes({"key": {"allow_all_scopes": False, "scopes": ["thread:read", "user:read"]}}) == \
        ["thread:write", "conversation:read", "conversation:write"]
    assert missing_scopes({"key": {"scopes": {s: True for s in SCOPES} | {"user:read": False}}}) == ["user:read"]
    assert missing_scopes({"version_id": 2030070}) is None and missing_scopes(None) is None
    fake.faults.append(lambda m, p: (404, {"errors": [{"code": "endpoint_not_found", "message": "Not found."}]})
                       if p == "/api" else None)
    scopes = {n: (s, d) for s, n, d in doctor(fake)}["scopes"]
    assert scopes[0] == "warn" and "by hand" in scopes[1]


def test_doctor_finds_the_marker_in_the_bots_posts(xtable, fake):
    xtable()
    assert {n: s for s, n, _ in doctor(fake)}["marker"] == "ok"
    for p in fake.posts.values():  # a forum that dropped the empty tag
        p["message"] = p["message"].replace("[USER=fb:", "[USER=0")
    for m in fake.messages.values():
        m["message"] = m["message"].replace("[USER=fb:", "[USER=0")
    assert {n: s for s, n, _ in doctor(fake)}["marker"] == "skip"


def test_the_flood_check_is_known_by_its_words_too():
    from adapters.xenforo_http import flood_wait

    assert flood_wait({"errors": [{"code": "must_wait_x_seconds_before_performing_this_action",
                                   "message": "You must wait", "params": {"count": 12}}]}) == 12
    assert flood_wait({"errors": [{"code": "th_flood_custom", "message": "You must wait at least 7 seconds "
                                   "before performing this action.", "params": []}]}) == 7
    assert flood_wait({"errors": [{"code": "do_not_have_permission", "message": "No.", "params": []}]}) is None


def test_doctor_names_what_is_wrong(fake):
    bad = XenForoForum.from_settings(fake.settings(api_key="nope"), backoff=0, max_wait=0)
    assert doctor(fake, bad)[0][0] == "fail"
    assert doctor(fake, username="otherbot")[0][0] == "fail"
    fake.api_keys["narrow"] = (fake.bot, {"thread:read", "conversation:read"})
    narrow = XenForoForum.from_settings(fake.settings(api_key="narrow"), backoff=0, max_wait=0)
    scopes = {n: (s, d) for s, n, d in doctor(fake, narrow)}["scopes"]
    assert scopes[0] == "fail" and "thread:write" in scopes[1] and "conversation:write" in scopes[1]
    assert {n: s for s, n, _ in doctor(fake, nodes=["3"])}["node 3"] == "fail"
    fake.user(fake.bot, can_converse=False)
    assert {n: s for s, n, _ in doctor(fake)}["conversations"] == "fail"
    fake.api_keys["super"] = (None, {"thread:read"})
    guest = XenForoForum.from_settings(fake.settings(api_key="super"), backoff=0, max_wait=0)
    assert "guest" in doctor(fake, guest)[0][2]
    as_bot = XenForoForum.from_settings(fake.settings(api_key="super", user_id=str(fake.users["forumbot"]["user_id"])),
                                        backoff=0, max_wait=0)
    assert doctor(fake, as_bot)[0][:2] == ("ok", "login")


def test_settings_make_a_xenforo_forum_and_doctor_checks_it(tmp_path, fake, capsys):
    from forumbot.cli.doctor import doctor as run_doctor
    from forumbot.settings import load_settings, make_forum

    path = tmp_path / "settings.ini"
    path.write_text(f"[bot]\nforum = xenforo\n\n[database]\nurl = sqlite:///{tmp_path}/bot.db\n\n"
                    f"[xenforo]\nurl = {fake.url}\napi_key = test-key\napi_user = forumbot\nnode = 2\n")
    s = load_settings(str(path))
    forum = make_forum(s)
    assert isinstance(forum, XenForoForum) and forum.bot_name == "forumbot" == s.bot_name and forum.node == 2
    assert run_doctor(str(path)) == 0
    out = capsys.readouterr().out
    assert "node 2: Game night takes new threads" in out and "FAIL" not in out and "test-key" not in out
    path.write_text(path.read_text().replace("api_key = test-key", "api_key = wrong"))
    assert run_doctor(str(path)) == 1
    assert "refused the API key" in capsys.readouterr().out
