"""Tests with teeth for reading Reddit (issue 22): through real praw against the fake Reddit
(tests/fakes/reddit.py), whole bot cycles, and what the game and the bot's posts show.

- The bot's own comments in a game thread are never commands, nor messages to handle: the
  adapter leaves them out of the thread read (adapters/reddit.py), and the inbox would
  not act on them either (forumbot/shell/inbox.py).
- Markdown quotes (`>`, nested `> >` and `>>`) are the quoted player's words at any depth."""
from __future__ import annotations

from datetime import timedelta

import praw
import pytest

from adapters.reddit import RedditForum
from forumbot.limits import PER_AUTHOR_PER_CYCLE
from forumbot.rules import deadlines
from forumbot.shell.moderator import Moderator
from tests.fakes.bots import NO_WAITS
from tests.fakes.table import NAMES, RedditPeople, Table, config_text


@pytest.fixture
def reddit_table(db, bot, fake_reddit):
    """A table on the test's fake Reddit, whose adapter never sleeps between tries."""
    def make(players=5, start=True, **kw):
        return bot("reddit", fake=fake_reddit, forum_kw=NO_WAITS).table(players, start=start, **kw)
    return make


def bot_comments(fake, thread) -> list[str]:
    return [c["body"] for c in fake.thread_comments(thread) if c["author"] == fake.bot]


def test_the_bots_own_comment_is_never_a_command(reddit_table, fake_reddit):
    """A comment of the bot's account that reads like a command (a prompt quoting the words,
    or one typed by hand on that account) counts for no one and gets no answer: answering
    it would be the bot talking to itself, and it would read that answer too."""
    t = reddit_table()
    thread = t.game.thread
    for body in ("**PROPOSE: bob, carol**", "**JOIN**", "**STATUS**"):
        fake_reddit.comment(fake_reddit.bot, thread, body)
    t.cycle()
    t.propose()
    assert t.state.phase == "team_vote" and list(t.state.team) == ["alice", "bob"]
    events, posts, pms = t.export()["events"], len(bot_comments(fake_reddit, thread)), len(fake_reddit.messages)
    fake_reddit.comment(fake_reddit.bot, thread, "I say **APPROVE**")
    fake_reddit.comment(fake_reddit.bot, thread, "**REJECT**\n\n**PROPOSE: carol, dave**")
    for _ in range(3):
        t.cycle()
    assert t.export()["events"] == events and t.state.votes == {}
    assert len(bot_comments(fake_reddit, thread)) == posts + 2  # the two above, and no answer
    assert len(fake_reddit.messages) == pms


@pytest.mark.parametrize("read", ["listing", "thread after a gap"])
def test_the_bots_own_comments_do_not_hold_back_a_deadline(reddit_table, fake_reddit, clock, monkeypatch, read):
    """The bot's comments are not messages to handle: however many it has posted since the
    last read, a vote whose deadline has passed closes in the first cycle after it (read as
    messages, they would queue behind the cap of one sender's messages a cycle, and hold
    the deadline back behind them). The same when a flood elsewhere in the subreddit makes
    the listing fall short and the game thread is read whole."""
    import adapters.reddit as reddit

    t = reddit_table()
    other = fake_reddit.submit("someone", "resistancegames", "chatter", "hi")
    t.propose()
    thread = t.game.thread
    for n in ("alice", "bob", "carol", "dave"):
        t.say(n, "**APPROVE**")
    for i in range(PER_AUTHOR_PER_CYCLE + 5):
        fake_reddit.comment(fake_reddit.bot, thread, f"A note from the bot's account, {i}: **APPROVE**")
    if read == "thread after a gap":
        for i in range(150):
            fake_reddit.comment("chatty", other["id"], f"comment {i}")
        monkeypatch.setattr(reddit, "MAX_PAGES", 1)  # the listing reaches back 100 comments only
    clock.at = deadlines.due(t.state) + timedelta(minutes=1)
    t.cycle()
    assert t.forum.gap_threads == (read != "listing")
    assert t.state.phase == "mission", t.state.phase  # erin's vote defaulted at the deadline
    votes = t.export()["votes"][0]
    assert votes["approved"] and votes["defaulted"] == ["erin"]


def nested(depth: int, prefix: str) -> str:
    """A Reddit quote `depth` deep, a level of `prefix` (`> ` or `>`) for each: every level
    votes REJECT in bold, as the comment it quotes did."""
    lines = []
    for level in range(depth, 0, -1):
        lines += [prefix * level + f"{NAMES[level]}: **REJECT**", prefix * level]
    return "\n".join(lines)


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("prefix", ["> ", ">", "  > "])
def test_bold_in_nested_markdown_quotes_is_not_a_command(reddit_table, fake_reddit, depth, prefix):
    t = reddit_table()
    t.propose()
    events, said = t.export()["events"], len(fake_reddit.pms_to("carol"))
    quoted = nested(depth, prefix)
    t.say("carol", f"Look:\n\n{quoted}\n\nWell.")
    t.say("dave", f"**APPROVE** is mine.\n\n{quoted}\n\nThat is all.")  # the quote's votes come last
    t.cycle()
    added = [(e["type"], e["data"]) for e in t.export()["events"][len(events):]]
    assert added == [("vote_cast", {"player": "dave", "vote": "approve", "via": "thread"})]
    assert len(fake_reddit.pms_to("carol")) == said
    assert not [b for b in t.people.thread(t.game.thread) if b.startswith(("u/carol:", "u/dave:"))]


