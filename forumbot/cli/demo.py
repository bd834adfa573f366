"""A whole game with simulated players on the embedded local forum, printed as the thread
reads. Players learn their role from the bot's PMs and act in the thread and by PM, like
people would; some forget to vote now and then, so defaults show too."""
from __future__ import annotations

import random
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from adapters.local import LocalForum

from .. import store
from ..archive.export import export_game
from ..gameconfig import parse_config
from ..rules.commands import Propose
from ..rules.hooks import MODULES, plugin_class
from ..rules.modules.plot_deck import BY_KEY
from ..rules.presets import spy_count
from ..rules.random_play import module_moves, random_command
from ..rules.state import MISSION, PROPOSAL, TEAM_VOTE
from ..shell.moderator import Moderator

POLL = 30  # seconds: the demo's bot reads the forum this long after the players act
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy"]
START = datetime(2026, 11, 29, 20, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self, at: datetime = START):
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def advance(self, **kw) -> None:
        self.at += timedelta(**kw)


SPY_ROLES = {"Spy", "Cylon", "Minion of Mordred", "Assassin", "Morgana", "Mordred", "Oberon"}


@dataclass
class SimPlayer:
    name: str
    rng: random.Random
    spy: bool | None = None
    role: str = ""
    known_spies: set[str] = field(default_factory=set)
    seen_pms: int = 0

    def read_pms(self, forum: LocalForum) -> list[str]:
        rows = forum.messages_to(self.name)
        new = rows[self.seen_pms:]
        self.seen_pms = len(rows)
        for r in new:
            if m := re.search(r"Your role in .*?: \*\*([\w ]+)\*\*", r["body"]):
                self.role = m.group(1)
                self.spy = self.role in SPY_ROLES
            if m := re.search(r"You know: (.*)\.", r["body"]):
                self.known_spies = {x.split(" (")[0] for x in m.group(1).split(", ")
                                    if x.split(" (")[1].rstrip(")") in SPY_ROLES}
        return [r["body"] for r in new]


def demo_config(preset: str, players: list[str], seed: int, modules: tuple[str, ...] = ()) -> str:
    """The demo's config; `modules`: rule modules of the table (hooks.MODULES) to play too,
    each with the config keys it declares for the demo (RulePlugin.demo)."""
    text = (f"title: Demo game\npreset: {preset}\nplayers: [{', '.join(players)}]\n"
            f"seed: {seed}\nleader_order: random\n")
    roles: list[str] = []
    if preset == "avalon":
        optional = ["percival", "morgana", "mordred", "oberon"]
        fits = spy_count(len(players)) - 1  # the Assassin is always in
        roles = ["percival", *optional[1:1 + fits]]
        text += "lady_of_the_lake: true\n"
    for key, value in _module_demo(modules).items():
        if key == "roles":
            roles += value
        else:
            text += f"{key}: {str(value).lower() if isinstance(value, bool) else value}\n"
    if roles:
        text += f"roles: [{', '.join(roles)}]\n"
    return text


def module_names() -> list[str]:
    """The rule modules the demo can play (`forumbot demo --with NAME`)."""
    return [r.module for r in MODULES if plugin_class(r).demo]


def _module_demo(modules: tuple[str, ...]) -> dict:
    keys: dict = {}
    for row in MODULES:
        if row.module in modules:
            for key, value in plugin_class(row).demo.items():
                keys[key] = keys.get(key, []) + value if isinstance(value, list) else value
    unknown = set(modules) - {r.module for r in MODULES}
    if unknown:
        raise ValueError(f"no rule module {', '.join(sorted(unknown))}: one of {', '.join(module_names())}")
    return keys


def run_demo(preset: str = "resistance", players: int = 7, seed: int = 1, echo=print,
             db_url: str = "sqlite:///:memory:", modules: tuple[str, ...] = ()) -> dict:
    """Play one game to its end. Returns the export of the game."""
    return play(preset, players, seed, echo, db_url, modules)[0]


def write_archive(path: str) -> int:
    """`forumbot demo ... --html FILE`: the finished demo game's archive page to FILE (`-`:
    stdout), as `forumbot export GAME --html FILE` writes a real game's; 0 if written."""
    # (imported when the command runs: the others start without it)
    from ..archive.page import export_html_command

    game = store.Game.select().order_by(store.Game.id.desc()).first()
    if game is None:
        print("demo: no game was played, so there is no archive page to write", file=sys.stderr)
        return 1
    return export_html_command(game, path)


