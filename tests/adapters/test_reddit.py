"""Real praw against the fake Reddit server: the adapter's requests, quirks and faults."""

from adapters.reddit_marks import marker
from forumbot import markers, store


def quiet_cycle_requests(fake, table) -> list:
    n = len(fake.requests)
    table.cycle()
    return fake.requests[n:]


def test_a_quiet_cycle_costs_one_listing_per_subreddit_plus_the_inbox(reddit_table, fake_reddit):
    t = reddit_table()
    reqs = quiet_cycle_requests(fake_reddit, t)
    assert reqs == [("GET", "/r/resistancegames/comments"), ("GET", "/message/unread")]


def test_ten_games_cost_the_same_quiet_cycle(reddit_table, fake_reddit):
    t = reddit_table()
    for i in range(9):
        t.people.pm(f"host{i}", "new game", "preset: resistance\nsubreddit: resistancegames\n"
                    f"players: [p{i}a, p{i}b, p{i}c, p{i}d, p{i}e]\n")
    t.cycle()
    assert store.Game.select().where(store.Game.thread.is_null(False)).count() == 10
    reqs = quiet_cycle_requests(fake_reddit, t)
    assert reqs == [("GET", "/r/resistancegames/comments"), ("GET", "/message/unread")]


def test_pms_are_marked_read_after_processing(reddit_table, fake_reddit):
    reddit_table()
    assert all(not m["new"] for m in fake_reddit.messages if m["dest"] == "forumbot")
    posts = [r for r in fake_reddit.requests if r[1] == "/api/read_message"]
    assert posts  # batched mark-read calls happened


def test_the_key_is_invisible_and_found_again(reddit_table, fake_reddit):
    t = reddit_table()
    body = fake_reddit.thread_comments(t.game.thread)[0]["body"]
    assert body.rstrip().endswith(")") and "[](#fb-" in body  # an empty link renders as nothing
    item = store.Outbox.select().where(store.Outbox.kind == "comment").first()
    from adapters.base import Outgoing
    out = Outgoing(key=item.key, kind="comment", body="", token=markers.marker_token(item.key))
    found = t.forum.find_posted(out)
    assert found is not None and found.id == item.ext_id
    assert marker(out) in body and item.key not in body
    assert marker(item.key) not in body  # the bare key's hash is not the marker: it can be guessed


def test_commit_then_fail_on_a_post_is_not_duplicated(reddit_table, fake_reddit):
    t = reddit_table()
    t.propose()

    def fail_after_commit(method, path):
        return (500, {"error": 500}, "commit") if path == "/api/comment" else None

    n_before = len(fake_reddit.thread_comments(t.game.thread))
    fake_reddit.faults = [fail_after_commit] * 3
    t.vote_all(True)  # the vote table post lands, but Reddit answers 500
    t.cycle()
    t.cycle()
    bot = [c["body"] for c in fake_reddit.thread_comments(t.game.thread)[n_before:] if c["author"] == "forumbot"]
    assert len(bot) == len(set(bot)), "a post went out twice"
    assert store.Outbox.select().where(store.Outbox.state == "pending").count() == 0


def test_rate_limited_post_waits_and_is_not_dropped(reddit_table, fake_reddit, clock):
    t = reddit_table()
    fake_reddit.faults = [lambda m, p: (429, {"error": 429}) if p == "/api/comment" else None]
    t.propose()
    pending = store.Outbox.select().where(store.Outbox.state == "pending").count()
    assert pending >= 1
    clock.advance(seconds=5)
    t.cycle()
    assert store.Outbox.select().where(store.Outbox.state == "pending").count() == 0


def test_locked_thread_is_a_permanent_error_told_to_the_host(reddit_table, fake_reddit):
    t = reddit_table()
    fake_reddit.submissions[t.game.thread.partition(":")[2]]["locked"] = True
    t.propose()
    failed = store.Outbox.select().where(store.Outbox.state == "failed").count()
    assert failed >= 1
    assert any("could not deliver" in m["body"] for m in fake_reddit.pms_to("host"))


