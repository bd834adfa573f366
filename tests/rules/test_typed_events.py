"""Typed events: each event type is a dataclass registered by name (`rules/events.py`), with
its JSON form for the store and `export`, and the bot reads events by their fields."""
import json
import random
import sys
from datetime import datetime, timezone

import pytest

from forumbot.rules import events as ev
from forumbot.rules import make_config
from forumbot.rules.hooks import plugin_classes
from forumbot.rules.random_play import play_out

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy"]
GAMES = [
    ("resistance", 5, {}),
    ("resistance-plot", 7, {"plot_cards": True}),
    ("so-say-we-all", 8, {"mission_cards": True}),
    ("avalon", 8, {"plot_cards": True, "lady_of_the_lake": True, "roles": ["percival", "morgana"]}),
    ("avalon", 8, {"excalibur": True, "roles": ["percival", "morgana", "tristan", "isolde"]}),
    ("avalon-2020", 8, {"plot_cards": True}),
]


def games(seeds=range(6)):
    for preset, n, options in GAMES:
        config = make_config(preset, NAMES[:n], **options)
        for seed in seeds:
            _, events, _ = play_out(config, seed, random.Random(seed), T0)
            yield preset, events


def test_every_event_type_has_a_class():
    plugin_classes()  # (every module of the table loaded)
    names = {v for k, v in vars(ev).items() if k.isupper() and isinstance(v, str)}
    assert names - set(ev.TYPES) == set()
    seen = {e.type for _, events in games(range(3)) for e in events}
    assert seen - set(ev.TYPES) == set()


def test_the_json_form_reads_back_to_the_same_event():
    for preset, events in games():
        for e in events:
            assert not isinstance(e, ev.RawEvent), (preset, e)
            stored = json.loads(json.dumps(e.to_json()))
            back = ev.from_json(stored["type"], e.at, stored["data"])
            assert type(back) is type(e), (preset, e.type)
            assert json.loads(json.dumps(back.to_json())) == stored
            assert back.to_json()["data"] == stored["data"]  # keys in the same order too
            assert list(back.to_json()["data"]) == list(stored["data"])


def test_an_unknown_or_misshapen_event_is_kept_as_written():
    raw = ev.from_json("a_module_switched_off", T0, {"x": 1})
    assert isinstance(raw, ev.RawEvent) and raw.to_json()["data"] == {"x": 1}
    odd = ev.from_json(ev.VOTE_CAST, T0, {"player": "alice"})  # a field missing
    assert isinstance(odd, ev.RawEvent) and odd.to_json()["data"] == {"player": "alice"}
    with pytest.raises(TypeError):
        ev.VoteCast(at=T0, player="alice", vote="approve", via="thread", colour="red")
    vote = ev.VoteCast(at=T0, player="alice", vote="approve", via="thread")
    assert vote.to_json()["data"] == {"player": "alice", "vote": "approve", "via": "thread"}
    with pytest.raises(AttributeError):
        vote.vote = "reject"  # frozen


def test_an_event_time_from_another_zone_is_written_as_its_utc_instant():
    """The log and `export` mark every time with Z (UTC): a time that carries another zone
    is converted, not relabelled, and a naive one is taken as UTC, as the store keeps them."""
    from datetime import timedelta
    plus_two = datetime(2026, 12, 2, 14, 30, tzinfo=timezone(timedelta(hours=2)))
    assert ev.VoteCast(at=plus_two, player="a", vote="approve", via="thread").to_json()["at"] == "2026-12-02T12:30:00Z"
    naive = datetime(2026, 12, 2, 14, 30)
    assert ev.VoteCast(at=naive, player="a", vote="approve", via="thread").to_json()["at"] == "2026-12-02T14:30:00Z"


def test_the_bot_reads_events_by_their_fields_not_by_their_json():
    """No module of the bot reads `.data` (the JSON form) of an event: the store and
    export write `to_json()`, and everything else reads the fields."""
    from forumbot.cli.demo import play

    callers: set[str] = set()
    original = ev.Event.data

    def data(self):
        callers.add(sys._getframe(1).f_globals.get("__name__", "?"))
        return original.fget(self)

    ev.Event.data = property(data)
    try:
        for preset, modules in [("resistance", ()), ("resistance-plot", ()), ("so-say-we-all", ()),
                                ("avalon", ("excalibur", "lovers")), ("avalon-2020", ())]:
            play(preset, 8, 3, echo=lambda *a: None, modules=modules)
    finally:
        ev.Event.data = original
    assert not {c for c in callers if c.startswith(("forumbot", "adapters"))}, callers


def test_logs_written_by_earlier_bots_read_back_typed():
    """A restored database holds logs an earlier bot wrote (the identity fixtures' full logs
    were written by the engine before the events were typed): each event comes back as
    its class and writes the same JSON again; and the fields older logs lacked default."""
    from pathlib import Path

    plugin_classes()
    with open(Path(__file__).parents[1] / "fixtures" / "engine_logs" / "full_logs.json") as f:
        logs = json.load(f)
    assert len(logs) >= 20
    for key, log in logs.items():
        for row in log:
            at = datetime.fromisoformat(row["at"].replace("Z", "+00:00"))
            e = ev.from_json(row["type"], at, row["data"])
            assert not isinstance(e, ev.RawEvent), (key, row)
            assert e.to_json() == row, (key, row)
    old = ev.from_json(ev.VOTE_CLOSED, T0, {
        "mission": 1, "proposal": 1, "leader": "alice", "team": ["alice", "bob"],
        "votes": {"alice": "approve", "bob": "reject"}, "defaulted": [], "approve": 1, "reject": 1,
        "approved": False, "rejections": 1})  # (before Critical Votes and the proxy cards)
    assert isinstance(old, ev.VoteClosed) and old.not_voting == [] and old.proxied == {}
    start = ev.from_json(ev.GAME_STARTED, T0, {"order": ["a"], "roles": {"a": "spy"}, "sides": {"a": "spies"}})
    assert isinstance(start, ev.GameStarted) and start.seed == 0
