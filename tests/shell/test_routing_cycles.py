"""Routing with teeth (issue 22): which game a comment or a PM is for, through whole cycles
on the local forum: a finished game's "is over" (STATUS and HELP exempt), a PM naming two
of its sender's games, a replaced player whose username differs in case, a spectator's."""
import pytest

from forumbot import store
from tests.fakes.table import NAMES


def host_says(t, text, who="host"):
    t.people.pm(who, f"{t.game.tag} host", text)
    t.cycle()
    return t.people.pms_to(who)[-1]


def rematch(t, title="Rematch"):
    """A second game in the first one's thread; `t` plays it from now on."""
    t.people.pm("host", "new game", f"title: {title}\npreset: resistance\nplayers: [{', '.join(NAMES[:5])}]\n"
                f"seed: 3\nleader_order: listed\nthread: {t.game.thread}\n")
    t.cycle()
    t.cycle()
    g2 = store.Game.select().order_by(store.Game.id.desc()).first()
    assert g2.thread == t.game.thread and g2.status == "running"
    t.game_id = g2.id
    return g2


def over_after_abort(t, comments):
    """The host ABORTs by PM and, in the same read, players comment in the thread after it:
    what each of them was answered (PMs and replies in the thread) about it."""
    pms = {who: len(t.people.pms_to(who)) for who, _ in comments}
    posts = len(t.people.thread(t.game.thread))
    t.people.pm("host", f"{t.game.tag} host", f"ABORT {t.game.tag}")
    for who, body in comments:
        t.clock.advance(seconds=1)
        t.say(who, body)
    t.cycle()
    t.cycle()
    assert t.game.status == "aborted"
    thread = t.people.thread(t.game.thread)[posts:]
    return {who: t.people.pms_to(who)[pms[who]:] for who, _ in comments}, thread


def test_a_command_after_the_end_hears_the_game_is_over_but_status_and_help_do_not(local_game):
    t = local_game()
    tag = t.game.tag
    events = len(t.export()["events"])
    said, thread = over_after_abort(t, [("bob", "**APPROVE**"), ("carol", "**STATUS**"), ("dave", "**HELP**"),
                                        ("erin", "**STATUS**\n\n**REJECT**")])
    assert len(said["bob"]) == 1 and said["bob"][0].startswith(f"{tag} is over: it takes no commands.")
    assert [p for p in said["erin"] if "is over" in p]  # any command but STATUS and HELP: refused
    assert not [p for p in said["carol"] + said["dave"] if "is over" in p]
    assert not [p for p in thread if "is over" in p]  # (the answer is private)
    assert len(t.export()["events"]) == events + 1  # the end, and nothing after it


def test_game_over_names_the_threads_newest_game(local_game):
    t = local_game()
    first = t.game.tag
    host_says(t, f"ABORT {first}")
    g2 = rematch(t)
    said, _ = over_after_abort(t, [("bob", "**APPROVE**")])
    assert [p for p in said["bob"] if f"{g2.tag} is over" in p]
    assert not [p for p in said["bob"] if f"{first} is over" in p]


@pytest.fixture
def two_games(db, bot):
    """alice plays G1 and G2, both at their team vote."""
    b = bot("local")
    t1 = b.table(["alice", "bob", "carol", "dave", "erin"], host="host1")
    t2 = b.table(["zed", "yan", "xu", "wes", "alice"], host="host2")
    t2.mod = t1.mod = b.moderator()
    t1.propose(["alice", "bob"])
    t2.propose(["zed", "alice"])
    assert t1.state.phase == t2.state.phase == "team_vote"
    return t1, t2


@pytest.mark.parametrize("subject, body", [("vote", "G1 G2 APPROVE"), ("G2 vote", "G1 APPROVE"),
                                           ("G1 G2", "APPROVE")])
def test_a_pm_naming_two_of_the_senders_games_is_refused(two_games, subject, body):
    t1, t2 = two_games
    assert (t1.game.tag, t2.game.tag) == ("G1", "G2")
    t1.people.pm("alice", subject, body)
    t1.cycle()
    assert t1.state.votes == {} and t2.state.votes == {}  # neither game took it
    answer = t1.people.pms_to("alice")[-1]
    assert "G1" in answer and "G2" in answer and "Nothing was changed" in answer
    assert "not in a running game" not in answer  # she is in both: she is asked to name one
    t1.people.pm("alice", "vote", "G2 APPROVE")  # one tag: that game
    t1.cycle()
    assert t2.state.votes == {"alice": "approve"} and t1.state.votes == {}


