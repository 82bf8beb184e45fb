"""The outbox: services queue mail here in their own transaction; a sender delivers it.

Delivery is at least once, not exactly once. No mail protocol can make it exactly once:
if the process dies after the server said 250 and before the "sent" state is committed,
the next run sends the message again. :func:`deliver_pending` keeps that window to one
short commit right after each successful send, and every copy carries the same
Message-ID, so mail clients and receiving servers that deduplicate on it show one.

Failures are sorted by the transport: :class:`TransientError` (SMTP 4xx, the server
unreachable, a timeout; also any exception a transport did not classify) is retried with a
growing delay until ``max_attempts``; :class:`PermanentError` (SMTP 5xx) is not retried.
A message given up is marked ``failed`` and the game's master gets one notice saying which
mail to whom failed and why; a notice that fails is only logged, so failures never breed.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import socket
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from judge.db import queries
from judge.db.models import Game, OutboundMessage, OutboundState
from judge.db.session import read_only
from judge.render import RenderedMail
from judge.services.context import Judge

__all__ = [
    "CLAIM_BATCH",
    "CLAIM_TIME",
    "DEFAULT_MAX_ATTEMPTS",
    "MAX_RETRY_DELAY",
    "PURGED_BODY",
    "RETRY_DELAY",
    "PermanentError",
    "SentJournal",
    "ServerUnavailable",
    "TransientError",
    "Transport",
    "backoff",
    "deliver_pending",
    "new_message_id",
    "purge_secrets",
    "queue_mail",
    "sender_gone",
    "sender_token",
]

log = logging.getLogger(__name__)

#: Tries per message when the settings have no ``[smtp]`` table (as ``SmtpSettings``).
DEFAULT_MAX_ATTEMPTS = 8
#: The wait after the first failed attempt; it doubles after each further one...
RETRY_DELAY = timedelta(seconds=30)
#: ...up to this.
MAX_RETRY_DELAY = timedelta(hours=1)
#: How long a sender holds a message it has taken: longer than any send can last (an SMTP
#: conversation is a handful of commands, each with the transport's timeout), so that a
#: second sender running at the same time never takes it too. A claim names its sender
#: process (:func:`sender_token`): when that process is gone, the next delivery run on the
#: same host gives its messages back at once; a sender on another host that died is waited
#: for this long.
CLAIM_TIME = timedelta(minutes=10)
#: Messages claimed in one transaction by :func:`deliver_pending`: one commit for the lot.
CLAIM_BATCH = 20
#: What the body of a mail that carried a password (``secret``) becomes once it is sent
#: or given up (:func:`purge_secrets`).
PURGED_BODY = (
    "(This mail held a password. Its text was removed from the judge's records once it "
    "was sent; the subject, the address and the times are kept.)\n"
)


class TransientError(Exception):
    """A delivery failure that may go away: the message is tried again later."""


class ServerUnavailable(TransientError):
    """The server cannot be reached or is closing down (connection refused, timeout, 421).

    Every other message of the run would fail the same way, so :func:`deliver_pending`
    stops the run there: the rest keep their place and their attempts.
    """


class PermanentError(Exception):
    """A delivery failure that retrying will not mend (an SMTP 5xx): the message is given up."""


def new_message_id(judge: Judge, now: datetime) -> str:
    """A unique Message-ID in the judge's domain."""
    domain = judge.settings.address.rpartition("@")[2] or "localhost"
    return f"<{now:%Y%m%d%H%M%S}.{secrets.token_hex(8)}@{domain}>"


def queue_mail(
    session: Session,
    judge: Judge,
    *,
    to: str,
    mail: RenderedMail,
    kind: str,
    now: datetime,
    game_id: int | None = None,
    inbound_id: int | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    into: list[dict[str, object]] | None = None,
    secret: bool = False,
) -> str:
    """Add one email to the outbox (the caller's transaction commits it); return its
    Message-ID.

    With ``into``, the row is added to that list instead, for the caller to write with
    :func:`insert_outbox` (one statement for many) before anything reads the outbox.
    ``secret``: the body holds a password, purged once the mail is sent (or given up).
    """
    headers = {
        "Auto-Submitted": "auto-replied" if in_reply_to else "auto-generated",
        "X-Auto-Response-Suppress": "All",
        "Precedence": "bulk",
        "X-Loop": judge.settings.address,
    }
    if in_reply_to:
        headers["In-Reply-To"] = in_reply_to
        headers["References"] = " ".join([*references, in_reply_to])
    message_id = new_message_id(judge, now)
    row: dict[str, object] = {
        "message_id": message_id,
        "to_addr": to,
        "subject": mail.subject,
        "body": mail.body,
        "headers": headers,
        "kind": kind,
        "game_id": game_id,
        "inbound_id": inbound_id,
        "state": "queued",
        "attempts": 0,
        "created_at": now,
        "secret": secret,
    }
    if into is not None:
        into.append(row)
    else:
        insert_outbox(session, [row])
    return message_id


