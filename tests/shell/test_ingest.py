"""Issue 22 ("tests with teeth"): the inbox loop, through whole cycles. Each test here was
seen to fail with a mutant of forumbot/shell/ingest.py: a message the database (or a bug)
refused that no longer holds the deadline it could concern, later messages handled before
an earlier one the database refused, a flood's excess that no longer holds the deadline."""
from __future__ import annotations

import time

import peewee

from adapters.base import PermanentError
from forumbot import store
from forumbot.cpubudget import CpuBudget
from forumbot.limits import PER_AUTHOR_PER_CYCLE
from forumbot.render import ops
from forumbot.render import replies as words
from forumbot.render.markup import BBCode
from forumbot.render.words import with_footer
from forumbot.shell.inbox import Inbox
from tests.fakes.forums import Bbforum, pms
from tests.fakes.table import LocalPeople, Table, config_text
from tests.support.ingest import VOTE, plant_bug


def _refuse(monkeypatch, when):
    """The database refuses the handling of the messages `when(row)` picks (a lock: not
    the message's fault), while `on["on"]`."""
    handle = Inbox.handle
    on = {"on": True, "refused": 0}

    def locked(self, row):
        if on["on"] and when(row):
            on["refused"] += 1
            raise peewee.OperationalError("database is locked")
        return handle(self, row)

    monkeypatch.setattr(Inbox, "handle", locked)
    return on


def test_a_changed_vote_stands_when_the_database_refused_the_first_one(local_game, clock, monkeypatch):
    """alice approves, then changes her mind and rejects. The database refuses her first
    comment in that cycle: her second waits behind it, so that the next cycle handles them
    in the order she wrote them, and the vote counts her REJECT."""
    t = local_game(extra=VOTE)
    t.propose()
    on = _refuse(monkeypatch, lambda row: row.author == "alice" and "APPROVE" in row.body)
    t.say("alice", "**APPROVE**")
    clock.advance(seconds=5)
    t.say("alice", "I changed my mind: **REJECT**")
    t.cycle()
    assert on["refused"] >= 1
    on["on"] = False
    clock.advance(seconds=30)
    t.cycle()
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    clock.advance(minutes=61)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "reject", v
    assert v["defaulted"] == []


def test_a_vote_the_database_refused_before_the_deadline_still_counts(local_game, clock, monkeypatch):
    """alice votes a minute before the deadline; the bot reads it after the deadline, and
    the database refuses its handling in that cycle. The deadline waits for it: the next
    cycle counts her vote instead of defaulting it."""
    t = local_game(extra=VOTE)
    t.propose()
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=59)
    on = _refuse(monkeypatch, lambda row: row.author == "alice")
    t.say("alice", "**APPROVE**")
    clock.advance(minutes=2)
    t.cycle()
    assert on["refused"] >= 1
    assert t.state.phase == "team_vote", "the deadline closed without a vote cast in time"
    on["on"] = False
    clock.advance(seconds=30)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "approve" and v["defaulted"] == [] and v["approved"] is True


def test_a_vote_behind_a_senders_flood_still_counts_at_the_deadline(local_game, clock):
    """A player's many comments in one cycle: the bot handles PER_AUTHOR_PER_CYCLE of them
    and leaves the rest for the next cycles. Her vote, the last of them and written before
    the deadline, holds the deadline until its turn comes: it counts."""
    t = local_game(extra=VOTE)
    t.propose()
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=55)
    for i in range(PER_AUTHOR_PER_CYCLE):
        t.say("alice", f"thinking out loud, part {i}")
    t.say("alice", "**APPROVE**")
    clock.advance(minutes=6)
    t.cycle()
    assert t.state.phase == "team_vote", "the deadline closed before her vote's turn came"
    clock.advance(seconds=30)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "approve" and v["defaulted"] == [], v


