"""Processing stored mail: the transaction and retry policy.

Messages stored by :mod:`judge.services.intake` are processed in batches, each in one
transaction (one commit for the lot); each message's attempt is counted and committed
first.  An exception rolls the batch back and every message of it is processed again
alone, so the failing one is marked failed (to be retried) and the others go through; a
message tried :data:`MAX_ATTEMPTS` times is parked and its sender told once.  What one
message does is :func:`judge.services.conversation.handle`; the batch's lookups and
writes are its :class:`~judge.services.unit_of_work.UnitOfWork`.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from sqlalchemy.orm import Session, sessionmaker

from judge.db import queries
from judge.db.models import InboundMessage, InboundState
from judge.db.session import read_only
from judge.mail.decode import (
    MAX_HEADER_BYTES,
    IncomingMail,
    decode,
    header_block,
)
from judge.mail.rules import refuse_reason
from judge.services import presence
from judge.services.context import Judge
from judge.services.conversation import handle
from judge.services.intake import read_stored
from judge.services.passwords import Verdicts
from judge.services.preverify import preverify
from judge.services.replies import (
    count_replies,
    cut,
    refuse,
)
from judge.services.unit_of_work import UnitOfWork, write_changes

log = logging.getLogger(__name__)


#: Stored messages processed in one transaction: one commit (and one flush of all their
#: rows) for the lot.
BATCH_SIZE = 50
#: Attempts at a message that did not finish (its worker died, was stopped as stalled, or
#: an error rolled it back) before it is parked: set aside, its sender told, not tried again.
MAX_ATTEMPTS = 3
#: How long one transaction of processing may run before it commits what it did so far
#: and lets the other writers in (storing new mail first of all: SQLite has one writer).
BATCH_SECONDS = 0.5
#: How long the passwords of a batch's sign-ons may take to verify before its
#: transaction (:mod:`judge.services.preverify`; no lock is held meanwhile) before the
#: batch is cut after the messages done: a batch of new players' first sign-ons (some
#: 20 ms of argon2 each) is verified whole, and its later messages are not decoded again.
PREVERIFY_SECONDS = 2.0
#: The most stored messages one judge takes at a time (:func:`process_pending`): with
#: several judges on one database, a flood is shared out in pieces this size.
CLAIM_LIMIT = 200
#: The pause between two batches of a backlog.
BATCH_GAP_SECONDS = 0.003
#: The most of a parked message's subject its sender's answer quotes.
PARKED_SUBJECT_CHARS = 80


def process_pending(
    sessions: sessionmaker[Session],
    judge: Judge,
    now: Callable[[], datetime],
    batch_size: int = BATCH_SIZE,
    should_stop: Callable[[], bool] | None = None,
    after_batch: Callable[[], None] | None = None,
    progress: Callable[[], None] | None = None,
    claimant: str | None = None,
    claim_limit: int | None = None,
    may_claim: Callable[[], bool] | None = None,
) -> int:
    """Process the stored messages not yet done that this process holds, after claiming
    at most ``claim_limit`` more (default :data:`CLAIM_LIMIT`: the rest is for the next
    call, or for another judge on the database); return how many were handled.

    ``claimant`` names this process in its claims (:mod:`judge.services.presence`;
    default: its own token).  Several judges sharing the database each take messages
    (:func:`judge.db.queries.claim_inbound`), a sender's in the order they came; the
    messages of a judge that is gone are free again first.  While ``may_claim()`` says
    no (the judge's heartbeat is late: :meth:`judge.services.presence.Presence.alive_enough`),
    nothing is claimed nor processed: the others may soon take this judge's messages.

    ``should_stop()`` is asked before each batch (the rest waits for the next call), and
    ``after_batch()`` called after each one's commit (to wake the sender at once);
    ``progress()`` as each message's work begins (a watchdog's heartbeat).

    Messages never tried go in batches; one tried before (its worker may have died on it)
    goes alone, so that its batch-mates are not held back by it; one that did not finish
    alone either goes after the rest (it lost its place); one tried :data:`MAX_ATTEMPTS`
    times is parked (:func:`park`).
    """
    me = claimant or presence.process_token()
    if may_claim is not None and not may_claim():
        log.warning("this judge's heartbeat is late: claiming no stored message for now")
        return 0
    pending = _claim(sessions, me, CLAIM_LIMIT if claim_limit is None else claim_limit)
    done = 0
    for inbound_id, attempts in pending:
        if attempts >= MAX_ATTEMPTS:
            park(sessions, judge, inbound_id, now(), claimant=me)
            done += 1
    if done and after_batch is not None:
        after_batch()  # the answers to parked messages
    waiting = [(i, n) for i, n in pending if n < MAX_ATTEMPTS]
    # Python's sort is stable: id order, except that suspects go last.
    waiting.sort(key=lambda item: item[1] >= 2)
    position = 0
    while position < len(waiting):
        if should_stop is not None and should_stop():
            break
        batch = [waiting[position][0]]
        if waiting[position][1] == 0:
            while (
                len(batch) < batch_size
                and position + len(batch) < len(waiting)
                and waiting[position + len(batch)][1] == 0
            ):
                batch.append(waiting[position + len(batch)][0])
        states = process_batch(sessions, judge, batch, now(), progress=progress, claimant=me)
        position += len(states)
        done += len(states)
        if after_batch is not None:
            after_batch()
        if position < len(waiting):
            # Let the other writers in (SQLite has one writer at a time): without a gap
            # between batches they would wait until the whole backlog is processed.
            time.sleep(BATCH_GAP_SECONDS)
    return done


def _claim(sessions: sessionmaker[Session], me: str, limit: int) -> list[tuple[int, int]]:
    """Claim stored messages for ``me`` (:func:`judge.db.queries.claim_inbound`) and
    return those it holds, after freeing the messages of judges that are gone.  Nothing
    to process (most calls of an idle judge): one read, no write transaction."""
    with sessions() as session:
        if not queries.any_pending_inbound(read_only(session)):
            return []
    presence.free_claims_of_gone(
        sessions, me, queries.inbound_claimants, queries.release_inbound_claims_of,
        "stored message(s)",
    )  # fmt: skip
    with sessions() as session, session.begin():
        return queries.claim_inbound(session, me, limit)


def process_batch(
    sessions: sessionmaker[Session],
    judge: Judge,
    inbound_ids: Sequence[int],
    now: datetime,
    *,
    budget: float = BATCH_SECONDS,
    progress: Callable[[], None] | None = None,
    claimant: str | None = None,
) -> dict[int, str]:
    """Process stored messages in order in one transaction; return the new state of each
    one processed: the first ones of ``inbound_ids``, as many as ``budget`` seconds allow
    (at least one; the rest wait for the next batch).

    Each message's attempt is counted and committed first, so that one that kills or
    stalls the worker still counts (:func:`process_pending` then tries it alone).  The
    messages are decoded, and their sign-ons' passwords verified
    (:mod:`judge.services.preverify`), before the transaction starts, so that neither
    holds the write lock; the batch is cut after the messages whose passwords were
    verified within :data:`PREVERIFY_SECONDS`.  When anything fails, the whole
    transaction is undone and every message of the batch is processed again in a
    transaction of its own
    (:func:`process_one`), so the failing one is marked alone and the others go through.
    Failures are rare (a bug, the database going away), so the common case pays for no
    savepoints.  A message another judge holds (``claimant`` is not its claimant) is
    left alone, under a row lock (:func:`judge.db.queries.inbound_rows`).
    """
    me = claimant or presence.process_token()
    if len(inbound_ids) == 1:
        only = inbound_ids[0]
        return {only: process_one(sessions, judge, only, now, progress=progress, claimant=me)}
    _count_attempts(sessions, inbound_ids, me)
    decoded, sizes = _decode_rows(sessions, judge, inbound_ids, progress)
    verdicts, covered = _preverified(
        sessions, judge, inbound_ids, decoded, sizes, now, PREVERIFY_SECONDS
    )
    states: dict[int, str] = {}
    try:
        with sessions() as session, session.begin():
            started = time.monotonic()
            rows = queries.inbound_rows(session, inbound_ids[:covered], me)
            work = UnitOfWork(decoded=decoded, verdicts=verdicts)
            senders = {row.sender for row in rows.values() if row.sender}
            count_replies(session, judge, senders, now, work)
            said: list[str] = []
            for inbound_id in inbound_ids[:covered]:
                if progress is not None:
                    progress()
                states[inbound_id] = _process_in(
                    session, judge, rows.get(inbound_id), now, work, said
                )
                if time.monotonic() - started > budget:
                    break
            # Those left for the next batch were not attempted.
            queries.count_inbound_attempts(session, inbound_ids[len(states) :], -1, me)
            write_changes(session, work)
    except Exception:
        log.warning(
            "processing %d messages together failed; processing them one by one",
            len(inbound_ids),
            exc_info=True,
        )
        return {
            i: process_one(sessions, judge, i, now, count=False, progress=progress, claimant=me)
            for i in inbound_ids
        }
    _log_done(said)
    return states


def process_one(
    sessions: sessionmaker[Session],
    judge: Judge,
    inbound_id: int,
    now: datetime,
    *,
    count: bool = True,
    progress: Callable[[], None] | None = None,
    claimant: str | None = None,
) -> str:
    """Process one stored message in one transaction; on error mark it failed (to be
    tried again, up to :data:`MAX_ATTEMPTS` attempts).  ``count``: count the attempt
    first (False: the caller did).  One another judge holds is left alone."""
    me = claimant or presence.process_token()
    if count:
        _count_attempts(sessions, [inbound_id], me)
    decoded, sizes = _decode_rows(sessions, judge, [inbound_id], progress)
    verdicts, _covered = _preverified(sessions, judge, [inbound_id], decoded, sizes, now)
    try:
        with sessions() as session, session.begin():
            row = queries.inbound_rows(session, [inbound_id], me).get(inbound_id)
            work = UnitOfWork(decoded=decoded, verdicts=verdicts)
            if row is not None and row.sender:
                count_replies(session, judge, {row.sender}, now, work)
            if progress is not None:
                progress()
            said: list[str] = []
            state = _process_in(session, judge, row, now, work, said)
            write_changes(session, work)
        _log_done(said)
        return state
    except Exception as err:
        log.warning("message %d failed", inbound_id, exc_info=True)
        with sessions() as session, session.begin():
            row = queries.inbound_rows(session, [inbound_id], me).get(inbound_id)
            if row is not None and row.state in (InboundState.NEW, InboundState.FAILED):
                row.state = InboundState.FAILED
                row.reason = f"{type(err).__name__}: {err}"[:1000]
        return InboundState.FAILED


def _count_attempts(
    sessions: sessionmaker[Session], inbound_ids: Sequence[int], claimant: str
) -> None:
    """Count an attempt at each message ``claimant`` holds (or nobody does), committed
    before the attempt starts."""
    with sessions() as session, session.begin():
        queries.count_inbound_attempts(session, inbound_ids, 1, claimant)


def _decode_rows(
    sessions: sessionmaker[Session],
    judge: Judge,
    inbound_ids: Sequence[int],
    progress: Callable[[], None] | None,
) -> tuple[dict[int, IncomingMail], dict[int, int]]:
    """The messages ``inbound_ids`` decoded (:func:`read_stored`), read without taking
    the write lock and decoded outside any transaction; and their sizes as received."""
    with sessions() as session:
        read_only(session)
        stored = queries.inbound_raws(session, inbound_ids)
    decoded = {}
    sizes = {}
    for inbound_id, (raw, size) in stored.items():
        if progress is not None:
            progress()
        _test_fault(raw)
        decoded[inbound_id] = read_stored(raw, size, judge.settings.max_message_bytes)
        sizes[inbound_id] = size
    return decoded, sizes


def _preverified(
    sessions: sessionmaker[Session],
    judge: Judge,
    inbound_ids: Sequence[int],
    decoded: dict[int, IncomingMail],
    sizes: dict[int, int],
    now: datetime,
    budget: float | None = None,
) -> tuple[Verdicts, int]:
    """:func:`~judge.services.preverify.preverify`: the passwords of the messages'
    sign-ons verified with no transaction open, and how many of the messages that
    covered within ``budget``.  Only a head start: should it fail, the transaction
    verifies every password itself, as it would any the pass did not see."""
    try:
        return preverify(sessions, judge, inbound_ids, decoded, sizes, now, budget)
    except Exception:
        log.warning("checking passwords before processing failed", exc_info=True)
        return Verdicts(), len(inbound_ids)


#: The environment variable of the test-only fault hook (:func:`_test_fault`).
TEST_FAULT_HOOK = "JUDGE_TEST_FAULT_HOOK"


def _test_fault(raw: bytes) -> None:
    """A test hook, off unless the environment variable :data:`TEST_FAULT_HOOK` is ``1``:
    then a message holding the line ``X-Judge-Test-Fault: kill`` (``stall``, ``memory``)
    kills its worker process (stalls it, exhausts its memory), as a poisonous message
    would.  No real input is known to do so any more; the tests need one that does."""
    if os.environ.get(TEST_FAULT_HOOK) != "1":
        return
    found = re.search(rb"(?m)^X-Judge-Test-Fault: (kill|stall|memory)\r?$", raw[:MAX_HEADER_BYTES])
    if found is None:
        return
    fault = found.group(1)
    log.warning("test fault hook: %s", fault.decode())
    if fault == b"kill":
        os._exit(70)
    elif fault == b"stall":
        time.sleep(3600)
    else:
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))


def _process_in(
    session: Session,
    judge: Judge,
    row: InboundMessage | None,
    now: datetime,
    work: UnitOfWork,
    said: list[str],
) -> str:
    """Process one message inside the caller's transaction (which fails if it raises);
    what it did goes into ``said``, for the log once the transaction is committed."""
    if row is None or row.state in (InboundState.DONE, InboundState.IGNORED, InboundState.PARKED):
        return row.state if row is not None else "missing"
    said.append(handle(session, judge, row, now, work))
    return row.state


def _log_done(said: Sequence[str]) -> None:
    """Log what each message of a committed transaction did, a line each (see
    :mod:`judge.services.activity`): only what is kept is told.  A line quotes at most a
    header's value of the message (the reason it was not read): bounded, and on one line."""
    for line in said:
        log.info("%s", _CONTROL.sub("?", line[:MAX_LOG_CHARS]))


