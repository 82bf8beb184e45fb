"""Sending the outbox through a real SMTP server (aiosmtpd): headers, retries, refusals, TLS."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker
from support.smtpsink import SmtpSink

from judge.config import JudgeSettings, SmtpSettings
from judge.db import Game, OutboundMessage, make_engine, make_sessionmaker, upgrade
from judge.mail.outgoing import OutgoingMail
from judge.mail.smtp_out import SmtpTransport
from judge.mail.transport import PermanentError, ServerUnavailable, TransientError
from judge.render import RenderedMail
from judge.runtime.sender import CLAIM_BATCH, CLAIM_TIME, SentJournal, deliver_pending
from judge.services.context import Judge
from judge.services.outbox import outgoing_mail, queue_mail

T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
JUDGE = "judge@example.org"
GM = "gm@example.org"


@dataclass
class Clock:
    """The tests' time: it moves only when told."""

    now: datetime = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request: pytest.FixtureRequest) -> Iterator[sessionmaker[Session]]:
    """Sessions on a migrated database, once on SQLite and once on PostgreSQL."""
    fixture = "sqlite_url" if request.param == "sqlite" else "postgres_database_url"
    url: str = request.getfixturevalue(fixture)
    upgrade(url)
    engine = make_engine(url)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture
def sessions(sqlite_url: str) -> Iterator[sessionmaker[Session]]:
    """Sessions on a migrated SQLite database."""
    upgrade(sqlite_url)
    engine = make_engine(sqlite_url)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture
def clock() -> Clock:
    return Clock()


def make_judge(sink: SmtpSink, **smtp: Any) -> Judge:
    """A judge that sends through ``sink``; ``smtp`` overrides the plain-text settings."""
    settings = SmtpSettings(host=sink.host, port=sink.port, security="none", timeout=5.0)
    return Judge(
        settings=JudgeSettings(
            name="TESTJUDGE",
            address=JUDGE,
            smtp=replace(settings, **smtp),
        )
    )


def add_game(sessions: sessionmaker[Session], master: str | None = GM) -> int:
    with sessions.begin() as session:
        game = Game(name="winter01", master_address=master, created_at=T0, updated_at=T0)
        session.add(game)
        session.flush()
        return game.id


def queue(
    sessions: sessionmaker[Session],
    judge: Judge,
    to: str,
    subject: str = "Diplomacy game winter01: results",
    *,
    kind: str = "results",
    game_id: int | None = None,
    in_reply_to: str | None = None,
    references: tuple[str, ...] = (),
) -> str:
    """Queue one email at T0; return its Message-ID."""
    with sessions.begin() as session:
        return queue_mail(
            session,
            judge,
            to=to,
            mail=RenderedMail(subject, f"Hello {to}.\n\n.A line starting with a dot.\n"),
            kind=kind,
            now=T0,
            game_id=game_id,
            in_reply_to=in_reply_to,
            references=references,
        )


def outbox(sessions: sessionmaker[Session]) -> list[OutboundMessage]:
    with sessions() as session:
        return list(session.scalars(select(OutboundMessage).order_by(OutboundMessage.id)))


def by_id(sessions: sessionmaker[Session], message_id: str) -> OutboundMessage:
    with sessions() as session:
        return session.scalars(
            select(OutboundMessage).where(OutboundMessage.message_id == message_id)
        ).one()


def deliver(sessions: sessionmaker[Session], judge: Judge, clock: Clock, **options: Any) -> int:
    """One delivery run through a fresh SmtpTransport, as the judge's sender does it."""
    assert judge.settings.smtp is not None
    with SmtpTransport(judge.settings.smtp) as transport:
        return deliver_pending(sessions, judge, transport, clock, **options)


# --- delivery ----------------------------------------------------------------------------


