"""Several judges on one database: who is running (the ``judges`` table and its
heartbeats), and the claims on stored messages, games and queued mail that bind only
while their judge runs.  On SQLite and PostgreSQL."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import OperationalError
from support.servicekit import at, game_row, queue_results, started_game

from judge.db import queries
from judge.db.models import Game, InboundMessage, InboundState, JudgeProcess, OutboundMessage
from judge.db.session import make_engine
from judge.mail.outgoing import OutgoingMail
from judge.mail.transport import PermanentError, ServerUnavailable, TransientError
from judge.runtime.bootstrap import App
from judge.runtime.sender import deliver_pending
from judge.runtime.serve import Server
from judge.services import outbox, presence
from judge.services.inbound import process_pending
from judge.services.intake import receive_many

HERE = presence.this_host()
#: Judges of another host (their process ids mean nothing here).
ELSEWHERE_A = "judge-a.example:100:1"
ELSEWHERE_B = "judge-b.example:200:1"
NOW = datetime(2026, 11, 23, 12, 1, tzinfo=UTC)


def order_mail(sender: str, number: int, body: str = "HELP\n") -> bytes:
    return (
        f"From: {sender}\r\nTo: judge@example.org\r\nSubject: orders {number}\r\n"
        f"Message-ID: <m{number}.{sender}>\r\nDate: Mon, 23 Nov 2026 12:00:00 +0000\r\n\r\n"
        f"{body}"
    ).encode()


def store(app: App, raws: list[bytes]) -> list[int]:
    sessions = app.sessions
    with sessions() as session, session.begin():
        receive_many(session, raws, NOW, max_bytes=1 << 20)
    with sessions() as session:
        return list(session.scalars(select(InboundMessage.id).order_by(InboundMessage.id)))


def silent_for(app: App, token: str, seconds: float) -> None:
    """Date the last heartbeat of ``token`` back ``seconds`` (as though it had been
    silent that much longer): the heartbeats' clock is the database server's, which a
    test cannot move."""
    with app.sessions() as session, session.begin():
        row = session.get(JudgeProcess, token)
        assert row is not None
        row.seen_at -= timedelta(seconds=seconds)


def test_a_machine_of_the_same_host_name_is_another_host() -> None:
    """Two machines given one host name (or containers sharing one, or this machine
    before a reboot) see other process ids: a token of such a machine is never taken
    for gone by its process id here, only by its silence."""
    name, mark = HERE.split("/")
    assert name == socket.gethostname() and len(mark) == 12
    twin = f"{name}/{'0' * 12}:{2**22 + 7}:1"  # no process of that id runs here
    mine = presence.process_token()
    assert presence.on_this_host(mine) and not presence.on_this_host(twin)
    assert not presence.gone_here(twin)
    assert presence.gone_here(f"{HERE}:{2**22 + 7}:1")
    assert mine.startswith(f"{HERE}:{os.getpid()}:")


def test_a_judge_of_another_host_is_gone_once_its_heartbeat_is_old(
    tmp_path: Path, db_url: str
) -> None:
    app, _table = started_game(tmp_path, db_url)
    with app.sessions() as session, session.begin():
        presence.beat(session, {ELSEWHERE_A: "serve"})
        row = session.get(JudgeProcess, ELSEWHERE_A)
        assert row is not None
        assert (row.host, row.pid, row.role) == ("judge-a.example", 100, "serve")
    silent_for(app, ELSEWHERE_A, presence.GONE_SECONDS - 1)
    with app.sessions() as session:
        assert presence.gone(session, [ELSEWHERE_A, ELSEWHERE_B]) == {ELSEWHERE_B}
    silent_for(app, ELSEWHERE_A, 2)
    with app.sessions() as session:
        assert presence.gone(session, [ELSEWHERE_A]) == {ELSEWHERE_A}
        # This very process is alive; a malformed token is never taken for gone.
        assert presence.gone(session, [presence.process_token(), "not a token"]) == set()
    # A clean stop removes the row: gone at once.
    with app.sessions() as session, session.begin():
        presence.beat(session, {ELSEWHERE_A: "serve"})
        presence.leave(session, [ELSEWHERE_A])
    with app.sessions() as session:
        assert presence.gone(session, [ELSEWHERE_A]) == {ELSEWHERE_A}


def test_a_heartbeat_forgets_this_hosts_dead_processes_and_long_silent_ones(
    tmp_path: Path, db_url: str
) -> None:
    app, _table = started_game(tmp_path, db_url)
    dead_here = f"{HERE}:999999999:1"  # no such process id
    me = presence.process_token()
    with app.sessions() as session, session.begin():
        presence.beat(session, {dead_here: "inbox", ELSEWHERE_A: "serve", ELSEWHERE_B: "serve"})
    silent_for(app, ELSEWHERE_A, presence.FORGET_SECONDS + 1)
    silent_for(app, ELSEWHERE_B, presence.FORGET_SECONDS - 1)
    with app.sessions() as session, session.begin():
        presence.beat(session, {me: "serve"})
    with app.sessions() as session:
        tokens = set(session.scalars(select(JudgeProcess.token)))
    assert tokens == {me, ELSEWHERE_B}


def test_the_heartbeat_thread_registers_its_processes_and_removes_them_at_stop(
    tmp_path: Path, db_url: str
) -> None:
    app, _table = started_game(tmp_path, db_url)
    me = presence.process_token()
    roles = {me: "serve", ELSEWHERE_A: "outbox"}
    beating = presence.Presence(app.sessions, lambda: roles, interval=0.05)
    beating.start()
    try:
        with app.sessions() as session:
            assert set(session.scalars(select(JudgeProcess.token))) == {me, ELSEWHERE_A}
        del roles[ELSEWHERE_A]  # a worker that died: its row goes at the next beat
        beating.beat()
        with app.sessions() as session:
            assert set(session.scalars(select(JudgeProcess.token))) == {me}
    finally:
        beating.stop()
    with app.sessions() as session:
        assert list(session.scalars(select(JudgeProcess.token))) == []


def test_stored_messages_are_claimed_a_senders_in_order_by_one_judge(
    tmp_path: Path, db_url: str
) -> None:
    app, _table = started_game(tmp_path, db_url)
    ids = store(
        app,
        [
            order_mail("alice@example.org", 1),
            order_mail("bob@example.org", 2),
            order_mail("alice@example.org", 3),
            order_mail("carol@example.org", 4),
        ],
    )
    with app.sessions() as session, session.begin():
        assert queries.claim_inbound(session, ELSEWHERE_A, 1) == [(ids[0], 0)]
    with app.sessions() as session, session.begin():
        # Alice's second message waits for the judge holding her first.
        assert queries.claim_inbound(session, ELSEWHERE_B, 10) == [(ids[1], 0), (ids[3], 0)]
    with app.sessions() as session, session.begin():
        assert queries.claim_inbound(session, ELSEWHERE_A, 10) == [(ids[0], 0), (ids[2], 0)]
    # Once A is done with her first, her second is anybody's (A holds it: it claimed it).
    with app.sessions() as session, session.begin():
        session.execute(
            update(InboundMessage)
            .where(InboundMessage.id == ids[0])
            .values(state=InboundState.DONE)
        )
    with app.sessions() as session, session.begin():
        assert queries.claim_inbound(session, ELSEWHERE_B, 10) == [(ids[1], 0), (ids[3], 0)]
        assert set(queries.inbound_claimants(session)) == {ELSEWHERE_A, ELSEWHERE_B}


def test_a_judge_leaves_messages_another_running_judge_holds_and_takes_a_gone_ones(
    tmp_path: Path, db_url: str
) -> None:
    app, table = started_game(tmp_path, db_url)
    ids = store(app, [order_mail("alice@example.org", 1), order_mail("bob@example.org", 2)])
    with app.sessions() as session, session.begin():
        presence.beat(session, {ELSEWHERE_A: "inbox"})
        assert queries.claim_inbound(session, ELSEWHERE_A, 1) == [(ids[0], 0)]
    assert process_pending(app.sessions, app.judge, lambda: NOW) == 1
    with app.sessions() as session:
        states = dict(session.execute(select(InboundMessage.id, InboundMessage.state)).all())
    assert states == {ids[0]: InboundState.NEW, ids[1]: InboundState.DONE}
    # Judge A stops beating: ten seconds later its message is taken over.
    silent_for(app, ELSEWHERE_A, presence.GONE_SECONDS + 1)
    assert process_pending(app.sessions, app.judge, lambda: NOW) == 1
    with app.sessions() as session:
        rows = session.scalars(select(InboundMessage).order_by(InboundMessage.id)).all()
    me = presence.process_token()
    assert [(r.state, r.claimed_by) for r in rows] == [
        (InboundState.DONE, me),
        (InboundState.DONE, me),
    ]
    answered = [m.to_addr for m in table.new_mail()]
    assert sorted(answered) == ["alice@example.org", "bob@example.org"]


def test_a_judge_thought_gone_does_not_process_what_another_took_over(
    tmp_path: Path, db_url: str
) -> None:
    """The processing transaction re-checks the claim under a row lock: a judge whose
    heartbeat was held up and whose message another judge took leaves it alone."""
    app, table = started_game(tmp_path, db_url)
    ids = store(app, [order_mail("alice@example.org", 1)])
    with app.sessions() as session, session.begin():
        session.execute(
            update(InboundMessage).where(InboundMessage.id == ids[0]).values(claimed_by=ELSEWHERE_B)
        )
    from judge.services.inbound import process_batch

    me = presence.process_token()
    assert process_batch(app.sessions, app.judge, ids, NOW, claimant=me) == {ids[0]: "missing"}
    with app.sessions() as session:
        row = session.get(InboundMessage, ids[0])
        assert row is not None
        assert (row.state, row.claimed_by, row.attempts) == (InboundState.NEW, ELSEWHERE_B, 0)
    assert table.new_mail() == []
    # Nor does it count attempts at it (enough of them would park the message early).
    from judge.services.inbound import process_one

    assert process_one(app.sessions, app.judge, ids[0], NOW, claimant=me) == "missing"
    with app.sessions() as session:
        row = session.get(InboundMessage, ids[0])
        assert row is not None and row.attempts == 0


def test_games_are_claimed_by_one_judge_at_a_time_and_freed_when_it_is_gone(
    tmp_path: Path, db_url: str
) -> None:
    app, _table = started_game(tmp_path, db_url)
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        game_id = game.id
        game.wake_at = at("2026-11-23 12:00")
    now = at("2026-11-23 12:01")
    with app.sessions() as session, session.begin():
        claimed = queries.claim_games(session, ELSEWHERE_A, now)
    assert claimed == [(game_id, "test01", at("2026-11-23 12:00"))]
    with app.sessions() as session, session.begin():
        assert queries.claim_games(session, ELSEWHERE_B, now) == []
        assert queries.claim_games(session, ELSEWHERE_A, now) == claimed  # its own, again
        assert queries.game_claimants(session) == [ELSEWHERE_A]
        assert queries.release_game_claims_of(session, [ELSEWHERE_A]) == 1
        assert queries.claim_games(session, ELSEWHERE_B, now) == claimed
        queries.release_games(session, ELSEWHERE_B, [game_id])
        assert queries.game_claimants(session) == []


def test_mail_held_by_a_sender_of_another_host_is_freed_once_it_is_silent(
    tmp_path: Path, db_url: str
) -> None:
    app, _table = started_game(tmp_path, db_url)
    now = at("2026-11-23 12:01")
    with app.sessions() as session, session.begin():
        presence.beat(session, {ELSEWHERE_A: "outbox"})
        session.execute(
            update(OutboundMessage).values(
                claimed_by=ELSEWHERE_A, next_attempt_at=now + timedelta(minutes=10), attempts=1
            )
        )
    # Its heartbeat is fresh: its mail is left to it.
    assert deliver_pending(app.sessions, app.judge, app.transport, lambda: now) == 0
    with app.sessions() as session, session.begin():
        presence.leave(session, [ELSEWHERE_A])
    assert deliver_pending(app.sessions, app.judge, app.transport, lambda: now) == 8
    with app.sessions() as session:
        rows = session.scalars(select(OutboundMessage)).all()
    assert {(r.state, r.claimed_by) for r in rows} == {("sent", None)}


def test_a_shared_database_learns_the_journals_sent_mail_every_few_mails(
    tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judge that dies leaves its journal behind on its own disk; another judge then
    sends again what the journal held.  On PostgreSQL (shareable) the journal is
    committed every few mails; SQLite keeps it for a claim batch (read at the restart)."""
    from judge.runtime import sender

    monkeypatch.setattr(sender, "SHARED_JOURNAL_WINDOW", 3)
    app, _table = started_game(tmp_path, db_url)
    seen: list[int] = []

    class Counting:
        def send(self, mail: object) -> None:
            with app.sessions() as session:
                seen.append(
                    len(session.scalars(select(OutboundMessage.id).where(
                        OutboundMessage.state == "sent"
                    )).all())
                )  # fmt: skip

    journal = sender.SentJournal(tmp_path / "outbox.journal")
    try:
        now = at("2026-11-23 12:01")
        delivered = sender.deliver_due(
            app.sessions, app.judge, Counting(), lambda: now, journal=journal
        )
    finally:
        journal.close()
    assert delivered.sent == 8
    if db_url.startswith("sqlite"):
        assert seen == [0] * 8
    else:
        assert seen == [0, 0, 0, 3, 3, 3, 6, 6]
    with app.sessions() as session:
        assert {r.state for r in session.scalars(select(OutboundMessage))} == {"sent"}


