"""Column types that behave the same on SQLite and PostgreSQL.

Two traps make these necessary: ``DateTime(timezone=True)`` on SQLite silently drops the zone
(a value written as 12:00+02:00 comes back as a naive 12:00), and ``JSON`` by default stores a
Python ``None`` as the JSON text ``null``, which ``IS NULL`` does not find.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

__all__ = ["JSONDocument", "UTCDateTime"]


class UTCDateTime(TypeDecorator[datetime]):
    """A point in time, stored in UTC and always returned as an aware UTC ``datetime``.

    Naive datetimes are refused: a deadline whose zone is a guess is a bug waiting for the
    first daylight-saving change, so the mistake is reported where it is made.

    >>> from sqlalchemy.dialects import sqlite
    >>> UTCDateTime().process_bind_param(datetime(2024, 1, 1), sqlite.dialect())
    Traceback (most recent call last):
    ...
    ValueError: naive datetime 2024-01-01 00:00:00 refused: give it a time zone (e.g. tzinfo=UTC)
    """

    # timestamptz on PostgreSQL; on SQLite a text column whose values we keep in UTC.
    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Convert an aware datetime to UTC for storage; refuse a naive one."""
        if value is None:
            return None
        if not isinstance(value, datetime):
            raise TypeError(f"expected a datetime, got {type(value).__name__}: {value!r}")
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(
                f"naive datetime {value} refused: give it a time zone (e.g. tzinfo=UTC)"
            )
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            # SQLite's DATETIME text has no offset; all stored values are UTC, so they also
            # sort and compare correctly as text in WHERE clauses.
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Return the stored value as an aware UTC datetime."""
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        # PostgreSQL hands timestamptz back in the session's TimeZone setting.
        return value.astimezone(UTC)


class JSONDocument(TypeDecorator[Any]):
    """A JSON value (a dict or list of plain values), portable between SQLite and PostgreSQL.

    Plain ``json`` rather than PostgreSQL's ``jsonb``: ``jsonb`` reorders object keys, and the
    judge's documents (positions, results, settings) should come back exactly as written on
    every backend. Python ``None`` is stored as SQL NULL.

    Changes made inside a stored dict in place are not noticed by the ORM; assign a new value
    (``game.settings = {**game.settings, "press": "white"}``) to save them.
    """

    impl = JSON(none_as_null=True)
    cache_ok = True
