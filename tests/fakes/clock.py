"""The tests' clock: a fixed time that a test moves on by hand (`advance`); the bot, the
forums and the fakes all read it."""
from datetime import datetime, timedelta, timezone


class Clock:
    def __init__(self, at=datetime(2026, 11, 29, 20, 0, tzinfo=timezone.utc)):
        self.at = at

    def __call__(self):
        return self.at

    def advance(self, **kw):
        self.at += timedelta(**kw)
