"""bench/vs_peer.py: without the peer's checkout it says so and stops; with a stand-in peer
(a game.py and bots/beginners.py of the peer's shape) it plays both sides and prints the
ratio in the same run."""
from __future__ import annotations

import re
import runpy
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "vs_peer.py"

_GAME = '''
class Game:
    def __init__(self, bots, roles):
        self.bots = [b() for b in bots]
        self.done = False
    def run(self):
        leader = self.bots[0]
        leader.select(self.bots, 2)
        for b in self.bots:
            b.vote(None)
        self.bots[1].sabotage()
        self.done = True
'''
_BOTS = '''
class RandomBot:
    def select(self, players, count):
        return players[:count]
    def vote(self, team):
        return True
    def sabotage(self):
        return False
'''


def _main():
    return runpy.run_path(str(BENCH))["main"]


def test_without_the_peer_it_says_so_and_stops(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("FORUMBOT_PEER", raising=False)
    assert _main()([str(tmp_path)]) == 0
    assert "no checkout of aigamedev/resistance" in capsys.readouterr().out


def test_with_a_peer_it_prints_both_sides_and_the_ratio(capsys, monkeypatch, tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "__init__.py").write_text("")
    (tmp_path / "bots" / "beginners.py").write_text(_BOTS)
    (tmp_path / "game.py").write_text(_GAME)
    for name in ("game", "bots", "bots.beginners"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("FORUMBOT_PEER", str(tmp_path))
    assert _main()(["--rounds", "2", "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert "ours:" in out and "peer:" in out and "ours / peer:" in out
    # the stand-in's game is 7 decisions: a selection, 5 votes, a mission card
    assert "peer 7.0" in out and "ours / peer per decision:" in out
    ours = float(re.search(r"decisions per game .*: ours ([0-9.]+)", out).group(1))
    assert 20 < ours < 120  # a game of The Resistance: at least 3 missions' proposals, votes, cards
