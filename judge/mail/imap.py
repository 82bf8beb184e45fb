"""Inbound mail from an IMAP mailbox: fetch, store, and only then mark on the server.

:class:`ImapInbox` keeps one connection to the judge's mailbox.  Each pass searches the
messages not yet handled, fetches them with ``BODY.PEEK[]`` (which leaves them unread for a
human looking at the same mailbox), hands each raw message to ``store`` -- which commits it
to the database, deduplicated by Message-ID -- and only after ``store`` has returned marks
it on the server: a ``$JudgeStored`` keyword, ``\\Seen``, or a move to another folder.  A
crash at any point therefore loses nothing (an unmarked message is fetched again) and
processes nothing twice (storing it again finds its Message-ID).

Between passes the inbox waits with IDLE when the server offers it, or polls.  Any network
or IMAP error drops the connection and reconnects with exponential backoff; the first pass
on a new connection picks up whatever arrived meanwhile.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from imapclient import DELETED, SEEN, IMAPClient  # type: ignore[import-untyped]
from imapclient.exceptions import LoginError  # type: ignore[import-untyped]

from judge.config import ImapSettings
from judge.mail.net import readable, settings_hint

__all__ = ["STORED_KEYWORD", "ImapInbox"]

#: The keyword set on a stored message when ``after = "flag"``.
STORED_KEYWORD = b"$JudgeStored"

#: What a pass looks for, by ``after``: whatever has not been marked yet.
_CRITERIA: dict[str, list[str]] = {
    "flag": ["NOT", "KEYWORD", STORED_KEYWORD.decode()],
    "seen": ["UNSEEN"],
    # Moved messages leave the folder, so everything still in it is pending.
    "move": ["ALL"],
}

#: RFC 2177: servers may drop a client idle for 30 minutes, so IDLE is renewed before that.
MAX_IDLE_SECONDS = 29 * 60.0

FIRST_BACKOFF = 1.0
MAX_BACKOFF = 60.0


class ImapInbox:
    """Reads the mailbox described by ``settings`` into ``store`` until ``stop`` is set.

    ``store(raw)`` must commit the message durably (idempotently, by Message-ID) before it
    returns; an exception from it leaves the message unmarked on the server, ends the pass
    and is retried on a later one.  ``store_many(raws)``, when given, stores a whole fetched
    batch in one commit (one disk sync instead of one per message); if it raises, nothing
    of the batch counts as stored and its messages go through ``store`` one by one, so one
    bad message cannot hold back the others.  ``on_stored()`` is called after each batch in which
    messages were stored (to wake whatever processes them).  ``sleep(seconds)`` waits
    between reconnection attempts; the default returns as soon as ``stop`` is set, and a
    replacement should too.  ``use_idle=False`` polls every ``settings.poll_seconds`` even
    when the server offers IDLE.  ``timeout`` bounds each network operation.  ``gather``:
    seconds to stay in IDLE after the server announced mail, so that a pass fetches what
    follows it too.
    """

    def __init__(
        self,
        settings: ImapSettings,
        store: Callable[[bytes], None],
        *,
        stop: threading.Event,
        store_many: Callable[[Sequence[bytes]], None] | None = None,
        on_stored: Callable[[], None] | None = None,
        logger: logging.Logger | None = None,
        sleep: Callable[[float], None] | None = None,
        use_idle: bool = True,
        batch_size: int = 20,
        timeout: float = 30.0,
        gather: float = 0.0,
    ) -> None:
        if settings.security not in ("tls", "starttls", "none"):
            raise ValueError(
                f"[imap] security: use tls, starttls or none, not {settings.security!r}"
            )
        if settings.after not in _CRITERIA:
            raise ValueError(f"[imap] after: use flag, seen or move, not {settings.after!r}")
        if settings.after == "move" and settings.move_to.strip("/") == settings.folder:
            raise ValueError("[imap] move_to: must differ from folder, or mail is read forever")
        if settings.poll_seconds <= 0 or settings.idle_seconds <= 0:
            raise ValueError("[imap] poll_seconds and idle_seconds must be positive")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._settings = settings
        self._gather = gather
        self._store = store
        self._store_many = store_many
        self._stop = stop
        self._on_stored = on_stored
        self._log = logger or logging.getLogger(__name__)
        self._sleep = sleep or self._wait_for_stop
        self._use_idle = use_idle
        self._batch_size = batch_size
        self._timeout = timeout
        self._idle_seconds = min(settings.idle_seconds, MAX_IDLE_SECONDS)
        if settings.idle_seconds > MAX_IDLE_SECONDS:
            self._log.warning(
                "[imap] idle_seconds %s is above the 30-minute server limit; using %s",
                settings.idle_seconds,
                MAX_IDLE_SECONDS,
            )
        self._client: Any = None
        self._move_folder = settings.move_to
        # Set when a pass ended on a store() error: the next pass then comes after
        # poll_seconds even while idling, rather than at the next new mail.
        self._retry_soon = False

    # -- the loop --------------------------------------------------------------------

    def run(self) -> None:
        """Connect, catch up, then wait for and store new mail until ``stop`` is set.

        Never raises for a network, TLS, login or IMAP error: it logs, drops the connection
        and reconnects after 1 s, 2 s, 4 s ... up to 60 s, starting again at 1 s once a
        connection has logged in, selected the folder and finished a pass.
        """
        backoff = FIRST_BACKOFF
        try:
            while not self._stop.is_set():
                try:
                    client = self._connect()
                    self._prepare(client)
                    self._catch_up(client)
                    backoff = FIRST_BACKOFF
                    self._serve(client)
                except Exception as err:
                    self._drop()
                    if self._stop.is_set():
                        break
                    self._log.warning(
                        "IMAP %s:%s: %s: %s%s; reconnecting in %.0f s",
                        self._settings.host,
                        self._settings.port,
                        type(err).__name__,
                        err,
                        _hint(err, self._settings),
                        backoff,
                        exc_info=self._log.isEnabledFor(logging.DEBUG),
                    )
                    self._sleep(backoff)
                    backoff = min(backoff * 2, MAX_BACKOFF)
        finally:
            self.close()

    def _serve(self, client: Any) -> None:
        """Wait for news and run a pass after each wait, until ``stop`` is set."""
        idle = self._use_idle and client.has_capability("IDLE")
        self._log.info(
            "IMAP %s:%s: watching %s %s",
            self._settings.host,
            self._settings.port,
            self._settings.folder,
            "with IDLE" if idle else f"every {self._settings.poll_seconds:g} s",
        )
        while not self._stop.is_set():
            if idle:
                wait = self._idle_seconds
                if self._retry_soon:
                    wait = min(wait, self._settings.poll_seconds)
                self._idle(client, wait)
            else:
                self._stop.wait(self._settings.poll_seconds)
                if self._stop.is_set():
                    break
                # NOOP lets the server report mail that arrived since the last command.
                client.noop()
            if self._stop.is_set():
                break
            self._catch_up(client)

    def _catch_up(self, client: Any) -> None:
        """Passes until no new mail was announced during the last one.

        Mail that arrives while a pass runs is announced (``* n EXISTS``) in the reply to
        one of its commands, which imaplib files away; an IDLE started afterwards would not
        announce it again, so it would wait for the next mail or the IDLE renewal.
        """
        _mail_announced(client)  # what came before this SEARCH, the SEARCH sees
        while not self._stop.is_set():
            self.fetch_pending(client)
            if self._retry_soon or not _mail_announced(client):
                return

    def _idle(self, client: Any, seconds: float) -> None:
        """IDLE until the server says anything, ``seconds`` pass or ``stop`` is set."""
        client.idle()
        deadline = time.monotonic() + seconds
        # News that came in the same packet as IDLE's "+ idling" is already read into
        # imaplib's buffer, where watching the socket (as IMAPClient.idle_check does)
        # would not see it until more data came.
        spoke = _buffered(client)
        while not spoke and not self._stop.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            # Wake four times a second to notice ``stop``.
            spoke = readable(client.socket(), min(0.25, remaining))
        if spoke and self._gather > 0:
            # Let the mail that follows arrive too (the server announces it meanwhile):
            # one pass for a few messages costs much less than a pass each.
            self._stop.wait(self._gather)
        # New mail, a keep-alive, a BYE or the connection closing: leave IDLE and let
        # idle_done() (which reads to the end of IDLE) and a pass sort it out.  A pass
        # costs one SEARCH, so an occasional needless one is harmless.
        _text, responses = client.idle_done()
        for response in responses:
            if b"BYE" in response[:2]:
                raise ConnectionError(f"the server is closing the connection: {response!r}")

    def _wait_for_stop(self, seconds: float) -> None:
        self._stop.wait(seconds)

    # -- connecting ------------------------------------------------------------------

    def _connect(self) -> Any:
        """A logged-in client, per ``settings.security``; kept for :meth:`close`."""
        settings = self._settings
        context: ssl.SSLContext | None = None
        if settings.security in ("tls", "starttls"):
            # The system's CAs, plus the configured one (a private CA, or tests' trustme).
            context = ssl.create_default_context()
            if settings.ca_file:
                context.load_verify_locations(cafile=settings.ca_file)
        client = IMAPClient(
            settings.host,
            port=settings.port,
            ssl=settings.security == "tls",
            ssl_context=context,
            timeout=self._timeout,
        )
        self._client = client
        _keep_alive(client.socket())
        if settings.security == "starttls":
            # Raises when the server does not offer STARTTLS: never log in in plain text
            # when TLS was asked for.
            client.starttls(context)
        client.login(settings.username, settings.password)
        return client

    def _prepare(self, client: Any) -> None:
        """Select the folder; find or create the folder that stored mail moves to."""
        info = client.select_folder(self._settings.folder)
        if self._settings.after == "flag" and b"\\*" not in info.get(b"PERMANENTFLAGS", ()):
            self._log.warning(
                "IMAP folder %s does not keep custom keywords such as %s, so stored mail "
                'is fetched again on every pass; use after = "seen" or "move"',
                self._settings.folder,
                STORED_KEYWORD.decode(),
            )
        if self._settings.after == "move":
            self._move_folder = self._ensure_folder(client, self._settings.move_to)

    def _ensure_folder(self, client: Any, name: str) -> str:
        """``name`` (written with ``/`` between levels) in the server's own hierarchy
        delimiter, created if missing."""
        listing = client.list_folders("", "")
        delimiter = listing[0][1] if listing else None
        if isinstance(delimiter, bytes):
            delimiter = delimiter.decode()
        folder = name.replace("/", delimiter) if delimiter else name
        if not client.folder_exists(folder):
            try:
                client.create_folder(folder)
                client.subscribe_folder(folder)
            except IMAPClient.Error:
                # Another poller may have created it in between; anything else shows here.
                if not client.folder_exists(folder):
                    raise
            self._log.info("IMAP: created folder %s for stored mail", folder)
        return folder

    # -- a pass ----------------------------------------------------------------------

    def fetch_pending(self, client: Any) -> int:
        """Store every message not yet handled, oldest first; return how many were stored.

        Messages are fetched in batches of ``batch_size``; each batch is marked on the
        server (and ``on_stored`` called) only after ``store`` returned for its messages.
        A ``store`` error is logged, leaves that message and the rest unmarked, and ends
        the pass.  Network and IMAP errors propagate (``run`` reconnects).
        """
        uids = sorted(client.search(_CRITERIA[self._settings.after]))
        stored = 0
        for start in range(0, len(uids), self._batch_size):
            if self._stop.is_set():
                break
            batch = uids[start : start + self._batch_size]
            fetched = client.fetch(batch, [b"BODY.PEEK[]"])
            found: list[tuple[int, bytes]] = []
            for uid in batch:
                raw = fetched.get(uid, {}).get(b"BODY[]")
                if raw is not None:  # else expunged by another client since the SEARCH
                    found.append((uid, bytes(raw)))
            done, failed = self._store_batch(found)
            if done:
                self._mark(client, done)
                stored += len(done)
                self._notify()
            if failed:
                self._retry_soon = True
                return stored
        self._retry_soon = False
        if stored:
            self._log.info("IMAP: stored %d message(s)", stored)
        return stored

    def _store_batch(self, found: list[tuple[int, bytes]]) -> tuple[list[int], bool]:
        """Store fetched messages; return the UIDs stored and whether one failed."""
        if self._store_many is not None and len(found) > 1:
            try:
                self._store_many([raw for _uid, raw in found])
            except Exception:
                self._log.warning(
                    "IMAP: storing %d messages at once failed; storing them one by one",
                    len(found),
                    exc_info=True,
                )
            else:
                return [uid for uid, _raw in found], False
        done: list[int] = []
        for uid, raw in found:
            try:
                self._store(raw)
            except Exception:
                self._log.exception(
                    "IMAP: storing message UID %s failed; it stays unmarked on the "
                    "server and is tried again on a later pass",
                    uid,
                )
                return done, True
            done.append(uid)
        return done, False

    def _mark(self, client: Any, uids: Sequence[int]) -> None:
        """Mark stored messages so that no later pass fetches them again."""
        after = self._settings.after
        if after == "flag":
            client.add_flags(uids, [STORED_KEYWORD], silent=True)
        elif after == "seen":
            client.add_flags(uids, [SEEN], silent=True)
        elif client.has_capability("MOVE"):
            client.move(uids, self._move_folder)
        else:
            # RFC 6851's fallback: copy, delete, expunge (only these UIDs when UIDPLUS allows).
            client.copy(uids, self._move_folder)
            client.add_flags(uids, [DELETED], silent=True)
            if client.has_capability("UIDPLUS"):
                client.uid_expunge(uids)
            else:
                client.expunge()

    def _notify(self) -> None:
        if self._on_stored is None:
            return
        try:
            self._on_stored()
        except Exception:
            # What runs after storing is not the mailbox's business: the mail is safe.
            self._log.exception("IMAP: on_stored callback failed")

    # -- closing ---------------------------------------------------------------------

    def close(self) -> None:
        """Log out and close the connection, if any (``run`` does this when it ends).

        To end ``run`` from another thread, set ``stop``: closing alone only makes it
        reconnect.
        """
        client, self._client = self._client, None
        if client is None:
            return
        try:
            # A short timeout: a dead server must not hold up shutting down.
            client.socket().settimeout(min(self._timeout, 5.0))
            client.logout()
        except Exception:
            _shutdown(client)

    def _drop(self) -> None:
        """Close the connection after an error, without talking to the server."""
        client, self._client = self._client, None
        if client is not None:
            _shutdown(client)


def _mail_announced(client: Any) -> bool:
    """Whether the server announced messages (EXISTS) since the last call.

    Reads and then empties imaplib's store of unsolicited responses, which would otherwise
    grow for as long as the connection lasts (IMAPClient takes out only what it asked for).
    """
    untagged = getattr(getattr(client, "_imap", None), "untagged_responses", None)
    if not isinstance(untagged, dict):
        return False
    announced = bool(untagged.get("EXISTS"))
    untagged.clear()
    return announced


def _buffered(client: Any) -> bool:
    """Whether imaplib's buffered reader holds data not yet parsed (without blocking)."""
    reader = getattr(getattr(client, "_imap", None), "file", None)
    if reader is None or not hasattr(reader, "peek"):
        return False
    sock = client.socket()
    if readable(sock, 0):
        return True  # more on the wire anyway
    # Nothing on the socket, so a read would block: make it non-blocking to peek.
    timeout = sock.gettimeout()
    sock.setblocking(False)
    try:
        return bool(reader.peek(1))
    except OSError:  # TLS's "want read": nothing buffered
        return False
    finally:
        sock.settimeout(timeout)


def _shutdown(client: Any) -> None:
    # An error here means the socket is already closed: nothing is left to release.
    with contextlib.suppress(Exception):
        client.shutdown()


def _keep_alive(sock: socket.socket) -> None:
    """TCP keep-alives, so a peer that vanished without closing is noticed in about two
    minutes during a long IDLE instead of at its renewal."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (("TCP_KEEPIDLE", 60), ("TCP_KEEPINTVL", 15), ("TCP_KEEPCNT", 4)):
        if hasattr(socket, option):  # Linux names; other systems keep their defaults
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)


def _hint(err: Exception, settings: ImapSettings) -> str:
    """What to check in ``[imap]`` for a connection error that comes from the settings."""
    if isinstance(err, LoginError):
        return " (check [imap] username and password)"
    return settings_hint(
        err, "imap", implicit_tls=settings.security == "tls", tls_port="IMAPS port, usually 993"
    )
