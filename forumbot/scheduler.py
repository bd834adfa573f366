"""`run`: the cycle on APScheduler. One thread does everything (praw is not thread-safe):
a BlockingScheduler whose single job runs at the poll interval and, besides, at the next
deadline kept in the database (jobs are rebuilt from the database at start-up, so no job
store is needed)."""
from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.blocking import BlockingScheduler

log = logging.getLogger("forumbot")

GRACE = 300  # a tick that runs late still runs (APScheduler's default grace is 1 second)
BUSY = 500  # new messages in one cycle above which the bot reads again at once: Reddit's
#            subreddit listing shows only the newest ~1,000 comments, so a busy subreddit is
#            read more often rather than left to overflow it


def run_forever(moderator, poll_interval: int) -> None:
    sched = BlockingScheduler(executors={"default": ThreadPoolExecutor(1)},
                              job_defaults={"coalesce": True, "max_instances": 1,
                                            "misfire_grace_time": GRACE},
                              timezone=timezone.utc)

    def tick() -> None:
        try:
            report = moderator.cycle()
            log.info("cycle: fetched %s, handled %s, posted %s, deadlines %s", report.fetched,
                     report.handled, report.posted, report.deadlines)
            plan_again(sched, report, tick)
        except Exception:
            log.exception("cycle failed; the next tick tries again")
        plan_deadline(sched, moderator, tick)

    sched.add_job(tick, "interval", seconds=poll_interval, id="poll",
                  next_run_time=datetime.now(timezone.utc))
    plan_deadline(sched, moderator, tick)
    log.info("forumbot running: polling every %ss", poll_interval)
    try:
        sched.start()
    except (KeyboardInterrupt, SystemExit):
        log.info("stopped")


def plan_again(sched, report, tick) -> bool:
    """After a busy cycle, another one right away instead of at the next poll."""
    if report.fetched < BUSY:
        return False
    sched.add_job(tick, "date", run_date=datetime.now(timezone.utc) + timedelta(seconds=1),
                  id="again", replace_existing=True)
    return True


def plan_deadline(sched, moderator, tick) -> None:
    """A one-off job at the earliest deadline in the database (replacing the last one)."""
    due = moderator.next_deadline()
    if due is None:
        if sched.get_job("deadline"):
            sched.remove_job("deadline")
        return
    due = max(due, datetime.now(timezone.utc) + timedelta(seconds=1))
    sched.add_job(tick, "date", run_date=due, id="deadline", replace_existing=True)
