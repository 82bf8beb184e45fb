"""Socket helpers shared by the mail clients."""

from __future__ import annotations

import select
import socket
import ssl

__all__ = ["readable"]


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
