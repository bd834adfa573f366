"""Sign-ups: `players: signup`, JOIN and LEAVE in the thread, the start at a full table or at
the deadline, the host asked when too few have joined, and who may not join (a deleted
author, a spectator)."""
from datetime import timedelta

import pytest

from forumbot import store
from forumbot.archive.export import export_game
from forumbot.gameconfig import parse_config
from forumbot.shell.signups import joined

CONFIG = ("preset: resistance\nleader_order: listed\nplayers: signup\nmin_players: 5\n"
          "max_players: {max}\ndeadlines: {{signup: 2d}}\n")


@pytest.fixture
def signup(db, bot, clock):
    b = bot("local")
    forum, people = b.forum, b.people
    mod = b.moderator()

    def make(max_players=7):
        people.pm("host", "new game", CONFIG.format(max=max_players))
        mod.cycle()
        mod.cycle()
        game = store.Game.select().order_by(store.Game.id.desc()).first()
        return game, forum, people, mod
    return make


def join(forum, mod, game, *names, word="JOIN"):
    for n in names:
        forum.comment(n, game.thread, f"**{word}**")
    mod.cycle()
    return store.Game.get_by_id(game.id)


def test_the_table_fills_and_the_game_starts_in_join_order(signup):
    game, forum, people, mod = signup(max_players=6)
    assert game.status == "signup" and "Sign-ups for" in people.pms_to("host")[-1]
    top = forum.threads()[0]["body"]
    assert "comment **JOIN**" in top and "0 joined" in top
    game = join(forum, mod, game, "zoe", "yan", "xu", "wes", "vic")
    assert game.status == "signup"
    assert "5 joined" in forum.threads()[0]["body"] and "zoe, yan, xu, wes, vic" in forum.threads()[0]["body"]
    assert "You have joined" in people.pms_to("zoe")[-1]
    game = join(forum, mod, game, "uma")  # the sixth: full
    assert game.status == "running"
    e = export_game(game)
    assert [p["name"] for p in e["players"]] == ["zoe", "yan", "xu", "wes", "vic", "uma"]
    assert all(any("Your role" in pm for pm in people.pms_to(n)) for n in ("zoe", "uma"))
    # the game is on: the status block at the top of the thread follows it
    assert "The leader, zoe, proposes" in forum.threads()[0]["body"]
    join(forum, mod, game, "tom")  # too late: nothing changes
    assert [p["name"] for p in export_game(game)["players"]][-1] == "uma"


