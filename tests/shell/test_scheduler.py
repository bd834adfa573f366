"""`run`: the cycle on APScheduler, with the next deadline taken from the database."""
import threading
import time
from datetime import datetime, timedelta, timezone

from adapters.local import LocalForum
from forumbot.shell import scheduler
from forumbot.shell.moderator import Moderator


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

    from forumbot.shell.moderator import CycleReport
    from forumbot.shell.scheduler import BUSY, plan_again

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


class _Keeper:
    def __init__(self, answers):
        self.answers = list(answers)

    def check(self):
        return self.answers.pop(0) if self.answers else "ok"


def test_no_cycle_runs_while_the_bot_lock_is_lost_and_run_stops_when_another_bot_took_it():
    class Mod:
        cycles = 0

        def cycle(self):
            Mod.cycles += 1
            from forumbot.shell.moderator import CycleReport
            return CycleReport()

        def next_deadline(self):
            return None

    runner = scheduler.Runner(Mod(), 60, keeper=_Keeper(["ok", "wait", "stop"]))
    runner.tick()
    assert Mod.cycles == 1 and runner.failures == 0
    runner.tick()  # lost, not taken again: no cycle, and the next try backs off
    assert Mod.cycles == 1 and runner.failures == 1
    runner.tick()  # another bot has it now: this one stops with 3
    assert Mod.cycles == 1 and runner.exit_code == 3 and runner.stopping


def test_run_exits_3_when_another_bot_takes_the_lost_lock(db):
    mod = Moderator(LocalForum(":memory:"))
    assert scheduler.run_forever(mod, poll_interval=60, keeper=_Keeper(["stop"])) == 3


def test_sigterm_while_the_scheduler_hands_a_cycle_to_its_worker_still_stops_the_bot():
    """APScheduler swallows any exception raised while it submits a job ("Error submitting
    job"): a SIGTERM that lands there must still stop the bot (it ran on, polling, until
    systemd killed it mid-cycle)."""
    import os
    import signal

    from forumbot.shell.moderator import CycleReport

    class Mod:
        class forum:
            class traits:
                listing_window = 500

        def cycle(self):
            return CycleReport()

        def next_deadline(self):
            return None

    runner = scheduler.Runner(Mod(), 1)
    executor = runner.sched._lookup_executor("default")
    submit = executor.submit_job
    signalled = []

    def submit_job(job, run_times):
        if not signalled:
            signalled.append(1)
            os.kill(os.getpid(), signal.SIGTERM)  # the handler runs in here, in the main thread
            time.sleep(0.05)
        return submit(job, run_times)

    executor.submit_job = submit_job
    hung = []

    def rescue():  # a bound: the test fails instead of hanging
        hung.append(1)
        runner.sched.shutdown(wait=False)

    timer = threading.Timer(10, rescue)
    timer.start()
    try:
        started = time.monotonic()
        runner.run()
    finally:
        timer.cancel()
    assert signalled and not hung, "SIGTERM was lost: the scheduler ran on"
    assert runner.stopping and time.monotonic() - started < 5
