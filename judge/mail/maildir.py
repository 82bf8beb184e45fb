"""Local delivery: one Maildir per recipient under ``var/mail`` (the embedded default),
so anyone can read what the judge sent without a mail server."""

from __future__ import annotations

import hashlib
import mailbox
import re
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime
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


def build_email(message: OutboundMessage, judge: Judge, now: datetime) -> EmailMessage:
    """The RFC 5322 message for an outbox row."""
    mail = EmailMessage()
    mail["From"] = f"{judge.settings.name} <{judge.settings.address}>"
    mail["To"] = message.to_addr
    mail["Subject"] = message.subject
    mail["Date"] = format_datetime(message.sent_at or now)
    mail["Message-ID"] = message.message_id
    for key, value in (message.headers or {}).items():
        mail[key] = value
    mail.set_content(message.body)
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
