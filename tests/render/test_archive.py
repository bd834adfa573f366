"""`forumbot export GAME --html FILE` (archive.py): the one-page archive of a game.

A finished game of every preset, and running games stopped midway, rendered and checked
for what the page must and must not hold; the thread's secrecy oracle (tests/support/secrecy.py) over
the text of running-game pages from simulated games, and a stronger check beside it: a
running game's page does not change when its secrets do; escaping of what users type; and
the page in headless Chromium at 1280 and 390 px."""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest

from adapters.local import LocalForum
from forumbot import store
from forumbot.archive.page import export_html_command, render_html, write_html
from forumbot.cli.main import main
from forumbot.rules import deadlines, engine
from forumbot.rules.random_play import random_command
from forumbot.rules.replace import renamed
from tests.fakes.driver import GAMES, command_text, settle
from tests.fakes.table import NAMES, LocalPeople, Table
from tests.support.secrecy import ROLE_WORDS

NEWCOMERS = ["zed", "yan", "xu", "wes"]
ROLE_NAMES = ("Merlin", "Percival", "Morgana", "Mordred", "Oberon", "Assassin",
              "Loyal Servant", "Minion of Mordred", "Cylon", "Human")


# --- games to render -----------------------------------------------------------------


class ArchiveTable(Table):
    def start_with(self, text: str, host: str = "host") -> ArchiveTable:
        self.people.pm(host, "new game", text)
        self.cycle()
        self.cycle()
        self.game_id = store.Game.select().order_by(store.Game.id.desc()).first().id
        return self


def config(preset: str, n: int, extra: str = "", title: str = "Test game", seed: int = 7) -> str:
    return (f"title: {json.dumps(title)}\npreset: {preset}\nplayers: [{', '.join(NAMES[:n])}]\n"
            f"seed: {seed}\nleader_order: listed\n{extra}")


@pytest.fixture
def forum(db, clock) -> LocalForum:
    """One local forum a test: games started on it one after another each get messages of
    their own (a second forum would number its messages from 1 again)."""
    return LocalForum(":memory:", clock=clock)


def table(forum, preset: str, seed: int = 7, title: str = "Test game", extra: str | None = None):
    n, default_extra = GAMES[preset]
    t = ArchiveTable(forum, LocalPeople(forum), forum.clock, players=NAMES[:n])
    return t.start_with(config(preset, n, default_extra if extra is None else extra, title, seed))


def host(t, text: str) -> None:
    t.people.pm("host", f"{t.game.tag} host", text)
    settle(t)


def play(t, seed: int, *, patience: float = 0.95, hosting: float = 0.05, stop=None, each=None,
         max_steps: int = 1500) -> bool:
    """Play the game of `t` as driver.play does, but with deadlines that pass now and then (so
    defaults show) and, at a rate of `hosting` a step, a host who steps in: EXTEND, PAUSE
    and RESUME, CLOSE, SKIP, RECORD, one DISQUALIFY and one REPLACE. `each(t, step)` runs before each step; `stop(state,
    step)` ends the play early. True if the game ended."""
    rng = random.Random(seed)
    tag = t.game.tag
    done: set[str] = set()
    settle(t)
    for step in range(max_steps):
        s = t.state
        if not s.running:
            return True
        if stop is not None and stop(s, step):
            return False
        if each is not None:
            each(t, step)
        due = deadlines.due(s)
        if s.paused_at is not None:
            t.clock.advance(hours=3)
            host(t, f"RESUME {tag}")
            continue
        if s.phase == "assassination" and s.seat(s.actors[0]).disqualified:
            # the shot waits for a disqualified Assassin: a host gives the seat to someone
            new = next((n for n in NEWCOMERS if n not in s.names and n not in s.replaced), None)
            host(t, f"REPLACE {tag} {s.actors[0]} WITH {new}" if new else f"ABORT {tag}")
            continue
        if s.phase == "team_vote" and not s.waiting_for() and due is not None:
            t.clock.at = max(t.clock.at, due + timedelta(seconds=1))
            settle(t)
            continue
        if rng.random() < hosting and _host_move(t, s, rng, done):
            continue
        if due is not None and s.phase != "assassination" and rng.random() > patience:
            t.clock.at = max(t.clock.at, due + timedelta(seconds=1))  # nobody acted in time
            settle(t)
            continue
        cmd = random_command(s, rng, s.last_event_at, patience=1.0)
        where, text = command_text(cmd, s, tag)
        if where == "thread":
            t.say(s.shown(cmd.author), text)
        else:
            t.people.pm(s.shown(cmd.author), tag, text)
        settle(t)
    raise AssertionError("the game did not end")