def test_heartbeats_go_by_the_database_servers_clock_not_the_hosts(
    tmp_path: Path, postgres_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Judges on several machines share PostgreSQL's clock: a host whose own clock is
    wrong is neither taken for gone while it beats, nor keeps itself alive once it
    stops, nor makes the others' rows look an hour old.  (SQLite has one machine, whose
    clock is the only one: PostgreSQL only.)"""
    app, _table = started_game(tmp_path, postgres_database_url)
    real = presence._wall_clock

    def host_clock(offset: timedelta) -> None:
        monkeypatch.setattr(presence, "_wall_clock", lambda: real() + offset)

    # Judge A's host runs late by more than GONE_SECONDS: it beats, and is alive.
    late = timedelta(seconds=presence.GONE_SECONDS + 5)
    host_clock(-late)
    with app.sessions() as session, session.begin():
        presence.beat(session, {ELSEWHERE_A: "serve"})
    host_clock(timedelta(0))
    with app.sessions() as session:
        assert presence.gone(session, [ELSEWHERE_A]) == set()
    # A checking host whose clock runs ahead does not take it for gone either.
    host_clock(late)
    with app.sessions() as session:
        assert presence.gone(session, [ELSEWHERE_A]) == set()
    # Judge B's host runs two hours ahead: its beat does not forget A (silent for an
    # hour by B's clock)...
    host_clock(timedelta(hours=2))
    with app.sessions() as session, session.begin():
        presence.beat(session, {ELSEWHERE_B: "serve"})
    with app.sessions() as session:
        assert set(session.scalars(select(JudgeProcess.token))) == {ELSEWHERE_A, ELSEWHERE_B}
    # ...and once B stops beating, it is gone after GONE_SECONDS (shortened here), not
    # two hours later.
    monkeypatch.setattr(presence, "GONE_SECONDS", 0.3)
    time.sleep(0.5)
    host_clock(timedelta(0))
    with app.sessions() as session:
        assert presence.gone(session, [ELSEWHERE_B]) == {ELSEWHERE_B}


def test_a_heartbeat_held_up_by_a_lock_fails_in_time_and_the_judge_stops_claiming(
    tmp_path: Path, postgres_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A beat waiting on a lock gives up after BEAT_TIMEOUT_SECONDS (and is tried again
    at the next), instead of hanging while the other judges count the silence; a judge
    whose last good beat is older than CLAIM_SECONDS claims no new work."""
    monkeypatch.setattr(presence, "BEAT_TIMEOUT_SECONDS", 0.5)
    app, _table = started_game(tmp_path, postgres_database_url)
    me = presence.process_token()
    beating = presence.Presence(app.sessions, lambda: {me: "serve"})
    assert not beating.alive_enough()  # never beaten
    beating.beat()
    assert beating.alive_enough()
    last = beating.beaten.value
    outcome: list[BaseException | None] = []

    def beat_once() -> None:
        try:
            beating.beat()
            outcome.append(None)
        except Exception as err:
            outcome.append(err)

    with app.sessions() as blocker, blocker.begin():
        blocker.execute(select(JudgeProcess).where(JudgeProcess.token == me).with_for_update())
        thread = threading.Thread(target=beat_once, daemon=True)
        thread.start()
        thread.join(5)
        held_up = thread.is_alive()
    thread.join(10)  # the lock is gone: a beat without the timeout ends now
    assert not held_up, "the heartbeat waited on the lock without a timeout"
    assert len(outcome) == 1 and isinstance(outcome[0], OperationalError)
    assert beating.beaten.value == last  # a failed beat is not a beat
    later = time.monotonic() + presence.CLAIM_SECONDS
    monkeypatch.setattr(presence, "_monotonic", lambda: later)
    assert not beating.alive_enough()


