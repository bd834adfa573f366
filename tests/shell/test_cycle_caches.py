"""What a cycle keeps between cycles (issue 26 items 4 and 5): the games' rows, their
states, the command comments the edit re-check watches, and each game's copy of when its
phase opened (so that a restarted bot rebuilds no game it does not need). The replay of
the log stays the truth: the copy is compared with it, and the caches are read again when
another bot worked on the database."""
import json
import logging

import pytest

import forumbot.shell.games as games_module
from forumbot import store
from forumbot.rules import replay
from tests.fakes.table import edit_notices


class Statements(logging.Handler):
    """The SQL statements peewee sends (its query log), as text."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.sql: list[str] = []

    def emit(self, record):
        self.sql.append(str(record.msg[0] if isinstance(record.msg, tuple) else record.msg))

    def __enter__(self):
        self.logger = logging.getLogger("peewee")
        self.level = self.logger.level
        self.logger.addHandler(self)
        self.logger.setLevel(logging.DEBUG)
        return self

    def __exit__(self, *exc):
        self.logger.removeHandler(self)
        self.logger.setLevel(self.level)

    def reading(self, table: str) -> list[str]:
        return [s for s in self.sql if s.startswith("SELECT") and f'FROM "{table}"' in s]


def _replays(monkeypatch) -> list[int]:
    """The games replayed from their log from now on (by id)."""
    seen: list[int] = []
    real = games_module.replay

    def counted(config, seed, events):
        seen.append(seed)
        return real(config, seed, events)

    monkeypatch.setattr(games_module, "replay", counted)
    return seen


def _copy_is_the_logs(game_id: int) -> None:
    game = store.Game.get_by_id(game_id)
    truth = replay(game.game_config(), game.seed, store.game_events(game)).phase_opened_at
    assert truth is not None and game.phase_opened is not None
    assert store.aware(game.phase_opened) == truth


def test_each_games_copy_of_its_phase_opening_is_its_logs(local_game, clock):
    """Through proposals, votes, missions, a rejected team and a deadline that closes,
    the row's copy is what replaying the log says after every cycle."""
    t = local_game()
    _copy_is_the_logs(t.game_id)
    t.propose()
    _copy_is_the_logs(t.game_id)
    t.vote_all(False)  # rejected: a new proposal
    _copy_is_the_logs(t.game_id)
    t.mission()
    _copy_is_the_logs(t.game_id)
    t.propose()
    clock.advance(days=3)  # the vote's deadline passes: it closes with the votes missing
    t.cycle()
    t.cycle()
    assert t.state.phase_id > 4
    _copy_is_the_logs(t.game_id)
    while t.state.running:
        t.mission()
        _copy_is_the_logs(t.game_id)


def test_a_restarted_bot_rebuilds_no_game_for_a_quiet_cycle_and_still_sees_an_edit(local_game, monkeypatch):
    t = local_game()
    t.propose()
    t.say("bob", "**APPROVE**")
    t.cycle()
    replays = _replays(monkeypatch)
    t.cycle(fresh=True)  # a new process, nothing new on the forum
    assert replays == []
    cid = f"c{t.forum.thread_comments(t.game.thread)[-1]['id']}"
    t.forum.edit_comment(cid, "**REJECT**")
    t.cycle(fresh=True)
    assert edit_notices(t) == ["bob"]  # (the answer may rebuild the game it answers about)
    assert t.state.votes["bob"] == "approve"


def test_a_wrong_copy_is_put_right_when_the_game_is_rebuilt(local_game, caplog):
    """The copy only saves a replay: when the state is rebuilt anyway, the log wins (and an
    edit in the open phase is still noticed, one from a closed phase still not)."""
    t = local_game()
    t.propose()
    t.say("bob", "**APPROVE**")
    t.cycle()
    truth = store.Game.get_by_id(t.game_id).phase_opened
    store.Game.update(phase_opened=store.naive(store.aware(truth).replace(year=2020))).execute()
    t.cycle(fresh=True)
    assert t.state.phase == "team_vote"  # (rebuilt)
    assert "was not its log's" in caplog.text
    _copy_is_the_logs(t.game_id)