def _host_move(t, s, rng, done: set[str]) -> bool:
    tag = t.game.tag
    active = [x.name for x in s.active()]
    moves = ["extend", "pause", "close", "skip", "record"]
    moves += [m for m in ("replace", "disqualify") if m not in done]
    move = rng.choice(moves)
    if move == "extend" and deadlines.due(s) is not None:
        host(t, f"EXTEND {tag} 6h")
    elif move == "pause":
        host(t, f"PAUSE {tag}")
    elif move == "close" and s.phase in ("team_vote", "mission"):
        host(t, f"CLOSE {tag}")
    elif move == "skip" and s.phase in ("proposal", "team_vote", "mission", "lady"):
        host(t, f"SKIP {tag}")
    elif move == "record" and s.phase == "team_vote" and s.waiting_for():
        host(t, f"RECORD {tag} {rng.choice(s.waiting_for())} {rng.choice(['APPROVE', 'REJECT'])}")
    elif move == "record" and s.phase == "mission" and s.waiting_for():
        host(t, f"RECORD {tag} {rng.choice(s.waiting_for())} SUPPORT")
    elif move == "replace" and s.phase in ("proposal", "team_vote"):
        new = next(n for n in NEWCOMERS if n not in s.names and n not in s.replaced)
        host(t, f"REPLACE {tag} {rng.choice(s.names)} WITH {new}")
        done.add(move)
    elif move == "disqualify" and s.phase == "proposal" and len(active) == len(s.names):
        host(t, f"DISQUALIFY {tag} {rng.choice([n for n in active if n != s.leader])}")
        done.add(move)
    else:
        return False
    return True


def everyone(t) -> list[str]:
    """Every name that sat at the table: the players, and whoever replaced one."""
    s = t.state
    return sorted(set(s.names) | set(s.replaced) | set(t.players))


# --- reading a page ------------------------------------------------------------------


BLOCKS = {"p", "div", "li", "tr", "h1", "h2", "h3", "h4", "header", "footer", "section",
          "article", "dt", "dd", "dl", "ol", "ul", "table", "thead", "tbody", "time", "title",
          "main", "blockquote", "br"}


