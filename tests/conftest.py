"""Shared fixtures: databases (a private PostgreSQL server for the session, SQLite files)
and a private Dovecot IMAP server."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, make_url
from support.dovecot import Dovecot, DovecotError
from support.pgserver import PostgresError, PostgresServer
from support.smtpsink import SmtpSink


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A private PostgreSQL server for this test session (tests/support/pgserver.py); yields the
    URL of its ``postgres`` database (superuser ``postgres``, no password).

    Fails, never skips, when PostgreSQL is not installed: the database tests are part of the
    suite, and .ci/run installs the server.
    """
    server = PostgresServer(fsync=False)
    problem = ""
    try:
        try:
            server.start()
        except PostgresError as err:
            problem = str(err)
        if problem:
            # Outside the except clause, so the report is the message alone, not a chain.
            pytest.fail(problem, pytrace=False)
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def _postgres_admin(postgres_url: str) -> Iterator[Engine]:
    """An autocommit engine on the server's ``postgres`` database, for CREATE/DROP DATABASE."""
    engine = create_engine(
        postgres_url,
        isolation_level="AUTOCOMMIT",
        connect_args={"application_name": "judge-tests-admin"},
    )
    yield engine
    engine.dispose()


@pytest.fixture
def postgres_database_url(postgres_url: str, _postgres_admin: Engine) -> Iterator[str]:
    """A URL on the session's PostgreSQL server that sees an empty database, dropped after.

    Each test gets its own schema, made the connections' search path through the URL, rather
    than its own database: CREATE DATABASE costs about 0.2 s, CREATE SCHEMA a millisecond.
    """
    name = f"test_{uuid.uuid4().hex[:16]}"
    with _postgres_admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{name}"')
    url = make_url(postgres_url).update_query_dict({"options": f"-csearch_path={name}"})
    yield url.render_as_string(hide_password=False)
    with _postgres_admin.connect() as connection:
        # End what a failed test may have left open, so that nothing holds a lock on it.
        connection.exec_driver_sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE pid <> pg_backend_pid() AND datname = current_database() "
            "AND application_name <> 'judge-tests-admin'"
        )
        connection.exec_driver_sql(f'DROP SCHEMA "{name}" CASCADE')


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """The URL of a SQLite database file (not yet created) in the test's temporary directory."""
    return f"sqlite:///{(tmp_path / 'judge.db').as_posix()}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """An empty database, once on SQLite and once on PostgreSQL."""
    fixture = "sqlite_url" if request.param == "sqlite" else "postgres_database_url"
    url: str = request.getfixturevalue(fixture)
    return url


# -- IMAP: a private Dovecot ------------------------------------------------------------


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    """A private Dovecot for this test session (see tests/support/dovecot.py), started once.

    Any user name logs in with password ``secret`` to an empty mailbox: take a fresh name
    per test (the ``imap_user`` fixture).  Plain IMAP with STARTTLS on ``imap_port``, IMAPS
    on ``imaps_port``, both with a certificate from the CA in ``ca_file``; ``deliver()``
    over LMTP.  A test that stops or restarts it must leave it running.

    Fails, never skips, when Dovecot is not installed: .ci/run installs it.
    """
    server: Dovecot | None = None
    problem = ""
    try:
        server = Dovecot()
        server.start()
    except DovecotError as err:
        problem = str(err)
    if server is None or problem:
        if server is not None:
            server.cleanup()
        # Outside the except clause, so the report is the message alone, not a chain.
        pytest.fail(problem, pytrace=False)
    yield server
    server.cleanup()


@pytest.fixture
def imap_user(dovecot: Dovecot) -> Iterator[str]:
    """A user name never used before in this session: an empty mailbox of its own.

    Restarts the session's server afterwards if the test left it stopped.
    """
    yield f"user-{uuid.uuid4().hex[:12]}"
    if not dovecot.running:
        dovecot.start()


@pytest.fixture
def smtp_sink() -> Iterator[SmtpSink]:
    """A plain SMTP server on 127.0.0.1 (aiosmtpd) that records every message it accepts
    and can be told to refuse; see ``tests/support/smtpsink.py`` for TLS and login."""
    with SmtpSink() as sink:
        yield sink
