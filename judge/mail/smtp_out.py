"""Sending through an SMTP relay (the ``[smtp]`` settings), with the standard library.

:class:`SmtpTransport` is the :class:`~judge.mail.transport.Transport` for real mail. It
sorts every failure for the sender's retry logic, quoting the server's reply:

- a 4xx reply: :class:`~judge.mail.transport.TransientError`, tried again later;
- 421, a refused or dropped connection, a timeout, a TLS failure:
  :class:`~judge.mail.transport.ServerUnavailable` (transient; the run stops);
- a 5xx reply (recipient, sender or message refused, login refused), or a server without
  STARTTLS when it was asked for: :class:`~judge.mail.transport.PermanentError`.

One connection serves a whole delivery run: use the transport as a context manager (or
call :meth:`SmtpTransport.close`) to end it politely.
"""

from __future__ import annotations

import functools
import logging
import re
import smtplib
import ssl
import time
from dataclasses import replace
from types import TracebackType
from typing import Self

from judge.config import SmtpSettings
from judge.mail.compose import email_bytes
from judge.mail.net import readable, settings_hint
from judge.mail.outgoing import OutgoingMail
from judge.mail.transport import PermanentError, ServerUnavailable, TransientError

__all__ = ["SmtpTransport", "classify_error"]

log = logging.getLogger(__name__)

#: A connection used less than this many seconds ago is reused without a NOOP first.
FRESH_SECONDS = 5.0


