"""An order that arrives while the deadline loop's look is processing its game, on
PostgreSQL (where the inbox and the look are separate transactions that run together;
SQLite's take turns).  The inbox must wait for the look and then read the game as the
look left it: an order read against the phase being processed would be stored against a
phase already adjudicated, confirmed to its player, and never acted on."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session
from support.servicekit import GAME_FILE, Table, at, started_game

from judge.db import queries
from judge.db.models import FutureOrder, Game, OrderRecord, OutboundMessage, PhaseRecord
from judge.runtime.bootstrap import App
from judge.runtime.looks import look, process_phase
from judge.services.game_file_watch import reload_configs
from judge.services.game_files import LoadReport, load_game
from judge.services.inbound import process_one

TOKEN = "judge-a.example:1:1"
#: Past the game's first deadline (48 hours, at 20:00).
WHEN = "2026-11-26 12:00"
LATER = at(WHEN)
T = TypeVar("T")


def _race(app: App, body: str) -> str:
    """Process the mail ``body`` while a look holds the game (it has locked the row and
    is about to process the phase), then let the look finish; the inbox's outcome."""
    inbound_id = Table(app).store("england@example.org", body, WHEN)
    return _during_look(app, lambda: process_one(app.sessions, app.judge, inbound_id, LATER))


def _during_look(app: App, work: Callable[[], T]) -> T:
    """Run ``work`` in a thread of its own while a look holds the game (it has locked
    the row and is about to process the phase), give it a second, then let the look
    finish; what ``work`` returned."""
    locked = threading.Event()
    go_on = threading.Event()

    def slow(session: Session, game: Game, now: datetime) -> str | None:
        locked.set()
        assert go_on.wait(30)
        return process_phase(app, session, game, now)

    looker = threading.Thread(target=look, args=(app, TOKEN, 1, LATER, slow), daemon=True)
    looker.start()
    assert locked.wait(30)
    outcome: list[T] = []
    inbox = threading.Thread(target=lambda: outcome.append(work()), daemon=True)
    inbox.start()
    inbox.join(1.0)
    go_on.set()
    looker.join(30)
    inbox.join(30)
    assert not looker.is_alive() and not inbox.is_alive()
    return outcome[0]


def _orders(app: App, seq: int) -> list[str | None]:
    """The orders stored for the game's phase ``seq`` (canonical form)."""
    with app.sessions() as session:
        return list(
            session.scalars(
                select(OrderRecord.canonical).where(OrderRecord.seq == seq).order_by(OrderRecord.id)
            )
        )


def _reply_to_england(app: App) -> str:
    with app.sessions() as session:
        rows = list(
            session.scalars(
                select(OutboundMessage.body)
                .where(OutboundMessage.to_addr == "england@example.org")
                .where(OutboundMessage.kind != "results")
                .order_by(OutboundMessage.id)
            )
        )
    return rows[-1]


def test_an_order_arriving_during_the_look_is_taken_for_the_phase_after_it(
    tmp_path: Path, postgres_database_url: str
) -> None:
    app, _table = started_game(tmp_path, postgres_database_url)
    state = _race(app, "SIGNON Etest01 pw-eng\nF LON-NTH\n")
    assert state == "done"
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
    assert (game.phase, game.seq) == ("F1901M", 2)
    # Not stored against the spring, already adjudicated without it ...
    assert _orders(app, 1) == []
    # ... but for the autumn, the phase the player was told of.
    assert _orders(app, 2) == ["F lon-nth"]
    reply = _reply_to_england(app)
    assert "Movement orders for Fall of 1901." in reply, reply
    assert "England: Fleet London -> North Sea." in reply, reply


def test_an_order_sent_ahead_arriving_during_the_look_is_taken_for_its_phase(
    tmp_path: Path, postgres_database_url: str
) -> None:
    """Sent ahead for the autumn while the spring was being processed: by the time the
    inbox reads it, the autumn is the phase being played, and the order is for it (not
    kept as an order ahead for a phase already begun, never to be released)."""
    app, _table = started_game(tmp_path, postgres_database_url)
    state = _race(app, "SIGNON Etest01 pw-eng\nPHASE F1901M\nF LON-NTH\nENDPHASE\n")
    assert state == "done"
    assert _orders(app, 1) == []
    assert _orders(app, 2) == ["F lon-nth"]
    with app.sessions() as session:
        assert list(session.scalars(select(FutureOrder.lines).where(FutureOrder.active))) == []
    reply = _reply_to_england(app)
    assert "England: Fleet London -> North Sea." in reply, reply


