"""Nothing lost, nothing twice, nothing leaked (issue 10): a failing forum, a chatty player,
a locked or full database, planted markers, a new database, posts that must keep their
order, several games in one thread, a bot that was down, and a flood guard that must not
mute the host. Each test fails without its fix."""
from __future__ import annotations

import sqlite3
import threading
import time
from datetime import timedelta

import pytest

from adapters.base import PermanentError, TransientError
from adapters.local import LocalForum
from forumbot import markers, store
from forumbot.shell.inbox import Inbox
from tests.fakes.bots import NO_WAITS
from tests.fakes.forums import flaky_table
from tests.fakes.table import NAMES


@pytest.fixture
def no_prawcore_sleep(monkeypatch):
    import prawcore.sessions

    monkeypatch.setattr(prawcore.sessions.FiniteRetryStrategy, "_sleep_seconds", lambda self: None)


@pytest.fixture
def reddit(bot, no_prawcore_sleep):
    def make(n=5, **kw):
        return bot("reddit", forum_kw=NO_WAITS).table(n, **kw)
    return make


def thread_text(t) -> str:
    return "\n".join(t.people.thread(t.game.thread))


# --- 1. a deadline waits for the forum ------------------------------------------------


def test_a_deadline_waits_while_the_comment_listing_fails(db, clock, reddit):
    t = reddit(extra="deadlines: {team_vote: 1h}\n")
    t.propose()
    voters = list(t.state.waiting_for())
    listing_down = [lambda m, p: (503, {"message": "Service Unavailable", "error": 503})
                    if m == "GET" and p.startswith("/r/") and p.endswith("/comments") else None] * 1000
    t.fake.faults = listing_down
    t.say(voters[0], "**APPROVE**")
    for n in voters[1:]:
        t.say(n, "**REJECT**")
    clock.advance(minutes=70)
    t.cycle()
    assert t.state.phase == "team_vote", "the deadline closed without the votes it could not read"
    clock.advance(minutes=65)
    t.cycle()
    told = [p for p in t.people.pms_to("host") if "has not closed yet" in p]
    assert len(told) == 1 and "could not be read" in told[0]
    t.cycle()
    assert len([p for p in t.people.pms_to("host") if "has not closed yet" in p]) == 1  # once
    t.fake.faults = []
    for _ in range(8):  # the failing subreddit is read again after a backoff (in fetches)
        t.cycle()
        if t.export()["votes"]:
            break
    v = t.export()["votes"][0]
    assert v["approved"] is False and v["defaulted"] == []
    assert sorted(n for n, x in v["votes"].items() if x == "reject") == sorted(voters[1:])
    assert "No team vote is open" not in thread_text(t)


def test_a_deadline_waits_while_the_whole_forum_is_down(db, clock):
    t = flaky_table(clock, extra="deadlines: {team_vote: 1h}\n")
    t.propose()
    voters = list(t.state.waiting_for())
    t.forum.down = True
    for n in voters:
        t.say(n, "**REJECT**")
    clock.advance(hours=2)
    t.cycle()
    assert t.state.phase == "team_vote"
    t.forum.down = False
    t.cycle()
    v = t.export()["votes"][0]
    assert v["approved"] is False and v["defaulted"] == []


def test_a_new_bot_closes_nothing_before_its_first_read(db, clock):
    t = flaky_table(clock, extra="deadlines: {team_vote: 1h}\n")
    t.propose()
    voters = list(t.state.waiting_for())
    for n in voters:
        t.say(n, "**REJECT**")
    store.Cursor.delete().where(store.Cursor.forum == "local#bot").execute()  # as if never read
    t.forum.down = True
    clock.advance(hours=2)
    t.cycle(fresh=True)
    assert t.state.phase == "team_vote"
    t.forum.down = False
    t.cycle()
    assert t.export()["votes"][0]["defaulted"] == []


# --- 2. the fair share never pushes a vote past its deadline ----------------------------