#: The most of one message's log line that is written.
MAX_LOG_CHARS = 500
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def park(
    sessions: sessionmaker[Session],
    judge: Judge,
    inbound_id: int,
    now: datetime,
    claimant: str | None = None,
) -> str:
    """Set aside a message whose attempts all failed to finish: state ``parked``, kept for
    the keeper of the judge, never tried again; its sender is told once, in a few lines
    that quote nothing of it but (a bounded excerpt of) its subject.  One another judge
    holds (``claimant`` is not its claimant) is left to it."""
    me = claimant or presence.process_token()
    with sessions() as session, session.begin():
        row = queries.inbound_rows(session, [inbound_id], me).get(inbound_id)
        if row is None or row.state not in (InboundState.NEW, InboundState.FAILED):
            return row.state if row is not None else "missing"
        last = (
            f"; the last error: {row.reason}"
            if row.state == InboundState.FAILED and row.reason
            else ""
        )
        row.state = InboundState.PARKED
        row.processed_at = now
        row.reason = (
            f"parked after {row.attempts} attempts that did not finish (the worker died, "
            f"was stopped as stalled, or failed){last}"
        )[:1000]
        log.error("message %d %s from %s: %s", row.id, row.message_id, row.sender, row.reason)
        # Only the header is read again: storing read it already, so it is known to be
        # harmless; the rules keep the answer from bounces, robots and the judge itself.
        mail = decode(header_block(row.raw))
        refused = refuse_reason(
            mail, 0, own_addresses={judge.settings.address}, loop_tag=judge.settings.address,
            max_size=judge.settings.max_message_bytes,
        )  # fmt: skip
        if not mail.sender or refused is not None:
            return InboundState.PARKED
        work = UnitOfWork()
        subject = cut(mail.subject, PARKED_SUBJECT_CHARS - 3, note=False)
        mail = replace(mail, subject=subject)
        refuse(
            session, judge, row, mail, now, work, "player/message_parked.txt.j2",
            received_at=row.received_at, attempts=row.attempts,
        )  # fmt: skip
        write_changes(session, work)
    return InboundState.PARKED
