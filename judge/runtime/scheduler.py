"""Deadline timers: an APScheduler job that wakes the deadline loop at the next moment.

The database stays the source of truth.  The judge keeps one job, ``deadline:next``, at
the next moment something is due for any game (the earliest ``games.wake_at``, see
:mod:`judge.services.wakes`): one job rather than one per game, because keeping 10,000
jobs in step costs a write per game whenever its moment moves, while the one MIN is a
single indexed read.  When it fires it only wakes the judge's deadline loop, which works
out from the database what is due and processes it idempotently.  So a late fire or a
double fire is harmless, and the loop's own tick (which also sleeps until that moment)
is the safety net if a job is ever lost.

The job is kept in memory, one scheduler per judge process: several judges may share one
database, and APScheduler's database job store cannot be shared by several schedulers
(each would run every job and remove it under the others).  Nothing is lost with a
restart: the job is worked out again from ``games.wake_at`` at the loop's first pass, so
deadlines that passed while the judge was down are acted on at once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime

from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.background import BackgroundScheduler

log = logging.getLogger("judge.scheduler")

#: Wake-up callbacks of the running judges, by database URL: the job is a module-level
#: function with plain arguments (as a persistent job store would need), so the job names
#: the database and this finds the judge serving it.
_WAKERS: dict[str, Callable[[], None]] = {}
_LOCK = threading.Lock()


def wake(url: str) -> None:
    """The job function: wake the deadline loop of the judge serving ``url``."""
    with _LOCK:
        waker = _WAKERS.get(url)
    if waker is not None:
        waker()


class DeadlineScheduler:
    """An APScheduler job that wakes the deadline loop, kept in this process's memory."""

    def __init__(self, url: str, waker: Callable[[], None]) -> None:
        self.url = url
        self.scheduler = BackgroundScheduler(
            jobstores={"default": MemoryJobStore()},
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
            timezone=UTC,
        )
        with _LOCK:
            _WAKERS[url] = waker

    def start(self) -> None:
        """Start the scheduler (the deadline loop gives it its job at its first pass)."""
        self.scheduler.start()

    def sync(self, wanted: dict[str, datetime]) -> None:
        """Make the jobs match ``wanted`` (job id -> run time); others are removed."""
        for job in self.scheduler.get_jobs():
            if job.id.startswith("deadline:") and job.id not in wanted:
                job.remove()
        for job_id, moment in wanted.items():
            job = self.scheduler.get_job(job_id)
            if job is not None and job.next_run_time == moment:
                continue
            self.scheduler.add_job(
                wake,
                "date",
                run_date=moment,
                args=[self.url],
                id=job_id,
                replace_existing=True,
            )

    def stop(self) -> None:
        """Stop without waiting for anything."""
        self.scheduler.shutdown(wait=False)
        with _LOCK:
            _WAKERS.pop(self.url, None)
