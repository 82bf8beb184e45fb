"""The sender: the long-running loop that delivers the outbox through a transport.

Delivery is at least once, not exactly once. No mail protocol can make it exactly once:
if the process dies after the server said 250 and before the "sent" state is committed,
the next run sends the message again. :func:`deliver_pending` keeps that window to one
short commit right after each successful send (or one line in the :class:`SentJournal`),
and every copy carries the same Message-ID, so mail clients and receiving servers that
deduplicate on it show one.

Failures are sorted by the transport (:mod:`judge.mail.transport`): a
:class:`~judge.mail.transport.TransientError` (SMTP 4xx, the server unreachable, a
timeout; also any exception a transport did not classify) is retried with a growing delay
(:func:`backoff`) until ``max_attempts``; a :class:`~judge.mail.transport.PermanentError`
(SMTP 5xx) is not retried. A message given up is marked ``failed`` and the game's master
gets one notice saying which mail to whom failed and why; a notice that fails is only
logged, so failures never breed.

What is the process's lives here: the loop, the retry schedule, the journal and the
sender's identity (:func:`sender_token`, so that the claims of a sender that died are
given back at once). What each step writes to the outbox table is a use case of
:mod:`judge.services.outbox`.
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections import deque
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import NamedTuple

from sqlalchemy.orm import Session, sessionmaker

from judge.db.session import shareable
from judge.mail.transport import PermanentError, ServerUnavailable, Transport
from judge.services import outbox, presence
from judge.services.context import Judge

__all__ = [
    "CLAIM_BATCH",
    "CLAIM_TIME",
    "DEFAULT_MAX_ATTEMPTS",
    "MAX_RETRY_DELAY",
    "RETRY_DELAY",
    "Delivered",
    "SentJournal",
    "backoff",
    "deliver_due",
    "deliver_pending",
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
#: process (:func:`sender_token`): when that process is gone (dead on this host, or silent
#: in the ``judges`` table for :data:`judge.services.presence.GONE_SECONDS`), the next
#: delivery run gives its messages back at once; this long is the last resort.  (On a
#: shareable database each journal window's claims are renewed as its turn comes.)
CLAIM_TIME = timedelta(minutes=10)
#: Messages claimed in one transaction by :func:`deliver_pending`: one commit for the lot
#: (three statements, and the journal's sent mail of the batch before).  At 20 the claims
#: were half the database's cost of a burst's mail; a batch of 100 is sent in well under
#: a second, a small part of ``claim_time``, and its pictures are few (one per game).
CLAIM_BATCH = 100
#: On a database several judges may share (not SQLite), the sent mail noted in the journal
#: is committed each time this many mails were taken in turn (sent or failed, so that the
#: journal never holds more): when the judge dies, another takes its claimed mail over and
#: sends again what its journal held, so this bounds those duplicates.  (On SQLite the
#: journal is this judge's alone, read again when it starts: one commit a claim batch.)
SHARED_JOURNAL_WINDOW = 10


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


class Delivered(NamedTuple):
    """What one delivery run did: how many messages went, and whether it stopped at its
    ``limit`` with every message it took dealt with, so that more may be due at once."""

    sent: int
    more: bool


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
    """Deliver the queued mail that is due, oldest first; return how many went
    (:func:`deliver_due`, which also says whether more may be due)."""
    return deliver_due(
        sessions, judge, transport, now, limit, max_attempts=max_attempts,
        retry_delay=retry_delay, max_retry_delay=max_retry_delay, claim_time=claim_time,
        should_stop=should_stop, journal=journal,
    ).sent  # fmt: skip


def deliver_due(
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
    owner: str | None = None,
    may_claim: Callable[[], bool] | None = None,
    free_orphans: bool = True,
) -> Delivered:
    """Deliver the queued mail that is due, oldest first: how many went, and whether the
    run took ``limit`` messages and went through them all (``more``: the caller runs again
    at once instead of waiting for its next tick; a run stopped by ``should_stop`` or by
    an unavailable server has no more).

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
       with a notice to the game master (:func:`judge.services.outbox.record_failure`),
       after a :class:`PermanentError` or when ``max_attempts`` attempts have failed.

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
    SQLite, where every writer waits for the others.  On a database several judges may
    share, it learns it every :data:`SHARED_JOURNAL_WINDOW` mails taken instead.

    ``owner`` names the sender in its claims (default: this process,
    :func:`sender_token`); the claims of senders that are gone are freed first.  Another
    judge may take this one for gone while it is alive (its heartbeat held up) and free
    its claims: so on a shareable database, with the journal's commit every window, one
    statement renews the claims of the window about to go and says which are still this sender's
    (:func:`judge.services.outbox.confirm_claims`); the others are left to that judge, and
    at most a window's mails go twice.  A failure is recorded, and an untried message
    given back, only while ``owner`` holds it; one found taken over brings that check at
    once (on SQLite too, where there is no window).  ``may_claim``: asked before each
    claim (and before freeing the claims of senders that are gone); while it says no,
    nothing more is claimed (:meth:`judge.services.presence.Presence.alive_enough`).
    ``free_orphans``: False skips the look for the claims of senders that are gone (a
    caller running again at once, in a burst, looks at most every heartbeat).
    """
    owner = owner or sender_token()
    window = _journal_window(sessions)
    smtp = judge.settings.smtp
    if max_attempts is None:
        max_attempts = smtp.max_attempts if smtp is not None else DEFAULT_MAX_ATTEMPTS
    if retry_delay is None:
        retry_delay = timedelta(seconds=smtp.retry_seconds) if smtp is not None else RETRY_DELAY
    if claim_time is None:
        claim_time = timedelta(seconds=smtp.claim_seconds) if smtp is not None else CLAIM_TIME
    # What a sender killed before its commit left in the journal: sent mail, perhaps with
    # a password in it, purged at the end of this run (see ``secrets`` below).
    replayed = journal is not None and _record_journal(sessions, journal)

    def late() -> bool:
        # This judge's heartbeat is late: the others may soon take it for gone and send
        # what it holds; it frees and claims nothing until it beats again.
        if may_claim is None or may_claim():
            return False
        log.warning("this judge's heartbeat is late: claiming no mail for now")
        return True

    if late():
        if replayed:
            outbox.purge_secrets(sessions)  # not a claim: no other judge's business
        return Delivered(0, False)
    started = now()
    if free_orphans:
        _release_orphans(sessions, started, owner)
    ids = outbox.due_message_ids(sessions, started, limit)
    sent = 0
    # Whether the purge of passwords (:func:`judge.services.outbox.purge_secrets`) must
    # look: after a run that tried mail holding one, and in a run with nothing to send
    # (what a run before a crash sent is purged then); not after each run of a burst's
    # results, where it was a read of its own every hundred mails.
    secrets = not ids or replayed
    # Stopped at the limit: the next run may find more due (a burst's results).
    more = len(ids) >= limit > 0
    try:
        for start in range(0, len(ids), CLAIM_BATCH):
            if start and late():
                return Delivered(sent, False)
            # The claim also commits what the journal holds: one write transaction a batch.
            claimed = _claim(
                sessions, ids[start : start + CLAIM_BATCH], now(), claim_time, journal, owner
            )
            # The batch's pictures, each read once (one results picture goes to everyone),
            # and drawn here the first time, outside any write transaction.
            pictures = outbox.picture_blobs(
                sessions, [message for message, _due in claimed], judge=judge
            )
            secrets = secrets or any(message.secret for message, _due in claimed)
            held = deque(claimed)  # the claims of the batch still to try, in turn
            # The claims that go before the next confirmation: a window's worth (on
            # SQLite, where there is no window, the whole batch), each confirmed (renewed,
            # and checked for mail taken over) as its turn comes, so that a judge taken
            # for gone sends at most a window of what another took.  Only the window
            # about to go: renewing the whole batch at every window wrote five new
            # versions of each mail on average, which PostgreSQL's looks at the queued
            # mail then read through until a vacuum.  The first window was claimed just
            # now.  Counted in mails taken, sent or not, so that failures never put the
            # journal's commit (made with each confirmation) off.
            ready: deque[outbox.Claimed] = deque()
            fresh = True
            lost = False  # a failure found its mail taken over by another judge
            while held or ready:
                if lost or not ready:
                    if lost:
                        held.extendleft(reversed(ready))  # each checked again
                        ready.clear()
                    turn = [held.popleft() for _ in range(min(window or len(held), len(held)))]
                    if fresh and not lost:
                        ready.extend(turn)
                    else:
                        ready.extend(_confirm(sessions, turn, now(), claim_time, journal, owner))
                    fresh = lost = False
                    continue
                if should_stop is not None and should_stop():
                    outbox.release_messages(sessions, [*ready, *held], owner)
                    return Delivered(sent, False)
                message, _was_due = ready.popleft()
                message_id = message.id
                try:
                    transport.send(outbox.outgoing_mail(message, judge.settings, now(), pictures))
                except PermanentError as err:
                    lost = not outbox.record_failure(
                        sessions, judge, message_id, now(), err, retry_in=None, owner=owner
                    )
                except Exception as err:  # TransientError, and whatever a transport did not sort
                    retry_in = None
                    if message.attempts < max_attempts:
                        retry_in = backoff(message.attempts, retry_delay, max_retry_delay)
                    lost = not outbox.record_failure(
                        sessions, judge, message_id, now(), err, retry_in=retry_in, owner=owner
                    )
                    if isinstance(err, ServerUnavailable):
                        log.warning("mail server unavailable, delivery run stopped: %s", err)
                        outbox.release_messages(sessions, [*ready, *held], owner)
                        return Delivered(sent, False)
                else:
                    # First thing after the server's 250: the window for a duplicate is
                    # this write (to the journal, or a commit).
                    if journal is None or not journal.add(message_id, now()):
                        outbox.record_sent(sessions, [(message_id, now())])
                    sent += 1
    finally:
        if journal is not None:
            _record_journal(sessions, journal)
        if secrets:
            outbox.purge_secrets(sessions)
    return Delivered(sent, more)


def _claim(
    sessions: sessionmaker[Session],
    message_ids: Sequence[int],
    at: datetime,
    claim_time: timedelta,
    journal: SentJournal | None = None,
    owner: str | None = None,
) -> list[outbox.Claimed]:
    """Claim ``message_ids`` for ``owner`` (default: this process;
    :func:`judge.services.outbox.claim_messages`) for ``claim_time``, committing what
    ``journal`` holds in the same transaction."""
    if not message_ids:
        return []
    entries = journal.entries() if journal is not None else []
    claimed = outbox.claim_messages(
        sessions, message_ids, at, at + claim_time, owner or sender_token(), sent=entries
    )
    if journal is not None and entries:
        journal.clear()  # committed above
    return claimed


def _confirm(
    sessions: sessionmaker[Session],
    held: Sequence[outbox.Claimed],
    at: datetime,
    claim_time: timedelta,
    journal: SentJournal | None,
    owner: str,
) -> deque[outbox.Claimed]:
    """The claims of ``held`` that ``owner`` still holds, renewed for ``claim_time``
    (:func:`judge.services.outbox.confirm_claims`), committing what ``journal`` holds in
    the same transaction.  The others were freed by a judge that took this one for gone,
    and are its to send now."""
    entries = journal.entries() if journal is not None else []
    kept = outbox.confirm_claims(
        sessions, [message.id for message, _due in held], at + claim_time, owner, sent=entries
    )
    if journal is not None and entries:
        journal.clear()  # committed above
    if len(kept) < len(held):
        log.warning(
            "%d claimed mail(s) taken over by another judge (this one was taken for gone); "
            "left to it",
            len(held) - len(kept),
        )
    return deque(claim for claim in held if claim[0].id in kept)


def _journal_window(sessions: sessionmaker[Session]) -> int:
    """How many sent mails the journal may hold before they are committed: 0 (a claim
    batch's worth) on SQLite, else :data:`SHARED_JOURNAL_WINDOW`."""
    return SHARED_JOURNAL_WINDOW if shareable(sessions) else 0


def _record_journal(sessions: sessionmaker[Session], journal: SentJournal) -> bool:
    """Commit what the journal says was sent, then empty it; whether it held any."""
    entries = journal.entries()
    if not entries:
        return False
    outbox.record_sent(sessions, entries)
    journal.clear()
    return True


def sender_token(pid: int | None = None) -> str:
    """The name a sender process's claims carry (:func:`judge.services.presence.process_token`)."""
    return presence.process_token(pid)


def sender_gone(token: str) -> bool:
    """Whether the sender process named ``token`` is known gone on this host's own word
    (:func:`judge.services.presence.gone_here`)."""
    return presence.gone_here(token)


def _release_orphans(sessions: sessionmaker[Session], at: datetime, owner: str = "") -> None:
    """Give back at once the messages held by sender processes that are gone (killed
    between claiming and recording; on another host, silent for
    :data:`judge.services.presence.GONE_SECONDS`), instead of when their claims run out."""
    outbox.release_gone_senders(sessions, owner, at)


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