def test_the_postgresql_engine_gives_up_on_dead_connections(postgres_database_url: str) -> None:
    """A connection that cannot be made, or whose server went silent, fails in seconds
    (libpq's connect_timeout and TCP keepalives) rather than holding up a heartbeat."""
    engine = make_engine(postgres_database_url)
    try:
        with engine.connect() as connection:
            dbapi = connection.connection.dbapi_connection
            assert dbapi is not None
            parameters = dbapi.info.get_parameters()
    finally:
        engine.dispose()
    assert parameters["connect_timeout"] == "10"
    assert parameters["keepalives"] == "1"
    assert int(parameters["keepalives_idle"]) <= presence.GONE_SECONDS


def test_a_judge_whose_heartbeat_is_late_claims_no_stored_message(
    tmp_path: Path, db_url: str
) -> None:
    app, _table = started_game(tmp_path, db_url)
    ids = store(app, [order_mail("alice@example.org", 1)])
    assert process_pending(app.sessions, app.judge, lambda: NOW, may_claim=lambda: False) == 0
    with app.sessions() as session:
        row = session.get(InboundMessage, ids[0])
        assert row is not None
        assert (row.state, row.claimed_by) == (InboundState.NEW, None)
    assert process_pending(app.sessions, app.judge, lambda: NOW, may_claim=lambda: True) == 1


