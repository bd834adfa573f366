"""A scripted table: players who act on a forum, and the bot that runs the game.

The same scripts run on the local forum, on the fake Reddit (through real praw) and on the
fake Discourse (through the Discourse adapter over HTTP)."""
from __future__ import annotations

import re

from adapters.discourse import DiscourseForum
from adapters.local import LocalForum
from forumbot import store
from forumbot.archive.export import export_game
from forumbot.shell.moderator import Moderator
from tests.fakes.discourse import FakeDiscourse

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy"]


def config_text(players, preset="resistance", seed=7, extra=""):
    return (f"title: Test game\npreset: {preset}\nplayers: [{', '.join(players)}]\n"
            f"seed: {seed}\nleader_order: listed\nsubreddit: resistancegames\n{extra}")


class LocalPeople:
    def __init__(self, forum: LocalForum):
        self.forum = forum

    def comment(self, author, thread, body):
        self.forum.comment(author, thread, body)

    def pm(self, author, subject, body):
        self.forum.send_pm(author, self.forum.bot_name, subject, body)

    def pms_to(self, user) -> list[str]:
        return [r["body"] for r in self.forum.messages_to(user)]

    def thread(self, thread) -> list[str]:
        return [r["body"] for r in self.forum.thread_comments(thread)]

    def opening(self, thread) -> str:
        """The thread's opening post as the forum shows it now."""
        return next(t["body"] for t in self.forum.threads() if f"t{t['id']}" == thread)

    def public_texts(self) -> list[str]:
        texts = [t["body"] for t in self.forum.threads()]
        for t in self.forum.threads():
            texts += self.thread(f"t{t['id']}")
        return texts


class RedditPeople:
    def __init__(self, fake):
        self.fake = fake

    def comment(self, author, thread, body):
        self.fake.comment(author, thread, body)

    def pm(self, author, subject, body):
        self.fake.pm_bot(author, subject, body)

    def pms_to(self, user) -> list[str]:
        return [m["body"] for m in self.fake.pms_to(user)]

    def thread(self, thread) -> list[str]:
        return [c["body"] for c in self.fake.thread_comments(thread)]

    def opening(self, thread) -> str:
        """The thread's opening post as the forum shows it now."""
        return self.fake.submissions[thread.partition(":")[2] or thread]["selftext"]

    def public_texts(self) -> list[str]:
        texts = [s["selftext"] for s in self.fake.submissions.values()]
        return texts + [c["body"] for c in self.fake.comments]


class Table:
    def __init__(self, forum, people, clock, players=None, make_moderator=None):
        self.forum = forum
        self.people = people
        self.clock = clock
        self.players = players or NAMES[:5]
        self._make = make_moderator or (lambda: Moderator(forum, clock=clock))
        self.mod = self._make()
        self.game_id = None

    def cycle(self, fresh: bool = False):
        if fresh:  # a new process: a fresh moderator (no cache)
            self.mod = self._make()
        return self.mod.cycle()

    def start(self, host="host", **kw) -> "Table":
        self.people.pm(host, "new game", config_text(self.players, **kw))
        self.cycle()
        self.cycle()
        game = store.Game.select().order_by(store.Game.id.desc()).first()
        assert game is not None, "no game was created"
        self.game_id = game.id
        return self

    @property
    def game(self) -> store.Game:
        return store.Game.get_by_id(self.game_id)

    @property
    def state(self):
        return self.mod.state(self.game)

    def export(self) -> dict:
        return export_game(self.game)

    def spies(self) -> list[str]:
        s = self.state
        return [s.shown(x) for x in s.spies()]

    def say(self, author, body):
        self.people.comment(author, self.game.thread, body)

    def pm(self, author, body, subject=None):
        self.people.pm(author, subject or f"{self.game.tag}", body)

    def propose(self, team=None):
        s = self.state
        team = team or self.default_team()
        self.say(s.shown(s.leader), "**PROPOSE: " + ", ".join(team) + "**")
        self.cycle()
        return team

    def default_team(self):
        s = self.state
        return [x.name for x in s.active()][: s.team_size()]

    def vote_all(self, approve=True, skip=(), by_pm=()):
        s = self.state
        for n in [s.shown(x) for x in s.waiting_for()]:  # (the usernames on the seats)
            if n in skip:
                continue
            word = "APPROVE" if (approve is True or (approve is not False and n in approve)) else "REJECT"
            if n in by_pm:
                self.pm(n, word)
            else:
                self.say(n, f"**{word}**")
        self.cycle()

    def orders(self, sabotage=(), skip=()):
        s = self.state
        for n in [s.shown(x) for x in s.team]:
            if n in skip:
                continue
            self.pm(n, "SABOTAGE" if n in sabotage else "SUPPORT")
        self.cycle()

    def mission(self, sabotage=(), team=None):
        team = self.propose(team)
        self.vote_all(True)
        self.orders(sabotage=[n for n in sabotage if n in team])
        return team


