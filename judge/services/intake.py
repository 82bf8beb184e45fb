"""Storing first: every message is stored raw, deduplicated by Message-ID, before anything
else happens (a message too large to read keeps its header and a prefix of its body)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import InboundMessage, InboundState
from judge.mail.decode import (
    IncomingMail,
    decode,
    header_block,
)

#: Of a message larger than ``max_message_bytes``, the bytes of its body stored besides
#: its header (enough to see what it was); its original size is kept in ``size``.
STORED_PREFIX_BYTES = 65536


def receive(
    session: Session, raw: bytes, now: datetime, *, max_bytes: int | None = None
) -> tuple[InboundMessage, bool]:
    """Store a raw message unless one with its Message-ID is already stored.

    Returns the stored row and whether it is new.  The caller commits.  ``max_bytes``:
    of a larger message only the header and a prefix of the body are stored.
    """
    fields = _stored_fields(raw, now, max_bytes)
    existing = queries.inbound_by_message_id(session, str(fields["message_id"]))
    if existing is not None:
        return existing, False
    row = InboundMessage(**fields)
    session.add(row)
    session.flush()
    return row, True


@dataclass(frozen=True)
class Stored:
    """What :func:`receive_many` did with one message."""

    message_id: str
    sender: str | None
    new: bool


def receive_many(
    session: Session, raws: Sequence[bytes], now: datetime, *, max_bytes: int | None = None
) -> list[Stored]:
    """Store raw messages like :func:`receive`, with one query for the Message-IDs already
    stored and one statement for the new rows.  The caller commits."""
    rows = [_stored_fields(raw, now, max_bytes) for raw in raws]
    known = queries.stored_message_ids(session, (str(row["message_id"]) for row in rows))
    done: list[Stored] = []
    new_rows = []
    for row in rows:
        message_id = str(row["message_id"])
        new = message_id not in known
        if new:
            known.add(message_id)  # the same message twice in one fetch
            new_rows.append(row)
        done.append(Stored(message_id, cast("str | None", row["sender"]), new))
    queries.insert_inbound(session, new_rows)
    return done


def _stored_fields(raw: bytes, now: datetime, max_bytes: int | None = None) -> dict[str, object]:
    """The inbound row's columns for a raw message."""
    # Storing needs only the header: the body is decoded once, when the message is read.
    mail = decode(header_block(raw))
    message_id = mail.message_id
    if not message_id or message_id.endswith("@judge.invalid>"):
        # No Message-ID: name the message by all of its bytes, not just its header.
        message_id = f"<{hashlib.sha256(raw).hexdigest()}@judge.invalid>"
    kept = raw
    if max_bytes is not None and len(raw) > max_bytes:
        # Too large to read: what answers it (the header) and a sample for the record.
        kept = header_block(raw) + _body(raw)[:STORED_PREFIX_BYTES]
    return {
        "message_id": message_id,
        "sender": mail.sender or None,
        "subject": mail.subject[:500] or None,
        "raw": kept,
        "size": len(raw),
        "received_at": now,
        "state": InboundState.NEW,
        "attempts": 0,
    }


def _body(raw: bytes) -> bytes:
    """The body of a raw message: what follows the first empty line (none: no body)."""
    crlf, lf = raw.find(b"\r\n\r\n"), raw.find(b"\n\n")
    if lf >= 0 and (crlf < 0 or lf < crlf):
        return raw[lf + 2 :]
    return raw[crlf + 4 :] if crlf >= 0 else b""


def read_stored(raw: bytes, size: int, max_bytes: int) -> IncomingMail:
    """A stored message decoded as processing reads it; of a message larger than
    ``max_bytes`` (``size``: as received), the header alone, which is all that is needed
    to refuse it.  The header is read as storing read it: both go through the decoder's
    caps (:func:`judge.mail.decode.header_block`)."""
    return decode(header_block(raw)) if size > max_bytes else decode(raw)