def test_a_judge_whose_heartbeat_is_late_claims_no_mail(
    tmp_path: Path, postgres_database_url: str
) -> None:
    """The sender asks before it frees others' claims and before each claim: while this
    judge's heartbeat is late it takes nothing, then sends everything once it beats."""
    from judge.runtime import sender

    app, _table = started_game(tmp_path, postgres_database_url)
    queue_results(app, 3, NOW)

    class Counting:
        sent = 0

        def send(self, _mail: object) -> None:
            Counting.sent += 1

    late = sender.deliver_due(app.sessions, app.judge, Counting(), lambda: NOW,
                              may_claim=lambda: False)  # fmt: skip
    assert (late.sent, Counting.sent) == (0, 0)
    with app.sessions() as session:
        claimed = session.scalars(
            select(OutboundMessage.id).where(OutboundMessage.claimed_by.is_not(None))
        ).all()
    assert claimed == []
    beaten = sender.deliver_due(app.sessions, app.judge, Counting(), lambda: NOW,
                                may_claim=lambda: True)  # fmt: skip
    assert beaten.sent == Counting.sent >= 3


def test_a_judge_whose_heartbeat_is_late_claims_no_game(
    tmp_path: Path, postgres_database_url: str
) -> None:
    app, _table = started_game(tmp_path, postgres_database_url)
    later = at("2026-11-26 12:00")  # past the first deadline
    server = Server(app, clock=lambda: later, use_scheduler=False)
    server.presence = presence.Presence(app.sessions, lambda: {server.token: "serve"})
    server._deadlines()  # never beaten: no claim
    row = game_row(app)
    assert (row.phase, row.claimed_by) == ("S1901M", None)
    server.presence.beat()
    server._deadlines()
    assert game_row(app).phase != "S1901M"


