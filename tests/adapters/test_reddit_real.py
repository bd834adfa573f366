"""Reddit as it really answers (issue 11), through real praw against the fake: a subreddit
that is private or gone, mail from admins, modmail and other bots, a reply answered with
no comment, content errors, gaps that counts hide, inbox replies, subreddit case, PMs
without their subject, and a sent-message listing that cannot be read."""
from __future__ import annotations

from collections import Counter

import pytest

from forumbot import store
from tests.fakes.bots import NO_WAITS, make_bot
from tests.fakes.driver import markers
from tests.fakes.table import NAMES, Table, config_text

FORBIDDEN = {"message": "Forbidden", "error": 403, "reason": "private"}


@pytest.fixture
def no_prawcore_sleep(monkeypatch):
    import prawcore.sessions

    monkeypatch.setattr(prawcore.sessions.FiniteRetryStrategy, "_sleep_seconds", lambda self: None)


@pytest.fixture
def reddit(db, bot, fake_reddit, no_prawcore_sleep):
    """Tables on the test's fake Reddit, all on one adapter that never sleeps between tries."""
    b = bot("reddit", fake=fake_reddit, forum_kw=NO_WAITS)

    def make(players=NAMES[:5], host="host", start=True, **kw) -> Table:
        return b.table(players, host=host, **kw) if start else b.table(players, start=False)
    return make


def start_game(t, host, subreddit, players, extra=""):
    text = config_text(players, extra=extra).replace("subreddit: resistancegames", f"subreddit: {subreddit}")
    t.people.pm(host, "new game", text)
    t.cycle()
    t.cycle()
    return store.Game.select().order_by(store.Game.id.desc()).first()


def bot_pms_to(fake, user):
    return [m for m in fake.messages if m["author"] == "forumbot" and m["dest"].lower() == user.lower()]


# --- 1. one subreddit that cannot be read stops only its own games -----------------------


def test_a_private_subreddit_stops_only_its_games(reddit, clock):
    t = reddit(start=False)
    a = start_game(t, "hosta", "secretgames", NAMES[:5], "deadlines: {proposal: 1h}\n")
    b = start_game(t, "hostb", "resistancegames", NAMES[5:10], "deadlines: {proposal: 1h}\n")
    t.fake.faults = [lambda m, p: (403, FORBIDDEN) if p == "/r/secretgames/comments" else None] * 200
    sa, sb = t.mod.state(a), t.mod.state(b)
    team_b = [x.name for x in sb.active()][: sb.team_size()]
    t.fake.comment(sb.leader, b.thread, "**PROPOSE: " + ", ".join(team_b) + "**")
    t.fake.pm_bot("hosta", f"{a.tag}", f"STATUS {a.tag}")  # the inbox still works: hosts can act
    leader_a = sa.leader
    clock.advance(minutes=90)
    t.cycle()
    assert t.mod.state(b).phase == "team_vote"
    assert t.mod.state(a).leader == leader_a, "a deadline of the unreadable subreddit closed"
    told = [m for m in bot_pms_to(t.fake, "hosta") if "cannot read the game thread" in m["body"]]
    assert len(told) == 1
    assert any("missions played" in m["body"] or a.tag in m["body"] for m in bot_pms_to(t.fake, "hosta"))
    t.cycle()
    assert len([m for m in bot_pms_to(t.fake, "hosta") if "cannot read" in m["body"]]) == 1  # once
    assert not [m for m in bot_pms_to(t.fake, "hostb") if "cannot read" in m["body"]]
    t.fake.faults = []
    for _ in range(20):  # read again after its backoff
        t.cycle()
    assert t.mod.state(a).leader != leader_a  # now its deadline closes


# --- 2. mail no player sent ---------------------------------------------------------------


def test_the_bot_never_answers_admins_subreddits_or_replies_to_its_own(reddit):
    t = reddit()
    t.fake.inbox_admin("Welcome", "Thanks for joining")
    t.fake.inbox_admin("Mod news", "This month in moderation", author="ModNewsletter")
    t.fake.inbox_modmail("resistancegames", "[modmail] hello", "a message from the mods")
    sent = [m for m in t.fake.messages if m["author"] == "forumbot"][0]
    t.fake.inbox_bot_mail("echobot", "re: " + sent["subject"], "I am a bot. Beep.", parent=sent["id"])
    t.cycle()
    t.cycle()
    for who in ("reddit", "ModNewsletter", "resistancegames", "echobot"):
        assert not bot_pms_to(t.fake, who), who
    rows = store.Inbound.select().where(store.Inbound.kind == "pm")
    assert {r.origin for r in rows if r.author == "reddit"} == {"admin"}


