"""The suites every forum runs (tests/adapters/test_forum_sweeps.py, and the command line's
whole games in tests/cli/test_forums_cli.py), written once for any forum in SWEPT (Reddit,
Discourse, XenForo and the local forum): a whole seeded game against the same game on the
local forum, with a fifth of requests failing, with the bot killed after its k-th write
and started again, the bad-input corpus in the forum's markup, the secrecy oracle over
whole games, a 429's odd Retry-After, posts the adapter cannot name, and a whole game
through `forumbot run --once`. What differs from forum to forum is in its `Swept`: its
fake, adapter, people and table, its invisible marker, its markup, the address of a game
thread, the keys that name a post, and the view the secrecy oracle reads it through."""
from __future__ import annotations

import re
from collections import Counter
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable
from unittest.mock import patch

from forumbot import store
from forumbot.shell.moderator import Moderator
from tests.fakes.bots import make_bot
from tests.fakes.clock import Clock
from tests.fakes.driver import GAMES, forked_cycle, outcome, play
from tests.fakes.table import NAMES, DiscoursePeople, DiscourseTable, LocalPeople, RedditPeople, Table, discourse_forum
from tests.fakes.xenforo import FakeXenForo, XenForoPeople, XenForoTable, settings_section, xenforo_forum
from tests.support.views import DiscourseView, LocalView, RedditView, XenForoView


def _discourse_fake(clock) -> Any:
    from adapters.discourse_checks import RECOMMENDED_SITE_SETTINGS
    from tests.fakes.discourse import FakeDiscourse

    fake = FakeDiscourse(clock=lambda: clock().timestamp()).start()
    fake.site.update(RECOMMENDED_SITE_SETTINGS)  # the hosting guide's site settings
    return fake


def _reddit_fake(clock) -> Any:
    from tests.fakes.reddit import FakeReddit

    return FakeReddit(clock=lambda: clock().timestamp()).start()


def _members(fake, names) -> None:
    for name in names:  # members: a conversation with anyone else is refused
        fake.user(name)


def _reddit_forum(fake, **kw) -> Any:
    """The Reddit adapter (real praw) on the fake, with no waits between tries."""
    import praw

    from adapters.reddit import RedditForum
    from tests.fakes.bots import NO_WAITS

    kw.pop("monotonic", None)  # (praw keeps its own time)
    return RedditForum(praw.Reddit(**fake.praw_kwargs()), **{**NO_WAITS, **kw})


@contextmanager
def _prawcore_without_sleep():
    """prawcore's own tries of a read (after a 5xx) without its sleep in between."""
    import prawcore.sessions

    with patch.object(prawcore.sessions.FiniteRetryStrategy, "_sleep_seconds", lambda self: None):
        yield


def _no_server() -> str:
    return "the local forum is a file in the bot's own process, with no server"


@dataclass(frozen=True)
class Swept:
    kind: str  # the forum's name (tests/fakes/bots.py: FORUMS)
    mark: re.Pattern | None  # the invisible marker that ends each of the bot's posts (None: it keeps keys)
    bbcode: bool  # the forum's markup is BBCode (else Markdown)
    thread_path: str  # a game thread's address, after the forum's url
    fake: Callable[[Any], Any]  # a started fake forum at a clock
    forum: Callable[..., Any]  # the adapter on a fake (with no waits), **kw to it
    people: Callable[[Any], Any]
    table: type
    settings: Callable[[Any], str] = lambda fake: ""  # its settings file's section, for the command line
    members: Callable[[Any, list], None] = lambda fake, names: None  # who must be a member before a CLI game
    names: tuple[str, ...] = ()  # the keys of a post's JSON that name it (an odd one: left out)
    view: Callable[[Any, str], Any] = LocalView  # the secrecy oracle's view of the fake (or forum) and a thread
    calm: Callable[[], Any] = nullcontext  # around a game under faults: no sleeps of the forum's client
    without: str = ""  # why it has no server to fail, kill the bot at or answer odd JSON ("": it has one)

    def bold(self, text: str) -> str:
        """A reply the corpus words in Markdown, in the forum's markup."""
        return re.sub(r"\*\*(.+?)\*\*", r"[b]\1[/b]", text) if self.bbcode else text