def test_on_sqlite_a_late_heartbeat_holds_up_nothing(tmp_path: Path, sqlite_url: str) -> None:
    """SQLite is one machine's: no judge elsewhere takes this one's claims for its
    silence (one here is known gone by its process id), so a heartbeat held up by the
    database's lock in a long burst must not stop the judge's work."""
    app, _table = started_game(tmp_path, sqlite_url)
    later = at("2026-11-26 12:00")  # past the first deadline
    server = Server(app, clock=lambda: later, use_scheduler=False)
    server.presence = presence.Presence(app.sessions, lambda: {server.token: "serve"})
    server._deadlines()  # never beaten, and processed all the same
    assert game_row(app).phase != "S1901M"


# -- a sender taken for gone while it is sending ------------------------------------------


@pytest.mark.parametrize("journaled", [True, False], ids=["journal", "no-journal"])
def test_a_sender_taken_for_gone_stops_within_one_window(
    tmp_path: Path, postgres_database_url: str, journaled: bool
) -> None:
    """Judge A's heartbeat is held up while it sends its claimed batch, and judge B takes
    its mail over.  A finds out at its next window (it re-confirms its claims there) and
    leaves the rest to B: at most one window of mail goes from both, not the batch."""
    from judge.runtime import sender

    app, _table = started_game(tmp_path, postgres_database_url)
    now = at("2026-11-23 12:01")
    queue_results(app, 32, now)  # and the game start's 8: 40 in one claim batch
    window = sender.SHARED_JOURNAL_WINDOW
    by_a: list[str] = []
    freed: list[int] = []

    class HeldUp:
        """A's mail server: while it takes A's 4th mail, B decides A is gone."""

        def send(self, mail: OutgoingMail) -> None:
            by_a.append(mail.message_id)
            if len(by_a) == 4:
                freed.append(outbox.release_gone_senders(app.sessions, ELSEWHERE_B, now))

    journal = sender.SentJournal(tmp_path / "a.journal") if journaled else None
    try:
        delivered = sender.deliver_due(
            app.sessions, app.judge, HeldUp(), lambda: now, owner=ELSEWHERE_A, journal=journal
        )
    finally:
        if journal is not None:
            journal.close()
    # Without a journal A had recorded its first three mails sent; with one, none yet.
    assert freed == [37 if not journaled else 40]
    assert delivered.sent == len(by_a) == window
    with app.sessions() as session:
        rows = session.scalars(select(OutboundMessage).order_by(OutboundMessage.id)).all()
    # What A sent is recorded sent (even after B freed it: B must not send it again);
    # A left the rest as B freed it.
    assert [r.message_id for r in rows if r.state == "sent"] == by_a
    rest = [(r.state, r.claimed_by, r.next_attempt_at, r.attempts) for r in rows[window:]]
    assert rest == [("queued", None, None, 1)] * (40 - window)
    by_b: list[str] = []

    class Sink:
        def send(self, mail: OutgoingMail) -> None:
            by_b.append(mail.message_id)

    sender.deliver_due(app.sessions, app.judge, Sink(), lambda: now, owner=ELSEWHERE_B)
    assert not set(by_a) & set(by_b)
    assert len(by_a) + len(by_b) == 40