def play(preset: str, players: int, seed: int, echo=print, db_url: str = "sqlite:///:memory:",
         modules: tuple[str, ...] = (), replaces: int = 0) -> tuple[dict, LocalForum]:
    """Play one game to its end: (the export of the game, the forum it was played on).
    `replaces`: how many times the host gives a seat to a newcomer (new1, new2, ...) at a
    random moment of the game (its own random stream: the game is otherwise the same)."""
    names = NAMES[:players]
    try:
        text = demo_config(preset, names, seed, tuple(modules))
        problems = [str(p) for p in parse_config(text, host="host")[1]]
    except ValueError as e:  # a module the table does not have
        problems = [str(e)]
    if problems:  # (the bot would refuse this game: say why, and play nothing)
        echo("demo: " + "; ".join(problems))
        return {"winner": None, "win_reason": None, "problems": problems}, LocalForum(":memory:")
    rng = random.Random(seed)
    clock = Clock()
    forum = LocalForum(":memory:", clock=clock)
    store.connect(db_url)
    forum.send_pm("host", forum.bot_name, "new game", text)
    mod = Moderator(forum, clock=clock)
    sims = {n: SimPlayer(n, random.Random(rng.random())) for n in names}
    shown = {"thread": 0, "pm": 0}
    game: Any = None
    host_rng = random.Random(f"replace:{seed}") if replaces else None
    given = 0
    pause = 0  # minutes the players take before they act again

    def cycle() -> None:
        nonlocal game
        mod.cycle()
        if game is None:
            game = store.Game.select().order_by(store.Game.id.desc()).first()
        if game.thread:
            _print_thread(forum, game, shown, echo)
        game = store.Game.get_by_id(game.id)

    for _ in range(2000):
        cycle()
        # The players take their time; the bot keeps its deadlines meanwhile.
        end = clock.at + timedelta(minutes=pause)
        while game.status == "running" and (nxt := mod.next_deadline()) is not None and nxt <= end:
            clock.at = max(clock.at, nxt)
            cycle()
        clock.at = max(clock.at, end)
        if game.status != "running":
            break
        for p in sims.values():
            p.read_pms(forum)
        acted = _act(mod, game, forum, sims, rng)
        if host_rng is not None and given < replaces and host_rng.random() < 0.08:
            seat = host_rng.choice(mod.state(game).seats)
            given += 1
            newcomer = f"new{given}"
            forum.send_pm("host", forum.bot_name, f"{game.tag} host", f"REPLACE {game.tag} {seat.name} WITH {newcomer}")
            sims[newcomer] = SimPlayer(newcomer, random.Random(host_rng.random()))
        pause = rng.randint(20, 90)
        clock.advance(seconds=POLL)  # the bot reads what they did at its next poll
        if not acted:
            nxt = mod.next_deadline()
            if nxt is not None and nxt > clock.at:
                clock.at = nxt
            pause = 0
    result = export_game(game)
    echo(f"winner: {result['winner']} ({result['win_reason']})")
    return result, forum


def _print_thread(forum: LocalForum, game, shown: dict, echo) -> None:
    """What is new in the thread since last time, in order. PMs to the bot show as a marked
    line among the comments (who sent one, never what it says), so that a vote that came by
    PM is not invisible."""
    if shown["thread"] == 0 and shown.get("opening") is None:
        t = forum.threads()[0]
        echo(f"=== {t['title']} ===\n[{t['created'][:16]}] {t['author']}:\n{t['body']}\n")
        shown["opening"] = t["id"]
    rows = forum.thread_comments(game.thread)[shown["thread"]:]
    pms = [r for r in forum.messages_to(forum.bot_name)[shown["pm"]:] if r["subject"] != "new game"]
    shown["thread"] += len(rows)
    shown["pm"] = len(forum.messages_to(forum.bot_name))
    items = [(r["created"], 0, r["id"], r) for r in rows] + [(r["created"], 1, r["id"], r) for r in pms]
    for _, kind, _, r in sorted(items, key=lambda x: (x[0], x[1], x[2])):
        if kind == 0:
            echo(f"[{r['created'][:16]}] {r['author']}:\n{r['body']}\n")
        else:
            echo(f"[{r['created'][:16]}] {r['sender']} (by PM to {forum.bot_name}): "
                 f"{_pm_kind(r['body'])}\n")


