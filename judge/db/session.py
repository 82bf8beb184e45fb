"""Engines, sessions, and the schema migrations that create and update the database.

The judge calls :func:`upgrade` at start, then works through sessions from
:func:`make_sessionmaker`::

    upgrade(url)
    Session = make_sessionmaker(make_engine(url))
    with Session.begin() as session:
        ...
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session, sessionmaker

__all__ = [
    "ALEMBIC_INI",
    "IGNORED_TABLES",
    "MIGRATIONS_DIR",
    "POSTGRES_CONNECT_ARGS",
    "alembic_config",
    "current_revision",
    "default_url",
    "downgrade",
    "include_name",
    "make_engine",
    "make_sessionmaker",
    "read_only",
    "shareable",
    "upgrade",
]

# The migrations live at the top of a source checkout, beside the package; a built package
# carries them inside as judge/migrations (pyproject.toml maps them in). Either way they are
# found from any working directory. alembic.ini (for the `alembic` command) is only in a
# checkout.
_PACKAGE = Path(__file__).resolve().parents[1]
_ROOT = _PACKAGE.parent
ALEMBIC_INI = _ROOT / "alembic.ini"
MIGRATIONS_DIR = (
    _PACKAGE / "migrations" if (_PACKAGE / "migrations").is_dir() else _ROOT / "migrations"
)

#: Tables in the judge's database that the migrations do not own (APScheduler creates its
#: job store itself), so autogenerate must neither drop nor compare them.
IGNORED_TABLES = frozenset({"apscheduler_jobs"})

#: libpq's settings for every PostgreSQL connection (a URL's own query parameters win):
#: give up on a server that does not answer a connection within ``connect_timeout``
#: seconds, and notice a connection whose server or network went away by TCP keepalives
#: (probed after 5 s of silence, every 2 s, given up after 3 unanswered: about 11 s)
#: instead of waiting on it forever: a judge's heartbeat stuck on such a connection would
#: let the other judges take its claims while it works on them.
POSTGRES_CONNECT_ARGS: dict[str, int] = {
    "connect_timeout": 10,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
}

#: Seconds a SQLite connection waits for another process's write lock before giving up.
SQLITE_TIMEOUT = 30.0


def default_url(var_dir: Path) -> str:
    """The URL of the judge's default database, a SQLite file in ``var_dir``.

    >>> default_url(Path("/srv/judge/var"))
    'sqlite:////srv/judge/var/judge.db'
    """
    return f"sqlite:///{(var_dir / 'judge.db').as_posix()}"


def _sqlite_file(url: URL) -> Path | None:
    """The file a SQLite URL names, or None for an in-memory or ``file:`` URI database."""
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


#: A pooled connection unused this long is tried before use (seconds).
PING_AFTER_IDLE = 5.0

#: When a pooled connection was last given back (``time.monotonic()``), in its record.
_IDLE_SINCE = "judge.idle_since"


def ping_when_idle(engine: Engine) -> None:
    """Try each pooled connection of ``engine`` before use when it has been idle for
    :data:`PING_AFTER_IDLE` seconds or more, and replace it when it is dead: a
    long-running judge outlives server restarts and idle timeouts.  SQLAlchemy's
    ``pool_pre_ping`` tries it at every use, a round trip per transaction: in a burst,
    where each connection is used again within milliseconds, a tenth of the statements
    the judge sends.  A connection that dies while in use fails its transaction, which is
    tried again as any failed one, and SQLAlchemy then replaces the pool's connections."""

    @event.listens_for(engine, "connect")
    def _connected(_dbapi_connection: Any, record: Any) -> None:
        record.info[_IDLE_SINCE] = time.monotonic()

    @event.listens_for(engine, "checkin")
    def _given_back(_dbapi_connection: Any, record: Any) -> None:
        if record is not None:
            record.info[_IDLE_SINCE] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _taken(dbapi_connection: Any, record: Any, _proxy: object) -> None:
        since = record.info.get(_IDLE_SINCE)
        if since is not None and time.monotonic() - since < PING_AFTER_IDLE:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as err:
            # The pool drops this connection and takes (or makes) another.
            raise DisconnectionError(f"a pooled connection is dead: {err}") from err