@pytest.mark.parametrize("typed", ["ALICE", "Alice"])
def test_a_replaced_player_hears_the_seat_was_taken_whatever_the_case(local_game, typed):
    t = local_game()
    tag = t.game.tag
    assert "REPLACE done" in host_says(t, f"REPLACE {tag} alice WITH zed")
    t.propose(["bob", "carol"])
    assert t.state.phase == "team_vote"
    events = t.export()["events"]
    taken = f"You no longer play in {tag}: zed took your seat. Nothing was changed."
    t.pm(typed, "APPROVE", subject="my vote")  # no tag: she is in no running game now
    t.cycle()
    assert taken in t.people.pms_to(typed)[-1]
    t.pm(typed, "REJECT")  # tagged
    t.cycle()
    assert taken in t.people.pms_to(typed)[-1]
    t.say(typed, "**APPROVE**")  # in the thread
    t.cycle()
    assert taken in t.people.pms_to(typed)[-1]
    assert t.export()["events"] == events


def test_a_spectator_is_routed_whatever_the_case(local_game):
    t = local_game(extra="spectators: [Sam]\n")
    t.people.pm("sam", "status please", "STATUS")
    t.cycle()
    answer = t.people.pms_to("sam")[-1]
    assert t.game.tag in answer and "not in a running game" not in answer


def test_a_replaced_player_tagging_another_game_hears_of_that_one(two_games):
    """bob left G1 (zed took his seat) and tags G2, which he never played: he hears he is
    not in G2, not about G1."""
    t1, t2 = two_games
    assert "REPLACE done" in host_says(t1, "REPLACE G1 bob WITH newbie", who="host1")
    t1.people.pm("bob", "vote", "G2 APPROVE")
    t1.cycle()
    assert t1.people.pms_to("bob")[-1] == "You are not in a running game tagged G2."
    assert t2.state.votes == {} and t1.state.votes == {}


# --- intake: what a typed command means ----------------------------------------------------


def test_a_public_naming_no_one_proposes_nothing(local_game):
    t = local_game()
    events = t.export()["events"]
    t.say("alice", "**PROPOSE: alice, bob; PUBLIC: zed**")
    t.cycle()
    assert "'zed' is not a player" in t.people.thread(t.game.thread)[-1]  # (not a team without its PUBLIC)
    assert t.state.phase == "proposal" and t.export()["events"] == events


def test_an_assassination_of_no_one_is_refused_as_such(db, bot, clock):
    t = bot("local").table(5, preset="avalon", extra="plot_cards: false\n")
    for _ in range(3):
        t.mission()
    s = t.state
    assert s.phase == "assassination"
    assassin = s.shown(s.actors[0])
    events = t.export()["events"]
    t.say(assassin, "**ASSASSINATE: nobody**")
    t.cycle()
    assert "'nobody' is not a player" in t.people.thread(t.game.thread)[-1]  # (never a shot at someone else)
    assert t.state.phase == "assassination" and t.export()["events"] == events


# --- what each refusal says, to whom, under which subject ----------------------------------


def footer(tag):
    return f"Put {tag} in any message you send me about this game (a chat may drop the subject)."


def last_pm(t, user) -> tuple[str, str]:
    """(subject, body) of the last PM the bot sent `user`."""
    row = t.forum.messages_to(user)[-1]
    return row["subject"], row["body"]


@pytest.fixture
def one_thread_two_games(local_game):
    """G1 and G2 both running in one thread (the same five players), both at their proposal."""
    t = local_game()
    g2 = rematch(t)
    assert store.Game.get_by_id(1).status == "running" and g2.tag == "G2"
    return t


def test_two_games_in_one_thread_a_command_without_a_tag_is_answered_in_public(one_thread_two_games):
    t = one_thread_two_games
    thread, pms = t.game.thread, len(t.people.pms_to("bob"))
    posts = len(t.people.thread(thread))
    t.say("bob", "**APPROVE**")
    t.say("carol", "G1 or G2, who knows")  # no command: no answer
    t.cycle()
    assert t.people.thread(thread)[posts:] == [
        "**APPROVE**", "G1 or G2, who knows",
        "@bob: Several games run in this thread (G1, G2): put the game's tag in the bold command, "
        "like **G2 APPROVE**. Nothing was changed."]
    assert len(t.people.pms_to("bob")) == pms  # (in public: not by PM)


