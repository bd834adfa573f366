"""`run`: the cycle on APScheduler. One thread does everything (praw is not thread-safe):
a BlockingScheduler whose single job runs at the poll interval and, besides, at the next
deadline kept in the database (jobs are rebuilt from the database at start-up, so no job
store is needed).

A cycle that could not read the forum (or reach the database) is logged as an error, and
the next one waits longer each time (backoff, up to MAX_BACKOFF), until one succeeds.
SIGTERM (how systemd and Docker stop a service) and Ctrl-C let the current cycle finish,
then the bot logs "stopped" and exits; a second Ctrl-C stops it at once, with one line.

With a heartbeat file (`FORUMBOT_HEARTBEAT`, set by deploy/Dockerfile), each finished cycle
writes into it the time (Unix seconds) by which the next cycle will have finished; a
healthcheck compares it with the clock, so a bot whose loop hangs or died shows unhealthy,
while a bot waiting out a forum's outage (backoff) does not."""
from __future__ import annotations

import logging
import os
import signal
import threading
from datetime import datetime, timedelta, timezone

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.blocking import BlockingScheduler

log = logging.getLogger("forumbot")

GRACE = 300  # a tick that runs late still runs (APScheduler's default grace is 1 second)
BUSY = 500  # new messages in one cycle above which the bot reads again at once, where the
#            forum does not say (its traits.listing_window): a listing that shows only the
#            newest posts is read more often rather than left to overflow
MAX_BACKOFF = 900  # seconds: the longest wait between tries while the forum cannot be read
FAILED = ("fetch:", "database:")  # a cycle with one of these errors did not get through


def backoff(failures: int, poll_interval: float) -> float:
    """Seconds until the next try after `failures` failed cycles in a row: the poll interval,
    then twice as long each time, up to MAX_BACKOFF (or the poll interval, if longer)."""
    if failures <= 0:
        return poll_interval
    return min(max(MAX_BACKOFF, poll_interval), poll_interval * 2 ** (failures - 1))


