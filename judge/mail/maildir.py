"""Local delivery: one Maildir per recipient under ``var/mail`` (the embedded default),
so anyone can read what the judge sent without a mail server."""

from __future__ import annotations

import hashlib
import mailbox
import re
from pathlib import Path

from judge.mail.compose import email_bytes
from judge.mail.outgoing import OutgoingMail

__all__ = ["MaildirTransport", "mailbox_dir"]

_UNSAFE = re.compile(r"[^a-z0-9@._+-]")


def mailbox_dir(var_dir: Path, address: str) -> Path:
    """The Maildir of ``address``; the address is reduced to safe characters so nothing
    from an email can steer the path."""
    name = _UNSAFE.sub("_", address.strip().lower()).strip(".") or "unknown"
    if name in (".", "..") or ".." in name:
        name = name.replace("..", "_")
    return var_dir / "mail" / name


class MaildirTransport:
    """Delivers into ``<var_dir>/mail/<recipient>/``; idempotent per Message-ID."""

    def __init__(self, var_dir: Path) -> None:
        self.var_dir = var_dir

    def send(self, mail: OutgoingMail) -> None:
        """Write the mail unless a copy with its Message-ID is already there."""
        folder = mailbox_dir(self.var_dir, mail.to)
        folder.parent.mkdir(parents=True, exist_ok=True)
        box = mailbox.Maildir(folder, create=True)
        # Kept outside the Maildir, whose dot-directories are folders.
        digest = hashlib.sha256(mail.message_id.encode()).hexdigest()
        marker = self.var_dir / "delivered" / digest
        if marker.exists():
            return
        box.add(email_bytes(mail))
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
