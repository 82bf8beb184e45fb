"""The judge's PostgreSQL connections, pooled, on a real server: a connection that died
while idle (the server restarted, an idle timeout, an administrator's kill) is replaced
before use, and one used again at once is used without a round trip first."""

from __future__ import annotations

import time
from typing import Any

import pytest
from sqlalchemy import text

from judge.db import session as db_session
from judge.db.session import make_engine


def _pings(monkeypatch: pytest.MonkeyPatch, engine: Any) -> list[int]:
    """Count the engine's pings."""
    pings: list[int] = []
    ping = engine.dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(1)
        return bool(ping(dbapi_connection))

    monkeypatch.setattr(engine.dialect, "do_ping", counted)
    return pings


def test_a_connection_used_again_at_once_is_not_pinged(
    postgres_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(postgres_database_url)
    pings = _pings(monkeypatch, engine)
    try:
        for _ in range(20):
            with engine.connect() as connection:
                assert connection.execute(text("SELECT 1")).scalar() == 1
    finally:
        engine.dispose()
    assert pings == []


def test_a_connection_that_died_while_idle_is_replaced_before_use(
    postgres_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_session, "PING_AFTER_IDLE", 0.2)
    engine = make_engine(postgres_database_url)
    pings = _pings(monkeypatch, engine)
    try:
        with engine.connect() as connection:
            first = connection.execute(text("SELECT pg_backend_pid()")).scalar()
        # Killed while idle in the pool, as by a server restart.
        admin = make_engine(postgres_database_url)
        with admin.connect() as connection:
            connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
        admin.dispose()
        time.sleep(0.3)
        with engine.connect() as connection:
            again = connection.execute(text("SELECT pg_backend_pid()")).scalar()
    finally:
        engine.dispose()
    assert again is not None and again != first
    assert len(pings) >= 1
