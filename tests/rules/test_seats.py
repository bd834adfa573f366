"""A seat has an identity of its own (`rules/state.Seat.id`, the name it was dealt under),
apart from the username on it (`Seat.name`). REPLACE changes only the username: the state
and the events go on naming the seat by its id, and everything players read names the
username on the seat now. So any forum username may take a seat, even one that is also a
word of the bot's records."""
import json
import random
import re
from datetime import datetime, timedelta, timezone

import pytest

from forumbot.rules import events as ev
from forumbot.rules import make_config, replay
from forumbot.rules.commands import HostReplace, Refusal
from forumbot.rules.state import GameState

# usernames that are also words of the records (votes, orders, results, sides, roles,
# fields): the old rename by value had to refuse them
RECORD_WORDS = ["approve", "sabotage", "spy", "merlin", "success", "resistance", "holder", "leader"]


def host(t, text, who="host"):
    t.people.pm(who, f"{t.game.tag} host", text)
    t.cycle()
    return t.people.pms_to(who)[-1]


def play_to_the_end(t, limit=12):
    for _ in range(limit):
        if t.game.status != "running":
            return
        t.mission(sabotage=t.spies())
    assert t.game.status != "running", "the game did not end"


def said_after(t, user, since):
    return t.people.pms_to(user)[since:]


@pytest.mark.parametrize("newcomer", RECORD_WORDS)
def test_any_username_may_take_a_seat_and_the_game_plays_on(local_game, newcomer):
    t = local_game()
    tag = t.game.tag
    seat = t.state.next_leader(t.state.leader)  # the seat that leads mission 2
    old = t.state.shown(seat)
    before_pms = len(t.people.pms_to(old))
    before_posts = len(t.people.thread(t.game.thread))
    assert "REPLACE done" in host(t, f"REPLACE {tag} {old} WITH {newcomer}")
    s = t.state
    assert s.seat_of(newcomer).id == seat and s.seat_of(old) is None
    assert s.seat(seat).name == newcomer  # the seat keeps its id; only the username changed
    assert s.replaced == {old: seat}
    # the newcomer got the seat's role PM, and the leader's prompt names them now
    assert any("Your role" in p for p in t.people.pms_to(newcomer))
    play_to_the_end(t)
    out = t.export()
    names = [p["name"] for p in out["players"]]
    assert newcomer in names and old not in names
    assert next(p for p in out["players"] if p["name"] == newcomer)["seat"] == seat
    for v in out["votes"]:
        assert old not in v["votes"] and newcomer in v["votes"]
        assert v["leader"] != old and old not in v["team"]
    assert any(m["leader"] == newcomer for m in out["missions"])
    # the newcomer's own votes counted (not defaults)
    assert all(newcomer not in v["defaulted"] for v in out["votes"])
    # the player who left was told once, and nothing else went to them
    gone = said_after(t, old, before_pms)
    assert len(gone) == 1 and "given your seat" in gone[0]
    # no post after the one that announced the replace names the player who left
    later = t.people.thread(t.game.thread)[before_posts:]
    announced = next(i for i, p in enumerate(later) if newcomer in p and old in p)
    for post in later[announced + 1:]:
        assert not re.search(rf"\b{old}\b", post), post
    # the log names the seat by its id throughout
    replaced = [e for e in out["events"] if e["type"] == "player_replaced"]
    assert replaced[0]["data"]["player"] == seat and replaced[0]["data"]["by"] == newcomer
    after = out["events"][out["events"].index(replaced[0]) + 1:]
    votes = [e["data"] for e in after if e["type"] == "vote_cast"]
    assert any(v["player"] == seat for v in votes) and not any(v["player"] == newcomer for v in votes)
    led = [e["data"]["leader"] for e in out["events"] if e["type"] in ("proposal_opened", "team_proposed")]
    assert seat in led and newcomer not in led


