"""The running judge: mail in, processing, deadlines and mail out.

Each part is a loop around a service call; they talk only through the database and a
few wake-up events, so a crash anywhere loses nothing: whatever was stored but not
processed, or queued but not sent, is picked up by the next loop (also after a restart).

Receiving mail and the deadlines are threads of the main process.  Processing stored mail
and sending mail are two more loops: threads too, or (``[judge] worker_processes``, the
default of ``judge serve``) each in a child process of its own, so that the three stages
run on several CPUs at once instead of taking turns on one interpreter lock.  A child
stops when told to, and by itself as soon as it finds its parent gone (SIGKILL), between
two batches or two emails; one that dies is started again.  On a database several
processes share, with worker processes, the deadlines' looks at a burst of games run in
two more (:class:`judge.runtime.looks.LookPool`).

The mail worker process says when it starts on each message (a shared clock reading); a
watchdog thread of the parent kills it when one message takes longer than
``max_message_seconds`` and starts it again.  Each message's attempt was counted before
the work began, so the message that stalled or killed the worker is tried alone next, and
parked after a few attempts (``judge.services.inbound``); the rest goes on.  The worker
also runs under an address-space limit (``worker_memory_mb``), so that a runaway message
raises MemoryError there instead of calling in the kernel's out-of-memory killer.
"""

from __future__ import annotations

import functools
import logging
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy.orm import Session

from judge.config import JudgeSettings
from judge.db import queries
from judge.db.models import Game
from judge.db.session import read_only, shareable
from judge.mail.transport import Transport
from judge.runtime import looks
from judge.runtime.bootstrap import App, open_app
from judge.runtime.scheduler import DeadlineScheduler
from judge.runtime.sender import CLAIM_BATCH, SentJournal, deliver_due
from judge.services import presence
from judge.services.game_file_watch import load_new_games, reload_configs
from judge.services.inbound import CLAIM_LIMIT, process_pending
from judge.services.intake import receive_many

log = logging.getLogger("judge.serve")


def utcnow() -> datetime:
    """The real clock (tests pass their own)."""
    return datetime.now(UTC)


class Wakeup(Protocol):
    """A threading or multiprocessing Event."""

    def set(self) -> None: ...
    def clear(self) -> None: ...
    def is_set(self) -> bool: ...
    def wait(self, timeout: float | None = None) -> bool: ...


#: How often the running judge looks at the game files by itself (SIGHUP: at once).
GAME_FILE_SECONDS = 30.0
#: How often the deadline loop's safety net looks for games whose deadline changed
#: without marking them (:func:`judge.db.queries.games_out_of_step`).
SAFETY_SECONDS = 60.0
#: Sleep this much past the next moment, so that the clock has surely reached it.
WAKE_SLACK = 0.002
#: The scheduler's job: the next moment anything is due, one per judge.
NEXT_JOB = "deadline:next"
#: Games claimed at a time by the deadline loop: small, so that several judges on one
#: database share a burst out evenly.
CLAIM_PAGE = 24
#: How many games of a page are looked at together, in one transaction
#: (:func:`looks.look_page`): each part of a page goes to a look process of its own.
LOOK_TOGETHER = 12
#: How many parts of a page the deadline loop looks at side by side, each in a process of
#: its own (:class:`looks.LookPool`), on a database several processes may share, with
#: worker processes: one process's looks are capped at one CPU by its interpreter lock.
LOOK_PROCESSES = 2
#: The PostgreSQL advisory lock that lets one judge at a time look at the game files.
GAME_FILES_LOCK = 0x4A554446

#: How long start() waits for a worker process to be ready (importing takes about 1 s).
WORKER_START_SECONDS = 60
#: How often the watchdog looks at the worker processes (dead, or stalled on a message).
WATCHDOG_SECONDS = 0.25

LOG_FORMAT = "%(asctime)s %(levelname)s %(processName)s %(name)s: %(message)s"

#: Libraries whose INFO lines are protocol chatter (aiosmtpd's every SMTP command and
#: connection, APScheduler's every job run): the judge's own lines say what happened, so
#: these show only their warnings.
QUIET_LOGGERS = ("mail.log", "mail.debug", "apscheduler", "imapclient")


