"""Tests with teeth for reading Reddit (issue 22): through real praw against the fake Reddit
(tests/fakereddit.py), whole bot cycles, and what the game and the bot's posts show.

- The bot's own comments in a game thread are never commands, nor messages to handle: the
  adapter leaves them out of the thread read (adapters/reddit.py), and the inbox would
  not act on them either (forumbot/inbox.py).
- Markdown quotes (`>`, nested `> >` and `>>`) are the quoted player's words at any depth."""
from __future__ import annotations

from datetime import timedelta

import praw
import pytest

from adapters.reddit import RedditForum
from forumbot import deadlines
from forumbot.limits import PER_AUTHOR_PER_CYCLE
from forumbot.moderator import Moderator
from tests.table import NAMES, RedditPeople, Table


@pytest.fixture
def reddit_table(db, clock, fake_reddit):
    def make(players=5, **kw):
        forum = RedditForum(praw.Reddit(**fake_reddit.praw_kwargs()))
        t = Table(forum, RedditPeople(fake_reddit), clock, players=NAMES[:players],
                  make_moderator=lambda: Moderator(forum, clock=clock))
        return t.start(**kw)
    return make


def bot_comments(fake, thread) -> list[str]:
    return [c["body"] for c in fake.thread_comments(thread) if c["author"] == fake.bot]


def test_the_bots_own_comment_is_never_a_command(reddit_table, fake_reddit):
    """A comment of the bot's account that reads like a command (a prompt quoting the words,
    or one typed by hand on that account) counts for no one and gets no answer: answering
    it would be the bot talking to itself, and it would read that answer too."""
    t = reddit_table()
    thread = t.game.thread
    for body in ("**PROPOSE: bob, carol**", "**JOIN**", "**STATUS**"):
        fake_reddit.comment(fake_reddit.bot, thread, body)
    t.cycle()
    t.propose()
    assert t.state.phase == "team_vote" and list(t.state.team) == ["alice", "bob"]
    events, posts, pms = t.export()["events"], len(bot_comments(fake_reddit, thread)), len(fake_reddit.messages)
    fake_reddit.comment(fake_reddit.bot, thread, "I say **APPROVE**")
    fake_reddit.comment(fake_reddit.bot, thread, "**REJECT**\n\n**PROPOSE: carol, dave**")
    for _ in range(3):
        t.cycle()
    assert t.export()["events"] == events and t.state.votes == {}
    assert len(bot_comments(fake_reddit, thread)) == posts + 2  # the two above, and no answer
    assert len(fake_reddit.messages) == pms


@pytest.mark.parametrize("read", ["listing", "thread after a gap"])
def test_the_bots_own_comments_do_not_hold_back_a_deadline(reddit_table, fake_reddit, clock, monkeypatch, read):
    """The bot's comments are not messages to handle: however many it has posted since the
    last read, a vote whose deadline has passed closes in the first cycle after it (read as
    messages, they would queue behind the cap of one sender's messages a cycle, and hold
    the deadline back behind them). The same when a flood elsewhere in the subreddit makes
    the listing fall short and the game thread is read whole."""
    import adapters.reddit as reddit

    t = reddit_table()
    other = fake_reddit.submit("someone", "resistancegames", "chatter", "hi")
    t.propose()
    thread = t.game.thread
    for n in ("alice", "bob", "carol", "dave"):
        t.say(n, "**APPROVE**")
    for i in range(PER_AUTHOR_PER_CYCLE + 5):
        fake_reddit.comment(fake_reddit.bot, thread, f"A note from the bot's account, {i}: **APPROVE**")
    if read == "thread after a gap":
        for i in range(150):
            fake_reddit.comment("chatty", other["id"], f"comment {i}")
        monkeypatch.setattr(reddit, "MAX_PAGES", 1)  # the listing reaches back 100 comments only
    clock.at = deadlines.due(t.state) + timedelta(minutes=1)
    t.cycle()
    assert t.forum.gap_threads == (read != "listing")
    assert t.state.phase == "mission", t.state.phase  # erin's vote defaulted at the deadline
    votes = t.export()["votes"][0]
    assert votes["approved"] and votes["defaulted"] == ["erin"]


def nested(depth: int, prefix: str) -> str:
    """A Reddit quote `depth` deep, a level of `prefix` (`> ` or `>`) for each: every level
    votes REJECT in bold, as the comment it quotes did."""
    lines = []
    for level in range(depth, 0, -1):
        lines += [prefix * level + f"{NAMES[level]}: **REJECT**", prefix * level]
    return "\n".join(lines)


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("prefix", ["> ", ">", "  > "])
def test_bold_in_nested_markdown_quotes_is_not_a_command(reddit_table, fake_reddit, depth, prefix):
    t = reddit_table()
    t.propose()
    events, said = t.export()["events"], len(fake_reddit.pms_to("carol"))
    quoted = nested(depth, prefix)
    t.say("carol", f"Look:\n\n{quoted}\n\nWell.")
    t.say("dave", f"**APPROVE** is mine.\n\n{quoted}\n\nThat is all.")  # the quote's votes come last
    t.cycle()
    added = [(e["type"], e["data"]) for e in t.export()["events"][len(events):]]
    assert added == [("vote_cast", {"player": "dave", "vote": "approve", "via": "thread"})]
    assert len(fake_reddit.pms_to("carol")) == said
    assert not [b for b in t.people.thread(t.game.thread) if b.startswith(("u/carol:", "u/dave:"))]
