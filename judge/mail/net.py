"""Socket helpers shared by the mail clients."""

from __future__ import annotations

import select
import socket
import ssl

__all__ = ["readable", "settings_hint"]


def readable(sock: socket.socket, timeout: float = 0.0) -> bool:
    """Whether ``sock`` has data (or the peer's end of file) to read, waiting up to
    ``timeout`` seconds; a socket already closed counts as readable (the peer is gone)."""
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return True  # decrypted already, invisible to select()
    try:
        ready, _, _ = select.select([sock], [], [], timeout)
    except (OSError, ValueError):
        return True
    return bool(ready)


def settings_hint(err: BaseException, section: str, *, implicit_tls: bool, tls_port: str) -> str:
    """What to check in the ``[section]`` settings for a connection error that comes from
    them, as a suffix for a log line or a notice (empty for the others, which are the
    network's or the server's).  ``implicit_tls``: the connection began with TLS, whose
    usual port ``tls_port`` names ("IMAPS port, usually 993")."""
    if isinstance(err, ssl.SSLCertVerificationError):
        return (
            f" (the server's certificate is not trusted here: set [{section}] ca_file to the "
            "CA that signed it)"
        )
    if isinstance(err, ssl.SSLError) and "WRONG_VERSION_NUMBER" in str(err):
        if implicit_tls:
            return (
                f" (the server does not speak TLS on this port: use its {tls_port}, or "
                'security = "starttls" on this one)'
            )
        return f" (the server's TLS handshake failed: check [{section}] security and port)"
    if isinstance(err, ConnectionRefusedError):
        return f" (nothing listens there: check [{section}] host and port)"
    if isinstance(err, socket.gaierror):
        return f" (the host name does not resolve: check [{section}] host)"
    return ""