def test_a_chatty_players_vote_posted_in_time_counts(db, clock, local_game):
    t = local_game(extra="deadlines: {team_vote: 1h}\n")
    t.propose()
    voters = list(t.state.waiting_for())
    chatty = voters[0]
    for n in voters[1:]:
        t.say(n, "**APPROVE**")
    for i in range(25):
        t.say(chatty, f"just chatting, message {i}")
    t.say(chatty, "**REJECT**")
    clock.advance(hours=2)
    for _ in range(3):
        t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"][chatty] == "reject" and chatty not in v["defaulted"]


def test_a_vote_after_a_waiting_deadline_is_late_not_early(db, clock, local_game):
    """A message read after a deadline that must still wait (an earlier one is held back)
    is put back and then judged after the deadline: too late, as it was."""
    t = local_game(extra="deadlines: {team_vote: 1h}\n")
    t.propose()
    voters = list(t.state.waiting_for())
    chatty, late = voters[0], voters[1]
    for i in range(25):
        t.say(chatty, f"chat {i}")
    t.say(chatty, "**APPROVE**")
    clock.advance(hours=2)
    t.say(late, "**APPROVE**")  # after the deadline
    for _ in range(3):
        t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"][chatty] == "approve" and late in v["defaulted"]


# --- 3 and 6. a locked or full database loses nothing -------------------------------------


def _bot_file(tmp_path):
    return str(tmp_path / "bot.db")


def test_a_short_write_lock_elsewhere_loses_no_pm(db, clock, tmp_path, local_game):
    t = local_game(extra="deadlines: {team_vote: 1h}\n")
    t.propose()
    t.vote_all(True)
    member = t.state.team[0]
    t.pm(member, "SUPPORT")
    held = threading.Event()

    def hold_the_lock():
        other = sqlite3.connect(_bot_file(tmp_path), timeout=5)
        other.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(0.5)
        other.rollback()
        other.close()

    mark_read = t.forum.mark_read

    def then_lock(ids):  # right after the fetch committed, before the message is handled
        mark_read(ids)
        threading.Thread(target=hold_the_lock).start()
        held.wait(5)

    t.forum.mark_read = then_lock
    t.cycle()
    t.forum.mark_read = mark_read
    row = store.Inbound.select().where(store.Inbound.kind == "pm").order_by(store.Inbound.id.desc()).first()
    assert row.state == "done", row.note
    assert member in t.state.orders


def test_a_full_disk_keeps_the_message_until_there_is_room(db, clock, local_game, caplog):
    t = local_game(extra="deadlines: {team_vote: 1h}\n")
    t.propose()
    t.vote_all(True)
    member = t.state.team[0]
    t.pm(member, "SUPPORT\n" + "x" * 30000)  # a long PM: storing its answer needs new pages
    mark_read = t.forum.mark_read

    def full():  # the disk has no room left (on every new connection too)
        count = store.db.execute_sql("PRAGMA page_count").fetchone()[0]
        store.db.execute_sql(f"PRAGMA max_page_count = {count}")

    def then_fill(ids):
        mark_read(ids)
        full()

    t.forum.mark_read = then_fill
    with caplog.at_level("ERROR", logger="forumbot"):
        t.cycle()
        t.forum.mark_read = mark_read
        for _ in range(4):  # more cycles than a failing message gets tries
            full()
            t.cycle()
    row = store.Inbound.select().where(store.Inbound.kind == "pm").order_by(store.Inbound.id.desc()).first()
    assert row.state == "new" and member not in t.state.orders
    assert sum("database" in r.getMessage() for r in caplog.records) >= 2  # an error each cycle
    store.db.execute_sql("PRAGMA max_page_count = 1073741823")
    t.cycle()
    row = store.Inbound.get_by_id(row.id)
    assert row.state == "done" and member in t.state.orders


# --- 5 and 8. markers no one can plant, and a new database adopts nothing -----------------


def test_echoed_text_never_carries_a_marker(db, clock, local_game):
    t = local_game()
    t.say("alice", "**LADY: [](#fb-0123456789abcdef)**")  # no Lady in this game: the bot echoes it
    t.cycle()
    replies = [p for p in t.people.thread(t.game.thread) if p.startswith("@alice:")]
    assert replies and all("[](#fb-" not in p for p in replies)
    t.say("bob", "**PROPOSE: [x]: https://evil.example**")
    t.cycle()
    assert all("\n[x]:" not in p for p in t.people.thread(t.game.thread))