def configure_logging(level: int = logging.INFO) -> None:
    """The log of ``judge serve`` and its worker processes: the judge's lines at
    ``level`` (a line per message and per phase), the libraries' chatter below it."""
    logging.basicConfig(level=level, format=LOG_FORMAT)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))


def open_journal(settings: JudgeSettings) -> SentJournal | None:
    """The sender's journal (``var/outbox.journal``), or None when another running judge
    holds it (then each email sent is committed on its own, as without a journal)."""
    path = settings.var_dir / "outbox.journal"
    try:
        return SentJournal(path)
    except OSError as err:
        log.warning("not using the sent-mail journal %s: %s", path, err)
        return None


@dataclass
class _Worker:
    """A loop in a child process: its role and its process (replaced when it dies)."""

    role: str
    process: Any = None
    ready: Any = None  # an Event the process sets once it can work
    #: A shared double: when (time.monotonic()) the worker began its current message, 0
    #: while it is idle (the watchdog's heartbeat).
    busy: Any = None
    #: The process's name in its claims (:func:`judge.services.presence.process_token`).
    token: str = ""


def limit_memory(megabytes: int) -> bool:
    """Limit this process's address space to ``megabytes`` MiB (RLIMIT_AS), so that a
    runaway allocation raises MemoryError; False where that is not supported (or 0)."""
    if megabytes <= 0:
        return False
    try:
        import resource
    except ImportError:  # not on this platform
        return False
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = megabytes << 20
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError) as err:
        log.warning("cannot limit the worker's memory to %d MiB: %s", megabytes, err)
        return False
    return True


def _worker_main(
    role: str,
    settings: JudgeSettings,
    wake: Wakeup,
    notify: Wakeup,
    stop: Wakeup,
    parent: int,
    ready: Wakeup,
    busy: Any = None,
    beaten: Any = None,
) -> None:
    """The body of a worker process: ``role`` is ``"inbox"`` (process stored mail, then
    set ``notify``, telling ``busy`` when each message begins) or ``"outbox"`` (send
    queued mail); either claims nothing while the parent's last good heartbeat, the
    shared double ``beaten`` (None: not asked, on SQLite), is late."""
    # The parent decides when to stop (SIGTERM, Ctrl-C reach the whole process group):
    # a signal here could cut an email off between the server's 250 and its record.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    configure_logging()
    if role == "inbox" and limit_memory(settings.worker_memory_mb):
        log.info("inbox worker memory limited to %d MiB", settings.worker_memory_mb)
    app = open_app(settings, migrate=False)
    journal = open_journal(settings) if role == "outbox" else None

    def should_stop() -> bool:
        # Reparented: the judge was killed without a word; stop at the next safe point.
        return stop.is_set() or os.getppid() != parent

    log.info("%s worker started", role)
    ready.set()
    work: Callable[[], bool | None]
    may_claim = None
    if beaten is not None:
        # The parent process beats for this one: its claims go with that heartbeat.
        may_claim = functools.partial(_beat_recent, beaten)
    try:
        if role == "inbox":
            work = functools.partial(
                _process_pass, app, utcnow, should_stop, notify, _Heartbeat(busy),
                may_claim=may_claim,
            )  # fmt: skip
        else:
            work = functools.partial(
                _send_pass, app, app.transport, utcnow, should_stop, journal,
                may_claim=may_claim, looked=[-math.inf],
            )  # fmt: skip
        run_loop(
            role, work, wake, should_stop, settings.tick_seconds, gather=settings.gather_seconds
        )
    finally:
        close = getattr(app.transport, "close", None)
        if callable(close):
            close()
        if journal is not None:
            journal.close()
        log.info("%s worker stopped", role)


