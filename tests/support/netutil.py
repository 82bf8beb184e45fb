"""Standard-library helpers for the test servers and the benchmarks: a free port, and the
end of a log for an error message."""

from __future__ import annotations

import socket
from pathlib import Path

__all__ = ["free_port", "log_tail"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on just now (aiosmtpd refuses port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def log_tail(log: Path, lines: int = 30) -> str:
    """The last ``lines`` lines of a log file, for an error message."""
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
