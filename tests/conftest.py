"""Shared fixtures: databases (a private PostgreSQL server for the session, SQLite files)
and a private Dovecot IMAP server."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dovecot import Dovecot, DovecotError
from smtpsink import SmtpSink
from sqlalchemy import Engine, create_engine, make_url

_POSTGRES_PROGRAMS = ("initdb", "postgres", "pg_isready")
_POSTGRES_USER = "postgres"


def _version_key(bin_dir: Path) -> tuple[int, ...]:
    """Sort key for /usr/lib/postgresql/<version>/bin: the newest version first."""
    try:
        return tuple(int(part) for part in bin_dir.parent.name.split("."))
    except ValueError:
        return (0,)


def find_postgres_programs() -> dict[str, Path] | None:
    """initdb, postgres and pg_isready from one installation, or None when there is none.

    Looked for on PATH (following symlinks, so that /usr/local/bin/initdb finds its own
    postgres), then in Debian's /usr/lib/postgresql/*/bin, newest first.
    """
    directories: list[Path] = []
    if (initdb := shutil.which("initdb")) is not None:
        directories.append(Path(initdb).resolve().parent)
    directories += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_version_key, reverse=True)
    for directory in directories:
        programs = {name: directory / name for name in _POSTGRES_PROGRAMS}
        if all(path.is_file() and os.access(path, os.X_OK) for path in programs.values()):
            return programs
    found = {name: shutil.which(name) for name in _POSTGRES_PROGRAMS}
    if all(found.values()):
        return {name: Path(str(path)) for name, path in found.items()}
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _log_tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A private PostgreSQL server for this test session; yields the URL of its ``postgres``
    database (superuser ``postgres``, no password).

    Fails, never skips, when PostgreSQL is not installed: the database tests are part of the
    suite, and .ci/run installs the server.
    """
    programs = find_postgres_programs()
    if programs is None:
        pytest.fail(
            "PostgreSQL server programs (initdb, postgres, pg_isready) not found on PATH or in "
            "/usr/lib/postgresql/*/bin; install them, e.g. `apt-get install postgresql` on "
            "Debian (.ci/run does this)",
            pytrace=False,
        )
    # initdb and postgres refuse to run as root: as root, run them as the postgres user in
    # a directory it owns (pytest's tmp_path is 0700 root, so make our own).
    as_root = os.geteuid() == 0
    run_as: dict[str, Any] = (
        {"user": _POSTGRES_USER, "group": _POSTGRES_USER, "extra_groups": []} if as_root else {}
    )
    base = Path(tempfile.mkdtemp(prefix="judge-pg-"))
    base.chmod(0o755)
    if as_root:
        shutil.chown(base, _POSTGRES_USER, _POSTGRES_USER)
    data = base / "data"
    log = base / "postgres.log"
    process: subprocess.Popen[bytes] | None = None
    try:
        init = subprocess.run(
            [
                str(programs["initdb"]),
                "--no-sync",
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "-D",
                str(data),
            ],
            cwd=base,
            capture_output=True,
            text=True,
            check=False,
            **run_as,
        )
        if init.returncode != 0:
            pytest.fail(f"initdb failed ({init.returncode}):\n{init.stderr}", pytrace=False)
        port = _free_port()
        with log.open("wb") as log_file:
            process = subprocess.Popen(
                [
                    str(programs["postgres"]),
                    "-D",
                    str(data),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "-k",
                    str(base),
                    "-c",
                    "fsync=off",
                ],
                cwd=base,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                **run_as,
            )
        ready = [str(programs["pg_isready"]), "-q", "-h", "127.0.0.1", "-p", str(port)]
        deadline = time.monotonic() + 30
        while subprocess.run(ready, check=False).returncode != 0:
            if process.poll() is not None:
                pytest.fail(f"postgres exited at start:\n{_log_tail(log)}", pytrace=False)
            if time.monotonic() > deadline:
                pytest.fail(f"postgres not ready after 30 s:\n{_log_tail(log)}", pytrace=False)
            time.sleep(0.05)
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        if process is not None and process.poll() is None:
            # SIGINT is PostgreSQL's "fast" shutdown: it disconnects clients instead of
            # waiting for them, as SIGTERM's "smart" shutdown would.
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(base, ignore_errors=True)


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


# -- IMAP: a private Dovecot ------------------------------------------------------------


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    """A private Dovecot for this test session (see tests/dovecot.py), started once.

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
    and can be told to refuse; see ``tests/smtpsink.py`` for TLS and login."""
    with SmtpSink() as sink:
        yield sink