def test_mail_arrives_once_with_the_judges_headers(
    any_db: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock
) -> None:
    judge = make_judge(smtp_sink)
    reply_id = queue(
        any_db,
        judge,
        "alice@example.org",
        "Re: orders",
        kind="confirm",
        in_reply_to="<orders-2@example.org>",
        references=("<orders-1@example.org>",),
    )
    results_id = queue(any_db, judge, "bob@example.org")
    clock.advance(minutes=1)

    assert deliver(any_db, judge, clock) == 2

    reply, results = smtp_sink.received
    expected = [(reply, reply_id, "alice@example.org"), (results, results_id, "bob@example.org")]
    for got, message_id, to in expected:
        assert got.mail_from == JUDGE  # the envelope sender: bounces come to the judge
        assert got.rcpt_tos == (to,)
        mail = got.message
        assert mail["Message-ID"] == message_id
        assert mail["From"] == f"TESTJUDGE <{JUDGE}>"
        assert mail["To"] == to
        assert mail["X-Auto-Response-Suppress"] == "All"
        assert mail["Precedence"] == "bulk"
        assert mail["X-Loop"] == JUDGE
        assert mail["Date"] is not None
        # Dot-stuffing undone by the server: the line arrives as written.
        assert got.text() == f"Hello {to}.\n\n.A line starting with a dot.\n"
        assert b"\r\n" in got.raw and not got.tls and got.login is None
    assert reply.message["Subject"] == "Re: orders"
    assert reply.message["Auto-Submitted"] == "auto-replied"
    assert reply.message["In-Reply-To"] == "<orders-2@example.org>"
    assert reply.message["References"] == "<orders-1@example.org> <orders-2@example.org>"
    assert results.message["Auto-Submitted"] == "auto-generated"
    assert "In-Reply-To" not in results.message and "References" not in results.message
    # One connection for the run.
    assert reply.peer == results.peer

    for row in outbox(any_db):
        assert (row.state, row.attempts, row.sent_at, row.next_attempt_at) == (
            "sent",
            1,
            T0 + timedelta(minutes=1),
            None,
        )
    # A second run finds nothing to do.
    clock.advance(hours=2)
    assert deliver(any_db, judge, clock) == 0
    assert len(smtp_sink.received) == 2


def test_451_for_a_while_then_every_mail_arrives_exactly_once(
    any_db: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock
) -> None:
    judge = make_judge(smtp_sink)
    queued = [queue(any_db, judge, f"p{n}@example.org") for n in range(3)]
    # The server is unwell for the first three minutes of the test's clock.
    smtp_sink.refuse_while(lambda: clock.now < T0 + timedelta(minutes=3))

    runs = []
    for _ in range(6):
        runs.append(deliver(any_db, judge, clock, retry_delay=timedelta(0)))
        clock.advance(minutes=1)

    assert runs == [0, 0, 0, 3, 0, 0]
    assert smtp_sink.message_ids() == queued
    assert len(smtp_sink.refusals) == 9
    for row in outbox(any_db):
        assert (row.state, row.attempts) == ("sent", 4)
        assert row.last_error is not None
        assert "451 4.3.0 Try again later" in row.last_error
        assert row.last_error.startswith("TransientError: ")


def test_retry_delays_double_up_to_an_hour_and_wait_their_turn(
    sessions: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock
) -> None:
    judge = make_judge(smtp_sink, max_attempts=20)
    message_id = queue(sessions, judge, "alice@example.org")
    smtp_sink.refuse_next(9)

    delays = []
    for attempt in range(1, 10):
        assert deliver(sessions, judge, clock) == 0
        row = by_id(sessions, message_id)
        assert (row.state, row.attempts) == ("queued", attempt)
        assert row.next_attempt_at is not None
        delay = row.next_attempt_at - clock.now
        delays.append(delay.total_seconds())
        # Not due a second early: a run then does nothing.
        clock.advance(seconds=delay.total_seconds() - 1)
        assert deliver(sessions, judge, clock) == 0
        assert by_id(sessions, message_id).attempts == attempt
        clock.advance(seconds=1)
    assert delays == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600]
    assert deliver(sessions, judge, clock) == 1
    assert smtp_sink.message_ids() == [message_id]


# --- giving up ---------------------------------------------------------------------------