def test_an_old_database_without_the_copy_fills_it_once(local_game, monkeypatch):
    t = local_game()
    t.propose()
    t.say("bob", "**APPROVE**")
    t.cycle()
    store.Game.update(phase_opened=None).execute()
    replays = _replays(monkeypatch)
    t.cycle(fresh=True)
    assert len(replays) == 1  # the edit re-check needs it: rebuilt once, and the copy kept
    _copy_is_the_logs(t.game_id)
    t.cycle(fresh=True)
    assert len(replays) == 1


def test_a_quiet_cycle_reads_neither_the_games_nor_the_comments_again(local_game):
    t = local_game()
    t.propose()
    t.say("bob", "**APPROVE**")
    t.say("carol", "**APPROVE**")
    t.cycle()
    t.cycle()
    with Statements() as q:
        t.cycle()
    assert q.reading("game") == []
    assert [s for s in q.reading("inbound") if "JOIN" in s] == []  # only the inbox's new ones
    cid = f"c{t.forum.thread_comments(t.game.thread)[-1]['id']}"
    t.forum.edit_comment(cid, "**REJECT**")
    t.cycle()
    assert edit_notices(t) == ["carol"]


def test_the_comments_watched_follow_the_phase_without_reading_them_again(local_game, clock):
    """A comment of a closed phase is no longer watched (its edit is no news), one of the
    new phase is, with the running bot's caches alone."""
    t = local_game()
    team = t.propose()
    t.cycle()
    leader = t.state.shown(t.state.leader)
    proposal = f"c{[c for c in t.forum.thread_comments(t.game.thread) if c['author'] == leader][-1]['id']}"
    clock.advance(minutes=1)
    t.vote_all(True)  # the vote closes: the mission opens
    assert t.state.phase == "mission"
    t.forum.edit_comment(proposal, f"**PROPOSE: {', '.join(reversed(team))}**")
    t.cycle()
    t.cycle()
    assert edit_notices(t) == []
    clock.advance(minutes=1)
    t.orders()
    clock.advance(minutes=1)
    t.propose()
    t.say("dave", "**APPROVE**")
    t.cycle()
    cid = f"c{t.forum.thread_comments(t.game.thread)[-1]['id']}"
    t.forum.edit_comment(cid, "**REJECT**")
    t.cycle()
    assert edit_notices(t) == ["dave"]


def test_another_bot_on_the_database_makes_the_first_read_everything_again(db, bot):
    """Two moderators on one database, taking turns (a bot restarted while the old one's
    objects live on): each sees what the other did, and nothing is done twice."""
    b = bot("local")
    t = b.table(5)
    first = t.mod
    t.propose()
    second = b.moderator()
    t.mod = second
    t.say("bob", "**APPROVE**")
    t.cycle()
    t.mod = first  # the first bot again: its cached state lacks bob's vote
    t.say("carol", "**APPROVE**")
    t.cycle()
    assert first.state(t.game).votes == {"bob": "approve", "carol": "approve"}
    assert t.mod.book.get(t.game_id).phase_opened == store.Game.get_by_id(t.game_id).phase_opened
    t.mod = second
    t.say("dave", "**REJECT**")
    t.cycle()
    assert second.state(t.game).votes == {"bob": "approve", "carol": "approve", "dave": "reject"}
    assert store.Event.select().where(store.Event.type == "vote_cast").count() == 3


def test_votes_in_one_batch_and_a_restart_on_either_database(any_db, bot, clock):
    """The statements written out (the events appended, the batch marked done) on SQLite
    and PostgreSQL alike: several votes in one batch count, each message keeps its game and
    its count of commands, and a restarted bot still watches them for edits."""
    t = bot("local").table(5)
    t.propose()
    clock.advance(minutes=1)
    t.say("bob", "**APPROVE**")
    t.say("carol", "**REJECT**")
    t.say("dave", "hello **APPROVE** and **STATUS**")
    t.cycle()
    assert t.state.votes == {"bob": "approve", "carol": "reject", "dave": "approve"}
    rows = {r.author: (r.state, r.game, r.commands) for r in store.Inbound.select().where(
        store.Inbound.author.in_(["bob", "carol", "dave"]))}
    assert rows == {n: ("done", t.game_id, 1) for n in ("bob", "carol", "dave")}
    assert [e.type for e in store.game_events(t.game)][-3:] == ["vote_cast"] * 3
    _copy_is_the_logs(t.game_id)
    cid = f"c{[c for c in t.forum.thread_comments(t.game.thread) if c['author'] == 'carol'][-1]['id']}"
    t.forum.edit_comment(cid, "**APPROVE**")
    t.cycle(fresh=True)
    assert edit_notices(t) == ["carol"] and t.state.votes["carol"] == "reject"


