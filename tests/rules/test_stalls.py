"""Tables that stall: a table that never proposes (binding ruling: the host is told after
one full turn of the leadership, the game is abandoned after a second), and deadlines that
fell while the bot was not running (binding ruling: they move to the restart plus
`outage_grace`)."""
import json
import re
from dataclasses import replace
from datetime import timedelta

import pytest

from forumbot.render import render_events
from forumbot.render.markup import markup_for
from forumbot.render.status import public_status, status_block
from forumbot.rules import Refusal, replay
from forumbot.rules.commands import HostDisqualify, HostPause, HostReplace, HostSkip, Postpone
from forumbot.rules.config import default_deadlines
from forumbot.rules.deadlines import due, expired, stamp
from forumbot.rules.presets import PRESETS
from tests.support.pure import NAMES, T0, Game


def miss(g: Game):
    """The open phase's deadline passes."""
    when = due(g.state)
    assert when is not None, g.state.phase
    g.at = max(g.at, when)
    result = g.do(expired(g.state, when))
    assert not isinstance(result, Refusal), result
    return result


def types(events):
    return [e.type for e in events]


# --- a table that never proposes ----------------------------------------------------------


def test_a_table_that_never_proposes_tells_the_host_once_then_is_abandoned():
    g = Game(5)
    leaders = []
    for _ in range(4):
        leaders.append(g.state.leader)
        assert "proposals_stalled" not in types(miss(g))
    leaders.append(g.state.leader)
    assert sorted(leaders) == sorted(NAMES[:5])  # every seat in turn has missed
    batch = miss(g)  # the fifth: one full turn
    assert types(batch) == ["proposal_missed", "proposals_stalled", "proposal_opened"]
    assert batch[1].data == {"mission": 1, "missed": 5, "turn": 5}
    assert g.state.running and g.state.phase == "proposal"
    msgs = render_events(g.state, batch, "G1")
    to_host = [m for m in msgs if m.to == "host"]
    assert len(to_host) == 1
    for word in ("SKIP G1", "REPLACE G1", "DISQUALIFY G1", "ABORT G1", "abandoned"):
        assert word in to_host[0].body, word
    public = next(m.body for m in msgs if m.to is None)
    assert "The host has been told" in public
    for _ in range(4):  # the second turn: no second PM to the host
        batch = miss(g)
        assert "proposals_stalled" not in types(batch) and g.state.running
        assert not any(m.to == "host" for m in render_events(g.state, batch, "G1"))
    batch = miss(g)  # the tenth: the second full turn
    assert types(batch) == ["proposal_missed", "game_ended"]
    end = batch[-1].data
    assert end["winner"] is None and end["reason"] == "abandoned"
    assert end["roles"] == {s.name: s.role for s in g.state.seats}
    assert not g.state.running and g.state.winner is None and g.state.win_reason == "abandoned"
    assert replay(g.config, g.seed, g.log) == g.state


def test_the_abandoned_end_post_says_nobody_proposed_and_reveals_the_roles():
    g = Game(5)
    for _ in range(10):
        batch = miss(g)
    post = next(m.body for m in render_events(g.state, batch, "G1") if m.to is None)
    assert "nobody proposed" in post and "no winner" in post and "winner:" not in post
    for s in g.state.seats:  # every player beside their role, as ABORT shows them
        assert re.search(rf"\| {s.name} \| {s.role.title()} \|", post), (s.name, post)
    assert "abandoned" in public_status(g.state, "G1")
    assert "abandoned" in status_block(g.state, "G1", markup_for("markdown"))


def test_any_proposal_resets_the_count():
    g = Game(5)
    for _ in range(4):
        miss(g)
    g.propose()
    g.vote_all("reject")  # rejected: the leadership passes, but a team was proposed
    assert g.state.phase == "proposal" and g.state.missed_proposals == 0
    for _ in range(4):
        assert "proposals_stalled" not in types(miss(g))
    assert "proposals_stalled" in types(miss(g))  # a full turn counted from the proposal


def test_a_proposal_after_the_warning_starts_the_count_again():
    g = Game(5)
    for _ in range(7):  # warned at 5, two into the second turn
        miss(g)
    g.propose()
    g.vote_all("reject")
    for _ in range(4):
        batch = miss(g)
        assert g.state.running and "proposals_stalled" not in types(batch)
    assert "proposals_stalled" in types(miss(g))  # a new stall: the host hears of it again
    assert g.state.running


def test_a_host_skip_of_the_proposal_counts_as_a_missed_proposal():
    g = Game(5)
    for _ in range(5):
        batch = g.do(HostSkip(g.tick(minutes=1), "host"))
    assert "proposals_stalled" in types(batch)


