"""Alembic's entry point for the judge's database: runs migrations online or as SQL (--sql).

The database URL, first found wins: ``Config.attributes["url"]`` (set by
``judge.db.session.upgrade``), ``alembic -x url=...``, the ``JUDGE_DATABASE_URL`` environment
variable, then ``sqlalchemy.url`` in alembic.ini.
"""

from __future__ import annotations

import os
from logging.config import fileConfig
from typing import Any

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy import Connection

from judge.db.models import Base
from judge.db.session import include_name, make_engine
from judge.db.types import JSONDocument, UTCDateTime

config = context.config

# Called from the judge, the host application has configured logging already; replacing it
# (and disabling its loggers, fileConfig's default) would silence the judge.
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def database_url() -> str:
    """The URL to migrate, from the first of the sources in the module docstring."""
    url = (
        config.attributes.get("url")
        or context.get_x_argument(as_dictionary=True).get("url")
        or os.environ.get("JUDGE_DATABASE_URL")
        or config.get_main_option("sqlalchemy.url")
    )
    if not url:
        raise RuntimeError(
            "no database URL: pass -x url=..., set JUDGE_DATABASE_URL, "
            "or set sqlalchemy.url in alembic.ini"
        )
    return str(url)


def render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | bool:
    """Write the judge's column types as SQLAlchemy's own in generated migrations.

    A migration is a record of the schema at one point in time: it must keep working when
    judge.db.types changes or moves, so it does not import it.
    """
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    if type_ == "type" and isinstance(obj, JSONDocument):
        return "sa.JSON()"
    return False


# Shared by both modes. render_as_batch: SQLite can change a table only by copying it, which
# Alembic's batch mode does (and on PostgreSQL it emits plain ALTERs).
OPTIONS: dict[str, Any] = {
    "target_metadata": target_metadata,
    "render_as_batch": True,
    "include_name": include_name,
    "render_item": render_item,
    "compare_type": True,
}


def check_foreign_keys(connection: Connection) -> None:
    """Refuse to commit a SQLite migration that left rows pointing at nothing.

    Migrations run with foreign keys off (see ``judge.db.session.make_engine``), so SQLite
    checks nothing while they run; this checks everything once, before the commit.
    """
    if connection.dialect.name != "sqlite":
        return
    problems = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if problems:
        listed = "; ".join(
            f"{table} rowid {rowid} -> {parent}" for table, rowid, parent, _ in problems
        )
        raise RuntimeError(f"migration broke foreign keys: {listed}")


def run_migrations_offline() -> None:
    """Write the migrations' SQL to standard output instead of running it."""
    context.configure(
        url=database_url(),
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        **OPTIONS,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations against the database."""
    engine = make_engine(database_url(), foreign_keys=False)
    try:
        with engine.connect() as connection:
            # Our SQLite engine issues its own BEGIN, so DDL there is transactional too: a
            # migration that fails halfway leaves the database as it was.
            context.configure(
                connection=connection,
                transactional_ddl=True if connection.dialect.name == "sqlite" else None,
                **OPTIONS,
            )
            with context.begin_transaction():
                context.run_migrations()
                check_foreign_keys(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