SWEPT = {
    "reddit": Swept("reddit", re.compile(r"\[\]\(#fb-[0-9a-f]{16,64}\)"), False, "/comments/", _reddit_fake,
                    _reddit_forum, RedditPeople, Table, names=("id", "created_utc"),
                    view=RedditView, calm=_prawcore_without_sleep),
    "discourse": Swept("discourse", re.compile(r"<!-- fb:[0-9a-f]{16,64} -->"), False, "/t/", _discourse_fake,
                       discourse_forum, DiscoursePeople, DiscourseTable, names=("id", "post_number"),
                       view=DiscourseView),
    "xenforo": Swept("xenforo", re.compile(r"\[USER=fb:[0-9a-f]{16,64}\]\[/USER\]"), True, "/threads/",
                     lambda clock: FakeXenForo(clock=lambda: clock().timestamp()).start(), xenforo_forum,
                     XenForoPeople, XenForoTable, settings_section, _members, names=("post_id", "thread_id"),
                     view=XenForoView),
    "local": Swept("local", None, False, "", lambda clock: None, lambda fake, **kw: None, LocalPeople, Table,
                   without=_no_server()),
}


def marks(swept: Swept, b) -> list[str]:
    """What tells the bot's posts apart: the marker of each (the key of each on the local
    forum, which keeps them), one per post or PM that has one."""
    if swept.mark is None:
        return b.forum.keys_posted()
    return [m for t in b.fake.bot_posts() for m in swept.mark.findall(t or "")]


def unmarked(swept: Swept, b) -> list[str]:
    """The bot's posts without their marker."""
    return [] if swept.mark is None else [t for t in b.fake.bot_posts() if not swept.mark.search(t or "")]


def dups(marked: list[str]) -> list[str]:
    """The marks that stand in more than one of the bot's posts: a text posted twice."""
    return [m for m, n in Counter(marked).items() if n > 1]


def local_outcome(preset: str, seed: int) -> dict:
    """The same seeded game on the local forum (the store must be fresh)."""
    n, extra = GAMES[preset]
    t = make_bot("local", Clock()).table(n, preset=preset, extra=extra)
    play(t, seed)
    return outcome(t.export())


@dataclass
class Run:
    """A whole game on a forum: its outcome, the marks of the bot's posts and those without
    one, the faults injected, who was at the table, and the game's thread."""
    outcome: dict
    marks: list[str]
    unmarked: list[str]
    injected: Counter
    people: Any
    thread: str


def forum_run(swept: Swept, preset: str, seed: int, fault_rate: float = 0.0, fault_seed: int = 3) -> Run:
    """A whole seeded game of `preset` on a fresh (fake) forum, with `fault_rate` of requests
    failing. Under faults, reads are tried 5 times (3 by default): tests/fakes/driver.settle()
    takes a cycle whose listing failed for a settled one (the moderator reports a failed read
    only in the log), and would then act on a state the bot has not caught up with."""
    kw = {} if swept.without else {"forum_kw": {"read_attempts": 5 if fault_rate else 3}}
    b = make_bot(swept.kind, Clock(), **kw)
    try:
        n, extra = GAMES[preset]
        t = b.table(n, preset=preset, extra=extra)
        with swept.calm():
            if fault_rate:
                b.fake.fault_rate = fault_rate
                b.fake.fault_rng.seed(fault_seed)
            play(t, seed)
            if fault_rate:
                b.fake.fault_rate = 0.0
            for _ in range(3):
                t.cycle()
        injected = b.fake.injected if b.fake else Counter()
        return Run(outcome(t.export()), marks(swept, b), unmarked(swept, b), injected, b.people, t.game.thread)
    finally:
        b.stop()


def public_leaks(swept: Swept, run: Run, names) -> list[str]:
    """The secrecy sweep's check (tests/sweeps/test_secrecy.py) on the bot's public posts in
    the game thread (those with its marker), before the end post."""
    from tests.support.secrecy import ROLE_WORDS

    posts = [b for b in run.people.thread(run.thread) if swept.mark is None or swept.mark.search(b)]
    end = next(i for i, p in enumerate(posts) if re.search(r"\bwins?, by", p))  # ("Good wins, by")
    leaks = []
    for post in posts[:end]:
        for line in post.split("\n"):
            if line.startswith(("**Leader order**", "**Roles in play**", "[b]Leader order[/b]",
                                "[b]Roles in play[/b]", "In the Spotlight:")) or \
                    "public order" in line or "your order is public" in line:
                continue
            for n in names:
                near = rf"\b{n}\b[^.\n]{{0,30}}\b{ROLE_WORDS}\b|\b{ROLE_WORDS}\b[^.\n]{{0,30}}\b{n}\b"
                if re.search(near, line, re.I):
                    leaks.append(line)
    return leaks


# --- the crash sweep ------------------------------------------------------------------------


class _Report:
    errors: list = []
    fetched = 0