def test_a_seat_changes_hands_twice_and_every_old_name_finds_it(local_game):
    t = local_game()
    tag = t.game.tag
    assert "REPLACE done" in host(t, f"REPLACE {tag} bob WITH zed")
    assert "REPLACE done" in host(t, f"REPLACE {tag} zed WITH yan")
    s = t.state
    assert s.seat("bob").name == "yan" and s.replaced == {"bob": "bob", "zed": "bob"}
    for gone, now in (("bob", "zed"), ("zed", "yan")):  # each told once, naming who took it
        notices = [p for p in t.people.pms_to(gone) if "given your seat" in p]
        assert len(notices) == 1 and now in notices[0]
    assert not [p for p in t.people.pms_to("yan") if "given your seat" in p]
    assert "played in this game before" in host(t, f"REPLACE {tag} carol WITH zed")
    assert "played in this game before" in host(t, f"REPLACE {tag} carol WITH bob")
    # both players who left are told who has the seat now; neither can act
    for gone in ("bob", "zed"):
        t.pm(gone, "APPROVE")
        t.cycle()
        assert "yan" in t.people.pms_to(gone)[-1]
    # an old name typed by others still names the seat
    leader = t.state.shown(t.state.leader)
    others = [n for n in t.state.names if n not in (leader, "yan")]
    size = t.state.team_size()
    team = [leader, "zed", *others][:size]
    t.say(leader, "**PROPOSE: " + ", ".join(team) + "**")
    t.cycle()
    assert "bob" in t.state.team
    t.vote_all(True)
    assert t.export()["votes"][-1]["votes"]["yan"] == "approve"
    # a restart rebuilds the same state from the log
    state = t.state
    t.cycle(fresh=True)
    assert t.state == state


def test_a_newcomer_named_like_another_seats_first_player_is_refused(local_game):
    t = local_game()
    tag = t.game.tag
    host(t, f"REPLACE {tag} bob WITH zed")
    events = t.export()["events"]
    assert "played in this game before" in host(t, f"REPLACE {tag} carol WITH Bob")
    assert t.export()["events"] == events


# --- the pure engine: logs, and logs written before seats had ids ------------------------

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank"]
CONFIGS = {
    "resistance": {},
    "resistance-plot": {"plot_cards": True},
    "so-say-we-all": {"mission_cards": True},
    "avalon": {"plot_cards": True, "lady_of_the_lake": True, "roles": ["percival", "morgana"]},
    "avalon-2020": {"plot_cards": True},
}


def game_with_replaces(preset: str, seed: int, newcomers=RECORD_WORDS):
    """A random game in which the host gives seats away now and then (by default to
    usernames that are words of the records): (config, events)."""
    from forumbot.rules.engine import advance, started
    from forumbot.rules.random_play import _HOST_PHASES, host_move, random_command

    config = make_config(preset, NAMES, **CONFIGS[preset])
    rng = random.Random(seed)
    state, events = started(config, seed, T0)
    events, at, words = list(events), T0, iter(newcomers)
    for step in range(5000):
        if state.phase == "finished":
            break
        at += timedelta(minutes=rng.randint(1, 90))
        if step in (20, 60, 140):
            cmd = HostReplace(at=at, author="host", target=rng.choice(state.ids), newcomer=next(words))
        else:
            cmd = (host_move(state, at) if state.phase in _HOST_PHASES else None) or random_command(state, rng, at)
        result = advance(state, cmd)
        if isinstance(result, Refusal):
            assert not isinstance(cmd, HostReplace), result
            continue
        state, new = result
        events += new
        at = max(at, state.last_event_at or at)
    return config, events


def legacy(events: list) -> list:
    """The same log as a bot before seat ids wrote it: from each REPLACE on, the seat is
    named by its newcomer (renamed by value in every later event)."""
    out, names = [], {}  # seat id -> the username the old log names it by
    for e in events:
        data = _renamed(json.loads(json.dumps(e.json_data())), names)
        if e.type == ev.PLAYER_REPLACED:
            data.pop("keeps_id", None)
            names[e.json_data()["player"]] = data["by"]
        out.append(ev.from_json(e.type, e.at, data))
    return out


