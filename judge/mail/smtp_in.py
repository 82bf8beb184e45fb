"""The embedded SMTP server: receives mail for the judge's own address (the default when
no IMAP mailbox is configured) and stores each message before saying 250."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

log = logging.getLogger("judge.smtp")


class InboundHandler:
    """aiosmtpd handler: accept mail for ``addresses``, store it, then acknowledge.

    ``store`` commits the raw message to the database and returns only then, so a 250
    reply means the message is safe; on any error the client gets a 451 and retries.
    """

    def __init__(
        self,
        store: Callable[[bytes], None],
        addresses: set[str],
        on_stored: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.addresses = {a.lower() for a in addresses}
        self.on_stored = on_stored

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        """Accept only the judge's own addresses."""
        if address.lower() not in self.addresses:
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        """Store the message (with the Return-Path an MTA would add) before answering."""
        content = envelope.original_content or envelope.content or b""
        if isinstance(content, str):
            content = content.encode("utf-8", "surrogateescape")
        # aiosmtpd gives the null sender of a bounce as "<>".
        sender = (envelope.mail_from or "").strip().strip("<>")
        raw = f"Return-Path: <{sender}>\r\n".encode("ascii", "replace") + content
        loop = asyncio.get_running_loop()
        try:
            # The database call blocks: keep it off the SMTP event loop.
            await loop.run_in_executor(None, self.store, raw)
        except Exception:
            log.exception("could not store a message from %r; the sender will retry", sender)
            return "451 4.3.0 Could not store the message, try again later"
        if self.on_stored is not None:
            self.on_stored()
        return "250 OK stored"


class InboundServer:
    """The embedded SMTP server on ``host:port``."""

    def __init__(self, handler: InboundHandler, host: str, port: int, max_bytes: int) -> None:
        # Accept well above the judge's own limit: an oversized message is stored and gets
        # a polite refusal by mail instead of a bare SMTP error.
        self.controller = Controller(
            handler, hostname=host, port=port, data_size_limit=max_bytes * 4 + 65536
        )

    def start(self) -> None:
        """Start listening (in aiosmtpd's own thread)."""
        self.controller.start()
        log.info(
            "embedded SMTP server listening on %s:%s",
            self.controller.hostname,
            self.controller.port,
        )

    def stop(self) -> None:
        """Stop listening; a message being received is finished first by aiosmtpd."""
        self.controller.stop()

    @property
    def address(self) -> tuple[Any, int]:
        """Where the server listens."""
        return self.controller.hostname, self.controller.port
