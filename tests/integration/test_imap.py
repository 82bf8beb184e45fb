"""The IMAP inbox against a real Dovecot (tests/support/dovecot.py): store first, then mark."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from imapclient import IMAPClient  # type: ignore[import-untyped]
from sqlalchemy import func, select
from support.dovecot import Dovecot
from support.netutil import free_port

from judge.config import ImapSettings
from judge.db.models import InboundMessage
from judge.db.session import make_engine, make_sessionmaker, upgrade
from judge.mail.imap import STORED_KEYWORD, ImapInbox
from judge.services.intake import receive

SEEN = b"\\Seen"


def message(subject: str, message_id: str | None = None) -> bytes:
    """A small player's message with a unique (or the given) Message-ID."""
    mid = message_id or f"<{uuid.uuid4().hex}@example.org>"
    return (
        f"From: Player <player@example.org>\r\nTo: judge@example.org\r\n"
        f"Subject: {subject}\r\nMessage-ID: {mid}\r\n"
        f"Date: Mon, 1 Jan 2024 12:00:00 +0000\r\n\r\nSIGNON Fwinter01 secret\r\n"
    ).encode()


def subject_of(raw: bytes) -> str:
    for line in raw.split(b"\r\n"):
        if line.startswith(b"Subject: "):
            return line[len(b"Subject: ") :].decode()
    raise AssertionError(f"no Subject in {raw[:200]!r}")


class Recorder:
    """A ``store`` that keeps what it was given, and can be told to fail."""

    def __init__(self) -> None:
        self.raw: list[bytes] = []
        self.fail_on: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, raw: bytes) -> None:
        subject = subject_of(raw)
        if subject in self.fail_on:
            raise RuntimeError(f"database unavailable for {subject}")
        with self.lock:
            self.raw.append(raw)

    @property
    def subjects(self) -> list[str]:
        with self.lock:
            return [subject_of(raw) for raw in self.raw]


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> float:
    """Seconds until ``condition()`` held; fails after ``timeout``."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(0.02)
    return time.monotonic() - start


@contextmanager
def session_client(settings: ImapSettings, folder: str = "INBOX") -> Iterator[Any]:
    """A separate plain connection, for a test to pass to fetch_pending or to look with."""
    client = IMAPClient(settings.host, port=settings.port, ssl=False, timeout=10)
    client.login(settings.username, settings.password)
    client.select_folder(folder)
    try:
        yield client
    finally:
        client.logout()


def flags(settings: ImapSettings, folder: str = "INBOX") -> dict[str, set[bytes]]:
    """Each message's flags in ``folder``, by Subject."""
    with session_client(settings, folder) as client:
        uids = client.search(["ALL"])
        if not uids:
            return {}
        data = client.fetch(uids, [b"FLAGS", b"BODY.PEEK[HEADER.FIELDS (SUBJECT)]"])
    result = {}
    for item in data.values():
        header = item[b"BODY[HEADER.FIELDS (SUBJECT)]"].strip()
        result[subject_of(header + b"\r\n")] = set(item[b"FLAGS"])
    return result


@contextmanager
def running(inbox: ImapInbox, stop: threading.Event) -> Iterator[threading.Thread]:
    """``inbox.run()`` in a thread; on leaving, stop it and check it ended within 2 s."""
    thread = threading.Thread(target=inbox.run, name="imap-inbox", daemon=True)
    thread.start()
    try:
        yield thread
    finally:
        stop.set()
        thread.join(timeout=2.0)
        assert not thread.is_alive(), "run() did not end within 2 s of stop"


