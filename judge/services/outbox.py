"""The outbox: services queue mail here in their own transaction; a sender delivers it."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from judge.db.models import OutboundMessage
from judge.render import RenderedMail
from judge.services.context import Judge


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
) -> OutboundMessage:
    """Add one email to the outbox (the caller's transaction commits it)."""
    headers = {
        "Auto-Submitted": "auto-replied" if in_reply_to else "auto-generated",
        "X-Auto-Response-Suppress": "All",
        "Precedence": "bulk",
        "X-Loop": judge.settings.address,
    }
    if in_reply_to:
        headers["In-Reply-To"] = in_reply_to
        headers["References"] = " ".join([*references, in_reply_to])
    message = OutboundMessage(
        message_id=new_message_id(judge, now),
        to_addr=to,
        subject=mail.subject,
        body=mail.body,
        headers=headers,
        kind=kind,
        game_id=game_id,
        inbound_id=inbound_id,
        state="queued",
        attempts=0,
        created_at=now,
    )
    session.add(message)
    return message


class Transport(Protocol):
    """Delivers one outbound message; raises on failure."""

    def send(self, message: OutboundMessage, judge: Judge, now: datetime) -> None:
        """Deliver ``message``; must be idempotent for the same Message-ID."""


def deliver_pending(
    sessions: sessionmaker[Session],
    judge: Judge,
    transport: Transport,
    now: Callable[[], datetime],
    limit: int = 500,
) -> int:
    """Deliver queued mail, one committed transaction per message; return how many went."""
    sent = 0
    with sessions() as session:
        ids = list(
            session.scalars(
                select(OutboundMessage.id)
                .where(OutboundMessage.state == "queued")
                .order_by(OutboundMessage.id)
                .limit(limit)
            )
        )
    for message_id in ids:
        with sessions() as session, session.begin():
            message = session.get(OutboundMessage, message_id)
            if message is None or message.state != "queued":
                continue
            message.attempts += 1
            try:
                transport.send(message, judge, now())
            except Exception as err:  # recorded; retried by the next run
                message.last_error = f"{type(err).__name__}: {err}"
                continue
            message.state = "sent"
            message.sent_at = now()
            sent += 1
    return sent
