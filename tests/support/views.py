"""Each forum as the secrecy oracle (tests/support/secrecy.py) reads one, the local forum's
way: the game thread's opening post (`threads`), its comments (`thread_comments`), the
messages each user was sent (`messages_to`), each with its raw text (what anyone with access
can read); and `conversations`: how many people are in each private conversation the bot
started (a PM of the bot's must have only it and one player in it)."""
from __future__ import annotations


class RedditView:
    def __init__(self, fake, thread: str):
        self.fake, self.bot_name = fake, fake.bot
        self.sid = thread.partition(":")[2] or thread

    def threads(self) -> list[dict]:
        return [{"id": self.sid, "body": self.fake.submissions[self.sid]["selftext"]}]

    def thread_comments(self, thread: str) -> list[dict]:
        assert thread == f"t{self.sid}"
        return [{"author": c["author"], "body": c["body"]} for c in self.fake.thread_comments(self.sid)]

    def messages_to(self, user: str) -> list[dict]:
        return [{"sender": m["author"], "body": m["body"]} for m in self.fake.pms_to(user)]

    def conversations(self) -> list[tuple[str, int]]:
        return []  # a Reddit PM has one recipient: there is no one else it could reach


class DiscourseView:
    def __init__(self, fake, thread: str):
        self.fake, self.bot_name = fake, fake.bot
        self.tid = int(thread.rpartition(":")[2])

    def threads(self) -> list[dict]:
        return [{"id": self.tid, "body": self.fake.topic_posts(self.tid)[0]["raw"]}]

    def thread_comments(self, thread: str) -> list[dict]:
        assert thread == f"t{self.tid}"
        return [{"author": self.fake.username(p), "body": p["raw"]} for p in self.fake.topic_posts(self.tid)[1:]]

    def messages_to(self, user: str) -> list[dict]:
        return [{"sender": self.fake.username(p), "body": p["raw"]} for p in self.fake.pms_to(user)]

    def conversations(self) -> list[tuple[str, int]]:
        bot = self.fake.users[self.fake.bot]["id"]
        return [(t["title"], len(t["allowed"])) for t in self.fake.topics.values()
                if t["archetype"] == "private_message" and t["user_id"] == bot]


class XenForoView:
    def __init__(self, fake, thread: str):
        self.fake, self.bot_name = fake, fake.bot
        self.tid = int(thread.rpartition(":")[2])

    def threads(self) -> list[dict]:
        return [{"id": self.tid, "body": self.fake.thread_posts(self.tid)[0]["message"]}]

    def thread_comments(self, thread: str) -> list[dict]:
        assert thread == f"t{self.tid}"
        return [{"author": p["username"], "body": p["message"]} for p in self.fake.thread_posts(self.tid)[1:]]

    def messages_to(self, user: str) -> list[dict]:
        return [{"sender": m["username"], "body": m["message"]} for m in self.fake.pms_to(user)]

    def conversations(self) -> list[tuple[str, int]]:
        bot = self.fake.users[self.fake.bot.casefold()]["user_id"]
        return [(c["title"], len(c["recipients"])) for c in self.fake.convs.values() if c["user_id"] == bot]


class LocalView:
    """The local forum is what the oracle was written for (its rows read as dicts)."""

    def __init__(self, forum, thread: str):
        self.forum, self.bot_name = forum, forum.bot_name

    def threads(self) -> list[dict]:
        return [dict(r) for r in self.forum.threads()]

    def thread_comments(self, thread: str) -> list[dict]:
        return [dict(r) for r in self.forum.thread_comments(thread)]

    def messages_to(self, user: str) -> list[dict]:
        return [dict(r) for r in self.forum.messages_to(user)]

    def conversations(self) -> list[tuple[str, int]]:
        return []  # a message of the local forum has one recipient