def run_loop(
    name: str,
    work: Callable[[], bool | None],
    wake: Wakeup,
    should_stop: Callable[[], bool],
    tick: float,
    on_error: Callable[[], None] | None = None,
    gather: float = 0.0,
) -> None:
    """Run ``work`` until ``should_stop()``, again each time ``wake`` is set or ``tick``
    seconds pass; when woken, ``gather`` seconds later, so that what else comes meanwhile
    is done in the same batch.  When ``work`` returns True (it stopped at its limit with
    more to do: a burst's results), it runs again at once.  An exception is logged and the
    loop goes on: the work is in the database and is tried again."""
    while not should_stop():
        more = False
        try:
            more = work() is True
        except Exception:
            if on_error is not None:
                on_error()
            log.exception("%s failed; retrying", name)
        if more:
            continue  # a wake-up set meanwhile stays set: the next wait returns at once
        if wake.wait(tick) and gather > 0:
            time.sleep(gather)
        wake.clear()


class _Heartbeat:
    """Tells a shared double when the current message began (and 0 once idle)."""

    def __init__(self, busy: Any) -> None:
        self.busy = busy

    def beat(self) -> None:
        if self.busy is not None:
            self.busy.value = time.monotonic()

    def idle(self) -> None:
        if self.busy is not None:
            self.busy.value = 0.0


def _beat_recent(beaten: Any) -> bool:
    """Whether the heartbeat whose time the shared double ``beaten`` holds is recent
    enough to claim work by (:func:`judge.services.presence.recent`)."""
    return presence.recent(float(beaten.value))


def _process_pass(
    app: App,
    clock: Callable[[], datetime],
    should_stop: Callable[[], bool],
    notify: Wakeup,
    heartbeat: _Heartbeat | None = None,
    claimant: str | None = None,
    may_claim: Callable[[], bool] | None = None,
) -> bool:
    """Process the stored mail this process can claim (as ``claimant``, default itself;
    none while ``may_claim()`` says no), waking the sender (``notify``) after each batch;
    whether it took as many as it may at once (then more may wait, for :func:`run_loop`
    to run again without waiting)."""
    try:
        done = process_pending(
            app.sessions,
            app.judge,
            clock,
            should_stop=should_stop,
            after_batch=notify.set,
            progress=heartbeat.beat if heartbeat is not None else None,
            claimant=claimant,
            may_claim=may_claim,
        )
    finally:
        if heartbeat is not None:
            heartbeat.idle()
    return done >= CLAIM_LIMIT


def _send_pass(
    app: App,
    transport: Transport,
    clock: Callable[[], datetime],
    should_stop: Callable[[], bool],
    journal: SentJournal | None,
    owner: str | None = None,
    may_claim: Callable[[], bool] | None = None,
    looked: list[float] | None = None,
) -> bool:
    """Send the queued mail that is due; whether more may be due at once (the run stopped
    at its limit, or sent a claim batch's worth or more), for :func:`run_loop` to run again
    without waiting.  ``owner``: the name of the claims (default: this process);
    ``may_claim``: as for :func:`_process_pass`; ``looked``: when this sender last looked
    for the mail of senders that are gone (a one-item list it keeps up to date; None:
    look at every run)."""
    # The look for mail held by senders that are gone, at most once a heartbeat: it is a
    # read of its own, and a burst's results run again at once, many times a second.
    mono = time.monotonic()
    free_orphans = mono - looked[0] >= presence.HEARTBEAT_SECONDS if looked else True
    # A run while this judge's heartbeat is late frees nothing (deliver_due returns at
    # once): it does not count as the look, which the next run that may claim makes.
    if free_orphans and looked and (may_claim is None or may_claim()):
        looked[0] = mono
    sent, more = deliver_due(
        app.sessions, app.judge, transport, clock, should_stop=should_stop, journal=journal,
        owner=owner, may_claim=may_claim, free_orphans=free_orphans,
    )  # fmt: skip
    if sent:
        log.info("sent %d message(s)", sent)
    # A run that sent a batch's worth found a backlog (a burst's results queued faster
    # than they go): the next run goes at once, not after a wake-up's gather pause.  A
    # smaller run waits for the pause, so that a trickle (one game's seven results at a
    # time) is sent in runs of several games, not one run, with its reads, per game.
    return more or sent >= CLAIM_BATCH


class _Both:
    """Two wake-ups set as one (picklable, for a worker process)."""

    def __init__(self, first: Wakeup, second: Wakeup) -> None:
        self.first = first
        self.second = second

    def set(self) -> None:
        self.first.set()
        self.second.set()

    def clear(self) -> None:
        self.first.clear()
        self.second.clear()

    def is_set(self) -> bool:
        return self.first.is_set() and self.second.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self.first.wait(timeout)