def test_a_game_whose_thread_comes_later_is_found_in_it_as_the_row_the_bot_keeps(db, bot, clock):
    """A second game is made in the cycle that routes a comment of the first (the live
    games by thread are indexed then, before its thread exists): once its thread is out,
    its comments find it, and what they change is what the bot keeps of it."""
    from tests.fakes.table import Table, config_text

    b = bot("local")
    first = b.table(5)
    b.people.pm("host2", "new game", config_text(["ann", "ben", "cat", "dan", "eve"], seed=3))
    clock.advance(seconds=1)
    first.say("bob", "**STATUS**")  # routed after the new game is made
    first.cycle()
    second = Table(b.forum, b.people, clock, players=["ann", "ben", "cat", "dan", "eve"])
    second.mod = first.mod  # the same bot
    second.game_id = store.Game.select().order_by(store.Game.id.desc()).first().id
    first.cycle()
    assert second.game.thread
    clock.advance(minutes=1)
    second.propose()
    second.vote_all(True)
    assert second.state.phase == "mission"
    kept, stored = first.mod.book.get(second.game_id), store.Game.get_by_id(second.game_id)
    assert (kept.next_deadline, kept.phase_opened) == (stored.next_deadline, stored.phase_opened)
    assert kept in first.mod.book.running()


@pytest.mark.parametrize("old_log", [False, True])
def test_a_restarted_bot_knows_who_plays_from_the_log_without_replaying_a_game(local_game, monkeypatch, old_log):
    """Who plays (whom the bot answers whatever they write) comes from each game's config and
    its log's replacements, read in one statement: the names the replayed state has, and no
    game rebuilt for it (also for a log from before seats had ids, renamed by value)."""
    t = local_game()
    t.propose()
    t.people.pm("host", "host", f"REPLACE {t.game.tag} alice WITH zed")
    t.cycle()
    assert "zed" in t.state.names and "alice" not in t.state.names
    if old_log:
        row = store.Event.get((store.Event.game == t.game_id) & (store.Event.type == "player_replaced"))
        data = json.loads(row.data)
        data.pop("keeps_id", None)
        store.Event.update(data=json.dumps(data)).where(store.Event.id == row.id).execute()
    game = store.Game.get_by_id(t.game_id)
    truth = replay(game.game_config(), game.seed, store.game_events(game)).names
    t.cycle(fresh=True)
    mod = t.mod
    mod.book.clear()
    replays = _replays(monkeypatch)
    assert mod.book.seated({game.id: game.game_config().players}) == {game.id: truth}
    mod.people.forget()
    assert mod.people.known("zed") and mod.people.known("bob") and not mod.people.known("alice")
    assert replays == []


def _watched_truth(t) -> list[str]:
    """The command comments the replayed log says are watched (those since its phase opened,
    not noted), in the order of the inbox."""
    game = store.Game.get_by_id(t.game_id)
    opened = replay(game.game_config(), game.seed, store.game_events(game)).phase_opened_at
    return [r.ext_id for r in store.Inbound.select().where(
        (store.Inbound.game == t.game_id) & (store.Inbound.kind == "comment") & (store.Inbound.commands > 0)
        & (store.Inbound.note == "")).order_by(store.Inbound.id) if store.aware(r.created) >= opened]


