"""The message composed from an outgoing-mail value: its headers, its body, its
attachments, and that nothing in a subject, an address or a file name can break out of its
header field."""

from __future__ import annotations

import base64
import email
import email.policy
import io
import re
import smtplib
import struct
import zlib
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from email.generator import BytesGenerator
from email.message import EmailMessage

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.config import SmtpSettings
from judge.mail.compose import build_email, email_bytes
from judge.mail.outgoing import Attachment, OutgoingMail
from judge.mail.smtp_out import SmtpTransport
from judge.mail.transport import PermanentError

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
HEADERS = {
    "Auto-Submitted": "auto-replied",
    "X-Auto-Response-Suppress": "All",
    "Precedence": "bulk",
    "X-Loop": "judge@example.org",
    "In-Reply-To": "<r2@players.example>",
    "References": "<r1@players.example> <r2@players.example>",
}


def outgoing(
    subject: str = "Re: orders",
    body: str = "England: Fleet London -> North Sea.\n",
    to: str = "england@example.org",
    headers: dict[str, str] | None = None,
) -> OutgoingMail:
    """A mail from the Diplomacy Judge, a confirmation by default."""
    return OutgoingMail(
        from_name="Diplomacy Judge",
        from_address="judge@example.org",
        to=to,
        subject=subject,
        body=body,
        message_id="<20261123120000.0123456789abcdef@example.org>",
        date=NOW,
        headers=tuple((HEADERS if headers is None else headers).items()),
    )


def written(mail: OutgoingMail) -> bytes:
    """The message as the Maildir transport writes it."""
    return build_email(mail).as_bytes()