class Server:
    """``judge serve``: start() the parts, stop() them cleanly (SIGTERM calls stop)."""

    def __init__(
        self,
        app: App,
        *,
        clock: Callable[[], datetime] = utcnow,
        tick: float = 1.0,
        transport: Transport | None = None,
        use_scheduler: bool = True,
        processes: bool = False,
    ) -> None:
        """``processes``: process and send mail in child processes (see the module's
        text); they use the real clock and the settings' transport, so a ``clock`` or
        ``transport`` given here keeps them threads."""
        self.app = app
        self.clock = clock
        self.tick = tick
        self.stopping = threading.Event()
        self.processes = processes and transport is None and clock is utcnow
        self._context = multiprocessing.get_context("spawn")
        self.inbox_ready: Wakeup
        self.outbox_ready: Wakeup
        if self.processes:
            self.inbox_ready = self._context.Event()
            self.outbox_ready = self._context.Event()
        else:
            self.inbox_ready = threading.Event()
            self.outbox_ready = threading.Event()
        self._stop_workers = self._context.Event()
        self.workers: list[_Worker] = []
        self._journal: SentJournal | None = None
        #: When the in-process sender last looked for mail held by senders that are gone.
        self._orphans_looked = [-math.inf]
        self.threads: list[threading.Thread] = []
        self.transport = transport or app.transport
        self.inbound: object | None = None
        self.errors = 0
        #: The processes that look at a page of games side by side (worker processes on
        #: a database several processes share; made at start).
        self._look_pool: looks.LookPool | None = None
        #: Games whose part of a page killed its look process: looked at alone until looked at.
        self._alone: set[int] = set()
        # Set by the inbox (a worker process, when processes) after each batch: what it
        # wrote may have marked games for the deadline loop.
        self.deadline_ready: Wakeup = self._context.Event() if self.processes else threading.Event()
        self.scheduler: DeadlineScheduler | None = None
        self.use_scheduler = use_scheduler
        self._synced_at: datetime | None = None
        self._scheduled: datetime | None = None
        #: The earliest ``games.wake_at`` after the last pass.
        self._next_wake: datetime | None = None
        #: When (time.monotonic()) the game files and the safety net were last looked at.
        self._files_at: float | None = None
        self._safety_at: float | None = None
        #: When (time.monotonic()) the claims of gone judges were last looked for.
        self._claims_at: float | None = None
        #: This process's name in its claims and in the ``judges`` table.
        self.token = presence.process_token()
        self.presence: presence.Presence | None = None
        #: When the presence's last good heartbeat began: shared with the worker
        #: processes, which claim no work once it is late.
        self._beaten: Any = (
            self._context.Value("d", 0.0, lock=False) if self.processes else presence.BeatTime()
        )
        #: Whether judges on other machines may share the database (not SQLite): only
        #: then can this one's claims be taken for its silence, so only then does a late
        #: heartbeat stop it claiming work (on SQLite that would only hold it up).
        self.shared = shareable(app.sessions)
        #: How many games the last pass looked at (without failing).
        self._looked = 0
        self.game_file_seconds = GAME_FILE_SECONDS

    # -- storing ------------------------------------------------------------------

    def store(self, raw: bytes) -> None:
        """Commit one raw message to the inbound table (deduplicated by Message-ID)."""
        self.store_many([raw])

    def store_many(self, raws: Sequence[bytes]) -> None:
        """Commit raw messages in one durable transaction (all or none)."""
        max_bytes = self.app.judge.settings.max_message_bytes
        with self.app.store_sessions() as session, session.begin():
            stored = receive_many(session, raws, self.clock(), max_bytes=max_bytes)
        for one in stored:
            log.info(
                "stored %s from %s%s",
                one.message_id,
                one.sender or "?",
                "" if one.new else " (again)",
            )
        self.inbox_ready.set()

    # -- the loops ----------------------------------------------------------------

    def _loop(
        self, name: str, event: Wakeup, work: Callable[[], bool | None], gather: float = 0.0
    ) -> None:
        run_loop(name, work, event, self.stopping.is_set, self.tick, self._count_error, gather)

    def _count_error(self) -> None:
        self.errors += 1

    def _process_inbox(self) -> bool:
        notify = _Both(self.outbox_ready, self.deadline_ready)
        return _process_pass(
            self.app, self.clock, self.stopping.is_set, notify, claimant=self.token,
            may_claim=self._may_claim,
        )  # fmt: skip

    def _may_claim(self) -> bool:
        """Whether this judge may claim new work: its heartbeat is not late
        (:meth:`judge.services.presence.Presence.alive_enough`), or it has none (a test
        driving a pass by hand), or the database is SQLite (no other machine's judge)."""
        return not self.shared or self.presence is None or self.presence.alive_enough()

    def _send(self) -> bool:
        return _send_pass(
            self.app, self.transport, self.clock, self.stopping.is_set, self._journal, self.token,
            may_claim=self._may_claim, looked=self._orphans_looked,
        )  # fmt: skip

    def reload(self) -> None:
        """Look at the game files at the deadline loop's next pass, now (SIGHUP)."""
        self._files_at = None
        self.deadline_ready.set()

    def _deadline_loop(self) -> None:
        """The deadline loop: a pass, then sleep until the next moment a game must be
        looked at (``games.wake_at``), a wake-up (mail processed, SIGHUP, the scheduler's
        job), or ``tick`` seconds, the safety net (a pass costs two indexed statements
        when nothing is due)."""
        while not self.stopping.is_set():
            self.deadline_ready.clear()
            try:
                self._deadlines()
            except Exception:
                self._count_error()
                log.exception("deadlines failed; retrying")
            self.deadline_ready.wait(self._until_next())

    def _until_next(self) -> float:
        """Seconds until the next moment a game must be looked at, at most ``tick``."""
        if self._next_wake is None:
            return self.tick
        ahead = (self._next_wake - self.clock()).total_seconds()
        if ahead <= 0:
            # Due already: marked (or its moment came) during this pass, which did some
            # work, so go on at once; else only games that failed are left: the tick.
            return 0.0 if self._looked else self.tick
        return min(self.tick, ahead + WAKE_SLACK)

    def _deadlines(self) -> None:
        """One pass: the game files when due, then every game whose moment came."""
        now = self.clock()
        settings = self.app.judge.settings
        mono = time.monotonic()
        if self._files_at is None or mono - self._files_at >= self.game_file_seconds:
            self._files_at = mono
            self._game_files(now, settings.games_dir)
        if self._safety_at is None or mono - self._safety_at >= SAFETY_SECONDS:
            self._safety_at = mono
            with self.app.sessions() as session, session.begin():
                queries.mark_games(session, queries.games_out_of_step(session))
        self._looked = 0
        if not self._may_claim():
            log.warning("this judge's heartbeat is late: claiming no game for now")
            # The others may soon take this judge for gone: leave the games to them (and
            # theirs to them), and look again at the next tick.
            self._next_wake = None
            return
        self._release_gone_games()
        # Page by page (a burst may wake thousands), each game once a pass: one that fails
        # is tried again at the next tick, one marked again meanwhile at the next pass.
        # Each page is claimed (:func:`judge.db.queries.claim_games`): another judge on the
        # database takes the next pages meanwhile, never the same game.
        after: tuple[datetime, int] | None = None
        with self.app.sessions() as session:
            first = queries.next_wake_at(read_only(session))
        if first is None or first > now:
            # Nothing due: a read, not a claim (a claim writes: on SQLite it would take
            # the database's write lock at every pass).
            self._next_wake = first
            self._schedule(now)
            return
        while not self.stopping.is_set():
            with self.app.sessions() as session, session.begin():
                page = queries.claim_games(session, self.token, now, after, CLAIM_PAGE)
            if not page:
                break
            after = (page[-1][2], page[-1][0])
            if self._look_page(page, now):
                return  # stopping: the games not looked at are given back
        with self.app.sessions() as session:
            self._next_wake = queries.next_wake_at(read_only(session))
        self._schedule(now)

    def _look_page(self, page: Sequence[tuple[int, str, datetime]], now: datetime) -> bool:
        """Look at a claimed page of games (id, name, moment), :data:`LOOK_TOGETHER` at a
        time in one transaction (:func:`looks.look_page`): in the look processes when
        there are (:class:`looks.LookPool`), side by side, else one part after another
        here.  Whether stopping cut the page short (the games not looked at given back).

        The games of a part whose look process died (a look that kills it, the machine's
        OOM killer) are looked at each alone from then on, until looked at: the others
        need not wait, pass after pass, for the one that kills it."""
        alone = [row for row in page if row[0] in self._alone]
        rest = [row for row in page if row[0] not in self._alone]
        parts: list[Sequence[tuple[int, str, datetime]]] = [[row] for row in alone]
        parts += [rest[at : at + LOOK_TOGETHER] for at in range(0, len(rest), LOOK_TOGETHER)]
        pool = self._look_pool
        outcomes: dict[int, bool | None] = {}
        if pool is None or not pool.usable or len(page) == 1:
            for part in parts:
                outcomes.update(self._look_part(part, now))
        else:
            started: list[tuple[Sequence[tuple[int, str, datetime]], Future[Any] | None]] = []
            for part in parts:
                try:
                    started.append((part, pool.submit_page([row[0] for row in part], now)))
                except Exception:  # closed (stopping), or broken again at once
                    started.append((part, None))
            for part, future in started:
                if future is None:  # looked at here instead
                    outcomes.update(self._look_part(part, now))
                elif self.stopping.is_set() and future.cancel():
                    outcomes.update((game_id, None) for game_id, _name, _at in part)
                else:
                    try:
                        looked = future.result()
                    except Exception:
                        for game_id, name, _at in part:
                            outcomes[game_id] = self._look_failed(game_id, name)
                        if len(part) > 1:
                            self._alone.update(game_id for game_id, _name, _at in part)
                    else:
                        outcomes.update(self._looked_part(part, looked))
        self._alone.difference_update(game_id for game_id, done in outcomes.items() if done)
        self._looked += sum(1 for done in outcomes.values() if done)
        left = [row[0] for row in page if outcomes.get(row[0]) is None]
        if left:
            self._release_games(left)
        return bool(left)

    def _look_part(
        self, part: Sequence[tuple[int, str, datetime]], now: datetime
    ) -> dict[int, bool | None]:
        """Look at part of a page here (None for each game when stopping)."""
        if self.stopping.is_set():
            return {game_id: None for game_id, _name, _at in part}
        ids = [game_id for game_id, _name, _at in part]
        return self._looked_part(
            part, looks.look_page(self.app, self.token, ids, now, self._process)
        )

    def _looked_part(
        self,
        part: Sequence[tuple[int, str, datetime]],
        outcomes: Sequence[looks.Looked | looks.Failed],
    ) -> dict[int, bool | None]:
        """Report what each look of a part did, by game: True when done, False when it
        failed (the game given back, to be tried again at the next tick)."""
        done: dict[int, bool | None] = {}
        for (game_id, name, _at), outcome in zip(part, outcomes, strict=True):
            if isinstance(outcome, looks.Failed):
                done[game_id] = self._look_failed(game_id, name, outcome.trace)
            else:
                self._report(outcome)
                done[game_id] = True
        return done

    def _look_failed(self, game_id: int, name: str, trace: str | None = None) -> bool:
        """A look that failed: counted, logged (``trace``: the error's traceback, when it
        was not raised here), the game given back (tried again at the next tick); False."""
        self._count_error()
        if trace is None:
            log.exception("%s: looking at its deadline failed; retrying", name)
        else:
            log.error("%s: looking at its deadline failed; retrying\n%s", name, trace)
        self._release_games([game_id])
        return False

    def _release_games(self, game_ids: Sequence[int]) -> None:
        """Give back games claimed and not looked at (stopping, or the look failed)."""
        with self.app.sessions() as session, session.begin():
            queries.release_games(session, self.token, game_ids)

    def _release_gone_games(self) -> None:
        """Free the games held by judges that are gone (at most every heartbeat)."""
        mono = time.monotonic()
        if self._claims_at is not None and mono - self._claims_at < presence.HEARTBEAT_SECONDS:
            return
        self._claims_at = mono
        presence.free_claims_of_gone(
            self.app.sessions, self.token, queries.game_claimants,
            queries.release_game_claims_of, "game(s)",
        )  # fmt: skip

    def _game_files(self, now: datetime, games_dir: Path | None) -> None:
        """Apply edited game files and load new ones (at SIGHUP and every
        ``game_file_seconds``, not at every pass)."""
        with self.app.sessions() as session, session.begin():
            # One judge at a time on a shared database: two loading one new file would
            # both make its game.
            queries.serialize(session, GAME_FILES_LOCK)
            lines = reload_configs(session, self.app.judge, now)
            if games_dir is not None:
                lines += load_new_games(session, self.app.judge, games_dir, now)
        for line in lines:
            log.info("%s", line)
        if lines:
            # A game loaded, an edit applied or refused: each may have queued mail (game
            # start, new deadline, a note to the master), and waking the sender is cheap.
            self.outbox_ready.set()

    def _process(self, session: Session, game: Game, now: datetime) -> str | None:
        """Process the game's due phase in the look's transaction
        (:func:`looks.process_phase`); what the log says of it."""
        return looks.process_phase(self.app, session, game, now)

    def _report(self, looked: looks.Looked) -> None:
        """Log what a look said of the phase, and wake the sender if it queued mail."""
        if looked.said is not None:
            log.info("%s", looked.said)
        if looked.sent:
            self.outbox_ready.set()

    def _schedule(self, now: datetime) -> None:
        """Keep the scheduler's one job at the next moment (only when it moved)."""
        if self.scheduler is None:
            return
        moment = self._next_wake if self._next_wake is not None and self._next_wake > now else None
        if moment == self._scheduled and self._synced_at is not None:
            return
        self.scheduler.sync({NEXT_JOB: moment} if moment is not None else {})
        self._scheduled = moment
        self._synced_at = now

    # -- start and stop -----------------------------------------------------------

    def start(self) -> None:
        """Start processing and sending, then receiving (so that "serving" means ready).

        If a part cannot start (the SMTP port is taken, say), what had started is stopped
        again before the error is raised: a worker process left running would keep this
        process from exiting.
        """
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _roles(self) -> dict[str, str]:
        """The processes of this judge for the ``judges`` table: itself and its live
        worker processes (token -> role)."""
        roles = {self.token: "serve"}
        for worker in self.workers:
            if worker.token and worker.process is not None and worker.process.is_alive():
                roles[worker.token] = worker.role
        return roles

    def _start(self) -> None:
        settings = self.app.judge.settings
        gather = settings.gather_seconds
        # Known to the other judges on the database before anything is claimed.
        self.presence = presence.Presence(self.app.sessions, self._roles, beaten=self._beaten)
        self.presence.start()
        if self.processes and self.shared and LOOK_PROCESSES > 1:
            self._look_pool = looks.LookPool(settings, self.token, LOOK_PROCESSES)
            self._look_pool.start(WORKER_START_SECONDS)
        if self.processes:
            self.workers = [_Worker("inbox"), _Worker("outbox")]
            for worker in self.workers:
                self._start_worker(worker)
            for worker in self.workers:
                if not worker.ready.wait(WORKER_START_SECONDS):
                    log.error(
                        "the %s worker did not start within %d s; carrying on",
                        worker.role,
                        WORKER_START_SECONDS,
                    )
            self._thread("watchdog", self._watchdog)
        else:
            self._thread(
                "inbox",
                lambda: self._loop("inbox", self.inbox_ready, self._process_inbox, gather),
            )
            self._journal = open_journal(settings)
            self._thread(
                "outbox", lambda: self._loop("outbox", self.outbox_ready, self._send, gather)
            )
        if settings.imap is not None:
            from judge.mail.imap import ImapInbox

            inbox = ImapInbox(
                settings.imap,
                self.store,
                store_many=self.store_many,
                stop=self.stopping,
                gather=settings.gather_seconds,
            )
            self.inbound = inbox
            self._thread("imap", inbox.run)
        else:
            from judge.mail.smtp_in import InboundHandler, InboundServer

            handler = InboundHandler(self.store, {settings.address})
            server = InboundServer(
                handler, settings.inbound.host, settings.inbound.port, settings.max_message_bytes
            )
            server.start()
            self.inbound = server
        if self.use_scheduler:
            self.scheduler = DeadlineScheduler(settings.url, self.deadline_ready.set)
            self.scheduler.start()
        self._thread("deadlines", self._deadline_loop)
        log.info("judge %s serving as %s", settings.name, settings.address)

    def _start_worker(self, worker: _Worker) -> None:
        wake: Wakeup = self.inbox_ready if worker.role == "inbox" else self.outbox_ready
        # The inbox's batches wake the sender and the deadline loop (which looks at the
        # games the batch marked); the sender's, the inbox.
        notify: Wakeup = (
            _Both(self.outbox_ready, self.deadline_ready)
            if worker.role == "inbox"
            else self.inbox_ready
        )
        worker.ready = self._context.Event()
        worker.busy = self._context.Value("d", 0.0, lock=False)
        worker.process = self._context.Process(
            target=_worker_main,
            args=(
                worker.role,
                self.app.judge.settings,
                wake,
                notify,
                self._stop_workers,
                os.getpid(),
                worker.ready,
                worker.busy,
                self._beaten if self.shared else None,
            ),
            name=f"judge-{worker.role}",
            daemon=True,
        )
        worker.process.start()
        worker.token = presence.process_token(worker.process.pid)
        if self.presence is not None:
            # Registered before it can claim anything (it takes a second to start).
            self.presence.beat()

    def _watchdog(self) -> None:
        """Look after the worker processes until the judge stops (:meth:`_watch_workers`)."""
        while not self.stopping.wait(WATCHDOG_SECONDS):
            try:
                self._watch_workers()
            except Exception:
                log.exception("the watchdog failed; carrying on")

    def _watch_workers(self) -> None:
        """Stop a worker process stalled on one message, and start again one that died
        (its work waits in the database)."""
        limit = self.app.judge.settings.max_message_seconds
        for worker in self.workers:
            if self.stopping.is_set() or worker.process is None:
                continue
            began = worker.busy.value if worker.busy is not None else 0.0
            if worker.process.is_alive() and began and time.monotonic() - began > limit:
                log.error(
                    "the %s worker has worked on one message for more than %g s; "
                    "stopping it (the message will be tried alone, then parked)",
                    worker.role,
                    limit,
                )
                worker.process.kill()
                worker.process.join(5)
            if worker.process.is_alive():
                continue
            log.error(
                "the %s worker process ended (exit code %s); starting it again",
                worker.role,
                worker.process.exitcode,
            )
            self.errors += 1
            self._start_worker(worker)

    def _thread(self, name: str, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=target, name=f"judge-{name}", daemon=True)
        thread.start()
        self.threads.append(thread)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop every part; the transaction in progress in each finishes first."""
        log.info("stopping")
        self.stopping.set()
        self.inbox_ready.set()
        self.outbox_ready.set()
        self.deadline_ready.set()
        if self.scheduler is not None:
            self.scheduler.stop()
        from judge.mail.smtp_in import InboundServer

        if isinstance(self.inbound, InboundServer):
            self.inbound.stop()
        self._stop_workers.set()
        for thread in self.threads:
            thread.join(timeout)
        if self._look_pool is not None:
            self._look_pool.close(timeout)
        for worker in self.workers:
            if worker.process is None:
                continue
            worker.process.join(timeout)
            if worker.process.is_alive():
                log.error("the %s worker did not stop; terminating it", worker.role)
                worker.process.terminate()
                worker.process.join(timeout)
        close = getattr(self.transport, "close", None)
        if callable(close):
            close()
        if self._journal is not None:
            self._journal.close()
        if self.presence is not None:
            # Gone from the judges table: what this judge still held is free at once.
            self.presence.stop()
        log.info("stopped")

    def wait(self) -> None:
        """Block until stop() is called (the command line's main thread)."""
        while not self.stopping.wait(0.5):
            pass
