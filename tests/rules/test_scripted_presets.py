"""Scripted whole games through the moderator on the local forum, one per preset, that use
every card and role of the preset, with the outcome asserted: who learned what by PM,
what the thread showed, who won and why. Decks are rigged through the shuffle."""
import pytest

from forumbot.rules import events as ev
from forumbot.rules.modules.plot import PlotCards
from forumbot.rules.modules.plot_deck import deck_for


@pytest.fixture
def plot_table(db, bot, monkeypatch):
    def make(top, preset="resistance-plot", n=8, extra=""):
        def after_start(self, tx):
            rest = list(deck_for(len(tx.state.seats), preset))
            for c in top:
                rest.remove(c)
            tx.emit(ev.PLOT_SHUFFLED, deck=list(top) + rest)
        monkeypatch.setattr(PlotCards, "after_start", after_start)
        return bot("local").table(n, preset=preset, extra=extra)
    return make


def thread(t):
    return "\n".join(t.people.thread(t.game.thread))


def last_pm(t, who):
    return t.people.pms_to(who)[-1]


def test_resistance_plot_every_card(plot_table):
    top = ["strong-leader", "close-eye", "no-confidence", "opinion-maker", "take-responsibility",
           "overheard", "establish-confidence", "open-up", "spotlight", "no-confidence"]
    t = plot_table(top)
    a, b, c, d, e, f, g, h = t.players
    spies = set(t.spies())
    side = lambda x: "the Spies" if x in spies else "the Resistance"  # noqa: E731
    good = [x for x in t.players if x not in spies]
    assert "Plot Cards for mission 1: **Strong Leader**, **Keeping a Close Eye on You**" in thread(t)

    # Round 1 (alice leads): Strong Leader -> carol, Close Eye -> bob; mission 1 succeeds
    # (not to bob, who leads round 2 anyway: the Strong Leader window is not offered to him)
    t.say(a, "**GIVE: Strong Leader -> carol**\n\n**GIVE: keeping a close eye -> bob**")
    t.cycle()
    assert "alice gives **Strong Leader** to **carol**" in thread(t)
    team1 = t.propose(good[:3])
    t.vote_all(True, by_pm=t.players)  # resistance-plot: votes by PM only
    t.orders()
    assert t.state.phase == "card_window" and t.state.actors == [b]
    t.pm(b, f"CHOOSE: {team1[0] if team1[0] != b else team1[1]}")
    t.cycle()
    seen = team1[0] if team1[0] != b else team1[1]
    assert f"**{seen}** played **SUPPORT** on mission 1" in last_pm(t, b)

    # Round 2: carol plays Strong Leader before the draw and hands out No Confidence and Opinion Maker
    assert t.state.phase == "card_window" and t.state.actors == [c]
    t.say(c, "**PLAY: Strong Leader**")
    t.cycle()
    assert "carol plays **Strong Leader** and leads this round" in thread(t)
    t.say(c, "**GIVE: No Confidence -> dave**\n\n**GIVE: Opinion Maker -> erin**")
    t.cycle()
    assert t.state.leader == c
    spy = sorted(spies)[0]
    t.propose([spy] + [x for x in good if x != c][:3])
    t.pm(e, "APPROVE")  # Opinion Maker: erin's PM vote is refused
    t.cycle()
    assert "Opinion Maker" in last_pm(t, e)
    t.say(e, "**APPROVE**")
    t.vote_all(True, by_pm=[x for x in t.players if x != e])
    assert t.state.phase == "card_window" and t.state.actors == [d]
    t.say(d, "**PASS**")
    t.cycle()
    t.orders(sabotage=[spy])
    assert t.export()["missions"][1]["result"] == "fail"

    # Round 3: Take Responsibility takes dave's No Confidence; Overheard Conversation
    leader3 = t.state.extra["plot"].round.leader
    receivers = [x for x in t.players if x != leader3]
    tr, oc = receivers[3], receivers[5]
    t.say(leader3, f"**GIVE: Take Responsibility -> {tr}**\n\n**GIVE: Overheard Conversation -> {oc}**")
    t.cycle()
    t.say(tr, f"**TAKE: No Confidence FROM {d}**")
    t.cycle()
    assert f"{tr} takes **No Confidence** from {d}" in thread(t)
    i = t.state.names.index(oc)
    neighbour = t.state.names[(i + 1) % 8]
    t.say(oc, f"**CHOOSE: {neighbour}**")
    t.cycle()
    assert f"**{neighbour}** is one of {side(neighbour)}" in last_pm(t, oc)
    t.propose(good[:4])
    t.say(e, "**APPROVE**")
    t.vote_all(True, by_pm=[x for x in t.players if x != e])
    assert t.state.actors == [tr], (t.state.phase, t.state.waiting_for(), tr, t.people.thread(t.game.thread)[-3:])
    t.say(tr, "**PLAY: No Confidence**")
    t.cycle()
    assert "the approved team is rejected after all" in thread(t) and t.state.rejections == 1
    t.propose(good[:4])
    t.say(e, "**APPROVE**")
    t.vote_all(True, by_pm=[x for x in t.players if x != e])
    t.orders()
    assert t.export()["missions"][2]["result"] == "success"

    # Round 4: Establish Confidence (the leader's own) and Open Up; mission 4 fails
    leader4 = t.state.extra["plot"].round.leader
    others = [x for x in t.players if x != leader4]
    ou = others[0]
    t.say(leader4, f"**GIVE: Open Up -> {ou}**")
    t.cycle()
    ec_target, ou_target = others[1], others[2]
    t.say(leader4, f"**CHOOSE: {ec_target}**")
    t.cycle()
    assert f"**{leader4}** is one of {side(leader4)}" in last_pm(t, ec_target)
    t.say(ou, f"**CHOOSE: {ou_target}**")
    t.cycle()
    assert f"**{ou}** is one of {side(ou)}" in last_pm(t, ou_target)
    spies_list = sorted(spies)
    team4 = spies_list[:2] + [x for x in good][:3]
    t.propose(team4)
    t.say(e, "**APPROVE**")
    t.vote_all(True, by_pm=[x for x in t.players if x != e])
    t.orders(sabotage=spies_list[:2])
    assert t.export()["missions"][3]["result"] == "fail"

    # Round 5: In the Spotlight shows one order; the Resistance wins
    leader5 = t.state.extra["plot"].round.leader
    others = [x for x in t.players if x != leader5]
    t.say(leader5, f"**GIVE: In the Spotlight -> {others[0]}**\n\n**GIVE: No Confidence -> {others[1]}**")
    t.cycle()
    team5 = t.propose(good[:5] if len(good) >= 5 else None)
    t.say(e, "**APPROVE**")
    t.vote_all(True, by_pm=[x for x in t.players if x != e])
    t.say(others[0], f"**PLAY: In the Spotlight -> {team5[0]}**")
    t.say(others[1], "**PASS**")
    t.cycle()
    t.orders()
    assert f"In the Spotlight: **{team5[0]}**'s order on mission 5 was **SUPPORT**" in thread(t)
    result = t.export()
    assert (result["winner"], result["win_reason"]) == ("resistance", "missions")
    assert [m["result"] for m in result["missions"]] == ["success", "fail", "success", "fail", "success"]
    used = {x["data"]["card"] for x in result["events"] if x["type"] in ("plot_given", "plot_played", "plot_reveal")}
    assert used >= {"strong-leader", "close-eye", "no-confidence", "opinion-maker", "take-responsibility",
                    "overheard", "establish-confidence", "open-up", "spotlight"}