def _pm_kind(body: str) -> str:
    """What a player's PM to the bot was, without what it said."""
    word = body.strip().split()[-1].upper() if body.strip() else ""
    if word in ("APPROVE", "REJECT", "ABSTAIN"):
        return "a team vote (shown when the vote closes)"
    if word in ("SUPPORT", "SABOTAGE"):
        return "a mission order (secret)"
    return "a private message"


def _act(mod: Moderator, game, forum: LocalForum, sims: dict[str, SimPlayer], rng) -> bool:
    """Each simulated player does what the public state asks of them. True if anyone acted."""
    state = mod.state(game)  # the public parts only: phase, leader, team
    acted = False
    _, _, movers, amenders = module_moves(state.config)
    for plugin in movers:  # a rule module's own phase (or its move in the core's)
        move = plugin.random_move(state, rng, state.last_event_at or START)
        written = plugin.written(state, move) if move is not None else None
        if written is not None:
            text, where = written
            author = state.shown(move.author)
            if where == "pm":
                forum.send_pm(author, forum.bot_name, f"{game.tag} {plugin.name}", text)
            else:
                forum.comment(author, game.thread, f"**{text}**")
            return True
    n_ = state.shown  # (the state names seats by their ids; players speak by usernames)
    if state.phase == PROPOSAL:
        leader = sims[n_(state.leader or "")]
        if rng.random() < 0.95:
            others = [x.name for x in state.seats if x.name != leader.name and not x.disqualified]
            if leader.spy:
                others.sort(key=lambda n: (n in leader.known_spies, rng.random()))
            else:
                rng.shuffle(others)
            team = [leader.name] + others[: state.team_size() - 1]
            rng.shuffle(team)
            in_public = state.mission in state.config.rules.public_order_missions
            public = f"; PUBLIC: {rng.choice(team)}" if in_public else ""
            if amenders:  # what a rule module adds to a proposal ("; EXCALIBUR: bob")
                move = Propose(state.last_event_at or START, leader.name, tuple(team))
                for plugin in amenders:
                    move = plugin.random_amend(state, rng, move)
                if isinstance(move, Propose):
                    public += "".join(f"; {key.upper()}: {state.shown(value)}" for key, value in move.more)
            forum.comment(leader.name, game.thread, f"I'll go with this.\n\n**PROPOSE: {', '.join(team)}{public}**")
            acted = True
    elif state.phase == TEAM_VOTE:
        team = [n_(x) for x in state.team]
        for seat in state.waiting_for():
            n = n_(seat)
            p = sims[n]
            if rng.random() < 0.07:
                continue  # forgot to vote
            spies_on = any(x in p.known_spies or (x == n and p.spy) for x in team)
            if p.spy:
                yes = spies_on or rng.random() < 0.3
            else:
                yes = n in team or rng.random() < 0.55 or state.rejections >= 3
            vote = "APPROVE" if yes else "REJECT"
            hand = state.extra["plot"].hands.get(seat, []) if "plot" in state.extra else []
            if "chicago-proxy" in hand and rng.random() < 0.3:
                free: list[str | None] = [x for x in state.waiting_for() if x != seat and x not in state.proxied]
                target = rng.choice(free or [None])
                if target:
                    forum.comment(n, game.thread, f"**PLAY: Chicago Proxy -> {n_(target)} {vote}**")
            if state.config.rules.critical_votes and rng.random() < 0.1:
                vote = "CRITICAL " + vote
            pm_only = state.config.team_votes == "pm" or state.mission in state.config.rules.pm_vote_missions
            if "plot" in state.extra and seat in state.extra["plot"].opinion:
                pm_only = False
                forum.comment(n, game.thread, f"**{vote}**")
                acted = True
                continue
            if pm_only or rng.random() < 0.3:
                forum.send_pm(n, forum.bot_name, f"{game.tag} vote", vote)
            else:
                forum.comment(n, game.thread, f"**{vote}**")
            acted = True
    elif state.phase == MISSION:
        for seat in state.waiting_for():
            n = n_(seat)
            p = sims[n]
            if rng.random() < 0.05:
                continue
            order = "SABOTAGE" if p.spy and rng.random() < 0.75 else "SUPPORT"
            if seat == state.public:
                forum.comment(n, game.thread, f"My order: **{order}**")
            else:
                forum.send_pm(n, forum.bot_name, f"{game.tag} mission", order)
            acted = True
    elif state.phase in ("hand_out", "plot_choice", "card_window"):
        acted = _play_cards(game, forum, state, sims, rng)
    elif state.phase in ("prep_window", "prep_card"):
        cmd = random_command(state, rng, state.last_event_at or START, patience=1.0)
        verb = {"PlayCard": "PLAY", "PassCard": "PASS", "GiveCard": "GIVE", "Choose": "CHOOSE"}[type(cmd).__name__]
        if verb == "PASS":
            text = "**PASS**"
        elif verb == "CHOOSE":
            text = f"**CHOOSE: {n_(cmd.target)}**"
        else:
            text = f"**{verb}: {cmd.card} -> {n_(cmd.target)}**"
        forum.comment(n_(cmd.author), game.thread, text)
        acted = True
    elif state.phase == "assassination":
        shooter = sims[n_(state.waiting_for()[0])]
        targets = [n for n in state.names if n != shooter.name and n not in shooter.known_spies]
        forum.comment(shooter.name, game.thread,
                      f"I think I know who you are.\n\n**ASSASSINATE: {rng.choice(targets)}**")
        acted = True
    return acted


