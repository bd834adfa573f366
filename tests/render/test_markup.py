"""render/ per markup: a whole game's posts, PMs, refusals and HELP on BBCode carry no
Markdown bold (and on Markdown no BBCode); the marks of said() never reach a forum; every
event type that had words before still has them in the registry; a module's role note
lands in the role PM."""
import random
from datetime import timedelta

import pytest

from forumbot.render import registry, render_events, render_refusal
from forumbot.render.help import help_for
from forumbot.render.opening import _role_pm
from forumbot.render.ops import defuse, scrub, spoken
from forumbot.rules import events as ev
from forumbot.rules import make_config
from forumbot.rules.commands import (
    SAID_CLOSE,
    SAID_OPEN,
    HostDisqualify,
    HostExtend,
    HostPause,
    HostReplace,
    HostResume,
    Propose,
    Refusal,
    Remind,
    TeamVote,
    said,
)
from forumbot.rules.engine import advance, started
from forumbot.rules.modules.assassin import Assassinate
from forumbot.rules.modules.lady import LadyTarget
from forumbot.rules.random_play import random_command
from forumbot.rules.state import FINISHED, SETUP
from tests.support.pure import NAMES, T0

GAMES = [
    ("resistance", 7, {}),
    ("resistance-plot", 8, {"plot_cards": True}),
    ("avalon", 8, {"plot_cards": True, "lady_of_the_lake": True, "roles": ("percival", "morgana")}),
    ("avalon-2020", 8, {"plot_cards": True}),
    ("so-say-we-all", 9, {"mission_cards": True}),
]
TAG = "G7"


def _host_moves(state, at, step, rng):
    """Now and then the host steps in, and players send what the rules refuse."""
    host = state.config.host
    seats = [s.name for s in state.seats if not s.disqualified]
    kind = step % 9
    if kind == 0:
        return Remind(at, "", state.phase_id)
    if kind == 1:
        return HostExtend(at, host, 3600)
    if kind == 2:
        return HostPause(at, host) if state.paused_at is None else HostResume(at, host)
    if kind == 3 and state.paused_at is not None:
        return HostResume(at, host)
    if kind == 4 and step % 27 == 4:
        return HostReplace(at, host, rng.choice(seats), f"newcomer{step}")
    if kind == 5 and step % 45 == 5 and len(seats) > 5:
        return HostDisqualify(at, host, rng.choice(seats))
    if kind == 6:  # refused: a team of the wrong size, a stranger, a shot out of turn
        if state.phase == "proposal" and state.leader:
            return Propose(at, state.leader, (state.leader,) * 9)
        if state.phase == "team_vote":
            return TeamVote(at, seats[0], "abstain", "pm", critical=True)
        return rng.choice([LadyTarget(at, seats[1], "zed"), Assassinate(at, seats[2], "zed"),
                           TeamVote(at, "zed", "approve", "pm")])
    return None


def whole_game(preset, n, options, seed, markup):
    """Every text of one game: (event types seen, [posts and PMs], [refusals], [HELP])."""
    cfg = make_config(preset, NAMES[:n], leader_order="random", spectators=("watcher",),
                      reserves=("res1", "res2"), **options)
    rng = random.Random(seed)
    state, events = started(cfg, seed, T0)
    seen = {e.type for e in events}
    texts = render_events(state, events, TAG, markup)
    refusals, helps = [], []
    at = T0
    for step in range(3000):
        if state.phase in (SETUP, FINISHED):
            break
        at += timedelta(minutes=rng.randint(1, 90))
        cmd = _host_moves(state, at, step, rng) or random_command(state, rng, at)
        result = advance(state, cmd)
        if isinstance(result, Refusal):
            refusals.append(render_refusal(result, TAG, markup))
            continue
        state, new = result
        seen |= {e.type for e in new}
        texts += render_events(state, new, TAG, markup, now=at)
        if state.last_event_at > at:
            at = state.last_event_at
        if step % 7 == 0:
            helps += [help_for(state, TAG, who, who, markup) for who in state.names[:3]]
            helps += [help_for(state, TAG, who, None, markup) for who in ("host", "watcher", "zed")]
    helps.append(help_for(None, None, "zed", None, markup))
    return seen, texts, refusals, helps


def _all_words(texts, refusals, helps):
    for msg in texts:
        yield from (msg.body, msg.subject, msg.title)
    yield from refusals
    yield from helps