# --- what a read makes of each thing: the inbox rows a cycle leaves --------------------------


def inbox_rows(ids) -> dict[str, tuple]:
    from forumbot import store

    rows = {r.ext_id: r for r in store.Inbound.select().where(store.Inbound.ext_id.in_(list(ids)))}
    return {k: (r.kind, r.author, r.body, r.subject, r.thread, r.parent, r.origin, r.created, r.edited)
            for k, r in rows.items()}


@pytest.fixture(params=["UTC", "America/New_York"])
def zone(request):
    """The machine's time zone (TZ), put back afterwards."""
    import os
    import time

    old = os.environ.get("TZ")
    os.environ["TZ"] = request.param
    time.tzset()
    yield request.param
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


def test_each_kind_of_thing_read_is_stored_as_it_was_written(reddit_table, fake_reddit, clock, zone):
    """Every kind of thing the bot reads lands in its inbox with the author, body, subject,
    thread, parent, origin, time and edit flag it has on Reddit: a comment, an edited one,
    one whose account is gone, a PM, a reply to the bot's PM, mail from Reddit's admins and
    from a subreddit (signed and not), a chat reply that lost its subject (stored with none,
    never a made-up one), and a comment reply that reached the inbox (never a PM). The times are Reddit's (UTC), not when the bot read them, on a machine in any zone."""
    from datetime import datetime

    t = reddit_table()
    thread = t.game.thread
    sub, _, sid = thread.partition(":")
    at = clock().replace(tzinfo=None)
    plain = fake_reddit.comment("alice", thread, "just a remark")
    edited = fake_reddit.comment("bob", thread, "a remark to edit")
    fake_reddit.edit(edited["id"], "a remark, edited")
    gone = fake_reddit.comment("carol", thread, "words of a closed account")
    fake_reddit.delete_account("carol")
    pm = fake_reddit.pm_bot("dave", f"{t.game.tag} a question", "is it my turn?")
    role = next(m for m in fake_reddit.pms_to("erin") if m["author"] == fake_reddit.bot)
    reply = fake_reddit.pm_bot("erin", "re: " + role["subject"], "thanks", parent=role["id"])
    chat = fake_reddit.pm_bot("erin", "", "and one more thing", parent=role["id"])  # Chat dropped the subject
    admin = fake_reddit.inbox_admin("Welcome", "Thanks for joining")
    news = fake_reddit.inbox_admin("Mod news", "This month in moderation", author="ModNewsletter")
    plain_admin = fake_reddit.inbox_bot_mail("reddit", "Your account", "A note from Reddit itself")
    modmail = fake_reddit.inbox_modmail("resistancegames", "[modmail] hello", "from the mods")
    signed = fake_reddit.inbox_modmail("resistancegames", "[modmail] signed", "from jane", author="modjane")
    bot_comment = next(c for c in fake_reddit.thread_comments(thread) if c["author"] == fake_reddit.bot)
    fake_reddit.reply_notifications = True
    answer = fake_reddit.inbox_comment_reply("frank", thread, "nice post", parent=bot_comment["name"])
    clock.advance(minutes=10)  # read ten minutes later: each keeps its own time
    t.cycle()
    rows = inbox_rows([plain["id"], edited["id"], gone["id"], pm["id"], reply["id"], chat["id"], admin["id"], news["id"],
                       plain_admin["id"], modmail["id"], signed["id"], answer["name"], answer["id"]])
    assert answer["name"] != answer["id"]
    assert rows == {
        plain["id"]: ("comment", "alice", "just a remark", "", thread, None, "", at, False),
        edited["id"]: ("comment", "bob", "a remark, edited", "", thread, None, "", at, True),
        gone["id"]: ("comment", "[deleted]", "words of a closed account", "", thread, None, "", at, False),
        pm["id"]: ("pm", "dave", "is it my turn?", f"{t.game.tag} a question", None, None, "", at, False),
        reply["id"]: ("pm", "erin", "thanks", "re: " + role["subject"], None, role["id"], "", at, False),
        chat["id"]: ("pm", "erin", "and one more thing", "", None, role["id"], "", at, False),
        admin["id"]: ("pm", "reddit", "Thanks for joining", "Welcome", None, None, "admin", at, False),
        news["id"]: ("pm", "ModNewsletter", "This month in moderation", "Mod news", None, None, "admin", at, False),
        plain_admin["id"]: ("pm", "reddit", "A note from Reddit itself", "Your account", None, None, "admin", at,
                            False),
        modmail["id"]: ("pm", "resistancegames", "from the mods", "[modmail] hello", None, None, "subreddit", at,
                        False),
        signed["id"]: ("pm", "modjane", "from jane", "[modmail] signed", None, None, "subreddit", at, False),
        answer["id"]: ("comment", "frank", "nice post", "", thread, None, "", at, False),
    }
    # the comment reply is no message (it is read from the thread), but it is marked read
    assert not [m["name"] for m in fake_reddit.messages if m["dest"] == fake_reddit.bot and m["new"]]
    assert isinstance(at, datetime) and sub == "resistancegames" and sid


