"""`run`: the cycle on APScheduler, with the next deadline taken from the database."""
import threading
import time
from datetime import datetime, timedelta, timezone

from adapters.local import LocalForum
from forumbot import scheduler
from forumbot.moderator import Moderator


def test_run_forever_polls_and_fires_deadlines(db, monkeypatch):
    forum = LocalForum(":memory:")
    forum.send_pm("host", "forumbot", "new game",
                  "preset: resistance\nplayers: [alice, bob, carol, dave, erin]\nleader_order: listed\n"
                  "deadlines: {proposal: 2s}\n")
    mod = Moderator(forum)
    cycles = []
    real_cycle = mod.cycle

    def counting_cycle():
        cycles.append(datetime.now(timezone.utc))
        return real_cycle()

    mod.cycle = counting_cycle
    started = {}

    class StopAfter(scheduler.BlockingScheduler):
        def start(self, *a, **kw):
            started["sched"] = self
            threading.Timer(4.5, lambda: self.shutdown(wait=False)).start()
            return super().start(*a, **kw)

    monkeypatch.setattr(scheduler, "BlockingScheduler", StopAfter)
    t0 = time.monotonic()
    scheduler.run_forever(mod, poll_interval=60)  # polling alone would run once in 4.5 s
    assert time.monotonic() - t0 < 30
    from forumbot import store
    game = store.Game.get()
    state = mod.state(game)
    # the 2-second proposal deadline fired at least once without waiting for the next poll
    assert state.leader != "alice"
    assert len(cycles) >= 2
    assert mod.next_deadline() > datetime.now(timezone.utc) - timedelta(seconds=5)


def test_a_busy_cycle_is_followed_by_another_at_once():
    from apscheduler.schedulers.background import BackgroundScheduler

    from forumbot.moderator import CycleReport
    from forumbot.scheduler import BUSY, plan_again

    sched = BackgroundScheduler(timezone="UTC")
    sched.start(paused=True)  # running, as in `run`, but nothing fires
    assert not plan_again(sched, CycleReport(fetched=BUSY - 1), lambda: None)
    assert sched.get_job("again") is None
    assert plan_again(sched, CycleReport(fetched=BUSY), lambda: None)
    job = sched.get_job("again")
    assert job is not None
    assert plan_again(sched, CycleReport(fetched=BUSY * 2), lambda: None)  # still one job
    assert len([j for j in sched.get_jobs() if j.id == "again"]) == 1
    sched.shutdown(wait=False)