@pytest.fixture
def sswa_table(db, bot, monkeypatch):
    from forumbot.rules.modules.mission_card_folds import EV_SHUFFLED
    from forumbot.rules.modules.mission_cards import MissionCards

    def make(deck, n=6):
        monkeypatch.setattr(MissionCards, "after_start",
                            lambda self, tx: tx.emit(EV_SHUFFLED, deck=list(deck)))
        return bot("local").table(n, preset="so-say-we-all")
    return make


def test_so_say_we_all_every_mission_card(sswa_table):
    deck = ["prepare", "establish-confidence", "counterespionage", "badge", "interrogation", "tracker",
            "delayed", "badge", "counterfeit", "delayed"]
    t = sswa_table(deck)
    cylons = t.spies()
    humans = [x for x in t.players if x not in cylons]
    side = lambda x: "the Cylons" if x in cylons else "the Humans"  # noqa: E731
    cmdr = t.state.extra["commander"]
    assert t.state.names[0] == cmdr
    assert "draws **Prepare for the Future** and **Establish Confidence**" in thread(t)

    # Mission 1: PFF is kept; EC reveals the Commander to a player; PM votes, a Critical Vote, a preload
    x = next(p for p in t.players if p != cmdr)
    t.say(cmdr, f"**CHOOSE: {x}**")
    t.cycle()
    assert f"**{cmdr}** is one of {side(cmdr)}" in last_pm(t, x)
    team = humans[:2]
    t.propose(team)
    t.pm(team[0], "SUPPORT")  # preloaded before the vote closes
    t.cycle()
    assert "preloaded" in last_pm(t, team[0])
    t.pm(humans[2], "CRITICAL APPROVE")
    for p in t.players:
        if p != humans[2]:
            t.pm(p, "APPROVE")
    t.cycle()
    assert t.export()["votes"][0]["critical"] == [humans[2]]
    t.pm(team[1], "SUPPORT")
    t.cycle()
    assert t.export()["missions"][0]["result"] == "success"

    # Mission 2: PFF played on Counterespionage; Badge given; a public order; it fails
    holder = cmdr
    cmdr = t.state.extra["commander"]
    assert t.state.actors == [holder]
    t.say(holder, "**PLAY: Prepare for the Future -> Counterespionage**")
    t.cycle()
    ce_to = next(p for p in t.players if p not in (holder,))
    t.say(holder, f"**GIVE: Counterespionage -> {ce_to}**")
    t.cycle()
    badge_to = next(p for p in t.players if p not in (cmdr, t.state.leader))
    t.say(cmdr, f"**GIVE: Badge of Merit -> {badge_to}**")
    t.cycle()
    leader = t.state.leader
    team = [cylons[0]] + humans[:2]
    t.say(leader, f"**PROPOSE: {', '.join(team)}; PUBLIC: {cylons[0]}**")
    t.cycle()
    t.vote_all(True)
    t.say(cylons[0], "**SABOTAGE**")
    t.orders(skip=[cylons[0]])
    assert f"{cylons[0]}'s public order: **SABOTAGE**" in thread(t)
    assert t.export()["missions"][1]["result"] == "fail"

    # Mission 3: Counterespionage used; Interrogation; Secret Tracker; the count is hidden
    cmdr = t.state.extra["commander"]
    assert t.state.actors == [ce_to]
    target = next(p for p in t.players if p != ce_to)
    t.say(ce_to, f"**PLAY: Counterespionage -> {target}**")
    t.cycle()
    assert f"**{target}** is one of {side(target)}" in last_pm(t, ce_to)
    vi = next(p for p in t.players if p != cmdr)
    t.say(cmdr, f"**CHOOSE: {vi}**")
    t.cycle()
    assert f"**{vi}** is one of {side(vi)}" in last_pm(t, cmdr)
    tracked = humans[0] if humans[0] != cmdr else humans[1]
    t.say(cmdr, f"**CHOOSE: {tracked}**")
    t.cycle()
    team = [tracked] + [h for h in humans if h != tracked][:3]
    t.propose(team)
    t.vote_all(True, by_pm=t.players)
    t.orders()
    assert f"**{tracked}** played **SUPPORT** on mission 3" in last_pm(t, cmdr)
    assert "the number of SABOTAGEs is not revealed" in thread(t)

    # Mission 4: Delayed by Bureaucracy bars the Commander; the Badge moves its holder; two fails needed
    cmdr = t.state.extra["commander"]
    badge2 = next(p for p in t.players if p not in (cmdr,))
    t.say(cmdr, f"**GIVE: Badge of Merit -> {badge2}**")
    t.cycle()
    assert t.state.not_voting == [] and t.state.phase == "proposal"
    leader = t.state.leader
    t.propose([x for x in t.players if x != cmdr][:3])
    assert t.state.not_voting == [cmdr]
    t.say(badge_to, "**PLAY: Badge of Merit**")
    t.cycle()
    assert t.state.names[t.state.names.index(leader) + 1] == badge_to
    t.vote_all(False, by_pm=t.players)
    assert t.export()["votes"][-1]["not_voting"] == [cmdr]
    assert t.state.leader == badge_to
    team = cylons[:2] + [humans[0]]
    t.propose(team)
    t.vote_all(True, by_pm=t.players)
    t.orders(sabotage=cylons[:2])
    m4 = t.export()["missions"][3]
    assert (m4["result"], m4["sabotages"]) == ("fail", 2)  # two SABOTAGEs fail mission 4

    # Mission 5: Counterfeit Equipment discards the Delayed by Bureaucracy; the Humans win
    assert "the other card is discarded without effect" in thread(t)
    t.propose(humans[:4])
    t.vote_all(True, by_pm=t.players)
    t.orders()
    result = t.export()
    assert (result["winner"], result["win_reason"]) == ("resistance", "missions")
    kinds = {e["data"]["card"] for e in result["events"] if e["type"] in ("mc_done", "mc_played")}
    assert kinds >= {"prepare", "establish-confidence", "counterespionage", "badge", "interrogation",
                     "tracker", "delayed", "counterfeit"}