# --- the order things are read in -----------------------------------------------------------


@pytest.mark.parametrize("how", ["thread", "pm", "thread after a gap"])
def test_a_proposal_changed_in_the_same_second_keeps_the_last(reddit_table, fake_reddit, monkeypatch, how):
    """Reddit lists the newest first, and many comments (and PMs) share a second: the bot
    reads them oldest first, so a leader who changes the team before anyone votes gets the
    team they named last. The same when a flood elsewhere in the subreddit makes the
    listing fall short and the game thread is read whole (asked for newest first, as the
    listing is: Reddit answers an unknown sort with its own default order)."""
    import adapters.reddit as reddit

    t = reddit_table()
    leader = t.state.shown(t.state.leader)
    for team in ("alice, bob", "alice, carol"):
        if how == "pm":
            t.pm(leader, f"PROPOSE: {team}")
        else:
            t.say(leader, f"**PROPOSE: {team}**")
    if how == "thread after a gap":
        other = fake_reddit.submit("someone", "resistancegames", "chatter", "hi")
        for i in range(150):
            fake_reddit.comment("chatty", other["id"], f"comment {i}")
        monkeypatch.setattr(reddit, "MAX_PAGES", 1)  # the listing reaches back 100 comments only
    t.cycle()
    assert t.forum.gap_threads == (how == "thread after a gap")
    assert t.state.phase == "team_vote" and list(t.state.team) == ["alice", "carol"]


# --- after a gap: which game threads are read, and when ---------------------------------------


def start_game(t, host, subreddit, players=NAMES[:5]):
    from forumbot import store
    from tests.fakes.table import config_text

    t.people.pm(host, "new game", config_text(players).replace("subreddit: resistancegames", f"subreddit: {subreddit}"))
    t.cycle()
    t.cycle()
    return store.Game.select().order_by(store.Game.id.desc()).first()


def propose_in(t, game):
    s = t.mod.state(game)
    t.people.comment(s.shown(s.leader), game.thread, "**PROPOSE: " + ", ".join(
        [x.name for x in s.active()][: s.team_size()]) + "**")


@pytest.mark.parametrize("budget, schedule", [(1, ["a1", "a2", "", "b1"]), (2, ["a1 a2", "b1"])])
def test_after_a_gap_the_changed_threads_are_read_first_within_one_budget_for_every_subreddit(
        reddit_table, fake_reddit, clock, monkeypatch, budget, schedule):
    """A flood in two subreddits: their listings fall short of the bookmark, and the game
    threads must be read whole. The reads one fetch may spend are shared by every subreddit
    (in the subreddits' order); within one, the threads whose comment count changed come
    before a quiet one (one info() request for the counts of a subreddit's threads); what the
    budget does not reach is read in the next cycles, and no command is lost on the way."""
    import adapters.reddit as reddit

    t = reddit_table(start=False)
    games = {"q": start_game(t, "hostq", "agames"), "a1": start_game(t, "hosta", "agames"),
             "a2": start_game(t, "hostb", "agames"), "b1": start_game(t, "hostc", "bgames")}
    chatter = [fake_reddit.submit("someone", sub, "chatter", "hi")["id"] for sub in ("agames", "bgames")]
    t.cycle()
    clock.advance(seconds=5)
    for name in ("a1", "a2", "b1"):
        propose_in(t, games[name])
    clock.advance(seconds=5)
    for i in range(150):
        for c in chatter:
            fake_reddit.comment("chatty", c, f"comment {i}")
    monkeypatch.setattr(reddit, "MAX_PAGES", 1)  # the listing reaches back 100 comments
    monkeypatch.setattr(reddit, "GAP_THREAD_READS", budget)
    seen = []
    for _ in schedule:
        n = len(fake_reddit.info_asked)
        t.cycle()
        seen.append(" ".join(k for k, g in games.items()
                             if t.mod.state(g).phase == "team_vote" and k not in " ".join(seen).split()))
        if not seen[1:]:  # the gap's cycle: one request for the counts of each subreddit's threads
            threads = [sorted(f"t3_{g.thread.partition(':')[2]}" for k, g in games.items() if k != "b1"),
                       [f"t3_{games['b1'].thread.partition(':')[2]}"]]
            assert [ids for ids in fake_reddit.info_asked[n:] if ids[0].startswith("t3_")] == threads
    assert seen == schedule
    assert t.mod.state(games["q"]).phase == "proposal" and t.forum.gaps == 2
    t.cycle()
    assert store_cursor_gaps() == {}


