"""An outbox row becomes the plain outgoing-mail value a transport is given: the judge's
name and address from the settings, the row's own fields, and its date."""

from __future__ import annotations

import email
import email.policy
import logging
from datetime import UTC, datetime

import pytest

from judge.config import JudgeSettings
from judge.db import OutboundMessage
from judge.mail.compose import build_email
from judge.mail.outgoing import Attachment, OutgoingMail
from judge.services.outbox import outgoing_mail

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
SETTINGS = JudgeSettings(name="Diplomacy Judge", address="judge@example.org")


def outbox_row() -> OutboundMessage:
    """An unsaved outbox row: a reply, with the headers queue_mail writes, in its order."""
    return OutboundMessage(
        message_id="<20261123120000.0123456789abcdef@example.org>",
        to_addr="england@example.org",
        subject="Re: orders",
        body="England: Fleet London -> North Sea.\n",
        headers={
            "Auto-Submitted": "auto-replied",
            "X-Loop": "judge@example.org",
            "In-Reply-To": "<r2@players.example>",
        },
    )


def test_a_row_becomes_the_mail_a_transport_sends() -> None:
    assert outgoing_mail(outbox_row(), SETTINGS, NOW) == OutgoingMail(
        from_name="Diplomacy Judge",
        from_address="judge@example.org",
        to="england@example.org",
        subject="Re: orders",
        body="England: Fleet London -> North Sea.\n",
        message_id="<20261123120000.0123456789abcdef@example.org>",
        date=NOW,
        headers=(
            ("Auto-Submitted", "auto-replied"),
            ("X-Loop", "judge@example.org"),
            ("In-Reply-To", "<r2@players.example>"),
        ),
        attachments=(),
    )


def test_sent_at_is_the_date() -> None:
    # Moved from tests/mail/test_build_email.py: a copy sent again keeps its first date.
    row = outbox_row()
    row.sent_at = datetime(2026, 11, 20, 8, 30, tzinfo=UTC)
    raw = build_email(outgoing_mail(row, SETTINGS, NOW)).as_bytes()
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert message["Date"] == "Fri, 20 Nov 2026 08:30:00 +0000"


def test_a_row_without_headers_has_none() -> None:
    row = outbox_row()
    row.headers = None  # type: ignore[assignment]
    assert outgoing_mail(row, SETTINGS, NOW).headers == ()


def test_the_pictures_a_row_names_go_inline_in_its_order() -> None:
    row = outbox_row()
    row.attachments = [
        {"picture": 7, "filename": "ewinter01-F1901M.png"},
        {"picture": 3, "filename": "ewinter01-W1901A.png"},
    ]
    mail = outgoing_mail(row, SETTINGS, NOW, {3: b"three", 7: b"seven", 9: b"nine"})
    assert mail.attachments == (
        Attachment("ewinter01-F1901M.png", "image/png", b"seven", inline=True),
        Attachment("ewinter01-W1901A.png", "image/png", b"three", inline=True),
    )


def test_a_picture_that_is_gone_is_left_out_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    row = outbox_row()
    row.attachments = [{"picture": 7, "filename": "ewinter01-S1901M.png"}]
    with caplog.at_level(logging.WARNING, logger="judge.services.outbox"):
        mail = outgoing_mail(row, SETTINGS, NOW, {})
    assert mail.attachments == ()
    assert mail.body == "England: Fleet London -> North Sea.\n"
    assert caplog.messages == [
        "mail <20261123120000.0123456789abcdef@example.org> to england@example.org: its "
        "picture 7 (ewinter01-S1901M.png) is gone; sent without it"
    ]
