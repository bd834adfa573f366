"""The status block at the top of the opening post, edited in place after every change."""
import re

import pytest

from forumbot import store


def opening(t) -> str:
    return t.people.opening(t.game.thread)


def edit_requests(fake) -> int:
    """The edits of posts the fake forum was asked for (Reddit's editusertext, Discourse's PUT
    of a post)."""
    return len([r for r in fake.requests if r[1] == "/api/editusertext"
                or (r[0] == "PUT" and re.fullmatch(r"/posts/\d+(\.json)?", r[1]))])


def block(t) -> str:
    return opening(t).split("\n\n---\n\n")[0]


@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_the_block_follows_the_game_and_never_shows_a_vote(table, clock):
    t = table(5)
    first = opening(t)
    rest = first.split("\n\n---\n\n", 1)[1]
    assert "Status of G1" in block(t) and "The leader, alice, proposes a team of 2" in block(t)
    assert "Deadline:" in block(t) and "UTC (in " in block(t)
    t.propose(["alice", "bob"])
    t.say("alice", "**APPROVE**")
    t.say("bob", "**REJECT**")
    t.cycle()
    b = block(t)
    assert "Still to vote: carol, dave, erin" in b
    assert "approve" not in b.lower() and "reject" not in b.lower()  # names only, never a vote
    assert opening(t).split("\n\n---\n\n", 1)[1].rstrip().startswith(rest.rstrip()[:200])
    t.vote_all(True)
    assert t.state.phase == "mission"
    t.pm("alice", "SUPPORT")
    t.cycle()
    b = block(t)
    assert "Orders in: 1 of 2" in b and "Still" not in b  # never who is missing on a mission
    t.pm("bob", "SUPPORT")
    t.cycle()
    assert "✔" in block(t) and "proposes a team of 3" in block(t)
    for _ in range(2):
        t.mission()
    assert "The game is over: the Resistance won" in block(t) or "The game is over" in block(t)


@pytest.mark.forums("local", "reddit", "discourse")  # its words are checked in Markdown
def test_edits_are_coalesced_to_one_per_game_per_cycle(table):
    t = table(5)
    if t.fake is None:
        return _local_coalesced(t)
    t.propose(["alice", "bob"])
    before = edit_requests(t.fake)
    for n in t.players:  # five votes in one cycle
        t.say(n, "**APPROVE**")
    t.cycle()
    edits = edit_requests(t.fake)
    assert edits - before == 1
    assert "Orders in: 0 of 2" in block(t)


def _local_coalesced(t):
    t.propose(["alice", "bob"])
    for n in t.players:
        t.say(n, "**APPROVE**")
    t.cycle()
    rows = list(store.Outbox.select().where(store.Outbox.kind == "edit"))
    assert len(rows) == 1 and rows[0].state == "posted"
    assert "Orders in: 0 of 2" in block(t)


def test_a_deferred_edit_is_not_lost(table):
    """While the forum refuses edits, the latest block waits; it goes out when it can."""
    t = table(5)
    real = t.forum.post
    from adapters.base import TransientError

    def no_edits(out):
        if out.kind == "edit":
            raise TransientError("rate limited", retry_after=0)
        return real(out)
    t.forum.post = no_edits
    t.propose(["alice", "bob"])
    t.say("carol", "**APPROVE**")
    t.cycle()
    assert "Still to vote" not in block(t)  # not edited yet
    t.forum.post = real
    t.cycle()
    assert "Still to vote: alice, bob, dave, erin" in block(t)


def test_an_existing_thread_keeps_the_block_in_the_first_comment(db, bot, clock):
    b = bot("local")
    forum, people = b.forum, b.people
    thread = forum.create_thread("host", "Resistance 61 sign-ups", "Here we go.")
    mod = b.moderator()
    people.pm("host", "new game", f"preset: resistance\nleader_order: listed\nthread: {thread}\n"
              "players: [alice, bob, carol, dave, erin]\n")
    mod.cycle()
    mod.cycle()
    forum.comment("alice", thread, "**PROPOSE: alice, bob**")
    mod.cycle()
    first = people.thread(thread)[0]
    assert "Still to vote: alice, bob, carol, dave, erin" in first
    assert forum.threads()[0]["body"] == "Here we go."  # the host's post is not touched
