"""The shell's parts (issues 13 and 14): a batch of messages in one transaction that falls
back to one a message, the game book's rollback, the store's batched writes, the few
statements a vote costs, and the shell's words in the forum's markup."""
from __future__ import annotations

import logging
from datetime import datetime, timezone

import pytest

from adapters.base import Inbound as ForumInbound
from forumbot import store
from forumbot.render import render_refusal
from forumbot.render import replies as words
from forumbot.render import signups as signup_words
from forumbot.render.markup import BBCode
from forumbot.rules.commands import Refusal
from forumbot.shell.inbox import Inbox
from forumbot.shell.moderator import Moderator

AT = datetime(2026, 1, 1, tzinfo=timezone.utc)


class Statements(logging.Handler):
    """Counts peewee's query log."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.n = 0

    def emit(self, record):
        self.n += 1

    def __enter__(self):
        self.logger = logging.getLogger("peewee")
        self.level = self.logger.level
        self.logger.addHandler(self)
        self.logger.setLevel(logging.DEBUG)
        return self

    def __exit__(self, *exc):
        self.logger.removeHandler(self)
        self.logger.setLevel(self.level)


def test_a_bug_in_one_message_of_a_batch_leaves_the_others_handled(local_game, monkeypatch):
    """Many votes in one cycle go in one transaction; one that raises rolls the batch back,
    and every message is handled again in its own: the others count, that one waits."""
    t = local_game()
    team = t.propose()
    waiting = list(t.state.waiting_for())
    buggy = waiting[0]
    handle = Inbox.handle

    def sometimes(self, row):
        if row.author == buggy:
            raise KeyError("a bug")
        return handle(self, row)

    monkeypatch.setattr(Inbox, "handle", sometimes)
    for n in waiting:
        t.say(n, "**APPROVE**")
    t.cycle()
    state = t.state
    assert state.team == tuple(team)
    assert set(state.votes) == set(waiting) - {buggy}
    row = store.Inbound.get((store.Inbound.author == buggy) & (store.Inbound.kind == "comment")
                            & (store.Inbound.body == "**APPROVE**"))
    assert row.state == "new" and row.tries == 1
    done = store.Inbound.select().where((store.Inbound.state == "done") & (store.Inbound.body == "**APPROVE**"))
    assert {r.author for r in done} == set(waiting) - {buggy}
    assert all(r.commands == 1 and r.game == t.game_id for r in done)  # as the batch wrote them
    monkeypatch.setattr(Inbox, "handle", handle)
    t.cycle()
    assert buggy in t.state.votes or t.state.phase != "team_vote"


def test_the_votes_of_a_batch_are_marked_done_with_their_game(local_game):
    t = local_game()
    t.propose()
    for n in list(t.state.waiting_for())[:3]:
        t.say(n, "**APPROVE**")
    t.cycle()
    rows = list(store.Inbound.select().where(store.Inbound.body == "**APPROVE**"))
    assert len(rows) == 3
    assert all(r.state == "done" and r.game == t.game_id and r.commands == 1 for r in rows)


def test_a_rolled_back_unit_leaves_the_cached_game_as_the_store_has_it(local_game):
    t = local_game()
    book = t.mod.book
    game = book.running()[0]
    before = book.state(game)
    with pytest.raises(RuntimeError):
        with book.unit():
            from forumbot.rules.commands import HostAbort

            assert isinstance(book.apply(game, HostAbort(at=t.clock(), author="host")), list)
            assert game.status == "aborted"
            raise RuntimeError("then something fails")
    assert game.status == "running" and [g.id for g in book.running()] == [game.id]
    assert book.state(game).running and book.state(game) is not before  # read again from the log
    assert store.Event.select().where(store.Event.game == game.id).count() == len(store.game_events(game))


def test_a_status_edit_goes_back_to_pending_only_when_its_block_changed(db):
    g = store.Game.create(forum="x", host="h", preset="resistance", config="{}", seed=1,
                          created_at=store.naive(AT))
    key = f"{g.tag}:status-block"
    store.set_status_edits([(g.id, key, "one")], AT)
    store.Outbox.update(state="posted").execute()
    store.set_status_edits([(g.id, key, "one")], AT)
    assert store.Outbox.get(store.Outbox.key == key).state == "posted"
    store.set_status_edits([(g.id, key, "two")], AT)
    row = store.Outbox.get(store.Outbox.key == key)
    assert (row.state, row.body) == ("pending", "two")


def test_cursors_write_only_what_changed_and_the_inbox_ignores_a_message_seen(db):
    store.set_cursor("x", {"a": 1, "b": 2})
    with Statements() as q:
        store.set_cursor("x", {"a": 1, "b": 2}, before={"a": 1, "b": 2})
    assert q.n == 0
    store.set_cursor("x", {"a": 1, "b": 3, "c": 4}, before={"a": 1, "b": 2})
    assert store.get_cursor("x") == {"a": 1, "b": 3, "c": 4}
    m = ForumInbound(id="c1", kind="comment", author="ann", body="**APPROVE**", created=AT, thread="t")
    store.store_inbound("x", [m, m])
    store.store_inbound("x", [m])
    assert store.Inbound.select().count() == 1


def test_events_append_after_the_seq_given_and_refuse_a_wrong_one(db):
    g = store.Game.create(forum="x", host="h", preset="resistance", config="{}", seed=1,
                          created_at=store.naive(AT))
    from forumbot.rules.events import RawEvent as Event

    assert store.append_events(g, [Event("a", AT, {}), Event("b", AT, {})]) == 1
    assert store.append_events(g, [Event("c", AT, {})], 3) == 3
    with pytest.raises(store.IntegrityError):
        with store.db.atomic():
            store.append_events(g, [Event("d", AT, {})], 2)  # a stale guess fails, never forks
    assert [e.type for e in store.game_events(g)] == ["a", "b", "c"]


def test_a_vote_costs_a_few_statements(local_game):
    """Issue 14: a few SQL statements for each vote (bench/cycle.py --votes measures it at
    G=1000); here three votes in one game, with the cycle's own reads."""
    t = local_game()
    t.propose()
    t.cycle()
    voters = list(t.state.waiting_for())
    t.say(voters[0], "**APPROVE**")
    t.say(voters[1], "**APPROVE**")
    t.say(voters[2], "**APPROVE**")
    with Statements() as q:
        t.cycle()
    assert set(voters[:3]) <= set(t.state.votes)
    # 16 today: 3 event inserts, the inbox marked done in one update, one status block and
    # its edit, and the cycle's own reads and bookmarks (one statement a vote before: 45)
    assert q.n <= 20