def read(raw: bytes) -> EmailMessage:
    """``raw`` as a player's mail program reads it."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def text_of(message: EmailMessage) -> str:
    """The decoded text/plain body."""
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    content: str = body.get_content()
    return content


def field_names(raw: bytes) -> list[str]:
    """The names of the header fields, in order, as a reader splits them."""
    head = raw.split(b"\n\n", 1)[0]
    return [
        line.split(b":", 1)[0].decode().lower()
        for line in head.split(b"\n")
        if line and line[:1] not in b" \t"
    ]


def test_headers_and_plain_body() -> None:
    raw = written(outgoing())
    assert raw.split(b"\n\n", 1)[0].decode().splitlines() == [
        "From: Diplomacy Judge <judge@example.org>",
        "To: england@example.org",
        "Subject: Re: orders",
        "Date: Mon, 23 Nov 2026 12:00:00 +0000",
        "Message-ID: <20261123120000.0123456789abcdef@example.org>",
        "Auto-Submitted: auto-replied",
        "X-Auto-Response-Suppress: All",
        "Precedence: bulk",
        "X-Loop: judge@example.org",
        "In-Reply-To: <r2@players.example>",
        "References: <r1@players.example> <r2@players.example>",
        'Content-Type: text/plain; charset="utf-8"',
        "Content-Transfer-Encoding: 7bit",
        "MIME-Version: 1.0",
    ]
    assert raw.endswith(b"\n\nEngland: Fleet London -> North Sea.\n")
    assert text_of(read(raw)) == "England: Fleet London -> North Sea.\n"


def test_the_mail_date_is_the_date() -> None:
    # The outbox row's sent_at becomes the mail's date: tests/services/test_outgoing_mail.py.
    mail = replace(outgoing(), date=datetime(2026, 11, 20, 8, 30, tzinfo=UTC))
    assert read(written(mail))["Date"] == "Fri, 20 Nov 2026 08:30:00 +0000"


def test_non_ascii_subject_and_body_are_encoded_for_7bit_relays() -> None:
    body = "Armée Paris -> Bourgogne.\nFrom the judge: “good luck”\n.\n"
    raw = written(outgoing(subject="Résultats: l'armée", body=body))
    assert raw.isascii()
    message = read(raw)
    assert message["Subject"] == "Résultats: l'armée"
    assert message["Content-Transfer-Encoding"] == "quoted-printable"
    assert text_of(message) == body
    # Mostly ASCII stays readable; a body of other scripts is shorter in base64.
    assert b"Arm=C3=A9e Paris -> Bourgogne." in raw
    russian = "Армия Москва -> Севастополь.\n" * 5
    message = read(written(outgoing(body=russian)))
    assert message["Content-Transfer-Encoding"] == "base64"
    assert text_of(message) == russian


def test_from_lines_and_dots_arrive_as_written() -> None:
    body = "From France: A Par-Bur\n.\n..\nFrom \n"
    raw = written(outgoing(body=body))
    assert b"\nFrom France: A Par-Bur\n" in raw and b">From" not in raw
    assert text_of(read(raw)) == body


def test_line_ends_are_normalised_and_a_final_newline_added() -> None:
    assert text_of(read(written(outgoing(body="a\r\nb\rc")))) == "a\nb\nc\n"
    assert text_of(read(written(outgoing(body="")))) == "\n"


def test_long_lines_are_encoded_or_folded() -> None:
    long_id = "<" + "x" * 240 + "@players.example>"
    headers = {**HEADERS, "References": " ".join([long_id] * 30)}
    mail = outgoing(subject="y" * 2000, body="z" * 5000 + "\n" + "w " * 800 + "\n", headers=headers)
    raw = written(mail)
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    message = read(raw)
    assert message["Subject"] == "y" * 2000
    assert " ".join(str(message["References"]).split()) == " ".join([long_id] * 30)
    assert text_of(message) == mail.body


@pytest.mark.parametrize(
    "subject",
    ["Re: x\r\nBcc: evil@example.net", "Re: x\nBcc: evil@example.net", "x\r\n\r\nbody", "x\r\n"],
)
def test_a_subject_cannot_add_a_header(subject: str) -> None:
    raw = written(outgoing(subject=subject))
    assert field_names(raw) == [
        "from", "to", "subject", "date", "message-id", "auto-submitted",
        "x-auto-response-suppress", "precedence", "x-loop", "in-reply-to", "references",
        "content-type", "content-transfer-encoding", "mime-version",
    ]  # fmt: skip
    assert "\n" not in str(read(raw)["Subject"]).strip()


def test_an_address_cannot_add_a_header() -> None:
    raw = written(outgoing(to="england@example.org\r\nBcc: evil@example.net"))
    assert "bcc" not in field_names(raw)
    mail = replace(outgoing(), from_name="J\r\nBcc: evil@example.net", from_address="j@x.org")
    assert "bcc" not in field_names(written(mail))


def test_control_characters_and_literal_encoded_words_survive_in_the_subject() -> None:
    for subject in ("=?utf-8?q?x?=", "a\x00b\x1bc", "北京 =?x?q?y?="):
        raw = written(outgoing(subject=subject))
        assert b"\x00" not in raw and b"\x1b" not in raw
        assert read(raw)["Subject"] == subject


def test_display_names_are_quoted_or_encoded() -> None:
    for name, expected in [
        ("Judge, EU", '"Judge, EU" <judge@example.org>'),
        ("Jüdge", "Jüdge <judge@example.org>"),
        ("", "judge@example.org"),
    ]:
        message = read(written(replace(outgoing(), from_name=name)))
        assert message["From"] == expected
        assert [a.addr_spec for a in message["From"].addresses] == ["judge@example.org"]


class CapturingSMTP(smtplib.SMTP):
    """smtplib's client up to the wire: ``send_message`` runs as it does for a server that
    offers SMTPUTF8, and what it would send is kept."""

    def __init__(self) -> None:
        super().__init__()  # no host: nothing connects
        self.sent: list[tuple[bytes, tuple[str, ...]]] = []

    def ehlo_or_helo_if_needed(self) -> None:
        pass

    def has_extn(self, opt: str) -> bool:
        return opt.lower() in ("smtputf8", "8bitmime")

    def sendmail(
        self,
        from_addr: str,
        to_addrs: str | Sequence[str],
        msg: object,
        mail_options: Sequence[str] = (),
        rcpt_options: Sequence[str] = (),
    ) -> dict[str, tuple[int, bytes]]:
        assert isinstance(msg, bytes)
        self.sent.append((msg, tuple(mail_options)))
        return {}


def test_send_message_writes_crlf_and_dot_lines_as_they_are() -> None:
    client = CapturingSMTP()
    mail = build_email(outgoing(body="A Par-Bur\n.\n"))
    client.send_message(mail, from_addr="judge@example.org", to_addrs=["england@example.org"])
    [(raw, options)] = client.sent
    assert options == ()
    assert raw.endswith(b"\r\n\r\nA Par-Bur\r\n.\r\n") and b"\r\nSubject: Re: orders\r\n" in raw


def test_an_internationalised_recipient_is_written_as_utf8() -> None:
    mail = build_email(outgoing(to="jörg@exämple.de"))
    assert "To: jörg@exämple.de\n".encode() in mail.as_bytes()
    client = CapturingSMTP()
    client.send_message(mail, from_addr="judge@example.org", to_addrs=["jörg@exämple.de"])
    [(raw, options)] = client.sent
    assert "SMTPUTF8" in options
    assert "\r\nTo: jörg@exämple.de\r\n".encode() in raw


def test_extra_headers_may_not_repeat_or_be_malformed() -> None:
    for name in ("To", "subject", "Bad Name", "X:Y", ""):
        with pytest.raises(ValueError):
            build_email(outgoing(headers={name: "x"}))


TEXT = st.text(st.characters(codec="utf-8"), max_size=300) | st.sampled_from(
    ["", "\n", "From me\n", "=?utf-8?q?x?=", " -- \n", "a" * 1200]
)


@FAST
@given(subject=TEXT, body=TEXT)
def test_any_subject_and_body_round_trip(subject: str, body: str) -> None:
    raw = written(outgoing(subject=subject, body=body))
    assert raw.isascii()
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    assert len(field_names(raw)) == 14
    message = read(raw)
    expected = body.replace("\r\n", "\n").replace("\r", "\n")
    assert text_of(message) == (expected if expected.endswith("\n") else expected + "\n")
    # Line breaks become spaces; a reader may also unfold at other line separators.
    got, want = str(message["Subject"]), subject.replace("\r", " ").replace("\n", " ")
    assert got.split() == want.split() or "".join(got.split()) == "".join(want.split())


# --- attachments ---------------------------------------------------------------------------


def png_1x1() -> bytes:
    """A real PNG: one red pixel."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


