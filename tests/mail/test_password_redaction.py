"""Issue 11 item 6: passwords are not kept readable.  Once a message is processed its stored
raw copy has the password of each SIGNON and SET PASSWORD line masked (whatever the
transfer encoding; every other byte kept), and sent mail that carried a password has its
body purged after delivery."""

from __future__ import annotations

import base64
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import compat32, default
from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at, started_game

from judge.db.models import InboundMessage, OrderRecord, OutboundMessage
from judge.mail.decode import decode
from judge.mail.redact import mask_passwords, redact_passwords
from judge.runtime.bootstrap import App
from judge.runtime.sender import deliver_pending
from judge.services.game_file_watch import reload_configs
from judge.services.inbound import process_one
from judge.services.intake import receive
from judge.services.outbox import PURGED_BODY


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    return started_game(tmp_path)


def stored_raw(app: App) -> bytes:
    with app.sessions() as session:
        row = session.scalars(select(InboundMessage).order_by(InboundMessage.id.desc())).first()
        assert row is not None and row.state == "done"
        return row.raw


def active_orders(app: App, power: str) -> list[str]:
    with app.sessions() as session:
        rows = session.scalars(
            select(OrderRecord).where(OrderRecord.active.is_(True)).order_by(OrderRecord.id)
        )
        return [str(r.canonical) for r in rows if r.player.power == power]


def test_a_plain_message_keeps_every_byte_but_the_passwords(game: tuple[App, Table]) -> None:
    app, table = game
    mail = EmailMessage()
    mail["From"] = "england@example.org"
    mail["To"] = "judge@example.org"
    mail["Subject"] = "orders"
    mail["Message-ID"] = "<plain@players.example>"
    mail.set_content(
        "SIGNON Etest01 pw-eng\nSET PASSWORD tea-for-two\nF Lon-NTH\n\n"
        "> SIGNON Etest01 pw-old\n> (quoted from an earlier mail)\n"
    )
    raw = mail.as_bytes()
    table.inject(raw, "2026-11-23 13:00")
    assert active_orders(app, "England") == ["F lon-nth"]
    kept = stored_raw(app)
    assert kept == (
        raw.replace(b"pw-eng", b"******")
        .replace(b"tea-for-two", b"***********")
        .replace(b"pw-old", b"******")
    )
    # The new password works (the message was read before it was redacted).
    table.send("england@example.org", "SIGNON Etest01 tea-for-two\nF Lon-ENG\n",
               "2026-11-23 13:01")  # fmt: skip
    assert active_orders(app, "England") == ["F lon-eng"]
    assert b"tea-for-two" not in stored_raw(app)


def _parts(raw: bytes) -> list[str]:
    message = BytesParser(policy=default).parsebytes(raw)
    return [
        part.get_content()
        for part in message.walk()
        if not part.is_multipart() and part.get_content_maintype() == "text"
    ]