def _reply(code: int, text: bytes | str) -> str:
    """An SMTP reply as the server wrote it, e.g. ``550 5.1.1 No such user``."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{code} {' '.join(text.split())}"


def _by_code(code: int, text: str) -> TransientError | PermanentError:
    # 421 is the server closing the connection on us (shutting down, overloaded): as good
    # as unreachable for the rest of the run.
    if code == 421:
        return ServerUnavailable(text)
    if 500 <= code < 600:
        return PermanentError(text)
    return TransientError(text)


def classify_error(
    err: Exception, server: str, recipient: str, username: str = "", implicit_tls: bool = False
) -> TransientError | PermanentError | None:
    """The outbox error for an exception raised while talking to ``server`` (``host:port``)
    about mail to ``recipient``, or None when it is no SMTP or network failure.
    ``implicit_tls``: the connection began with TLS (``security = "tls"``).

    >>> classify_error(smtplib.SMTPDataError(451, b"4.3.0 Try later"), "mx:25", "a@b.c")
    TransientError('mx:25 refused the message: 451 4.3.0 Try later')
    >>> refused = ConnectionRefusedError(111, "Connection refused")
    >>> classify_error(refused, "mx:25", "a@b.c")  # doctest: +ELLIPSIS
    ServerUnavailable('cannot reach mx:25: [Errno 111] Connection refused (nothing listens...)')
    """
    if isinstance(err, smtplib.SMTPRecipientsRefused):
        # One recipient per message, so the dict holds it; take any entry all the same.
        code, text = err.recipients.get(recipient) or next(iter(err.recipients.values()), (-1, b""))
        rcpt = recipient if recipient in err.recipients else ", ".join(err.recipients)
        return _by_code(code, f"{server} refused the recipient {rcpt}: {_reply(code, text)}")
    if isinstance(err, smtplib.SMTPSenderRefused):
        reply = _reply(err.smtp_code, err.smtp_error)
        return _by_code(err.smtp_code, f"{server} refused the sender {err.sender}: {reply}")
    if isinstance(err, smtplib.SMTPDataError):
        reply = _reply(err.smtp_code, err.smtp_error)
        return _by_code(err.smtp_code, f"{server} refused the message: {reply}")
    if isinstance(err, smtplib.SMTPAuthenticationError):
        # A 535 (wrong name or password) will not heal by waiting, so the game master hears
        # of it at once; a 454 "temporary authentication failure" may.
        reply = _reply(err.smtp_code, err.smtp_error)
        return _by_code(err.smtp_code, f"{server} refused the login as {username!r}: {reply}")
    if isinstance(err, smtplib.SMTPConnectError):
        # The greeting was a refusal; code -1 means no greeting at all.
        reply = _reply(err.smtp_code, err.smtp_error)
        if 500 <= err.smtp_code < 600:
            return PermanentError(f"{server} refused the connection: {reply}")
        return ServerUnavailable(f"{server} refused the connection: {reply}")
    if isinstance(err, smtplib.SMTPResponseException):
        return _by_code(err.smtp_code, f"{server}: {_reply(err.smtp_code, err.smtp_error)}")
    if isinstance(err, smtplib.SMTPNotSupportedError):
        # No STARTTLS (we never fall back to plain text), no AUTH, no SMTPUTF8 for a
        # non-ASCII address: the settings or the address must change, not the time.
        return PermanentError(f"{server}: {err}")
    if isinstance(err, smtplib.SMTPServerDisconnected):
        return ServerUnavailable(f"{server} closed the connection: {err}")
    if isinstance(err, smtplib.SMTPException):
        return TransientError(f"{server}: {err}")
    if isinstance(err, OSError):
        # Refused, unreachable, timed out (TimeoutError), TLS handshake or certificate
        # failures (ssl.SSLError): all OSErrors.
        hint = settings_hint(
            err, "smtp", implicit_tls=implicit_tls, tls_port="submissions port, usually 465"
        )
        return ServerUnavailable(f"cannot reach {server}: {err}{hint}")
    return None


#: Fields that are not sent over SMTP, as smtplib's send_message did not send them: the
#: message goes to its one envelope recipient only.
_UNSENT_FIELDS = frozenset({"bcc", "resent-bcc"})
#: The MAIL FROM options of a message to or from a non-ASCII address (RFC 6531).
_UTF8_OPTIONS = ("SMTPUTF8", "BODY=8BITMIME")


def _wire_mail(mail: OutgoingMail) -> OutgoingMail:
    """``mail`` without the fields that are not sent (:data:`_UNSENT_FIELDS`)."""
    if not any(name.lower() in _UNSENT_FIELDS for name, _value in mail.headers):
        return mail
    kept = [(name, value) for name, value in mail.headers if name.lower() not in _UNSENT_FIELDS]
    return replace(mail, headers=tuple(kept))


def _pipelined_sendmail(
    connection: smtplib.SMTP, sender: str, recipient: str, data: bytes, options: tuple[str, ...]
) -> None:
    """Send one message as ``smtplib.SMTP.sendmail`` does, but with MAIL, RCPT and DATA
    in one write (RFC 2920, to a server that offers PIPELINING), then the message: two
    round trips instead of four, which in a burst of results is most of what a mail costs
    the judge and the relay.  Each refusal raises the exception ``sendmail`` raises for
    it; the caller drops the connection after any (a server that said 354 to DATA after
    refusing the sender or the recipient gets no message: the connection just ends)."""
    extra = list(options)
    if connection.has_extn("size"):
        extra.append(f"SIZE={len(data)}")
    if "SMTPUTF8" in options:
        connection.command_encoding = "utf-8"
    parameters = "".join(f" {option}" for option in extra)
    connection.send(
        f"MAIL FROM:{_quoted(sender)}{parameters}\r\nRCPT TO:{_quoted(recipient)}\r\nDATA\r\n"
    )
    # Every reply is read before any is acted on: each command has one.
    mail_code, mail_text = connection.getreply()
    rcpt_code, rcpt_text = connection.getreply()
    data_code, data_text = connection.getreply()
    if mail_code != 250:
        raise smtplib.SMTPSenderRefused(mail_code, mail_text, sender)
    if rcpt_code not in (250, 251):
        raise smtplib.SMTPRecipientsRefused({recipient: (rcpt_code, rcpt_text)})
    if data_code != 354:
        raise smtplib.SMTPDataError(data_code, data_text)
    # Dot-stuffed (a line beginning "." gets a second one), ended by a line of one ".".
    body = _LEADING_DOT.sub(b"..", data)
    if not body.endswith(b"\r\n"):
        body += b"\r\n"
    connection.send(body + b".\r\n")
    code, text = connection.getreply()
    if code != 250:
        raise smtplib.SMTPDataError(code, text)


#: An address as SMTP writes it in MAIL and RCPT (``<...>``), remembered: smtplib parses
#: it afresh each time, and a burst's mails all come from the judge's one address.
_quoted = functools.lru_cache(maxsize=4096)(smtplib.quoteaddr)
#: The start of a line that begins with a dot (for dot-stuffing, RFC 5321 4.5.2).
_LEADING_DOT = re.compile(rb"(?m)^\.")


class SmtpTransport:
    """Delivers outgoing mail through the relay named by ``settings``.

    The envelope sender is the mail's From address (the judge's own); the message is
    written by :func:`judge.mail.compose.email_bytes`, so it carries the outbox's headers
    (Message-ID, Auto-Submitted, X-Auto-Response-Suppress, Precedence, X-Loop,
    In-Reply-To and References on replies).

    ``security``: ``starttls`` (upgrade a plain connection, and refuse to go on without
    it), ``tls`` (TLS from the first byte) or ``none``. Certificates are checked against the
    system's CAs plus ``ca_file`` when given. ``username`` set: log in. ``timeout``: for
    connecting and for every reply.
    """

    def __init__(self, settings: SmtpSettings, *, local_hostname: str | None = None) -> None:
        """Prepare to send; nothing connects until the first :meth:`send`.

        A ``ca_file`` that cannot be read raises here (OSError), at start, rather than as a
        delivery failure of every message. ``local_hostname``: the EHLO name (default: this
        machine's fully qualified name).
        """
        self.settings = settings
        self.local_hostname = local_hostname
        self.server = f"{settings.host}:{settings.port}"
        self._context: ssl.SSLContext | None = None
        if settings.security in ("starttls", "tls"):
            self._context = ssl.create_default_context()
            if settings.ca_file:
                self._context.load_verify_locations(cafile=settings.ca_file)
        self._connection: smtplib.SMTP | None = None
        self._last_used = 0.0

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def send(self, mail: OutgoingMail) -> None:
        """Send ``mail`` to ``mail.to``; raise a classified error on failure."""
        # The bytes the Maildir transport writes, with CRLF line ends (sendmail dot-stuffs
        # them), written once.  Not smtplib's send_message: its generator escaped every
        # body line beginning "From " as ">From " (an mbox habit), and it built a second
        # copy of the message to write it.
        data = email_bytes(_wire_mail(mail), "\r\n")
        international = not (mail.from_address + mail.to).isascii()
        try:
            connection = self._connect()
            options: tuple[str, ...] = ()
            if international:
                connection.ehlo_or_helo_if_needed()
                if not connection.has_extn("smtputf8"):
                    raise smtplib.SMTPNotSupportedError(
                        f"the address {mail.to if not mail.to.isascii() else mail.from_address} "
                        "is not ASCII and the server does not offer SMTPUTF8"
                    )
                options = _UTF8_OPTIONS
            # One recipient per message.
            connection.ehlo_or_helo_if_needed()
            if connection.does_esmtp and connection.has_extn("pipelining"):
                _pipelined_sendmail(connection, mail.from_address, mail.to, data, options)
            else:
                connection.sendmail(mail.from_address, [mail.to], data, options)
            self._last_used = time.monotonic()
        except Exception as err:
            # After a failure the session's state is unknown: start afresh next time.
            self._drop()
            classified = classify_error(
                err,
                self.server,
                mail.to,
                self.settings.username,
                implicit_tls=self.settings.security == "tls",
            )
            if classified is None:
                raise
            raise classified from err

    def close(self) -> None:
        """Say QUIT and close the connection, if one is open."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        try:
            connection.quit()
        except (smtplib.SMTPException, OSError):
            connection.close()

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def _connect(self) -> smtplib.SMTP:
        """The open connection if it still answers, else a new one, logged in."""
        if self._connection is not None:
            # The server may have closed the connection since the last message (an idle
            # timeout, a restart). Find out before the message is started, so that
            # retrying on a new connection cannot send it twice. A server that closes
            # says so first (421) or just closes: either way the socket turns readable,
            # which costs no round trip to see, so in a burst no NOOP is needed; after a
            # quiet spell a NOOP also catches a peer that vanished without a word.
            sock = self._connection.sock
            if sock is not None and not readable(sock):
                if time.monotonic() - self._last_used < FRESH_SECONDS:
                    return self._connection
                try:
                    if self._connection.noop()[0] == 250:
                        return self._connection
                except (smtplib.SMTPException, OSError):
                    pass
            self._drop()
        settings = self.settings
        connection: smtplib.SMTP
        if settings.security == "tls":
            connection = smtplib.SMTP_SSL(
                settings.host,
                settings.port,
                self.local_hostname,
                timeout=settings.timeout,
                context=self._context,
            )
        else:
            connection = smtplib.SMTP(
                settings.host, settings.port, self.local_hostname, timeout=settings.timeout
            )
        try:
            if settings.security == "starttls":
                connection.starttls(context=self._context)
                connection.ehlo()  # the server's extensions may differ once encrypted
            if settings.username:
                connection.login(settings.username, settings.password)
        except BaseException:
            connection.close()
            raise
        self._connection = connection
        return connection