class _Text(HTMLParser):
    """A page's text as a reader gets it, one block a line, and the titles and labels a
    pointer or a screen reader shows, each on a line of its own. A table row is one line,
    its cells joined by `|`, as in the thread's Markdown tables."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.cur: list[str] = []
        self.skip = 0

    def flush(self):
        line = " ".join("".join(self.cur).split())
        if line:
            self.lines.append(line)
        self.cur = []

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self.skip += 1
        for k, v in attrs:
            if k in ("title", "aria-label", "alt") and v:
                self.lines.append(" ".join(v.split()))
        if tag in ("td", "th"):
            self.cur.append(" | ")
        elif tag in BLOCKS:
            self.flush()

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self.skip -= 1
        elif tag in BLOCKS:
            self.flush()

    def handle_data(self, data):
        if not self.skip:
            self.cur.append(data)


def page_lines(html: str) -> list[str]:
    p = _Text()
    p.feed(html)
    p.close()
    p.flush()
    return p.lines


def page_leaks(html: str, names) -> list[str]:
    """The secrecy oracle (tests/support/secrecy.py), over a page: lines that put a name beside a side or role word,
    but for the reveals the rules make (a designated public order, In the Spotlight)."""
    leaks = []
    for line in page_lines(html):
        if "public order" in line or "In the Spotlight:" in line:  # (a page line has its symbol first)
            continue
        for n in names:
            near = rf"\b{n}\b[^.\n]{{0,30}}\b{ROLE_WORDS}\b|\b{ROLE_WORDS}\b[^.\n]{{0,30}}\b{n}\b"
            if re.search(near, line, re.IGNORECASE):
                leaks.append(line)
    return leaks


def grid_cells(html: str) -> int:
    return len(re.findall(r'<td class="v ', html))


def mission_block(html: str, number: int) -> str:
    m = re.search(rf'<article class="mission [a-z]+" id="mission-{number}">(.*?)</article>', html, re.DOTALL)
    return m.group(1) if m else ""


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.in_style = False
        self.css = ""

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "link", "img", "iframe", "object", "embed", "video", "audio",
                   "source", "frame", "base", "form", "input", "image", "use"):
            self.problems.append(f"<{tag}>")
        for k, v in attrs:
            if k.startswith("on") or k in ("src", "srcset", "action", "formaction", "xlink:href"):
                self.problems.append(f"{tag} {k}=")
            if k == "href" and not (v or "").startswith(("https://", "http://", "#")):
                self.problems.append(f"{tag} href={v}")
            if k == "style":
                self.css += v or ""
        self.in_style = tag == "style"

    def handle_endtag(self, tag):
        self.in_style = False

    def handle_data(self, data):
        if self.in_style:
            self.css += data


def self_contained(html: str) -> list[str]:
    """What would make the page run code or load something from elsewhere."""
    p = _Tags()
    p.feed(html)
    p.close()
    problems = p.problems
    for bad in (r"url\(", r"@import", r"@font-face", r"expression\(", r"image-set\("):
        if re.search(bad, p.css, re.IGNORECASE):
            problems.append(bad)
    return problems


# --- a finished game of every preset ----------------------------------------------------


@pytest.mark.parametrize("preset", list(GAMES))
def test_a_finished_game_of_every_preset(preset, forum, clock):
    t = table(forum, preset, title=f"{preset} archive")
    assert play(t, seed=3)
    record = t.export()
    html = render_html(t.game)
    assert not self_contained(html), self_contained(html)
    text = "\n".join(page_lines(html))
    s = t.state
    # the title, the preset, the host, the dates and the winner
    assert f"{preset} archive" in text and s.config.rules.title in text and "host" in text
    assert "Played" in text and "2026" in text
    if record["winner"]:
        from forumbot.render.words import side_name

        assert f"{side_name(s, record['winner'])[0].upper()}{side_name(s, record['winner'])[1:]} win" in text
    # the mission track: five tokens, each with its result or its team size
    assert html.count('<li class="token ') == 5
    for m in record["missions"]:
        assert f'<li class="token {m["result"]}">' in html
    # the grid: a row per player, a column per proposal, each cell with its meaning in words
    assert grid_cells(html) == len(s.seats) * len(record["votes"])
    for v in record["votes"]:
        assert f"{v['mission']}.{v['proposal']}" in text
    assert html.count('<th scope="col" class="prop') == len(record["votes"])
    assert html.count(" approved") >= sum(1 for v in record["votes"] if v["approved"]) > 0
    assert "v-lead" in html and "v-team" in html and "v-ok" in html
    for word in ("approve", "reject"):
        if any(word in v["votes"].values() for v in record["votes"]):
            assert re.search(rf'<span class="sr">{word}\b', html)
    # each mission: its team, its result and its sabotage count
    for m in record["missions"]:
        block = mission_block(html, m["number"])
        assert all(f'<span class="name">{n}</span>' in block for n in m["team"])
        assert ("Success" if m["result"] == "success" else "Fail") in block
        assert re.search(rf'<span class="count-big">{m["sabotages"]}</span> sabotage', block)
    # the end: every role revealed
    from forumbot.render.archive import role_name

    for p in record["players"]:
        assert re.search(rf'<li><span class="name">{p["name"]}\b.*?</span> <span class="role[^"]*">'
                         rf'{role_name(p["role"])}</span></li>', html)
    assert "The reveal" in text
    # the timeline: the start and the end at least, and whatever the host did
    assert "The game starts with" in text and re.search(r"\bwins?, by", text)  # ("Good wins, by")
    if any(e["type"] == "player_replaced" for e in record["events"]):
        assert "Substitution" in text
    if any(e["type"] == "host_action" for e in record["events"]):
        assert "The host " in text
    # the seed would replay the deal: it is never on the page
    assert "seed" not in text.lower()


def test_the_page_of_a_game_with_every_kind_of_vote(forum, clock):
    """Defaults, a critical vote, a proxy and a barred vote each show, in symbols and words."""
    seen = {"default": False, "critical": False, "proxy": False, "barred": False}
    for preset, seed in (("so-say-we-all", 1), ("avalon-2020", 2), ("so-say-we-all", 5),
                         ("avalon-2020", 6), ("so-say-we-all", 9)):
        t = table(forum, preset)
        play(t, seed, patience=0.8)
        html = render_html(t.game)
        votes = t.export()["votes"]
        assert grid_cells(html) == len(t.state.seats) * len(votes)
        if any(v["defaulted"] for v in votes):
            assert '<span class="tl" aria-hidden="true">*</span>' in html and "a default (missed)" in html
            seen["default"] = True
        if any(v["critical"] for v in votes):
            assert "×2" in html and "critical, counted double" in html
            seen["critical"] = True
        if any(v["proxied"] for v in votes):
            assert "⇄" in html and "(Chicago Proxy)" in html
            seen["proxy"] = True
        if any(v["not_voting"] for v in votes):
            assert "⊘" in html and "not voting (barred by a card)" in html
            seen["barred"] = True
    assert seen["default"] and seen["critical"] and seen["proxy"], seen


def test_an_aborted_game_reveals_the_roles_and_has_no_winner(forum, clock):
    t = table(forum, "avalon")
    play(t, 4, stop=lambda s, step: step == 40)
    host(t, f"ABORT {t.game.tag}")
    html = render_html(t.game)
    text = "\n".join(page_lines(html))
    assert "No winner" in text and "The host aborted the game." in text
    assert "Merlin" in text and "Assassin" in text


def test_a_game_in_signups_has_a_page(forum, clock):
    t = ArchiveTable(forum, LocalPeople(forum), clock)
    t.start_with("title: Open table\npreset: resistance\nplayers: signup\n")
    t.say("alice", "**JOIN**")
    t.cycle()
    text = "\n".join(page_lines(render_html(t.game)))
    assert "Open table" in text and "Sign-ups" in text and "alice" in text


# --- a running game ----------------------------------------------------------------------


def test_a_running_game_shows_only_what_is_public(forum, clock):
    """A scripted avalon game, stopped after mission 3: with a substitution, a
    disqualification, a RECORD of a mission order and the other host actions."""
    t = table(forum, "avalon", extra="roles: [percival, morgana]\nlady_of_the_lake: true\nplot_cards: false\n")
    tag = t.game.tag
    t.mission()  # mission 1 (hank holds the Lady, after missions 2 to 4)
    host(t, f"EXTEND {tag} 6h")
    host(t, f"PAUSE {tag}")
    clock.advance(hours=2)
    host(t, f"RESUME {tag}")
    host(t, f"REPLACE {tag} carol WITH zed")
    spies = t.spies()
    team = t.propose()
    t.vote_all(True, skip=[t.state.names[-2]])
    host(t, f"CLOSE {tag}")  # a default
    member = t.state.team[0]
    host(t, f"RECORD {tag} {member} SUPPORT")
    t.orders(sabotage=[n for n in team if n in spies][:1], skip=[member])
    if t.state.phase == "lady":
        s = t.state
        t.say(s.actors[0], f"**LADY: {next(n for n in s.names if n not in s.extra['lady'].past)}**")
        settle(t)
    host(t, f"DISQUALIFY {tag} {t.state.names[1]}")
    t.propose()
    host(t, f"SKIP {tag}")  # the vote ends at once, with the defaults
    html = render_html(t.game)
    assert not self_contained(html)
    text = "\n".join(page_lines(html))
    names = everyone(t)
    record = t.export()
    assert t.state.running and "Running" in text and "Leader order" in text
    assert not page_leaks(html, names), page_leaks(html, names)
    # no role, no side, no order, no Lady result, no seed
    for word in ROLE_NAMES + ("Loyal Servants of Arthur",):
        for line in page_lines(html):
            if word in line:
                assert line.startswith("Roles in play:") or line == "Minions of Mordred", line
    assert "sabotage</span>" not in html and "support</span>" not in html  # no one's order
    assert "The Lady showed" not in text and "The reveal" not in text
    assert "seed" not in text.lower()
    # what is public is there: the votes, the missions, the host's actions, the seats
    assert grid_cells(html) == len(t.state.seats) * len(record["votes"])
    for m in record["missions"]:
        assert re.search(rf'<span class="count-big">{m["sabotages"]}</span> sabotage', mission_block(html, m["number"]))
    for words in ("zed replaces carol", "The host extended the deadline", "The host paused the game",
                  "The game resumed after 2h", "The host closed the team vote early",
                  "The host recorded a mission order that was sent to them privately.",
                  f"{t.state.names[1]} is disqualified (disqualified by the host)",
                  "The host skipped the team vote", "uses the Lady of the Lake on"):
        assert words in text, words
    assert f"recorded {member}" not in text  # who was recorded on a mission is secret
    assert "⇆ for carol" in text and "⊘ disqualified" in text


def test_a_mission_that_hides_its_count_hides_it_until_the_end(forum, clock):
    """so-say-we-all, mission 3: only success or failure is shown in the thread."""
    for seed in range(11, 40):  # a game still running after mission 3
        t = table(forum, "so-say-we-all", extra="", seed=seed)
        play(t, seed, hosting=0, stop=lambda s, step: len(s.missions) >= 3)
        if t.state.running:
            break
    s = t.state
    assert s.running
    m3 = next(m for m in s.missions if m.number == 3)
    assert m3.count_shown is False
    block = mission_block(render_html(t.game), 3)
    assert "The number of sabotages is not revealed on this mission." in block
    assert "count-big" not in block
    play(t, seed, hosting=0)
    block = mission_block(render_html(t.game), 3)
    assert re.search(rf'<span class="count-big">{m3.sabotages}</span> sabotage', block)
    assert "kept secret in the thread until the end" in block


# --- secrecy over simulated games -------------------------------------------------------


def flipped(order: str) -> str:
    return "support" if order == "sabotage" else "sabotage"


def scramble(game: store.Game) -> None:
    """Change every secret of a running game in the store, and nothing public: the deal
    (another seed), every order and vote not yet shown, the true count of a mission that
    hides it, what the Lady and the cards showed, who the Assassin is, the decks."""
    cfg = game.game_config()
    rows = list(store.Event.select().where(store.Event.game == game).order_by(store.Event.seq))
    first = rows[0].to_rule_event()
    for seed in range(game.seed + 1, game.seed + 500):
        dealt = engine.start(cfg, seed, first.at)[0]
        if dealt.data["order"] == first.data["order"] and dealt.data["roles"] != first.data["roles"]:
            break
    else:
        raise AssertionError("no other deal")
    store.Game.update(seed=seed).where(store.Game.id == game.id).execute()
    names = first.data["order"]
    for r in rows:
        d = json.loads(r.data)
        if r.type == "game_started":
            d = dealt.data
        elif r.type in ("order_cast", "order_preloaded"):
            d["order"] = flipped(d["order"])
        elif r.type == "vote_cast":
            d["vote"] = "reject" if d["vote"] == "approve" else "approve"
        elif r.type == "mission_resolved":
            hidden = [n for n in d["team"] if n != d.get("public")]
            orders = [d["orders"][n] for n in hidden]
            d["orders"].update(zip(hidden, orders[1:] + orders[:1], strict=True))
            if not d.get("count_shown", True) and d["result"] == "fail" and d["sabotages"] < len(d["team"]):
                d["sabotages"] += 1
        elif r.type in ("lady_used", "plot_reveal", "mc_reveal"):
            if "side" in d:
                d["side"] = "spies" if d["side"] == "resistance" else "resistance"
            if "order" in d:
                d["order"] = flipped(d["order"])
        elif r.type == "assassination_opened":
            d["assassin"] = next(n for n in names if n != d["assassin"])
        elif r.type in ("plot_shuffled", "mc_shuffled"):
            d["deck"] = list(reversed(d["deck"]))
        elif r.type == "host_action" and d.get("kind") == "MissionOrder":
            d["player"] = next(n for n in names if n != d["player"])
        store.Event.update(data=json.dumps(d)).where(store.Event.id == r.id).execute()


def running_pages(forum, preset: str, seed: int, every: int = 4, scramble_every: int = 25):
    """Play one game, and check the page of the running game every few steps: the oracle
    finds no leak, and the page is the same when the secrets are scrambled."""
    t = table(forum, preset, seed=seed)
    checked = {"pages": 0, "scrambled": 0}

    def check(t, step):
        if step % every:
            return
        game = t.game
        page = render_html(game)
        names = everyone(t)
        assert not page_leaks(page, names), (preset, seed, step, page_leaks(page, names))
        assert not self_contained(page)
        assert "The reveal" not in page and "seed" not in page.lower()
        checked["pages"] += 1
        if step % scramble_every == 0:
            with store.db.atomic() as tx:
                scramble(game)
                other = render_html(store.Game.get_by_id(game.id))
                tx.rollback()
            assert other == page, (preset, seed, step)
            checked["scrambled"] += 1

    play(t, seed, each=check)
    finished = render_html(t.game)
    assert page_leaks(finished, everyone(t)), "the oracle must see the end's reveal"
    return checked


@pytest.mark.parametrize("preset", list(GAMES))
def test_running_pages_keep_every_secret(preset, forum, clock):
    total = {"pages": 0, "scrambled": 0}
    for seed in (1, 2):
        got = running_pages(forum, preset, seed)
        total = {k: total[k] + got[k] for k in total}
    assert total["pages"] >= 20 and total["scrambled"] >= 2, total


@pytest.mark.long
@pytest.mark.parametrize("preset", list(GAMES))
def test_running_pages_keep_every_secret_long(preset, forum, clock):
    for seed in range(100, 140):
        running_pages(forum, preset, seed, every=1, scramble_every=7)


def test_the_scramble_changes_the_secrets(forum, clock):
    """The check above means something: scrambled, the finished game's page does change."""
    t = table(forum, "avalon", seed=5)
    play(t, 5)
    before = render_html(t.game)
    with store.db.atomic() as tx:
        scramble(t.game)
        after = render_html(store.Game.get_by_id(t.game_id))
        tx.rollback()
    assert after != before
    assert render_html(t.game) == before