def test_avalon_2020_cards_roles_and_assassination(plot_table):
    top = ["chicago-proxy", "no-confidence", "strong-leader", "take-responsibility",
           "close-eye", "spotlight", "overheard", "open-up", "establish-confidence", "no-confidence"]
    t = plot_table(top, preset="avalon-2020")
    roles = {s.name: s.role for s in t.state.seats}
    who = {r: n for n, r in roles.items() if r != "servant"}
    # evil PMs name the other two with their roles; Merlin sees Morgana and the Assassin, not Mordred
    pm = next(p for p in t.people.pms_to(who["assassin"]) if "Your role" in p)
    assert f"{who['morgana']} (Morgana)" in pm and f"{who['mordred']} (Mordred)" in pm
    pm = next(p for p in t.people.pms_to(who["merlin"]) if "Your role" in p)
    assert who["morgana"] in pm and who["assassin"] in pm and who["mordred"] not in pm
    good = [n for n, r in roles.items() if r in ("merlin", "percival", "servant")]
    lead = t.state.extra["plot"].round.leader
    proxy, vetoer = [n for n in t.players if n != lead][:2]
    t.say(lead, f"**GIVE: Chicago Proxy -> {proxy}**\n\n**GIVE: No Confidence -> {vetoer}**")
    t.cycle()
    # Mission 1: Chicago Proxy casts another player's vote; votes close 12 hours after the proposal
    team = t.propose(good[:3])
    victim = next(n for n in t.players if n not in (proxy,))
    t.say(proxy, f"**PLAY: Chicago Proxy -> {victim} REJECT**")
    t.cycle()
    t.say(victim, "**APPROVE**")
    t.cycle()
    assert f"cast by {proxy}" in t.people.thread(t.game.thread)[-1]
    t.vote_all(True, skip=[victim])
    assert t.state.phase == "team_vote"  # no early close in avalon-2020
    t.clock.advance(hours=12, minutes=1)
    t.cycle()
    v = t.export()["votes"][0]
    assert v["proxied"] == {victim: proxy} and v["votes"][victim] == "reject"
    assert f"| {victim} (proxied by {proxy}) | REJECT |" in thread(t)
    # the No Confidence window, then the mission
    assert t.state.actors == [vetoer]
    t.say(vetoer, "**PASS**")
    t.cycle()
    t.orders()
    assert t.export()["missions"][0]["result"] == "success"
    # Mission 2: Strong Leader and Take Responsibility are dealt; TR is kept and played at will
    lead = t.state.extra["plot"].round.leader
    others = [n for n in t.players if n != lead]
    sl, tr = others[2], others[3]
    t.say(lead, f"**GIVE: Strong Leader -> {sl}**\n\n**GIVE: Take Responsibility -> {tr}**")
    t.cycle()
    assert t.state.phase == "proposal"
    t.say(tr, f"**TAKE: No Confidence FROM {vetoer}**")
    t.cycle()
    assert f"{tr} takes **No Confidence** from {vetoer}" in thread(t)
    t.propose(good[:4])
    t.vote_all(True)
    t.clock.advance(hours=12, minutes=1)
    t.cycle()
    t.say(tr, "**PLAY: No Confidence**")
    t.cycle()
    # right after a No Confidence, a Strong Leader window
    assert t.state.phase == "card_window" and t.state.actors == [sl]
    t.say(sl, "**PLAY: Strong Leader**")
    t.cycle()
    assert t.state.leader == sl and t.state.rejections == 1
    t.propose([who["mordred"]] + good[:3])
    t.vote_all(True)
    t.clock.advance(hours=12, minutes=1)
    t.cycle()
    t.orders(sabotage=[who["mordred"]])
    assert t.export()["missions"][1]["result"] == "fail"
    # Mission 3: In the Spotlight, then Close Eye played in the thread and answered by PM
    lead = t.state.extra["plot"].round.leader
    others = [n for n in t.players if n != lead]
    eye, spot = others[0], others[1]
    t.say(lead, f"**GIVE: Keeping a Close Eye on You -> {eye}**\n\n**GIVE: In the Spotlight -> {spot}**")
    t.cycle()
    team = t.propose(good[:4])
    t.vote_all(True)
    t.clock.advance(hours=12, minutes=1)
    t.cycle()
    t.say(spot, f"**PLAY: In the Spotlight -> {team[0]}**")
    t.cycle()
    t.orders()
    assert t.state.actors == [eye]
    looked = next(n for n in team if n != eye)
    t.pm(eye, f"CHOOSE: {looked}")
    t.cycle()
    assert "First play the card in the thread" in last_pm(t, eye)
    t.say(eye, "**PLAY: Keeping a Close Eye on You**")
    t.pm(eye, f"CHOOSE: {looked}")
    t.cycle()
    assert f"**{looked}** played **SUPPORT** on mission 3" in last_pm(t, eye)
    # Mission 4: Overheard Conversation and Open Up, then the third success
    lead = t.state.extra["plot"].round.leader
    others = [n for n in t.players if n != lead]
    t.say(lead, f"**GIVE: Overheard Conversation -> {others[0]}**\n\n**GIVE: Open Up -> {others[1]}**")
    t.cycle()
    i = t.state.names.index(others[0])
    t.say(others[0], f"**CHOOSE: {t.state.names[i - 1]}**")
    t.say(others[1], f"**CHOOSE: {lead}**")  # avalon-2020: Open Up may target the leader
    t.cycle()
    heard = t.state.names[i - 1]
    assert f"**{heard}** is on the side of" in last_pm(t, others[0])
    assert f"**{others[1]}** is on the side of" in last_pm(t, lead)
    t.propose([who["mordred"], who["morgana"]] + good[:3])
    t.vote_all(True)
    t.clock.advance(hours=12, minutes=1)
    t.cycle()
    t.orders(sabotage=[who["mordred"], who["morgana"]])
    assert t.export()["missions"][3]["result"] == "fail"  # two SABOTAGEs on mission 4
    # Mission 5: Establish Confidence, the leader's own card
    lead = t.state.extra["plot"].round.leader
    others = [n for n in t.players if n != lead]
    t.say(lead, f"**GIVE: No Confidence -> {others[0]}**")
    t.cycle()
    t.say(lead, f"**CHOOSE: {others[1]}**")
    t.cycle()
    assert f"**{lead}** is on the side of" in last_pm(t, others[1])
    t.propose(good[:5])
    t.vote_all(True)
    t.clock.advance(hours=12, minutes=1)
    t.cycle()
    t.say(others[0], "**PASS**")
    t.cycle()
    t.orders()
    assert t.state.phase == "assassination"
    used = {x["data"]["card"] for x in t.export()["events"] if x["type"] in ("plot_given", "plot_played", "plot_reveal")}
    assert used == {"chicago-proxy", "no-confidence", "strong-leader", "take-responsibility", "close-eye",
                    "spotlight", "overheard", "open-up", "establish-confidence"}
    t.say(who["assassin"], f"**ASSASSINATE: {who['merlin']}**")
    t.cycle()
    e = t.export()
    assert (e["winner"], e["win_reason"]) == ("spies", "assassination")
    assert f"In the Spotlight: **{team[0]}**'s order on mission 3 was **SUPPORT**" in thread(t)