@pytest.mark.parametrize("error", [ServerUnavailable, PermanentError])
def test_a_sender_leaves_alone_the_mail_another_sender_took_over(
    tmp_path: Path, db_url: str, error: type[Exception]
) -> None:
    """Once judge B has taken A's claimed mail over (A was taken for gone), A's failure
    on it is not recorded: neither a retry time nor a give-up (and its notice to the game
    master) over B's claim, nor the rest given back from under B."""
    from judge.runtime import sender

    app, _table = started_game(tmp_path, db_url)  # the game start queued 8 mails
    now = at("2026-11-23 12:01")
    until = now + sender.CLAIM_TIME
    tries: list[str] = []

    class TakenOver:
        """A's mail server: during A's 2nd mail B takes A's mail over, then it fails."""

        def send(self, mail: OutgoingMail) -> None:
            tries.append(mail.message_id)
            if len(tries) == 2:
                assert outbox.release_gone_senders(app.sessions, ELSEWHERE_B, now) == 7
                with app.sessions() as session:
                    queued = session.scalars(
                        select(OutboundMessage.id).where(OutboundMessage.state == "queued")
                    ).all()
                taken = outbox.claim_messages(app.sessions, queued, now, until, ELSEWHERE_B)
                assert len(taken) == 7
                raise error("421 closing" if error is ServerUnavailable else "550 no such user")

    delivered = sender.deliver_due(
        app.sessions, app.judge, TakenOver(), lambda: now, owner=ELSEWHERE_A
    )
    assert delivered.sent == 1
    assert len(tries) == 2  # nothing sent from under B
    with app.sessions() as session:
        rows = session.scalars(select(OutboundMessage).order_by(OutboundMessage.id)).all()
    assert len(rows) == 8  # no notice to the game master
    assert (rows[0].state, rows[0].claimed_by) == ("sent", None)
    held = [(r.state, r.claimed_by, r.next_attempt_at, r.attempts, r.last_error) for r in rows[1:]]
    assert held == [("queued", ELSEWHERE_B, until, 2, None)] * 7