def test_a_bot_that_answers_every_pm_gets_one_pointer_a_day(reddit, clock):
    t = reddit()
    t.fake.inbox_bot_mail("chattybot", "hello", "Hello! I am a bot.")
    t.cycle()
    for _ in range(4):
        clock.advance(hours=25)  # past the one-pointer-a-day limit: only silence stops the loop
        replies = bot_pms_to(t.fake, "chattybot")
        if replies:  # it answers the bot's last answer, every time
            t.fake.inbox_bot_mail("chattybot", "re: " + replies[-1]["subject"], "Hello! I am a bot.",
                                  parent=replies[-1]["id"])
        t.cycle()
    assert len(bot_pms_to(t.fake, "chattybot")) == 1


def test_comment_replies_in_the_inbox_are_never_pms(reddit):
    t = reddit()
    bot_comment = next(c for c in t.fake.thread_comments(t.game.thread) if c["author"] == "forumbot")
    before = len(bot_pms_to(t.fake, "alice"))
    t.fake.inbox_comment_reply("alice", t.game.thread, "nice post", parent=bot_comment["name"])
    t.cycle()
    assert not store.Inbound.select().where((store.Inbound.kind == "pm") & (store.Inbound.author == "alice")).exists()
    assert len(bot_pms_to(t.fake, "alice")) == before  # answered at most in the thread, never by PM


def test_a_real_inbox_beside_a_game_changes_nothing_and_gets_no_pm(db, clock, no_prawcore_sleep, tmp_path):
    """A game plays the same with a recorded real inbox (admin mail, modmail, other bots,
    comment and post replies) beside it, and no one outside the game gets a PM."""
    from tests.fakes.driver import outcome, play

    def run(with_mail: bool):
        b = make_bot("reddit", clock, forum_kw=NO_WAITS)
        fake = b.fake
        try:
            t = b.table()
            if with_mail:
                strangers = {str(m.get("author")) for m in fake.load_recorded_inbox()}
            play(t, seed=5)
            sent_to = {m["dest"].lower() for m in fake.messages if m["author"] == "forumbot"}
            return outcome(t.export()), sent_to, (strangers if with_mail else set())
        finally:
            b.stop()

    calm, calm_to, _ = run(False)
    store.close()
    store.connect(f"sqlite:///{tmp_path}/second.db")
    busy, busy_to, strangers = run(True)
    assert busy == calm
    assert busy_to == calm_to and not (busy_to & {s.lower() for s in strangers if s})


# --- 3. a reply answered with no comment ------------------------------------------------


def test_a_comment_answered_with_no_comment_is_found_by_its_marker(reddit):
    t = reddit()
    empty = [lambda m, p: (200, {"json": {"errors": [], "data": {"things": []}}}, "commit")
             if p == "/api/comment" else None]
    t.fake.faults = empty
    t.propose()  # the bot answers with the vote post; Reddit says nothing back
    report = t.cycle()
    assert not any("AttributeError" in e for e in report.errors)
    t.cycle()
    dup = [k for k, n in Counter(markers(t.fake.bot_posts())).items() if n > 1]
    assert not dup
    assert store.Outbox.select().where((store.Outbox.state == "pending")
                                       & (store.Outbox.kind == "comment")).count() == 0


# --- 4. content errors are permanent ------------------------------------------------------


@pytest.mark.parametrize("error", ["SUBMIT_VALIDATION_TITLE_BLACKLISTED_STRING",
                                   "SUBMIT_VALIDATION_BODY_BLACKLISTED_STRING"])
def test_a_refused_opening_post_does_not_start_the_game(reddit, clock, error):
    t = reddit(start=False)
    t.fake.faults = [lambda m, p: (200, {"json": {"errors": [[error, "that is not allowed here", "title"]]}})
                     if p == "/api/submit" else None] * 50
    t.people.pm("host", "new game", config_text(NAMES[:5]))
    for _ in range(4):
        t.cycle()
        clock.advance(minutes=5)
    submits = [r for r in t.fake.requests if r[1] == "/api/submit"]
    assert len(submits) == 1  # not tried again
    told = [m["body"] for m in bot_pms_to(t.fake, "host")]
    assert any("did not start" in b and "not allowed here" in b and "new `title:`" in b for b in told)
    for n in NAMES[:5]:  # no one was dealt a role for a game that never started
        assert not bot_pms_to(t.fake, n)
    assert store.Game.get().status == "aborted"


# --- 5. counts do not hide a gap ----------------------------------------------------------