def test_a_bug_on_a_vote_before_the_deadline_holds_it_one_cycle_only(local_game, clock, monkeypatch):
    """A vote whose handling raises (a bug, not the database): the deadline waits one cycle
    for its retry, then closes without it; the message is not tried a third time."""
    t = local_game(extra=VOTE)
    t.propose()
    handle = Inbox.handle
    tried = []

    def buggy(self, row):
        if row.author == "alice":
            tried.append(row.ext_id)
            raise KeyError("a bug")
        return handle(self, row)

    monkeypatch.setattr(Inbox, "handle", buggy)
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=59)
    t.say("alice", "**APPROVE**")  # (alone in its cycle: no batch to fall back from)
    clock.advance(minutes=2)
    t.cycle()
    assert t.state.phase == "team_vote"  # held for the retry
    for _ in range(4):
        clock.advance(seconds=30)
        t.cycle()
    assert len(tried) == 2
    v = t.export()["votes"][0]
    assert v["defaulted"] == ["alice"] and v["approved"] is True
    (row,) = store.Inbound.select().where((store.Inbound.author == "alice") & (store.Inbound.kind == "comment")
                                          & store.Inbound.body.contains("APPROVE"))
    assert row.state == "error"


def test_a_pm_vote_changed_by_a_later_comment_counts_the_comment(local_game, clock):
    """alice votes by PM, then changes her mind in the thread; the bot reads both in one
    cycle (the forum lists the thread's comments before the inbox). They are handled in
    the order she wrote them: her REJECT stands."""
    t = local_game(extra=VOTE)
    t.propose()
    t.pm("alice", "APPROVE")
    clock.advance(seconds=20)
    t.say("alice", "on second thought, **REJECT**")
    for n in ("bob", "carol", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=61)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["alice"] == "reject", v


def test_a_hosts_message_set_aside_tells_the_host_once(local_game, clock, monkeypatch):
    """The host's own command raises (a bug) until it is set aside: the host hears of it
    once, not once as the host and again as its sender."""
    t = local_game()
    handle = Inbox.handle

    def buggy(self, row):
        if row.author == "host" and "EXTEND" in row.body:
            raise KeyError("a bug")
        return handle(self, row)

    monkeypatch.setattr(Inbox, "handle", buggy)
    before = len(t.people.pms_to("host"))
    t.pm("host", f"EXTEND {t.game.tag} 6h")
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    (row,) = store.Inbound.select().where(store.Inbound.body.contains("EXTEND"))
    assert row.state == "error"
    told = t.people.pms_to("host")[before:]
    assert len(told) == 1 and "could not handle a PM from host" in told[0], told


# --- who is told of a message set aside, or of a thread that cannot be read (wave 2) -------------

def _bb(clock) -> tuple[Table, Bbforum]:
    forum = Bbforum(clock)
    return Table(forum, LocalPeople(forum), clock), forum