def test_the_journal_is_committed_every_window_whatever_failed(
    tmp_path: Path, postgres_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window counts the mails taken in turn, not the positions of the successful
    ones: failures at the window's last places do not let the journal grow past it."""
    from judge.runtime import sender

    monkeypatch.setattr(sender, "SHARED_JOURNAL_WINDOW", 3)
    app, _table = started_game(tmp_path, postgres_database_url)
    journal = sender.SentJournal(tmp_path / "outbox.journal")
    seen: list[tuple[int, int]] = []

    class FailingAtTheWindowsEnd:
        def send(self, mail: OutgoingMail) -> None:
            with app.sessions() as session:
                recorded = session.scalars(
                    select(OutboundMessage.id).where(OutboundMessage.state == "sent")
                ).all()
            seen.append((len(journal.entries()), len(recorded)))
            if len(seen) % 3 == 0:
                raise TransientError("451 try again later")

    try:
        now = at("2026-11-23 12:01")
        delivered = sender.deliver_due(
            app.sessions, app.judge, FailingAtTheWindowsEnd(), lambda: now, journal=journal
        )
    finally:
        journal.close()
    assert delivered.sent == 6
    # (in the journal, recorded sent) as each mail went.
    assert seen == [(0, 0), (1, 0), (2, 0), (0, 2), (1, 2), (2, 2), (0, 4), (1, 4)]
    with app.sessions() as session:
        states = Counter(session.scalars(select(OutboundMessage.state)))
    assert states == Counter({"sent": 6, "queued": 2})