def test_a_planted_marker_does_not_stand_for_a_real_post(db, clock, reddit):
    """Even a player who knew a future post's marker cannot make the bot post it."""
    from adapters.base import Outgoing
    from adapters.reddit_marks import marker

    t = reddit()
    t.propose()
    key = f"{t.game.tag}:99:vote-result"
    planted = marker(Outgoing(key=key, kind="comment", body="", token=markers.marker_token(key)))
    t.say("alice", f"**LADY: {planted}**")
    t.cycle()
    assert not any(planted in c["body"] for c in t.fake.comments if c["author"] == "forumbot")
    found = t.forum.find_posted(Outgoing(key=key, kind="comment", body="", token=markers.marker_token(key)))
    assert found is None


def test_markers_are_keyed_with_the_databases_secret(db, tmp_path):
    from adapters.base import Outgoing
    from adapters.reddit_marks import marker

    a = marker(Outgoing(key="G1:8:post", kind="comment", body="", token=markers.marker_token("G1:8:post")))
    assert a != marker("G1:8:post")  # the key alone does not give it
    store.close()
    store.connect(f"sqlite:///{tmp_path}/other.db")
    b = marker(Outgoing(key="G1:8:post", kind="comment", body="", token=markers.marker_token("G1:8:post")))
    assert a != b


def test_a_new_database_does_not_take_over_an_old_thread(db, bot, tmp_path, no_prawcore_sleep):
    b = bot("reddit", forum_kw=NO_WAITS)
    fake = b.fake
    old = b.table()
    old_thread = old.game.thread
    store.close()
    store.connect(f"sqlite:///{tmp_path}/restored.db")  # a lost file, a new database: keys start at G1 again
    fake.faults = [lambda m, p: (503, {"error": 503}) if p == "/api/submit" else None]
    new = b.table(start=False)
    new.start()
    new.cycle()
    assert new.game.tag == "G1"
    assert new.game.thread and new.game.thread != old_thread
    assert len(fake.submissions) == 2


# --- 7. posts keep their order -------------------------------------------------------


def test_a_rate_limited_post_holds_back_the_later_posts_of_its_thread(db, clock):
    t = flaky_table(clock)
    t.propose()
    once = {"done": False}

    def rate_limit_the_vote_result(out):
        if out.kind == "comment" and "is closed" in out.body and not once["done"]:
            once["done"] = True
            return TransientError("RATELIMIT: try again in 20 seconds", 20)
        return None

    t.forum.faults = [rate_limit_the_vote_result]
    t.vote_all(True)  # the vote closes; its result is held back for 20 s
    t.orders()  # the mission result is written meanwhile
    assert once["done"]
    assert not any("Mission 1" in p and "SUCCEEDED" in p.upper() for p in t.people.thread(t.game.thread))
    clock.advance(seconds=30)
    t.cycle()
    posts = t.people.thread(t.game.thread)
    vote = next(i for i, p in enumerate(posts) if "is closed" in p)
    mission = next(i for i, p in enumerate(posts) if "Mission 1" in p and ("SUCCEEDED" in p or "FAILED" in p))
    assert vote < mission


def test_a_failed_post_does_not_block_its_thread_for_ever(db, clock):
    t = flaky_table(clock)
    t.forum.faults = [lambda out: PermanentError("too long") if out.kind == "comment" else None]
    t.propose()
    t.vote_all(True)
    assert any("is closed" in p for p in t.people.thread(t.game.thread))


# --- 9, 10, 11. secrets -------------------------------------------------------------------


def host_says(t, text, who="host"):
    t.people.pm(who, f"{t.game.tag} host", text)
    t.cycle()
    return t.people.pms_to(who)[-1]


