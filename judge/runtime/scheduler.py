"""Deadline timers: APScheduler with its SQLAlchemy job store in the judge's database.

The database stays the source of truth.  The judge keeps one job, ``deadline:next``, at
the next moment something is due for any game (the earliest ``games.wake_at``, see
:mod:`judge.services.wakes`): one job rather than one per game, because keeping 10,000
jobs in step costs a write per game whenever its moment moves, while the one MIN is a
single indexed read.  When it fires it only wakes the judge's deadline loop, which works
out from the database what is due and processes it idempotently.  So a late fire, a
double fire or a fire after a restart is harmless, and the loop's own tick (which also
sleeps until that moment) is the safety net if a job is ever lost.  At start the
jobs are recreated from the database; misfires (deadlines that passed while the judge was
down) are never dropped, and coalesced into one run.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime

from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler

from judge.db.session import make_engine

log = logging.getLogger("judge.scheduler")

#: Wake-up callbacks of the running judges, by database URL: APScheduler pickles a job as
#: a reference to a module-level function with plain arguments, so the job names the
#: database and this finds the judge serving it.
_WAKERS: dict[str, Callable[[], None]] = {}
_LOCK = threading.Lock()


def wake(url: str) -> None:
    """The job function: wake the deadline loop of the judge serving ``url``."""
    with _LOCK:
        waker = _WAKERS.get(url)
    if waker is not None:
        waker()


class DeadlineScheduler:
    """APScheduler jobs that wake the deadline loop, kept in the judge's own database."""

    def __init__(self, url: str, waker: Callable[[], None]) -> None:
        self.url = url
        self.scheduler = BackgroundScheduler(
            # The judge's own engine settings: SQLite waits for locks instead of failing.
            jobstores={
                "default": SQLAlchemyJobStore(engine=make_engine(url), tablename="apscheduler_jobs")
            },
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
            timezone=UTC,
        )
        with _LOCK:
            _WAKERS[url] = waker

    def start(self) -> None:
        """Start the scheduler (jobs kept from before a restart fire now if they are due)."""
        self.scheduler.start()

    def sync(self, wanted: dict[str, datetime]) -> None:
        """Make the jobs match ``wanted`` (job id -> run time); others are removed (the
        one job per game of older judges too).

        Called with no database session open: on SQLite the job store's writes would
        otherwise wait for the judge's own transaction.
        """
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
        """Stop without waiting for anything: the jobs stay in the database."""
        self.scheduler.shutdown(wait=False)
        with _LOCK:
            _WAKERS.pop(self.url, None)