def test_base64_quoted_printable_and_html_parts_are_masked(game: tuple[App, Table]) -> None:
    app, table = game
    password = "s3cret-" + "x" * 56  # a long one, so quoted-printable breaks it across lines
    table.send("england@example.org", f"SIGNON Etest01 pw-eng\nSET PASSWORD {password}\n",
               "2026-11-23 12:59")  # fmt: skip
    mail = EmailMessage()
    mail["From"] = "england@example.org"
    mail["To"] = "judge@example.org"
    mail["Subject"] = "orders"
    mail["Message-ID"] = "<mime@players.example>"
    text = f"Bonjour \u00e9t\u00e9,\nSIGNON Etest01 {password}\nF Lon-NTH\n"
    mail.set_content(text, cte="base64")
    mail.add_alternative(
        f"<div>Bonjour \u00e9t\u00e9,</div><div>SIGNON Etest01 {password}</div>"
        "<div>F Lon-NTH</div>\n",
        subtype="html",
        cte="quoted-printable",
    )
    mail.add_attachment(b"not text: left as sent", maintype="application", subtype="x-data")
    raw = mail.as_bytes()
    assert b"s3cret" in raw and password.encode() not in raw  # quoted-printable soft breaks
    table.inject(raw, "2026-11-23 13:00")
    assert active_orders(app, "England") == ["F lon-nth"]
    kept = stored_raw(app)
    masked = "*" * len(password)
    plain, html = _parts(kept)
    assert plain == f"Bonjour \u00e9t\u00e9,\nSIGNON Etest01 {masked}\nF Lon-NTH\n"
    assert html == (
        f"<div>Bonjour \u00e9t\u00e9,</div><div>SIGNON Etest01 {masked}</div><div>F Lon-NTH</div>\n"
    )
    assert b"s3cret" not in kept
    assert base64.b64encode(password.encode())[:12] not in kept
    # The header and the base64 part's shape are kept as sent: only the part changed.
    assert kept.split(b"\n\n", 1)[0] == raw.split(b"\n\n", 1)[0]
    assert len(kept.split(b"Content-Transfer-Encoding: base64")[1].split(b"--")[0]) == len(
        raw.split(b"Content-Transfer-Encoding: base64")[1].split(b"--")[0]
    )
    # The stored message is still a message the judge reads (audit, replay).
    assert decode(kept).text.splitlines()[1] == f"SIGNON Etest01 {masked}"
    # A second pass changes nothing.
    assert redact_passwords(kept) == kept


def test_masking_keeps_the_power_and_game_and_is_linear() -> None:
    assert mask_passwords("signon F test01 secret\nSign On: france@test01 a b\n") == (
        "signon F test01 ******\nSign On: france@test01 * *\n"
    )
    assert mask_passwords("I will sign on later") == "I will sign on later"
    long_line = "SIGNON Etest01 " + "pw " * 200_000
    assert mask_passwords(long_line) == "SIGNON Etest01 " + "** " * 200_000


def test_an_observers_password_is_masked_and_the_game_kept() -> None:
    assert mask_passwords("OBSERVE test01 look-on\n> watch: test01 old pw\nObserve test01\n") == (
        "OBSERVE test01 *******\n> watch: test01 *** **\nObserve test01\n"
    )
    long_line = "WATCH test01 " + "pw " * 200_000
    assert mask_passwords(long_line) == "WATCH test01 " + "** " * 200_000


def _compat_body(raw: bytes) -> str:
    """The text of a delivered mail (a game start is multipart: its text, then the map)."""
    message = BytesParser(policy=compat32).parsebytes(raw)
    text = next(part for part in message.walk() if part.get_content_type() == "text/plain")
    payload = text.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode()


def test_sent_mail_that_carried_a_password_is_purged(tmp_path: Path) -> None:
    app, _table = started_game(tmp_path)
    with app.sessions() as session:
        rows = list(session.scalars(select(OutboundMessage).order_by(OutboundMessage.id)))
    secret = {r.to_addr for r in rows if r.secret}
    # France's password was made by the judge and mailed; the others' come from the file.
    assert secret == {"france@example.org"}
    assert "paris-123" in next(r.body for r in rows if r.to_addr == "france@example.org")
    sent = deliver_pending(app.sessions, app.judge, app.transport, lambda: at("2026-11-23 12:01"))
    assert sent == 8  # the seven players' game-start mail and the game master's
    with app.sessions() as session:
        rows = list(session.scalars(select(OutboundMessage).order_by(OutboundMessage.id)))
    france = next(r for r in rows if r.to_addr == "france@example.org")
    assert (france.body, france.secret, france.state) == (PURGED_BODY, False, "sent")
    assert not any("paris-123" in r.body for r in rows)
    england = next(r for r in rows if r.to_addr == "england@example.org")
    assert "Your game master has given you the password" in england.body
    # France got it, of course.
    box = tmp_path / "var" / "mail"
    delivered = [p.read_bytes() for p in box.rglob("*") if p.is_file() and "france" in str(p)]
    assert any("paris-123" in _compat_body(raw) for raw in delivered)