# --- escaping -------------------------------------------------------------------------------

EVIL_NAMES = {"alice": "<script>", "bob": '"><img src=x onerror=alert(1)>'}


def rename_in_store(game: store.Game, names: dict[str, str]) -> None:
    """Usernames cannot hold such characters; a name from elsewhere might: rename the seats
    in the store, in the config and in every event."""
    cfg = json.loads(game.config)
    for old, new in names.items():
        cfg = renamed(cfg, old, new)
    store.Game.update(config=json.dumps(cfg)).where(store.Game.id == game.id).execute()
    for r in store.Event.select().where(store.Event.game == game):
        d = json.loads(r.data)
        for old, new in names.items():
            d = renamed(d, old, new)
        store.Event.update(data=json.dumps(d)).where(store.Event.id == r.id).execute()


@pytest.mark.parametrize("finished", [False, True])
def test_names_title_and_intro_come_out_as_text(finished, forum, clock):
    title = '<script>alert("title")</script>'
    intro = '"><img src=x onerror=alert(1)>\n\n<b>bold</b> & more'
    n, extra = GAMES["avalon"]
    t = ArchiveTable(forum, LocalPeople(forum), clock, players=NAMES[:n])
    t.start_with(config("avalon", n, extra + f"intro: {json.dumps(intro)}\n", title))
    play(t, 2, stop=None if finished else (lambda s, step: step == 60))
    assert t.state.running is not finished
    votes = len(t.export()["votes"])
    rename_in_store(t.game, EVIL_NAMES)
    html = render_html(store.Game.get_by_id(t.game_id))
    assert "<script" not in html.lower() and "<img" not in html.lower() and "<b>" not in html
    assert not self_contained(html), self_contained(html)
    assert "&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;" in html
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; more" in html
    text = "\n".join(page_lines(html))
    assert '<script>alert("title")</script>' in text  # as text, for the reader
    assert '"><img src=x onerror=alert(1)>' in text and "<script>" in text
    assert grid_cells(html) == n * votes


