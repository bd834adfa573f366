"""Two games with overlapping players: a PM with a tag, a reply to a bot PM, an ambiguous PM."""
from forumbot import store


def test_pms_are_routed_by_tag_by_reply_or_refused_when_ambiguous(db, bot, clock):
    b = bot("local")
    forum, people = b.forum, b.people
    mod = b.moderator()
    people.pm("host1", "new game", "preset: resistance\nleader_order: listed\nplayers: [alice, bob, carol, dave, erin]\n")
    people.pm("host2", "new game", "preset: resistance\nleader_order: listed\nplayers: [zed, yan, xu, wes, alice]\n")
    mod.cycle()
    mod.cycle()
    g1, g2 = list(store.Game.select().order_by(store.Game.id))
    forum.comment("alice", g1.thread, "**PROPOSE: alice, bob**")
    forum.comment("zed", g2.thread, "**PROPOSE: zed, alice**")
    mod.cycle()
    # ambiguous: alice plays in both and names neither
    forum.send_pm("alice", "forumbot", "my vote", "APPROVE")
    mod.cycle()
    reply = people.pms_to("alice")[-1]
    assert g1.tag in reply and g2.tag in reply and "Nothing was changed" in reply
    assert mod.state(g1).votes == {} and mod.state(g2).votes == {}
    # a tag in the subject
    forum.send_pm("alice", "forumbot", f"{g2.tag} vote", "REJECT")
    mod.cycle()
    assert mod.state(g2).votes == {"alice": "reject"} and mod.state(g1).votes == {}
    # a reply to the bot's PM about game 1 (the vote acknowledgement of game 2 won't do: use G1's role PM)
    role_pm = next(r for r in forum.messages_to("alice") if f"{g1.tag}" in r["body"] and "Your role" in r["body"])
    forum.send_pm("alice", "forumbot", "re: your role", "APPROVE", parent=f"m{role_pm['id']}")
    mod.cycle()
    assert mod.state(g1).votes == {"alice": "approve"}
    assert mod.state(g2).votes == {"alice": "reject"}
    # a tag of a game the sender is not in
    forum.send_pm("bob", "forumbot", f"{g2.tag}", "APPROVE")
    mod.cycle()
    assert f"not in a running game tagged {g2.tag}" in people.pms_to("bob")[-1]


def test_a_reply_to_a_bot_pm_is_routed_on_reddit(db, bot, fake_reddit):
    """Reddit keeps the subject on a reply ("re: G2: your role"), and the bot's subjects
    always carry the game tag; so a bare reply to the bot's PM finds its game."""
    mod = bot("reddit", fake=fake_reddit).moderator()
    for host, players in (("host1", "alice, bob, carol, dave, erin"), ("host2", "zed, yan, xu, wes, alice")):
        fake_reddit.pm_bot(host, "new game", "preset: resistance\nleader_order: listed\n"
                           f"subreddit: games\nplayers: [{players}]\n")
    mod.cycle()
    mod.cycle()
    g1, g2 = list(store.Game.select().order_by(store.Game.id))
    assert (g1.host, g2.host) == ("host1", "host2")  # PMs of the same second keep their order
    fake_reddit.comment("alice", g1.thread, "**PROPOSE: alice, bob**")
    fake_reddit.comment("zed", g2.thread, "**PROPOSE: zed, alice**")
    mod.cycle()
    role_pm = next(m for m in fake_reddit.pms_to("alice") if m["subject"] == f"{g2.tag}: your role")
    fake_reddit.pm_bot("alice", "re: " + role_pm["subject"], "REJECT", parent=role_pm["id"])
    mod.cycle()
    assert mod.state(g2).votes == {"alice": "reject"} and mod.state(g1).votes == {}
    fake_reddit.pm_bot("alice", "a vote", "APPROVE")  # neither a tag nor a reply: ambiguous
    mod.cycle()
    assert "several games" in fake_reddit.pms_to("alice")[-1]["body"]
    assert mod.state(g1).votes == {}