def _renamed(value, names):
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, dict):
        return {_renamed(k, names): _renamed(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    return value


def shown(state: GameState) -> dict:
    """What readers see of a state: the seats by username, and the records by username."""
    n = state.shown
    return {
        "seats": [(s.name, s.role, s.side, s.disqualified) for s in state.seats],
        "votes": [{n(k): x for k, x in v.votes.items()} for v in state.vote_history],
        "teams": [[n(x) for x in m.team] for m in state.missions],
        "winner": (state.winner, state.win_reason), "phase": state.phase,
    }


@pytest.mark.parametrize("preset", list(CONFIGS))
def test_a_log_from_before_seat_ids_reads_as_it_did(preset):
    for seed in range(4):  # (the old bot refused usernames that were words of its records)
        config, events = game_with_replaces(preset, seed, ["zed", "yan", "xia"])
        if not any(e.type == ev.PLAYER_REPLACED for e in events):
            continue
        assert shown(replay(config, seed, legacy(events))) == shown(replay(config, seed, events))


@pytest.mark.parametrize("preset", list(CONFIGS))
def test_seats_given_to_usernames_that_are_record_words_change_no_record(preset):
    for seed in range(4):
        config, events = game_with_replaces(preset, seed)
        state = replay(config, seed, events)
        ids = set(state.ids)
        assert ids == set(NAMES)  # the seats keep their ids
        assert {s.name for s in state.seats} & set(RECORD_WORDS)  # and some changed hands
        for v in state.vote_history:
            assert set(v.votes) <= ids and set(v.votes.values()) <= {"approve", "reject", "abstain"}
            assert v.leader in ids and set(v.team) <= ids
        for m in state.missions:
            assert set(m.orders) <= ids and set(m.orders.values()) <= {"support", "sabotage"}
            assert m.result in ("success", "fail")
        assert state.winner in ("resistance", "spies", None)


def test_neither_a_host_nor_the_bot_takes_a_seat(local_game):
    """A host who does not play may have seen every role (STATUS shows them), and the bot
    runs the game: neither may be the newcomer of a REPLACE."""
    t = local_game(extra="cohosts: [cora]\n")
    tag = t.game.tag
    events = t.export()["events"]
    assert "hosts this game" in host(t, f"REPLACE {tag} bob WITH host")
    assert "hosts this game" in host(t, f"REPLACE {tag} bob WITH Cora")
    assert "bot's own account" in host(t, f"REPLACE {tag} bob WITH {t.forum.bot_name}")
    assert t.export()["events"] == events and t.state.seat("bob").name == "bob"


def test_a_database_of_the_bot_before_seat_ids_plays_on(tmp_path):
    """An operator restores a database the bot wrote before seats had ids (made by
    tests/fixtures/old_db/make.py at commit fe5b5d1): an avalon game where the host gave
    bob's seat to zed during mission 2's vote. The new bot reads it and plays on: zed's
    vote stands, bob is told the seat is gone, the seat changes hands again, and the game
    ends."""
    import shutil
    from datetime import datetime, timezone
    from pathlib import Path

    from adapters.local import LocalForum
    from forumbot import store
    from tests.fakes.clock import Clock
    from tests.fakes.table import LocalPeople, Table

    here = Path(__file__).parents[1] / "fixtures" / "old_db"
    for name in ("bot.db", "forum.db"):
        shutil.copy(here / name, tmp_path / name)
    store.connect(f"sqlite:///{tmp_path}/bot.db")
    try:
        clock = Clock(datetime(2026, 11, 29, 20, 10, tzinfo=timezone.utc))
        forum = LocalForum(str(tmp_path / "forum.db"), clock=clock)
        t = Table(forum, LocalPeople(forum), clock, players=["alice", "zed", "carol", "dave", "erin", "frank", "gina"])
        t.game_id = store.Game.select().first().id
        s = t.state
        assert s.phase == "team_vote" and s.names[1] == "zed" and s.votes["zed"] == "approve"
        t.pm("bob", "REJECT")
        t.cycle()
        assert "no longer play" in t.people.pms_to("bob")[-1] and t.state.votes["zed"] == "approve"
        assert "REPLACE done" in host(t, f"REPLACE {t.game.tag} zed WITH yan")
        assert t.state.seat_of("yan") is not None and t.state.votes[t.state.seat_of("yan").id] == "approve"
        t.vote_all(True)
        for _ in range(40):  # on to the end: missions, the Lady, the assassination
            st = t.state
            if t.game.status != "running":
                break
            if st.phase == "mission":
                t.orders(sabotage=t.spies())
            elif st.phase == "lady":
                holder = st.actors[0]
                target = next(x for x in st.ids if x != holder and x not in st.extra["lady"].past)
                t.say(st.shown(holder), f"**LADY: {st.shown(target)}**")
                t.cycle()
            elif st.phase == "assassination":
                t.say(st.shown(st.actors[0]), f"**ASSASSINATE: {st.names[0]}**")
                t.cycle()
            else:
                t.mission(sabotage=t.spies())
            clock.advance(minutes=5)
        out = t.export()
        assert "yan" in [p["name"] for p in out["players"]] and out["winner"] in ("resistance", "spies")
        assert t.state == replay(t.game.game_config(), t.game.seed, store.game_events(t.game))
    finally:
        store.close()
