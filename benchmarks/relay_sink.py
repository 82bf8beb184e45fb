"""A light SMTP sink for the benchmarks: the stand-in for a relay on another machine.

The tests' sink (``tests/support/smtpsink.py``, aiosmtpd) costs about 1 ms of CPU a mail,
which on this machine's two CPUs is taken from the judge it measures: 70,000 results mails
of a 10,000-game burst cost it some 80 CPU seconds.  A relay (Postfix, say) runs elsewhere
and pipelines.  This sink speaks just enough ESMTP for the judge's sender (EHLO with
PIPELINING, 8BITMIME and SMTPUTF8; MAIL, RCPT, DATA, RSET, NOOP, QUIT), answers every
command a batch received at once in one write (pipelined commands get their replies
together), accepts every message, and keeps only when it arrived and its Message-ID.

Not for the tests: it checks nothing a real server would (command order, addresses).
Each received buffer is scanned once from where the last scan stopped: linear in what
the client sends.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import Counter
from collections.abc import Callable

__all__ = ["LightSink"]

_MESSAGE_ID = re.compile(rb"^Message-ID:\s*(\S+)", re.MULTILINE | re.IGNORECASE)
_EHLO = (
    b"250-sink.test\r\n250-PIPELINING\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n"
    b"250 ENHANCEDSTATUSCODES\r\n"
)
_END = b"\r\n.\r\n"
#: A command line longer than this is refused and the connection closed (RFC 5321 allows
#: 512 octets; the judge sends far less).
_MAX_LINE = 4096


class _Session(asyncio.Protocol):
    """One client's connection."""

    def __init__(self, keep: Callable[[bytes], None]) -> None:
        self.keep = keep
        self.buffer = bytearray()
        self.in_data = False
        self.scanned = 0  # where the search for the end of the data goes on
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(b"220 sink.test ESMTP\r\n")

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        self.buffer += data
        replies = bytearray()
        close = False
        position = 0
        while True:
            if self.in_data:
                # The data began at ``position`` (just after the DATA line's 354); an empty
                # message ends at once with ".\r\n".
                if self.buffer.startswith(b".\r\n", position):
                    end, after = position, position + 3
                else:
                    found = self.buffer.find(_END, max(position, self.scanned))
                    if found < 0:
                        self.scanned = max(position, len(self.buffer) - len(_END) + 1)
                        break
                    end, after = found + 2, found + len(_END)
                self.keep(bytes(self.buffer[position:end]))
                replies += b"250 2.0.0 Ok: queued\r\n"
                self.in_data = False
                self.scanned = 0
                position = after
                continue
            line_end = self.buffer.find(b"\r\n", position)
            if line_end < 0:
                if len(self.buffer) - position > _MAX_LINE:
                    replies += b"500 5.5.2 Line too long\r\n"
                    close = True
                break
            verb = bytes(self.buffer[position : position + 4]).upper()
            position = line_end + 2
            if verb == b"EHLO":
                replies += _EHLO
            elif verb in (b"HELO", b"MAIL", b"RCPT", b"RSET", b"NOOP"):
                replies += b"250 2.0.0 Ok\r\n"
            elif verb == b"DATA":
                replies += b"354 End data with <CR><LF>.<CR><LF>\r\n"
                self.in_data = True
                self.scanned = position
            elif verb == b"QUIT":
                replies += b"221 2.0.0 Bye\r\n"
                close = True
                break
            else:
                replies += b"502 5.5.2 Command not recognized\r\n"
        del self.buffer[:position]
        if self.in_data:
            self.scanned -= position
        if replies:
            self.transport.write(bytes(replies))
        if close:
            self.transport.close()


class LightSink:
    """The light sink on 127.0.0.1, in a thread of its own, noting when each mail arrived
    (just before its 250) and how often each Message-ID came."""

    host = "127.0.0.1"

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.arrivals: list[float] = []
        self.ids: Counter[bytes] = Counter()
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None

    def _keep(self, raw: bytes) -> None:
        stamp = time.time()
        found = _MESSAGE_ID.search(raw, 0, 8192)
        with self.lock:
            self.arrivals.append(stamp)
            if found:
                self.ids[found.group(1)] += 1

    def start(self) -> None:
        """Listen on a free port (ready when this returns)."""
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self._loop)

            async def serve() -> None:
                self._server = await self._loop.create_server(
                    lambda: _Session(self._keep), self.host, 0
                )
                self.port = self._server.sockets[0].getsockname()[1]
                ready.set()

            self._loop.run_until_complete(serve())
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="light-sink", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the light sink did not start")

    def close(self) -> None:
        """Stop listening and end the thread."""
        if self._thread is None:
            return

        def stop() -> None:
            if self._server is not None:
                self._server.close()
            self._loop.stop()

        self._loop.call_soon_threadsafe(stop)
        self._thread.join(10)
        self._thread = None
