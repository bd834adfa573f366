"""Whole scripted games through the moderator, on each forum: the local forum, real praw
against the fake Reddit, and the Discourse adapter against the fake Discourse."""
import re

import pytest

from forumbot import store


@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_resistance_wins(table, clock):
    t = table(5)
    game = t.game
    assert game.thread is not None
    # every player got a role PM; spies learned each other, the resistance nobody
    spies = set(t.spies())
    for n in t.players:
        pms = t.people.pms_to(n)
        role_pm = next(p for p in pms if "Your role" in p)
        if n in spies:
            other = (spies - {n}).pop()
            assert "**Spy**" in role_pm and other in role_pm
        else:
            assert "**Resistance**" in role_pm
            assert not any(s in role_pm for s in spies)
    opening = t.people.opening(t.game.thread)
    assert "PROPOSE" in opening and "| 1 | 2 |" in opening
    for _ in range(3):
        t.mission()
    e = t.export()
    assert (e["status"], e["winner"], e["win_reason"]) == ("finished", "resistance", "missions")
    assert [m["result"] for m in e["missions"]] == ["success"] * 3
    end = t.people.thread(game.thread)[-1]
    assert "win" in end and all(n in end for n in t.players)
    assert "### The Resistance win, by three missions." in end and "winner:" not in end
    for v in e["votes"]:  # the whole vote history is in the end post
        assert v["leader"] in end


@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_spies_win_by_missions_and_votes_are_tabled(table):
    t = table(5)
    spy = t.spies()[0]
    for _ in range(3):
        team = [spy] + [n for n in t.players if n != spy][: t.state.team_size() - 1]
        t.mission(sabotage=[spy], team=team)
    e = t.export()
    assert (e["winner"], e["win_reason"]) == ("spies", "missions")
    assert [m["sabotages"] for m in e["missions"]] == [1, 1, 1]
    posts = t.people.thread(t.game.thread)
    table_post = next(p for p in posts if "is closed" in p)
    for n in t.players:
        assert f"| {n} | APPROVE |" in table_post
    assert any("1 SABOTAGE" in p for p in posts)


def test_spies_win_by_five_rejections(table):
    t = table(6)
    for _ in range(5):
        t.propose()
        t.vote_all(False)
    e = t.export()
    assert (e["winner"], e["win_reason"]) == ("spies", "rejections")
    assert len(e["votes"]) == 5 and not any(v["approved"] for v in e["votes"])
    assert len({v["leader"] for v in e["votes"]}) == 5


def test_seven_players_two_fail_fourth_mission(table):
    t = table(7)
    spies = t.spies()
    t.mission()
    t.mission(sabotage=spies[:1], team=spies[:1] + [n for n in t.players if n not in spies][:2])
    t.mission()
    # mission 4: one SABOTAGE is not enough
    team = spies[:1] + [n for n in t.players if n not in spies][:3]
    t.mission(sabotage=spies[:1], team=team)
    e = t.export()
    assert e["missions"][3]["sabotages"] == 1 and e["missions"][3]["result"] == "success"
    assert e["winner"] == "resistance"
    assert any("2 were needed" in p for p in t.people.thread(t.game.thread))


@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_votes_by_pm_are_acknowledged_and_counted(table):
    t = table(5)
    t.propose()
    t.vote_all(True, by_pm=t.players[:2])
    e = t.export()
    assert e["votes"][0]["votes"][t.players[0]] == "approve"
    assert any("your vote **APPROVE** is recorded" in p for p in t.people.pms_to(t.players[0]))


def test_sabotage_from_resistance_is_refused_privately(table):
    t = table(5)
    res = next(n for n in t.players if n not in t.spies())
    team = [res] + [n for n in t.players if n != res][:1]
    t.propose(team)
    t.vote_all()
    before = len(t.export()["events"])
    thread_before = len(t.people.thread(t.game.thread))
    t.pm(res, "SABOTAGE")
    t.cycle()
    assert len(t.export()["events"]) == before
    assert any("can only SUPPORT" in p for p in t.people.pms_to(res))
    assert len(t.people.thread(t.game.thread)) == thread_before  # nothing public


def test_no_public_text_reveals_a_role_before_the_end(table):
    t = table(7)
    spies = t.spies()
    t.mission(sabotage=spies)
    t.propose()
    t.vote_all(False)
    public = "\n".join(t.people.public_texts())
    for n in t.players:
        assert not re.search(rf"{n}\W+(\(|is |: )?\**(spy|resistance)\b", public, re.I), n
    assert "Spy |" not in public and "| Spy" not in public