def _rechecks(t, monkeypatch, cycles: int, limit: int, whole: bool = False) -> list[list[str]]:
    """The comments a restarted bot re-checks in each of its first `cycles` (`whole`: as it
    did when its first look read every comment watched)."""
    from forumbot.shell.watched import Watched

    asked: list[list[str]] = []
    recheck = t.forum.recheck
    monkeypatch.setattr(t.forum, "recheck", lambda ids: asked.append(list(ids)) or recheck(ids))
    if whole:
        ids = Watched.ids
        monkeypatch.setattr(Watched, "ids", lambda self, games, first=None: ids(self, games))
    t.mod = t._make()
    t.mod.recheck_limit = limit
    for _ in range(cycles):
        t.cycle()
    monkeypatch.undo()
    return asked


def test_a_restarts_first_recheck_reads_only_its_batch_and_the_next_go_round_them_all(local_game, monkeypatch, clock):
    """A restarted bot re-checks one batch from the start in its first cycle: it reads those
    comments (and one more, to know there are more), not every one watched; the next cycles
    read them all and take their turns through them. What they go round is what the replayed
    log says is watched."""
    t = local_game()
    t.propose()
    clock.advance(minutes=1)
    for name in ("bob", "carol", "dave"):
        t.say(name, "**APPROVE**")
    t.cycle()
    truth = _watched_truth(t)
    assert len(truth) == 4  # the proposal and three votes
    t.mod = t._make()
    t.mod.recheck_limit = 2
    with Statements() as q:
        t.cycle()
    assert [s for s in q.reading("inbound") if "JOIN" in s and "LIMIT" in s]
    assert len(t.mod.ingest.watched._rows) == 3
    assert _rechecks(t, monkeypatch, 3, 2) == [truth[:2], truth[2:], truth[:2]]
    assert sorted(t.mod.ingest.watched.ids({t.game_id: t.mod.book.get(t.game_id)})) == sorted(
        store.Inbound.get(store.Inbound.ext_id == e).id for e in truth)


@pytest.mark.parametrize("wrong_copy", [False, True])
def test_a_restarts_rechecks_are_those_of_a_first_look_at_every_comment(local_game, monkeypatch, clock, wrong_copy):
    """The batches a restarted bot re-checks are the same whether its first look reads only
    the first of them or every one; also when the row's copy of its phase's opening is wrong
    (older: comments of a closed phase pass the store's filter)."""
    t = local_game()
    t.propose()
    clock.advance(minutes=1)
    t.vote_all(False)  # rejected: the next leader proposes
    clock.advance(minutes=1)
    t.propose()
    clock.advance(minutes=1)
    for name in ("bob", "carol", "dave"):
        t.say(name, "**APPROVE**")
    t.cycle()
    if wrong_copy:
        store.Game.update(phase_opened=store.naive(store.aware(t.game.phase_opened).replace(year=2020))).execute()
    whole = _rechecks(t, monkeypatch, 4, 2, whole=True)
    if wrong_copy:
        store.Game.update(phase_opened=store.naive(store.aware(t.game.phase_opened).replace(year=2020))).execute()
    assert _rechecks(t, monkeypatch, 4, 2) == whole
    if not wrong_copy:  # (a wrong copy is trusted until the game is rebuilt)
        assert [e for batch in whole for e in batch] == _watched_truth(t) * 2


def test_a_first_look_at_the_first_few_reads_them_all_when_one_of_them_does_not_pass(local_game, clock):
    """The store's filter reads the row's copy of when the phase opened; the watch, a state at
    hand when there is one. When they disagree (a copy older than the state), the first few
    the store gives are not the first of those watched: then all of them are read."""
    t = local_game()
    t.propose()
    clock.advance(minutes=1)
    t.vote_all(False)  # rejected: the next leader proposes
    clock.advance(minutes=1)
    t.propose()
    clock.advance(minutes=1)
    for name in ("bob", "carol", "dave"):
        t.say(name, "**APPROVE**")
    t.cycle()
    truth = [store.Inbound.get(store.Inbound.ext_id == e).id for e in _watched_truth(t)]
    games = {g.id: g for g in t.mod.book.running()}
    t.mod.state(t.game)  # at hand, with its phase's opening
    store.Game.update(phase_opened=store.naive(store.aware(t.game.phase_opened).replace(year=2020))).execute()
    games[t.game_id].phase_opened = store.Game.get_by_id(t.game_id).phase_opened
    watched = t.mod.ingest.watched
    watched.forget()
    assert watched.ids(games, 2) == truth
