"""REPLACE: a newcomer takes a seat mid-game, with its role, knowledge, cards and history."""

import pytest


@pytest.fixture
def avalon(db, bot):
    def make(n=7, extra="roles: [percival, morgana]\nplot_cards: false\n"):
        return bot("local").table(n, preset="avalon", extra=extra)
    return make


def host(t, text, who="host"):
    t.people.pm(who, f"{t.game.tag} host", text)
    t.cycle()
    return t.people.pms_to(who)[-1]


def test_replace_in_the_middle_of_a_mission(avalon):
    t = avalon()
    team = t.propose()
    t.vote_all(True)
    s = t.state
    assert s.phase == "mission"
    old = next(n for n in team if s.seat(n).side == "spies")  # a spy who has sabotaged already
    t.pm(old, "SABOTAGE")
    t.cycle()
    role = s.seat(old).role
    assert t.state.orders[old] == "sabotage"

    reply = host(t, f"REPLACE {t.game.tag} {old} WITH zed")
    assert "REPLACE done" in reply
    s = t.state
    assert "zed" in s.names and old not in s.names
    seat = s.seat_of("zed").id  # the seat keeps its id; zed is the username on it
    assert seat == old and s.seat(seat).role == role and s.orders[seat] == "sabotage"  # the old order stands
    # the newcomer's PM: the role, what it knows, and the order that stands
    pm = t.people.pms_to("zed")[-1]
    assert "in place of" in pm and old in pm
    from forumbot.rules.roles import role_set
    known = role_set(s.config).knowledge(s, seat)
    assert known and all(s.shown(k.name) in pm for k in known)  # a spy in Avalon knows the other spies
    assert "SABOTAGE" in pm
    # the thread is told, without the role
    post = t.people.thread(t.game.thread)[-1]
    assert "zed" in post and old in post and role not in post.lower()
    # the old player's later PMs are refused and change nothing
    events = t.export()["events"]
    t.pm(old, "SUPPORT")
    t.cycle()
    assert "no longer play" in t.people.pms_to(old)[-1]
    assert t.export()["events"] == events
    # the mission closes with the old order counted, under the new name
    for n in t.state.team:
        if n != seat:
            t.pm(t.state.shown(n), "SUPPORT")
    t.cycle()
    m = t.export()["missions"][0]
    assert "zed" in m["team"] and m["sabotages"] >= 1 and "zed" not in m["defaulted"]
    replaced = [e for e in t.export()["events"] if e["type"] == "player_replaced"]
    assert replaced[0]["data"]["player"] == old and replaced[0]["data"]["by"] == "zed"


def test_the_newcomer_plays_on_and_old_names_find_the_seat(local_game):
    t = local_game()
    host(t, f"REPLACE {t.game.tag} bob WITH zed")
    assert t.state.names == ["alice", "zed", "carol", "dave", "erin"]
    t.say("alice", "**PROPOSE: alice, bob**")  # the old name is an alias for the seat now
    t.cycle()
    assert t.state.team == ("alice", "bob") and t.state.shown("bob") == "zed"  # bob's seat, zed on it
    t.say("zed", "**APPROVE**")
    t.say("bob", "**REJECT**")
    t.cycle()
    assert t.state.votes["bob"] == "approve"  # zed's vote, for the seat; bob's was refused
    assert "no longer play" in t.people.pms_to("bob")[-1]


def test_replace_refusals_change_nothing(local_game):
    t = local_game()
    tag = t.game.tag
    events = t.export()["events"]
    assert "Only the host" in host(t, f"REPLACE {tag} bob WITH zed", who="carol")
    assert "right form" in host(t, f"REPLACE {tag} bob zed")
    assert "not" in host(t, f"REPLACE {tag} nobody WITH zed")
    assert "already plays" in host(t, f"REPLACE {tag} bob WITH Carol")
    assert "not a forum username" in host(t, f"REPLACE {tag} bob WITH zed!!x")
    assert t.export()["events"] == events


def test_a_disqualified_seat_comes_back_with_its_replacement(local_game):
    t = local_game()
    host(t, f"DISQUALIFY {t.game.tag} carol")
    assert t.state.seat("carol").disqualified
    host(t, f"REPLACE {t.game.tag} carol WITH zed")
    assert not t.state.seat_of("zed").disqualified
    assert "plays again" in t.people.thread(t.game.thread)[-1]