PNG = png_1x1()


def with_picture(filename: str = "map-S1901M.png", data: bytes = PNG) -> OutgoingMail:
    return replace(outgoing(), attachments=(Attachment(filename, "image/png", data),))


def part_fields(raw: bytes, index: int) -> list[str]:
    """The header field names of body part ``index`` (0: the text) of a multipart mail."""
    boundary = read(raw).get_boundary()
    assert boundary is not None
    part = raw.split(b"--" + boundary.encode() + b"\n")[index + 1]
    return field_names(part)


def test_a_png_attachment_follows_the_text_part() -> None:
    raw = written(with_picture())
    assert raw.isascii() and max(len(line) for line in raw.split(b"\n")) <= 78
    head = raw.split(b"\n\n", 1)[0].decode().splitlines()
    assert head[:11] == written(outgoing()).split(b"\n\n", 1)[0].decode().splitlines()[:11]
    assert head[11].startswith('Content-Type: multipart/mixed; boundary="=_judge_')
    assert head[12:] == ["MIME-Version: 1.0"]
    message = read(raw)
    assert message.get_content_type() == "multipart/mixed"
    text, picture = message.iter_parts()
    assert text.get_content_type() == "text/plain"
    assert text.get_content() == "England: Fleet London -> North Sea.\n"
    assert text_of(message) == "England: Fleet London -> North Sea.\n"
    assert picture.get_content_type() == "image/png"
    assert picture.get_content_disposition() == "attachment"
    assert picture.get_filename() == "map-S1901M.png"
    assert picture["Content-Transfer-Encoding"] == "base64"
    assert picture.get_content() == PNG
    assert part_fields(raw, 1) == [
        "content-type", "content-transfer-encoding", "content-disposition",
    ]  # fmt: skip
    # The same mail is the same bytes (a copy sent again, at least once delivery).
    assert written(with_picture()) == raw