def insert_outbox(session: Session, rows: Sequence[dict[str, object]]) -> None:
    """Write outbox rows made by :func:`queue_mail` (``into``) in one statement."""
    # Nor do the rows need the session's pending changes flushed first (the ids they
    # refer to exist already): those wait for the commit, which writes them together.
    with session.no_autoflush:
        queries.insert_outbox(session, rows)


class Transport(Protocol):
    """Delivers one outbound message; raises on failure.

    Raise :class:`TransientError` (or :class:`ServerUnavailable`) for what may work later and
    :class:`PermanentError` for what will not; any other exception counts as transient.
    """

    def send(self, message: OutboundMessage, judge: Judge, now: datetime) -> None:
        """Deliver ``message``; must be idempotent for the same Message-ID."""


def backoff(
    attempts: int, base: timedelta = RETRY_DELAY, cap: timedelta = MAX_RETRY_DELAY
) -> timedelta:
    """The wait after ``attempts`` failed attempts: ``base * 2 ** (attempts - 1)``, at most
    ``cap``.

    >>> [backoff(n).total_seconds() for n in (1, 2, 3, 7, 8, 100)]
    [30.0, 60.0, 120.0, 1920.0, 3600.0, 3600.0]
    """
    # Floats: a large attempts count must give the cap, not overflow timedelta.
    seconds = base.total_seconds() * 2.0 ** min(max(attempts - 1, 0), 64)
    return timedelta(seconds=min(seconds, cap.total_seconds()))


def deliver_pending(
    sessions: sessionmaker[Session],
    judge: Judge,
    transport: Transport,
    now: Callable[[], datetime],
    limit: int = 500,
    *,
    max_attempts: int | None = None,
    retry_delay: timedelta | None = None,
    max_retry_delay: timedelta = MAX_RETRY_DELAY,
    claim_time: timedelta | None = None,
    should_stop: Callable[[], bool] | None = None,
    journal: SentJournal | None = None,
) -> int:
    """Deliver the queued mail that is due, oldest first; return how many went.

    Due: state ``queued`` and ``next_attempt_at`` unset or not after ``now()``. No
    database lock is held while the mail server is talking (SQLite locks the whole
    database for a writer), and each message's outcome has its own short transaction, so
    one message's failure undoes nothing else:

    1. claim up to :data:`CLAIM_BATCH` messages in one transaction: a compare-and-set
       counts each one's attempt and moves its ``next_attempt_at`` ``claim_time`` ahead,
       so a second sender running now skips them;
    2. send each, outside any transaction;
    3. commit the outcome at once: ``sent``; or the error and the next try after
       :func:`backoff` (``retry_delay`` doubling up to ``max_retry_delay``); or ``failed``,
       with a notice to the game master, after a :class:`PermanentError` or when
       ``max_attempts`` attempts have failed.

    ``max_attempts``, ``retry_delay`` and ``claim_time`` default to the ``[smtp]`` settings
    (``max_attempts``, ``retry_seconds``, ``claim_seconds``), else to
    :data:`DEFAULT_MAX_ATTEMPTS`, :data:`RETRY_DELAY` and :data:`CLAIM_TIME`.

    A :class:`ServerUnavailable` ends the run after recording it: the other messages
    would only fail the same way, one timeout each. The messages claimed but not yet tried
    get their attempt and their ``next_attempt_at`` back, as they do when ``should_stop()``
    turns true (it is asked before each message).

    With a ``journal``, step 3's "sent" goes to the journal file, and the database learns
    it once per claimed batch (and first thing in the next run, if the process died in
    between): one write transaction per batch instead of one per email, which matters on
    SQLite, where every writer waits for the others.
    """
    smtp = judge.settings.smtp
    if max_attempts is None:
        max_attempts = smtp.max_attempts if smtp is not None else DEFAULT_MAX_ATTEMPTS
    if retry_delay is None:
        retry_delay = timedelta(seconds=smtp.retry_seconds) if smtp is not None else RETRY_DELAY
    if claim_time is None:
        claim_time = timedelta(seconds=smtp.claim_seconds) if smtp is not None else CLAIM_TIME
    if journal is not None:
        _record_journal(sessions, journal)
    started = now()
    _release_orphans(sessions, started)
    with sessions() as session:
        read_only(session)
        ids = queries.due_outbox_ids(session, started, limit)
    sent = 0
    try:
        for start in range(0, len(ids), CLAIM_BATCH):
            # The claim also commits what the journal holds: one write transaction a batch.
            claimed = _claim(sessions, ids[start : start + CLAIM_BATCH], now(), claim_time, journal)
            for index, (message, _was_due) in enumerate(claimed):
                if should_stop is not None and should_stop():
                    _release(sessions, claimed[index:])
                    return sent
                message_id = message.id
                try:
                    transport.send(message, judge, now())
                except PermanentError as err:
                    _record_failure(sessions, judge, message_id, now(), err, retry_in=None)
                except Exception as err:  # TransientError, and whatever a transport did not sort
                    retry_in = None
                    if message.attempts < max_attempts:
                        retry_in = backoff(message.attempts, retry_delay, max_retry_delay)
                    _record_failure(sessions, judge, message_id, now(), err, retry_in=retry_in)
                    if isinstance(err, ServerUnavailable):
                        log.warning("mail server unavailable, delivery run stopped: %s", err)
                        _release(sessions, claimed[index + 1 :])
                        return sent
                else:
                    # First thing after the server's 250: the window for a duplicate is
                    # this write (to the journal, or a commit).
                    if journal is None or not journal.add(message_id, now()):
                        _record_sent(sessions, message_id, now())
                    sent += 1
    finally:
        if journal is not None:
            _record_journal(sessions, journal)
        purge_secrets(sessions)
    return sent


