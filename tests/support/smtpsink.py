"""A real SMTP server for tests: aiosmtpd on 127.0.0.1, recording what it receives.

It can be told to refuse, which is how the outbox's retries are tested against a real
conversation: a 451 for the next N messages or while a condition holds (a test's own clock,
say), a 550 for chosen recipients. It can require STARTTLS or speak TLS from the start, with
a certificate from a throwaway ``trustme`` CA, and require a login.
"""

from __future__ import annotations

import email
import email.parser
import email.policy
import functools
import shutil
import ssl
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self

import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from support.netutil import free_port

__all__ = ["TEMPORARY", "UNKNOWN_USER", "Received", "SmtpSink"]

#: The default replies of a refusing sink.
TEMPORARY = "451 4.3.0 Try again later"
UNKNOWN_USER = "550 5.1.1 No such user here"


def header(raw: bytes, name: str) -> str | None:
    """One header field of a raw message, unfolded (a cheap look, without parsing the
    message: the sink answers quickly, as a real relay does)."""
    value = _HEADERS.parsebytes(raw, headersonly=True)[name]
    return None if value is None else " ".join(str(value).split())


_HEADERS = email.parser.BytesParser(policy=email.policy.compat32)


@dataclass(frozen=True)
class Received:
    """One message as the sink accepted it."""

    #: The envelope: MAIL FROM and RCPT TO, as the client gave them.
    mail_from: str
    rcpt_tos: tuple[str, ...]
    #: The bytes after DATA, as sent (CRLF line ends).
    raw: bytes
    #: The client's address and port: messages with the same peer shared a connection.
    peer: str
    #: The name the client logged in with, or None.
    login: str | None
    #: Whether the connection was encrypted (STARTTLS or implicit TLS).
    tls: bool
    #: Whether DATA had arrived with the RCPT, before its reply (PIPELINING, RFC 2920).
    pipelined: bool = False

    @functools.cached_property
    def message(self) -> EmailMessage:
        """``raw`` parsed with ``email.policy.default`` (when first asked for)."""
        parsed = email.message_from_bytes(self.raw, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed

    def text(self) -> str:
        """The plain-text body, with ``\n`` line ends (the wire's are CRLF)."""
        body = self.message.get_body(preferencelist=("plain",))
        assert body is not None, "no text/plain part"
        content: str = body.get_content()
        return content.replace("\r\n", "\n")


class SmtpSink:
    """An aiosmtpd server on 127.0.0.1 that keeps every message it accepts.

    ``tls``: None (plain), ``"starttls"`` (required before MAIL) or ``"implicit"`` (TLS
    from the first byte); its CA certificate is written to :attr:`ca_file`. ``users``:
    names and passwords; when given, a login is required (with implicit TLS, only offered:
    see :meth:`start`). ``start()`` and ``stop()`` may be
    repeated; the port stays the same, so a client can be shown a server that went away and
    came back. The handler runs in aiosmtpd's thread: every shared field is behind a lock.
    """

    host = "127.0.0.1"

    def __init__(
        self,
        *,
        tls: Literal["starttls", "implicit"] | None = None,
        users: Mapping[str, str] | None = None,
        pipelining: bool = False,
    ) -> None:
        """Configure the sink; nothing listens before :meth:`start`.  ``pipelining``:
        offer PIPELINING (aiosmtpd reads pipelined commands in turn, but does not say so),
        and note for each message whether its DATA came with its RCPT."""
        self.tls = tls
        self.pipelining = pipelining
        self.users = dict(users or {})
        self.port = free_port()
        self.received: list[Received] = []
        #: Every refusal given: (recipient, or the Message-ID at DATA, and the reply).
        self.refusals: list[tuple[str, str]] = []
        self.ca_file: Path | None = None
        self._lock = threading.Lock()
        self._refuse_count = 0
        self._refuse_reply = TEMPORARY
        self._refuse_while: Callable[[], bool] | None = None
        self._refused_recipients: dict[str, str] = {}
        self._controller: Controller | None = None
        self._directory: Path | None = None
        self._server_context: ssl.SSLContext | None = None
        if tls is not None:
            self._make_certificate()

    def _make_certificate(self) -> None:
        ca = trustme.CA()
        certificate = ca.issue_cert(self.host, "localhost")
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        certificate.configure_cert(context)
        self._server_context = context
        self._directory = Path(tempfile.mkdtemp(prefix="smtpsink-"))
        self.ca_file = self._directory / "ca.pem"
        ca.cert_pem.write_to_path(str(self.ca_file))

    # -- running ------------------------------------------------------------------------

    def start(self) -> None:
        """Listen on :attr:`host`:attr:`port` (ready when this returns)."""
        if self._controller is not None:
            return
        options: dict[str, Any] = {"server_hostname": "sink.test", "ready_timeout": 10.0}
        if self.users:
            options.update(authenticator=self._authenticate, auth_required=True)
        if self.tls == "starttls":
            options.update(tls_context=self._server_context, require_starttls=True)
        elif self.tls == "implicit":
            # aiosmtpd counts only STARTTLS as encryption, so AUTH must be allowed "without
            # TLS" here, and it warns when that is combined with auth_required: the login is
            # offered, not enforced (Received.login shows whether the client logged in).
            options.update(
                ssl_context=self._server_context, auth_require_tls=False, auth_required=False
            )
        controller = Controller(_Handler(self), hostname=self.host, port=self.port, **options)
        controller.start()
        self._controller = controller

    def stop(self) -> None:
        """Stop listening and drop open connections; a stopped sink may be started again."""
        controller, self._controller = self._controller, None
        if controller is not None:
            controller.stop()

    def close(self) -> None:
        """Stop, and remove the certificate files."""
        self.stop()
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # -- refusing -----------------------------------------------------------------------

    def refuse_next(self, count: int, reply: str = TEMPORARY) -> None:
        """Answer ``reply`` to the DATA of the next ``count`` messages."""
        with self._lock:
            self._refuse_count, self._refuse_reply = count, reply

    def refuse_while(self, condition: Callable[[], bool], reply: str = TEMPORARY) -> None:
        """Answer ``reply`` to every message's DATA as long as ``condition()`` is true."""
        with self._lock:
            self._refuse_while, self._refuse_reply = condition, reply

    def refuse_recipient(self, address: str, reply: str = UNKNOWN_USER) -> None:
        """Answer ``reply`` to RCPT TO ``address`` (compared without case)."""
        with self._lock:
            self._refused_recipients[address.lower()] = reply

    # -- looking --------------------------------------------------------------------------

    def messages_to(self, address: str) -> list[Received]:
        """The messages accepted for ``address``."""
        with self._lock:
            return [r for r in self.received if address.lower() in map(str.lower, r.rcpt_tos)]

    def message_ids(self) -> list[str]:
        """The Message-ID of every accepted message, in order of arrival."""
        with self._lock:
            return [str(r.message["Message-ID"]) for r in self.received]

    # -- called from the handler (aiosmtpd's thread) ----------------------------------------

    def _authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
    ) -> AuthResult:
        if not isinstance(data, LoginPassword):
            return AuthResult(success=False, handled=False)
        login = data.login.decode("utf-8", "replace")
        good = login in self.users and self.users[login] == data.password.decode("utf-8")
        return AuthResult(success=good, handled=False, auth_data=data if good else None)

    def _rcpt_reply(self, address: str) -> str | None:
        with self._lock:
            reply = self._refused_recipients.get(address.lower())
            if reply is not None:
                self.refusals.append((address, reply))
            return reply

    def _data_reply(self, message_id: str) -> str | None:
        with self._lock:
            refuse = self._refuse_count > 0 or (
                self._refuse_while is not None and self._refuse_while()
            )
            if not refuse:
                return None
            self._refuse_count = max(self._refuse_count - 1, 0)
            self.refusals.append((message_id, self._refuse_reply))
            return self._refuse_reply

    def _keep(self, received: Received) -> None:
        with self._lock:
            self.received.append(received)