@pytest.mark.parametrize("preset,n,options", GAMES)
def test_a_bbcode_game_shows_no_markdown_bold(preset, n, options):
    seen, texts, refusals, helps = whole_game(preset, n, options, 11, "bbcode")
    # the game went through what the host and the clock do, and the rules refused things
    assert {ev.GAME_ENDED, ev.REMINDERS_SENT, ev.DEADLINE_EXTENDED, ev.GAME_PAUSED,
            "player_replaced"} <= seen, seen
    assert len(refusals) > 10 and any(msg.to is not None for msg in texts)
    for text in _all_words(texts, refusals, helps):
        assert "**" not in text, text
    assert any("[b]" in r for r in refusals if "right form" in r), refusals[:5]
    assert any("[b]" in h for h in helps)
    assert any("[b]" in msg.body for msg in texts if msg.to and msg.subject.endswith("reminder"))


@pytest.mark.parametrize("preset,n,options", GAMES)
def test_a_markdown_game_shows_no_bbcode(preset, n, options):
    seen, texts, refusals, helps = whole_game(preset, n, options, 11, "markdown")
    assert ev.GAME_ENDED in seen and refusals
    for text in _all_words(texts, refusals, helps):
        assert "[b]" not in text and "[/b]" not in text and "[table]" not in text, text
    assert any("**" in r for r in refusals if "right form" in r)


@pytest.mark.parametrize("markup", ["markdown", "bbcode"])
def test_the_marks_of_said_never_reach_a_forum(markup):
    for preset, n, options in GAMES:
        _, texts, refusals, helps = whole_game(preset, n, options, 5, markup)
        for text in _all_words(texts, refusals, helps):
            assert SAID_OPEN not in text and SAID_CLOSE not in text
    # a refusal as the rules now write it, and one echoing a name a player typed with the marks
    typed = f"{SAID_OPEN}zed{SAID_CLOSE}{SAID_OPEN}"
    for refusal in (Refusal(f"{typed} is not a player in this game.", said("LADY: name")),
                    Refusal(f"Propose {said('PROPOSE: a, b')}, not {typed}.", f"{SAID_CLOSE}x")):
        text = render_refusal(refusal, TAG, markup)
        assert SAID_OPEN not in text and SAID_CLOSE not in text, text
    assert defuse(f"hi {SAID_OPEN}PROPOSE: a{SAID_CLOSE}") == "hi PROPOSE: a"


def test_a_refusal_shows_its_commands_in_the_markup_bold():
    old = Refusal("That team has 1 player; mission 1 needs 2.", "**PROPOSE: alice, bob**", private=True)
    new = Refusal(f"Use {said('APPROVE')} or {said('REJECT')}.", said("PROPOSE: alice, bob"))
    # On Markdown: exactly the words of before
    assert render_refusal(old, TAG) == ("G7: That team has 1 player; mission 1 needs 2. The right form: "
                                        "**PROPOSE: alice, bob**")
    assert render_refusal(new, TAG, "markdown") == ("G7: Use **APPROVE** or **REJECT**. The right form: "
                                                    "**PROPOSE: alice, bob**")
    assert render_refusal(new, None) == "Use **APPROVE** or **REJECT**. The right form: **PROPOSE: alice, bob**"
    assert render_refusal(old, TAG, "bbcode") == ("G7: That team has 1 player; mission 1 needs 2. The right "
                                                  "form: [b]PROPOSE: alice, bob[/b]")
    assert render_refusal(new, TAG, "bbcode") == ("G7: Use [b]APPROVE[/b] or [b]REJECT[/b]. The right form: "
                                                  "[b]PROPOSE: alice, bob[/b]")
    assert render_refusal(Refusal("Nothing is open."), TAG, "bbcode") == "G7: Nothing is open."
    from forumbot.render.markup import BBCode

    assert render_refusal(new, TAG, BBCode()) == render_refusal(new, TAG, "bbcode")  # a markup, or its name


def test_spoken_and_scrub():
    from forumbot.render.markup import BBCode, Markdown

    assert spoken(f"a {said('X')} **Y**", BBCode()) == "a [b]X[/b] [b]Y[/b]"
    assert spoken(f"a {said('X')} **Y**", BBCode(), literal=False) == "a [b]X[/b] **Y**"
    assert spoken(f"a {said('X')} **Y**", Markdown()) == "a **X** **Y**"
    assert scrub(f"{SAID_OPEN}a{SAID_CLOSE}") == "a"