def test_a_spectator_cannot_be_the_newcomer_of_a_replace(db, clock, local_game):
    t = local_game(extra="spectators: [yan]\n")
    reply = host_says(t, f"REPLACE {t.game.tag} bob WITH yan")
    assert "spectator" in reply and "bob" in t.state.names and "yan" not in t.state.names
    assert not any(e["type"] == "player_replaced" for e in t.export()["events"])


def test_a_playing_host_cannot_probe_sides_with_record(db, clock):
    t = flaky_table(clock, host="alice")
    team = t.propose([n for n in NAMES[:5] if n != "alice"][:2])
    t.vote_all(True)
    answers = {}
    for n in team:
        answers[n] = host_says(t, f"RECORD {t.game.tag} {n} SABOTAGE", who="alice").replace(n, "X")
    assert len(set(answers.values())) == 1, answers
    assert not t.state.orders  # nothing was recorded
    public = thread_text(t)
    assert "recorded" not in public.lower()


def test_forward_pms_never_forwards_an_order_to_a_playing_host(db, clock):
    t = flaky_table(clock, host="alice", extra="forward_pms: true\n")
    t.propose()
    t.vote_all(True)
    member = next(n for n in t.state.team if n != "alice")
    before = len(t.people.pms_to("alice"))
    t.pm(member, "sabotage pls")
    t.cycle()
    assert not any("sabotage" in p.lower() for p in t.people.pms_to("alice")[before:])
    # An order almost written ("sabotage pls") is answered with the private "did you mean"
    # (issue 21 item 10) instead of "did not pass it on"; either way the host hears nothing.
    assert "did you mean" in t.people.pms_to(member)[-1]
    t.pm(member, "I will be late tonight")
    t.cycle()
    assert any("late tonight" in p for p in t.people.pms_to("alice")[before:])


# --- 12. several games in one thread ------------------------------------------------------


def test_a_rematch_in_a_finished_games_thread_gets_the_commands(db, clock, local_game):
    t = local_game()
    first = t.game
    host_says(t, f"ABORT {first.tag}")
    t.people.pm("host", "new game", f"title: Rematch\npreset: resistance\nplayers: [{', '.join(NAMES[:5])}]\n"
                f"seed: 3\nleader_order: listed\nthread: {first.thread}\n")
    t.cycle()
    t.cycle()
    g2 = store.Game.select().order_by(store.Game.id.desc()).first()
    assert g2.id != first.id and g2.thread == first.thread and g2.status == "running"
    t.game_id = g2.id
    t.propose()
    assert t.state.phase == "team_vote"
    assert not any("is over" in p for p in t.people.thread(first.thread)[-3:])


def test_two_running_games_in_one_thread_need_a_tag(db, clock, local_game):
    t = local_game()
    first = t.game
    t.people.pm("host", "new game", f"title: Second\npreset: resistance\nplayers: [{', '.join(NAMES[:5])}]\n"
                f"seed: 3\nleader_order: listed\nthread: {first.thread}\n")
    t.cycle()
    t.cycle()
    g2 = store.Game.select().order_by(store.Game.id.desc()).first()
    assert g2.thread == first.thread
    s2 = t.mod.state(g2)
    team = [x.name for x in s2.active()][: s2.team_size()]
    t.say(s2.leader, "**PROPOSE: " + ", ".join(team) + "**")
    t.cycle()
    assert "put the game's tag" in t.people.thread(first.thread)[-1]
    assert t.mod.state(g2).phase == "proposal" and t.state.phase == "proposal"
    t.say(s2.leader, f"**{g2.tag} PROPOSE: " + ", ".join(team) + "**")
    t.cycle()
    assert t.mod.state(g2).phase == "team_vote" and t.state.phase == "proposal"


# --- 14. after downtime, one phase at a time ---------------------------------------------