def test_the_shells_words_are_in_the_forums_markup():
    m = BBCode()
    for text in (words.no_command(m), render_refusal(Refusal(words.several_games(["G1", "G2"])), None, m),
                 words.pause_form("G1", "UTC", m),
                 words.extend_form("G1", "6h", m), words.record_needs("G1", m), words.replace_needs("G1", m),
                 words.config_problems([("preset", "unknown")], 20, m), words.signups_open_note("G1", "x", m),
                 signup_words.not_started("G1", m), signup_words.welcome("G1", 1, 5, m),
                 signup_words.too_few("G1", 1, 5, m), signup_words.close_form("G1", m)):
        assert "**" not in text and "`" not in text, text
    assert "[b]JOIN[/b]" in signup_words.not_started("G1", m)
    assert words.no_command() == ("I found no command in your message. PM me HELP for the commands, "
                                  "or `new game` as the subject to start a game.")


def test_a_bbcode_forum_gets_its_markup_in_a_hosts_reply(db, clock):
    from adapters.base import Markup
    from adapters.local import LocalForum
    from tests.table import NAMES, LocalPeople, Table

    forum = LocalForum(":memory:", clock=clock)
    forum.markup = Markup.BBCODE
    t = Table(forum, LocalPeople(forum), clock, players=NAMES[:5]).start()
    t.pm("host", f"EXTEND {t.game.tag} soon")
    t.cycle()
    reply = [b for b in t.people.pms_to("host") if "EXTEND needs a duration" in b][-1]
    assert "[font=monospace]EXTEND G1 6h[/font]" in reply and "`" not in reply


def test_a_bbcode_forum_gets_its_markup_in_help_refusals_and_the_pointer(db, clock):
    """Every answer the shell writes takes the forum's markup: HELP (to a player and to a
    stranger), a player's refusal, the pointer to HELP. None shows Markdown's asterisks."""
    from adapters.base import Markup
    from adapters.local import LocalForum
    from tests.table import NAMES, LocalPeople, Table

    forum = LocalForum(":memory:", clock=clock)
    forum.markup = Markup.BBCODE
    t = Table(forum, LocalPeople(forum), clock, players=NAMES[:5]).start()
    player = next(p for p in t.players if p != t.state.leader)
    t.pm(player, f"HELP {t.game.tag}")
    t.pm("stranger", "HELP")
    t.say(player, f"**PROPOSE: {player}, {t.players[0]}**")  # not the leader: refused
    t.cycle()
    clock.advance(days=2)
    t.pm("someone", "hello there, what is this?")
    t.cycle()
    texts = t.people.pms_to(player) + t.people.pms_to("stranger") + t.people.pms_to("someone")
    texts += [b for b in t.people.thread(t.game.thread) if b.startswith(f"u/{player}:")]
    assert len(texts) >= 4, texts
    assert not [x for x in texts if "**" in x], [x for x in texts if "**" in x]
    assert any("[b]" in x for x in t.people.pms_to("stranger")), t.people.pms_to("stranger")


def test_a_forum_that_takes_no_edits_gets_no_status_edits(db, clock):
    """Traits.edits: where the bot may not edit its posts, it never tries; the game goes on."""
    from dataclasses import replace

    from adapters.local import LocalForum
    from tests.table import NAMES, LocalPeople, Table

    forum = LocalForum(":memory:", clock=clock)
    forum.traits = replace(forum.traits, edits=False)
    t = Table(forum, LocalPeople(forum), clock, players=NAMES[:5]).start()
    t.propose()
    t.vote_all(True)
    t.cycle()
    assert t.state.phase == "mission"
    assert not store.Outbox.select().where(store.Outbox.kind == "edit").exists()


def test_a_forum_where_the_bot_opens_no_threads_needs_the_configs_thread(db, clock):
    """Traits.new_threads: a config without `thread:` is refused with the reason, and changes
    nothing; with an existing thread named, the game starts there."""
    from dataclasses import replace

    from adapters.local import LocalForum
    from tests.table import NAMES, LocalPeople

    forum = LocalForum(":memory:", clock=clock)
    forum.traits = replace(forum.traits, new_threads=False)
    people = LocalPeople(forum)
    players = "players: [" + ", ".join(NAMES[:5]) + "]\n"
    people.pm("host", "new game", "preset: resistance\n" + players)
    mod = Moderator(forum, clock=clock)
    mod.cycle()
    assert store.Game.select().count() == 0
    assert "does not let the bot open a thread" in people.pms_to("host")[-1]
    tid = forum.create_thread("host", "Our game", "The host's own thread for the game.")
    people.pm("host", "new game", f"preset: resistance\nthread: {tid}\n" + players)
    mod.cycle()
    game = store.Game.get()
    assert game.thread == tid and not forum.threads()[1:]  # no thread of the bot's own