def test_a_new_vote_behind_a_deleted_comment_is_read_after_a_gap(reddit, monkeypatch):
    import adapters.reddit as reddit_adapter

    t = reddit()
    other = t.fake.submit("someone", "resistancegames", "chatter", "hi")
    t.fake.comment("bob", t.game.thread, "an old remark")
    t.cycle()
    t.cycle()
    old = next(c for c in t.fake.comments if c["body"] == "an old remark")
    t.fake.comments.remove(old)  # deleted: the thread's count goes down by one ...
    t.say(t.state.leader, "**PROPOSE: " + ", ".join(t.default_team()) + "**")  # ... and up by one
    for i in range(150):
        t.fake.comment("chatty", other["id"], f"comment {i}")
    monkeypatch.setattr(reddit_adapter, "MAX_PAGES", 1)  # the listing reaches back 100 comments
    t.cycle()
    assert t.forum.gaps >= 1
    assert t.state.phase == "team_vote"


def test_same_second_comments_are_counted_once_when_the_bookmark_vanishes(reddit, clock):
    t = reddit()
    for n in ("alice", "bob", "carol"):
        t.fake.comment(n, t.game.thread, f"chat from {n}")  # all in one second
    t.cycle()
    counted = store.get_cursor("reddit")[f"n:t3_{t.game.thread.partition(':')[2]}"]
    newest = store.get_cursor("reddit")["sub:resistancegames"]
    t.fake.comments = [c for c in t.fake.comments if c["id"] != newest["id"]]  # the bookmark vanishes
    t.cycle()
    assert store.get_cursor("reddit")[f"n:t3_{t.game.thread.partition(':')[2]}"] == counted
    assert t.forum.gaps == 0


# --- 7. no inbox replies for the bot's threads ----------------------------------------------


def test_threads_are_submitted_with_inbox_replies_off(reddit, monkeypatch):
    from praw.models import Subreddit

    seen = {}
    submit = Subreddit.submit

    def spy(self, title, **kw):
        seen.update(kw)
        return submit(self, title, **kw)

    monkeypatch.setattr(Subreddit, "submit", spy)
    reddit()
    assert seen.get("send_replies") is False


# --- 8. one subreddit, whatever its case ---------------------------------------------------


def test_one_listing_per_subreddit_whatever_its_case(reddit):
    t = reddit(start=False)
    start_game(t, "hosta", "resistancegames", NAMES[:5])
    b = start_game(t, "hostb", "ResistanceGames", NAMES[5:10])
    b.thread = "ResistanceGames:" + b.thread.partition(":")[2]  # as an older version stored it
    b.save()
    n = len(t.fake.requests)
    t.cycle()
    listings = [p for _, p in t.fake.requests[n:] if p.endswith("/comments") and p.startswith("/r/")]
    assert len(listings) == 1
    assert len({k for k in store.get_cursor("reddit") if k.startswith("sub:")}) == 1
    sb = t.mod.state(b)
    t.fake.comment(sb.leader, b.thread, "**PROPOSE: " + ", ".join([x.name for x in sb.active()][: sb.team_size()]) + "**")
    t.cycle()
    assert t.mod.state(b).phase == "team_vote"  # its comments still reach it


# --- 9. PMs that lost their subject ----------------------------------------------------------


def test_a_pm_with_no_subject_finds_its_game_by_the_tag_in_its_body(reddit):
    t = reddit(start=False)
    g1 = start_game(t, "hosta", "resistancegames", NAMES[:5])
    g2 = start_game(t, "hostb", "resistancegames", NAMES[:5])
    s2 = t.mod.state(g2)
    t.fake.pm_bot(s2.leader, "", f"{g2.tag} PROPOSE: " + ", ".join([x.name for x in s2.active()][: s2.team_size()]))
    t.cycle()
    assert t.mod.state(g2).phase == "team_vote" and t.mod.state(g1).phase == "proposal"


def test_a_pm_with_no_subject_and_no_tag_goes_to_the_only_game(reddit):
    t = reddit()
    s = t.state
    t.fake.pm_bot(s.leader, "", "PROPOSE: " + ", ".join(t.default_team()))
    t.cycle()
    assert t.state.phase == "team_vote"


def test_every_pm_about_a_game_asks_for_the_tag_in_the_message(reddit):
    t = reddit()
    t.fake.pm_bot("alice", t.game.tag, "HELP")
    t.cycle()
    pms = bot_pms_to(t.fake, "alice")
    assert pms and all(t.game.tag in m["body"].split("\n")[-1] or t.game.tag in m["body"][-200:] for m in pms)


# --- 10. a sent listing that cannot be read ---------------------------------------------------


def test_an_uncertain_pm_is_sent_again_when_the_sent_listing_cannot_be_read(reddit, clock):
    t = reddit()
    t.fake.faults = [lambda m, p: (500, {"error": 500}, "commit") if p == "/api/compose" else None]
    t.fake.faults += [lambda m, p: (403, FORBIDDEN) if p == "/message/sent" else None] * 100
    t.fake.pm_bot("alice", t.game.tag, "HELP")
    t.cycle()  # the answer lands, but the bot cannot know
    before = len(bot_pms_to(t.fake, "alice"))
    for _ in range(3):
        clock.advance(minutes=6)
        t.cycle()
    item = store.Outbox.select().where(store.Outbox.to == "alice").order_by(store.Outbox.id.desc()).first()
    assert item.state == "posted"
    assert len(bot_pms_to(t.fake, "alice")) == before + 1  # sent again: twice beats never
    told = [m for m in bot_pms_to(t.fake, "host") if "may get it twice" in m["body"]]
    assert len(told) == 1