def _play_cards(game, forum: LocalForum, state, sims, rng) -> bool:
    """The simulated players' Plot Card moves: hand out, choose, play or pass. (The cards'
    state names seats by their ids; a player speaks, and names others, by username.)"""
    plot = state.extra["plot"]
    n_ = state.shown
    say = lambda who, text: forum.comment(n_(who), game.thread, text)  # noqa: E731
    if state.phase == "hand_out":
        leader = state.actors[0]
        others = [x.id for x in state.seats if x.id != leader and x.id not in plot.given_to
                  and not x.disqualified]
        rng.shuffle(others)
        for card, to in zip(plot.drawn, others):
            say(leader, f"**GIVE: {BY_KEY[card].name} -> {n_(to)}**")
        return True
    if state.phase == "plot_choice":
        card, holder = plot.current
        if card == "take-responsibility":
            options = [(n, c) for n, hand in plot.hands.items() if n != holder for c in hand]
            source, taken = rng.choice(options)
            say(holder, f"**TAKE: {BY_KEY[taken].name} FROM {n_(source)}**")
        else:
            ids = state.ids
            i = ids.index(holder)
            pool = ([ids[i - 1], ids[(i + 1) % len(ids)]] if card == "overheard"
                    else [n for n in ids if n != holder])
            say(holder, f"**CHOOSE: {n_(rng.choice(pool))}**")
        return True
    kind = plot.window.kind
    for holder in list(state.actors):
        hand = plot.hands.get(holder, [])
        if kind in ("round_start", "after_veto") and rng.random() < 0.3:
            say(holder, "**PLAY: Strong Leader**")
            return True
        if kind == "approved" and "no-confidence" in hand and sims[n_(holder)].spy and rng.random() < 0.5:
            say(holder, "**PLAY: No Confidence**")
        elif kind == "approved" and "spotlight" in hand and rng.random() < 0.5:
            say(holder, f"**PLAY: In the Spotlight -> {n_(rng.choice(state.team))}**")
        elif kind == "after_result" and state.config.preset == "avalon-2020" and holder not in plot.declared:
            say(holder, "**PLAY: Keeping a Close Eye on You**")
        elif kind == "after_result":
            team = [n for n in state.missions[-1].team if n != holder and n not in plot.picked]
            if team and rng.random() < 0.8:
                forum.send_pm(n_(holder), forum.bot_name, f"{game.tag} close eye", f"CHOOSE: {n_(rng.choice(team))}")
            else:
                forum.send_pm(n_(holder), forum.bot_name, f"{game.tag} card", "PASS")
        else:
            say(holder, "**PASS**")
    return True
