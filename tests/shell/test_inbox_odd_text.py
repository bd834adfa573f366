"""A message whose text no database keeps as it is (a NUL, which PostgreSQL refuses; a lone
surrogate, which has no UTF-8 form) must not stop the inbox: it is stored with U+FFFD in their
place, and every other message of the same fetch counts."""
from __future__ import annotations

from forumbot import store


def test_a_nul_or_a_lone_surrogate_in_a_comment_stops_no_vote(any_db, bot, fake_reddit):
    t = bot("reddit", fake=fake_reddit).table()
    t.propose()
    voters = [t.state.shown(x) for x in t.state.waiting_for()]
    t.say(voters[0], "**APPROVE** and a NUL: \x00 and a lone half: \ud800")
    for n in voters[1:]:
        t.say(n, "**APPROVE**")
    t.cycle()
    t.cycle()
    assert t.state.phase == "mission", t.state.phase
    odd = store.Inbound.get(store.Inbound.author == voters[0], store.Inbound.kind == "comment",
                            store.Inbound.body.contains("NUL"))
    assert "\x00" not in odd.body and "\ufffd" in odd.body and odd.state == "done"