def excalibur_table(db, clock) -> Table:
    """Avalon with Excalibur, seven at the table on the local forum, at its first proposal."""
    from tests.fakes.bots import make_bot
    from tests.fakes.driver import settle

    t = make_bot("local", clock).table(7, preset="avalon", extra="excalibur: true\nplot_cards: false\n")
    settle(t, max_cycles=20)
    assert t.state.phase == "proposal"
    return t


# --- Discourse ---------------------------------------------------------------------------


def discourse_config(players, preset="resistance", seed=7, extra="", title="Test game on Discourse"):
    """The table's config, with a title Discourse takes (15 characters at least, tag included)
    and the category left to the settings (`[discourse] category`)."""
    text = config_text(players, preset=preset, seed=seed, extra=extra)
    text = text.replace("subreddit: resistancegames\n", "")
    return text.replace("title: Test game\n", f"title: {title}\n")


class DiscoursePeople:
    """Players on the fake Discourse: they post and PM as people do there."""

    def __init__(self, fake: FakeDiscourse, rules: bool = True):
        self.fake, self.rules = fake, rules

    def comment(self, author, thread, body):
        return self.fake.reply(author, thread, body, rules=self.rules)

    def pm(self, author, subject, body):
        return self.fake.pm(author, self.fake.bot, subject or "a message", body, rules=self.rules)

    def pms_to(self, user) -> list[str]:
        if user.lower() not in self.fake.users:
            return []
        return [p["raw"] for p in self.fake.pms_to(user)]

    def thread(self, thread) -> list[str]:
        return [p["raw"] for p in self.fake.topic_posts(thread)]

    def opening(self, thread) -> str:
        """The topic's first post as the forum shows it now."""
        return self.fake.topic_posts(thread)[0]["raw"]

    def public_texts(self) -> list[str]:
        return [p["raw"] for p in self.fake.public_posts()]


class DiscourseTable(Table):
    """A table on the fake Discourse: the host and the players are members of the site."""

    def start(self, host="host", **kw) -> "DiscourseTable":
        for name in [host, *self.players]:  # forum members: a PM to no one is refused
            self.people.fake.user(name)
        self.people.pm(host, "new game", discourse_config(self.players, **kw))
        self.cycle()
        self.cycle()
        game = store.Game.select().order_by(store.Game.id.desc()).first()
        assert game is not None, "no game was created"
        assert game.thread, f"the game has no thread: {self.people.pms_to(host)}"
        self.game_id = game.id
        return self


def discourse_forum(fake: FakeDiscourse, **kw) -> DiscourseForum:
    """The Discourse adapter on the fake, with no waits (backoff, rate limit, edit re-checks)."""
    kw.setdefault("backoff", 0)
    kw.setdefault("max_wait", 0)
    kw.setdefault("requests_per_minute", None)
    kw.setdefault("recheck_every", 0)
    return DiscourseForum.from_settings(fake.settings(), **kw)


def edit_notices(t) -> list[str]:
    """Whom the bot told in the thread that an edit changes nothing."""
    return [m.group(1) for b in t.people.thread(t.game.thread)
            if (m := re.match(r"@(\w+): Editing a comment does not change a command", b))]