def make_engine(url: str, *, foreign_keys: bool = True, durable: bool = True) -> Engine:
    """An engine for ``url``, set up so that SQLite behaves like a real database.

    For PostgreSQL: connections give up on a silent server
    (:data:`POSTGRES_CONNECT_ARGS`).

    For SQLite: the file's directory is created if missing; foreign keys are enforced on every
    connection (SQLite leaves them off by default); a writer waits up to
    :data:`SQLITE_TIMEOUT` seconds for another process's lock; and every transaction starts
    with ``BEGIN IMMEDIATE``, so that two processes (the mail poller and the scheduler) take
    turns instead of one failing at once with "database is locked" when both read and then
    write. SAVEPOINTs and transactional DDL work as on PostgreSQL.

    ``durable``: every commit is on disk when it returns (SQLite ``synchronous=FULL``, the
    PostgreSQL default). ``durable=False`` lets a commit return once it is written to the
    operating system (SQLite's WAL with ``synchronous=NORMAL``; PostgreSQL's
    ``synchronous_commit=off``): it survives the judge being killed, and the database stays
    consistent after a power cut, which may only undo the last fraction of a second of
    commits. The judge stores incoming mail durably, before it tells the mail server it has
    the message; everything else is derived from stored mail and may use the cheaper commit
    (after a power cut a message may be processed again and its reply sent twice, but
    nothing is lost).

    ``foreign_keys=False`` is for migrations only: SQLite's batch mode copies a table, drops
    the original and renames the copy, and with foreign keys on, that DROP would cascade into
    the rows of every table that refers to it.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        pg_args: dict[str, Any] = {}
        if parsed.get_backend_name() == "postgresql":
            pg_args = {k: v for k, v in POSTGRES_CONNECT_ARGS.items() if k not in parsed.query}
        engine = create_engine(parsed, connect_args=pg_args)
        ping_when_idle(engine)
        if not durable and parsed.get_backend_name() == "postgresql":

            @event.listens_for(engine, "connect")
            def _async_commit(dbapi_connection: Any, _record: object) -> None:
                # Set per connection, so the durable engine's connections keep the default.
                cursor = dbapi_connection.cursor()
                try:
                    cursor.execute("SET synchronous_commit = off")
                finally:
                    cursor.close()
                dbapi_connection.commit()

        return engine

    path = _sqlite_file(parsed)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    connect_args: dict[str, Any] = {}
    if "timeout" not in parsed.query:
        connect_args["timeout"] = SQLITE_TIMEOUT
    engine = create_engine(parsed, connect_args=connect_args)
    pragma = f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}"

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        # Take transaction control away from the sqlite3 module, which would begin
        # transactions only before DML and commit before DDL; the "begin" hook below
        # starts them instead. This also lets the PRAGMA run outside a transaction,
        # where it is not silently ignored.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(pragma)
            if path is not None:
                # Write-ahead logging: readers never wait for the writer and a commit
                # costs one fsync of the log instead of two of the database.  The mode
                # is stored in the file.
                cursor.execute("PRAGMA journal_mode=WAL")
                # Per connection: FULL syncs the log at every commit, which also makes
                # durable whatever NORMAL commits of other connections wrote before.
                cursor.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        finally:
            cursor.close()

    timeout = float(parsed.query.get("timeout", SQLITE_TIMEOUT))  # type: ignore[arg-type]

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        if connection.get_execution_options().get(READ_ONLY):
            # A reader needs no lock in WAL mode: it sees the last commit and waits for
            # nobody.
            connection.exec_driver_sql("BEGIN")
            return
        _begin_immediate(connection, timeout)

    return engine


#: The execution option that marks a session as read-only (see :func:`read_only`).
READ_ONLY = "judge_read_only"


def shareable(sessions: sessionmaker[Session]) -> bool:
    """Whether several judge processes, on several machines, may share the database of
    ``sessions``: any but SQLite (one machine's file)."""
    bind = sessions.kw.get("bind")
    return getattr(getattr(bind, "dialect", None), "name", "sqlite") != "sqlite"


def read_only(session: Session) -> Session:
    """Mark ``session``, before its first statement, as one that only reads.

    On SQLite its transaction then starts with a plain ``BEGIN`` instead of
    ``BEGIN IMMEDIATE``: it does not take the write lock, so it neither waits for the
    writers nor holds them up. Writing in such a session fails (``database is locked``
    when another writer is busy), so use it only for reads.
    """
    session.connection(execution_options={READ_ONLY: True})
    return session


#: How often a connection waiting for SQLite's write lock tries again.
BUSY_POLL_SECONDS = 0.001


def _begin_immediate(connection: Connection, timeout: float) -> None:
    """``BEGIN IMMEDIATE``, waiting up to ``timeout`` seconds for another writer.

    SQLite's own busy handler sleeps longer and longer between tries (up to 100 ms), so a
    writer that commits and begins again at once (the judge's mail processing, batch
    after batch) can keep every other writer out until it is done.  Trying every
    millisecond gets a waiting writer in at the next gap.
    """
    # The connection's busy timeout still covers every other statement; only this one
    # retries by itself.
    dbapi_connection = connection.connection.dbapi_connection
    assert dbapi_connection is not None
    dbapi_connection.execute("PRAGMA busy_timeout = 0")
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                # On the driver's connection: a refused try through SQLAlchemy costs a
                # wrapped exception and a rollback (a fifth of a millisecond), and a
                # writer kept waiting tries a thousand times a second.
                dbapi_connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as err:
                busy = err.sqlite_errorcode in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
                if not busy or time.monotonic() >= deadline:
                    # Once more through SQLAlchemy, so that an error is raised wrapped,
                    # as every other statement's is.
                    connection.exec_driver_sql("BEGIN IMMEDIATE")
                    return
            time.sleep(BUSY_POLL_SECONDS)
    finally:
        dbapi_connection.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    """A session factory bound to ``engine``.

    Objects stay readable after commit (``expire_on_commit=False``): services hand them to
    presenters after the transaction has ended, when a reload would fail or cost a query.
    """
    return sessionmaker(engine, expire_on_commit=False)


def include_name(name: str | None, type_: str, parent_names: Any) -> bool:
    """Alembic's ``include_name`` hook: leave tables the judge does not own alone."""
    if type_ == "table":
        return name not in IGNORED_TABLES
    return True


def alembic_config(url: str) -> Config:
    """The project's Alembic configuration, pointed at the database ``url``.

    The URL travels in ``Config.attributes``, not in the ini option, because ini values are
    %-interpolated and a URL-encoded password contains ``%``. Logging is left as the caller
    configured it (``alembic.ini``'s logging sections apply to the ``alembic`` command only).
    """
    if not (MIGRATIONS_DIR / "env.py").is_file():
        raise FileNotFoundError(
            f"the judge's migrations are not at {MIGRATIONS_DIR}: reinstall the judge (a "
            "built package carries them as judge/migrations, a source checkout as migrations/ "
            "beside judge/)"
        )
    config = Config(str(ALEMBIC_INI)) if ALEMBIC_INI.is_file() else Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    config.attributes["url"] = url
    config.attributes["configure_logger"] = False
    return config


#: The PostgreSQL advisory lock held while the schema is upgraded: several judges sharing
#: one database, started together after an update, upgrade it one at a time (the later
#: ones find it up to date).
MIGRATION_LOCK = 0x4A554441


def upgrade(url: str, revision: str = "head") -> None:
    """Create or update the database at ``url`` to ``revision`` (the latest by default).

    Safe to call at every start: a database that is up to date is left as it is.  On
    PostgreSQL one judge at a time does it (:data:`MIGRATION_LOCK`).
    """
    if make_url(url).get_backend_name() != "postgresql":
        command.upgrade(alembic_config(url), revision)
        return
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
            connection.commit()
            try:
                command.upgrade(alembic_config(url), revision)
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
                connection.commit()
    finally:
        engine.dispose()


def downgrade(url: str, revision: str) -> None:
    """Take the database at ``url`` down to ``revision`` ("base" removes every table)."""
    command.downgrade(alembic_config(url), revision)


def current_revision(url: str) -> str | None:
    """The migration revision the database at ``url`` is at, or None when it has none."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()