def test_a_vote_set_aside_tells_its_host_and_its_sender_once_and_edits_are_still_noticed(db, clock, monkeypatch):
    """alice's vote raises (a bug), twice: after the first try it waits with the error noted
    for the operator; after the second it is set aside. The host is told once, in the
    forum's markup, whose message of when; alice once, by PM, that it changed nothing and
    whom to ask. (The host is told even when the forum has few requests left.) Everyone else's messages are untouched by it: bob, who edits his vote
    after, is still told (once) that an edit changes nothing."""
    t, forum = _bb(clock)
    t.start(extra=VOTE)
    t.propose()
    bug = KeyError("a bug " + "x" * 600)
    plant_bug(monkeypatch, lambda row: row.author == "alice", bug)
    t.say("bob", "**APPROVE**")
    clock.advance(seconds=10)
    sent = clock()
    t.say("alice", "**APPROVE**")
    assert t.cycle().handled == 2  # (what the operator reads: both counted, the failed one too)
    (row,) = store.Inbound.select().where((store.Inbound.author == "alice") & store.Inbound.body.contains("APPROVE"))
    assert (row.state, row.tries, row.note) == ("new", 1, repr(bug)[:500])
    (bobs_row,) = store.Inbound.select().where(store.Inbound.author == "bob")
    assert (bobs_row.state, bobs_row.note) == ("done", "")  # handled alone after the batch failed
    hosts_before = pms(forum, "host")
    forum.left = 5  # few requests left: the host is told all the same
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    row = store.Inbound.get_by_id(row.id)
    assert (row.state, row.tries, row.note) == ("error", 2, repr(bug)[:500])
    assert pms(forum, "host")[len(hosts_before):] == [
        ("G1: a message I could not handle", ops.set_aside("G1", "alice", "comment", sent, BBCode()))]
    assert "[font=monospace]RECORD G1 alice ...[/font]" in pms(forum, "host")[-1][1]
    forum.left = None  # (the answer to alice waits for more requests)
    clock.advance(seconds=30)
    t.cycle()
    told = [(s, b) for s, b in pms(forum, "alice") if "set it aside" in b]
    assert told == [("G1: re: your message", with_footer(ops.not_handled("comment", sent, "G1", "host"), "G1"))]
    assert "please write to the host of G1, host, who can enter it for you" in told[0][1]
    (bobs,) = [c for c in forum.thread_comments(t.game.thread) if c["author"] == "bob"]
    forum.edit_comment(f"c{bobs['id']}", "**REJECT**")
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    edits = [p for p in t.people.thread(t.game.thread) if "Editing a comment" in p]
    assert len(edits) == 1 and edits[0].startswith("@bob: "), edits


def test_a_strangers_pm_set_aside_is_answered_once_a_day_and_staff_mail_never(db, clock, monkeypatch):
    """PMs from someone in no game, and from the forum's staff, raise (a bug) until they are
    set aside. The stranger learns once that the message changed nothing (a second such
    message the same day gets no second answer); the staff mail gets no answer; no host is
    told of messages that name no game."""
    t, forum = _bb(clock)
    t.start()
    plant_bug(monkeypatch, lambda row: row.author in ("zed", "admin"), KeyError("a bug"))
    hosts_before = pms(forum, "host")
    sent = clock()
    t.people.pm("zed", "hello", "what is this?")
    t.people.pm("admin", "notice", "a note from the staff")
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    t.people.pm("zed", "hello again", "anyone?")
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    assert [r.state for r in store.Inbound.select().where(store.Inbound.author.in_(["zed", "admin"]))] == ["error"] * 3
    assert pms(forum, "zed") == [("re: your message", ops.not_handled("pm", sent, None, None))]
    assert "please write to the host of your game" in pms(forum, "zed")[0][1]
    assert pms(forum, "admin") == []
    assert pms(forum, "host") == hosts_before


def test_a_thread_that_cannot_be_read_for_ten_minutes_is_told_to_its_host_once(db, clock):
    """Two games run; G2's thread cannot be read (403). After UNREADABLE_NOTICE its host is
    told, once for the spell, at once even with few requests left: which game, and why. G1's
    host hears nothing of it."""
    t, forum = _bb(clock)
    t.start()
    others = ["frank", "gina", "hank", "ivan", "judy"]
    t.people.pm("host2", "new game", config_text(others))
    t.cycle()
    g2 = store.Game.select().order_by(store.Game.id.desc()).first()
    assert g2.tag == "G2"
    assert g2.thread is not None
    forum.left = 5
    franks = pms(forum, "frank")
    t.people.pm("frank", "G2", "STATUS")  # its answer waits for more requests; the notice does not
    t.cycle()
    forum.unreadable = {g2.thread}
    before = {h: pms(forum, h) for h in ("host", "host2")}
    for _ in range(19):  # 9.5 minutes: not yet
        clock.advance(seconds=30)
        t.cycle()
    assert pms(forum, "host2") == before["host2"]
    for _ in range(10):
        clock.advance(seconds=30)
        t.cycle()
    assert pms(forum, "host2")[len(before["host2"]):] == [
        ("G2: I cannot read the game thread", ops.thread_unreadable("G2", "403 Forbidden"))]
    assert pms(forum, "host") == before["host"]
    assert pms(forum, "frank") == franks  # (the answer to frank still waits)


