"""Scripted whole games through the moderator on the local forum with the two modules beyond
the seeds: Excalibur, and Tristan and Isolde. What the thread showed, who learned what by
PM, who won and why."""
import pytest

from tests.fakes.table import NAMES


@pytest.fixture
def table(db, bot):
    def make(n=7, extra=""):
        return bot("local").table(n, preset="avalon", extra="plot_cards: false\n" + extra)  # (the Plot Cards are on by default)
    return make


def thread(t):
    return "\n".join(t.people.thread(t.game.thread))


def last_pm(t, who):
    return t.people.pms_to(who)[-1]


def test_excalibur_in_a_game(table):
    t = table(extra="excalibur: true\n")
    s = t.state
    leader = s.leader
    team = [leader, s.next_leader(leader)]
    holder = team[1]
    t.say(leader, f"**PROPOSE: {', '.join(team)}**")  # no holder named: refused, nothing changes
    t.cycle()
    assert t.state.phase == "proposal"
    assert ("With each team the leader names a team member, not himself, to hold Excalibur. "
            "The right form: **PROPOSE: a, b, c; EXCALIBUR: b**") in thread(t)
    t.say(leader, f"**PROPOSE: {', '.join(team)}; EXCALIBUR: {holder}**")
    t.cycle()
    assert f"**{holder}** holds **Excalibur** for this team." in thread(t)
    t.vote_all(True)
    t.orders()
    assert t.state.phase == "excalibur" and t.state.actors == [holder]
    assert f"PM me **EXCALIBUR: {leader}**;" in last_pm(t, holder)  # a team of two: the other one, by name
    assert "(one of" not in last_pm(t, holder)
    t.say(holder, f"**EXCALIBUR: {leader}**")  # in the thread: refused by PM, not counted
    t.cycle()
    assert t.state.phase == "excalibur" and "by PM" in last_pm(t, holder)
    t.pm(holder, f"EXCALIBUR: {leader}")
    t.cycle()
    assert f"{holder} uses Excalibur on **{leader}**." in thread(t)
    assert f"**{leader}**'s order was **SUPPORT**. It counts as SABOTAGE." in last_pm(t, holder)
    assert "order was" not in thread(t)
    e = t.export()
    assert e["missions"][0]["result"] == "fail" and e["missions"][0]["sabotages"] == 1
    # mission 2: the holder PASSes
    s = t.state
    leader = s.leader
    team = [leader] + [n for n in s.names if n != leader][:2]
    t.say(leader, f"**PROPOSE: {', '.join(team)}; EXCALIBUR: {team[2]}**")
    t.cycle()
    t.vote_all(True)
    t.orders()
    t.pm(team[2], "PASS")
    t.cycle()
    assert "Excalibur is not used on mission 2." in thread(t)
    assert t.export()["missions"][1]["result"] == "success"


def test_the_lovers_in_a_game(table):
    t = table(n=7, extra="roles: [percival, tristan, isolde]\n")
    roles = {p["name"]: p["role"] for p in t.export()["players"]}
    tristan = next(n for n, r in roles.items() if r == "tristan")
    isolde = next(n for n, r in roles.items() if r == "isolde")
    role_pm = next(b for b in t.people.pms_to(tristan) if "Your role" in b)
    assert f"Your lover: **{isolde}**" in role_pm and "Tristan" in role_pm
    assert f"Your lover: **{tristan}**" in next(b for b in t.people.pms_to(isolde) if "Your role" in b)
    others = [n for n in t.players if n not in (tristan, isolde)]
    assert all("Your lover" not in b for n in others for b in t.people.pms_to(n))
    good = [n for n, r in roles.items() if r not in ("assassin", "minion", "morgana", "mordred", "oberon")]
    for _ in range(3):
        t.mission(team=[x for x in good][: t.state.team_size()])
    assert t.state.phase == "assassination"
    shooter = next(n for n, r in roles.items() if r == "assassin")
    assert any("**ASSASSINATE: name, name**" in b for b in t.people.pms_to(shooter))
    t.say(shooter, f"**ASSASSINATE: {tristan}, {tristan}**")  # the same name twice: refused
    t.cycle()
    assert t.state.phase == "assassination"
    t.say(shooter, f"**ASSASSINATE: {isolde}, {tristan}**")
    t.cycle()
    e = t.export()
    assert (e["winner"], e["win_reason"]) == ("spies", "assassination")
    assert f"names **{isolde}** and **{tristan}** as Tristan and Isolde and finds the lovers" in thread(t)


def test_the_config_refuses_one_lover(db, bot):
    t = bot("local").table(7, start=False)
    people = t.people
    people.pm("host", "new game", "preset: avalon\nplayers: [" + ", ".join(NAMES[:7]) + "]\nroles: [tristan]\n")
    t.cycle()
    reply = people.pms_to("host")[-1]
    assert "Tristan and Isolde play together: list both or neither" in reply


def test_the_demo_offers_the_modules():
    from forumbot.cli.demo import demo_config, module_names, play

    assert set(module_names()) == {"excalibur", "lovers"}
    text = demo_config("avalon", NAMES[:7], 1, ("excalibur", "lovers"))
    assert "excalibur: true\n" in text and "roles: [percival, morgana, mordred, tristan, isolde]\n" in text
    said = []
    result, _ = play("avalon", 5, 1, echo=said.append, modules=("lovers",))
    assert result["winner"] is None and said == ["demo: roles: Tristan and Isolde need 7 players or more; the game has 5"]
    result, _ = play("avalon", 5, 1, echo=said.append, modules=("nope",))
    assert result["winner"] is None and said[-1].startswith("demo: no rule module nope")