def test_550_for_one_recipient_fails_that_mail_and_tells_the_master_once(
    any_db: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock
) -> None:
    judge = make_judge(smtp_sink)
    game_id = add_game(any_db)
    alice = queue(any_db, judge, "alice@example.org", game_id=game_id)
    bob = queue(any_db, judge, "bob@example.org", game_id=game_id)
    carol = queue(any_db, judge, "carol@example.org", game_id=game_id)
    smtp_sink.refuse_recipient("bob@example.org")

    assert deliver(any_db, judge, clock) == 2
    assert smtp_sink.message_ids() == [alice, carol]
    failed = by_id(any_db, bob)
    assert (failed.state, failed.attempts, failed.next_attempt_at) == ("failed", 1, None)
    server = f"127.0.0.1:{smtp_sink.port}"
    reason = f"{server} refused the recipient bob@example.org: 550 5.1.1 No such user here"
    assert failed.last_error == f"PermanentError: {reason}"

    # The notice is queued in the same transaction and goes out with the next run.
    clock.advance(minutes=1)
    assert deliver(any_db, judge, clock) == 1
    [note] = smtp_sink.messages_to(GM)
    # Python folds this long subject right after "Subject:" and its parser keeps the space
    # that starts the continuation line; mail readers drop it.
    assert note.message["Subject"].lstrip() == (
        "Diplomacy game winter01: mail to bob@example.org could not be delivered"
    )
    assert note.message["Auto-Submitted"] == "auto-generated"
    assert note.text() == (
        "To the game master of 'winter01':\n"
        "\n"
        'The judge could not deliver the email "Diplomacy game winter01: results" to '
        f"bob@example.org (Message-ID {bob}, written 2026-11-23 12:00 UTC).\n"
        "\n"
        f"The mail server refused it: {reason}\n"
        "\n"
        "The judge will not send it again. If the address is wrong, have it corrected; "
        "the player may need to hear about it some other way.\n"
        "\n"
        "TESTJUDGE\n"
    )
    clock.advance(hours=2)
    assert deliver(any_db, judge, clock) == 0
    with any_db() as session:
        notices = session.scalars(
            select(OutboundMessage).where(OutboundMessage.kind == "notice")
        ).all()
        assert [(n.to_addr, n.game_id, n.state) for n in notices] == [(GM, game_id, "sent")]


def test_max_attempts_from_the_settings_then_failed_and_a_notice(
    sessions: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock
) -> None:
    judge = make_judge(smtp_sink, max_attempts=3)
    game_id = add_game(sessions)
    message_id = queue(sessions, judge, "alice@example.org", game_id=game_id)
    smtp_sink.refuse_next(3)

    for attempt in (1, 2, 3):
        assert deliver(sessions, judge, clock, retry_delay=timedelta(0)) == 0
        assert by_id(sessions, message_id).attempts == attempt
    row = by_id(sessions, message_id)
    assert (row.state, row.next_attempt_at) == ("failed", None)

    assert deliver(sessions, judge, clock, retry_delay=timedelta(0)) == 1  # the notice
    [note] = smtp_sink.received
    assert note.rcpt_tos == (GM,)
    assert (
        "It was tried 3 times; the last failure was: "
        f"127.0.0.1:{smtp_sink.port} refused the message: 451 4.3.0 Try again later"
    ) in note.text()
    assert deliver(sessions, judge, clock, retry_delay=timedelta(0)) == 0