def _burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_messages_over_their_cpu_budget_are_set_aside_at_once_and_run_once(db, clock, monkeypatch):
    """bob's vote and carol's message that takes too much CPU are read in one cycle (one
    transaction): carol's is set aside at once, run once (not again on its own), noted for
    the operator; bob's vote counts. Then erin's vote and dave's message that raises (a bug)
    twice, then takes too much CPU: dave's is tried again next cycle (a bug is not an
    overrun), then set aside with its one failed try counted. The host is told of each even
    with few requests left, and each sender answered."""
    t, forum = _bb(clock)
    t.start(extra=VOTE)
    t.propose()
    t.mod.ingest.cpu = CpuBudget(0.05)
    handle = Inbox.handle
    runs: dict[str, int] = {}

    def slow(self, row):
        if "#slow" in row.body:
            runs[row.author] = runs.get(row.author, 0) + 1
            if row.author == "dave" and runs["dave"] <= 2:
                raise KeyError("a bug")
            _burn(5)
        return handle(self, row)

    monkeypatch.setattr(Inbox, "handle", slow)
    forum.left = 5

    def row(author):
        return store.Inbound.get((store.Inbound.author == author) & store.Inbound.body.contains("#slow"))

    t.say("bob", "**APPROVE**")
    t.say("carol", "thinking #slow")
    assert t.cycle().handled == 2
    assert (row("carol").state, row("carol").tries, row("carol").note) == ("error", 0, "over its CPU budget")
    assert runs == {"carol": 1}
    clock.advance(seconds=30)
    t.say("erin", "**APPROVE**")
    t.say("dave", "thinking too #slow")
    assert t.cycle().handled == 2
    assert (row("dave").state, row("dave").tries) == ("new", 1)
    assert runs == {"carol": 1, "dave": 2}
    clock.advance(seconds=30)
    assert t.cycle().handled == 1
    assert (row("dave").state, row("dave").tries, row("dave").note) == ("error", 1, "over its CPU budget")
    assert runs == {"carol": 1, "dave": 3}
    told = [(s, b.split(" sent ")[0]) for s, b in pms(forum, "host") if "set it" in b]
    assert told == [("G1: a message I could not handle", "G1: I could not handle a comment from carol"),
                    ("G1: a message I could not handle", "G1: I could not handle a comment from dave")]
    forum.left = None  # (the answers to the senders wait for more requests)
    for n in ("alice", "carol", "dave"):
        t.say(n, "**APPROVE**")
    clock.advance(seconds=30)
    t.cycle()
    for n in ("carol", "dave"):
        assert [s for s, b in pms(forum, n) if "set it aside" in b] == ["G1: re: your message"], n
    clock.advance(minutes=61)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["bob"] == v["votes"]["erin"] == "approve" and v["defaulted"] == [], v


def _two_games(clock) -> tuple[Table, Bbforum]:
    """G1 (host "host": alice to erin) and G2 (host "host2": alice, frank to ivan)."""
    t, forum = _bb(clock)
    t.start()
    t.people.pm("host2", "new game", config_text(["alice", "frank", "gina", "hank", "ivan"]))
    t.cycle()
    t.cycle()
    assert [g.tag for g in store.Game.select().where(store.Game.status == "running")] == ["G1", "G2"]
    return t, forum


