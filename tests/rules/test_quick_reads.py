"""The engine's quick paths make what the slow ones make: events and commands built by their
makers (events.maker, events.builder for Tx.emit, commands.maker) are the class's own, with the
same checks; a seat's copy is the seat; and, on Python 3.11, the hot paths stay specialised (an
event's or a command's fields live in slots: the makers fill a filler class's slots, each store
specialised, then make it the frozen class; the reads are slot reads)."""
import random
import sys
from dataclasses import FrozenInstanceError, dataclass, fields
from datetime import timedelta

import pytest

from forumbot.rules import commands as cm
from forumbot.rules import events as ev
from forumbot.rules import make_config
from forumbot.rules.random_play import play_out
from forumbot.rules.state import Seat, _copy_seat
from tests.support.pure import NAMES, T0

VOTE = {"player": "alice", "vote": "approve", "via": "pm"}
CLOSED = {"mission": 1, "proposal": 2, "leader": "bob", "team": ["alice", "bob"], "votes": {"alice": "approve"},
          "defaulted": [], "approve": 1, "reject": 0, "approved": True, "rejections": 0}


@pytest.mark.parametrize("data", [VOTE, {**VOTE, "critical": True}, {**VOTE, "by": "carol", "passed": True}])
def test_an_event_made_quickly_is_the_class_s_own(data):
    want = ev.VoteCast(at=T0, **data)
    for got in (ev.maker(ev.VoteCast)(T0, **data), ev.builder(ev.VoteCast)(T0, dict(data))):
        assert type(got) is ev.VoteCast and got == want and repr(got) == repr(want)
        assert got.to_json() == want.to_json() and list(got.to_json()["data"]) == list(want.to_json()["data"])
        with pytest.raises(FrozenInstanceError):
            got.vote = "reject"  # type: ignore[misc]
        assert not hasattr(got, "__dict__")  # (slots: what the filler filled)


def test_each_event_gets_its_own_default_containers():
    a, b = ev.builder(ev.VoteClosed)(T0, dict(CLOSED)), ev.maker(ev.VoteClosed)(T0, **CLOSED)
    assert a == b == ev.VoteClosed(at=T0, **CLOSED)
    assert a.critical == [] and a.critical is not b.critical and a.proxied is not b.proxied


@pytest.mark.parametrize("data", [{"player": "alice", "vote": "approve"},  # a field missing
                                  {**VOTE, "colour": "red"},  # one unknown
                                  {"player": "alice", "vote": "approve", "colour": "red"},  # both
                                  {**VOTE, "at": T0}])  # the time twice
def test_emit_refuses_what_the_class_refuses(data):
    with pytest.raises(TypeError):
        ev.VoteCast(at=T0, **data)
    with pytest.raises(TypeError):
        ev.builder(ev.VoteCast)(T0, dict(data))


@pytest.mark.parametrize("cls", sorted(ev.TYPES.values(), key=lambda c: c.type), ids=lambda c: c.type)
def test_every_event_class_has_its_makers(cls):
    assert callable(ev.maker(cls)) and callable(ev.builder(cls))
    assert ev.maker(cls) is ev.MAKE[cls] and ev.builder(cls) is ev.BUILD[cls]  # (made once)


def _sample(cls) -> tuple:
    return tuple(T0 if f.name in ("at", "until", "down_since") else f"{f.name}-value" for f in fields(cls)
                 if f.default is f.default_factory)  # (the fields with no default)


COMMANDS = sorted((c for c in vars(cm).values() if isinstance(c, type) and issubclass(c, cm.Command)),
                  key=lambda c: c.__name__)


@pytest.mark.parametrize("cls", COMMANDS, ids=lambda c: c.__name__)
def test_a_command_made_quickly_is_the_class_s_own(cls):
    args = _sample(cls)
    got, want = cm.maker(cls)(*args), cls(*args)
    assert type(got) is cls and got == want and repr(got) == repr(want) and hash(got) == hash(want)
    with pytest.raises(FrozenInstanceError):
        got.author = "someone"


@dataclass(frozen=True)
class Shout(cm.Command):  # (a rule module's command that is not slotted)
    words: str


def test_a_command_with_a_dict_is_made_by_its_class():
    from forumbot.rules.makers import filler

    assert filler(Shout) is None
    got, want = cm.maker(Shout)(T0, "alice", "hello"), Shout(T0, "alice", "hello")
    assert type(got) is Shout and got == want and hash(got) == hash(want)
    with pytest.raises(FrozenInstanceError):
        got.author = "someone"


def test_a_seat_s_copy_is_the_seat_and_its_own():
    seat = Seat("alice", "spy", "spies", disqualified=True, missed=2, name="alice2")
    copy = _copy_seat(seat)
    assert copy == seat and copy is not seat
    assert all(getattr(copy, f.name) == getattr(seat, f.name) for f in fields(Seat))
    copy.missed = 3
    assert seat.missed == 2


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the specialised instructions are 3.11's")
def test_the_hot_reads_specialise():
    import dis

    from forumbot.rules import folds, team

    config = make_config("resistance", NAMES[:5], leader_order="random")
    for seed in range(300):
        play_out(config, seed, random.Random(seed), T0 + timedelta(days=seed))

    def reads(fn, names):
        out: dict[str, list[str]] = {}
        for i in dis.get_instructions(fn, adaptive=True):
            if i.opname.startswith("LOAD_ATTR") and i.argval in names:
                out.setdefault(i.argval, []).append(i.opname)
        return out

    # every read of a VoteCast's fields in its fold (straight-line code: each one runs)
    event_reads = reads(folds._vote_cast, {"player", "at", "vote", "via", "critical"})
    assert len(event_reads) == 5 and all("LOAD_ATTR_ADAPTIVE" not in ops for ops in event_reads.values()), event_reads
    # a TeamVote's fields in the vote handler: at least one read of each specialised (the
    # others may sit in a refusal's branch that never ran)
    command_reads = reads(team.vote, {"author", "choice", "via", "critical", "passed"})
    # and the makers' stores: every field's specialised (the filler sets them plainly)
    for made in (ev.maker(ev.VoteCast), cm.maker(cm.TeamVote)):
        stores = [i.opname for i in dis.get_instructions(made, adaptive=True)
                  if i.opname.startswith("STORE_ATTR") and i.argval != "__class__"]
        assert stores and set(stores) == {"STORE_ATTR_SLOT"}, stores
    assert len(command_reads) == 5 and all(set(ops) - {"LOAD_ATTR_ADAPTIVE"} for ops in command_reads.values()), \
        command_reads