def store_cursor_gaps() -> dict:
    from forumbot import store

    return {k: v for k, v in store.get_cursor("reddit").items() if k.startswith("gap:") and v}


def test_a_proposal_behind_two_gaps_and_a_deleted_comment_is_read(reddit_table, fake_reddit, clock, monkeypatch):
    """A comment vanishes and a proposal comes, so the thread's comment count is what it
    was; then two floods, each past what the listing reaches: the first fetch has no read to
    spare, the second reads the thread whole from where the first gap began. The proposal
    counts (a count alone would call the thread unchanged; a bookmark moved on by the
    second flood would skip it)."""
    import adapters.reddit as reddit

    t = reddit_table()
    thread = t.game.thread
    other = fake_reddit.submit("someone", "resistancegames", "chatter", "hi")["id"]
    old = fake_reddit.comment("bob", thread, "an old remark")
    t.cycle()
    clock.advance(seconds=5)
    fake_reddit.comments.remove(old)
    fake_reddit.submissions[thread.partition(":")[2]]["num_comments"] -= 1
    propose_in(t, t.game)
    monkeypatch.setattr(reddit, "MAX_PAGES", 1)
    for budget in (0, 25):
        clock.advance(seconds=5)
        for i in range(150):
            fake_reddit.comment("chatty", other, f"comment {i}")
        monkeypatch.setattr(reddit, "GAP_THREAD_READS", budget)
        t.cycle()
        assert t.state.phase == ("proposal" if budget == 0 else "team_vote")
    assert t.forum.gaps == 2 and t.forum.gap_threads == 1


# --- a subreddit that cannot be read ----------------------------------------------------------


def test_a_subreddit_that_cannot_be_read_is_tried_again_after_a_doubling_wait(reddit_table, fake_reddit, clock):
    """A subreddit that answers 403 is read again after 0, 1, 3, 7, then at most 15 skipped
    cycles (it costs a request each try; the other subreddits go on every cycle); the host
    learns once, after ten minutes, why the thread cannot be read (in a cycle that tried,
    or in one that waited); once it answers again its game goes on at the next try, and a
    later failure starts the waits from the beginning."""
    t = reddit_table(start=False)
    closed = start_game(t, "hostc", "closedgames")
    locked = start_game(t, "hostl", "lockedgames")
    open_ = start_game(t, "hosto", "resistancegames")
    down: set[str] = {"closedgames"}
    forbidden = {"message": "Forbidden", "error": 403}
    fake_reddit.faults = [lambda m, p: (403, forbidden) if p.split("/")[2:3] in ([d] for d in down)
                          and p.endswith("/comments") else None] * 10000
    propose_in(t, closed)
    propose_in(t, locked)
    tried: dict[str, list[int]] = {"closedgames": [], "lockedgames": [], "resistancegames": []}
    for n in range(1, 38):
        clock.advance(minutes=10 if n == 8 else 1)  # the tenth minute unread falls in cycle 8
        down = ({"closedgames"} if n < 20 else set()) | ({"lockedgames"} if 3 <= n < 20 or n >= 35 else set())
        k = len(fake_reddit.requests)
        t.cycle()
        for sub in tried:
            tried[sub] += [n] * [p for _, p in fake_reddit.requests[k:]].count(f"/r/{sub}/comments")
    assert tried == {"closedgames": [1, 2, 4, 8, 16, 32, 33, 34, 35, 36, 37],
                     "lockedgames": [1, 2, 3, 4, 6, 10, 18, 34, 35, 36],
                     "resistancegames": list(range(1, 38))}
    assert (t.mod.state(closed).phase, t.mod.state(locked).phase) == ("team_vote", "team_vote")
    told = {host: [m["body"].partition("\n\n[](#fb-")[0] for m in fake_reddit.pms_to(host) if "cannot read" in m["body"]]
            for host in ("hostc", "hostl", "hosto")}
    words = ("I keep trying, and its deadlines wait until I have read it, so no vote sent in time is lost. If "
             "the thread's forum went private or was removed, you can ABORT the game by PM.")
    assert told == {
        "hostc": [f"{closed.tag}: I cannot read the game thread just now (r/closedgames: received 403 HTTP "
                  f"response). {words}"],
        "hostl": [f"{locked.tag}: I cannot read the game thread just now (r/lockedgames: received 403 HTTP "
                  f"response (tried again later)). {words}"],
        "hosto": []}
    assert open_.thread


