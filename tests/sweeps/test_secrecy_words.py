"""The secrecy sweep (tests/test_secrecy.py) in games whose host set `words:` (issue 24): the
simulated players vote and send orders in the host's words, and now and then first write a
near miss (a misspelling, a look-alike letter, a vote not in bold, an order almost written)
that gets a private "did you mean". No public text links a player to a side before the end;
no answer is public; a "did you mean" says the same whatever the player's side, and no
outbox key is posted twice."""
import random
import re

import pytest

from adapters.local import LocalForum
from forumbot.cli import demo
from tests.support.secrecy import ROLE_WORDS, pm_leaks, public_leaks

WORDS = ('words: {approve: [yay, "vote in favor"], reject: [nay, deny], support: [succeed], '
         'sabotage: [betray]}\n')
NEAR = {"APPROVE": ["**Aprove**", "APPROVE", "**I vote yay**", "**\u0410PPROVE**", "*yay*"],
        "REJECT": ["**Rejct**", "REJECT", "**nay from me**", "[color=red]nay[/color]"]}
OWN = {"APPROVE": ["yay", "vote in favor"], "REJECT": ["nay", "deny"], "SUPPORT": ["succeed"],
       "SABOTAGE": ["betray"]}
ORDER_NEAR = {"SUPPORT": "suport", "SABOTAGE": "SABOTAJE"}


@pytest.fixture
def own_words(monkeypatch):
    """The demo's players, speaking the host's words (and their near misses, now and then)."""
    rng = random.Random(24)
    comment, send_pm = LocalForum.comment, LocalForum.send_pm
    monkeypatch.setattr(demo, "demo_config", lambda *a, **kw: _config(*a, **kw) + WORDS)

    def say(self, author, thread, body, *a, **kw):
        m = re.fullmatch(r"(My order: )?\*\*(APPROVE|REJECT|SUPPORT|SABOTAGE)\*\*", body)
        if m and m.group(2) in NEAR and rng.random() < 0.3:
            comment(self, author, thread, rng.choice(NEAR[m.group(2)]))
        if m and rng.random() < 0.8:
            body = f"{m.group(1) or ''}**{rng.choice(OWN[m.group(2)])}**"
        return comment(self, author, thread, body, *a, **kw)

    def pm(self, sender, to, subject, body, *a, **kw):
        if to == self.bot_name and body in OWN and sender != "host":
            if body in ORDER_NEAR and rng.random() < 0.3:
                send_pm(self, sender, to, subject, ORDER_NEAR[body])
            if rng.random() < 0.8:
                body = rng.choice(OWN[body])
        return send_pm(self, sender, to, subject, body, *a, **kw)

    monkeypatch.setattr(LocalForum, "comment", say)
    monkeypatch.setattr(LocalForum, "send_pm", pm)


_config = demo.demo_config


def check(result, forum) -> tuple[int, int]:
    names = [p["name"] for p in result["players"]]
    sides = set(names)
    assert result["winner"] in ("resistance", "spies"), result.get("problems")
    assert public_leaks(forum, names) == []
    assert pm_leaks(forum, result) == []
    keys = forum.keys_posted()
    assert len(keys) == len(set(keys)), "an outbox key posted twice"
    public = [forum.threads()[0]["body"]] + [r["body"] for r in forum.thread_comments(f"t{forum.threads()[0]['id']}")
                                             if r["author"] == forum.bot_name]
    assert not [p for p in public if "did you mean" in p]
    hints = [(n, r["body"]) for n in names for r in forum.messages_to(n)
             if r["sender"] == forum.bot_name and "did you mean" in r["body"]]
    for _, body in hints:
        said = re.sub(r"\*\*[^*]+\*\*", "", body)  # what to write is the player's own command
        assert not re.search(rf"\b{ROLE_WORDS}\b", said, re.I), body
    spoken = [r["body"] for r in forum.thread_comments(f"t{forum.threads()[0]['id']}") if r["author"] in sides]
    return len(hints), sum(b in ("**yay**", "**nay**", "**deny**", "**vote in favor**") for b in spoken)


def sweep(games: int, seed0: int = 0) -> tuple[int, int]:
    hinted = spoken = 0
    for i in range(games):
        preset, n = [("resistance", 5), ("avalon", 7), ("resistance-plot", 8), ("avalon", 10)][i % 4]
        result, forum = demo.play(preset, n, seed0 + i * 7 + n, echo=lambda *_: None)
        h, s = check(result, forum)
        hinted, spoken = hinted + h, spoken + s
    return hinted, spoken


def test_secrecy_sweep_with_the_hosts_words(own_words):
    hinted, spoken = sweep(games=8)
    assert hinted > 0 and spoken > 0  # the host's words were used, the near misses answered privately


@pytest.mark.long
def test_secrecy_sweep_with_the_hosts_words_long(own_words):
    hinted, spoken = sweep(games=120, seed0=500)
    assert hinted > 0 and spoken > 0
