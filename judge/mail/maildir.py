"""Local delivery: one Maildir per recipient under ``var/mail`` (the embedded default),
so anyone can read what the judge sent without a mail server."""

from __future__ import annotations

import base64
import binascii
import email.policy
import hashlib
import mailbox
import re
from datetime import datetime
from email.header import Header
from email.message import Message
from email.utils import format_datetime, formataddr
from pathlib import Path

from judge.db.models import OutboundMessage
from judge.services.context import Judge

_UNSAFE = re.compile(r"[^a-z0-9@._+-]")


def mailbox_dir(var_dir: Path, address: str) -> Path:
    """The Maildir of ``address``; the address is reduced to safe characters so nothing
    from an email can steer the path."""
    name = _UNSAFE.sub("_", address.strip().lower()).strip(".") or "unknown"
    if name in (".", "..") or ".." in name:
        name = name.replace("..", "_")
    return var_dir / "mail" / name


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
# Fields build_email writes itself; message.headers may not add a second one.
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


def build_email(
    message: OutboundMessage, judge: Judge, now: datetime
) -> Message[str, str | Header]:
    """The RFC 5322 message for an outbox row: a compat32 ``Message`` for
    ``as_bytes()`` and ``smtplib.SMTP.send_message``.

    No value can break out of its header field (line breaks become spaces), non-ASCII
    text in Subject and the extra headers is RFC 2047 encoded, and the text/plain UTF-8
    body decodes to ``message.body`` (line ends made newlines, a final one added if
    missing).
    Raises ValueError for an extra header whose name is not a valid field name or which
    would repeat one of the fields written here.
    """
    settings = judge.settings
    mail: Message[str, str | Header] = Message(policy=_POLICY)
    mail["From"] = _from_value(settings.name, settings.address)
    mail["To"] = _address_value(message.to_addr)
    mail["Subject"] = _text_value("Subject", message.subject, free_text=True)
    mail["Date"] = format_datetime(message.sent_at or now)
    mail["Message-ID"] = _one_line(message.message_id)
    for key, value in (message.headers or {}).items():
        if not _FIELD_NAME.fullmatch(key) or key.lower() in _OWN_FIELDS:
            raise ValueError(f"cannot add header {key!r} to an outgoing message")
        mail[key] = _text_value(key, value)
    encoding, payload = _body(message.body)
    mail["Content-Type"] = 'text/plain; charset="utf-8"'
    mail["Content-Transfer-Encoding"] = encoding
    mail["MIME-Version"] = "1.0"
    mail.set_payload(payload)
    return mail


class MaildirTransport:
    """Delivers into ``<var_dir>/mail/<recipient>/``; idempotent per Message-ID."""

    def __init__(self, var_dir: Path) -> None:
        self.var_dir = var_dir

    def send(self, message: OutboundMessage, judge: Judge, now: datetime) -> None:
        """Write the message unless a copy with its Message-ID is already there."""
        folder = mailbox_dir(self.var_dir, message.to_addr)
        folder.parent.mkdir(parents=True, exist_ok=True)
        box = mailbox.Maildir(folder, create=True)
        # Kept outside the Maildir, whose dot-directories are folders.
        digest = hashlib.sha256(message.message_id.encode()).hexdigest()
        marker = self.var_dir / "delivered" / digest
        if marker.exists():
            return
        box.add(build_email(message, judge, now).as_bytes())
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