def test_existing_thread_by_url(reddit_table, fake_reddit, clock):
    t = reddit_table(start=False)
    s = fake_reddit.submit("host", "othersub", "Game 61 sign-ups", "join here")
    t.people.pm("host", "new game", "preset: resistance\nplayers: [alice, bob, carol, dave, erin]\n"
                f"thread: https://www.reddit.com/r/othersub/comments/{s['id']}/game_61/\n")
    t.cycle()
    game = store.Game.select().first()
    assert game.thread == f"othersub:{s['id']}"
    assert "PROPOSE" in fake_reddit.thread_comments(game.thread)[0]["body"]
    t.game_id = game.id
    t.propose()
    assert t.state.phase == "team_vote"


def test_a_burst_of_comments_on_the_first_read_loses_none(reddit_table, fake_reddit):
    """The first listing of a subreddit has no bookmark: it must still take every comment."""
    t = reddit_table()
    store.Cursor.delete().execute()  # as if this subreddit had never been read
    t.say("alice", "**PROPOSE: alice, bob**")  # the oldest of a hundred
    for i in range(99):
        t.say(t.players[i % 5], f"chatter {i}")
    t.cycle()
    assert t.state.phase == "team_vote"


def test_old_comments_in_an_existing_thread_are_not_commands(reddit_table, fake_reddit, clock):
    t = reddit_table(start=False)
    s = fake_reddit.submit("host", "othersub", "Game 61 sign-ups", "join here")
    fake_reddit.comment("alice", s["id"], "**PROPOSE: alice, bob**")  # before the game existed
    clock.advance(minutes=5)
    t.people.pm("host", "new game", "preset: resistance\nleader_order: listed\n"
                "players: [alice, bob, carol, dave, erin]\n"
                f"thread: https://www.reddit.com/r/othersub/comments/{s['id']}/game_61/\n")
    t.cycle()
    t.cycle()
    t.game_id = store.Game.select().order_by(store.Game.id.desc()).first().id
    assert t.state.phase == "proposal"


def _listing_pages(fake, monkeypatch) -> list:
    """The (limit, after) of each page of the comment listing the bot asks for, from now on."""
    asked: list = []
    route = fake.route

    def recorded(method, path, q, form):
        if path.startswith("/r/") and path.endswith("/comments"):
            asked.append((int(q.get("limit", 25)), q.get("after")))
        return route(method, path, q, form)

    monkeypatch.setattr(fake, "route", recorded)
    return asked


def test_a_quiet_subreddit_is_read_five_comments_first_and_widened_when_all_are_new(reddit_table, fake_reddit,
                                                                                     monkeypatch):
    """The listing is read as Reddit's JSON, page by page, only as far back as the bookmark:
    a subreddit that was quiet asks for five comments (and for one more per comment the bot
    made there since); when all of them are new, the next page asks for a hundred, and not
    one comment is lost."""
    t = reddit_table()
    t.cycle()
    asked = _listing_pages(fake_reddit, monkeypatch)
    t.cycle()
    assert asked == [(5, None)]
    del asked[:]
    sid = t.game.thread.partition(":")[2]
    chat = [fake_reddit.comment("a_passer_by", sid, f"just chatting, {n}")["id"] for n in range(12)]
    t.cycle()
    assert [a[0] for a in asked] == [5, 100] and asked[1][1] is not None
    stored = {r.ext_id for r in store.Inbound.select().where(store.Inbound.ext_id.in_(chat))}
    assert stored == set(chat)
    del asked[:]
    t.cycle()  # twelve came last time: the first page is a whole one
    assert asked == [(100, None)]
    del asked[:]
    bots = lambda: sum(1 for c in fake_reddit.thread_comments(t.game.thread) if c["author"] == fake_reddit.bot)  # noqa: E731
    before = bots()
    t.propose()  # read, and the bot comments on it (its prompt)
    made = bots() - before
    assert made >= 1
    del asked[:]
    t.cycle()
    assert asked == [(5 + made, None)]