def test_a_message_set_aside_is_told_to_the_host_of_its_own_game_only(db, clock, monkeypatch):
    """alice plays in G1 and G2. Her comment in G1's thread, her PM with G2 in its subject,
    her PM with G1 in its text, and her PM that names no game all raise (a bug) until they are set aside: the comment is
    told to G1's host, each PM to the host of the game it names, the one naming no game to both; she is
    answered each time, with the game's host to ask where there is one game."""
    t, forum = _two_games(clock)
    plant_bug(monkeypatch, lambda row: "#bug" in row.body, KeyError("a bug"))
    before = {h: len(pms(forum, h)) for h in ("host", "host2")}
    t.say("alice", "hmm #bug")
    t.people.pm("alice", "G2", "a question #bug")
    t.people.pm("alice", "hello", "about G1: a question #bug")
    t.people.pm("alice", "hi", "and another #bug")
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    assert [r.state for r in store.Inbound.select().where(store.Inbound.body.contains("#bug"))] == ["error"] * 4
    h1 = [b.split(" sent ")[0] for s, b in pms(forum, "host")[before["host"]:]]
    h2 = [b.split(" sent ")[0] for s, b in pms(forum, "host2")[before["host2"]:]]
    assert h1 == ["G1: I could not handle a comment from alice", "G1: I could not handle a PM from alice",
                  "G1: I could not handle a PM from alice"], h1
    assert h2 == ["G2: I could not handle a PM from alice", "G2: I could not handle a PM from alice"], h2
    answers = [(s, b.split(", so I set")[0][:24], b.split("If it held a command, ")[1].split("\n")[0])
               for s, b in pms(forum, "alice") if "set it aside" in b]
    assert answers == [
        ("G1: re: your message", "I could not handle your ", "please write to the host of G1, host, who can enter it for you."),
        ("G2: re: your message", "I could not handle your ", "please write to the host of G2, host2, who can enter it for you."),
        ("G1: re: your message", "I could not handle your ", "please write to the host of G1, host, who can enter it for you."),
        ("re: your message", "I could not handle your ", "please write to the host of your game."),
    ], answers


def test_comments_handled_together_keep_their_game_and_commands_for_the_edit_check(local_game, clock):
    """bob's vote, carol's chat and dave's vote are read in one cycle (handled in one
    transaction): each is done, and each keeps what it was: when bob and carol edit theirs,
    bob (whose comment held a command) is told once that the edit changes nothing; carol's
    chat needs no such word. The votes stand as first written."""
    t = local_game(extra=VOTE)
    t.propose()
    t.say("bob", "**APPROVE**")
    t.say("carol", "nice team")
    t.say("dave", "**REJECT**")
    t.cycle()
    rows = list(store.Inbound.select().where(store.Inbound.author.in_(["bob", "carol", "dave"]))
                .order_by(store.Inbound.id))
    assert [(r.author, r.state, r.game, r.commands > 0) for r in rows] == [
        ("bob", "done", t.game.id, True), ("carol", "done", t.game.id, False), ("dave", "done", t.game.id, True)]
    comments = {c["author"]: c["id"] for c in t.forum.thread_comments(t.game.thread)}
    t.forum.edit_comment(f"c{comments['bob']}", "**REJECT**")
    t.forum.edit_comment(f"c{comments['carol']}", "**REJECT** (a joke)")
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    edits = [p for p in t.people.thread(t.game.thread) if "Editing a comment" in p]
    assert len(edits) == 1 and edits[0].startswith("@bob: "), edits
    assert t.state.votes == {"bob": "approve", "dave": "reject"}


def test_comments_handled_together_are_handled_once(local_game, clock):
    """The leader's proposal, a vote and a chat are read in one cycle (one transaction):
    each is handled once, and the thread reads one proposal, not a second "changes the
    proposal" or a refusal; the cycle's report counts three messages handled."""
    t = local_game(extra=VOTE)

    def bots() -> list[str]:
        return [c["body"] for c in t.forum.thread_comments(t.game.thread) if c["author"] == t.forum.bot_name]

    before = len(bots())
    pms_before = {n: len(t.people.pms_to(n)) for n in t.players}
    t.say("alice", "**PROPOSE: alice, bob**")
    t.say("carol", "good luck")
    t.say("bob", "**APPROVE**")
    report = t.cycle()
    assert report.handled == 3
    new = bots()[before:]
    assert len(new) == 1 and new[0].startswith("alice proposes **alice, bob** for mission 1."), new
    assert t.state.votes == {"bob": "approve"}
    assert {n: len(t.people.pms_to(n)) for n in t.players} == pms_before


