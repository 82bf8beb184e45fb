"""Fuzzing the mail decoder: any bytes at all, random MIME trees and random headers.

:func:`judge.mail.decode.decode` must never raise, must return in a bounded time, and
its values must be well-formed: the sender is empty or one well-formed address, every
text is a string without NUL bytes or lone surrogates, header values are on one line.
"""

from __future__ import annotations

import re
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.mail.decode import IncomingMail, decode, header_block, read_body

_ADDRESS = re.compile(r"[^\s@<>,;\x00-\x1f\x7f]+@[^\s@<>,;\x00-\x1f\x7f]+|\"[^\"\x00-\x1f]*\"@\S+")
_FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check(mail: IncomingMail) -> None:
    assert isinstance(mail.text, str)
    assert "\x00" not in mail.text
    assert mail.sender == "" or _ADDRESS.fullmatch(mail.sender), mail.sender
    assert mail.from_addr == "" or "\x00" not in mail.from_addr
    assert "\n" not in mail.subject and "\r" not in mail.subject
    for name, value in mail.header_list:
        assert "\n" not in value and "\r" not in value and "\n" not in name
    for text in (mail.text, mail.subject, mail.sender, *mail.unread_parts):
        text.encode("utf-8")  # no lone surrogates
    if not mail.sender:
        assert isinstance(mail.sender_problem, str)
    body = read_body(mail.text, mail.subject)
    assert len(body.lines) + len(body.left_out) == len(mail.text.splitlines())


def _timed(raw: bytes) -> IncomingMail:
    start = time.perf_counter()
    mail = decode(raw)
    assert time.perf_counter() - start < 2.0
    return mail


@_FUZZ
@given(st.binary(max_size=4000))
def test_random_bytes(raw: bytes) -> None:
    _check(_timed(raw))
    _check(_timed(header_block(raw)))


_NAMES = st.sampled_from(
    ["From", "Reply-To", "Subject", "Message-ID", "In-Reply-To", "References", "Content-Type",
     "Content-Transfer-Encoding", "Content-Disposition", "X-Loop", "Auto-Submitted", "To"]
)  # fmt: skip
_VALUE_PIECES = st.sampled_from(
    ["a@b.org", "<a@b.org>", '"', "<", ">", "(", ")", ",", ";", ":", "@", "\x00", "\x01",
     "=?utf-8?q?a=40b.org?=", "=?utf-8?b?QUJD?=", " ", "\t", "\r\n ", "é", "multipart/mixed",
     "boundary=b", "text/plain", "charset=utf-8", "Ann", "Re:", "[2]", "base64", "\\"]
)  # fmt: skip
_VALUES = st.lists(_VALUE_PIECES, max_size=12).map("".join)


@_FUZZ
@given(st.lists(st.tuples(_NAMES, _VALUES), max_size=10), st.binary(max_size=300))
def test_random_headers(fields: list[tuple[str, str]], body: bytes) -> None:
    head = "".join(f"{name}: {value}\r\n" for name, value in fields)
    _check(_timed(head.encode("utf-8") + b"\r\n" + body))


def _part(draw: st.DrawFn, depth: int) -> bytes:
    kind = draw(st.sampled_from(["text", "html", "multipart", "message", "binary"]))
    if kind == "multipart" and depth < 6:
        boundary = f"b{depth}{draw(st.integers(0, 9))}".encode()
        subtype = draw(st.sampled_from([b"mixed", b"alternative", b"related", b"signed"]))
        parts = [_part(draw, depth + 1) for _ in range(draw(st.integers(0, 4)))]
        inner = b"".join(b"--" + boundary + b"\r\n" + part + b"\r\n" for part in parts)
        closing = b"--" + boundary + b"--\r\n" if draw(st.booleans()) else b""
        return (
            b"Content-Type: multipart/" + subtype + b"; boundary=" + boundary + b"\r\n\r\n"
            + inner + closing
        )  # fmt: skip
    if kind == "message":
        return b"Content-Type: message/rfc822\r\n\r\nFrom: x@y.org\r\nSubject: old\r\n\r\nold\r\n"
    if kind == "html":
        return b"Content-Type: text/html\r\n\r\n<div>A Par-Bur<br><blockquote>x</blockquote>\r\n"
    if kind == "binary":
        data = draw(st.binary(max_size=60))
        return (
            b"Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + data
        )
    encoding = draw(st.sampled_from([b"7bit", b"base64", b"quoted-printable", b"x-junk"]))
    text = draw(st.text(max_size=60)).encode("utf-8", "surrogatepass")
    return (
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: "
        + encoding
        + b"\r\n\r\n"
        + text
    )


@st.composite
def _messages(draw: st.DrawFn) -> bytes:
    return b"From: Ann <ann@example.org>\r\nSubject: orders\r\n" + _part(draw, 0)


@_FUZZ
@given(_messages())
def test_random_mime_structures(raw: bytes) -> None:
    mail = _timed(raw)
    _check(mail)
    assert mail.sender == "ann@example.org"
