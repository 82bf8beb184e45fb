"""The outbox: services queue mail here in their own transaction; a sender delivers it.

Two halves live here, both use cases on the ``outbox`` table:

- **writing the outbox**, called by every service that sends mail: :func:`queue_mail`
  (one row, or many collected with ``into`` and written by :func:`insert_outbox`);
- **the delivery bookkeeping**, called by the sender (:mod:`judge.runtime.sender`, the
  long-running loop that talks to a transport): which mail is due, claiming it, giving it
  back, recording it sent or failed (a given-up message tells its game's master), purging
  sent passwords, and :func:`outgoing_mail`, the plain value a transport is given for a
  row.  Each of these is one short transaction of its own.

Retrying, the sent-mail journal and the sender's identity (process tokens) are the
process's business and live with the loop in :mod:`judge.runtime.sender`.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from sqlalchemy.orm import Session, sessionmaker

from judge.config import JudgeSettings
from judge.db import queries
from judge.db.models import Game, OutboundMessage, OutboundState
from judge.db.session import read_only
from judge.mail.outgoing import Attachment, OutgoingMail
from judge.mail.transport import PermanentError, TransientError
from judge.render import RenderedMail
from judge.services import pictures, presence
from judge.services.audience import Audience, recipients
from judge.services.context import Judge

__all__ = [
    "PURGED_BODY",
    "Claimed",
    "claim_messages",
    "confirm_claims",
    "due_message_ids",
    "insert_outbox",
    "new_message_id",
    "outgoing_mail",
    "picture_blobs",
    "purge_secrets",
    "queue_mail",
    "record_failure",
    "record_sent",
    "release_gone_senders",
    "release_messages",
]

log = logging.getLogger(__name__)

#: What the body of a mail that carried a password (``secret``) becomes once it is sent
#: or given up (:func:`purge_secrets`).
PURGED_BODY = (
    "(This mail held a password. Its text was removed from the judge's records once it "
    "was sent; the subject, the address and the times are kept.)\n"
)

#: A claimed message and the ``next_attempt_at`` it had before the claim.
Claimed = tuple[OutboundMessage, datetime | None]


def new_message_id(judge: Judge, now: datetime, *, timeless: bool = False) -> str:
    """A unique Message-ID in the judge's domain; ``timeless``: random only, without the
    time it was written (press, whose writing time would point to its sender)."""
    domain = judge.settings.address.rpartition("@")[2] or "localhost"
    if timeless:
        return f"<{secrets.token_hex(16)}@{domain}>"
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
    timeless: bool = False,
    not_before: datetime | None = None,
    attachments: Sequence[Mapping[str, object]] = (),
) -> str:
    """Add one email to the outbox (the caller's transaction commits it); return its
    Message-ID.

    With ``into``, the row is added to that list instead, for the caller to write with
    :func:`insert_outbox` (one statement for many) before anything reads the outbox.
    ``secret``: the body holds a password, purged once the mail is sent (or given up).
    ``timeless``: a Message-ID without the time (:func:`new_message_id`); ``not_before``:
    not delivered before then (a grey press held so that its arrival does not match its
    sender's other mail).  ``attachments``: the pictures it carries, each
    ``{"picture": <Picture.id>, "filename": "<game>-<phase>.png"}``, in order.
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
    message_id = new_message_id(judge, now, timeless=timeless)
    row: dict[str, object] = {
        "message_id": message_id,
        "to_addr": to,
        "subject": mail.subject,
        "body": mail.body,
        "headers": headers,
        "kind": kind,
        "game_id": game_id,
        "inbound_id": inbound_id,
        "state": OutboundState.QUEUED,
        "attempts": 0,
        "created_at": now,
        "secret": secret,
        "next_attempt_at": not_before,
        # Every row has every key: insert_outbox writes many in one statement.
        "attachments": [dict(a) for a in attachments] or None,
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


def outgoing_mail(
    message: OutboundMessage,
    settings: JudgeSettings,
    now: datetime,
    pictures: Mapping[int, bytes | None] | None = None,
) -> OutgoingMail:
    """The mail a transport sends for the outbox row ``message``: from the judge named by
    ``settings``, dated when it was sent (a copy sent again keeps its date) or ``now``,
    with the pictures its row names, inline PNGs, their bytes from ``pictures`` (by id,
    :func:`picture_blobs`).  A picture that is gone (its game deleted), or that could not
    be drawn (None), is left out, and logged: the mail goes without it rather than stay
    in the outbox.
    """
    attachments: list[Attachment] = []
    for entry in message.attachments or ():
        picture = entry.get("picture") if isinstance(entry, Mapping) else None
        known = pictures or {}
        data = known.get(picture) if isinstance(picture, int) else None
        if data is None:
            log.warning(
                "mail %s to %s: its picture %s (%s) %s; sent without it",
                message.message_id, message.to_addr, picture, entry.get("filename"),
                "could not be drawn" if picture in known else "is gone",
            )  # fmt: skip
            continue
        attachments.append(Attachment(str(entry["filename"]), "image/png", data, inline=True))
    return OutgoingMail(
        from_name=settings.name,
        from_address=settings.address,
        to=message.to_addr,
        subject=message.subject,
        body=message.body,
        message_id=message.message_id,
        date=message.sent_at or now,
        headers=tuple((str(k), str(v)) for k, v in (message.headers or {}).items()),
        attachments=tuple(attachments),
    )


def picture_blobs(
    sessions: sessionmaker[Session], messages: Sequence[OutboundMessage], *, judge: Judge
) -> dict[int, bytes | None]:
    """The bytes of the pictures ``messages`` carry, by id, each read once however many
    of them carry it (a results picture goes to every player); no read at all when none
    carries one.  A picture the mail asked for and nobody drew yet is drawn now, once,
    outside any write transaction, and stored (:func:`judge.services.pictures.draw_pictures`);
    None for one that could not be drawn (the mail goes without it)."""
    ids = {
        entry["picture"]
        for message in messages
        for entry in message.attachments or ()
        if isinstance(entry, Mapping) and isinstance(entry.get("picture"), int)
    }
    if not ids:
        return {}
    with sessions() as session:
        read_only(session)
        found = queries.picture_pngs(session, ids)
    missing = [picture for picture, png in found.items() if png is None]
    if missing:
        found.update(pictures.draw_pictures(sessions, judge, missing))
    return found


def due_message_ids(sessions: sessionmaker[Session], at: datetime, limit: int) -> list[int]:
    """The ids of the queued messages due at ``at`` (oldest first), at most ``limit``."""
    with sessions() as session:
        read_only(session)
        return list(queries.due_outbox_ids(session, at, limit))


def claim_messages(
    sessions: sessionmaker[Session],
    message_ids: Sequence[int],
    at: datetime,
    until: datetime,
    owner: str,
    *,
    sent: Sequence[tuple[int, datetime]] = (),
) -> list[Claimed]:
    """Take the messages ``message_ids`` that are still queued and due, for sending.

    Returns them oldest first, each with the ``next_attempt_at`` it had before (to give it
    back if the run stops before its turn). The UPDATE's WHERE is the test, so two senders
    cannot both win a message: on PostgreSQL the second waits for the first's row locks and
    then finds the rows changed, on SQLite writers take turns. The attempt is counted now,
    so one that dies with the process still counts; the claim holds them ``until`` then,
    in the name of ``owner``. ``sent`` (ids and times, from the sender's journal) is
    recorded in the same transaction.
    """
    if not message_ids:
        return []
    with sessions() as session, session.begin():
        queries.mark_sent(session, list(sent))
        return list(queries.claim_outbox(session, message_ids, at, until, owner=owner))


def confirm_claims(
    sessions: sessionmaker[Session],
    message_ids: Sequence[int],
    until: datetime,
    owner: str,
    *,
    sent: Sequence[tuple[int, datetime]] = (),
) -> set[int]:
    """Which of the messages ``message_ids`` ``owner`` still holds, their claims renewed
    until ``until``: another judge that took ``owner`` for gone frees them and sends them
    itself.  ``sent`` (the sender's journal) is recorded in the same transaction."""
    with sessions() as session, session.begin():
        queries.mark_sent(session, list(sent))
        return set(queries.hold_outbox(session, message_ids, owner, until))


def release_gone_senders(sessions: sessionmaker[Session], owner: str, at: datetime) -> int:
    """Give back at once the queued mail held at ``at`` by senders that are gone (see
    :mod:`judge.services.presence`), other than ``owner``; return how many."""

    def release(session: Session, gone: set[str]) -> int:
        return sum(queries.release_claims_of(session, token) for token in sorted(gone))

    return presence.free_claims_of_gone(
        sessions, owner, lambda session: queries.outbox_claimants(session, at), release,
        "queued mail(s)",
    )  # fmt: skip


def release_messages(
    sessions: sessionmaker[Session], claimed: Sequence[Claimed], owner: str
) -> None:
    """Give back messages ``owner`` claimed but did not try: their attempt and their place
    again (those it still holds)."""
    if not claimed:
        return
    with sessions() as session, session.begin():
        queries.release_outbox(session, claimed, owner)


def record_sent(sessions: sessionmaker[Session], sent: Sequence[tuple[int, datetime]]) -> None:
    """Mark the messages ``sent`` (ids and the times they went) as sent."""
    if not sent:
        return
    with sessions() as session, session.begin():
        queries.mark_sent(session, list(sent))


def purge_secrets(sessions: sessionmaker[Session]) -> int:
    """Replace the body of every mail that held a password and is now sent or given up
    with :data:`PURGED_BODY`, and clear its flag; return how many.

    Run at the end of a delivery run that tried such a mail, and of one that found
    nothing to send (so also for mail a run before a crash sent): a read through the
    index of flagged mail first, so that a run with nothing to purge writes nothing.
    """
    with sessions() as session:
        read_only(session)
        if not queries.any_secret_done(session):
            return 0
    with sessions() as session, session.begin():
        return queries.purge_secrets(session, PURGED_BODY)


def record_failure(
    sessions: sessionmaker[Session],
    judge: Judge,
    message_id: int,
    at: datetime,
    err: Exception,
    *,
    retry_in: timedelta | None,
    owner: str,
) -> bool:
    """Record ``owner``'s failed attempt: try again ``retry_in`` from ``at``, or give the
    message up.  False, and nothing written, if ``owner`` no longer holds the message:
    another judge took it over (this one was taken for gone), and its claim, or its
    sending, must not be undone by this attempt's outcome."""
    with sessions() as session, session.begin():
        # Locked: on PostgreSQL a judge freeing it waits, or is waited for and seen.
        message = session.get(OutboundMessage, message_id, with_for_update=True)
        if message is None or message.state != OutboundState.QUEUED:
            return False
        if message.claimed_by != owner:
            return False
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
            return True
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
        return True


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
    if game is None or not recipients(session, game, Audience.MASTER, judge):
        log.error("mail %s failed and has no game master to tell", message.message_id)
        return
    # The sending functions queue their mail through this module, so it is imported here.
    from judge.services.mailings import send_mail_undeliverable

    send_mail_undeliverable(
        session, judge, game, at,
        to=message.to_addr, subject=message.subject, message_id=message.message_id,
        written=message.created_at, attempts=message.attempts, reason=reason, refused=refused,
    )  # fmt: skip