def test_a_password_reset_and_a_replacement_are_purged_once_sent(tmp_path: Path) -> None:
    app, _table = started_game(tmp_path)
    deliver_pending(app.sessions, app.judge, app.transport, lambda: at("2026-11-23 12:01"))
    path = tmp_path / "test01.toml"
    path.write_text(
        GAME_FILE.replace('password = "pw-eng"', 'password = "new-eng-pw"').replace(
            'France = "france@example.org"', 'France = "jeanne@example.org"'
        )
    )
    with app.sessions() as session, session.begin():
        reload_configs(session, app.judge, at("2026-11-24 09:00"))
    with app.sessions() as session:
        queued = list(session.scalars(select(OutboundMessage).where(OutboundMessage.secret)))
    assert sorted((r.to_addr, r.kind) for r in queued) == [
        ("england@example.org", "notice"),
        ("jeanne@example.org", "replacement"),
    ]
    deliver_pending(app.sessions, app.judge, app.transport, lambda: at("2026-11-24 09:01"))
    with app.sessions() as session:
        bodies = [r.body for r in session.scalars(select(OutboundMessage))]
        assert session.scalars(select(OutboundMessage).where(OutboundMessage.secret)).all() == []
    assert not any("new-eng-pw" in b or "paris-123" in b for b in bodies)
    assert bodies.count(PURGED_BODY) == 3


def test_an_8bit_body_keeps_its_bytes_but_the_password(game: tuple[App, Table]) -> None:
    app, table = game
    raw = (
        "From: England <england@example.org>\r\nTo: judge@example.org\r\n"
        "Subject: orders\r\nMessage-ID: <8bit@players.example>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        "Grüße,\r\nSIGNON Etest01 pw-eng\r\nF Lon-NTH\r\n"
    ).encode()
    table.inject(raw, "2026-11-23 13:00")
    assert active_orders(app, "England") == ["F lon-nth"]
    assert stored_raw(app) == raw.replace(b"pw-eng", b"******")


def test_the_stored_prefix_of_an_oversized_message_is_masked(game: tuple[App, Table]) -> None:
    # Too large to read, it is refused and only its header and a prefix are kept; a
    # SIGNON line in that prefix must not keep its password readable either.
    app, _table = game
    limit = app.judge.settings.max_message_bytes
    mail = EmailMessage()
    mail["From"] = "england@example.org"
    mail["To"] = "judge@example.org"
    mail["Subject"] = "orders and a big picture"
    mail["Message-ID"] = "<big@players.example>"
    mail.set_content("SIGNON Etest01 pw-eng\nF Lon-NTH\n")
    mail.add_attachment(b"\x89PNG" + b"p" * limit, maintype="image", subtype="png")
    raw = mail.as_bytes()
    with app.sessions() as session, session.begin():
        row, _new = receive(session, raw, at("2026-11-23 13:00"), max_bytes=limit)
        inbound_id = row.id
        assert b"pw-eng" in row.raw and len(row.raw) < limit
    assert process_one(app.sessions, app.judge, inbound_id, at("2026-11-23 13:00")) == "ignored"
    with app.sessions() as session:
        kept = session.get(InboundMessage, inbound_id)
        assert kept is not None and kept.size == len(raw)
        assert kept.reason is not None and kept.reason.startswith("too large")
        assert b"pw-eng" not in kept.raw
        assert b"SIGNON Etest01 ******" in kept.raw


def test_a_message_nested_too_deep_to_parse_is_processed_and_masked(
    game: tuple[App, Table],
) -> None:
    # 5,000 nested multiparts: the decoder reads only the header of such a message, but
    # redacting it parsed the whole with the email package, which recursed too deep, so
    # the message failed (and, tried again, was parked) instead of being answered.
    app, table = game
    head = b"".join(
        b"Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (i, i)
        for i in range(5000)
    )
    raw = (
        b"From: england@example.org\r\nSubject: x\r\nMessage-ID: <deep@players.example>\r\n"
        + head + b"Content-Type: text/plain\r\n\r\nSIGNON Etest01 pw-eng\r\nA Par H\r\n"
    )  # fmt: skip
    assert table.inject(raw, "2026-11-23 13:00") == "done"
    assert stored_raw(app) == raw.replace(b"pw-eng", b"******")
    assert [row.to_addr for row in table.new_mail()] == ["england@example.org"]