def purge_secrets(sessions: sessionmaker[Session]) -> int:
    """Replace the body of every mail that held a password and is now sent or given up
    with :data:`PURGED_BODY`, and clear its flag; return how many.

    Run at the end of every delivery run (so also for mail a run before a crash sent):
    a read through the ``secret`` index first, so that a run with nothing to purge
    writes nothing.
    """
    with sessions() as session:
        read_only(session)
        if not queries.any_secret_done(session):
            return 0
    with sessions() as session, session.begin():
        return queries.purge_secrets(session, PURGED_BODY)


def _claim(
    sessions: sessionmaker[Session],
    message_ids: Sequence[int],
    at: datetime,
    claim_time: timedelta,
    journal: SentJournal | None = None,
) -> list[tuple[OutboundMessage, datetime | None]]:
    """Take the messages ``message_ids`` that are still queued and due, for sending.

    Returns them oldest first, each with the ``next_attempt_at`` it had before (to give it
    back if the run stops before its turn). The UPDATE's WHERE is the test, so two senders
    cannot both win a message: on PostgreSQL the second waits for the first's row locks and
    then finds the rows changed, on SQLite writers take turns. The attempt is counted now,
    so one that dies with the process still counts. What ``journal`` holds is committed
    in the same transaction.
    """
    if not message_ids:
        return []
    entries = journal.entries() if journal is not None else []
    with sessions() as session, session.begin():
        queries.mark_sent(session, entries)
        claimed = queries.claim_outbox(
            session, message_ids, at, at + claim_time, owner=sender_token()
        )
    if journal is not None and entries:
        journal.clear()  # committed above
    return claimed


def _process_stat(pid: int) -> tuple[str, str]:
    """Process ``pid``'s state letter and when it started, in clock ticks since boot
    (Linux's /proc: the start time tells it from a later process given the same id);
    ``("", "")`` where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        return fields[0].decode(), fields[19].decode()
    except (OSError, IndexError, UnicodeDecodeError):
        return "", ""


def sender_token(pid: int | None = None) -> str:
    """The name a sender process's claims carry: host, process id and start time."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}:{pid}:{_process_stat(pid)[1]}"


def sender_gone(token: str) -> bool:
    """Whether the sender process named ``token`` (:func:`sender_token`) is known to be
    gone: it ran on this host and no live process of that id and start time runs now.  A
    sender on another host is never known gone (its claims run out after ``claim_time``)."""
    parts = token.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    pid, started = int(parts[1]), parts[2]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # someone else's process of that id: compare the start times
    state, now_started = _process_stat(pid)
    if state in ("Z", "X"):
        return True  # dead, not yet reaped by its parent
    return bool(started) and now_started not in ("", started)


def _release_orphans(sessions: sessionmaker[Session], at: datetime) -> None:
    """Give back at once the messages held by sender processes that are gone (killed
    between claiming and recording), instead of when their claims run out."""
    with sessions() as session:
        read_only(session)
        owners = [o for o in queries.outbox_claimants(session, at) if sender_gone(o)]
    for owner in owners:
        with sessions() as session, session.begin():
            count = queries.release_claims_of(session, owner)
        if count:
            log.warning("%d message(s) held by the sender %s, now gone, given back", count, owner)