def test_a_thread_link_is_only_ever_a_web_address(forum, clock):
    t = table(forum, "resistance")
    for thread, shown in (("https://forum.example.org/t/12", True), ("javascript:alert(1)", False),
                          ("t1", False)):
        store.Game.update(thread_url=thread).where(store.Game.id == t.game_id).execute()
        html = render_html(t.game)
        assert ("<a href=" in html) is shown and "javascript:" not in html


# --- writing the file ------------------------------------------------------------------------


def test_write_html_and_the_command(forum, clock, tmp_path, capsys):
    t = table(forum, "resistance")
    play(t, 1)
    path = tmp_path / "game.html"
    write_html(t.game, path)
    assert path.read_text(encoding="utf-8") == render_html(t.game)
    assert export_html_command(t.game, str(tmp_path / "again.html")) == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".archive-")] == []
    assert export_html_command(t.game, str(tmp_path / "no" / "such" / "dir.html")) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("export: cannot write") and len(err.splitlines()) == 1
    assert export_html_command(t.game, "-") == 0
    assert capsys.readouterr().out.startswith("<!DOCTYPE html>")


def test_the_command_line_writes_the_page(tmp_path):
    """`forumbot export G1 --html FILE`, once cli.py knows the option."""
    def forumbot(*args):
        return subprocess.run([sys.executable, "-m", "forumbot", *args], check=False, capture_output=True,
                              text=True, cwd=tmp_path, timeout=120)

    if "--html" not in forumbot("export", "--help").stdout:
        pytest.skip("cli.py has no `export --html` yet")
    forum = LocalForum(str(tmp_path / "forumbot-local.db"))
    forum.send_pm("host", "forumbot", "new game",
                  "title: CLI game\npreset: resistance\nplayers: [alice, bob, carol, dave, erin]\nseed: 5\n")
    assert forumbot("run", "--once").returncode == 0
    r = forumbot("export", "G1", "--html", "game.html")
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "game.html").read_text(encoding="utf-8")
    assert "CLI game" in html and not self_contained(html)
    r = forumbot("export", "G1", "--html", "no/such/dir/game.html")
    assert r.returncode != 0 and "Traceback" not in r.stderr