def test_the_deadline_starts_a_table_with_enough_players(signup, clock):
    game, forum, people, mod = signup()
    game = join(forum, mod, game, "zoe", "yan", "xu", "wes", "vic")
    clock.advance(days=2, seconds=1)
    mod.cycle()
    game = store.Game.get_by_id(game.id)
    assert game.status == "running" and len(export_game(game)["players"]) == 5
    started = export_game(game)["events"][0]
    assert started["at"] == (store.aware(game.created_at) + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_too_few_at_the_deadline_asks_the_host(signup, clock):
    game, forum, people, mod = signup()
    game = join(forum, mod, game, "zoe", "yan", "xu")
    clock.advance(days=2, seconds=1)
    mod.cycle()
    game = store.Game.get_by_id(game.id)
    assert game.status == "signup"
    ask = people.pms_to("host")[-1]
    assert "3 of the 5" in ask and f"EXTEND {game.tag}" in ask and f"ABORT {game.tag}" in ask
    mod.cycle()
    assert people.pms_to("host")[-1] == ask  # asked once
    people.pm("host", game.tag, f"EXTEND {game.tag} 1d")
    mod.cycle()
    game = join(forum, mod, game, "wes", "vic")
    assert game.status == "signup"
    clock.advance(days=1, seconds=1)
    mod.cycle()
    assert store.Game.get_by_id(game.id).status == "running"


def test_abort_during_sign_ups(signup):
    game, forum, people, mod = signup()
    join(forum, mod, game, "zoe")
    people.pm("zoe", game.tag, f"ABORT {game.tag}")  # not the host
    mod.cycle()
    assert store.Game.get_by_id(game.id).status == "signup"
    people.pm("host", game.tag, f"ABORT {game.tag}")
    mod.cycle()
    assert store.Game.get_by_id(game.id).status == "aborted"
    assert "called off" in people.thread(game.thread)[-1]


def test_leave_before_the_start(signup):
    game, forum, people, mod = signup(max_players=5)
    join(forum, mod, game, "zoe", "yan", "xu", "wes")
    join(forum, mod, game, "yan", word="LEAVE")
    assert "You have left" in people.pms_to("yan")[-1]
    join(forum, mod, game, "bob", word="LEAVE")
    assert "had not joined" in people.pms_to("bob")[-1]
    join(forum, mod, game, "zoe")
    assert "already" in people.pms_to("zoe")[-1]
    game = join(forum, mod, game, "vic")
    assert game.status == "signup"  # four: yan left
    game = join(forum, mod, game, "uma")
    assert game.status == "running"
    assert [p["name"] for p in export_game(game)["players"]] == ["zoe", "xu", "wes", "vic", "uma"]
    forum.comment("zoe", game.thread, "**PROPOSE: zoe, xu**")
    mod.cycle()
    assert mod.state(game).team == ("zoe", "xu")


def test_other_commands_during_sign_ups_are_answered(signup):
    game, forum, people, mod = signup()
    forum.comment("zoe", game.thread, "**APPROVE**")
    mod.cycle()
    assert "has not started" in people.pms_to("zoe")[-1]


@pytest.mark.parametrize("text, key", [
    ("preset: resistance\nplayers: signup\nmin_players: 3\n", "min_players"),
    ("preset: resistance\nplayers: signup\nmin_players: 8\nmax_players: 6\n", "min_players"),
    ("preset: resistance\nplayers: [a1, b1, c1, d1, e1]\nmax_players: 6\n", "max_players"),
    ("preset: avalon-2020\nplayers: signup\nmax_players: 9\n", "max_players"),
    ("preset: avalon\nplayers: signup\nmin_players: 5\nroles: [morgana, mordred]\n", "roles"),
    ("preset: resistance\nplayers: signup\naliases: {al: alice}\n", "aliases"),
])
def test_bad_sign_up_configs(text, key):
    cfg, problems = parse_config(text, "host")
    assert cfg is None and key in [p.key for p in problems]


def test_a_sign_up_config_takes_the_preset_limits():
    cfg, problems = parse_config("preset: avalon-2020\nplayers: signup\n", "host")
    assert not problems and cfg.signup and (cfg.min_players, cfg.max_players) == (8, 8)


def test_signups_close_from_the_host(signup):
    game, forum, people, mod = signup()
    join(forum, mod, game, "zoe", "yan", "xu")
    people.pm("zoe", game.tag, f"SIGNUPS {game.tag} CLOSE")  # not the host
    mod.cycle()
    assert "Only the host" in people.pms_to("zoe")[-1]
    people.pm("host", game.tag, f"SIGNUPS {game.tag} CLOSE")  # too few: the host is asked
    mod.cycle()
    assert store.Game.get_by_id(game.id).status == "signup"
    assert "3 of the 5" in "\n".join(people.pms_to("host"))
    join(forum, mod, game, "wes", "vic")
    people.pm("host", game.tag, f"SIGNUPS {game.tag} CLOSE")
    mod.cycle()
    game = store.Game.get_by_id(game.id)
    assert game.status == "running" and len(export_game(game)["players"]) == 5
    people.pm("host", game.tag, f"SIGNUPS {game.tag} CLOSE")
    mod.cycle()
    assert "sign-ups are over" in people.pms_to("host")[-1]


def test_signups_in_their_own_thread_then_a_new_game_thread(db, bot, clock):
    b = bot("local")
    forum, people = b.forum, b.people
    mod = b.moderator()
    lobby = forum.create_thread("host", "Game 62 sign-ups", "Who is in?")
    clock.advance(minutes=1)
    people.pm("host", "new game", CONFIG.format(max=5) + f"signup_thread: {lobby}\n")
    mod.cycle()
    mod.cycle()
    game = store.Game.select().first()
    assert game.thread == lobby and "comment **JOIN**" in people.thread(lobby)[0]
    game = join(forum, mod, game, "zoe", "yan", "xu", "wes", "vic")
    mod.cycle()
    game = store.Game.get_by_id(game.id)
    assert game.status == "running" and game.thread != lobby
    new = [t for t in forum.threads() if f"t{t['id']}" == game.thread][0]
    assert "Status of" in new["body"] and "The leader, zoe, proposes" in new["body"]
    forum.comment("zoe", game.thread, "**PROPOSE: zoe, yan**")
    mod.cycle()
    assert mod.state(game).team == ("zoe", "yan")
    assert "Still to vote" in [t for t in forum.threads() if f"t{t['id']}" == game.thread][0]["body"]


# --- who may sign up ------------------------------------------------------------------------

SIGNUP_WITH = ("preset: resistance\nleader_order: listed\nplayers: signup\nmin_players: 5\n"
          "max_players: 7\ndeadlines: {{signup: 2d}}\n{extra}")


@pytest.fixture
def signup_with(db, bot, clock):
    """A sign-up table of 5 to 7 with `extra` config lines."""
    b = bot("local")
    forum, people = b.forum, b.people
    mod = b.moderator()

    def make(extra=""):
        people.pm("host", "new game", SIGNUP_WITH.format(extra=extra))
        mod.cycle()
        mod.cycle()
        game = store.Game.select().order_by(store.Game.id.desc()).first()
        assert game.status == "signup"
        return game, forum, people, mod
    return make


def test_a_deleted_author_gets_no_seat_and_no_reply(signup_with):
    game, forum, people, mod = signup_with()
    before = store.Outbox.select().count()
    forum.comment("[deleted]", game.thread, "**JOIN**")
    forum.comment("[Deleted]", game.thread, "**JOIN**")
    mod.cycle()
    assert joined(store.Game.get_by_id(game.id)) == []
    assert not people.pms_to("[deleted]") and not people.pms_to("[Deleted]")
    assert not [b for b in people.thread(game.thread) if "deleted" in b.lower()]
    replies = store.Outbox.select().where(store.Outbox.key.startswith("re:"))
    assert replies.count() == 0 and store.Outbox.select().count() == before
    forum.comment("zoe", game.thread, "**JOIN**")  # a real author still joins
    mod.cycle()
    assert joined(store.Game.get_by_id(game.id)) == ["zoe"]


def test_a_spectator_cannot_join_and_a_reserve_can(signup_with):
    game, forum, people, mod = signup_with(extra="spectators: [Sam]\nreserves: [yan]\n")
    forum.comment("sam", game.thread, "**JOIN**")
    forum.comment("yan", game.thread, "**JOIN**")
    mod.cycle()
    assert joined(store.Game.get_by_id(game.id)) == ["yan"]
    refusal = people.pms_to("sam")[-1]
    assert "spectator" in refusal and "cannot play" in refusal
