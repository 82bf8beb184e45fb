"""The running judge: mail in, processing, deadlines and mail out, in one process.

Each part is a thread with its own loop around a service call; they talk only through
the database and a few wake-up events, so a crash anywhere loses nothing: whatever was
stored but not processed, or queued but not sent, is picked up by the next loop (also
after a restart).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

from judge.services.app import App
from judge.services.games import due_games, load_new_games, process_game, reload_configs
from judge.services.inbound import process_pending, receive
from judge.services.notices import send_late_notices, send_reminders
from judge.services.outbox import Transport, deliver_pending
from judge.services.scheduler import DeadlineScheduler, wanted_jobs

log = logging.getLogger("judge.serve")


def utcnow() -> datetime:
    """The real clock (tests pass their own)."""
    return datetime.now(UTC)


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
    ) -> None:
        self.app = app
        self.clock = clock
        self.tick = tick
        self.stopping = threading.Event()
        self.inbox_ready = threading.Event()
        self.outbox_ready = threading.Event()
        self.threads: list[threading.Thread] = []
        self.transport = transport or app.transport
        self.inbound: object | None = None
        self.errors = 0
        self.deadline_ready = threading.Event()
        self.scheduler: DeadlineScheduler | None = None
        self.use_scheduler = use_scheduler
        self._synced_at: datetime | None = None

    # -- storing ------------------------------------------------------------------

    def store(self, raw: bytes) -> None:
        """Commit one raw message to the inbound table (deduplicated by Message-ID)."""
        with self.app.store_sessions() as session, session.begin():
            row, new = receive(session, raw, self.clock())
            log.info(
                "stored %s from %s%s", row.message_id, row.sender or "?", "" if new else " (again)"
            )
        self.inbox_ready.set()

    def store_many(self, raws: Sequence[bytes]) -> None:
        """Commit several raw messages in one transaction (all or none)."""
        with self.app.store_sessions() as session, session.begin():
            now = self.clock()
            for raw in raws:
                row, new = receive(session, raw, now)
                log.info(
                    "stored %s from %s%s",
                    row.message_id,
                    row.sender or "?",
                    "" if new else " (again)",
                )
        self.inbox_ready.set()

    # -- the loops ----------------------------------------------------------------

    def _loop(self, name: str, event: threading.Event | None, work: Callable[[], None]) -> None:
        while not self.stopping.is_set():
            try:
                work()
            except Exception:
                # Log and carry on: the work is in the database and will be retried.
                self.errors += 1
                log.exception("%s failed; retrying", name)
            if event is not None:
                event.wait(self.tick)
                event.clear()
            else:
                self.stopping.wait(self.tick)

    def _process_inbox(self) -> None:
        if process_pending(self.app.sessions, self.app.judge, self.clock):
            self.outbox_ready.set()

    def _send(self) -> None:
        sent = deliver_pending(self.app.sessions, self.app.judge, self.transport, self.clock)
        if sent:
            log.info("sent %d message(s)", sent)

    def _deadlines(self) -> None:
        now = self.clock()
        # Game files edited by the game master are noticed here (a file watch by polling;
        # SIGHUP only wakes this loop sooner).
        games_dir = self.app.judge.settings.games_dir
        with self.app.sessions() as session, session.begin():
            lines = reload_configs(session, self.app.judge, now)
            if games_dir is not None:
                lines += load_new_games(session, self.app.judge, games_dir, now)
        for line in lines:
            log.info("%s", line)
            if "edit refused" in line or "not loaded" in line:
                self.outbox_ready.set()
        with self.app.sessions() as session, session.begin():
            sent = send_reminders(session, self.app.judge, now)
            sent += send_late_notices(session, self.app.judge, now)
        if sent:
            self.outbox_ready.set()
        with self.app.sessions() as session:
            due = due_games(session, now)
        changed = False
        for name, phase in due:
            with self.app.sessions() as session, session.begin():
                outcome = process_game(session, self.app.judge, name, now, phase=phase)
            if outcome is not None:
                log.info("processed %s %s", name, phase)
                self.outbox_ready.set()
                changed = True
        if self.scheduler is not None and (
            changed or self._synced_at is None or now - self._synced_at > timedelta(minutes=5)
        ):
            with self.app.sessions() as session:
                wanted = wanted_jobs(session, now)
            self.scheduler.sync(wanted)
            self._synced_at = now

    # -- start and stop -----------------------------------------------------------

    def start(self) -> None:
        """Start receiving, processing and sending."""
        settings = self.app.judge.settings
        if settings.imap is not None:
            from judge.mail.imap import ImapInbox

            inbox = ImapInbox(
                settings.imap,
                self.store,
                store_many=self.store_many,
                stop=self.stopping,
                on_stored=self.inbox_ready.set,
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
        self._thread("inbox", lambda: self._loop("inbox", self.inbox_ready, self._process_inbox))
        self._thread("outbox", lambda: self._loop("outbox", self.outbox_ready, self._send))
        if self.use_scheduler:
            self.scheduler = DeadlineScheduler(settings.url, self.deadline_ready.set)
            self.scheduler.start()
        self._thread(
            "deadlines", lambda: self._loop("deadlines", self.deadline_ready, self._deadlines)
        )
        log.info("judge %s serving as %s", settings.name, settings.address)

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
        for thread in self.threads:
            thread.join(timeout)
        close = getattr(self.transport, "close", None)
        if callable(close):
            close()
        log.info("stopped")

    def wait(self) -> None:
        """Block until stop() is called (the command line's main thread)."""
        while not self.stopping.wait(0.5):
            pass
