"""The deadline loop's looks at games whose moment came, and the processes that look at
parts of a page of such games side by side.

A look is one transaction with the game's row locked: its reminders and late notices,
its phase when due, and its next moment (:func:`judge.services.wakes.settle`).  The
deadline loop claims a page of games at a time (:func:`judge.db.queries.claim_games`)
and looks at the games of each part of it in one transaction (:func:`look_page`): what
the looks ask of their games is read once for the part, their changes flushed and their
mail written once, and the part committed once; a part that fails is rolled back and
each of its games looked at alone (:func:`look`), so that one game's failure holds none
of the others back.  On a database several processes share, with ``judge serve``'s
worker processes, the parts are looked at by :class:`LookPool`'s processes, two at a
time: one process spends most of a look on its own CPU, which one interpreter lock caps
at one CPU, and a burst of thousands of games is that work and little else.  A look in a
pool process acts for the judge that claimed the games (its token), which gives the
claims back with the look's commit; the pool process holds nothing of its own, so
nothing is left claimed when it dies (the transaction it was in rolls back, and the
deadline loop gives the games back, to be looked at again).  A pool process ends by
itself when its judge is killed (:func:`watch_parent`); closing the pool waits a bounded
time for the looks in progress, then kills their processes; a pool that keeps breaking
is given up, and the judge looks in its own process.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import datetime
from multiprocessing.context import SpawnContext
from typing import Any, TypeVar

from sqlalchemy.orm import Session, configure_mappers

from judge.config import JudgeSettings
from judge.db import queries
from judge.db.models import Game, GameStatus
from judge.runtime.bootstrap import App, open_app
from judge.services.endgame import not_processed_why
from judge.services.games import phase_due, process_game
from judge.services.notices import send_late_notices, send_reminders
from judge.services.wakes import settle, settle_flushed

__all__ = ["Failed", "LookPool", "Looked", "look", "look_page", "process_phase"]

log = logging.getLogger("judge.serve")

T = TypeVar("T")


@dataclass(frozen=True)
class Looked:
    """What a look did: the log's line about the phase (None: nothing to say), and
    whether it queued mail (the sender is woken)."""

    said: str | None
    sent: bool


def look(
    app: App,
    token: str,
    game_id: int,
    now: datetime,
    process: Callable[[Session, Game, datetime], str | None] | None = None,
) -> Looked:
    """Look at one game whose moment came, for the judge ``token`` (which claimed it):
    its notices, its phase if due, and its next moment, in one transaction (a burst's
    cost is mostly round trips and commits: one look, one commit), the game's row
    locked throughout.  ``process``: what processes a due phase (default
    :func:`process_phase`)."""
    looked = Looked(None, False)
    with app.sessions() as session, session.begin():
        game = queries.locked_game(session, game_id)
        if game is not None:
            looked = _look_at(app, session, game, now, process)
            settle(session, game, now)
            _give_back(game, token)
    return looked


@dataclass(frozen=True)
class Failed:
    """A look that failed (rolled back): the error's traceback, for the judge's log."""

    trace: str


def look_page(
    app: App,
    token: str,
    game_ids: Sequence[int],
    now: datetime,
    process: Callable[[Session, Game, datetime], str | None] | None = None,
) -> list[Looked | Failed]:
    """Look at a page of games whose moment came, for the judge ``token`` (which claimed
    them), as :func:`look` at each, but in one transaction: what the looks ask of their
    games is read once for the page (:func:`judge.db.queries.read_ahead`), their mail
    written in one statement, their changes in one flush and the page committed once (in
    a burst, each game's own statements and commit were most of a look's cost).  Should
    that fail, it is rolled back and each game is looked at alone, so that a game whose
    look fails holds none of the others back.  What each look did, in the order of
    ``game_ids``."""
    if len(game_ids) > 1:
        try:
            return _look_together(app, token, game_ids, now, process)
        except Exception as err:
            log.warning(
                "looking at %d games together failed (%s); looking at each alone",
                len(game_ids),
                type(err).__name__,
            )
    return [_look_alone(app, token, game_id, now, process) for game_id in game_ids]


def _look_together(
    app: App,
    token: str,
    game_ids: Sequence[int],
    now: datetime,
    process: Callable[[Session, Game, datetime], str | None] | None,
) -> list[Looked | Failed]:
    """The looks of :func:`look_page`: in one transaction, at the games no other
    transaction holds; then at each of the others alone (waiting for it), so that the
    page's transaction never waits for a game while it holds the rest."""
    looked: dict[int, Looked | Failed] = {}
    with app.sessions() as session, session.begin():
        games = queries.free_games(session, game_ids)
        queries.read_ahead(session, games)
        queries.gather_outbox(session)
        for game in games:
            looked[game.id] = _look_at(app, session, game, now, process)
        # Every look's changes written (and their games marked by them) at once; then
        # each game's next moment, as settle() does for one.
        session.flush()
        for game in games:
            settle_flushed(session, game, now)
            _give_back(game, token)
    for game_id in game_ids:
        if game_id not in looked:
            looked[game_id] = _look_alone(app, token, game_id, now, process)
    return [looked[game_id] for game_id in game_ids]