def forked_table(swept: Swept, fake, url: str, clock) -> Table:
    """A table whose bot runs each cycle in a child process (a fresh adapter, as `run --once`),
    which the fake kills right after its k-th write that landed."""
    def adapter():
        return swept.forum(fake, monotonic=lambda: clock().timestamp())

    class Forked(swept.table):
        def cycle(self, fresh: bool = False):
            forked_cycle(self, url, adapter)
            return _Report()

    forum = adapter()
    t = Forked(forum, swept.people(fake), clock, players=NAMES[:5], make_moderator=lambda: Moderator(forum, clock=clock))
    t.fake, t.crashes = fake, 0
    return t


def crash_run(swept: Swept, tmp_path, kill_at: int | None):
    """The game of seed 5, the bot killed after its `kill_at`-th write that landed (None:
    never): (its outcome, the markers of the bot's posts, the writes that landed, the kills)."""
    clock = Clock()
    fake = swept.fake(clock)
    url = f"sqlite:///{tmp_path}/crash-{kill_at}.db"
    store.connect(url)
    try:
        t = forked_table(swept, fake, url, clock)
        fake.kill_at = kill_at
        t.start()
        play(t, 5)
        for _ in range(3):  # whatever a last crash left behind goes out now
            t.cycle()
        marked = [m for text in fake.bot_posts() for m in swept.mark.findall(text or "")] if swept.mark else []
        return outcome(t.export()), marked, fake.mutations, t.crashes
    finally:
        fake.stop()
        store.close()


# --- the bad-input corpus -------------------------------------------------------------------


def corpus_case(swept: Swept, t, path) -> None:
    """One case of tests/corpus on a table `t` on the forum, as it would arrive where the
    forum's own checks let it through: answered or ignored as the corpus says, in the
    forum's markup."""
    import yaml

    from tests.support.corpus import at_phase

    case = yaml.safe_load(path.read_text())
    t.people.rules = False  # (Discourse's site checks; the other forums have none)
    at_phase(t, case["phase"])
    events = t.export()["events"]
    author = case["author"]

    def words():
        return t.people.pms_to(author) + [b for b in t.people.thread(t.game.thread)
                                          if b.startswith(f"{t.forum.mention(author)}:")]
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
    if swept.bbcode:
        assert all("**" not in w for w in new), new  # the forum's markup
    if case["expect"] == "nothing":
        assert after == events and new == [], new
    elif case["expect"] == "refused":
        assert after == events and len(new) == 1 and swept.bold(case.get("reply", "")) in new[0], new
    else:
        assert after[len(events):] and len(new) <= 1


# --- whole games through `forumbot run --once` ---------------------------------------------


def cli_game(forum: str, preset: str, seed: int, tmp_path, monkeypatch):
    """A whole game of `preset` on the fake `forum` (one of SWEPT, or "reddit"), the bot run
    only through the command line (`run --once`, one run a step): its export as is, with the
    forum's ids and urls normalized, and the table."""
    from forumbot.shell import moderator
    from tests.fakes.cli_table import CliTable, settings_text, with_clock

    clock = Clock()
    monkeypatch.setattr(moderator, "Moderator", with_clock(clock))  # the class `run` makes
    swept = SWEPT.get(forum)
    fake = swept.fake(clock) if swept else _reddit_fake(clock)
    people = swept.people(fake) if swept else RedditPeople(fake)
    path = tmp_path / f"{forum}.ini"
    db_url = f"sqlite:///{tmp_path}/{forum}.db"
    if swept and swept.settings(fake):
        path.write_text(f"[bot]\nforum = {forum}\npoll_interval = 1d\n\n[database]\nurl = {db_url}\n\n"
                        + swept.settings(fake))
    else:
        path.write_text(settings_text(forum, fake, db_url))
    n, extra = GAMES[preset]
    try:
        t = CliTable(forum, fake, people, clock, str(path), NAMES[:n])
        if swept:
            swept.members(fake, ["host", *t.players])
        t.start(preset=preset, extra=extra)
        play(t, seed, act=t.settle)
        t.settle()
        export = t.export()
        return export, normalized(export, t.game), t
    finally:
        fake.stop()
        store.close()


def normalized(export: dict, game: store.Game) -> dict:
    """The export with the forum's own thread id and url put as placeholders, wherever they
    are: nothing else is touched."""
    names = {v: f"<{k}>" for k, v in (("thread", game.thread), ("thread_url", game.thread_url)) if v}

    def norm(x):
        if isinstance(x, dict):
            return {k: norm(v) for k, v in x.items()}
        if isinstance(x, list):
            return [norm(v) for v in x]
        if isinstance(x, str) and x in names:
            return names[x]
        return x
    return norm(export)


