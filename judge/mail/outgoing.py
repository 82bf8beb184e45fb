"""The outgoing-mail value: everything a transport needs to write one email, and nothing
of where it came from (no database row, no judge).

The services turn an outbox row into an :class:`OutgoingMail`
(:func:`judge.services.outbox.outgoing_mail`); :func:`judge.mail.compose.build_email`
turns it into RFC 5322 bytes; a :class:`~judge.mail.transport.Transport` delivers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

__all__ = ["Attachment", "OutgoingMail"]


@dataclass(frozen=True)
class Attachment:
    """A file sent with a mail (the map picture): its name as the reader sees it, its
    MIME type (``image/png``) and its bytes; ``inline``: shown in the message, under the
    text (``Content-Disposition: inline``), rather than offered as a file to save."""

    filename: str
    content_type: str
    data: bytes
    inline: bool = False


@dataclass(frozen=True)
class OutgoingMail:
    """One email to one recipient, ready to be composed and sent.

    ``from_name`` and ``from_address``: the judge (the address is also the envelope
    sender); ``to``: the one recipient; ``body``: the text part; ``date``: the Date header
    (aware); ``headers``: extra fields in order (Auto-Submitted, In-Reply-To, ...), which
    may not repeat the fields the composer writes itself; ``attachments``: sent after the
    text, in order.
    """

    from_name: str
    from_address: str
    to: str
    subject: str
    body: str
    message_id: str
    date: datetime
    headers: tuple[tuple[str, str], ...] = ()
    attachments: tuple[Attachment, ...] = ()
