"""The suites every forum runs, on the fake XenForo: whole games of every preset come out as
on the local forum; a fifth of requests failing changes nothing; the bot killed after a
write and started again posts nothing twice; the secrecy oracle over whole games; and the
bad-input corpus. The heavy parts run under the `long` marker (`make test-long`)."""
from __future__ import annotations

import re
from collections import Counter

import pytest

from forumbot import store
from forumbot.shell.moderator import Moderator
from tests.fakes.bots import make_bot
from tests.fakes.clock import Clock
from tests.fakes.driver import GAMES, forked_cycle, outcome, play, reset_store
from tests.fakes.table import NAMES
from tests.fakes.xenforo import FakeXenForo, XenForoPeople, XenForoTable, xenforo_forum
from tests.support.secrecy import TABLES, expected_names, pm_leaks, public_leaks

MARK = re.compile(r"\[USER=fb:[0-9a-f]{16,64}\]\[/USER\]")


def dups(texts) -> list[str]:
    return [m for m, n in Counter(m for t in texts for m in MARK.findall(t or "")).items() if n > 1]


def local_outcome(preset: str, seed: int) -> dict:
    n, extra = GAMES[preset]
    t = make_bot("local", Clock()).table(n, preset=preset, extra=extra)
    play(t, seed)
    return outcome(t.export())


def xenforo_run(preset: str, seed: int, fault_rate: float = 0.0, fault_seed: int = 3):
    b = make_bot("xenforo", Clock(), forum_kw={"read_attempts": 5 if fault_rate else 3})
    fake = b.fake
    try:
        n, extra = GAMES[preset]
        t = b.table(n, preset=preset, extra=extra)
        fake.fault_rate = fault_rate
        fake.fault_rng.seed(fault_seed)
        play(t, seed)
        fake.fault_rate = 0.0
        for _ in range(3):
            t.cycle()
        return outcome(t.export()), fake.bot_posts(), fake.injected, fake
    finally:
        fake.stop()


PRESETS = [p if p == "resistance" else pytest.param(p, marks=pytest.mark.long) for p in GAMES]


@pytest.mark.parametrize("preset", PRESETS)  # one in `make test`, every preset in `make test-long`
def test_a_whole_game_comes_out_as_on_the_local_forum(preset, db):
    got, texts, _, fake = xenforo_run(preset, seed=11)
    assert got["status"] == "finished" and got["winner"] in ("resistance", "spies")
    assert store.Outbox.select().where(store.Outbox.state != "posted").count() == 0
    for p in got["players"]:  # every player was dealt a role by PM, in BBCode
        assert any("Your role" in m and "[b]" in m for m in XenForoPeople(fake).pms_to(p["name"])), p["name"]
    assert not dups(texts), "a post went out twice"
    assert all(MARK.search(t) for t in texts), "a post without its marker"
    reset_store()
    assert got == local_outcome(preset, seed=11)


@pytest.mark.parametrize("preset", ["resistance"] + [pytest.param(p, marks=pytest.mark.long)
                                                     for p in GAMES if p != "resistance"])
def test_a_fifth_of_requests_fail_and_the_game_is_the_same(preset, db):
    stormy, texts, injected, fake = xenforo_run(preset, seed=11, fault_rate=0.2)
    assert sum(injected.values()) > 20 and len(injected) >= 5, injected
    assert not dups(texts), "a post went out twice"
    reset_store()
    assert stormy == local_outcome(preset, seed=11)


# --- the crash sweep ----------------------------------------------------------------------


class ForkedTable(XenForoTable):
    """The bot runs each cycle in a child process (a fresh adapter, as `run --once`), which
    the fake kills right after its k-th write that landed."""

    def __init__(self, fake, url, clock):
        self.url = url
        super().__init__(self._forum(fake, clock), XenForoPeople(fake), clock, players=NAMES[:5],
                         make_moderator=lambda: Moderator(self.forum, clock=clock))
        self.fake = fake
        self.crashes = 0

    @staticmethod
    def _forum(fake, clock):
        return xenforo_forum(fake, monotonic=lambda: clock().timestamp())

    def cycle(self, fresh: bool = False):
        forked_cycle(self, self.url, lambda: self._forum(self.fake, self.clock))
        return type("Report", (), {"errors": [], "fetched": 0})()