def test_a_failed_notice_is_only_logged(
    sessions: sessionmaker[Session],
    smtp_sink: SmtpSink,
    clock: Clock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    judge = make_judge(smtp_sink)
    game_id = add_game(sessions)
    queue(sessions, judge, "bob@example.org", game_id=game_id)
    smtp_sink.refuse_recipient("bob@example.org")
    smtp_sink.refuse_recipient(GM)

    with caplog.at_level(logging.ERROR, logger="judge.services.outbox"):
        assert deliver(sessions, judge, clock) == 0  # bob fails; a notice is queued
        assert deliver(sessions, judge, clock) == 0  # the notice fails; nothing more
        assert deliver(sessions, judge, clock) == 0
    assert [(m.kind, m.to_addr, m.state) for m in outbox(sessions)] == [
        ("results", "bob@example.org", "failed"),
        ("notice", GM, "failed"),
    ]
    assert "not telling anyone about the failed notice" in caplog.text


def test_without_a_game_master_a_failure_is_only_logged(
    sessions: sessionmaker[Session],
    smtp_sink: SmtpSink,
    clock: Clock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    judge = make_judge(smtp_sink)
    game_id = add_game(sessions, master=None)
    queue(sessions, judge, "bob@example.org", game_id=game_id)
    queue(sessions, judge, "carol@example.org")  # no game at all
    smtp_sink.refuse_recipient("bob@example.org")
    smtp_sink.refuse_recipient("carol@example.org")

    with caplog.at_level(logging.ERROR, logger="judge.services.outbox"):
        assert deliver(sessions, judge, clock) == 0
    assert [m.state for m in outbox(sessions)] == ["failed", "failed"]
    assert caplog.text.count("has no game master to tell") == 2


# --- the server away ---------------------------------------------------------------------


def test_a_stopped_server_is_a_transient_failure_that_ends_the_run(
    sessions: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock
) -> None:
    judge = make_judge(smtp_sink)
    first = queue(sessions, judge, "alice@example.org")
    second = queue(sessions, judge, "bob@example.org")
    smtp_sink.stop()

    assert deliver(sessions, judge, clock) == 0
    row = by_id(sessions, first)
    assert (row.state, row.attempts, row.next_attempt_at) == (
        "queued",
        1,
        T0 + timedelta(seconds=30),
    )
    assert row.last_error is not None
    assert row.last_error.startswith("ServerUnavailable: cannot reach 127.0.0.1:")
    assert row.last_error.endswith(
        "Connection refused (nothing listens there: check [smtp] host and port)"
    )
    # The second was not tried: it would only have failed the same way.
    assert by_id(sessions, second).attempts == 0

    smtp_sink.start()
    clock.advance(seconds=30)
    assert deliver(sessions, judge, clock) == 2
    assert smtp_sink.message_ids() == [first, second]


def test_claimed_messages_not_tried_get_their_turn_back(
    sessions: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock
) -> None:
    """Messages are claimed CLAIM_BATCH at a time; when the server goes away mid-batch,
    the rest of the batch is given back untouched, and nothing is sent twice."""
    judge = make_judge(smtp_sink)
    assert judge.settings.smtp is not None
    total = 2 * CLAIM_BATCH + 5
    ids = [queue(sessions, judge, f"p{n}@example.org") for n in range(total)]
    stop_at = CLAIM_BATCH + 5  # the sixth message of the second batch finds no server

    class StopsTheServer:
        def __init__(self, inner: SmtpTransport) -> None:
            self.inner, self.sent = inner, 0

        def send(self, mail: OutgoingMail) -> None:
            if self.sent == stop_at:
                smtp_sink.stop()
            self.inner.send(mail)
            self.sent += 1

    with SmtpTransport(judge.settings.smtp) as transport:
        assert deliver_pending(sessions, judge, StopsTheServer(transport), clock) == stop_at
    rows = {row.message_id: row for row in outbox(sessions)}
    assert [rows[i].state for i in ids] == ["sent"] * stop_at + ["queued"] * (total - stop_at)
    failed = rows[ids[stop_at]]
    assert (failed.attempts, failed.next_attempt_at) == (1, T0 + timedelta(seconds=30))
    for message_id in ids[stop_at + 1 :]:
        assert (rows[message_id].attempts, rows[message_id].next_attempt_at) == (0, None)

    smtp_sink.start()
    assert deliver(sessions, judge, clock) == total - stop_at - 1  # all but the one waiting
    clock.advance(seconds=30)
    assert deliver(sessions, judge, clock) == 1
    assert sorted(smtp_sink.message_ids()) == sorted(ids)
    assert all(row.attempts == 1 for row in outbox(sessions) if row.message_id != ids[stop_at])


def test_the_sent_journal_is_committed_by_the_next_run_and_nothing_is_sent_twice(
    sessions: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock, tmp_path: Path
) -> None:
    """A sender killed between the server's 250 and the database commit left the message
    in its journal: the next run records it as sent instead of sending it again."""
    judge = make_judge(smtp_sink)
    assert judge.settings.smtp is not None
    first, second = queue(sessions, judge, "a@example.org"), queue(sessions, judge, "b@example.org")
    path = tmp_path / "outbox.journal"
    journal = SentJournal(path)
    with pytest.raises(BlockingIOError):
        SentJournal(path)  # one sender per journal
    # The state a SIGKILL leaves: `first` claimed and sent, its line in the journal, and a
    # line cut short after it.
    row = by_id(sessions, first)
    with sessions.begin() as session:
        session.get(OutboundMessage, row.id).attempts = 1  # type: ignore[union-attr]
    journal.add(row.id, T0 + timedelta(seconds=5))
    with path.open("ab") as raw:
        raw.write(b"99")
    assert journal.entries() == [(row.id, T0 + timedelta(seconds=5))]

    with SmtpTransport(judge.settings.smtp) as transport:
        assert deliver_pending(sessions, judge, transport, clock, journal=journal) == 1
    assert smtp_sink.message_ids() == [second]
    done = by_id(sessions, first)
    assert (done.state, done.sent_at, done.attempts) == ("sent", T0 + timedelta(seconds=5), 1)
    assert by_id(sessions, second).state == "sent"
    assert journal.entries() == [] and path.read_bytes() == b""
    journal.close()
    SentJournal(path).close()  # free again once closed


def test_a_connection_dropped_between_messages_is_replaced(
    sessions: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock
) -> None:
    judge = make_judge(smtp_sink)
    assert judge.settings.smtp is not None
    first = queue(sessions, judge, "alice@example.org")
    with SmtpTransport(judge.settings.smtp) as transport:
        assert deliver_pending(sessions, judge, transport, clock) == 1
        smtp_sink.stop()  # closes the transport's open connection from the server's side
        smtp_sink.start()
        second = queue(sessions, judge, "bob@example.org")
        assert deliver_pending(sessions, judge, transport, clock) == 1
    assert smtp_sink.message_ids() == [first, second]
    assert smtp_sink.received[0].peer != smtp_sink.received[1].peer


def test_a_sender_that_dies_mid_send_leaves_the_message_claimed_for_a_while(
    sessions: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock
) -> None:
    judge = make_judge(smtp_sink)
    message_id = queue(sessions, judge, "alice@example.org")

    class Dying:
        def send(self, mail: OutgoingMail) -> None:
            raise KeyboardInterrupt  # the process ends: nothing is recorded

    with pytest.raises(KeyboardInterrupt):
        deliver_pending(sessions, judge, Dying(), clock)
    row = by_id(sessions, message_id)
    assert (row.state, row.attempts, row.next_attempt_at) == ("queued", 1, T0 + CLAIM_TIME)
    # Another sender (or the next run) leaves it alone while the claim lasts...
    assert deliver(sessions, judge, clock) == 0
    clock.advance(seconds=CLAIM_TIME.total_seconds())
    # ...and then sends it.
    assert deliver(sessions, judge, clock) == 1
    assert smtp_sink.message_ids() == [message_id]


def test_any_other_exception_is_transient(
    sessions: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock
) -> None:
    judge = make_judge(smtp_sink)
    message_id = queue(sessions, judge, "alice@example.org")
    second = queue(sessions, judge, "bob@example.org")

    class Broken:
        def send(self, mail: OutgoingMail) -> None:
            raise ValueError("something unexpected")

    assert deliver_pending(sessions, judge, Broken(), clock) == 0
    row = by_id(sessions, message_id)
    assert (row.state, row.attempts) == ("queued", 1)
    assert row.last_error == "ValueError: ValueError: something unexpected"
    assert by_id(sessions, second).attempts == 1  # not a server failure: the run went on
    clock.advance(seconds=30)
    assert deliver(sessions, judge, clock) == 2


# --- the transport alone -----------------------------------------------------------------


@pytest.fixture(params=["one command at a time", "pipelining"])
def relay(request: pytest.FixtureRequest) -> Iterator[SmtpSink]:
    """The sink, without and with PIPELINING offered: the transport sends MAIL, RCPT and
    DATA in one write to a server that offers it (two round trips a mail, not four), and
    every outcome is the same either way."""
    with SmtpSink(pipelining=request.param == "pipelining") as sink:
        yield sink


def sample(to: str = "alice@example.org", judge: Judge | None = None) -> OutgoingMail:
    """The mail of a detached outbox row, for calling a transport directly."""
    row = OutboundMessage(
        message_id="<sample@example.org>",
        to_addr=to,
        subject="test",
        body="body\n",
        headers={},
        kind="reply",
        created_at=T0,
    )
    return outgoing_mail(row, (judge or Judge()).settings, T0)


def test_smtp_replies_are_sorted_into_transient_and_permanent(relay: SmtpSink) -> None:
    judge = make_judge(relay)
    assert judge.settings.smtp is not None
    server = f"127.0.0.1:{relay.port}"
    relay.refuse_recipient("nobody@example.org")
    relay.refuse_recipient("full@example.org", "452 4.2.2 Mailbox full")
    relay.refuse_next(1, "554 5.6.0 Message rejected as spam")
    with SmtpTransport(judge.settings.smtp) as transport:
        with pytest.raises(PermanentError, match=r"refused the message: 554 5\.6\.0 Message"):
            transport.send(sample(judge=judge))
        with pytest.raises(PermanentError) as permanent:
            transport.send(sample("nobody@example.org", judge))
        assert str(permanent.value) == (
            f"{server} refused the recipient nobody@example.org: 550 5.1.1 No such user here"
        )
        with pytest.raises(TransientError, match=r"452 4\.2\.2 Mailbox full") as transient:
            transport.send(sample("full@example.org", judge))
        assert not isinstance(transient.value, ServerUnavailable)
        transport.send(sample(judge=judge))
        relay.stop()
        with pytest.raises(ServerUnavailable, match="Connection refused"):
            transport.send(sample(judge=judge))
    assert len(relay.received) == 1
    assert relay.received[0].pipelined is relay.pipelining
    # Each refusal was met where it was given: the 554 at the message's end, the
    # recipients at their RCPT.
    assert [reply[:3] for _what, reply in relay.refusals] == ["554", "550", "452"]


def test_the_body_arrives_as_written_and_as_the_maildir_has_it(
    relay: SmtpSink, tmp_path: Path
) -> None:
    """A line of the body that begins with "From " is no mbox separator: it arrives as
    written (smtplib's send_message wrote it ">From "), and the server gets the bytes the
    Maildir transport writes, with CRLF line ends and dot-stuffed."""
    from judge.mail.maildir import MaildirTransport, mailbox_dir

    judge = make_judge(relay)
    assert judge.settings.smtp is not None
    body = "From France: A Par-Bur.\n.\nFrom\nFrom  England\n>From Italy\n"
    mail = replace(sample(judge=judge), body=body)
    with SmtpTransport(judge.settings.smtp) as transport:
        transport.send(mail)
    [got] = relay.received
    assert got.text() == body
    assert got.pipelined is relay.pipelining
    MaildirTransport(tmp_path).send(mail)
    [kept] = list((mailbox_dir(tmp_path, mail.to) / "new").iterdir())
    assert got.raw == kept.read_bytes().replace(b"\n", b"\r\n")


def test_an_internationalised_address_goes_with_smtputf8(relay: SmtpSink) -> None:
    """The sink offers SMTPUTF8: a mail to a non-ASCII address goes in UTF-8 (RFC 6531),
    on the same connection as the others.  (A server without it: tests/mail.)"""
    judge = make_judge(relay)
    assert judge.settings.smtp is not None
    with SmtpTransport(judge.settings.smtp) as transport:
        transport.send(sample("jörg@exämple.de", judge))
        transport.send(sample(judge=judge))
    first, second = relay.received
    assert first.rcpt_tos == ("jörg@exämple.de",)
    assert "\r\nTo: jörg@exämple.de\r\n".encode() in first.raw
    assert first.text() == "body\n"
    assert second.rcpt_tos == ("alice@example.org",) and second.peer == first.peer
    assert [first.pipelined, second.pipelined] == [relay.pipelining] * 2


# --- TLS and login -----------------------------------------------------------------------


def test_starttls_with_a_login_against_a_test_ca(
    sessions: sessionmaker[Session], clock: Clock
) -> None:
    with SmtpSink(tls="starttls", users={"judge": "s3cret"}) as sink:
        assert sink.ca_file is not None
        judge = make_judge(
            sink,
            security="starttls",
            username="judge",
            password="s3cret",
            ca_file=str(sink.ca_file),
        )
        message_id = queue(sessions, judge, "alice@example.org")
        assert deliver(sessions, judge, clock) == 1
        [got] = sink.received
        assert (got.message["Message-ID"], got.login, got.tls) == (message_id, "judge", True)


def test_starttls_failures_wrong_password_and_untrusted_certificate(
    sessions: sessionmaker[Session], clock: Clock
) -> None:
    with SmtpSink(tls="starttls", users={"judge": "s3cret"}) as sink:
        assert sink.ca_file is not None
        login = {"security": "starttls", "username": "judge", "ca_file": str(sink.ca_file)}
        good = make_judge(sink, password="s3cret", **login)
        assert good.settings.smtp is not None
        untrusted = make_judge(sink, security="starttls", username="judge", password="s3cret")
        wrong = make_judge(sink, password="guess", **login)
        message_id = queue(sessions, good, "alice@example.org")

        # A certificate we cannot check may be mended: transient, the run stops.
        assert deliver(sessions, untrusted, clock) == 0
        row = by_id(sessions, message_id)
        assert (row.state, row.attempts) == ("queued", 1)
        assert row.last_error is not None and "CERTIFICATE_VERIFY_FAILED" in row.last_error

        # A refused login is permanent.
        clock.advance(minutes=1)
        assert deliver(sessions, wrong, clock) == 0
        row = by_id(sessions, message_id)
        assert row.state == "failed"
        assert row.last_error == (
            f"PermanentError: 127.0.0.1:{sink.port} refused the login as 'judge': "
            "535 5.7.8 Authentication credentials invalid"
        )
        assert sink.received == []

        # Without STARTTLS on offer the transport refuses to send in the clear.
        with SmtpSink() as plain:
            transport = SmtpTransport(replace(good.settings.smtp, port=plain.port))
            with pytest.raises(PermanentError, match="STARTTLS extension not supported"):
                transport.send(sample(judge=good))
            assert plain.received == []


def test_implicit_tls(sessions: sessionmaker[Session], clock: Clock) -> None:
    with SmtpSink(tls="implicit", users={"judge": "s3cret"}) as sink:
        assert sink.ca_file is not None
        judge = make_judge(
            sink, security="tls", username="judge", password="s3cret", ca_file=str(sink.ca_file)
        )
        message_id = queue(sessions, judge, "alice@example.org")
        assert deliver(sessions, judge, clock) == 1
        [got] = sink.received
        assert (got.message["Message-ID"], got.login, got.tls) == (message_id, "judge", True)


def test_a_missing_ca_file_fails_at_start(smtp_sink: SmtpSink) -> None:
    settings = SmtpSettings(host="127.0.0.1", port=smtp_sink.port, ca_file="/nonexistent.pem")
    with pytest.raises(FileNotFoundError):
        SmtpTransport(settings)


def test_implicit_tls_on_a_plain_port_names_the_fix(
    sessions: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock
) -> None:
    judge = make_judge(smtp_sink, security="tls")
    first = queue(sessions, judge, "alice@example.org")
    assert deliver(sessions, judge, clock) == 0
    row = by_id(sessions, first)
    assert row.last_error is not None
    assert row.last_error.startswith(
        f"ServerUnavailable: cannot reach {smtp_sink.host}:{smtp_sink.port}: [SSL: "
    )
    assert row.last_error.endswith(
        "(the server does not speak TLS on this port: use its submissions port, usually 465, "
        'or security = "starttls" on this one)'
    )


def test_a_password_mail_the_journal_names_is_purged_by_the_next_run_that_sends(
    sessions: sessionmaker[Session], smtp_sink: SmtpSink, clock: Clock, tmp_path: Path
) -> None:
    """A mail holding a password, sent by a sender killed before it committed: the next
    run learns it was sent from the journal and purges its password at its end, even
    though it has other mail to send (a burst's), not at the next run that finds none."""
    from judge.services.outbox import PURGED_BODY

    judge = make_judge(smtp_sink)
    assert judge.settings.smtp is not None
    with sessions.begin() as session:
        welcome = queue_mail(
            session, judge, to="new@example.org", kind="signon", now=T0, secret=True,
            mail=RenderedMail("Diplomacy: your password", "Your password is paris-123.\n"),
        )  # fmt: skip
    other = queue(sessions, judge, "b@example.org")
    journal = SentJournal(tmp_path / "outbox.journal")
    journal.add(by_id(sessions, welcome).id, T0 + timedelta(seconds=5))
    with SmtpTransport(judge.settings.smtp) as transport:
        assert deliver_pending(sessions, judge, transport, clock, journal=journal) == 1
    journal.close()
    assert smtp_sink.message_ids() == [other]
    done = by_id(sessions, welcome)
    assert (done.state, done.secret, done.body) == ("sent", False, PURGED_BODY)