def test_bad_input_is_refused_with_a_reason_and_changes_nothing(table):
    t = table(5)
    events = t.export()["events"]
    leader = t.state.leader
    not_leader = next(n for n in t.players if n != leader)
    t.say("mallory", "**APPROVE**")  # not a player
    t.say(not_leader, "**PROPOSE: alice, bob**")  # not the leader
    t.say(leader, "**PROPOSE: alice, bob, carol**")  # wrong size
    t.say(leader, "**PROPOSE: alice, zed**")  # unknown name
    t.pm("alice", "SUPPORT")  # no mission open
    t.cycle()
    assert t.export()["events"] == events
    replies = t.people.thread(t.game.thread)
    assert any("not one of them" in r for r in replies)
    assert any(f"Only the leader, {leader}" in r for r in replies)
    assert any("needs a team of 2" in r and "PROPOSE:" in r for r in replies)
    assert any("'zed' is not a player" in r for r in replies)
    assert any("No mission is open" in p for p in t.people.pms_to("alice"))
    # an order from a player who is not on the team
    t.propose(["alice", "bob"])
    t.vote_all()
    events = t.export()["events"]
    t.pm("carol", "SUPPORT")
    t.cycle()
    assert t.export()["events"] == events
    assert any("not on the team" in p for p in t.people.pms_to("carol"))


@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_bad_config_is_answered_with_every_problem(table):
    t = table(5)
    games = store.Game.select().count()
    t.people.pm("newhost", "new game", "preset: avalonx\nplayers: [a, b]\nfoo: 1\n")
    t.cycle()
    assert store.Game.select().count() == games
    reply = t.people.pms_to("newhost")[-1]
    assert "3 problems" in reply and "`foo`" in reply and "`preset`" in reply and "`players`" in reply


def test_pm_with_no_command_points_to_help(table):
    t = table(5)
    t.pm("alice", "hello bot, how are you")
    t.cycle()
    assert "HELP" in t.people.pms_to("alice")[-1]


def test_host_gets_the_tag_and_the_thread_link(table):
    t = table(5)
    pm = t.people.pms_to("host")[-1]
    assert t.game.tag in pm and (t.game.thread_url or t.game.thread) in pm


def test_public_status_at_most_once_a_minute(table, clock):
    t = table(5)
    before = len(t.people.thread(t.game.thread))
    t.say("bob", "**STATUS**")
    t.say("carol", "**STATUS**")
    t.cycle()
    answers = t.people.thread(t.game.thread)[before:]
    assert len([a for a in answers if "waiting for the leader" in a]) == 1
    assert any("waiting for the leader" in p for p in t.people.pms_to("carol"))  # the second by PM
    clock.advance(seconds=61)
    t.say("dave", "**STATUS**")
    t.cycle()
    assert len([a for a in t.people.thread(t.game.thread)[before:] if "waiting for the leader" in a]) == 2


def test_status_during_a_mission_never_names_who_is_missing(table):
    t = table(5)
    team = t.propose()
    t.vote_all(True)
    t.pm(team[0], "SUPPORT")
    t.cycle()
    t.say("erin", "**STATUS**")
    t.cycle()
    answer = t.people.thread(t.game.thread)[-1]
    assert "1 of 2 orders are in" in answer
    assert team[1] not in answer and team[0] not in answer


def test_hosts_allow_list(db, bot):
    from tests.fakes.table import config_text

    b = bot("local")
    mod, people = b.moderator(hosts={"Trusted"}), b.people
    people.pm("stranger", "new game", config_text(["alice", "bob", "carol", "dave", "erin"]))
    mod.cycle()
    assert store.Game.select().count() == 0
    assert "Only the hosts" in people.pms_to("stranger")[-1]
    people.pm("trusted", "new game", config_text(["alice", "bob", "carol", "dave", "erin"]))
    mod.cycle()
    assert store.Game.select().count() == 1


AVALON = "plot_cards: false\nroles: [percival, morgana]\nlady_of_the_lake: true\n"


@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_avalon_with_the_lady_and_the_assassin(table):
    t = table(7, preset="avalon", extra=AVALON)
    s = t.state
    roles = {x.name: x.role for x in s.seats}
    merlin = next(n for n, r in roles.items() if r == "merlin")
    percival = next(n for n, r in roles.items() if r == "percival")
    morgana = next(n for n, r in roles.items() if r == "morgana")
    assassin = next(n for n, r in roles.items() if r == "assassin")
    # Percival sees Merlin and Morgana, without knowing which is which
    pm = next(p for p in t.people.pms_to(percival) if "Your role" in p)
    assert f"{merlin} (Merlin or Morgana)" in pm and f"{morgana} (Merlin or Morgana)" in pm
    opening = t.people.opening(t.game.thread)
    assert "Roles in play" in opening and "Lady of the Lake" in opening
    holder = s.names[-1]
    good = [n for n, r in roles.items() if r in ("merlin", "percival", "servant")]
    t.mission(team=good[:2])
    t.mission(team=good[:3])
    assert t.state.phase == "lady"
    target = assassin if assassin != holder else morgana
    t.say(holder, f"**LADY: {target}**")
    t.cycle()
    lady_pm = t.people.pms_to(holder)[-1]
    assert f"**{target}** is one of the Minions of Mordred" in lady_pm
    assert "Assassin" not in lady_pm and "Morgana" not in lady_pm  # allegiance only
    assert not any("is one of the Minions" in p for p in t.people.public_texts())
    t.mission(team=good[:3])
    assert t.state.phase == "assassination"
    t.say(assassin, f"**SHOOT: {merlin}**")
    t.cycle()
    e = t.export()
    assert (e["winner"], e["win_reason"]) == ("spies", "assassination")
    assert {p["name"]: p["role"] for p in e["players"]} == roles
    assert "names **" + merlin in t.people.thread(t.game.thread)[-1]


