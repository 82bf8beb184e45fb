"""Composing an outgoing mail: an :class:`~judge.mail.outgoing.OutgoingMail` becomes the
RFC 5322 message that the transports write (a Maildir file) or send (SMTP).

A mail without attachments is one text/plain part; with attachments it is
multipart/mixed, the text first and each attachment after it in base64 (an inline one,
the map picture, with ``Content-Disposition: inline`` and a Content-ID, so that mail
programs show it under the text).  No value can
break out of its header field: line breaks become spaces everywhere, non-ASCII text is
encoded (RFC 2047 in Subject and the extra headers, RFC 2231 in a file name).
"""

from __future__ import annotations

import base64
import binascii
import email.policy
import hashlib
import io
import re
import urllib.parse
from email.generator import BytesGenerator
from email.header import Header
from email.message import Message
from email.utils import format_datetime, formataddr, quote

from judge.mail.outgoing import Attachment, OutgoingMail

__all__ = ["build_email", "email_bytes"]

# Outgoing mail is a compat32 Message built from values prepared here.  The default
# policy parses every header it is given through email.headerregistry and refolds it when
# the message is written, which made a message cost milliseconds to build and write.
_MAX_LINE = 998  # RFC 5322 limit on a line, in octets, without the CRLF
_FOLD_AT = 78  # compat32 folds header lines longer than this
_MAX_7BIT_LINE = 78  # longer body lines are encoded, as the default policy did
_PLAIN_WORDS = re.compile(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*")
_PRINTABLE = re.compile(r"[\t\x20-\x7e]*")
_TEXT_7BIT = re.compile(r"[\t\n\x20-\x7e]*")
_FIELD_NAME = re.compile(r"[\x21-\x39\x3b-\x7e]+")
_LINE_BREAKS = re.compile(r"[\r\n]+")
# Fields build_email writes itself; mail.headers may not add a second one.
_OWN_FIELDS = frozenset(
    {
        "from", "to", "subject", "date", "message-id", "mime-version", "content-type",
        "content-transfer-encoding",
    }
)  # fmt: skip


def _is_short_plain(name: str, value: str) -> bool:
    """Whether ``name: value`` fits on one line and is printable ASCII words, single
    spaced: compat32 would write it unchanged."""
    return len(name) + len(value) + 2 <= _FOLD_AT and bool(_PLAIN_WORDS.fullmatch(value))


class _SendPolicy(email.policy.Compat32):
    """compat32 for writing the judge's mail.

    A short header line of plain words is written as it is: compat32 would run it through
    ``Header.encode`` only to get the same line back, which was most of the cost of
    writing a message.  Everything else is folded by compat32.
    """

    # smtplib.send_message clones the policy with utf8=True for an internationalised
    # recipient; compat32 has no such setting (and needs none: such an address is already
    # held as UTF-8), so the attribute only has to exist.
    utf8 = False

    def fold(self, name: str, value: str) -> str:
        """The header line of ``name`` and ``value``, folded where needed."""
        if isinstance(value, str) and _is_short_plain(name, value):
            return f"{name}: {value}{self.linesep}"
        return super().fold(name, value)

    def fold_binary(self, name: str, value: str) -> bytes:
        """:meth:`fold` as bytes; 8-bit text (surrogate-escaped) is written as it is."""
        if isinstance(value, str) and _is_short_plain(name, value):
            return f"{name}: {value}{self.linesep}".encode("ascii")
        return super().fold_binary(name, value)


# No mbox "From " escaping: nothing here is an mbox, and the body must arrive as written.
_POLICY = _SendPolicy(mangle_from_=False)


def _one_line(value: object) -> str:
    """``value`` as text without CR or LF, so it cannot end its header field early."""
    return _LINE_BREAKS.sub(" ", str(value))


def _text_value(name: str, value: object, *, free_text: bool = False) -> str | Header:
    """A header value: the Subject (``free_text``) or one of the outbox's extra headers.

    Printable ASCII is written as it is, folded at its spaces when long; anything else, or
    a word too long to fit on a line, becomes RFC 2047 encoded words, which may be split
    anywhere and so always fold.  In free text a literal ``=?`` is encoded too, or a
    reader would decode what looks like an encoded word; the extra headers (message ids,
    keywords) keep theirs.
    """
    text = _one_line(value)
    longest = max((len(word) for word in text.split()), default=0)
    if (
        _PRINTABLE.fullmatch(text)
        and longest <= _MAX_LINE - len(name) - 2
        and not (free_text and "=?" in text)
    ):
        return text
    return Header(text, "utf-8", header_name=name)


def _address_value(value: str) -> str:
    """An address field's value.  A non-ASCII (internationalised) address has no 7-bit
    form: it is written as UTF-8 (RFC 6532), which compat32 does for surrogate-escaped
    bytes, and which smtplib sends with SMTPUTF8."""
    text = _one_line(value)
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("ascii", "surrogateescape")


def _from_value(name: str, address: str) -> str:
    """``Name <address>``, the name quoted or RFC 2047 encoded as it needs."""
    name = _one_line(name)
    if address.isascii():
        return _address_value(formataddr((name, address)))
    if not name:
        return _address_value(address)
    # formataddr refuses a non-ASCII address: let it format the name beside a stand-in.
    shown = formataddr((name, "_")).removesuffix("<_>")
    return _address_value(f"{shown}<{address}>")


def _body(text: str) -> tuple[str, str]:
    """(Content-Transfer-Encoding, encoded body) of a UTF-8 text/plain body.

    Line ends become newlines (CR LF, CR and LF alike) and the body ends with one, as
    before.  Short lines of printable ASCII go as they are (7bit); anything else is
    quoted-printable or base64, whichever is shorter, so no relay needs 8BITMIME and no
    line exceeds 76 characters.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.endswith("\n"):
        text += "\n"
    if _TEXT_7BIT.fullmatch(text) and all(len(line) <= _MAX_7BIT_LINE for line in text.split("\n")):
        return "7bit", text
    data = text.encode("utf-8")
    quoted = binascii.b2a_qp(data)
    encoded = base64.encodebytes(data)
    if len(quoted) <= len(encoded):
        return "quoted-printable", quoted.decode("ascii")
    return "base64", encoded.decode("ascii")


# A MIME type as RFC 2045 writes it: two tokens; multipart and message types are not sent
# as attachments (they may not be base64 encoded).
_MIME_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_MIME_TYPE = re.compile(f"{_MIME_TOKEN}/{_MIME_TOKEN}")
# Path separators, and the angle brackets a reader strips from a parameter value written
# "<...>" (Python's email package does: "<map>.png" would arrive as "map>.png"... or "").
_PATH_SEPARATORS = re.compile(r"[/\\<>]")
_DISPOSITION = "Content-Disposition"
# The right side of a Message-ID the judge wrote (a domain); anything else is not copied
# into a Content-ID.
_DOMAIN = re.compile(r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*")


def _content_id(message_id: str, number: int) -> str:
    """The Content-ID of the mail's ``number``-th attachment (from 1): the same for the
    same mail, different from every other mail's (RFC 2392 wants it unique)."""
    seed = hashlib.sha256(message_id.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    domain = message_id.strip().removeprefix("<").removesuffix(">").rpartition("@")[2]
    if not _DOMAIN.fullmatch(domain) or len(domain) > 200:
        domain = "judge.invalid"
    return f"<picture{number}.{seed}@{domain}>"


def _attachment_part(
    attachment: Attachment, content_id: str | None = None
) -> Message[str, str | Header]:
    """One attachment as a base64 body part, its file name in Content-Disposition
    (``inline`` for an inline one, which is given ``content_id``).

    Raises ValueError for a MIME type that is not ``type/subtype`` (or is a multipart or
    message type), or a file name that is empty or too long for its header line.
    """
    kind = attachment.content_type.strip().lower()
    if not _MIME_TYPE.fullmatch(kind) or kind.startswith(("multipart/", "message/")):
        raise ValueError(
            f"cannot attach {attachment.filename!r} as {attachment.content_type!r}: the "
            "content type must be a MIME type such as image/png"
        )
    # Line breaks become spaces, as in every header; a path is no business of the reader's.
    name = _PATH_SEPARATORS.sub("_", _one_line(attachment.filename)).strip()
    if not name:
        raise ValueError("an attachment needs a file name")
    shown = "inline" if attachment.inline else "attachment"
    if _PRINTABLE.fullmatch(name) and "\t" not in name and "=?" not in name:
        value = f'="{quote(name)}"'
    else:
        # RFC 2231: UTF-8, percent-encoded, so the value is plain ASCII without spaces (and
        # a literal "=?" is not taken for an RFC 2047 encoded word, as readers do).
        value = "*=utf-8''" + urllib.parse.quote(name, safe="")
    disposition = f"{shown}; filename{value}"
    # The name in Content-Type as well: some mail programs read only that one.
    content_type = f"{kind}; name{value}"
    if max(len(_DISPOSITION) + len(disposition), len("Content-Type") + len(content_type)) + 2 > (
        _MAX_LINE
    ):
        raise ValueError(f"the attachment's file name is too long: {name[:60]!r}...")
    part: Message[str, str | Header] = Message(policy=_POLICY)
    part["Content-Type"] = content_type
    part["Content-Transfer-Encoding"] = "base64"
    part[_DISPOSITION] = disposition
    if attachment.inline and content_id is not None:
        part["Content-ID"] = content_id
    part.set_payload(base64.encodebytes(attachment.data).decode("ascii"))
    return part


def _boundary(message_id: str, parts: list[Message[str, str | Header]]) -> str:
    """A multipart boundary found in no part: the same for the same mail, so that a mail
    sent twice (at least once delivery) is the same bytes twice."""
    texts = [part.as_string() for part in parts]
    seed = hashlib.sha256(message_id.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    counter = 0
    while True:
        boundary = f"=_judge_{seed}_{counter}"
        if not any(boundary in text for text in texts):
            return boundary
        counter += 1


def _head(mail: OutgoingMail) -> list[tuple[str, str | Header]]:
    """The header fields every message starts with: From, To, Subject, Date, Message-ID,
    then ``mail.headers`` in order (ValueError for one :func:`build_email` refuses)."""
    fields: list[tuple[str, str | Header]] = [
        ("From", _from_value(mail.from_name, mail.from_address)),
        ("To", _address_value(mail.to)),
        ("Subject", _text_value("Subject", mail.subject, free_text=True)),
        ("Date", format_datetime(mail.date)),
        ("Message-ID", _one_line(mail.message_id)),
    ]
    for key, value in mail.headers:
        if not _FIELD_NAME.fullmatch(key) or key.lower() in _OWN_FIELDS:
            raise ValueError(f"cannot add header {key!r} to an outgoing message")
        fields.append((key, _text_value(key, value)))
    return fields


def _text_fields(encoding: str) -> list[tuple[str, str | Header]]:
    """The fields that end the header of a message that is only text."""
    return [
        ("Content-Type", 'text/plain; charset="utf-8"'),
        ("Content-Transfer-Encoding", encoding),
        ("MIME-Version", "1.0"),
    ]


def build_email(mail: OutgoingMail) -> Message[str, str | Header]:
    """The RFC 5322 message for ``mail``: a compat32 ``Message`` for ``as_bytes()`` and
    ``smtplib.SMTP.send_message``.

    No value can break out of its header field (line breaks become spaces), non-ASCII
    text in Subject and the extra headers is RFC 2047 encoded, and the text/plain UTF-8
    body decodes to ``mail.body`` (line ends made newlines, a final one added if missing).
    With attachments the message is multipart/mixed: that text part, then each attachment.
    Raises ValueError for an extra header whose name is not a valid field name or which
    would repeat one of the fields written here, and for an attachment
    :func:`_attachment_part` refuses.
    """
    message: Message[str, str | Header] = Message(policy=_POLICY)
    for name, value in _head(mail):
        message[name] = value
    encoding, payload = _body(mail.body)
    if not mail.attachments:
        for name, value in _text_fields(encoding):
            message[name] = value
        message.set_payload(payload)
        return message
    text: Message[str, str | Header] = Message(policy=_POLICY)
    text["Content-Type"] = 'text/plain; charset="utf-8"'
    text["Content-Transfer-Encoding"] = encoding
    text.set_payload(payload)
    parts = [text]
    for number, attachment in enumerate(mail.attachments, 1):
        parts.append(_attachment_part(attachment, _content_id(mail.message_id, number)))
    message["Content-Type"] = f'multipart/mixed; boundary="{_boundary(mail.message_id, parts)}"'
    message["MIME-Version"] = "1.0"
    for part in parts:
        message.attach(part)
    return message


def email_bytes(mail: OutgoingMail, linesep: str = "\n") -> bytes:
    """The bytes of :func:`build_email` (``mail``) as ``email.generator.BytesGenerator``
    writes them with ``linesep`` (``"\n"``: what ``as_bytes()`` gives; ``"\r\n"``: what
    ``smtplib.SMTP.send_message`` sends), without building the message when it is only
    text and every header line is short plain words.

    That is nearly every mail of the judge, and writing it here costs a tenth of building
    and flattening a ``Message``: a burst sends thousands.  Anything else (attachments, a
    field to fold or encode) goes the long way, so the bytes are the same either way.
    Raises ValueError as :func:`build_email` does.
    """
    if not mail.attachments:
        encoding, payload = _body(mail.body)
        fields = _head(mail) + _text_fields(encoding)
        if all(isinstance(value, str) and _is_short_plain(name, value) for name, value in fields):
            # compat32 writes such a line as it is (_SendPolicy.fold); the generator
            # writes each line of the body with linesep, and the encoded body is ASCII
            # with newline line ends (_body).
            lines = [f"{name}: {value}" for name, value in fields]
            head = linesep.join(lines) + linesep + linesep
            return (head + payload.replace("\n", linesep)).encode("ascii")
    buffer = io.BytesIO()
    BytesGenerator(buffer, mangle_from_=False, policy=_POLICY).flatten(
        build_email(mail), linesep=linesep
    )
    return buffer.getvalue()
