"""The deadline loop looks only at the games whose moment came (``games.wake_at``): a pass
over idle games costs the same statements whatever their number; every change that may
move a game's moment marks it in its own transaction; the loop sleeps until the next
moment and the scheduler's one job wakes it; game files are read at SIGHUP and at a slow
interval, not at every pass."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import event, select
from support.netutil import free_port
from support.servicekit import at, game_row, make_app, started_game

from benchmarks.many_games import make_games
from judge.config import InboundSmtpSettings
from judge.db.models import LOOK_NOW, Game, PhaseRecord
from judge.runtime.bootstrap import App
from judge.runtime.serve import Server
from judge.services.games import find_game, set_deadline


@contextmanager
def counted(app: App) -> Iterator[list[str]]:
    """Every SQL statement the app's engine runs meanwhile."""
    statements: list[str] = []
    engine = app.sessions.kw["bind"]

    def count(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


def idle_pass_statements(tmp_path: Path, games: int) -> list[str]:
    """The statements of a deadline pass over ``games`` idle games, once the first pass
    (which works out every game's moment) is done."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    start = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
    make_games(app, games, tmp_path / "games", start=start)
    server = Server(app, clock=lambda: start + timedelta(hours=1), use_scheduler=False)
    server._deadlines()
    with app.sessions() as session:
        assert session.scalars(select(Game.wake_at).distinct()).all() == [
            datetime(2026, 11, 25, 20, 0, tzinfo=UTC)
        ]
    with counted(app) as statements:
        server._deadlines()
    return statements


def test_an_idle_pass_costs_the_same_statements_with_3_and_30_games(tmp_path: Path) -> None:
    few = idle_pass_statements(tmp_path / "few", 3)
    many = idle_pass_statements(tmp_path / "many", 30)
    assert len(few) == len(many) and few == many
    assert len(few) <= 6  # the woken games, the next moment, and their transactions


def test_an_idle_pass_only_reads(tmp_path: Path) -> None:
    """Nothing due: the pass asks for the next moment and writes nothing (on SQLite a
    write would take the database's lock every second; with several judges, a row lock)."""
    statements = idle_pass_statements(tmp_path, 3)
    assert [s.split()[0] for s in statements if s.split()[0] not in ("BEGIN", "COMMIT")] == [
        "SELECT"
    ]


def test_every_change_that_may_move_a_deadline_marks_the_game(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    server = Server(app, clock=lambda: at("2026-11-23 13:00"), use_scheduler=False)
    server._deadlines()
    assert game_row(app).wake_at == at("2026-11-25 20:00")
    assert game_row(app).wake_deadline == at("2026-11-25 20:00")
    # An order marks the game (it may complete the phase early).
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-NTH\n", "2026-11-23 14:00")
    assert game_row(app).wake_at == LOOK_NOW
    server._deadlines()
    assert game_row(app).wake_at == at("2026-11-25 20:00")
    # The master's SET DEADLINE (any path that moves the deadline).
    table.send(
        "gm@example.org", "SIGNON Mtest01 gm-secret\nSET DEADLINE 2026-11-24 18:00\n",
        "2026-11-23 15:00",
    )  # fmt: skip
    assert game_row(app).deadline == at("2026-11-24 18:00")
    assert game_row(app).wake_at == LOOK_NOW
    server._deadlines()
    assert game_row(app).wake_at == at("2026-11-24 18:00")
    # PAUSE: a paused game has no moment; RESUME marks it again.
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nPAUSE\n", "2026-11-23 16:00")
    server._deadlines()
    assert game_row(app).wake_at is None
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nRESUME\n", "2026-11-23 17:00")
    assert game_row(app).wake_at == LOOK_NOW


def test_the_safety_net_finds_a_deadline_changed_without_a_mark(tmp_path: Path) -> None:
    app, _table = started_game(tmp_path)
    server = Server(app, clock=lambda: at("2026-11-24 13:00"), use_scheduler=False)
    server._deadlines()
    with app.sessions() as session, session.begin():
        # Behind the judge's back: a Core statement, no ORM flush to mark the game.
        session.execute(
            Game.__table__.update().values(deadline=at("2026-11-24 12:00"))  # type: ignore[attr-defined]
        )
    server._deadlines()
    assert game_row(app).phase == "S1901M"  # the safety net runs once a minute
    server._safety_at = None
    server._deadlines()
    assert game_row(app).phase == "F1901M"


def test_reminders_and_early_completion_come_at_their_moments(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        deadlines = game.settings["deadlines"]
        game.settings = {
            **game.settings,
            "deadlines": {**deadlines, "movement": {**deadlines["movement"], "remind": 24}},
        }
    clock = Clock(at("2026-11-23 13:00"))
    server = Server(app, clock=clock, use_scheduler=False)
    server._deadlines()
    assert game_row(app).wake_at == at("2026-11-24 20:00")  # the reminder
    clock.now = at("2026-11-24 20:00")
    server._deadlines()
    assert {r.kind for r in table.new_mail()} == {"reminder"}
    assert game_row(app).wake_at == at("2026-11-25 20:00")
    # Every order in at 21:00: due ten minutes later (the early delay), not before.
    for address, body in SEVEN:
        table.send(address, body, "2026-11-24 21:00")
    clock.now = at("2026-11-24 21:01")
    server._deadlines()
    assert game_row(app).wake_at == at("2026-11-24 21:10")
    assert game_row(app).phase == "S1901M"
    clock.now = at("2026-11-24 21:10")
    server._deadlines()
    assert game_row(app).phase == "F1901M"


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


SEVEN = [
    ("austria@example.org", "SIGNON Atest01 pw-aus\nA Vie-Gal\nA Bud-Ser\nF Tri-Alb\n"),
    ("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-NTH\nF Edi-NWG\nA Lvp-Yor\n"),
    ("france@example.org", "SIGNON Ftest01 paris-123\nA Par-Bur\nA Mar-Spa\nF Bre-MAO\n"),
    ("germany@example.org", "SIGNON Gtest01 pw-ger\nA Ber-Kie\nA Mun-Ruh\nF Kie-Den\n"),
    ("italy@example.org", "SIGNON Itest01 pw-ita\nA Ven-Pie\nA Rom-Ven\nF Nap-ION\n"),
    (
        "russia@example.org",
        "SIGNON Rtest01 pw-rus\nA Mos-Ukr\nA War-Gal\nF Sev-BLA\nF Stp/sc-BOT\n",
    ),
    ("turkey@example.org", "SIGNON Ttest01 pw-tur\nA Con-Bul\nA Smy-Con\nF Ank-BLA\n"),
]


def test_the_scheduler_wakes_the_loop_at_the_deadline(tmp_path: Path) -> None:
    """With the real clock and a tick far longer than the wait, the phase is processed at
    its deadline: the loop sleeps until the next moment, and the scheduler's one job
    (``deadline:next``) is there too."""
    # Started now: a game started on a fixed date has its first deadline in the past.
    app, _table = started_game(tmp_path, start=datetime.now(UTC))
    app.judge.settings = dataclasses.replace(
        app.judge.settings, inbound=InboundSmtpSettings("127.0.0.1", free_port())
    )
    server = Server(app, tick=60.0)
    server.start()
    try:
        time.sleep(0.5)
        due = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=2)
        with app.sessions() as session, session.begin():
            game = find_game(session, "test01")
            assert game is not None
            set_deadline(session, game, due)
        server.deadline_ready.set()  # as the inbox does after a batch
        assert game_row(app).phase == "S1901M"  # not processed before its deadline
        limit = time.monotonic() + 10
        while game_row(app).phase == "S1901M" and time.monotonic() < limit:
            time.sleep(0.02)
        scheduler = server.scheduler
        assert scheduler is not None
        while not scheduler.scheduler.get_jobs() and time.monotonic() < limit:
            time.sleep(0.02)
        (job,) = scheduler.scheduler.get_jobs()
        assert job.id == "deadline:next"
        assert job.next_run_time == game_row(app).wake_at == game_row(app).deadline
    finally:
        server.stop()
    with app.sessions() as session:
        record = session.scalars(select(PhaseRecord).where(PhaseRecord.seq == 1)).one()
    assert record.processed_at is not None
    assert timedelta(0) <= record.processed_at - due < timedelta(seconds=1)


@pytest.mark.parametrize("how", ["sighup", "slow tick"])
def test_a_game_file_edit_is_read_at_sighup_and_at_the_slow_interval(
    tmp_path: Path, how: str
) -> None:
    app, _table = started_game(tmp_path)
    server = Server(app, clock=lambda: at("2026-11-24 09:00"), use_scheduler=False)
    server._deadlines()  # the first pass reads the files
    path = tmp_path / "test01.toml"
    path.write_text(
        path.read_text().replace(
            'timezone = "Europe/London"',
            'timezone = "Europe/London"\ndeadline = "2026-11-26 12:00"',
        )
    )
    server._deadlines()  # not at every pass
    assert game_row(app).deadline == at("2026-11-25 20:00")
    if how == "sighup":
        server.reload()
        assert server.deadline_ready.is_set()
    else:
        server.game_file_seconds = 0.01
        time.sleep(0.02)
    server._deadlines()
    assert game_row(app).deadline == at("2026-11-26 12:00")
    assert game_row(app).wake_at == at("2026-11-26 12:00")


def test_a_loop_thread_reads_a_new_game_file_at_sighup(tmp_path: Path) -> None:
    app, _table = started_game(tmp_path)
    games = tmp_path / "games"
    games.mkdir()
    app.judge.settings = dataclasses.replace(app.judge.settings, games_dir=games)
    server = Server(app, clock=lambda: at("2026-11-24 09:00"), tick=30, use_scheduler=False)
    thread = threading.Thread(target=server._deadline_loop)
    thread.start()
    try:
        time.sleep(0.3)
        (games / "late01.toml").write_text(
            (tmp_path / "test01.toml").read_text().replace('"test01"', '"late01"')
        )
        server.reload()
        limit = time.monotonic() + 10
        while time.monotonic() < limit:
            with app.sessions() as session:
                if find_game(session, "late01") is not None:
                    break
            time.sleep(0.05)
        with app.sessions() as session:
            assert find_game(session, "late01") is not None
    finally:
        server.stopping.set()
        server.deadline_ready.set()
        thread.join(5)