def test_avalon_every_role_the_lady_and_plot_cards(plot_table):
    top = ["no-confidence", "opinion-maker", "strong-leader",
           "close-eye", "take-responsibility", "overheard",
           "establish-confidence", "open-up", "spotlight"]
    t = plot_table(top, preset="avalon", n=10,
                   extra="roles: [percival, morgana, mordred, oberon]\nlady_of_the_lake: true\n")
    roles = {s.name: s.role for s in t.state.seats}
    who = {r: n for n, r in roles.items() if r not in ("servant", "minion")}
    assert set(who) == {"merlin", "percival", "assassin", "morgana", "mordred", "oberon"}
    role_pm = lambda n: next(p for p in t.people.pms_to(n) if "Your role" in p)  # noqa: E731
    merlin = role_pm(who["merlin"])
    assert who["oberon"] in merlin and who["assassin"] in merlin and who["mordred"] not in merlin
    oberon = role_pm(who["oberon"])
    assert not any(n in oberon for n in t.players if n != who["oberon"])  # Oberon knows no one
    assassin = role_pm(who["assassin"])
    assert who["morgana"] in assassin and who["mordred"] in assassin and who["oberon"] not in assassin
    assert "(Minion of Mordred)" in assassin and "(Morgana)" not in assassin  # who, not which role
    percival = role_pm(who["percival"])
    assert f"{who['merlin']} (Merlin or Morgana)" in percival and f"{who['morgana']} (Merlin or Morgana)" in percival
    good = [n for n, r in roles.items() if r in ("merlin", "percival", "servant")]

    def leader():
        return t.state.extra["plot"].round.leader

    def others(*skip):
        return [n for n in t.players if n != leader() and n not in skip]

    def approve():
        t.vote_all(True)

    # Round 1: No Confidence, Opinion Maker, Strong Leader are given; No Confidence is played
    nc, om, sl = others()[:3]
    t.say(leader(), f"**GIVE: No Confidence -> {nc}**\n\n**GIVE: Opinion Maker -> {om}**"
                    f"\n\n**GIVE: Strong Leader -> {sl}**")
    t.cycle()
    t.propose(good[:3])
    t.pm(om, "APPROVE")
    t.cycle()
    assert "Opinion Maker" in last_pm(t, om)
    approve()
    t.say(nc, "**PLAY: No Confidence**")
    t.cycle()
    assert t.state.rejections == 1 and t.state.phase == "proposal"
    t.propose(good[:3])
    approve()
    t.orders()
    # Round 2: Strong Leader before the draw; Close Eye, Take Responsibility, Overheard
    assert t.state.actors == [sl]
    t.say(sl, "**PLAY: Strong Leader**")
    t.cycle()
    eye, tr, oc = others()[:3]
    t.say(leader(), f"**GIVE: Keeping a Close Eye on You -> {eye}**\n\n**GIVE: Take Responsibility -> {tr}**"
                    f"\n\n**GIVE: Overheard Conversation -> {oc}**")
    t.cycle()
    t.say(tr, f"**TAKE: Opinion Maker FROM {om}**")
    t.cycle()
    i = t.state.names.index(oc)
    heard = t.state.names[(i + 1) % 10]
    t.say(oc, f"**CHOOSE: {heard}**")
    t.cycle()
    assert f"**{heard}** is one of" in last_pm(t, oc)
    team = t.propose(good[:4])
    approve()
    t.orders()
    # after mission 2: Keeping a Close Eye on You right after the result, then the Lady
    # (allegiance only)
    assert t.state.phase == "card_window" and t.state.actors == [eye]
    looked = next(n for n in team if n != eye)
    t.pm(eye, f"CHOOSE: {looked}")
    t.cycle()
    assert f"**{looked}** played **SUPPORT** on mission 2" in last_pm(t, eye)
    holder = t.state.extra["lady"].holder
    assert t.state.phase == "lady" and holder == t.state.names[-1]
    t.say(holder, f"**LADY: {who['oberon']}**")
    t.cycle()
    lady = last_pm(t, holder)
    assert f"**{who['oberon']}** is one of the Minions of Mordred" in lady and "Oberon" not in lady
    # Round 3: Establish Confidence (the leader's own), Open Up, In the Spotlight
    ou, spot = others()[:2]
    t.say(leader(), f"**GIVE: Open Up -> {ou}**\n\n**GIVE: In the Spotlight -> {spot}**")
    t.cycle()
    ec_target = others(ou)[0]
    lead = leader()
    t.say(lead, f"**CHOOSE: {ec_target}**")
    t.cycle()
    assert f"**{lead}** is one of" in last_pm(t, ec_target)
    ou_target = others(ou)[1]
    t.say(ou, f"**CHOOSE: {ou_target}**")
    t.cycle()
    assert f"**{ou}** is one of" in last_pm(t, ou_target)
    team = t.propose(good[:4])
    approve()
    t.say(spot, f"**PLAY: In the Spotlight -> {team[0]}**")
    t.cycle()
    t.orders()
    assert f"In the Spotlight: **{team[0]}**'s order on mission 3 was **SUPPORT**" in thread(t)
    # three successes: the Assassin misses, fooled by Morgana's mask
    assert t.state.phase == "assassination"
    t.say(who["assassin"], f"**ASSASSINATE: {who['percival']}**")
    t.cycle()
    e = t.export()
    assert (e["winner"], e["win_reason"]) == ("resistance", "missions")
    assert "names **" + who["percival"] + "** and misses" in thread(t)
    used = {x["data"]["card"] for x in e["events"] if x["type"] in ("plot_given", "plot_played", "plot_reveal", "plot_taken")}
    assert used >= {"no-confidence", "opinion-maker", "strong-leader", "close-eye", "take-responsibility",
                    "overheard", "establish-confidence", "open-up", "spotlight"}
