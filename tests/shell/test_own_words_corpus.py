"""Both sides of the players' own words (issue 24, items 1-2), measured on a corpus of 200+
forum-game posts (tests/corpus/own_words/posts.yaml) in a game whose host set `words:`: how many
commands are taken, how many near misses are answered with what to write, and how many
plain bold talk posts are wrongly answered (target 0). The three figures are printed
(`pytest -s`). The reader and the finder on all of it; a sample through the whole cycle (all
of it with `-m long`)."""
import pathlib

import pytest
import yaml

from forumbot import store
from forumbot.parsing import parse_comment, parse_pm, word_table
from forumbot.shell.hints import HintContext, comment_hint, pm_hint

CORPUS = yaml.safe_load((pathlib.Path(__file__).parents[1] / "corpus" / "own_words" / "posts.yaml").read_text())
POSTS = CORPUS["posts"]
WORDS = {k: tuple(v) for k, v in CORPUS["words"].items()}
SIGNUP_WORDS = {k: tuple(v) for k, v in CORPUS["signup_words"].items()}
NAMES = ("alice", "bob", "carol", "dave", "erin")
LIVE = {"team_vote": "vote", "mission": "order", "proposal": "propose"}
AS = {"APPROVE": ("vote", "approve"), "REJECT": ("vote", "reject"), "ABSTAIN": ("vote", "abstain"),
      "SUPPORT": ("order", "support"), "SABOTAGE": ("order", "sabotage"), "JOIN": ("join", ""),
      "LEAVE": ("leave", ""), "PROPOSE": ("propose", "")}


def table(post):
    return word_table(SIGNUP_WORDS if post["phase"] == "signup" else WORDS)


def context(post):
    if post["phase"] == "signup":
        return HintContext()  # no game yet: nothing to hint at
    return HintContext(live=frozenset({LIVE[post["phase"]]}), names=NAMES,
                       team_size=2 if post["phase"] == "proposal" else 0, words=table(post))


def via(post):
    return post.get("via", "thread")


def finds(post):
    return (comment_hint if via(post) == "thread" else pm_hint)(post["text"], context(post))


def parsed(post):
    return (parse_comment if via(post) == "thread" else parse_pm)(post["text"], table(post))


def taken(post) -> bool:
    commands = parsed(post)
    return bool(commands) and (commands[-1].verb, commands[-1].choice if commands[-1].verb in ("vote", "order")
                               else "") == AS[post["as"]] and finds(post) is None


def answered(post) -> bool:
    hint = finds(post)
    return not parsed(post) and hint is not None and hint.meant == post["meant"]


def wrongly_answered(post) -> bool:
    return bool(parsed(post)) or finds(post) is not None


def test_the_corpus_is_large_and_has_every_side():
    kinds = [p["expect"] for p in POSTS]
    assert len(POSTS) >= 200
    assert kinds.count("counted") >= 60 and kinds.count("hint") >= 40 and kinds.count("nothing") >= 80
    assert {p["phase"] for p in POSTS} == {"team_vote", "proposal", "mission", "signup"}
    texts = [(p["phase"], via(p), p["text"]) for p in POSTS]
    assert len(set(texts)) == len(texts), "a post twice"


def test_the_three_figures(capsys):
    commands = [p for p in POSTS if p["expect"] == "counted"]
    misses = [p for p in POSTS if p["expect"] == "hint"]
    talk = [p for p in POSTS if p["expect"] == "nothing"]
    took = [p for p in commands if taken(p)]
    hinted = [p for p in misses if answered(p)]
    wrong = [p for p in talk if wrongly_answered(p)]
    with capsys.disabled():
        print(f"\nown words corpus: {len(POSTS)} posts; commands taken {len(took)} of {len(commands)}; "
              f"near misses answered {len(hinted)} of {len(misses)}; plain talk wrongly answered "
              f"{len(wrong)} of {len(talk)}")
    assert [p["text"] for p in commands if p not in took] == [], "commands not taken (or answered as near misses)"
    assert [(p["text"], finds(p)) for p in misses if p not in hinted] == [], "near misses not answered as meant"
    assert [(p["text"], parsed(p), finds(p)) for p in wrong] == [], "plain talk answered or taken"


def test_a_host_word_counts_only_in_its_own_game():
    """The same posts in a game with no `words:`: the host's words are talk there (some of
    them near misses of a built-in word), never a command."""
    for p in POSTS:
        if p["expect"] == "counted" and p["text"].strip("*_[]b/<>!. ").lower() in ("yay", "nay", "meh", "aye"):
            assert not (parse_comment if via(p) == "thread" else parse_pm)(p["text"]), p["text"]


# --- through the whole cycle -----------------------------------------------------------------------

def _at(t, phase):
    if phase in ("team_vote", "mission"):
        t.propose(["alice", "bob"])
    if phase == "mission":
        t.vote_all(True)
    assert t.state.phase == phase
    s = t.state
    return {"team_vote": "dave", "mission": "bob", "proposal": s.shown(s.leader)}[phase]


CYCLED = [i for i, p in enumerate(POSTS) if p["phase"] != "signup"]


@pytest.mark.parametrize("i", [pytest.param(i, marks=() if n % 6 == 0 else pytest.mark.long)
                               for n, i in enumerate(CYCLED)])
def test_each_post_through_the_cycle(local_game, i):
    post = POSTS[i]
    words = "words: {" + ", ".join(f"{k}: [{', '.join(repr(w) for w in v)}]" for k, v in WORDS.items()) + "}\n"
    t = local_game(extra=words)
    author = _at(t, post["phase"])
    events = t.export()["events"]
    said = len(t.people.pms_to(author))
    if via(post) == "thread":
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
        assert len(new) == (1 if via(post) == "pm" else 0), new
    else:
        assert hints == []
        if post["phase"] == "team_vote":
            assert t.state.votes.get("dave") == AS[post["as"]][1]
        elif post["phase"] == "proposal":
            assert t.state.phase == "team_vote"
        else:
            assert after[len(events):] or "SUPPORT" in new[-1], new  # (a resistance SABOTAGE: refused by PM)