def test_disqualified_seats_are_skipped_so_a_turn_is_the_seats_that_lead():
    g = Game(5)
    leader = g.state.leader
    out = [n for n in NAMES[:5] if n != leader][:2]
    for name in out:
        g.do(HostDisqualify(g.tick(minutes=1), "host", name))
    assert g.state.leader_rotation() == 3
    leaders = []
    for _ in range(2):
        leaders.append(g.state.leader)
        assert "proposals_stalled" not in types(miss(g))
    leaders.append(g.state.leader)
    assert "proposals_stalled" in types(miss(g))  # the three seats that lead have missed
    assert not set(leaders) & set(out)
    for _ in range(2):
        miss(g)
    assert g.state.running
    assert miss(g)[-1].data["reason"] == "abandoned"


def test_a_replaced_seat_plays_again_and_its_proposal_saves_the_game():
    g = Game(5, reserves=("zoe",))
    for _ in range(5):
        miss(g)  # the host is told
    seat = g.state.leader
    g.do(HostReplace(g.tick(minutes=1), "host", seat, "zoe"))
    assert g.state.leader == seat and g.state.shown(seat) == "zoe"  # the seat leads, zoe on it
    g.propose()
    assert g.state.missed_proposals == 0 and g.state.stall_warned_at == 0


def _everyone_disqualified(preset, n, **kw):
    g = Game(n, preset=preset, **kw)
    for name in NAMES[:n]:
        if g.state.running and not g.state.seat(name).disqualified:
            g.do(HostDisqualify(g.tick(minutes=1), "host", name))
    return g


PRESET_TABLES = [("resistance", 5, {}), ("resistance-plot", 7, {"plot_cards": True}),
                 ("avalon", 8, {"plot_cards": True, "lady_of_the_lake": True}),
                 ("avalon-2020", 8, {"plot_cards": True}), ("so-say-we-all", 6, {"mission_cards": True})]


@pytest.mark.parametrize("preset,n,kw", PRESET_TABLES)
def test_a_table_whose_every_seat_is_disqualified_ends(preset, n, kw):
    g = _everyone_disqualified(preset, n, **kw)
    assert not g.state.active()
    steps = 0
    while g.state.running and steps < 100:
        miss(g)
        steps += 1
    assert not g.state.running, (g.state.phase, steps)
    if g.config.rules.missed_proposal_counts_as_rejection:  # five missed leads lose the quest first
        assert (g.state.winner, g.state.win_reason) == ("spies", "rejections")
    else:
        assert (g.state.winner, g.state.win_reason) == (None, "abandoned")
        assert g.state.missed_proposals == 2 * n  # every seat leads in turn, twice
    assert replay(g.config, g.seed, g.log) == g.state


@pytest.mark.parametrize("preset,n,kw", PRESET_TABLES)
def test_a_table_where_nobody_ever_acts_ends(preset, n, kw):
    """Every player gone from the start: every deadline passes, the game still ends."""
    g = Game(n, preset=preset, **kw)
    steps = 0
    while g.state.running and steps < 500:
        if g.state.phase == "assassination":
            break  # a missing Assassin's shot waits for the host (a ruling of its own)
        miss(g)
        steps += 1
    assert not g.state.running or g.state.phase == "assassination", (g.state.phase, steps)


def test_missed_proposals_that_count_as_rejections_still_lose_for_the_spies_first():
    g = Game(8, preset="avalon-2020", plot_cards=False)
    while g.state.running:
        miss(g)
    assert (g.state.winner, g.state.win_reason) == ("spies", "rejections")
    assert "proposals_stalled" not in types(g.log)


def test_through_the_moderator_the_host_is_told_and_the_game_is_abandoned(local_game, clock):
    t = local_game(extra="deadlines: {proposal: 10m}\n")
    warned_while_running = False
    for _ in range(40):  # a cycle every 5 minutes (the bot never looks down), nobody acts
        if t.game.status != "running":
            break
        clock.advance(minutes=5)
        t.cycle()
        warned = [p for p in t.people.pms_to("host") if "nobody has proposed" in p]
        if warned and t.game.status == "running":
            warned_while_running = True
            assert "SKIP G1" in warned[0] and "ABORT G1" in warned[0]
    assert warned_while_running
    assert len([p for p in t.people.pms_to("host") if "nobody has proposed" in p]) == 1
    e = t.export()
    assert e["winner"] is None and e["win_reason"] == "abandoned"
    assert e["events"][-1]["type"] == "game_ended" and e["events"][-1]["data"]["reason"] == "abandoned"
    assert sum(1 for x in e["events"] if x["type"] == "proposal_missed") == 10
    posts = t.people.thread(t.game.thread)
    assert any("The game is abandoned: nobody proposed a team." in p for p in posts)
    assert t.game.status == "abandoned" and e["status"] == "abandoned"


# --- deadlines moved after the bot was down --------------------------------------------------