# Every event type that had words before render/ was split: a module that stopped
# registering (or fell out of load()) loses them.
PUBLIC_BEFORE = [
    "player_replaced", ev.PROPOSAL_OPENED, ev.TEAM_PROPOSED, ev.VOTE_CLOSED, ev.PROPOSAL_MISSED,
    ev.PROPOSALS_STALLED, ev.DEADLINE_MOVED, ev.MISSION_OPENED, ev.MISSION_RESOLVED,
    ev.PLAYER_DISQUALIFIED, ev.GAME_ENDED, ev.ASSASSINATION_OPENED, ev.ASSASSINATED,
    ev.ASSASSINATION_OVERDUE, ev.LADY_OPENED, ev.LADY_USED, ev.LADY_SKIPPED, ev.COMMANDER_NAMED,
    ev.HOST_ACTION, ev.DEADLINE_EXTENDED, ev.GAME_PAUSED, ev.GAME_RESUMED, ev.PLOT_WINDOW,
    ev.PLOT_DRAWN, ev.PLOT_GIVEN, ev.PLOT_CHOICE_OPENED, ev.PLOT_REVEAL, ev.PLOT_PLAYED,
    ev.TEAM_VETOED, ev.PLOT_SPOTLIGHT, ev.PLOT_CHOICE_SKIPPED, ev.PLOT_DISCARDED, ev.PLOT_TAKEN,
    ev.PLOT_DECLARED, "mc_drawn", "mc_window", "mc_played", "mc_follow", "mc_done", "mc_badge",
]
PRIVATE_BEFORE = [
    ev.GAME_STARTED, ev.MISSION_OPENED, "player_replaced", ev.VOTE_CLOSED, ev.MISSION_RESOLVED,
    ev.PROPOSALS_STALLED, ev.PLAYER_DISQUALIFIED, ev.LADY_USED, ev.ASSASSINATION_OPENED,
    ev.ASSASSINATION_OVERDUE, ev.VOTE_CAST, ev.PLOT_REVEAL, ev.REMINDERS_SENT, "mc_reveal",
    ev.PLOT_WINDOW, ev.ORDER_PRELOADED, ev.ORDER_CAST,
]


def test_the_registry_has_words_for_every_event_that_had_them():
    registry.load()
    assert sorted(set(PUBLIC_BEFORE) - set(registry.PUBLIC)) == []
    assert sorted(t for t in PRIVATE_BEFORE if not registry.PRIVATE.get(t)) == []


def test_a_role_note_lands_in_the_role_pm_after_what_the_player_knows():
    registry.load()
    cfg = make_config("resistance", NAMES[:5], leader_order="listed")
    state, _ = started(cfg, 3, T0)
    spy = next(s.name for s in state.seats if s.side == "spies")
    from forumbot.render.markup import Markdown

    before = _role_pm(state, TAG, spy, Markdown())

    def note(state, name, m):
        return m.bold(f"a note for {name}") if name == spy else None

    registry.role_note(note)
    try:
        after = _role_pm(state, TAG, spy, Markdown())
        other = _role_pm(state, TAG, next(n for n in state.names if n != spy), Markdown())
    finally:
        registry.ROLE_NOTES.remove(note)
    parts = after.split("\n\n")
    assert parts[2] == f"**a note for {spy}**" and parts[1].startswith("You know: ")
    assert after.replace(f"\n\n**a note for {spy}**", "") == before
    assert "a note" not in other


def test_a_batch_is_its_events_in_order_one_post_then_the_pms():
    """A batch renders as its events one by one would: their texts joined in one post (after
    the opening post, if any), then every PM in the order of the events."""
    cfg = make_config("avalon", NAMES[:8], leader_order="random", spectators=("watcher",),
                      plot_cards=True, lady_of_the_lake=True, roles=("percival", "morgana"))
    rng = random.Random(4)
    state, events = started(cfg, 4, T0)
    batches = [(state, events)]
    at = T0
    while state.phase not in (SETUP, FINISHED):
        at += timedelta(minutes=rng.randint(1, 90))
        result = advance(state, random_command(state, rng, at))
        if not isinstance(result, Refusal):
            state, new = result
            batches.append((state, new))
    checked = 0
    for state, batch in batches:
        whole = render_events(state, batch, TAG, "bbcode")
        alone = [render_events(state, [e], TAG, "bbcode") for e in batch]
        texts = [msg.body for out in alone for msg in out if msg.slot == "post"]
        pms = [msg for out in alone for msg in out if msg.slot != "post" and not msg.opening]
        openings = [msg for out in alone for msg in out if msg.opening]
        expect = openings + ([whole[len(openings)]] if texts else []) + pms
        assert whole == expect
        if texts:
            assert whole[len(openings)].body == "\n\n".join(texts)
        checked += len(texts) > 1 and bool(pms)
    assert checked > 5  # batches with several texts and PMs


def test_the_opening_post_comes_first_whatever_registered_before_it():
    registry.load()
    cfg = make_config("resistance", NAMES[:5], leader_order="listed")
    state, events = started(cfg, 3, T0)

    def early(state, e, tag, m):
        return [registry_message("early", "a module's PM", to=state.names[0])]

    from forumbot.render.words import Message as registry_message

    before = render_events(state, events, TAG)
    registry.PRIVATE[ev.GAME_STARTED].insert(0, early)
    try:
        after = render_events(state, events, TAG)
    finally:
        registry.PRIVATE[ev.GAME_STARTED].remove(early)
    assert after[0].opening and after[1].slot == "post" and after[2].slot == "early"
    assert [m for m in after if m.slot != "early"] == before