def test_the_templates_are_package_data():
    import tomllib

    root = Path(__file__).resolve().parents[2]
    meta = tomllib.loads((root / "pyproject.toml").read_text())
    assert any(d.lower().startswith("jinja2") for d in meta["project"]["dependencies"])
    data = meta["tool"]["setuptools"]["package-data"]["forumbot"]
    for name in ("archive.html", "archive.css"):
        assert (root / "forumbot" / "templates" / name).exists()
        assert any(Path("templates", name).match(pattern) for pattern in data)


# --- in a browser -------------------------------------------------------------------------

# A test-only page around the archive: the archive in an iframe as wide as a phone or a
# desktop (headless Chromium's own window is never narrower than 500 px), and a script
# that measures it once it has loaded. The archive itself holds no script.
WRAPPER = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
html, body { margin: 0; background: #6b6f76; } iframe { display: block; margin: 0 auto; border: 0; }
</style></head><body><iframe id="f" width="@W@" height="@H@" srcdoc="@DOC@"></iframe>
<script>
var f = document.getElementById('f'), done = false;
function measure() {
  if (done) return; done = true;
  var w = f.contentWindow, d = f.contentDocument, doc = d.documentElement, wrap = d.querySelector('.grid-wrap');
  var out = {inner: w.innerWidth, scroll: doc.scrollWidth, body: d.body.scrollWidth, height: doc.scrollHeight,
             cells: d.querySelectorAll('table.votes td.v').length,
             rows: d.querySelectorAll('table.votes tbody tr').length,
             cols: d.querySelectorAll('table.votes th.prop').length,
             overflow: w.getComputedStyle(doc).overflowX + '/' + w.getComputedStyle(d.body).overflowX,
             wrapScrolls: wrap ? wrap.scrollWidth > wrap.clientWidth : null,
             scripts: d.querySelectorAll('script').length, wider: []};
  d.querySelectorAll('body *').forEach(function (el) {
    if (el.closest('.grid-wrap') && el !== wrap) return;  // the grid scrolls in its own box
    if (el.closest('.sr')) return;
    var r = el.getBoundingClientRect();
    if (r.width && (r.right > w.innerWidth + 0.5 || r.left < -0.5)) out.wider.push(el.tagName + '.' + el.className);
  });
  var pre = document.createElement('pre'); pre.id = 'measured';
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
}
f.addEventListener('load', measure);
if (f.contentDocument && f.contentDocument.readyState === 'complete' && f.contentDocument.body.childElementCount) measure();
</script></body></html>"""


def wrapper(html: str, width: int, height: int, measure: bool = True) -> str:
    import html as html_lib

    page = WRAPPER if measure else re.sub(r"<script>.*</script>", "", WRAPPER, flags=re.DOTALL)
    return (page.replace("@W@", str(width)).replace("@H@", str(height))
            .replace("@DOC@", html_lib.escape(html, quote=True)))


def chromium(*args: str, timeout: int = 90) -> subprocess.CompletedProcess:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    return subprocess.run([exe, "--headless=new", "--no-sandbox", "--disable-gpu",
                           "--disable-dev-shm-usage", "--hide-scrollbars", "--no-first-run",
                           "--mute-audio", *args], check=False, capture_output=True, text=True,
                          timeout=timeout)


def showcase(forum) -> store.Game:
    """A finished avalon game with a little of everything: the README's screenshot."""
    t = table(forum, "avalon", seed=20, title="Avalon Game 61",
              extra="roles: [percival, morgana]\nlady_of_the_lake: true\n"
                    "intro: Welcome to Camelot. No private chat about the game.\n")
    done = set()

    def host_steps_in(t, step):
        s = t.state
        if "extend" not in done and s.phase == "team_vote":
            host(t, f"EXTEND {t.game.tag} 12h")
            done.add("extend")
        if "replace" not in done and len(s.missions) >= 2 and s.phase == "proposal":
            host(t, f"REPLACE {t.game.tag} carol WITH zed")
            done.add("replace")

    play(t, 20, patience=0.97, hosting=0, each=host_steps_in)
    assert not t.state.running and done == {"extend", "replace"}
    return t.game


@pytest.mark.skipif(not (shutil.which("chromium") or shutil.which("chromium-browser")),
                    reason="Chromium is not installed (.ci/run installs Debian's `chromium`)")
def test_the_page_in_chromium_fits_a_phone_and_a_desktop(forum, clock, tmp_path):
    """A finished avalon game and a running so-say-we-all game, at 1280 and 390 px: the
    document is never wider than the viewport (the grid scrolls in its own box), and the
    grid has a cell for each player and proposal. Screenshots of each go to a folder."""
    finished = showcase(forum)
    t = table(forum, "so-say-we-all", seed=4, title="Battlestar Game 9")
    play(t, 4, stop=lambda s, step: len(s.missions) >= 3 and s.phase == "mission")
    assert t.state.running
    shots = tmp_path / "screenshots"
    shots.mkdir()
    print(f"\nscreenshots in {shots}")
    for name, game in (("finished", finished), ("running", t.game)):
        html = render_html(game)
        votes = store.Event.select().where((store.Event.game == game) & (store.Event.type == "vote_closed")).count()
        seats = len(game.game_config().players)
        (tmp_path / f"{name}.html").write_text(html, encoding="utf-8")
        for width in (1280, 390):
            probe = tmp_path / f"probe-{name}-{width}.html"
            probe.write_text(wrapper(html, width, 900), encoding="utf-8")
            r = chromium(f"--window-size={max(width, 500)},1000", "--virtual-time-budget=5000",
                         "--dump-dom", probe.as_uri())
            m = re.search(r'<pre id="measured">(.*?)</pre>', r.stdout, re.DOTALL)
            assert m, (r.returncode, r.stderr[-2000:])
            got = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
            print(f"  {name} at {width} px: {got}")
            assert got["inner"] == width, got
            assert got["scroll"] <= got["inner"] and got["body"] <= got["inner"], got
            assert got["wider"] == [], got
            assert got["overflow"] == "visible/visible", got  # no overflow: hidden to cheat with
            assert got["scripts"] == 0
            assert got["cells"] == seats * votes == got["rows"] * got["cols"], got
            assert got["rows"] == seats and got["cols"] == votes, got
            # the whole page, as tall as it is
            shot = shots / f"{name}-{width}.png"
            tall = tmp_path / f"tall-{name}-{width}.html"
            tall.write_text(wrapper(html, width, got["height"], measure=False), encoding="utf-8")
            r = chromium(f"--window-size={max(width, 500)},{got['height'] + 90}",
                         f"--screenshot={shot}", "--virtual-time-budget=3000", tall.as_uri())
            assert shot.exists() and shot.stat().st_size > 10_000, r.stderr[-2000:]
            print(f"  {shot}")
    target = os.environ.get("FORUMBOT_ARCHIVE_SCREENSHOT")
    if target:  # the README's picture: FORUMBOT_ARCHIVE_SCREENSHOT=docs/archive-avalon.png,
        # then `pngquant --quality=70-90 --force --output docs/archive-avalon.png docs/archive-avalon.png`
        chromium("--window-size=1120,1262", f"--screenshot={os.path.abspath(target)}",
                 (tmp_path / "finished.html").as_uri())


# --- the modules beyond the seeds on the page, and demo --html (issue 24, item 9) -----------------
# The archive page with the modules beyond the seeds (issue 24, item 9), and `forumbot demo
# ... --html FILE`, which writes the finished demo game's page: who held Excalibur on each
# mission and whom it was used on (never the order), the lovers' double shot at the reveal,
# and the winner's headline in English for every preset's side names.


def demo_page(tmp_path, capsys, *args: str) -> tuple[str, str]:
    path = tmp_path / "demo.html"
    assert main(["demo", *args, "--html", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(f"The game's archive page: {path}")
    return path.read_text(), out


def test_the_demo_writes_its_archive_page_with_excalibur_and_the_double_shot(tmp_path, capsys):
    html, out = demo_page(tmp_path, capsys, "--preset", "avalon", "--players", "8", "--seed", "10",
                          "--with", "excalibur", "--with", "lovers")
    text = "\n".join(page_lines(html))
    used = re.findall(r"(\w+) uses Excalibur on \*\*(\w+)\*\*\.", out)  # what the thread said
    assert used
    for holder, target in used:
        assert f"{holder} held Excalibur and used it on {target}." in text
    assert text.count("held Excalibur and") == out.count("uses Excalibur on") + out.count("Excalibur is not used on")
    first = mission_block(html, 1)
    assert "held Excalibur and" in first
    assert not re.search(r"Excalibur[^\n.]*(SUPPORT|SABOTAGE)", text)  # the order stays secret
    shot = re.search(r"The Assassin, (\w+), names \*\*(\w+)\*\* and \*\*(\w+)\*\* as Tristan and Isolde", out)
    assert shot, "seed 10: the Assassin takes the double shot"
    a, x, y = shot.groups()
    assert f"{a}, the Assassin, named {x} and {y} as Tristan and Isolde:" in text


def test_the_excalibur_moments_link_no_name_to_a_side(tmp_path, capsys):
    """The moments are public: nothing in them links a name to a side (the page's oracle)."""
    html, out = demo_page(tmp_path, capsys, "--preset", "avalon", "--players", "6", "--seed", "5",
                          "--with", "excalibur")
    names = ["alice", "bob", "carol", "dave", "erin", "frank"]
    excalibur = [line for line in page_lines(html) if "Excalibur" in line]
    assert excalibur and page_leaks("\n".join(excalibur), names) == []


def test_the_demo_page_headline_reads_as_english(tmp_path, capsys):
    html, out = demo_page(tmp_path, capsys, "--preset", "avalon-2020", "--players", "8", "--seed", "2")
    winner = "Good" if "winner: resistance" in out else "Evil"
    assert f"{winner} wins" in html and f"{winner} win<" not in html and f"{winner} win," not in html


def test_demo_html_to_stdout_and_a_path_it_cannot_write(tmp_path, capsys):
    assert main(["demo", "--players", "5", "--seed", "3", "--html", "-"]) == 0
    out = capsys.readouterr().out
    assert "<html" in out and "The game's archive page" not in out
    bad = tmp_path / "no" / "such" / "dir" / "page.html"
    assert main(["demo", "--players", "5", "--seed", "3", "--html", str(bad)]) == 2  # an unwritable file: 2 (docs/reference.md, "Exit codes")
    err = capsys.readouterr().err
    assert err.startswith(f"export: cannot write {bad}") and "Traceback" not in err
    assert main(["demo", "--players", "11", "--html", str(tmp_path / "x.html")]) == 2  # refused: nothing written
    assert not (tmp_path / "x.html").exists()