def test_a_game_file_edit_applied_during_the_look_applies_to_the_phase_after_it(
    tmp_path: Path, postgres_database_url: str
) -> None:
    """The game master's new deadline in the game file, read while the spring is being
    processed: applied to the phase being played once the look is done (the autumn),
    and so recorded; not written over the autumn's deadline as the spring's, nor into
    the spring's record, already processed."""
    app, _table = started_game(tmp_path, postgres_database_url)
    with app.sessions() as session:
        spring = session.scalars(select(PhaseRecord.deadline).where(PhaseRecord.seq == 1)).one()
    path = tmp_path / "test01.toml"
    path.write_text(
        GAME_FILE.replace(
            'timezone = "Europe/London"\n',
            'timezone = "Europe/London"\ndeadline = 2026-12-01T20:00:00\n',
        )
    )

    def edit() -> LoadReport:
        with app.sessions() as session, session.begin():
            return load_game(session, app.judge, path, LATER)

    report = _during_look(app, edit)
    assert report.changes == ("deadline Tue Dec 01 2026 20:00:00 +0000 (Europe/London)",)
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        records = dict(session.execute(select(PhaseRecord.seq, PhaseRecord.deadline)).all())
    assert (game.phase, game.seq) == ("F1901M", 2)
    assert game.deadline == at("2026-12-01 20:00")
    assert game.file_applied is not None
    assert game.file_applied["deadline"] == {"at": "2026-12-01T20:00:00+00:00", "seq": 2}
    assert records == {1: spring, 2: at("2026-12-01 20:00")}


def test_a_game_file_edit_reloaded_during_the_look_mails_no_deadline_news(
    tmp_path: Path, postgres_database_url: str
) -> None:
    """An edit of the game master's address alone, picked up by the judge's watch while
    the spring is being processed: the game is read after the look, so the autumn's new
    deadline is not taken for one the master set, and nobody is mailed about it."""
    app, _table = started_game(tmp_path, postgres_database_url)
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace("gm@example.org", "master@example.org"))

    def watch() -> list[str]:
        with app.sessions() as session, session.begin():
            return reload_configs(session, app.judge, LATER)

    lines = _during_look(app, watch)
    assert len(lines) == 1 and lines[0].startswith("test01: reloaded ("), lines
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        kinds = list(session.scalars(select(OutboundMessage.kind).distinct()))
    assert (game.phase, game.master_address) == ("F1901M", "master@example.org")
    assert "deadline" not in kinds, kinds


def test_two_inboxes_reading_two_games_in_opposite_orders_neither_wait_nor_deadlock(
    tmp_path: Path, postgres_database_url: str
) -> None:
    """Two judges' inbox transactions, each with a message for one game and then one for
    the other, in opposite orders: the games are read under a shared lock (it keeps
    looks out, not other inboxes), so both go through at once."""
    app, _table = started_game(tmp_path, postgres_database_url)
    path = tmp_path / "test02.toml"
    path.write_text(GAME_FILE.replace('name = "test01"', 'name = "test02"'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, LATER)
    both_first = threading.Barrier(2, timeout=10)
    read: dict[str, list[str]] = {}
    errors: list[BaseException] = []

    def inbox(names: list[str]) -> None:
        try:
            with app.sessions() as session, session.begin():
                seen = []
                for name in names:
                    game = queries.game_by_name(session, name, past_looks=True)
                    assert game is not None
                    seen.append(game.name)
                    if len(seen) == 1:
                        both_first.wait()  # each holds its first game
                read[names[0]] = seen
        except BaseException as err:
            errors.append(err)

    threads = [
        threading.Thread(target=inbox, args=(order,), daemon=True)
        for order in (["test01", "test02"], ["test02", "test01"])
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert errors == []
    assert read == {"test01": ["test01", "test02"], "test02": ["test02", "test01"]}