class _Handler:
    """aiosmtpd's handler hooks, reporting to a :class:`SmtpSink`."""

    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink
        #: Per envelope (by id, while its message is under way): whether its DATA came
        #: pipelined with its RCPT.
        self._pipelined: dict[int, bool] = {}

    async def handle_EHLO(
        self, server: SMTP, session: Session, envelope: Envelope, hostname: str,
        responses: list[str],
    ) -> list[str]:  # fmt: skip
        session.host_name = hostname
        if self.sink.pipelining:
            responses.insert(len(responses) - 1, "250-PIPELINING")
        return responses

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        # What the client sent after this RCPT and before its reply: the DATA, when it
        # pipelines (the server's read buffer; aiosmtpd keeps no other record of it).
        waiting = bytes(getattr(server._reader, "_buffer", b""))
        self._pipelined[id(envelope)] = waiting.upper().startswith(b"DATA")
        refusal = self.sink._rcpt_reply(address)
        if refusal is not None:
            return refusal
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        refusal = self.sink._data_reply(str(header(raw, "Message-ID")))
        if refusal is not None:
            return refusal
        transport = server.transport
        # The authenticator's auth_data: the LoginPassword it accepted.
        login = session.auth_data.login if isinstance(session.auth_data, LoginPassword) else None
        self.sink._keep(
            Received(
                mail_from=envelope.mail_from or "",
                rcpt_tos=tuple(envelope.rcpt_tos),
                raw=raw,
                peer=str(session.peer),
                login=login.decode("utf-8", "replace") if isinstance(login, bytes) else None,
                tls=transport is not None and transport.get_extra_info("ssl_object") is not None,
                pipelined=self._pipelined.pop(id(envelope), False),
            )
        )
        return "250 OK"