@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_so_say_we_all_through_the_moderator(table):
    t = table(5, preset="so-say-we-all", extra="mission_cards: false\n")
    names = t.state.names
    assert t.state.extra["commander"] == names[0] and t.state.leader == names[1]
    assert any("Mission Commander" in p for p in t.people.thread(t.game.thread))
    team = t.propose(names[:2])
    t.say(names[2], "**APPROVE**")  # mission 1: by PM only
    t.cycle()
    assert "go by PM only" in t.people.pms_to(names[2])[-1]
    t.pm(names[0], "CRITICAL REJECT")
    for n in names[1:]:
        t.pm(n, "APPROVE")
    t.cycle()
    v = t.export()["votes"][0]
    assert v["critical"] == [names[0]] and v["approved"]  # 4 to 2
    assert any("REJECT ×2 (critical)" in p for p in t.people.thread(t.game.thread))
    t.orders()
    # mission 2: the public order
    leader = t.state.leader
    human = next(n for n in names if t.state.seat(n).side == "resistance")
    team = [human] + [n for n in names if n != human][:2]
    t.say(leader, f"**PROPOSE: {', '.join(team)}; PUBLIC: {human[:3]}**")
    t.cycle()
    assert t.state.public == human
    t.vote_all(True)
    t.say(human, "**SUPPORT**")
    for n in team[1:]:
        t.pm(n, "SUPPORT")
    t.cycle()
    posts = t.people.thread(t.game.thread)
    assert any(f"{human}'s public order: **SUPPORT**" in p for p in posts)
    assert t.export()["missions"][1]["result"] == "success"


def test_status_during_a_card_step(db, bot):
    t = bot("local").table(["alice", "bob", "carol", "dave", "erin"], preset="resistance-plot")
    t.pm("bob", "STATUS")
    t.cycle()
    answer = t.people.pms_to("bob")[-1]
    assert "the hand-out of the Plot Cards" in answer and "Waiting for: alice" in answer
    assert "step" not in answer and "over" not in answer


@pytest.mark.forums("local", "reddit")  # on Discourse: tests/adapters/test_discourse.py (edits)
def test_an_edited_vote_changes_nothing_and_the_bot_says_so_once(table):
    t = table(5)
    t.propose()
    t.say("bob", "**APPROVE**")
    t.cycle()
    if t.fake is not None:
        cid = t.fake.thread_comments(t.game.thread)[-1]["id"]
        t.fake.edit(cid, "**REJECT**")
    else:
        cid = f"c{t.forum.thread_comments(t.game.thread)[-1]['id']}"
        t.forum.edit_comment(cid, "**REJECT**")
    t.cycle()
    t.cycle()
    assert t.state.votes["bob"] == "approve"
    notices = [c for c in t.people.thread(t.game.thread) if "Editing a comment does not change" in c]
    assert len(notices) == 1 and f"{t.forum.mention('bob')}:" in notices[0]
    t.say("bob", "**REJECT**")  # a new comment does
    t.cycle()
    assert t.state.votes["bob"] == "reject"


def test_edit_rechecks_take_turns_past_the_limit(local_game, monkeypatch):
    import forumbot.shell.moderator as moderator

    monkeypatch.setattr(moderator, "RECHECK_LIMIT", 2)  # one info() request holds 2 here
    t = local_game()
    t.propose()
    for n in ("alice", "bob", "carol", "dave"):
        t.say(n, "**APPROVE**")
    t.cycle()
    first = [r for r in t.forum.thread_comments(t.game.thread) if r["author"] == "alice"][-1]
    t.forum.edit_comment(f"c{first['id']}", "**REJECT**")
    for _ in range(3):  # five command comments, two a cycle: every one is looked at again
        t.cycle()
    assert any("Editing a comment does not change" in c and "@alice:" in c
               for c in t.people.thread(t.game.thread))


def test_the_leader_may_replace_a_proposal_until_the_first_vote(local_game):
    t = local_game()
    t.say("alice", "**PROPOSE: alice, bob**")
    t.cycle()
    t.say("alice", "**PROPOSE: alice, carol**")  # no vote yet: the new team replaces the old
    t.cycle()
    assert t.state.team == ("alice", "carol")
    assert "changes the proposal to **alice, carol**" in t.people.thread(t.game.thread)[-1]
    t.say("dave", "**APPROVE**")
    t.cycle()
    events = t.export()["events"]
    t.say("alice", "**PROPOSE: alice, erin**")  # a vote is in: the team stands
    t.cycle()
    assert t.state.team == ("alice", "carol") and t.export()["events"] == events
    assert "it stands" in t.people.thread(t.game.thread)[-1]
    t.say("bob", "**PROPOSE: bob, carol**")  # only the leader
    t.cycle()
    assert t.state.team == ("alice", "carol")