# --- what a forum says about its wait ------------------------------------------------------

NOW = Clock()()  # the bot's clock in the sweeps (tests/fakes/clock.py), which the adapter reads
HOUR = 3600.0  # adapters/retries.py's LONGEST_WAIT: no wait is believed for longer
ODD_WAITS = ["", " ", "soon", "-5", "-0.5", "1e400", "nan", "-inf", "99999999", "0x10", "1_0", "120, 130",
             "Fri, 31 Dec 99999 23:59:59 GMT", "Sun, 00 Foo 2026 00:00:00 GMT", "Fri, 31 Feb 2026 25:61:61 GMT",
             "Fri, 31 Dec 1999 23:59:59 +9999", "Mon, 01 Jan 0000 00:00:00 GMT", "Fri, 31 Dec 1999 23:59:59",
             "31 Dec 1999", "Fri, 31 Dec 1999 23:59:59 GMT, Fri, 31 Dec 1999 23:59:59 GMT"]


def _http_date(at: datetime, form: int) -> str:
    """`at` as one of RFC 9110's three forms: IMF-fixdate, the obsolete RFC 850 (a two-digit
    year) and asctime."""
    return at.strftime(["%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"][form])


def wait_headers():
    """A 429's Retry-After and Date headers (None: not sent), and the wait they mean where
    it is known (else None: only its bounds are): a date some seconds after the answer's own
    Date, or after the bot's clock where there is no Date; a number of seconds; and words a
    header may hold that are neither (then the default wait)."""
    from hypothesis import strategies as st

    def within(offset: int, seconds: float | None = None) -> float:
        return min(max(float(offset if seconds is None else seconds), 0.0), HOUR)

    # (RFC 850's two-digit years are read as 1969-2068 (the email package's rule): kept in it)
    moments = st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2068, 12, 30),
                           timezones=st.just(timezone.utc)).map(lambda d: d.replace(microsecond=0))
    offsets = st.integers(-2 * 86400, 2 * 86400) | st.integers(-10**9, 10**9)
    forms = st.integers(0, 2)
    dated = st.builds(lambda at, off, f, g: (_http_date(at + timedelta(seconds=off), f), _http_date(at, g),
                                             within(off)), moments, st.integers(-9 * 3600, 9 * 3600), forms, forms)
    undated = st.builds(lambda off, f: (_http_date(NOW + timedelta(seconds=off), f), None, within(off)),
                        st.integers(-9 * 3600, 9 * 3600), forms)
    seconds = st.builds(lambda n: (str(n), None, within(0, n) if n >= 0 else 60.0), offsets)
    header = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"), max_size=40)
    odd = st.tuples(st.sampled_from(ODD_WAITS) | header, st.none() | header | st.sampled_from(ODD_WAITS),
                    st.none())
    return dated | undated | seconds | odd


def wait_said(retry_after: str, date: str | None):
    """The fake's next write (a POST but the login's) answered 429 with these headers."""
    from tests.fakes.server import Raw

    body = '{"errors": [{"code": "too_many_requests", "message": "Slow down"}]}'
    answer = (429, Raw(body, "application/json", {"Retry-After": retry_after, "Date": date}))
    return lambda method, path: answer if method == "POST" and "access_token" not in path else None


# --- posts the adapter cannot name ----------------------------------------------------------

MISSING = object()  # the key left out of the post


def odd_ids():
    """What a forum may put where a post's id (or its number, its time) belongs that no forum
    names a post by: nothing, null, words, a fraction or a negative, a bool, a list, an
    endless or a huge number. (No whole number from 1 up, no base-36 word: those are ids.)"""
    from hypothesis import strategies as st

    fixed = [MISSING, None, "", " ", "x y", "12abc!", "-3", "t1_abc", "١٢", -1, -1.5, True, False, [], {},
             [7], {"id": 1}, float("nan"), float("inf"), float("-inf"), 2**64, -(2**64)]
    words = st.text(max_size=12).filter(lambda s: re.fullmatch(r"[0-9a-z]+", s) is None)
    return st.sampled_from(fixed) | words | st.floats(max_value=-0.001) | st.integers(max_value=-1)


def mangled(key: str, value):
    """A post's JSON with `key` put to `value` (or left out: MISSING)."""
    def change(post: dict) -> dict:
        post = dict(post)
        if value is MISSING:
            post.pop(key, None)
        else:
            post[key] = value
        return post
    return change