def _look_alone(
    app: App,
    token: str,
    game_id: int,
    now: datetime,
    process: Callable[[Session, Game, datetime], str | None] | None,
) -> Looked | Failed:
    """:func:`look`, a failure given as :class:`Failed`."""
    try:
        return look(app, token, game_id, now, process)
    except Exception:
        return Failed(traceback.format_exc())


def _look_at(
    app: App,
    session: Session,
    game: Game,
    now: datetime,
    process: Callable[[Session, Game, datetime], str | None] | None,
) -> Looked:
    """The look at ``game`` (its row locked), its next moment not yet settled."""
    said: str | None = None
    sent = bool(
        send_reminders(session, app.judge, now, [game])
        + send_late_notices(session, app.judge, now, [game])
    )
    if (
        game.status == GameStatus.ACTIVE
        and game.phase is not None
        and phase_due(session, game, now)
    ):
        said = (
            process_phase(app, session, game, now)
            if process is None
            else process(session, game, now)
        )
        sent = True
    return Looked(said, sent)


def _give_back(game: Game, token: str) -> None:
    """Give the game's claim back with the look's commit (when ``token`` holds it)."""
    if game.claimed_by == token:
        game.claimed_by = None


def process_phase(app: App, session: Session, game: Game, now: datetime) -> str | None:
    """Process the game's phase that is due, in the look's transaction; what the log
    says of it (None: nothing to say)."""
    name, phase, deadline = game.name, game.phase, game.deadline
    assert phase is not None  # an active game's (the caller's test)
    outcome = process_game(session, app.judge, name, now, phase=phase, locked=game)
    if outcome is not None:
        when = (
            "at the deadline" if deadline is None or now >= deadline else "early (every order in)"
        )
        return f"{name} {phase} processed {when}; {_after_phase(game)}"
    why = not_processed_why(session, game)
    # Not adjudicated: the players' votes may have ended the game (its final mail is
    # queued), or it waits for its master (house rule 8.4).
    return f"{name} {phase} not processed: {why}" if why is not None else None


def _after_phase(game: Game | None) -> str:
    """Where a game stands once a phase is processed, for the log."""
    if game is None or game.status == GameStatus.FINISHED:
        return "the game is over"
    if game.status == GameStatus.PAUSED:
        return f"now {game.phase}, paused"
    return f"now {game.phase}"


# -- the pool ---------------------------------------------------------------------------

#: How often a pool process asks whether its judge is still there (seconds).
PARENT_CHECK_SECONDS = 1.0
#: How long closing the pool waits for a look in progress before killing its process.
CLOSE_SECONDS = 10.0
#: Pools made afresh in a row, no look succeeding between, before the judge gives the
#: processes up and looks in its own process (a process that cannot start, or dies at
#: every look, would otherwise be respawned at every page, a second or more each).
MAX_RENEWALS = 3

#: The judge of this pool process (set by :func:`_start_process`).
_APP: App | None = None


def _start_process(settings: JudgeSettings, parent: int) -> None:
    """A pool process's start: the judge's log, a watch on its judge (the process
    ``parent``), and its own connections to the database (none is shared across
    processes).  The judge decides when to stop (a signal to the process group must not
    cut a look short: the pool is shut down after its looks end)."""
    global _APP
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # Imported here: serve imports this module.
    from judge.runtime.serve import configure_logging

    configure_logging()
    watch_parent(parent, PARENT_CHECK_SECONDS)
    _APP = open_app(settings, migrate=False)
    # The ORM's mappers are set up at their first use, a tenth of a second: here, not in
    # the first look of a burst.
    configure_mappers()