def test_two_games_in_one_thread_the_tag_in_the_command_or_the_comment_routes_it(one_thread_two_games):
    t = one_thread_two_games
    g1 = store.Game.get_by_id(1)
    t.say("alice", "**G2 PROPOSE: alice, bob**")
    t.cycle()
    s1, s2 = t.mod.state(g1), t.state
    assert (s1.phase, s2.phase, list(s2.team)) == ("proposal", "team_vote", ["alice", "bob"])
    t.say("alice", "For G1: **PROPOSE: alice, carol**")  # a tag outside the bold names the game too
    t.cycle()
    s1, s2 = t.mod.state(g1), t.state
    assert (s1.phase, list(s1.team)) == ("team_vote", ["alice", "carol"]) and list(s2.team) == ["alice", "bob"]
    t.say("bob", "**G2 REJECT** (G1 is next)")  # the tag in the command wins over one in the text
    t.say("carol", "**REJECT** G1, and **APPROVE** G1: changed my mind")
    t.cycle()
    s1, s2 = t.mod.state(g1), t.state
    assert (s1.votes, s2.votes) == ({"carol": "approve"}, {"bob": "reject"})
    assert not [p for p in t.people.thread(t.game.thread) if "Several games" in p]


def test_a_command_to_a_finished_game_is_answered_by_pm_about_that_game(local_game):
    t = local_game()
    tag = t.game.tag
    said, _ = over_after_abort(t, [("bob", "**APPROVE**")])
    assert said["bob"] == [f"{tag} is over: it takes no commands.\n\n{footer(tag)}"]
    assert last_pm(t, "bob")[0] == f"{tag}: re: your message"


def test_a_replaced_player_is_answered_about_the_game_of_the_seat(local_game):
    t = local_game()
    tag = t.game.tag
    host_says(t, f"REPLACE {tag} alice WITH zed")
    t.pm("alice", "APPROVE", subject="my vote")
    t.cycle()
    assert last_pm(t, "alice") == (f"{tag}: re: your message",
                                   f"You no longer play in {tag}: zed took your seat. Nothing was changed."
                                   f"\n\n{footer(tag)}")


def test_a_pm_from_someone_in_no_game_or_in_several_is_answered_about_none(two_games):
    t1, t2 = two_games
    t1.people.pm("stranger", "hello", "APPROVE")
    t1.people.pm("alice", "my vote", "APPROVE")
    t1.people.pm("alice", "my vote", "G1 G2 REJECT")
    t1.cycle()
    assert last_pm(t1, "stranger") == ("re: your message", "You are not in a running game.")
    several = ("re: your message", "You are in several games (G1, G2). Put the game's tag in the subject or the "
               "message, like `G12 APPROVE`. Nothing was changed.")
    assert [(r["subject"], r["body"]) for r in t1.forum.messages_to("alice")[-2:]] == [several, several]
    assert t1.state.votes == {} and t2.state.votes == {}


def test_on_a_bbcode_forum_the_routing_answers_show_bbcode(db, bot, clock):
    """A forum that writes BBCode (phpBB-like) gets the which-game and several-games answers
    in its own markup: no Markdown bold or code in them."""
    from adapters.base import Markup

    b = bot("local")
    b.forum.markup = Markup.BBCODE
    t = b.table()
    rematch(t)
    t.say("bob", "[b]APPROVE[/b]")
    t.pm("bob", "APPROVE", subject="my vote")
    t.pm("bob", "G1 G2 APPROVE", subject="my vote")
    t.cycle()
    assert t.people.thread(t.game.thread)[-1] == (
        "@bob: Several games run in this thread (G1, G2): put the game's tag in the bold command, "
        "like [b]G2 APPROVE[/b]. Nothing was changed.")
    several = ("You are in several games (G1, G2). Put the game's tag in the subject "
               "or the message, like [font=monospace]G12 APPROVE[/font]. Nothing was changed.")
    assert t.people.pms_to("bob")[-2:] == [several, several]


def test_a_player_of_one_game_needs_no_tag_in_a_pm(local_game):
    t = local_game()
    t.propose()
    t.people.pm("bob", "my vote", "REJECT")  # neither a tag nor a reply: his only game
    t.cycle()
    assert t.state.votes == {"bob": "reject"}
    assert not [b for b in t.people.pms_to("bob") if "not in a running game" in b or "several games" in b]


def test_a_join_in_a_sign_up_thread_signs_the_player_up(db, bot, clock):
    """A game taking sign-ups takes its thread's commands: JOIN there is a sign-up (never
    "the game is over", which a game not yet running is not)."""
    b = bot("local")
    forum, people = b.forum, b.people
    mod = b.moderator()
    people.pm("host", "new game", "preset: resistance\nplayers: signup\nmin_players: 5\nmax_players: 7\n"
              "deadlines: {signup: 2d}\n")
    mod.cycle()
    mod.cycle()
    game = store.Game.select().order_by(store.Game.id.desc()).first()
    assert game.status == "signup"
    people.comment("zoe", game.thread, "**JOIN**")
    mod.cycle()
    assert "You have joined" in people.pms_to("zoe")[-1]
    assert not [p for p in people.pms_to("zoe") + people.thread(game.thread) if "is over" in p]
    assert "1 joined" in forum.threads()[0]["body"] and "zoe" in forum.threads()[0]["body"]
