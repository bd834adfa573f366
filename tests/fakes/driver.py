"""Plays a whole game through the forum, as players would type it, with moves chosen at
random from the true state (seeded). Used where a game must come out the same whatever
happens to the forum or the process in between: fault injection and the crash sweep."""
from __future__ import annotations

import os
import random
import re
import signal
from datetime import timedelta

from forumbot import store
from forumbot.rules import deadlines
from forumbot.rules.commands import (
    Choose,
    GiveCard,
    MissionOrder,
    PassCard,
    PlayCard,
    Propose,
    ProxyVote,
    TakeCard,
    TeamVote,
)
from forumbot.rules.modules.assassin import Assassinate
from forumbot.rules.modules.lady import LadyTarget
from forumbot.rules.random_play import random_command

MARKER = re.compile(r"\[\]\(#fb-[0-9a-f]{16}\)")
# The game of each preset that the sweeps play on every forum: its table size and the config
# lines of its modules.
GAMES = {
    "resistance": (5, ""),
    "resistance-plot": (7, "plot_cards: true\n"),
    "so-say-we-all": (7, "mission_cards: true\n"),
    "avalon": (8, "roles: [percival, morgana]\nlady_of_the_lake: true\nplot_cards: true\n"),
    "avalon-2020": (8, ""),
}


def command_text(cmd, state, tag: str) -> tuple[str, str]:
    """(where, text): "thread" or "pm", and the words a player would type (the command names
    seats by id; the player types the usernames on them: `state.shown`)."""
    n = state.shown
    if isinstance(cmd, Propose):
        public = f"; PUBLIC: {n(cmd.public)}" if cmd.public else ""
        return "thread", f"**PROPOSE: {', '.join(map(n, cmd.team))}{public}**"
    if isinstance(cmd, TeamVote):
        word = ("CRITICAL " if cmd.critical else "") + cmd.choice.upper()
        return ("pm", f"{tag} {word}") if cmd.via == "pm" else ("thread", f"**{word}**")
    if isinstance(cmd, MissionOrder):
        word = cmd.choice.upper()
        return ("thread", f"**{word}**") if cmd.via == "thread" else ("pm", f"{tag} {word}")
    if isinstance(cmd, Assassinate):
        return "thread", f"**ASSASSINATE: {n(cmd.target)}**"
    if isinstance(cmd, LadyTarget):
        return "thread", f"**LADY: {n(cmd.target)}**"
    if isinstance(cmd, GiveCard):
        return "thread", f"**GIVE: {cmd.card} -> {n(cmd.target)}**"
    if isinstance(cmd, PlayCard):
        target = f" -> {n(cmd.target)}" if cmd.target else ""
        vote = f" {cmd.choice.upper()}" if cmd.choice else ""
        return "thread", f"**PLAY: {cmd.card}{target}{vote}**"
    if isinstance(cmd, TakeCard):
        return "thread", f"**TAKE: {cmd.card} FROM {n(cmd.source)}**"
    if isinstance(cmd, Choose):
        return ("pm", f"{tag} CHOOSE: {n(cmd.target)}") if cmd.via == "pm" else ("thread", f"**CHOOSE: {n(cmd.target)}**")
    if isinstance(cmd, PassCard):
        plot = state.extra.get("plot")
        if plot is not None and plot.window is not None and plot.window.kind == "after_result":
            return "pm", f"{tag} PASS"
        return "thread", "**PASS**"
    if isinstance(cmd, ProxyVote):
        return "thread", f"**PROXY: {n(cmd.target)} {cmd.choice.upper()}**"
    raise AssertionError(f"no text for {cmd!r}")


def settle(t, max_cycles: int = 300) -> int:
    """Cycle until the bot has read everything and sent everything. Returns the cycles run."""
    for n in range(1, max_cycles + 1):
        report = t.cycle()
        t.clock.advance(seconds=2)
        busy = (report.errors or report.fetched
                or store.Outbox.select().where(store.Outbox.state == "pending").exists()
                or store.Inbound.select().where(store.Inbound.state == "new").exists())
        if not busy:
            return n
    raise AssertionError("the bot never settled")


def play(t, seed: int, max_steps: int = 1500, act=None) -> None:
    """Play the started game of table `t` to its end."""
    rng = random.Random(seed)
    act = act or (lambda: settle(t))
    act()
    for _ in range(max_steps):
        s = t.state
        if not s.running:
            return
        if s.phase == "team_vote" and not s.waiting_for() and deadlines.due(s) is not None:
            t.clock.at = max(t.clock.at, deadlines.due(s) + timedelta(seconds=1))  # votes close at the deadline
            act()
            continue
        cmd = random_command(s, rng, s.last_event_at, patience=1.0)
        where, text = command_text(cmd, s, t.game.tag)
        if where == "thread":
            t.say(s.shown(cmd.author), text)
        else:
            t.people.pm(s.shown(cmd.author), t.game.tag, text)
        act()
    raise AssertionError("the game did not end")


def outcome(export: dict) -> dict:
    """What must not depend on faults or crashes: everything but the clock."""
    return {"status": export["status"], "winner": export["winner"], "reason": export["win_reason"],
            "players": export["players"], "missions": export["missions"], "votes": export["votes"],
            "events": [(e["type"], e["data"]) for e in export["events"]]}


def markers(texts) -> list[str]:
    return [m for text in texts for m in MARKER.findall(text or "")]


def reset_store():
    """A fresh store (its tables dropped and made again), between two games of a sweep."""
    from forumbot.store import MODELS
    from forumbot.store import db as proxy

    proxy.drop_tables(MODELS)
    proxy.create_tables(MODELS)


def forked_cycle(t, url: str, make_forum) -> None:
    """One bot cycle in a child process (a fresh adapter from `make_forum()`, as `run --once`
    would make), which the fake forum may SIGKILL (`t.fake.victim`); then the parent reads
    the store afresh. A kill counts in `t.crashes`; any other failure of the child fails."""
    from forumbot.shell.moderator import Moderator

    store.close()
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the bot process: one cycle, then exit
        code = 1
        try:
            os.close(ready_w)
            os.read(ready_r, 1)  # wait until the parent knows our pid
            store.connect(url)
            Moderator(make_forum(), clock=t.clock).cycle()
            code = 0
        finally:
            os._exit(code)
    os.close(ready_r)
    t.fake.victim = pid
    os.write(ready_w, b"x")
    os.close(ready_w)
    _, status = os.waitpid(pid, 0)
    t.fake.victim = None
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        t.crashes += 1
    else:
        assert os.WEXITSTATUS(status) == 0, "the bot process failed"
    store.connect(url)
    t.mod = Moderator(t.forum, clock=t.clock)