# --- what is posted where -----------------------------------------------------------------------


@pytest.mark.parametrize("form", ["{id}", "t3_{id}", "https://www.reddit.com/r/othersub/comments/{id}/game_61/"])
def test_an_existing_thread_named_by_its_id_or_link_takes_the_game(reddit_table, fake_reddit, form):
    """A host names an existing thread by its link, its id, or its fullname: the game is
    played there (its opening comment and the players' commands), whatever the case the
    subreddit is written in; the opening comment's status is edited in place as play goes on."""
    import itertools

    from forumbot import store

    fake_reddit._ids = itertools.count(36 ** 5)  # ids of six characters, as Reddit's are
    t = reddit_table(start=False)
    s = fake_reddit.submit("host", "OtherSub", "Game 61 sign-ups", "join here")
    t.people.pm("host", "new game", "preset: resistance\nplayers: [alice, bob, carol, dave, erin]\n"
                f"thread: {form.format(id=s['id'])}\n")
    t.cycle()
    game = store.Game.select().first()
    assert game is not None and game.thread == f"othersub:{s['id']}"
    assert "PROPOSE" in fake_reddit.thread_comments(s["id"])[0]["body"]
    t.game_id = game.id
    opening = fake_reddit.thread_comments(s["id"])[0]
    assert "Now: mission 1, proposal 1." in opening["body"]
    t.propose()
    t.cycle()
    assert t.state.phase == "team_vote"
    opening = fake_reddit.thread_comments(s["id"])[0]
    assert "Now: the vote on" in opening["body"] and opening["author"] == fake_reddit.bot


def test_after_a_failed_thread_read_the_changed_thread_still_goes_first(reddit_table, fake_reddit, clock,
                                                                         monkeypatch):
    """After a gap the thread whose comment count changed is read first. When that read
    fails (the subreddit counts as unreadable this cycle), what the failed fetch saw counts
    for nothing: the next cycle still finds the thread changed and reads it first, so the
    proposal in it (behind a flood, past what the listing reaches) is read at once, not
    after the quiet threads."""
    import adapters.reddit as reddit

    t = reddit_table(start=False)
    first = start_game(t, "hosta", "agames")
    changed = start_game(t, "hostb", "agames")
    assert first.thread < changed.thread  # ids of one length: the quiet thread sorts first
    chatter = fake_reddit.submit("someone", "agames", "chatter", "hi")["id"]
    old = fake_reddit.comment("bob", changed.thread, "an old remark")
    t.cycle()
    clock.advance(seconds=5)
    sid = changed.thread.partition(":")[2]
    fake_reddit.comments.remove(old)  # it vanishes: the count is one less
    fake_reddit.submissions[sid]["num_comments"] -= 1
    propose_in(t, changed)
    clock.advance(seconds=5)
    for i in range(150):
        fake_reddit.comment("chatty", chatter, f"comment {i}")
    fake_reddit.comment("alice", changed.thread, "thinking about it")  # the one the listing reaches
    monkeypatch.setattr(reddit, "MAX_PAGES", 1)  # the listing reaches back 100 comments
    monkeypatch.setattr(reddit, "GAP_THREAD_READS", 1)
    forbidden = {"message": "Forbidden", "error": 403}
    fake_reddit.faults = [lambda m, p: (403, forbidden) if p == f"/comments/{sid}" else None] * 10
    k = len(fake_reddit.requests)
    t.cycle()
    assert ("GET", f"/comments/{sid}") in fake_reddit.requests[k:]
    assert t.mod.state(changed).phase == "proposal"
    fake_reddit.faults = []
    t.cycle()
    assert t.mod.state(changed).phase == "team_vote"
    assert t.mod.state(first).phase == "proposal"


def test_a_busy_second_past_what_the_bookmark_keeps_is_not_counted_twice(reddit_table, fake_reddit, clock,
                                                                         monkeypatch):
    """The bookmark keeps only so many ids of its second; the read stops at the bookmarked
    comment, so the older comments of that second are not read (nor counted) again. Counted
    twice, a quiet game thread would look changed after the next gap and be read before the
    thread that really changed, holding back the proposal in it by a cycle."""
    import adapters.reddit as reddit

    t = reddit_table(start=False)
    quiet = start_game(t, "hosta", "agames")
    changed = start_game(t, "hostb", "agames")
    assert quiet.thread < changed.thread  # ids of one length: the quiet thread sorts first
    chatter = fake_reddit.submit("someone", "agames", "chatter", "hi")["id"]
    t.cycle()
    clock.advance(seconds=5)
    monkeypatch.setattr(reddit, "MAX_IDS", 2)
    for n in ("alice", "bob", "carol"):  # three remarks in one second
        fake_reddit.comment(n, quiet.thread, f"hello from {n}")
    for _ in range(3):
        t.cycle()  # then nothing new: each read ends at the bookmark
    clock.advance(seconds=5)
    propose_in(t, changed)
    clock.advance(seconds=5)
    for i in range(150):
        fake_reddit.comment("chatty", chatter, f"comment {i}")
    monkeypatch.setattr(reddit, "MAX_PAGES", 1)  # the listing reaches back 100 comments
    monkeypatch.setattr(reddit, "GAP_THREAD_READS", 1)
    t.cycle()
    assert (t.mod.state(changed).phase, t.mod.state(quiet).phase) == ("team_vote", "proposal")