def test_comments_of_two_games_handled_together_keep_their_own_game(db, clock):
    """bob's command in G1's thread and frank's in G2's are read in one cycle (handled in
    one transaction). Each edits his comment: each is told, once, in his own game's thread
    and under his own game's tag, that the edit changes nothing."""
    t, forum = _two_games(clock)
    (g2,) = [g for g in store.Game.select() if g.tag == "G2"]
    t.say("bob", "**APPROVE**")
    t.people.comment("frank", g2.thread, "**APPROVE**")
    t.cycle()
    rows = {r.author: r for r in store.Inbound.select().where(store.Inbound.author.in_(["bob", "frank"])
                                                               & (store.Inbound.kind == "comment"))}
    assert {n: (r.state, r.game) for n, r in rows.items()} == {"bob": ("done", t.game.id), "frank": ("done", g2.id)}
    forum.edit_comment(rows["bob"].ext_id, "**REJECT**")
    forum.edit_comment(rows["frank"].ext_id, "**REJECT**")
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    for thread, who in ((t.game.thread, "bob"), (g2.thread, "frank")):
        edits = [p for p in t.people.thread(thread) if "Editing a comment" in p]
        assert len(edits) == 1 and who in edits[0].split(":")[0], (thread, edits)


def test_votes_in_a_batch_the_database_refused_count_in_the_same_cycle_once_it_answers(local_game, clock, monkeypatch):
    """bob's and carol's votes are read in one cycle (one transaction). While carol's is
    handled the connection starts refusing every write (SQLite's READONLY, as a broken
    connection does until it is replaced): the batch is rolled back, the bot opens a fresh
    connection, and both votes are handled, each once, in that same cycle."""
    t = local_game(extra=VOTE)
    t.propose()
    handle = Inbox.handle
    broke = []

    def breaking(self, row):
        if row.author == "carol" and not broke:
            broke.append(row.ext_id)
            store.db.execute_sql("PRAGMA query_only = 1")  # this connection writes no more
        return handle(self, row)

    monkeypatch.setattr(Inbox, "handle", breaking)
    t.say("bob", "**APPROVE**")
    t.say("carol", "**REJECT**")
    report = t.cycle()
    assert broke
    assert report.handled == 2
    assert t.state.votes == {"bob": "approve", "carol": "reject"}
    rows = store.Inbound.select().where(store.Inbound.author.in_(["bob", "carol"]) & (store.Inbound.kind == "comment"))
    assert sorted((r.author, r.state, r.tries) for r in rows) == [("bob", "done", 0), ("carol", "done", 0)]


