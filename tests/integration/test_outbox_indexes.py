"""The sender's looks at the outbox read its partial indexes, never the whole table.

Each statement the sender makes about queued mail, or about mail holding a password, is
captured as the judge sends it and explained by the database itself (SQLite and a real
PostgreSQL, with sequential scans priced out so that only a usable index can win): an
index whose condition the query did not say word for word would not be in the plan.
Before, the sender's three looks a run read an index of every version of every mail
ever sent (issue 18: 4-10 ms each after a burst of 7,000 mails on PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event, insert, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import StatementError
from sqlalchemy.orm import Session, sessionmaker

from judge.db import OutboundMessage, make_engine, make_sessionmaker, queries, upgrade

T0 = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    """An outbox of many sent mails, a few queued and a few flagged secret."""
    upgrade(db_url)
    engine = make_engine(db_url)
    rows: list[dict[str, Any]] = []
    for number in range(600):
        state = "queued" if number % 100 == 0 else "sent"
        rows.append(
            {
                "message_id": f"<m{number}@judge.test>",
                "to_addr": f"p{number % 7}@example.com",
                "subject": "results",
                "body": "x" * 200,
                "headers": {},
                "kind": "results",
                "state": state,
                "attempts": 1,
                "next_attempt_at": T0 + timedelta(minutes=5) if number == 100 else None,
                "claimed_by": "host:1" if number == 100 else None,
                "created_at": T0,
                "secret": number % 150 == 0,
            }
        )
    with engine.begin() as connection:
        connection.execute(insert(OutboundMessage), rows)
        if connection.dialect.name == "postgresql":
            connection.execute(text("ANALYZE outbox"))
    yield make_sessionmaker(engine)
    engine.dispose()


@contextmanager
def captured(connection: Connection) -> Iterator[list[tuple[str, Any]]]:
    """The statements run on ``connection`` meanwhile, with their parameters."""
    seen: list[tuple[str, Any]] = []

    def listen(_conn: object, _cursor: object, statement: str, parameters: Any,
               _context: object, _many: bool) -> None:  # fmt: skip
        seen.append((statement, parameters))

    event.listen(connection, "before_cursor_execute", listen)
    try:
        yield seen
    finally:
        event.remove(connection, "before_cursor_execute", listen)


def plans(sessions: sessionmaker[Session], work: Callable[[Session], object]) -> list[str]:
    """The database's plan of each statement ``work`` runs (in a transaction rolled back)."""
    with sessions() as session:
        connection = session.connection()
        with captured(connection) as seen:
            work(session)
        session.rollback()
        connection = session.connection()
        postgres = connection.dialect.name == "postgresql"
        if postgres:
            connection.exec_driver_sql("SET enable_seqscan = off")
        explained = []
        for statement, parameters in seen:
            prefix = "EXPLAIN " if postgres else "EXPLAIN QUERY PLAN "
            result = connection.exec_driver_sql(prefix + statement, parameters)
            explained.append(" / ".join(str(row[-1]) for row in result))
        session.rollback()
    return explained


def test_what_is_due_reads_the_index_of_queued_mail(sessions: sessionmaker[Session]) -> None:
    found: list[int] = []
    (plan,) = plans(sessions, lambda s: found.extend(queries.due_outbox_ids(s, T0, 500)))
    assert sorted(found) == [1, 201, 301, 401, 501]  # ids from 1; the one held is not due
    assert "ix_outbox_queued" in plan, plan


def test_who_holds_mail_reads_the_index_of_queued_mail(sessions: sessionmaker[Session]) -> None:
    holders: list[str] = []
    (plan,) = plans(sessions, lambda s: holders.extend(queries.outbox_claimants(s, T0)))
    assert holders == ["host:1"]
    assert "ix_outbox_queued" in plan, plan


def test_freeing_a_gone_senders_mail_reads_the_index_of_queued_mail(
    sessions: sessionmaker[Session],
) -> None:
    freed: list[int] = []
    (plan,) = plans(sessions, lambda s: freed.append(queries.release_claims_of(s, "host:1")))
    assert freed == [1]
    assert "ix_outbox_queued" in plan, plan


def test_the_secrets_purge_reads_the_index_of_flagged_mail(
    sessions: sessionmaker[Session],
) -> None:
    answers: list[object] = []
    looked, purged = plans(
        sessions,
        lambda s: answers.extend(
            [queries.any_secret_done(s), queries.purge_secrets(s, "(password removed)")]
        ),
    )
    # Flagged: 0, 150, 300, 450; of those, 0 and 300 are queued, not yet sent.
    assert answers == [True, 2]
    assert "ix_outbox_secret_flagged" in looked, looked
    assert "ix_outbox_secret_flagged" in purged, purged


def test_mail_marked_sent_in_one_statement_keeps_each_its_own_time(
    sessions: sessionmaker[Session],
) -> None:
    """The sender marks a window of mail sent in one statement, each mail with the time
    the server took it; a mail marked already keeps its first time."""
    first, second, again = T0 + timedelta(seconds=1), T0 + timedelta(seconds=2), T0
    with sessions() as session, session.begin():
        connection = session.connection()
        with captured(connection) as seen:
            queries.mark_sent(session, [(101, first), (201, second)])
        queries.mark_sent(session, [(101, again)])
    assert len(seen) == 1
    with sessions() as session:
        rows = {
            row.id: (row.state, row.sent_at, row.claimed_by, row.next_attempt_at)
            for row in session.scalars(
                select(OutboundMessage).where(OutboundMessage.id.in_([101, 201, 301]))
            )
        }
    assert rows == {
        101: ("sent", first, None, None),
        201: ("sent", second, None, None),
        301: ("queued", None, None, None),
    }


def test_a_naive_time_is_refused_when_marking_mail_sent_or_renewing_claims(
    sessions: sessionmaker[Session],
) -> None:
    """On either database the times are bound as the column binds them: a time without
    a zone is refused, never read in the database session's zone."""
    naive = datetime(2026, 12, 6, 12, 0)
    with sessions() as session, session.begin(), pytest.raises((ValueError, StatementError)):
        queries.mark_sent(session, [(101, naive)])
    with sessions() as session, session.begin(), pytest.raises((ValueError, StatementError)):
        queries.hold_outbox(session, [100], "host:1", naive)
