"""The outgoing message built from an outbox row: its headers, its body, and that nothing in
a subject or an address can break out of its header field."""

from __future__ import annotations

import email
import email.policy
import smtplib
from collections.abc import Sequence
from datetime import UTC, datetime
from email.message import EmailMessage

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.config import JudgeSettings
from judge.db import OutboundMessage
from judge.mail.maildir import build_email
from judge.services.context import Judge

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
JUDGE = Judge(settings=JudgeSettings(name="Diplomacy Judge", address="judge@example.org"))
HEADERS = {
    "Auto-Submitted": "auto-replied",
    "X-Auto-Response-Suppress": "All",
    "Precedence": "bulk",
    "X-Loop": "judge@example.org",
    "In-Reply-To": "<r2@players.example>",
    "References": "<r1@players.example> <r2@players.example>",
}


def outbox_row(
    subject: str = "Re: orders",
    body: str = "England: Fleet London -> North Sea.\n",
    to: str = "england@example.org",
    headers: dict[str, str] | None = None,
) -> OutboundMessage:
    """An unsaved outbox row, a confirmation by default."""
    return OutboundMessage(
        message_id="<20261123120000.0123456789abcdef@example.org>",
        to_addr=to,
        subject=subject,
        body=body,
        headers=HEADERS if headers is None else headers,
    )


def written(row: OutboundMessage, judge: Judge = JUDGE) -> bytes:
    """The message as the Maildir transport writes it."""
    return build_email(row, judge, NOW).as_bytes()


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
    raw = written(outbox_row())
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


def test_sent_at_is_the_date() -> None:
    row = outbox_row()
    row.sent_at = datetime(2026, 11, 20, 8, 30, tzinfo=UTC)
    assert read(written(row))["Date"] == "Fri, 20 Nov 2026 08:30:00 +0000"


def test_non_ascii_subject_and_body_are_encoded_for_7bit_relays() -> None:
    body = "Armée Paris -> Bourgogne.\nFrom the judge: “good luck”\n.\n"
    raw = written(outbox_row(subject="Résultats: l'armée", body=body))
    assert raw.isascii()
    message = read(raw)
    assert message["Subject"] == "Résultats: l'armée"
    assert message["Content-Transfer-Encoding"] == "quoted-printable"
    assert text_of(message) == body
    # Mostly ASCII stays readable; a body of other scripts is shorter in base64.
    assert b"Arm=C3=A9e Paris -> Bourgogne." in raw
    russian = "Армия Москва -> Севастополь.\n" * 5
    message = read(written(outbox_row(body=russian)))
    assert message["Content-Transfer-Encoding"] == "base64"
    assert text_of(message) == russian


def test_from_lines_and_dots_arrive_as_written() -> None:
    body = "From France: A Par-Bur\n.\n..\nFrom \n"
    raw = written(outbox_row(body=body))
    assert b"\nFrom France: A Par-Bur\n" in raw and b">From" not in raw
    assert text_of(read(raw)) == body


def test_line_ends_are_normalised_and_a_final_newline_added() -> None:
    assert text_of(read(written(outbox_row(body="a\r\nb\rc")))) == "a\nb\nc\n"
    assert text_of(read(written(outbox_row(body="")))) == "\n"


def test_long_lines_are_encoded_or_folded() -> None:
    long_id = "<" + "x" * 240 + "@players.example>"
    headers = {**HEADERS, "References": " ".join([long_id] * 30)}
    row = outbox_row(
        subject="y" * 2000, body="z" * 5000 + "\n" + "w " * 800 + "\n", headers=headers
    )
    raw = written(row)
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    message = read(raw)
    assert message["Subject"] == "y" * 2000
    assert " ".join(str(message["References"]).split()) == " ".join([long_id] * 30)
    assert text_of(message) == row.body