# --- the operator's settings ---------------------------------------------------------------------


@pytest.mark.parametrize("secret, agent", [("password", "forumbot/0.1 by u/host"), ("refresh_token", "")])
def test_the_settings_section_is_how_the_bot_reaches_reddit(db, clock, fake_reddit, monkeypatch, secret, agent):
    """The operator's [reddit] section, as the settings file gives it (strings; a blank
    setting is unset): the bot logs in with that app and account (by password, or by
    refresh token for an account with two-factor authentication), names itself to Reddit
    by the user agent set (a default when blank), asks nothing of anyone else at start (no
    update check), and opens a game whose config names no subreddit in the section's."""
    import base64

    import praw.reddit

    checks: list = []
    monkeypatch.setattr(praw.reddit, "update_check", lambda *a, **kw: checks.append((a, kw)))
    monkeypatch.setattr(praw.Reddit, "update_checked", False)
    section = {"client_id": "app-id", "client_secret": "app-secret", "username": fake_reddit.bot,
               "password": "", "refresh_token": "", "user_agent": agent, "oauth_url": fake_reddit.url,
               "reddit_url": fake_reddit.url, "subreddit": "homegames"}
    section[secret] = "s3cret"
    forum = RedditForum.from_settings(section)
    t = Table(forum, RedditPeople(fake_reddit), clock, players=NAMES[:5],
              make_moderator=lambda: Moderator(forum, clock=clock))
    t.people.pm("host", "new game", config_text(NAMES[:5]).replace("subreddit: resistancegames\n", ""))
    t.cycle()
    t.cycle()
    from forumbot import store

    game = store.Game.select().first()
    assert game is not None and game.thread.startswith("homegames:")
    assert fake_reddit.submissions[game.thread.partition(":")[2]]["subreddit"] == "homegames"
    t.game_id = game.id
    t.propose()
    assert t.state.phase == "team_vote"
    grant = ({"grant_type": "password", "username": fake_reddit.bot, "password": "s3cret"} if secret == "password"
             else {"grant_type": "refresh_token", "refresh_token": "s3cret"})
    basic = "Basic " + base64.b64encode(b"app-id:app-secret").decode()
    assert fake_reddit.logins and {(auth, form.get("grant_type")) for auth, form in fake_reddit.logins} == {
        (basic, grant["grant_type"])}
    assert all({k: form.get(k) for k in grant} == grant for _, form in fake_reddit.logins)
    assert fake_reddit.agents and all(a.startswith((agent or "forumbot/0.1") + " PRAW/") for a in fake_reddit.agents)
    assert checks == []


def test_a_game_with_no_subreddit_anywhere_does_not_start_and_the_host_learns_why(reddit_table, fake_reddit):
    """Neither the game's config nor the settings name a subreddit: nothing is posted, no
    roles go out, and the host is told the game did not start and what to set."""
    from forumbot import store

    t = reddit_table(start=False)
    t.people.pm("host", "new game", config_text(NAMES[:5]).replace("subreddit: resistancegames\n", ""))
    for _ in range(3):
        t.cycle()
    game = store.Game.select().first()
    assert game is not None and game.status == "aborted" and game.thread is None
    assert fake_reddit.submissions == {} and not [m for m in fake_reddit.messages if m["dest"] in NAMES]
    told = [m["body"] for m in fake_reddit.pms_to("host")]
    assert len(told) == 1 and "did not start" in told[0]
    assert "The forum said: no subreddit for the new thread: set `subreddit:` in the config\n" in told[0]


# --- what the adapter's own entry points promise --------------------------------------------------


def bare_forum(fake_reddit) -> RedditForum:
    return RedditForum(praw.Reddit(**fake_reddit.praw_kwargs()), backoff=0, max_wait=0)