class Runner:
    """The scheduler, its tick and the count of failed cycles in a row."""

    def __init__(self, moderator, poll_interval: float, keeper=None, heartbeat: str | None = None):
        self.moderator = moderator
        self.heartbeat = heartbeat  # a file each finished cycle writes (see the module's text)
        self.heartbeat_failed = False
        self.poll_interval = poll_interval
        # botlock.Keeper: the bot lock, checked before each cycle (`run` sets the moderator's)
        self.keeper = keeper if keeper is not None else getattr(moderator, "keeper", None)
        self.exit_code = 0
        self.failures = 0
        self.busy = threading.Lock()  # held while a cycle runs
        self.stopping = False
        self.sched = BlockingScheduler(executors={"default": ThreadPoolExecutor(1)},
                                       job_defaults={"coalesce": True, "max_instances": 1,
                                                     "misfire_grace_time": GRACE},
                                       timezone=timezone.utc)
        self.sched.add_job(self.tick, "interval", seconds=poll_interval, id="poll",
                           next_run_time=datetime.now(timezone.utc))

    def tick(self) -> None:
        if self.stopping:
            return
        with self.busy:
            report = None
            lock = self.keeper.check() if self.keeper is not None else "ok"
            if lock == "stop":  # another bot works on the database now: never two at once
                self.exit_code = 3
                self.stop()
                return
            try:
                if lock == "ok":  # (else the lock is lost and not taken again yet: no cycle without it)
                    report = self.moderator.cycle()
                    log.info("cycle: fetched %s, handled %s, posted %s, deadlines %s", report.fetched,
                             report.handled, report.posted, report.deadlines)
            except Exception:
                log.exception("cycle failed")
            failed = report is None or any(e.startswith(FAILED) for e in report.errors)
            self.failures = self.failures + 1 if failed else 0
            try:
                if failed:
                    wait = backoff(self.failures, self.poll_interval)
                    why = "; ".join(report.errors) if report is not None else "see above"
                    log.error("cycle %d in a row that failed (%s); the next try in %ss",
                              self.failures, why, round(wait))
                    self.sched.modify_job("poll", next_run_time=datetime.now(timezone.utc)
                                          + timedelta(seconds=wait))
                elif report is not None:
                    plan_again(self.sched, report, self.tick, self.moderator.forum.traits.listing_window)
                plan_deadline(self.sched, self.moderator, self.tick,
                              not_before=backoff(self.failures, self.poll_interval)
                              if self.failures else 1)
            except Exception:  # the scheduler is shutting down: nothing more to plan
                if not self.stopping:
                    log.exception("planning the next cycle failed")
            self.beat(backoff(self.failures, self.poll_interval))

    def beat(self, wait: float) -> None:
        """Write the heartbeat: the next cycle starts within `wait` seconds and a cycle may run
        late by GRACE; a missed write is logged once, and never stops the bot."""
        if not self.heartbeat:
            return
        due = int(datetime.now(timezone.utc).timestamp() + wait + GRACE)
        part = f"{self.heartbeat}.part"
        try:
            with open(part, "w", encoding="ascii") as f:
                f.write(f"{due}\n")
            os.replace(part, self.heartbeat)
            self.heartbeat_failed = False
        except OSError as e:
            if not self.heartbeat_failed:
                log.error("cannot write the heartbeat file %s: %s", self.heartbeat, e.strerror or e)
            self.heartbeat_failed = True

    def stop(self) -> None:
        """Let the cycle under way finish, then stop."""
        if self.stopping:
            return
        self.stopping = True
        log.info("stopping: the cycle under way finishes first (Ctrl-C again stops at once)")
        try:
            self.sched.shutdown(wait=False)
        except Exception:
            pass

    def _signalled(self, signum, frame) -> None:
        # A signal handler runs in the main thread wherever it was, maybe inside a lock that
        # stopping takes: it raises, and stop() runs where start() is left. But APScheduler
        # swallows whatever is raised while it hands a job to its worker ("Error submitting
        # job"), so another thread stops the scheduler too (it waits for any lock the main
        # thread holds, instead of taking it from under it).
        # A second Ctrl-C while the cycle under way finishes: stop at once, in one line (a
        # write, not a log line: the logging lock may be held where the signal came).
        if not self.stopping:
            threading.Thread(target=self.stop, name="forumbot-stop", daemon=True).start()
            raise _Stop(signum)
        if signum == signal.SIGINT:
            os.write(2, b"forumbot: interrupted again: stopped at once, without waiting for the "
                        b"cycle under way\n")
            os._exit(130)

    def run(self) -> None:
        before = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                before[sig] = signal.signal(sig, self._signalled)
        try:
            try:
                plan_deadline(self.sched, self.moderator, self.tick)
                log.info("forumbot running: polling every %ss", self.poll_interval)
                self.sched.start()
            except (_Stop, KeyboardInterrupt, SystemExit):
                pass
            self.stop()
            with self.busy:  # wait for the cycle under way
                pass
        finally:
            for sig, handler in before.items():
                signal.signal(sig, handler)
        log.info("stopped")


class _Stop(BaseException):
    """SIGTERM or SIGINT came (a BaseException, so that no `except Exception` on the way
    swallows it)."""


def run_forever(moderator, poll_interval: int, keeper=None, heartbeat: str | None = None) -> int:
    """Run until stopped; the exit code (3: another bot took the database). The heartbeat
    file is `heartbeat`, else the one FORUMBOT_HEARTBEAT names, else none."""
    runner = Runner(moderator, poll_interval, keeper,
                    heartbeat if heartbeat is not None else os.environ.get("FORUMBOT_HEARTBEAT") or None)
    runner.run()
    return runner.exit_code


def plan_again(sched, report, tick, window: int = BUSY) -> bool:
    """After a busy cycle (`window` new messages or more: the forum's listing_window), another
    one right away instead of at the next poll."""
    if report.fetched < window:
        return False
    sched.add_job(tick, "date", run_date=datetime.now(timezone.utc) + timedelta(seconds=1),
                  id="again", replace_existing=True)
    return True


def plan_deadline(sched, moderator, tick, not_before: float = 1) -> None:
    """A one-off job at the earliest deadline in the database (replacing the last one), at
    the earliest `not_before` seconds from now (a deadline waiting for the forum is not
    retried every second)."""
    due = moderator.next_deadline()
    if due is None:
        if sched.get_job("deadline"):
            sched.remove_job("deadline")
        return
    due = max(due, datetime.now(timezone.utc) + timedelta(seconds=not_before))
    sched.add_job(tick, "date", run_date=due, id="deadline", replace_existing=True)
