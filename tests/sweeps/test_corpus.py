"""The bad-input corpus: hostile and malformed inputs as data files (`tests/corpus/*.yaml`),
each with what the bot must do: ignore it, refuse it with one clear reply, or count it as
the sender's own command. Nothing in it may crash the bot or change the game otherwise."""
import pytest
import yaml

from forumbot import store
from tests.support.corpus import CORPUS, at_phase


def test_the_corpus_is_large_enough():
    assert len(CORPUS) >= 60


def bot_words(t, author):
    """What the bot has said to `author`: PMs to them, and thread replies naming them."""
    pms = t.people.pms_to(author)
    replies = [b for b in t.people.thread(t.game.thread) if b.startswith(f"@{author}:")]
    return pms + replies


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_corpus(local_game, path):
    case = yaml.safe_load(path.read_text())
    t = local_game()
    at_phase(t, case["phase"])
    events = t.export()["events"]
    author = case["author"]
    said = len(bot_words(t, author))
    # An enormous input is written as a unit and a count: before + body * repeat + after.
    body = case.get("before", "") + case["body"] * case.get("repeat", 1) + case.get("after", "")
    if case["kind"] == "comment":
        t.say(author, body)
    else:
        t.people.pm(author, case.get("subject", ""), body)
    report = t.cycle()
    assert not report.errors
    assert store.Inbound.select().where(store.Inbound.state != "done").count() == 0, "an input crashed"
    new = bot_words(t, author)[said:]
    after = t.export()["events"]
    if case["expect"] == "nothing":
        assert after == events, "the game changed"
        assert new == [], new
    elif case["expect"] == "refused":
        assert after == events, "the game changed"
        assert len(new) == 1, new  # one clear answer, no flood
        assert case.get("reply", "") in new[0], new[0]
    else:  # counted: as the sender's own command, once
        added = after[len(events):]
        assert added and all(e["data"].get("player", author) == author or e["type"] != "vote_cast"
                             for e in added), added
        assert len(new) <= 1


def test_five_hundred_pms_from_one_user_starve_no_one(local_game):
    t = local_game()
    at_phase(t, "team_vote")
    for i in range(500):
        t.people.pm("mallory", "G1", f"APPROVE {i}" if i % 2 else "CLOSE G1")
    t.pm("dave", "APPROVE")
    t.say("erin", "**REJECT**")
    report = t.cycle()
    assert not report.errors
    assert t.state.votes == {"dave": "approve", "erin": "reject"}  # both counted in the same cycle
    assert len(t.people.pms_to("mallory")) <= 5  # refused, without a flood of answers
    for _ in range(30):  # the rest is worked through in later cycles, still quietly
        t.cycle()
    assert store.Inbound.select().where(store.Inbound.state == "new").count() == 0
    assert len(t.people.pms_to("mallory")) <= 5