def test_several_attachments_keep_their_order_and_bytes() -> None:
    blobs = [bytes(range(256)) * 40, b"", PNG]
    mail = replace(
        outgoing(body="Armée Paris -> Bourgogne.\n"),
        attachments=tuple(
            Attachment(f"file{n}.bin", "application/octet-stream", blob)
            for n, blob in enumerate(blobs)
        ),
    )
    message = read(written(mail))
    text, *files = message.iter_parts()
    assert text.get_content() == "Armée Paris -> Bourgogne.\n"
    assert text["Content-Transfer-Encoding"] == "quoted-printable"
    assert [f.get_filename() for f in files] == ["file0.bin", "file1.bin", "file2.bin"]
    assert [f.get_content() for f in files] == blobs


def test_an_inline_picture_shows_under_the_text_with_a_content_id() -> None:
    mail = replace(
        outgoing(body="Movement results for Spring of 1901.\n"),
        attachments=(Attachment("ewinter01-S1901M.png", "image/png", PNG, inline=True),),
    )
    raw = written(mail)
    assert raw.isascii() and max(len(line) for line in raw.split(b"\n")) <= 78
    message = read(raw)
    # Still multipart/mixed, the text first: a mail program shows the picture under it.
    assert message.get_content_type() == "multipart/mixed"
    text, picture = message.iter_parts()
    assert text.get_content_type() == "text/plain"
    assert text.get_content() == "Movement results for Spring of 1901.\n"
    boundary = message.get_boundary()
    assert boundary is not None
    part = raw.split(b"--" + boundary.encode() + b"\n")[2]
    head, body = part.split(b"\n\n", 1)
    # The name in Content-Type too: some mail programs (older Outlooks) read only that.
    assert head.decode().splitlines() == [
        'Content-Type: image/png; name="ewinter01-S1901M.png"',
        "Content-Transfer-Encoding: base64",
        'Content-Disposition: inline; filename="ewinter01-S1901M.png"',
        "Content-ID: <picture1.226bb600434542eb@example.org>",
    ]
    assert base64.b64decode(body.split(b"\n--")[0]) == PNG
    assert picture.get_content_disposition() == "inline"
    assert picture.get_filename() == "ewinter01-S1901M.png"
    assert picture.get_content() == PNG
    # The same mail is the same bytes; another mail's picture has another Content-ID.
    assert written(mail) == raw
    other = replace(mail, message_id="<20261123120000.ffff@example.org>")
    _text, other_picture = read(written(other)).iter_parts()
    assert other_picture["Content-ID"] != picture["Content-ID"]


def test_each_inline_picture_has_its_own_content_id_and_an_odd_message_id_is_not_copied() -> None:
    pictures = tuple(
        Attachment(f"g-{code}.png", "image/png", PNG, inline=True) for code in ("F1901M", "W1901A")
    )
    mail = replace(outgoing(), message_id="<x y\r\n@[bad] host>", attachments=pictures)
    _text, first, second = read(written(mail)).iter_parts()
    assert first["Content-ID"].startswith("<picture1.")
    assert second["Content-ID"].startswith("<picture2.")
    assert first["Content-ID"].endswith("@judge.invalid>")
    assert [first.get_filename(), second.get_filename()] == ["g-F1901M.png", "g-W1901A.png"]


@pytest.mark.parametrize(
    ("filename", "shown"),
    [
        ("map.png\r\nBcc: evil@example.net", "map.png Bcc: evil@example.net"),
        ("map.png\r\n\r\n--boundary", "map.png --boundary"),
        ('x"; name="evil.exe', 'x"; name="evil.exe'),
        ("back\\slash.png", "back_slash.png"),
        ("../../etc/passwd", ".._.._etc_passwd"),
        ("carte d'Europe \u2013 printemps 1901.png", "carte d'Europe \u2013 printemps 1901.png"),
        ("地図.png", "地図.png"),
        ("tab\there\x00.png", "tab\there\x00.png"),
    ],
)
@pytest.mark.parametrize("inline", [False, True])
def test_a_file_name_cannot_add_a_header_or_a_path(filename: str, shown: str, inline: bool) -> None:
    mail = with_picture(filename)
    mail = replace(mail, attachments=(replace(mail.attachments[0], inline=inline),))
    raw = written(mail)
    assert raw.isascii()
    assert field_names(raw) == [
        "from", "to", "subject", "date", "message-id", "auto-submitted",
        "x-auto-response-suppress", "precedence", "x-loop", "in-reply-to", "references",
        "content-type", "mime-version",
    ]  # fmt: skip
    assert part_fields(raw, 1) == [
        "content-type", "content-transfer-encoding", "content-disposition",
        *(["content-id"] if inline else []),
    ]  # fmt: skip
    _text, picture = read(raw).iter_parts()
    assert picture.get_content_disposition() == ("inline" if inline else "attachment")
    assert picture.get_filename() == shown
    assert picture.get_content() == PNG