def crash_run(tmp_path, kill_at):
    clock = Clock()
    fake = FakeXenForo(clock=lambda: clock().timestamp()).start()
    url = f"sqlite:///{tmp_path}/crash-{kill_at}.db"
    store.connect(url)
    try:
        t = ForkedTable(fake, url, clock)
        fake.kill_at = kill_at
        t.start()
        play(t, 5)
        for _ in range(3):
            t.cycle()
        return outcome(t.export()), fake.bot_posts(), fake.mutations, t.crashes
    finally:
        fake.stop()
        store.close()


@pytest.fixture(scope="module")
def crash_baseline(tmp_path_factory):
    store.connect(f"sqlite:///{tmp_path_factory.mktemp('local')}/bot.db")
    try:
        return local_outcome("resistance", 5)
    finally:
        store.close()


@pytest.mark.parametrize("k", [7] + [pytest.param(k, marks=pytest.mark.long) for k in (2, 25, 60)])
def test_killed_after_write_k_the_game_is_the_same(tmp_path, crash_baseline, k):
    got, texts, _, crashes = crash_run(tmp_path, k)
    assert crashes == 1
    assert got == crash_baseline
    assert not dups(texts), f"posted twice after a kill at write {k}"


@pytest.mark.long
@pytest.mark.parametrize("k", range(1, 130))
def test_killed_after_every_write(tmp_path, crash_baseline, k):
    got, texts, writes, crashes = crash_run(tmp_path, k)
    if k > writes:
        pytest.skip(f"the game has only {writes} writes")
    assert crashes == 1 and got == crash_baseline and not dups(texts)


# --- secrecy --------------------------------------------------------------------------------


class ForumView:
    """The fake XenForo as the secrecy oracle reads a forum: the game thread's posts, and
    the messages each user was sent (what anyone with access can read)."""

    def __init__(self, fake: FakeXenForo, thread: str):
        self.fake, self.bot_name = fake, fake.bot
        self.tid = int(thread.rpartition(":")[2])

    def threads(self) -> list[dict]:
        return [{"id": self.tid, "body": self.fake.thread_posts(self.tid)[0]["message"]}]

    def thread_comments(self, thread: str) -> list[dict]:
        assert thread == f"t{self.tid}"
        return [{"author": p["username"], "body": p["message"]} for p in self.fake.thread_posts(self.tid)[1:]]

    def messages_to(self, user: str) -> list[dict]:
        return [{"sender": m["username"], "body": m["message"]} for m in self.fake.pms_to(user)]


def secrecy_check(preset: str, n: int, seed: int) -> None:
    b = make_bot("xenforo", Clock())
    try:
        t = b.table(n, preset=preset, extra=GAMES[preset][1], seed=seed)
        play(t, seed)
        result, view, fake = t.export(), ForumView(b.fake, t.game.thread), b.fake
    finally:
        b.stop()
    names = [p["name"] for p in result["players"]]
    assert result["status"] == "finished", (preset, n, seed)
    assert public_leaks(view, names) == [], (preset, n, seed)
    assert pm_leaks(view, result) == [], (preset, n, seed)
    bot = fake.users[fake.bot.casefold()]["user_id"]
    for c in fake.convs.values():  # each conversation the bot starts is between it and one person
        if c["user_id"] == bot:
            assert len(c["recipients"]) == 2, (c["title"], c["recipients"])
    for p in names:  # each role PM names exactly whom that role may know
        role_pm = next(r["body"] for r in view.messages_to(p) if "Your role" in r["body"])
        named = {q for q in names if q != p and re.search(rf"\b{q}\b", role_pm)}
        assert named == expected_names(result, p), (preset, n, seed, p)


@pytest.mark.parametrize("preset,n", [("avalon", 7), pytest.param("so-say-we-all", 5, marks=pytest.mark.long),
                                      pytest.param("resistance", 6, marks=pytest.mark.long)])
def test_secrecy_on_xenforo(db, preset, n):
    secrecy_check(preset, n, seed=n * 31)