def _release(
    sessions: sessionmaker[Session], claimed: Sequence[tuple[OutboundMessage, datetime | None]]
) -> None:
    """Give back messages claimed but not tried: their attempt and their place again."""
    if not claimed:
        return
    with sessions() as session, session.begin():
        queries.release_outbox(session, claimed)


def _record_sent(sessions: sessionmaker[Session], message_id: int, at: datetime) -> None:
    with sessions() as session, session.begin():
        queries.mark_sent(session, [(message_id, at)])


def _record_journal(sessions: sessionmaker[Session], journal: SentJournal) -> None:
    """Commit what the journal says was sent, then empty it."""
    entries = journal.entries()
    if not entries:
        return
    with sessions() as session, session.begin():
        queries.mark_sent(session, entries)
    journal.clear()


def _record_failure(
    sessions: sessionmaker[Session],
    judge: Judge,
    message_id: int,
    at: datetime,
    err: Exception,
    *,
    retry_in: timedelta | None,
) -> None:
    """Record a failed attempt: try again ``retry_in`` from ``at``, or give the message up."""
    with sessions() as session, session.begin():
        message = session.get(OutboundMessage, message_id)
        if message is None or message.state != OutboundState.QUEUED:
            return
        reason = _reason(err)
        message.last_error = f"{type(err).__name__}: {reason}"
        message.claimed_by = None
        if retry_in is not None:
            message.next_attempt_at = at + retry_in
            log.warning(
                "mail %s to %s: attempt %d failed, next at %s: %s",
                message.message_id,
                message.to_addr,
                message.attempts,
                message.next_attempt_at.isoformat(),
                reason,
            )
            return
        message.state = OutboundState.FAILED
        message.next_attempt_at = None
        log.error(
            "mail %s (%s) to %s given up after %d attempt(s): %s",
            message.message_id,
            message.kind,
            message.to_addr,
            message.attempts,
            reason,
        )
        _tell_master(session, judge, message, at, reason, refused=isinstance(err, PermanentError))


def _reason(err: Exception) -> str:
    """What went wrong, in the words of the transport (which quote the server's reply)."""
    if isinstance(err, (TransientError, PermanentError)):
        return str(err) or type(err).__name__
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


def _tell_master(
    session: Session,
    judge: Judge,
    message: OutboundMessage,
    at: datetime,
    reason: str,
    *,
    refused: bool,
) -> None:
    """Queue one notice about a given-up message to its game's master (in ``session``)."""
    if message.kind == "notice":
        # A note about a failed note could fail too, and so on: the log is the end of it.
        log.error("not telling anyone about the failed notice %s", message.message_id)
        return
    game = session.get(Game, message.game_id) if message.game_id is not None else None
    if game is None or not game.master_address:
        log.error("mail %s failed and has no game master to tell", message.message_id)
        return
    # The sending functions queue their mail through this module, so it is imported here.
    from judge.services.mailings import send_mail_undeliverable

    send_mail_undeliverable(
        session, judge, game, at,
        to=message.to_addr, subject=message.subject, message_id=message.message_id,
        written=message.created_at, attempts=message.attempts, reason=reason, refused=refused,
    )  # fmt: skip


class SentJournal:
    """An append-only file of outbox messages sent but not yet marked so in the database.

    A line (``id`` and the time sent) is written right after the server accepted the
    message, with one ``write`` call: it is in the operating system's hands at once, so it
    survives the judge being killed, and the next delivery run marks the message sent
    instead of sending it again.  Only one process may use a journal file: the constructor
    takes an exclusive lock on it and raises :class:`BlockingIOError` when another process
    holds it.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._fd)
            raise

    def add(self, message_id: int, at: datetime) -> bool:
        """Note ``message_id`` as sent at ``at``; False if the file could not be written
        (the caller then records it in the database itself)."""
        line = f"{message_id} {at.isoformat()}\n".encode()
        try:
            return os.write(self._fd, line) == len(line)
        except OSError as err:
            log.error("cannot write the sent-mail journal %s: %s", self.path, err)
            return False

    def entries(self) -> list[tuple[int, datetime]]:
        """What the journal holds (a line cut short by a crash is skipped)."""
        os.lseek(self._fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(self._fd, 65536):
            chunks.append(chunk)
        result = []
        # Only whole lines: what follows the last newline was cut off (a power cut).
        lines = b"".join(chunks).decode("ascii", "replace").split("\n")[:-1]
        for line in lines:
            number, _, stamp = line.partition(" ")
            try:
                at = datetime.fromisoformat(stamp)
                result.append((int(number), at))
            except ValueError:
                continue
        return result

    def clear(self) -> None:
        """Empty the journal (after its entries were committed)."""
        os.ftruncate(self._fd, 0)

    def close(self) -> None:
        """Release the lock and the file."""
        os.close(self._fd)
