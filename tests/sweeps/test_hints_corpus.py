"""Both sides of the "did you mean" finder, measured on a corpus of forum-game posts
(tests/corpus/hints/posts.yaml): every near miss answered with what to write, no plain
talk answered, every command still a command. The finder alone on all of it; every post
through the cycle (one in five in the normal run, all with `-m long`)."""
import pathlib

import pytest
import yaml

from forumbot import store
from forumbot.parsing import parse_comment, parse_pm
from forumbot.shell.hints import HintContext, comment_hint, pm_hint

POSTS = yaml.safe_load((pathlib.Path(__file__).parents[1] / "corpus" / "hints" / "posts.yaml").read_text())
NAMES = ("alice", "bob", "carol", "dave", "erin")
LIVE = {"team_vote": "vote", "mission": "order", "proposal": "propose"}


def context(phase):
    return HintContext(live=frozenset({LIVE[phase]}), names=NAMES, team_size=2 if phase == "proposal" else 0)


def finds(post):
    via = post.get("via", "thread")
    return (comment_hint if via == "thread" else pm_hint)(post["text"], context(post["phase"]))


def parsed(post):
    return (parse_comment if post.get("via", "thread") == "thread" else parse_pm)(post["text"])


def test_the_corpus_has_both_sides():
    kinds = [p["expect"] for p in POSTS]
    assert len(POSTS) >= 60
    assert kinds.count("hint") >= 25 and kinds.count("nothing") >= 25 and kinds.count("counted") >= 15


def test_every_near_miss_is_answered_and_no_plain_talk_is():
    missed = [p["text"] for p in POSTS if p["expect"] == "hint" and (finds(p) is None or finds(p).meant != p["meant"])]
    talked = [(p["text"], finds(p)) for p in POSTS if p["expect"] == "nothing" and finds(p) is not None]
    counted = [p["text"] for p in POSTS if p["expect"] == "counted" and (not parsed(p) or finds(p) is not None)]
    hinted_commands = [p["text"] for p in POSTS if p["expect"] != "counted" and parsed(p)]
    assert missed == [], "near misses with no answer (or the wrong one)"
    assert talked == [], "plain talk answered"
    assert counted == [], "commands not read as commands"
    assert hinted_commands == [], "a near miss or talk read as a command"


def test_a_hint_is_only_for_what_the_player_could_do_now():
    assert comment_hint("**APROVE**", HintContext()) is None  # not a voter now
    assert comment_hint("**APROVE**", context("proposal")) is None
    assert comment_hint("**alice, bob**", context("team_vote")) is None  # only the leader's list
    assert pm_hint("SABOTAJE", context("team_vote")) is None
    assert comment_hint("**SABOTAJE**", context("mission")) is None  # orders go by PM: not in the thread


def _at(t, phase):
    if phase in ("team_vote", "mission"):
        t.propose(["alice", "bob"])
    if phase == "mission":
        t.vote_all(True)
    assert t.state.phase == phase
    s = t.state
    return {"team_vote": "dave", "mission": "bob", "proposal": s.shown(s.leader)}[phase]


@pytest.mark.parametrize("i", [pytest.param(i, marks=() if i % 5 == 0 else pytest.mark.long) for i in range(len(POSTS))])
def test_each_post_through_the_cycle(local_game, i):
    post = POSTS[i]
    t = local_game()
    author = _at(t, post["phase"])
    events = t.export()["events"]
    said = len(t.people.pms_to(author))
    if post.get("via", "thread") == "thread":
        t.say(author, post["text"])
    else:
        t.pm(author, post["text"])
    assert not t.cycle().errors
    assert store.Inbound.select().where(store.Inbound.state != "done").count() == 0
    new = t.people.pms_to(author)[said:]
    after = t.export()["events"]
    hints = [m for m in new if "did you mean" in m]
    if post["expect"] == "hint":
        assert after == events, "a near miss changed the game"
        assert len(new) == 1 and f"did you mean **{post['meant']}**" in new[0], new
    elif post["expect"] == "nothing":
        assert after == events and hints == []
        assert len(new) == (1 if post.get("via") == "pm" else 0), new  # a PM: the usual "no command"
    else:
        assert after[len(events):] and hints == []