@pytest.mark.parametrize("kind", ["thread", "comment", "pm"])
def test_looking_for_an_uncertain_post_costs_one_request_however_much_the_bot_posted(fake_reddit, kind):
    """After an uncertain failure the bot looks for the post among its newest posts of that
    kind: one page, one request, however many it has made (its whole history would cost a
    request a hundred, out of 100 a minute)."""
    from adapters.base import Outgoing
    from adapters.reddit_marks import marker

    forum = bare_forum(fake_reddit)
    game = fake_reddit.submit("host", "resistancegames", "Game 1", "sign up here")
    bot = fake_reddit.bot

    def make(body: str) -> dict:
        if kind == "thread":
            return fake_reddit.submit(bot, "resistancegames", "A game", body)
        if kind == "comment":
            return fake_reddit.comment(bot, game["id"], body)
        return fake_reddit._message(bot, "alice", "your role", body)

    lost = Outgoing(key="G1:lost", kind=kind, body="words", thread=f"resistancegames:{game['id']}", to="alice",
                    subject="your role", title="A game", where="resistancegames")
    for i in range(150):
        make(f"post {i}\n\n{marker(f'G1:other{i}')}")
    k = len(fake_reddit.requests)
    assert forum.find_posted(lost) is None
    assert len([p for _, p in fake_reddit.requests[k:] if "access_token" not in p]) == 1
    landed = make(f"words\n\n{marker(lost)}")
    k = len(fake_reddit.requests)
    found = forum.find_posted(lost)
    assert found is not None and found.id.endswith(landed["id"])
    assert len([p for _, p in fake_reddit.requests[k:] if "access_token" not in p]) == 1


def test_a_pm_with_no_subject_goes_out_under_the_bots_name(fake_reddit):
    """Reddit refuses a PM with no subject: one without (a chat may have dropped it) is
    sent as "forumbot"; one with a subject keeps it."""
    from adapters.base import Outgoing

    forum = bare_forum(fake_reddit)
    forum.post(Outgoing(key="k1", kind="pm", body="hello", to="alice", subject=""))
    forum.post(Outgoing(key="k2", kind="pm", body="again", to="alice", subject="G1: your role"))
    assert [m["subject"] for m in fake_reddit.pms_to("alice")] == ["forumbot", "G1: your role"]


def test_a_bookmark_from_before_same_second_bookmarks_is_read_on_from(reddit_table, fake_reddit, clock):
    """A bot upgraded from a version whose bookmark named one comment (its second and id, no
    list of ids) reads on from it: the next cycle counts the new proposal, and the comments
    before the bookmark are not read again."""
    from forumbot import store

    t = reddit_table()
    t.say("alice", "**STATUS**")
    t.cycle()
    bookmark = store.get_cursor("reddit")["sub:resistancegames"]
    store.set_cursor("reddit", {"sub:resistancegames": {"t": bookmark["t"], "id": bookmark["id"]}})
    rows = store.Inbound.select().count()
    clock.advance(seconds=5)
    team = t.propose()
    assert t.state.phase == "team_vote" and list(t.state.team) == team
    assert store.Inbound.select().count() == rows + 1


def test_a_subreddit_whose_listing_comes_back_empty_is_no_gap(reddit_table, fake_reddit):
    """Every comment of the subreddit removed (its listing is empty): nothing can be missing
    behind it, so no game thread is read whole and no comment counts are asked for."""
    t = reddit_table()
    t.cycle()
    fake_reddit.comments.clear()
    k = len(fake_reddit.requests)
    t.cycle()
    asked = [p for _, p in fake_reddit.requests[k:]]
    assert "/r/resistancegames/comments" in asked
    assert not [p for p in asked if p.startswith("/comments/") or p == "/api/info"]


def test_a_listing_that_falls_short_after_its_first_comment_is_a_gap(reddit_table, fake_reddit, monkeypatch):
    """However short the listing falls of the bookmark (here Reddit's window, shrunk to one
    comment, holds only the newest), the game thread is read whole: the leader's proposal,
    made just before a remark, counts in the same cycle and is not skipped for good."""
    import adapters.reddit as reddit

    t = reddit_table()
    t.cycle()
    leader = t.state.shown(t.state.leader)
    team = [p.name for p in t.state.active()][: t.state.team_size()]
    t.say(leader, f"**PROPOSE: {', '.join(team)}**")
    t.say("erin", "good luck, everyone")
    monkeypatch.setattr(reddit, "PAGE", 1)
    monkeypatch.setattr(reddit, "MAX_PAGES", 1)
    t.cycle()
    assert t.state.phase == "team_vote" and list(t.state.team) == team
    assert t.forum.gaps == 1 and t.forum.gap_threads == 1


def test_a_comment_reddit_answered_with_nothing_is_kept_uncertain_then_posted_once(reddit_table, fake_reddit):
    """Reddit answers a comment with `things: []` and the comment did not land: the bot's
    outbox keeps it, uncertain, with the reason for the operator to read (what Reddit did,
    not a bare error); the next cycle looks for it, does not find it, and posts it: the
    vote call is in the thread once."""
    from forumbot import store

    t = reddit_table()
    before = len(bot_comments(fake_reddit, t.game.thread))
    fake_reddit.empty_comment_answer = "not_created"
    t.propose()
    assert len(bot_comments(fake_reddit, t.game.thread)) == before
    waiting = list(store.Outbox.select().where((store.Outbox.kind == "comment") & (store.Outbox.state == "pending")))
    assert waiting and all(o.uncertain for o in waiting)
    assert {o.error for o in waiting} == {"Reddit answered the comment with no comment"}
    fake_reddit.empty_comment_answer = False
    t.cycle()
    posted = bot_comments(fake_reddit, t.game.thread)[before:]
    assert len(posted) == len(waiting) and len(set(posted)) == len(posted)
    assert not store.Outbox.select().where((store.Outbox.kind == "comment") & (store.Outbox.state == "pending")).exists()