class Counter:
    """An ``on_stored`` that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1


# -- one pass -------------------------------------------------------------------------


def test_flag_stores_in_order_then_flags(dovecot: Dovecot, imap_user: str) -> None:
    for n in range(5):
        dovecot.deliver(message(f"m{n}"), imap_user)
    settings = dovecot.imap_settings(imap_user)
    store, batches = Recorder(), Counter()
    inbox = ImapInbox(settings, store, stop=threading.Event(), on_stored=batches, batch_size=2)
    with session_client(settings) as client:
        assert inbox.fetch_pending(client) == 5
        assert inbox.fetch_pending(client) == 0
    assert store.subjects == ["m0", "m1", "m2", "m3", "m4"]
    assert batches.calls == 3
    # What Dovecot delivered, byte for byte (LMTP adds Return-Path and Received).
    assert store.raw[0].endswith(message("m0").split(b"\r\n\r\n")[1])
    for subject, seen in flags(settings).items():
        assert STORED_KEYWORD in seen, subject
        assert SEEN not in seen, "BODY.PEEK must leave the message unread"


def test_seen_marks_read(dovecot: Dovecot, imap_user: str) -> None:
    dovecot.deliver(message("a"), imap_user)
    dovecot.deliver(message("b"), imap_user)
    settings = dovecot.imap_settings(imap_user, after="seen")
    store = Recorder()
    inbox = ImapInbox(settings, store, stop=threading.Event())
    with session_client(settings) as client:
        assert inbox.fetch_pending(client) == 2
        assert inbox.fetch_pending(client) == 0
    assert store.subjects == ["a", "b"]
    assert all(SEEN in f and STORED_KEYWORD not in f for f in flags(settings).values())


def test_move_creates_the_folder_and_empties_the_inbox(dovecot: Dovecot, imap_user: str) -> None:
    dovecot.deliver(message("a"), imap_user)
    dovecot.deliver(message("b"), imap_user)
    settings = dovecot.imap_settings(imap_user, after="move", move_to="Judge/Processed")
    store, stop = Recorder(), threading.Event()
    inbox = ImapInbox(settings, store, stop=stop)
    with running(inbox, stop):
        wait_until(lambda: not flags(settings))
    assert store.subjects == ["a", "b"]
    # Dovecot's Maildir++ layout separates levels with ".", not "/".
    assert set(flags(settings, "Judge.Processed")) == {"a", "b"}


def test_a_failed_store_leaves_the_message_for_the_next_pass(
    dovecot: Dovecot, imap_user: str, caplog: pytest.LogCaptureFixture
) -> None:
    for subject in ("a", "b", "c"):
        dovecot.deliver(message(subject), imap_user)
    settings = dovecot.imap_settings(imap_user)
    store = Recorder()
    store.fail_on = {"b"}
    inbox = ImapInbox(settings, store, stop=threading.Event(), batch_size=10)
    with session_client(settings) as client:
        assert inbox.fetch_pending(client) == 1
        assert "storing message UID 2 failed" in caplog.text
        marked = flags(settings)
        assert STORED_KEYWORD in marked["a"]
        assert STORED_KEYWORD not in marked["b"]
        assert STORED_KEYWORD not in marked["c"], "the pass stops at the failure"
        store.fail_on = set()
        assert inbox.fetch_pending(client) == 2
    assert store.subjects == ["a", "b", "c"]
    assert all(STORED_KEYWORD in f for f in flags(settings).values())


def test_a_batch_is_stored_at_once_or_else_one_by_one(
    dovecot: Dovecot, imap_user: str, caplog: pytest.LogCaptureFixture
) -> None:
    for subject in ("a", "b", "c", "d", "e"):
        dovecot.deliver(message(subject), imap_user)
    settings = dovecot.imap_settings(imap_user)
    single = Recorder()
    batches: list[list[str]] = []
    refuse_batch = {"d"}

    def store_many(raws: Sequence[bytes]) -> None:
        subjects = [subject_of(raw) for raw in raws]
        if refuse_batch & set(subjects):
            raise RuntimeError("one of these is bad")
        batches.append(subjects)

    inbox = ImapInbox(settings, single, store_many=store_many, stop=threading.Event(), batch_size=3)
    with session_client(settings) as client:
        assert inbox.fetch_pending(client) == 5
    # The first fetch of three went in one call; the second (d, e) failed as a batch and
    # was stored message by message.
    assert batches == [["a", "b", "c"]]
    assert single.subjects == ["d", "e"]
    assert "storing 2 messages at once failed; storing them one by one" in caplog.text
    assert all(STORED_KEYWORD in f for f in flags(settings).values())


def test_with_the_judge_database(dovecot: Dovecot, imap_user: str, tmp_path: Path) -> None:
    """receive() commits each message once, even when one arrives twice or a crash comes
    between the commit and the flag."""
    url = f"sqlite:///{(tmp_path / 'judge.db').as_posix()}"
    upgrade(url)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    crash_after_commit = {"crash"}

    def store(raw: bytes) -> None:
        with sessions.begin() as session:
            receive(session, raw, datetime(2024, 1, 1, tzinfo=UTC))
        if subject_of(raw) in crash_after_commit:
            raise RuntimeError("the judge died before flagging")

    twice = message("twice")
    dovecot.deliver(message("once"), imap_user)
    dovecot.deliver(twice, imap_user)
    dovecot.deliver(twice, imap_user)  # the same Message-ID delivered again
    dovecot.deliver(message("crash"), imap_user)
    settings = dovecot.imap_settings(imap_user)
    inbox = ImapInbox(settings, store, stop=threading.Event())
    try:
        with session_client(settings) as client:
            assert inbox.fetch_pending(client) == 3
            assert STORED_KEYWORD not in flags(settings)["crash"]
            crash_after_commit.clear()
            assert inbox.fetch_pending(client) == 1
        with sessions() as session:
            rows = session.scalars(select(InboundMessage).order_by(InboundMessage.id)).all()
            assert [row.subject for row in rows] == ["once", "twice", "crash"]
            assert all(row.state == "new" for row in rows)
            assert session.scalar(select(func.count()).select_from(InboundMessage)) == 3
        assert all(STORED_KEYWORD in f for f in flags(settings).values())
    finally:
        engine.dispose()


# -- the loop -------------------------------------------------------------------------


def test_idle_stores_new_mail_within_two_seconds(dovecot: Dovecot, imap_user: str) -> None:
    dovecot.deliver(message("early"), imap_user)
    settings = dovecot.imap_settings(imap_user)
    store, stop = Recorder(), threading.Event()
    inbox = ImapInbox(settings, store, stop=stop)
    with running(inbox, stop):
        wait_until(lambda: store.subjects == ["early"])
        time.sleep(0.3)  # in IDLE by now
        dovecot.deliver(message("late"), imap_user)
        assert wait_until(lambda: len(store.raw) == 2) < 2.0
        stopping = time.monotonic()
    assert time.monotonic() - stopping < 2.0
    assert store.subjects == ["early", "late"]


def test_mail_following_the_first_is_gathered_into_one_batch(
    dovecot: Dovecot, imap_user: str
) -> None:
    settings = dovecot.imap_settings(imap_user)
    batches: list[list[str]] = []
    stop = threading.Event()

    def store_many(raws: Sequence[bytes]) -> None:
        batches.append([subject_of(raw) for raw in raws])

    inbox = ImapInbox(settings, Recorder(), store_many=store_many, stop=stop, gather=1.0)
    with running(inbox, stop):
        time.sleep(0.3)  # in IDLE by now
        started = time.monotonic()
        for subject in ("a", "b", "c", "d"):
            dovecot.deliver(message(subject), imap_user)
        assert time.monotonic() - started < 0.8, "delivery too slow for this test"
        wait_until(lambda: bool(batches), timeout=5.0)
        elapsed = time.monotonic() - started
    # One pass, a second after the first message was announced, for all four.
    assert batches == [["a", "b", "c", "d"]]
    assert elapsed >= 1.0


def test_mail_arriving_during_a_pass_is_not_left_for_later(
    dovecot: Dovecot, imap_user: str
) -> None:
    """The server announces it in the reply to one of the pass's commands, not in the IDLE
    that follows: the inbox must notice that announcement, or the message would wait for
    the next mail or the IDLE renewal."""
    store, stop = Recorder(), threading.Event()

    def store_and_receive_more(raw: bytes) -> None:
        store(raw)
        if subject_of(raw) == "first":
            dovecot.deliver(message("during the pass"), imap_user)

    dovecot.deliver(message("first"), imap_user)
    inbox = ImapInbox(dovecot.imap_settings(imap_user), store_and_receive_more, stop=stop)
    with running(inbox, stop):
        wait_until(lambda: len(store.raw) == 2, timeout=3.0)
    assert store.subjects == ["first", "during the pass"]


class DeliverBeforeIdle(ImapInbox):
    """Mail arrives just before each IDLE starts (after the pass's last command)."""

    def __init__(self, *args: Any, deliver: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deliver = deliver

    def _idle(self, client: Any, seconds: float) -> None:
        self.deliver()
        super()._idle(client, seconds)


@pytest.mark.parametrize("security", ["none", "tls"])
def test_mail_arriving_just_before_idle(dovecot: Dovecot, imap_user: str, security: str) -> None:
    """Dovecot announces it right after IDLE's "+ idling", often in the same packet, so it
    can sit in imaplib's buffer rather than on the socket."""
    store, stop = Recorder(), threading.Event()
    delivered: list[str] = []

    def deliver() -> None:
        if len(delivered) < 3:
            delivered.append(f"m{len(delivered)}")
            dovecot.deliver(message(delivered[-1]), imap_user)

    settings = dovecot.imap_settings(imap_user, security=security)
    inbox = DeliverBeforeIdle(settings, store, stop=stop, deliver=deliver)
    with running(inbox, stop):
        wait_until(lambda: len(store.raw) == 3, timeout=3.0)
    assert store.subjects == ["m0", "m1", "m2"]


def test_idle_is_renewed(dovecot: Dovecot, imap_user: str) -> None:
    settings = dovecot.imap_settings(imap_user, idle_seconds=0.3)
    store, stop = Recorder(), threading.Event()
    inbox = ImapInbox(settings, store, stop=stop)
    with running(inbox, stop):
        time.sleep(0.8)  # a few IDLE commands started and ended
        dovecot.deliver(message("after renewals"), imap_user)
        assert wait_until(lambda: len(store.raw) == 1) < 2.0


def test_polling_when_idle_is_not_used(dovecot: Dovecot, imap_user: str) -> None:
    settings = dovecot.imap_settings(imap_user, poll_seconds=0.3)
    store, stop = Recorder(), threading.Event()
    inbox = ImapInbox(settings, store, stop=stop, use_idle=False)
    with running(inbox, stop):
        time.sleep(0.2)
        dovecot.deliver(message("polled"), imap_user)
        assert wait_until(lambda: len(store.raw) == 1) < 2.0
    assert STORED_KEYWORD in flags(settings)["polled"]


def test_stop_ends_a_long_poll_wait(dovecot: Dovecot, imap_user: str) -> None:
    settings = dovecot.imap_settings(imap_user, poll_seconds=600)
    stop = threading.Event()
    with running(ImapInbox(settings, Recorder(), stop=stop, use_idle=False), stop):
        time.sleep(0.3)


def test_retry_after_a_store_failure_while_idling(dovecot: Dovecot, imap_user: str) -> None:
    """A failed message is tried again after poll_seconds, not only when more mail comes."""
    dovecot.deliver(message("flaky"), imap_user)
    settings = dovecot.imap_settings(imap_user, poll_seconds=0.5)
    store, stop = Recorder(), threading.Event()
    store.fail_on = {"flaky"}
    inbox = ImapInbox(settings, store, stop=stop)
    with running(inbox, stop):
        time.sleep(0.3)
        store.fail_on = set()
        wait_until(lambda: store.subjects == ["flaky"], timeout=3.0)


def test_server_restart_reconnects_and_catches_up(
    dovecot: Dovecot, imap_user: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="judge.mail.imap")
    settings = dovecot.imap_settings(imap_user)
    store, stop, batches = Recorder(), threading.Event(), Counter()
    inbox = ImapInbox(settings, store, stop=stop, on_stored=batches)
    with running(inbox, stop):
        dovecot.deliver(message("before"), imap_user)
        wait_until(lambda: batches.calls == 1)
        dovecot.restart()  # drops the connection; the inbox is now waiting to reconnect
        dovecot.deliver(message("while away"), imap_user)
        wait_until(lambda: batches.calls == 2, timeout=15.0)
        dovecot.deliver(message("after"), imap_user)
        assert wait_until(lambda: batches.calls == 3) < 2.0
    assert store.subjects == ["before", "while away", "after"]
    assert "reconnecting in 1 s" in caplog.text
    assert all(STORED_KEYWORD in f for f in flags(settings).values())


class FlakyInbox(ImapInbox):
    """Connection attempts fail as scripted; a good connection ends its session at once."""

    def __init__(self, *args: Any, failures: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.failures = failures  # refused attempts before each good connection
        self.sessions = 0

    def _connect(self) -> Any:
        if self.failures[self.sessions] > 0:
            self.failures[self.sessions] -= 1
            raise ConnectionRefusedError("scripted refusal")
        return super()._connect()

    def _serve(self, client: Any) -> None:
        self.sessions += 1
        if self.sessions == len(self.failures):
            self._stop.set()
            return
        raise ConnectionResetError("scripted reset")


def test_backoff_doubles_to_a_minute_and_resets(dovecot: Dovecot, imap_user: str) -> None:
    slept: list[float] = []
    stop = threading.Event()
    inbox = FlakyInbox(
        dovecot.imap_settings(imap_user),
        Recorder(),
        stop=stop,
        sleep=slept.append,
        failures=[8, 1, 0],
    )
    inbox.run()
    assert slept == [1, 2, 4, 8, 16, 32, 60, 60, 1, 2, 1]


def test_a_bad_password_is_retried_and_never_logged(
    dovecot: Dovecot, imap_user: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    stop = threading.Event()
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 2:
            stop.set()

    settings = dovecot.imap_settings(imap_user, password="not-the-Secret-42")
    ImapInbox(settings, Recorder(), stop=stop, sleep=sleep).run()
    assert slept == [1, 2]
    assert "LoginError" in caplog.text
    assert "(check [imap] username and password); reconnecting in 1 s" in caplog.text
    assert "not-the-Secret-42" not in caplog.text


# -- TLS ------------------------------------------------------------------------------


@pytest.mark.parametrize("security", ["tls", "starttls"])
def test_tls_with_a_private_ca(dovecot: Dovecot, imap_user: str, security: str) -> None:
    settings = dovecot.imap_settings(imap_user, security=security)
    assert settings.ca_file
    store, stop = Recorder(), threading.Event()
    dovecot.deliver(message("secure"), imap_user)
    with running(ImapInbox(settings, store, stop=stop), stop):
        wait_until(lambda: store.subjects == ["secure"])
        dovecot.deliver(message("secure idle"), imap_user)
        wait_until(lambda: len(store.raw) == 2, timeout=2.0)


@pytest.mark.parametrize("security", ["tls", "starttls"])
def test_tls_refuses_an_untrusted_certificate(
    dovecot: Dovecot, imap_user: str, security: str, caplog: pytest.LogCaptureFixture
) -> None:
    settings = dovecot.imap_settings(imap_user, security=security, ca_file="")
    stop = threading.Event()
    dovecot.deliver(message("not read"), imap_user)
    store = Recorder()
    ImapInbox(settings, store, stop=stop, sleep=lambda _seconds: stop.set()).run()
    assert "CERTIFICATE_VERIFY_FAILED" in caplog.text
    assert "set [imap] ca_file to the CA that signed it" in caplog.text
    assert store.raw == []


def test_tls_on_a_plain_port_names_the_fix(
    dovecot: Dovecot, imap_user: str, caplog: pytest.LogCaptureFixture
) -> None:
    plain = dovecot.imap_settings(imap_user)
    settings = dovecot.imap_settings(imap_user, security="tls", port=plain.port)
    stop = threading.Event()
    ImapInbox(settings, Recorder(), stop=stop, sleep=lambda _seconds: stop.set()).run()
    assert "WRONG_VERSION_NUMBER" in caplog.text
    assert (
        "(the server does not speak TLS on this port: use its IMAPS port, usually 993, or "
        'security = "starttls" on this one); reconnecting in 1 s'
    ) in caplog.text


def test_nothing_listening_names_the_settings_to_check(caplog: pytest.LogCaptureFixture) -> None:
    port = free_port()  # closed again: nothing listens there
    settings = ImapSettings(
        host="127.0.0.1", port=port, security="none", username="u", password="p"
    )
    stop = threading.Event()
    ImapInbox(settings, Recorder(), stop=stop, sleep=lambda _seconds: stop.set()).run()
    assert (
        f"IMAP 127.0.0.1:{port}: ConnectionRefusedError: [Errno 111] Connection refused "
        "(nothing listens there: check [imap] host and port); reconnecting in 1 s"
    ) in caplog.text