def test_postpone_moves_the_open_deadline_to_until():
    g = Game(5)
    was = due(g.state)
    back = was + timedelta(hours=5)
    until = back + timedelta(hours=1)
    batch = g.do(Postpone(back, "the bot", until=until, down_since=was - timedelta(hours=2)))
    assert types(batch) == ["deadline_moved"]
    d = batch[0].data
    assert d == {"reason": "outage", "phase": "proposal", "was": was.isoformat(),
                 "until": until.isoformat(), "down_since": (was - timedelta(hours=2)).isoformat(),
                 "seconds": 6 * 3600}
    json.dumps([e.to_json() for e in batch])  # exported like every event
    assert due(g.state) == until
    assert expired(g.state, until - timedelta(seconds=1)) is None
    assert expired(g.state, until).at == until
    assert replay(g.config, g.seed, g.log) == g.state


def test_postpone_moves_a_close_grace_too():
    d = replace(default_deadlines(PRESETS["resistance"]), close_grace=600, team_vote=86400)
    g = Game(5, deadlines=d)
    g.propose()
    for s in g.state.seats:
        g.vote(s.name, "approve")
    assert g.state.phase == "team_vote"  # everyone voted: it closes close_grace after the last vote
    was = due(g.state)
    assert was == g.state.last_vote_at + timedelta(seconds=600)
    back = was + timedelta(hours=3)
    until = back + timedelta(hours=1)
    g.do(Postpone(back, "the bot", until=until, down_since=was - timedelta(minutes=1)))
    assert due(g.state) == until
    assert replay(g.config, g.seed, g.log) == g.state


def test_postpone_is_refused_when_paused_without_a_deadline_or_before_the_deadline():
    g = Game(5)
    was = due(g.state)
    early = Postpone(was - timedelta(minutes=1), "the bot", until=was + timedelta(hours=1),
                     down_since=T0)
    assert isinstance(g.do(early), Refusal)
    g.do(HostPause(g.tick(minutes=1), "host"))
    late = Postpone(was + timedelta(hours=1), "the bot", until=was + timedelta(hours=2), down_since=T0)
    r = g.do(late)
    assert isinstance(r, Refusal) and "paused" in r.reason
    never = Game(5, deadlines=replace(default_deadlines(PRESETS["resistance"]), proposal=None))
    r = never.do(Postpone(T0 + timedelta(days=3), "the bot", until=T0 + timedelta(days=3, hours=1),
                          down_since=T0))
    assert isinstance(r, Refusal) and "deadline" in r.reason
    back = was + timedelta(hours=1)
    before = Postpone(back, "the bot", until=back - timedelta(minutes=1), down_since=T0)
    assert isinstance(Game(5).do(before), Refusal)
    g = Game(5)  # an outage_grace of 0: the deadline moves to the restart itself
    assert types(g.do(Postpone(back, "the bot", until=back, down_since=T0))) == ["deadline_moved"]
    assert due(g.state) == back


def test_the_moved_deadline_is_announced_in_the_thread_with_the_games_time_zone():
    g = Game(5, timezone="Europe/Berlin")
    g.propose()
    g.vote_all("approve")
    assert g.state.phase == "mission"
    was = due(g.state)
    since = was - timedelta(hours=2)
    back = was + timedelta(hours=3)
    until = back + timedelta(hours=1)
    batch = g.do(Postpone(back, "the bot", until=until, down_since=since))
    msgs = render_events(g.state, batch, "G1")
    assert [m.to for m in msgs] == [None]  # one thread post, no PM
    text = msgs[0].body
    assert text == (f"The bot was not running from {stamp(since, g.config)} to {stamp(back, g.config)}, "
                    f"so the deadline of the open mission, {stamp(was, g.config)}, fell while nobody "
                    f"could act on it. It is now **{stamp(until, g.config)}**.")
    assert "CET" in text  # the game's own zone beside UTC
    for s in g.state.seats:  # nothing about who is what, or who has ordered what
        assert s.name not in text
    assert not re.search(r"spy|spies|resistance|support|sabotage", text, re.I)


def test_a_postponed_deadline_in_the_export(local_game, clock):
    from forumbot import store

    t = local_game()
    state = t.state
    was = due(state)
    clock.at = was + timedelta(hours=4)
    game = t.game
    until = clock.at + timedelta(hours=1)
    assert t.mod._apply(game, Postpone(clock.at, "the bot", until=until, down_since=was - timedelta(hours=1)))
    moved = [e for e in t.export()["events"] if e["type"] == "deadline_moved"]
    assert len(moved) == 1 and moved[0]["data"]["until"] == until.isoformat()
    assert due(t.mod.state(store.Game.get_by_id(game.id))) == until


def test_a_deadline_moved_because_the_forum_could_not_be_read_says_so():
    g = Game(5)
    was = due(g.state)
    batch = g.do(Postpone(was + timedelta(hours=2), "the bot", until=was + timedelta(hours=3),
                          down_since=was, reason="forum"))
    assert batch[0].data["reason"] == "forum"
    text = render_events(g.state, batch, "G1", "bbcode")[0].body
    assert text.startswith(f"The forum could not be read from {stamp(was)} to ")
    assert text.endswith(f"It is now [b]{stamp(was + timedelta(hours=3))}[/b].")