def test_votes_of_a_batch_the_database_lost_hold_the_deadline_until_it_is_back(local_game, clock, monkeypatch, tmp_path):
    """bob's and carol's votes, written a minute before the deadline, are read after it, in
    one cycle (one transaction). While carol's is handled the connection refuses every
    write and the database is out of reach (no new connection opens); it is back once the
    inbox loop has given up, before the deadlines are looked at. Nothing was handled, and
    the deadline waits: the next cycle counts both votes instead of defaulting them."""
    from forumbot.shell.ingest import Ingest

    t = local_game(extra=VOTE)
    t.propose()
    for n in ("alice", "dave", "erin"):
        t.say(n, "**APPROVE**")
    t.cycle()
    clock.advance(minutes=59)
    handle, inbox = Inbox.handle, Ingest.process_inbox
    away = tmp_path.with_name(tmp_path.name + "-away")
    broke = []

    def breaking(self, row):
        if row.author == "carol" and not broke:
            broke.append(row.ext_id)
            store.db.execute_sql("PRAGMA query_only = 1")  # this connection writes no more
            tmp_path.rename(away)  # and no new one opens
        return handle(self, row)

    def back(self):
        try:
            return inbox(self)
        finally:
            if away.exists():
                away.rename(tmp_path)

    monkeypatch.setattr(Inbox, "handle", breaking)
    monkeypatch.setattr(Ingest, "process_inbox", back)
    t.say("bob", "**APPROVE**")
    t.say("carol", "**REJECT**")
    clock.advance(minutes=2)
    report = t.cycle()
    assert broke and not away.exists()
    assert t.state.phase == "team_vote", "the deadline closed without two votes cast in time"
    assert report.handled == 0
    clock.advance(seconds=30)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["votes"]["bob"] == "approve" and v["votes"]["carol"] == "reject" and v["defaulted"] == [], v


def test_a_message_set_aside_while_the_database_fails_is_still_told_to_its_host_once(db, clock, monkeypatch):
    """alice's vote raises (a bug) until it is set aside; just as its host is being told,
    the connection refuses every write (SQLite's READONLY, as a broken connection does until
    it is replaced). Nothing of it is kept: the next cycle sets it aside again, and its host
    and alice are told, once each."""
    t, forum = _bb(clock)
    t.start(extra=VOTE)
    t.propose()
    plant_bug(monkeypatch, lambda row: row.author == "alice", KeyError("a bug"))
    told = ops.set_aside
    broke = []

    def breaking(*args):
        if not broke:
            broke.append(args)
            store.db.execute_sql("PRAGMA query_only = 1")  # this connection writes no more
        return told(*args)

    monkeypatch.setattr(ops, "set_aside", breaking)
    hosts_before = pms(forum, "host")
    t.say("alice", "**APPROVE**")
    for _ in range(4):
        clock.advance(seconds=30)
        t.cycle()
    assert broke
    (row,) = store.Inbound.select().where((store.Inbound.author == "alice") & store.Inbound.body.contains("APPROVE"))
    assert row.state == "error"
    assert [s for s, b in pms(forum, "host")[len(hosts_before):]] == ["G1: a message I could not handle"]
    assert [s for s, b in pms(forum, "alice") if "set it aside" in b] == ["G1: re: your message"]


class Refusingforum(Bbforum):
    """Bbforum that refuses for good the posts `refuse(out)` picks (a reply to a comment
    deleted meanwhile, a thread locked)."""

    def __init__(self, clock):
        super().__init__(clock)
        self.refuse = lambda out: False

    def post(self, out):
        if self.refuse(out):
            raise PermanentError("that comment was deleted")
        return super().post(out)


def test_an_edit_notice_the_forum_refuses_is_told_to_the_games_host(db, clock):
    """bob edits his vote; the bot's notice that an edit changes nothing is a post of the
    game, and the forum refuses it for good: the game's host is told once that a post in
    the game thread could not be delivered, and why (as for any other post of the game)."""
    forum = Refusingforum(clock)
    t = Table(forum, LocalPeople(forum), clock)
    t.start(extra=VOTE)
    t.propose()
    t.say("bob", "**APPROVE**")
    t.cycle()
    forum.refuse = lambda out: out.kind == "comment" and "Editing a comment" in out.body
    before = len(pms(forum, "host"))
    (bobs,) = [c for c in forum.thread_comments(t.game.thread) if c["author"] == "bob"]
    forum.edit_comment(f"c{bobs['id']}", "**REJECT**")
    for _ in range(3):
        clock.advance(seconds=30)
        t.cycle()
    assert not [p for p in t.people.thread(t.game.thread) if "Editing a comment" in p]
    assert pms(forum, "host")[before:] == [
        ("G1: a message could not be delivered", words.undelivered("G1", "comment", None, "that comment was deleted"))]
