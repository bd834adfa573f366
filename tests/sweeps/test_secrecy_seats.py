"""Secrecy over simulated games in which the host gives seats away mid-game (REPLACE): the
newcomer learns the seat's role and what it knows, by PM, and nothing else; the player who
left learns nothing more after the one notice that the seat was given away; and nothing
public ties a name to a side."""
import re

import pytest

from forumbot.cli.demo import play
from tests.support.secrecy import expected_names, pm_leaks, public_leaks

TABLES = [("resistance", 6), ("resistance-plot", 7), ("avalon", 8), ("avalon-2020", 8), ("so-say-we-all", 7)]


def replaced_game(preset: str, n: int, seed: int):
    result, forum = play(preset, n, seed, echo=lambda *_: None, replaces=2)
    gone = [e for e in result["events"] if e["type"] == "player_replaced"]
    return result, forum, gone


def check(preset: str, n: int, seed: int) -> int:
    result, forum, gone = replaced_game(preset, n, seed)
    names = [p["name"] for p in result["players"]]
    left = _left(gone)
    assert result["winner"] in ("resistance", "spies", None)
    assert public_leaks(forum, names + left) == [], (preset, seed)
    assert pm_leaks(forum, result) == [], (preset, seed)
    now = _now_on(gone)  # a username that left -> whoever has that seat at the end
    for p in names:  # a role PM names exactly whom the seat's role may know (then or now)
        role_pm = [r["body"] for r in forum.messages_to(p) if "Your role" in r["body"]][-1]
        known = "\n".join(x for x in role_pm.split("\n") if x.startswith("You know"))
        named = {now.get(q, q) for q in names + left if q != p and re.search(rf"\b{q}\b", known)}
        assert named - {p} == expected_names(result, p), (preset, seed, p)
    for who in left:  # after the notice, nothing more for the player who left
        rows = [r for r in forum.messages_to(who) if r["sender"] == forum.bot_name]
        notice = max(i for i, r in enumerate(rows) if "given your seat" in r["body"])
        later = [r["body"][:60] for r in rows[notice + 1:] if "no longer play" not in r["body"]]
        assert later == [], (preset, seed, who, later)
    return len(gone)


def _now_on(replaced: list[dict]) -> dict[str, str]:
    on, seat_of = {}, {}
    for e in replaced:
        seat = e["data"]["player"]
        seat_of[on.get(seat, seat)] = seat
        on[seat] = e["data"]["by"]
    return {user: on[seat] for user, seat in seat_of.items()}


def _left(replaced: list[dict]) -> list[str]:
    """The usernames that left a seat, from the log's REPLACEs (which name seats by id)."""
    on, out = {}, []
    for e in replaced:
        seat = e["data"]["player"]
        out.append(on.get(seat, seat))
        on[seat] = e["data"]["by"]
    return out


@pytest.mark.parametrize("preset,n", TABLES)
def test_secrecy_when_seats_change_hands(preset, n):
    replaced = sum(check(preset, n, seed) for seed in range(4))
    assert replaced >= 2, "the sweep gave no seat away"


@pytest.mark.long
@pytest.mark.parametrize("preset,n", TABLES)
def test_secrecy_when_seats_change_hands_long(preset, n):
    assert sum(check(preset, n, seed) for seed in range(4, 104)) >= 50