def test_a_started_games_record_links_its_reddit_thread(reddit_table, fake_reddit):
    """Once the game's thread is out, the game's record (the export) names it by its link
    on Reddit, one a person can open, not by the bot's internal id."""
    t = reddit_table()
    sub, _, sid = t.game.thread.partition(":")
    assert t.export()["thread"] == f"https://www.reddit.com/r/{sub}/comments/{sid}/"
    assert sid in fake_reddit.submissions


def test_an_edited_vote_is_answered_under_it_in_public_with_the_notice(reddit_table, fake_reddit):
    """A player edits a comment the bot already took as a vote: the vote stands, and the bot
    answers under that very comment, in the thread, with the words that say edits change no
    command (addressed to the player), so the player and the table can read why."""
    t = reddit_table()
    t.propose()
    voter = t.state.waiting_for()[0]
    c = fake_reddit.comment(voter, t.game.thread, "**APPROVE**")
    t.cycle()
    assert t.state.votes[voter] == "approve"
    fake_reddit.edit(c["id"], "**REJECT** after all")
    t.cycle()
    t.cycle()
    assert t.state.votes[voter] == "approve"  # the edit changed no vote
    answers = [x for x in fake_reddit.thread_comments(t.game.thread)
               if x["author"] == fake_reddit.bot and x["parent_id"] == c["name"]]
    assert len(answers) == 1
    body = answers[0]["body"]
    assert voter in body and "Editing a comment does not change a command" in body
    assert "post a new comment" in body


# --- the listing's pages and /api/info, read as Reddit's JSON (adapters/reddit_json.py) -------

class _Listing:
    """A Reddit that answers each GET with the next of `answers` and keeps the params asked."""

    def __init__(self, *answers):
        self.answers, self.asked = list(answers), []

    def request(self, method, path, params):
        self.asked.append(dict(params))
        return self.answers[min(len(self.asked), len(self.answers)) - 1]


def _page(ids, after):
    return {"kind": "Listing", "data": {"after": after, "children": [{"kind": "t1", "data": {"id": i}} for i in ids]}}


def test_the_listing_asks_each_next_page_only_for_what_is_left_and_stops_at_most():
    from adapters.reddit_json import pages
    reddit = _Listing(_page(["a", "b"], "t1_b"), _page(["c", "d", "e", "f"], "t1_f"))
    assert [d["id"] for d in pages(reddit, "r/x/comments", first=2, page=100, most=5)] == ["a", "b", "c", "d", "e"]
    assert reddit.asked == [{"limit": 2}, {"limit": 3, "after": "t1_b"}]


def test_a_listing_that_gives_the_same_cursor_again_is_read_no_further():
    from adapters.reddit_json import pages
    reddit = _Listing(_page(["a", "b"], "t1_b"))  # (every page the same, the same `after`)
    assert [d["id"] for d in pages(reddit, "r/x/comments", first=2, page=2, most=10)] == ["a", "b", "a", "b"]
    assert len(reddit.asked) == 2


def test_an_answer_that_is_no_listing_has_no_things():
    from adapters.reddit_json import children, pages
    for answer in (None, [], "<html>", 3, {"data": None}, {"data": {"children": None}}):
        assert children(answer) == []
        assert list(pages(_Listing(answer), "r/x/comments", first=5, page=100, most=10)) == []


def test_info_leaves_out_a_deleted_comment_and_reads_on_past_it():
    from adapters.reddit_json import live_comments
    from adapters.unnamed import Unnamed
    t1 = [{"kind": "t1", "data": {"id": i, "body": body, "author": "alice", "created_utc": 1.7e9,
                                  "link_id": "t3_abc", "subreddit": "Games"}}
          for i, body in (("c1", "[deleted]"), ("c2", "[removed]"), ("c3", "**APPROVE**"))]
    reddit = _Listing({"data": {"children": [*t1[:2], {"kind": "t3", "data": {"id": "abc"}}, t1[2]]}})
    [read] = live_comments(reddit, ["t1_c1", "t1_c2", "t1_c3"], Unnamed("Reddit"))
    assert (read.id, read.body, read.thread) == ("c3", "**APPROVE**", "games:abc")
    assert reddit.asked == [{"id": "t1_c1,t1_c2,t1_c3"}]