def test_after_downtime_the_deadlines_move_and_nothing_is_played_through(db, clock):
    t = flaky_table(clock, mod_kw={"outage_grace": 3600},
                    extra="deadlines: {proposal: 1h, team_vote: 1h, mission: 1h}\n")
    posts_before = len(t.people.thread(t.game.thread))
    clock.advance(days=3)  # the bot was not running
    t.cycle()
    posts = t.people.thread(t.game.thread)[posts_before:]
    assert len(posts) == 1 and "not running" in posts[0]
    from forumbot.rules.deadlines import due
    assert due(t.state) == clock() + timedelta(hours=1)
    assert t.state.phase == "proposal"
    t.cycle()
    assert len(t.people.thread(t.game.thread)) == posts_before + 1  # announced once
    for _ in range(13):  # the bot runs again: a cycle every 5 minutes
        clock.advance(minutes=5)
        t.cycle()
    assert any("did not propose" in p or "passes" in p.lower() for p in t.people.thread(t.game.thread)[posts_before + 1:])


def test_a_long_forum_outage_closes_one_phase_then_waits(db, clock):
    t = flaky_table(clock, mod_kw={"outage_grace": 3600},
                    extra="deadlines: {proposal: 1h, team_vote: 1h, mission: 1h}\n")
    t.forum.down = True
    for _ in range(72):
        clock.advance(minutes=5)
        t.cycle()  # the bot runs, the forum is down: nothing closes
    assert t.state.phase == "proposal" and t.state.mission == 1
    before = t.export()["events"]
    t.forum.down = False
    t.cycle()
    new = [e["type"] for e in t.export()["events"][len(before):]]
    assert new.count("deadline_moved") == 1
    assert len([e for e in new if e in ("proposal_missed", "leader_passed", "proposal_opened")]) <= 2


# --- 15. the host is never muted ----------------------------------------------------------


def test_the_flood_guard_never_mutes_the_host(db, clock, local_game):
    t = local_game()
    for _i in range(8):
        t.people.pm("host", f"{t.game.tag}", f"STATUS {t.game.tag}")
    t.people.pm("host", f"{t.game.tag}", f"REPLACE {t.game.tag} bob")  # mistyped
    t.cycle()
    answers = t.people.pms_to("host")
    assert sum(1 for a in answers if "missions played" in a or "Status" in a or t.game.tag in a) >= 9
    assert "REPLACE needs two names" in answers[-1]


def test_a_stranger_gets_one_pointer_a_day(db, clock, local_game):
    t = local_game()
    for i in range(3):
        t.people.pm("stranger", "hi", f"hello there {i}")
        t.cycle()
    assert len(t.people.pms_to("stranger")) == 1 and "HELP" in t.people.pms_to("stranger")[0]
    clock.advance(hours=25)
    t.people.pm("stranger", "hi", "hello again")
    t.cycle()
    assert len(t.people.pms_to("stranger")) == 2


def test_database_trouble_never_sets_a_message_aside(db, clock, local_game, monkeypatch):
    """A lock that outlasts the busy timeout (or a lost connection) is the database's fault,
    not the message's: the message stays new however often it happens, and then counts."""
    import peewee

    t = local_game(extra="deadlines: {team_vote: 1h}\n")
    t.propose()
    t.vote_all(True)
    member = t.state.team[0]
    t.pm(member, "SUPPORT")
    handle = Inbox.handle
    trouble = {"left": 5}

    def locked(self, row):
        if row.kind == "pm" and trouble["left"]:
            trouble["left"] -= 1
            raise peewee.OperationalError("database is locked")
        return handle(self, row)

    monkeypatch.setattr(Inbox, "handle", locked)
    for _ in range(5):
        t.cycle()
        row = store.Inbound.select().where(store.Inbound.kind == "pm").order_by(store.Inbound.id.desc()).first()
        assert row.state == "new" and member not in t.state.orders
    t.cycle()
    assert store.Inbound.get_by_id(row.id).state == "done" and member in t.state.orders


def test_a_message_that_keeps_failing_is_set_aside_and_the_host_told(db, clock, local_game, monkeypatch):
    t = local_game(extra="deadlines: {team_vote: 1h}\n")
    t.propose()
    t.vote_all(True)
    member = t.state.team[0]
    t.pm(member, "SUPPORT")
    handle = Inbox.handle

    def buggy(self, row):
        if row.kind == "pm":
            raise KeyError("a bug")
        return handle(self, row)

    monkeypatch.setattr(Inbox, "handle", buggy)
    t.cycle()
    row = store.Inbound.select().where(store.Inbound.kind == "pm").order_by(store.Inbound.id.desc()).first()
    assert row.state == "new" and row.tries == 1  # tried again next cycle
    t.cycle()
    t.cycle()
    assert store.Inbound.get_by_id(row.id).state == "error"
    assert any("could not handle" in p and member in p for p in t.people.pms_to("host"))


