"""Outbox rows gathered for one statement at the commit (``queries.gather_outbox``, as a
look at a page of games does): none lost, none kept that a savepoint rolled back, and
every query of the outbox sees them."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session
from support.servicekit import at, started_game

from judge.db import queries
from judge.db.models import OutboundMessage
from judge.render import RenderedMail
from judge.runtime.bootstrap import App
from judge.services.outbox import queue_mail

NOW = at("2026-11-24 12:00")


def _queue(session: Session, app: App, to: str) -> None:
    mail = RenderedMail("Diplomacy results", f"For {to}.\n")
    queue_mail(session, app.judge, to=to, kind="results", now=NOW, mail=mail)


def test_gathered_rows_are_written_once_at_the_commit_and_a_savepoints_with_it(
    tmp_path: Path, db_url: str
) -> None:
    app, table = started_game(tmp_path, db_url)
    with app.sessions() as session, session.begin():
        queries.gather_outbox(session)
        _queue(session, app, "a@example.org")  # held
        with session.begin_nested() as savepoint:
            # Inside a savepoint: written at once, and gone with it.
            _queue(session, app, "b@example.org")
            savepoint.rollback()
        with session.begin_nested():
            _queue(session, app, "c@example.org")
        _queue(session, app, "d@example.org")  # held
        # Nothing held is written yet: the savepoints wrote only their own.
        assert session.scalars(
            select(OutboundMessage.to_addr).where(OutboundMessage.kind == "results")
        ).all() == ["c@example.org"]
    assert [row.to_addr for row in table.new_mail()] == [
        "c@example.org", "a@example.org", "d@example.org"
    ]  # fmt: skip


def test_a_query_of_the_outbox_writes_the_rows_held_first(tmp_path: Path, db_url: str) -> None:
    app, table = started_game(tmp_path, db_url)
    with app.sessions() as session, session.begin():
        queries.gather_outbox(session)
        _queue(session, app, "a@example.org")
        assert [row.to_addr for row in queries.outbox_messages(session)][-1] == "a@example.org"
        _queue(session, app, "b@example.org")  # still gathered
        session.rollback()
    assert table.new_mail() == []