# --- 6. filling a gap reads every comment, "load more" included -----------------------------


def test_filling_a_gap_expands_every_more_object(reddit, monkeypatch):
    import adapters.reddit as reddit_adapter

    t = reddit()
    t.fake.more_after = 5  # Reddit shows a few comments and hides the rest behind `more`
    t.fake.morechildren_limit = 20
    other = t.fake.submit("someone", "resistancegames", "chatter", "hi")
    t.cycle()
    for i in range(60):
        t.fake.comment(f"lurker{i}", t.game.thread, f"remark {i}")
    t.say(t.state.leader, "**PROPOSE: " + ", ".join(t.default_team()) + "**")
    for i in range(60):
        t.fake.comment(f"lurker{i}", t.game.thread, f"later remark {i}")
    for i in range(150):
        t.fake.comment("chatty", other["id"], f"comment {i}")
    monkeypatch.setattr(reddit_adapter, "MAX_PAGES", 1)
    t.cycle()
    assert t.forum.gaps >= 1
    assert t.state.phase == "team_vote"
    stored = store.Inbound.select().where(store.Inbound.thread == t.game.thread).count()
    assert stored >= 121  # every comment of the thread came in, not only the first pages


def test_a_thread_not_yet_read_after_a_gap_holds_its_deadline(reddit, monkeypatch, clock):
    import adapters.reddit as reddit_adapter

    t = reddit(extra="deadlines: {proposal: 1h}\n")
    other = t.fake.submit("someone", "resistancegames", "chatter", "hi")
    t.cycle()
    leader = t.state.leader
    t.say(leader, "**PROPOSE: " + ", ".join(t.default_team()) + "**")
    for i in range(150):
        t.fake.comment("chatty", other["id"], f"comment {i}")
    monkeypatch.setattr(reddit_adapter, "MAX_PAGES", 1)
    monkeypatch.setattr(reddit_adapter, "GAP_THREAD_READS", 0)  # no thread read this time
    clock.advance(minutes=90)
    t.cycle()
    assert t.state.leader == leader and t.state.phase == "proposal"  # waits: not read in full
    monkeypatch.setattr(reddit_adapter, "GAP_THREAD_READS", 25)
    t.cycle()
    assert t.state.phase == "team_vote"  # the proposal was in time


# --- 7. the bot's threads fill no inbox ------------------------------------------------------


def test_comments_on_the_bots_thread_do_not_fill_its_inbox(reddit):
    t = reddit(start=False)
    t.fake.reply_notifications = True  # Reddit notifies... unless the thread says no
    t.start()
    t.say("alice", "just chatting")
    t.cycle()
    assert not [m for m in t.fake.messages if m["name"].startswith("t1_") and m["dest"] == "forumbot"]


# --- 9. a reply to a bot PM, found by its parent ------------------------------------------------


def test_a_reply_with_no_subject_and_no_tag_finds_its_game_by_the_pm_it_answers(reddit):
    t = reddit(start=False)
    g1 = start_game(t, "hosta", "resistancegames", NAMES[:5])
    g2 = start_game(t, "hostb", "resistancegames", NAMES[:5])
    s2 = t.mod.state(g2)
    role = next(m for m in bot_pms_to(t.fake, s2.leader) if g2.tag in m["subject"])
    t.fake.pm_bot(s2.leader, "", "PROPOSE: " + ", ".join([x.name for x in s2.active()][: s2.team_size()]),
                  parent=role["id"])
    t.cycle()
    assert t.mod.state(g2).phase == "team_vote" and t.mod.state(g1).phase == "proposal"


def test_a_reply_to_a_bot_comment_switches_that_comments_inbox_replies_off(reddit):
    t = reddit(start=False)
    t.fake.reply_notifications = True
    t.start()
    bot_comment = next(c for c in t.fake.thread_comments(t.game.thread) if c["author"] == "forumbot")
    t.fake.comment("alice", t.game.thread, "replying to the bot", bot_comment["name"])
    t.cycle()
    assert ("POST", "/api/sendreplies") in t.fake.requests
    n = sum(1 for m in t.fake.messages if m["name"].startswith("t1_"))
    t.fake.comment("bob", t.game.thread, "me too", bot_comment["name"])
    t.cycle()
    assert sum(1 for m in t.fake.messages if m["name"].startswith("t1_")) == n  # no more inbox items