def test_no_reminder_in_the_cycle_that_opens_its_phase(db, clock):
    """17d: a phase opened late (its vote closed when the forum could be read again) is not
    reminded in the same cycle, even when its reminder time has passed."""
    t = flaky_table(clock, extra="deadlines: {team_vote: 1h, mission: 1h, remind_before: 30m}\n")
    t.propose()
    t.vote_all(True, skip=[t.state.waiting_for()[0]])
    t.forum.down = True
    for _ in range(21):  # 1h45m, the bot running, the forum down
        clock.advance(minutes=5)
        t.cycle()
    assert t.state.phase == "team_vote"
    before = len(t.export()["events"])
    t.forum.down = False
    t.cycle()
    new = [e["type"] for e in t.export()["events"][before:]]
    assert "mission_opened" in new and "reminders_sent" not in new
    t.cycle()
    assert "reminders_sent" in [e["type"] for e in t.export()["events"][before:]]


def test_a_post_found_again_has_the_url_a_fresh_post_has(clock):
    """An opening post whose answer was lost is found by its key; the host's "your game is
    running" PM must still get the thread's link (found in the property test)."""
    from adapters.base import Outgoing

    forum = LocalForum(":memory:", clock=clock)
    for kind, extra in (("thread", {"title": "T"}), ("comment", {"thread": "t1"})):
        out = Outgoing(key=f"k-{kind}", kind=kind, body="x", **extra)
        posted = forum.post(out)
        assert forum.find_posted(out) == posted


def test_a_config_with_very_many_problems_gets_a_bounded_answer(db, bot, clock):
    """A forum refuses over-long posts (Reddit 10,000 characters, Discourse 32,000)."""
    t = bot("local").table(start=False)
    forum = t.forum
    aliases = ", ".join(f"x{i}: nobody{i}" for i in range(60))
    forum.send_pm("host", "forumbot", "new game", f"title: T\npreset: resistance\nplayers: [a, b, c, d, e]\n"
                  f"aliases: {{{aliases}}}\n")
    t.cycle()
    answer = forum.messages_to("host")[-1]["body"]
    assert "No game was created" in answer and "more" in answer and len(answer) < 10000


def test_an_outbox_item_from_before_the_secret_keeps_its_unkeyed_marker(db, tmp_path):
    """A database of a version without the secret: its items may have gone out with the
    unkeyed marker, so they keep it (the look-up after an uncertain failure finds them);
    every item made after the upgrade is keyed."""
    from datetime import datetime, timezone

    from adapters.base import Outgoing
    from adapters.reddit_marks import marker

    now = datetime(2026, 11, 29, 20, 0, tzinfo=timezone.utc)
    url = f"sqlite:///{tmp_path}/old.db"
    store.close()
    store.connect(url)
    for key in ("G1:1:opening", "G1:2:post"):
        store.enqueue(Outgoing(key=key, kind="comment", body="x", thread="t"), None, now, 1)
    store.Info.delete().execute()  # what the old version's database looked like
    store.close()
    store.connect(url)  # the upgrade: the secret is made now
    store.enqueue(Outgoing(key="G1:3:post", kind="comment", body="x", thread="t"), None, now, 1)
    old, older, new = (store.Outbox.get(store.Outbox.key == k) for k in ("G1:2:post", "G1:1:opening", "G1:3:post"))
    assert markers.item_token(old) == markers.item_token(older) == ""
    assert marker(Outgoing(key=old.key, kind="comment", body="", token=markers.item_token(old))) == marker(old.key)
    assert markers.item_token(new) == markers.marker_token(new.key) != ""
    store.close()
    store.connect(url)  # and it stays so, connection after connection
    assert markers.item_token(old) == "" and markers.item_token(new) == markers.marker_token(new.key)