@pytest.mark.parametrize(
    ("attachment", "error"),
    [
        (Attachment("map.png", "image", PNG), "the content type must be a MIME type"),
        (Attachment("map.png", "image/png\r\nBcc: x@y.z", PNG), "must be a MIME type"),
        (Attachment("map.png", "image/png; name=x", PNG), "must be a MIME type"),
        (Attachment("a.eml", "message/rfc822", b"x"), "must be a MIME type"),
        (Attachment("a", "multipart/mixed", b"x"), "must be a MIME type"),
        (Attachment("", "image/png", PNG), "an attachment needs a file name"),
        (Attachment(" \r\n", "image/png", PNG), "an attachment needs a file name"),
        (Attachment("é" * 200 + ".png", "image/png", PNG), "file name is too long"),
    ],
)
def test_a_bad_attachment_is_refused(attachment: Attachment, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        build_email(replace(outgoing(), attachments=(attachment,)))


@FAST
@given(filename=TEXT, data=st.binary(max_size=300))
def test_any_file_name_is_refused_or_arrives_as_one_header_value(
    filename: str, data: bytes
) -> None:
    try:
        raw = written(with_picture(filename, data))
    except ValueError:
        return
    assert raw.isascii()
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    assert len(field_names(raw)) == 13
    assert len(part_fields(raw, 1)) == 3
    _text, picture = read(raw).iter_parts()
    assert picture.get_content() == data
    want = re.sub(r"[/\\<>]", "_", filename.replace("\r", " ").replace("\n", " "))
    got = picture.get_filename()
    assert got is not None
    # A reader may collapse runs of spaces, or unfold at other line separators.
    assert got.split() == want.split() or "".join(got.split()) == "".join(want.split())


# --- the bytes written without building the message (email_bytes) --------------------------


def generated(mail: OutgoingMail, linesep: str) -> bytes:
    """``build_email(mail)`` written by the standard library's generator, as ``as_bytes()``
    writes it (no mbox escaping of "From " lines), with ``linesep``."""
    buffer = io.BytesIO()
    BytesGenerator(buffer, mangle_from_=False).flatten(build_email(mail), linesep=linesep)
    return buffer.getvalue()


SAMPLES = [
    outgoing(),
    outgoing(headers={}),
    outgoing(body=""),
    outgoing(body="a\r\nb\rc\n\tindented\n.\n..\nFrom me\n"),
    outgoing(body="Armée Paris -> Bourgogne.\n"),
    outgoing(body="Армия Москва -> Севастополь.\n" * 5),
    outgoing(body="z" * 5000 + "\n"),
    outgoing(subject="Résultats: l'armée"),
    outgoing(subject="=?utf-8?q?x?="),
    outgoing(subject="two  spaces"),
    outgoing(subject=" leading space"),
    outgoing(subject="y" * 70),
    outgoing(subject="Re: x\r\nBcc: evil@example.net"),
    outgoing(to="jörg@exämple.de"),
    outgoing(to="england@example.org\r\nBcc: evil@example.net"),
    outgoing(headers={**HEADERS, "References": " ".join(["<" + "x" * 40 + "@p.example>"] * 9)}),
    outgoing(headers={"Bcc": "hidden@example.org", "X-Note": "naïve"}),
    replace(outgoing(), from_name="Judge, EU"),
    replace(outgoing(), from_name="Jüdge"),
    replace(outgoing(), from_name=""),
    replace(outgoing(), message_id="<x y\r\n@[bad] host>"),
    with_picture(),
    replace(with_picture(), attachments=(Attachment("g-S1901M.png", "image/png", PNG, True),)),
]


@pytest.mark.parametrize("linesep", ["\n", "\r\n"])
@pytest.mark.parametrize("mail", SAMPLES)
def test_email_bytes_are_the_bytes_the_generator_writes(mail: OutgoingMail, linesep: str) -> None:
    assert email_bytes(mail, linesep) == generated(mail, linesep)
    if linesep == "\n":
        assert email_bytes(mail) == build_email(mail).as_bytes()


@FAST
@given(
    subject=TEXT,
    body=TEXT,
    to=st.sampled_from(["england@example.org", "jörg@exämple.de", "a@b.c\r\nX: y"]),
    extra=st.dictionaries(
        st.sampled_from(["In-Reply-To", "References", "X-Loop", "Bcc", "Keywords"]), TEXT
    ),
)
def test_any_mail_is_the_same_bytes_either_way(
    subject: str, body: str, to: str, extra: dict[str, str]
) -> None:
    mail = outgoing(subject=subject, body=body, to=to, headers={**HEADERS, **extra})
    for linesep in ("\n", "\r\n"):
        assert email_bytes(mail, linesep) == generated(mail, linesep)


def test_email_bytes_refuse_what_build_email_refuses() -> None:
    for name in ("To", "subject", "Bad Name", "X:Y", ""):
        with pytest.raises(ValueError, match="cannot add header"):
            email_bytes(outgoing(headers={name: "x"}))
    with pytest.raises(ValueError, match="must be a MIME type"):
        email_bytes(replace(outgoing(), attachments=(Attachment("m.png", "image", PNG),)))


class CapturingTransport(SmtpTransport):
    """The SMTP transport talking to a :class:`CapturingSMTP` (or ``client``)."""

    def __init__(self, client: CapturingSMTP | None = None) -> None:
        super().__init__(SmtpSettings(host="relay.invalid", port=25, security="none"))
        self.client = client or CapturingSMTP()

    def _connect(self) -> smtplib.SMTP:
        return self.client


@pytest.mark.parametrize("mail", SAMPLES)
def test_the_transport_sends_the_written_bytes(mail: OutgoingMail) -> None:
    """What the server gets: the bytes of the message with CRLF line ends, without a Bcc
    field, and with the options smtplib's ``send_message`` gave (SMTPUTF8 for a non-ASCII
    address); the same bytes as ``send_message`` sent but for its ">From " escaping."""
    transport = CapturingTransport()
    transport.send(mail)
    [(raw, options)] = transport.client.sent
    unsent = ("bcc", "resent-bcc")
    kept = tuple((name, value) for name, value in mail.headers if name.lower() not in unsent)
    assert raw == email_bytes(replace(mail, headers=kept), "\r\n")
    before = CapturingSMTP()
    before.send_message(build_email(mail), from_addr=mail.from_address, to_addrs=[mail.to])
    [(old_raw, old_options)] = before.sent
    assert options == old_options
    assert options == (() if mail.to.isascii() else ("SMTPUTF8", "BODY=8BITMIME"))
    assert raw == old_raw.replace(b"\r\n>From ", b"\r\nFrom ")
    assert b"hidden@example.org" not in raw


class NoUtf8SMTP(CapturingSMTP):
    """A server that does not offer SMTPUTF8."""

    def has_extn(self, opt: str) -> bool:
        return opt.lower() == "8bitmime"


def test_a_non_ascii_address_needs_smtputf8() -> None:
    transport = CapturingTransport(NoUtf8SMTP())
    with pytest.raises(PermanentError) as refused:
        transport.send(outgoing(to="jörg@exämple.de"))
    assert str(refused.value) == (
        "relay.invalid:25: the address jörg@exämple.de is not ASCII and the server does not "
        "offer SMTPUTF8"
    )
    transport = CapturingTransport(NoUtf8SMTP())
    transport.send(outgoing())
    assert len(transport.client.sent) == 1