def watch_parent(parent: int, every: float) -> threading.Thread:
    """End this process as soon as its parent, the judge ``parent``, is gone (killed
    without a word: SIGKILL, the machine's OOM killer).  A pool process ignores SIGTERM and
    waits on its pipe, which a dead parent does not close: without this it would live on,
    holding its connections.  A look in progress is cut short: its transaction rolls back
    with the connection, and the game stays claimed by the dead judge, whose claims the
    other judges free once its heartbeat stops."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        log.error("look process %d: its judge (process %d) is gone; ending", os.getpid(), parent)
        os._exit(1)

    thread = threading.Thread(target=watch, name="judge-look-parent", daemon=True)
    thread.start()
    return thread


def _ready() -> bool:
    """Nothing: that a pool process started (its judge opened)."""
    return _APP is not None


def _look_in_process(token: str, game_id: int, now: datetime) -> Looked:
    assert _APP is not None, "a look pool process without its judge"
    return look(_APP, token, game_id, now)


def _look_page_in_process(
    token: str, game_ids: Sequence[int], now: datetime
) -> list[Looked | Failed]:
    assert _APP is not None, "a look pool process without its judge"
    return look_page(_APP, token, game_ids, now)


class LookPool:
    """``size`` processes that look at games for the judge ``token``, side by side.

    Broken (a process killed), the pool is made afresh at the next look; made afresh
    :data:`MAX_RENEWALS` times in a row with no look succeeding between, it is given up
    (:attr:`usable` False) and the judge looks in its own process."""

    def __init__(self, settings: JudgeSettings, token: str, size: int) -> None:
        self.settings = settings
        self.token = token
        self.size = size
        self._context = SpawnContext()
        self._executor: ProcessPoolExecutor | None = None
        self._closed = False
        self._renewals = 0  # made afresh in a row, no look succeeding between
        self._lock = threading.Lock()

    @property
    def usable(self) -> bool:
        """Whether the judge should look in the pool (not closed, not given up)."""
        return not self._closed and self._renewals < MAX_RENEWALS

    def _pool(self) -> ProcessPoolExecutor:
        if self._closed:
            raise RuntimeError("the look processes are closed")
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.size,
                mp_context=self._context,
                initializer=_start_process,
                initargs=(self.settings, os.getpid()),
            )
        return self._executor

    def start(self, timeout: float) -> None:
        """Start the processes now (each imports the judge and connects, about a second),
        not at the first deadline; waits up to ``timeout`` seconds for them."""
        pool = self._pool()
        started = [pool.submit(_ready) for _ in range(self.size)]
        try:
            for future in started:
                future.result(timeout)
        except Exception as err:  # a slow start is not fatal: the looks wait for them
            log.error("the look processes did not start within %d s: %s", timeout, err)

    def submit(self, game_id: int, now: datetime) -> Future[Looked]:
        """Start a look at ``game_id`` in a pool process (a pool found broken, a process
        of it killed, is made afresh first).  Raises RuntimeError once closed, and
        BrokenProcessPool when the pool is broken again at once, or given up."""
        return self._submit(_look_in_process, self.token, game_id, now)

    def submit_page(self, game_ids: Sequence[int], now: datetime) -> Future[list[Looked | Failed]]:
        """Start the looks at ``game_ids`` in a pool process, in one transaction
        (:func:`look_page`); raises as :meth:`submit`."""
        return self._submit(_look_page_in_process, self.token, list(game_ids), now)

    def _submit(self, work: Callable[..., T], *args: object) -> Future[T]:
        if self._renewals >= MAX_RENEWALS:
            raise BrokenProcessPool("the look processes were given up")
        try:
            future = self._pool().submit(work, *args)
        except BrokenProcessPool:
            self._renew()
            future = self._pool().submit(work, *args)
        future.add_done_callback(self._done)
        return future

    def _done(self, future: Future[Any]) -> None:
        if not future.cancelled() and future.exception() is None:
            self._renewals = 0  # the pool works

    def _renew(self) -> None:
        with self._lock:
            self._renewals += 1
            executor, self._executor = self._executor, None
        if self._renewals >= MAX_RENEWALS:
            log.error(
                "the look processes broke %d times in a row; looking in the judge's own "
                "process from now on",
                self._renewals,
            )
        else:
            log.warning("a look process was gone; starting the look processes again")
        if executor is not None:
            _end(executor, 1.0)
        if not self.usable:
            raise BrokenProcessPool("the look processes were given up")

    def close(self, timeout: float = CLOSE_SECONDS) -> None:
        """Stop the processes: their looks in progress end first, for up to ``timeout``
        seconds, after which they are killed (a look cut short rolls back).  No look is
        started after this."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            _end(executor, timeout)


def _end(executor: ProcessPoolExecutor, timeout: float) -> None:
    """Shut ``executor`` down, its processes ended within ``timeout`` seconds or killed
    (``shutdown(wait=True)`` would wait for ever on a look that hangs)."""
    # The executor's own handle on its processes: the only one there is.
    processes = list(executor._processes.values())
    executor.shutdown(wait=False, cancel_futures=True)
    until = time.monotonic() + timeout
    for process in processes:
        process.join(max(0.0, until - time.monotonic()))
    for process in processes:
        if process.is_alive():
            log.error("look process %s did not end within %.0f s; killing it", process.pid, timeout)
            process.kill()
            process.join(1.0)
