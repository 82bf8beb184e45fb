"""Deadline arithmetic: hours, time of day, weekdays, daylight saving, GM dates."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from judge.engine.phases import PhaseKind
from judge.services.deadlines import next_deadline, parse_deadline


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def settings(zone: str = "Europe/London", **movement: object) -> dict[str, object]:
    return {"timezone": zone, "deadlines": {"movement": movement}}


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
        utc("2026-11-23 12:00"), PhaseKind.MOVEMENT, settings(hours=48, at="20:00", days=[4, 6])
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