@pytest.mark.parametrize(
    "subject",
    ["Re: x\r\nBcc: evil@example.net", "Re: x\nBcc: evil@example.net", "x\r\n\r\nbody", "x\r\n"],
)
def test_a_subject_cannot_add_a_header(subject: str) -> None:
    raw = written(outbox_row(subject=subject))
    assert field_names(raw) == [
        "from", "to", "subject", "date", "message-id", "auto-submitted",
        "x-auto-response-suppress", "precedence", "x-loop", "in-reply-to", "references",
        "content-type", "content-transfer-encoding", "mime-version",
    ]  # fmt: skip
    assert "\n" not in str(read(raw)["Subject"]).strip()


def test_an_address_cannot_add_a_header() -> None:
    raw = written(outbox_row(to="england@example.org\r\nBcc: evil@example.net"))
    assert "bcc" not in field_names(raw)
    judge = Judge(settings=JudgeSettings(name="J\r\nBcc: evil@example.net", address="j@x.org"))
    assert "bcc" not in field_names(written(outbox_row(), judge))


def test_control_characters_and_literal_encoded_words_survive_in_the_subject() -> None:
    for subject in ("=?utf-8?q?x?=", "a\x00b\x1bc", "北京 =?x?q?y?="):
        raw = written(outbox_row(subject=subject))
        assert b"\x00" not in raw and b"\x1b" not in raw
        assert read(raw)["Subject"] == subject


def test_display_names_are_quoted_or_encoded() -> None:
    for name, expected in [
        ("Judge, EU", '"Judge, EU" <judge@example.org>'),
        ("Jüdge", "Jüdge <judge@example.org>"),
        ("", "judge@example.org"),
    ]:
        judge = Judge(settings=JudgeSettings(name=name, address="judge@example.org"))
        message = read(written(outbox_row(), judge))
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
    mail = build_email(outbox_row(body="A Par-Bur\n.\n"), JUDGE, NOW)
    client.send_message(mail, from_addr="judge@example.org", to_addrs=["england@example.org"])
    [(raw, options)] = client.sent
    assert options == ()
    assert raw.endswith(b"\r\n\r\nA Par-Bur\r\n.\r\n") and b"\r\nSubject: Re: orders\r\n" in raw


def test_an_internationalised_recipient_is_written_as_utf8() -> None:
    mail = build_email(outbox_row(to="jörg@exämple.de"), JUDGE, NOW)
    assert "To: jörg@exämple.de\n".encode() in mail.as_bytes()
    client = CapturingSMTP()
    client.send_message(mail, from_addr="judge@example.org", to_addrs=["jörg@exämple.de"])
    [(raw, options)] = client.sent
    assert "SMTPUTF8" in options
    assert "\r\nTo: jörg@exämple.de\r\n".encode() in raw


def test_extra_headers_may_not_repeat_or_be_malformed() -> None:
    for name in ("To", "subject", "Bad Name", "X:Y", ""):
        with pytest.raises(ValueError):
            build_email(outbox_row(headers={name: "x"}), JUDGE, NOW)


TEXT = st.text(st.characters(codec="utf-8"), max_size=300) | st.sampled_from(
    ["", "\n", "From me\n", "=?utf-8?q?x?=", " -- \n", "a" * 1200]
)


@FAST
@given(subject=TEXT, body=TEXT)
def test_any_subject_and_body_round_trip(subject: str, body: str) -> None:
    raw = written(outbox_row(subject=subject, body=body))
    assert raw.isascii()
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    assert len(field_names(raw)) == 14
    message = read(raw)
    expected = body.replace("\r\n", "\n").replace("\r", "\n")
    assert text_of(message) == (expected if expected.endswith("\n") else expected + "\n")
    # Line breaks become spaces; a reader may also unfold at other line separators.
    got, want = str(message["Subject"]), subject.replace("\r", " ").replace("\n", " ")
    assert got.split() == want.split() or "".join(got.split()) == "".join(want.split())