@pytest.mark.long
@pytest.mark.parametrize("preset", ["resistance", "resistance-plot", "avalon", "avalon-2020", "so-say-we-all"])
def test_secrecy_sweep_on_xenforo_every_table_size(db, preset):
    for p, n in TABLES:
        if p == preset:
            secrecy_check(preset, n, n * 31 + 1)
            reset_store()


# --- the corpus of bad input, in BBCode's forum -------------------------------------------


def _corpus():
    from tests.support.corpus import CORPUS
    return CORPUS


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem, marks=() if i % 10 == 0 else pytest.mark.long)
                                  for i, p in enumerate(_corpus())])
def test_the_bad_input_corpus(db, bot, path):
    """tests/corpus on XenForo: each case answered or ignored as the corpus says, in BBCode."""
    import yaml

    from tests.support.corpus import at_phase

    case = yaml.safe_load(path.read_text())
    t = bot("xenforo").table(5)
    at_phase(t, case["phase"])
    events = t.export()["events"]
    author = case["author"]

    def words():
        return t.people.pms_to(author) + [b for b in t.people.thread(t.game.thread) if b.startswith(f"@{author}:")]
    said = len(words())
    body = case.get("before", "") + case["body"] * case.get("repeat", 1) + case.get("after", "")
    if case["kind"] == "comment":
        t.say(author, body or " ")
    else:
        t.people.pm(author, case.get("subject", "") or "a message", body or " ")
    report = t.cycle()
    assert not report.errors
    assert store.Inbound.select().where(store.Inbound.state != "done").count() == 0
    new, after = words()[said:], t.export()["events"]
    assert all("**" not in w for w in new), new  # the forum's markup: BBCode
    if case["expect"] == "nothing":
        assert after == events and new == [], new
    elif case["expect"] == "refused":
        reply = re.sub(r"\*\*(.+?)\*\*", r"[b]\1[/b]", case.get("reply", ""))  # (the corpus words it in Markdown)
        assert after == events and len(new) == 1 and reply in new[0], new
    else:
        assert after[len(events):] and len(new) <= 1


# --- whole games through `forumbot run --once` ---------------------------------------------


def cli_game_on_xenforo(preset: str, seed: int, tmp_path, monkeypatch):
    """A whole game of `preset` on the fake XenForo, the bot run only through the command line
    (`run --once`, one run a step): its export, as is and with the forum's ids normalized."""
    from forumbot.shell import moderator
    from tests.cli.test_forums_cli import normalized
    from tests.fakes.cli_table import CliTable, with_clock
    from tests.fakes.xenforo import settings_section

    clock = Clock()
    monkeypatch.setattr(moderator, "Moderator", with_clock(clock))  # the class `run` makes
    fake = FakeXenForo(clock=lambda: clock().timestamp()).start()
    path = tmp_path / "xenforo.ini"
    path.write_text(f"[bot]\nforum = xenforo\npoll_interval = 1d\n\n[database]\nurl = sqlite:///{tmp_path}/xf.db\n\n"
                    + settings_section(fake))
    n, extra = GAMES[preset]
    try:
        t = CliTable("xenforo", fake, XenForoPeople(fake), clock, str(path), NAMES[:n])
        for name in ["host", *t.players]:  # members: a conversation with anyone else is refused
            fake.user(name)
        t.start(preset=preset, extra=extra)
        play(t, seed, act=t.settle)
        t.settle()
        export = t.export()
        return export, normalized(export, t.game), t
    finally:
        fake.stop()
        store.close()


@pytest.mark.long  # (a game on XenForo and one on Reddit, a process start each step: heavy)
@pytest.mark.parametrize("preset", list(GAMES))
def test_a_whole_game_through_run_once_exports_the_same_as_on_reddit(preset, tmp_path, monkeypatch):
    from tests.cli.test_forums_cli import cli_game

    x_export, x_same, x = cli_game_on_xenforo(preset, 11, tmp_path, monkeypatch)
    _, r_same, _ = cli_game("reddit", preset, 11, tmp_path, monkeypatch)
    assert x_export["status"] == "finished" and x_export["thread"].startswith(x.fake.url + "/threads/")
    assert x_same == r_same
    assert x.runs > 20  # the game was played one `run --once` at a time
