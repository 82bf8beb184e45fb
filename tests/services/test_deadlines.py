"""Deadline arithmetic: hours, time of day, weekdays, daylight saving, GM dates."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from judge.config import Deadline, GameSettings
from judge.engine.phases import PhaseKind
from judge.services.deadlines import next_deadline, parse_deadline


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def settings(
    zone: str = "Europe/London", *, hours: float, at: str | None = None, days: tuple[int, ...] = ()
) -> GameSettings:
    return GameSettings(timezone=zone, movement=Deadline(hours, at, days or Deadline.days))


def test_hours_then_the_next_time_of_day() -> None:
    start = utc("2026-11-23 12:00")
    assert next_deadline(start, PhaseKind.MOVEMENT, settings(hours=48)) == utc("2026-11-25 12:00")
    assert next_deadline(start, PhaseKind.MOVEMENT, settings(hours=48, at="20:00")) == utc(
        "2026-11-25 20:00"
    )
    # Past 20:00 already: the next day's.
    late = utc("2026-11-23 21:00")
    assert next_deadline(late, PhaseKind.MOVEMENT, settings(hours=48, at="20:00")) == utc(
        "2026-11-26 20:00"
    )


def test_allowed_weekdays() -> None:
    # Mon 23 Nov + 48 h = Wed 25; only Fri and Sun allowed: Fri 27 at 20:00 London.
    got = next_deadline(
        utc("2026-11-23 12:00"), PhaseKind.MOVEMENT, settings(hours=48, at="20:00", days=(4, 6))
    )
    assert got == utc("2026-11-27 20:00")


def test_time_of_day_is_kept_across_daylight_saving() -> None:
    # London leaves summer time on Sun 25 Oct 2026: 20:00 is 19:00 UTC before, 20:00 after.
    before = next_deadline(
        utc("2026-10-22 12:00"), PhaseKind.MOVEMENT, settings(hours=24, at="20:00")
    )
    after = next_deadline(
        utc("2026-10-25 12:00"), PhaseKind.MOVEMENT, settings(hours=24, at="20:00")
    )
    assert before == utc("2026-10-23 19:00")
    assert after == utc("2026-10-26 20:00")
    # New York moves on 1 Nov 2026.
    ny = next_deadline(
        utc("2026-10-31 12:00"),
        PhaseKind.MOVEMENT,
        settings("America/New_York", hours=24, at="18:00"),
    )
    assert ny == utc("2026-11-01 23:00")


def test_game_master_dates() -> None:
    assert parse_deadline("2026-11-28 20:00", "Europe/Moscow") == utc("2026-11-28 17:00")
    assert parse_deadline("2026-11-28T20:00+01:00", "UTC") == utc("2026-11-28 19:00")
    with pytest.raises(ValueError, match="write it as YYYY-MM-DD HH:MM"):
        parse_deadline("next friday", "UTC")


ALL_ORDERS = {
    "austria": ("A", "pw-aus", "A Vie H\nA Bud H\nF Tri H"),
    "england": ("E", "pw-eng", "F Lon H\nF Edi H\nA Lvp H"),
    "france": ("F", "paris-123", "F Bre H\nA Par H\nA Mar H"),
    "germany": ("G", "pw-ger", "F Kie H\nA Ber H\nA Mun H"),
    "italy": ("I", "pw-ita", "F Nap H\nA Rom H\nA Ven H"),
    "russia": ("R", "pw-rus", "F StP/SC H\nA Mos H\nA War H\nF Sev H"),
    "turkey": ("T", "pw-tur", "F Ank H\nA Con H\nA Smy H"),
}


def test_early_processing_when_all_orders_are_in_and_nobody_waits(tmp_path: Path) -> None:
    from support.servicekit import started_game

    from judge.services.games import due_games

    app, table = started_game(tmp_path)

    def due(when: str) -> list[tuple[str, str]]:
        with app.sessions() as session:
            return due_games(session, utc(when))

    for minute, (name, (letter, password, orders)) in enumerate(ALL_ORDERS.items()):
        if name == "turkey":
            assert due("2026-11-23 14:00") == []  # Turkey's orders are missing
        body = f"SIGNON {letter}test01 {password}\n{orders}\n"
        if name == "italy":
            body += "SET WAIT\n"
        table.send(f"{name}@example.org", body, f"2026-11-23 13:0{minute}")
    # Everything is in, but Italy asked to wait: only the deadline counts.
    assert due("2026-11-23 15:00") == []
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nSET NOWAIT\n", "2026-11-23 15:00")
    # Ten minutes (the default delay) after the last order, not before.
    assert due("2026-11-23 13:15") == []
    assert due("2026-11-23 13:16") == [("test01", "S1901M")]


def test_deadline_with_grace(tmp_path: Path) -> None:
    from sqlalchemy import select
    from support.servicekit import started_game

    from judge.db.models import Game
    from judge.services.games import due_games

    app, _table = started_game(tmp_path)
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        game.settings = {**game.settings, "deadlines": {"movement": {"hours": 48, "grace": 12}}}
    with app.sessions() as session:
        assert due_games(session, utc("2026-11-25 20:00")) == []
        assert due_games(session, utc("2026-11-26 08:00")) == [("test01", "S1901M")]
