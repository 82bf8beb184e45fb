"""Deadline arithmetic: stored in UTC, computed and shown in the game's time zone."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from judge.config import GameSettings, JudgeSettings, settings_from_json
from judge.engine.phases import PhaseKind


def next_deadline(
    now: datetime,
    kind: PhaseKind,
    settings: GameSettings | Mapping[str, Any],
    zone: str | None = None,
) -> datetime:
    """The deadline of a phase of ``kind`` starting at ``now`` (aware UTC in and out).

    ``hours`` after ``now``, then moved forward to the next ``at`` time of day in the
    game's zone when one is configured (wall-clock time, so daylight saving is honoured).
    ``zone`` is the game's zone as :func:`judge.services.game_settings.game_zone` resolves
    it; left out, the settings' own zone, or the judge's default default (UTC).  A stored
    settings dict is still taken for callers not moved to the typed value yet.
    """
    if now.tzinfo is None:
        raise ValueError("next_deadline needs an aware datetime")
    if not isinstance(settings, GameSettings):
        settings = settings_from_json(settings)
    spec = settings.deadline(kind)
    tz = ZoneInfo(zone or settings.timezone or JudgeSettings.timezone)
    days = set(spec.days) or set(range(7))
    due = (now + timedelta(hours=spec.hours)).astimezone(tz)
    if spec.at:
        hh, mm = (int(x) for x in spec.at.split(":"))
        wall = time(hh, mm)
    else:
        wall = due.timetz().replace(tzinfo=None)
    # The first allowed day, on or after the due date, whose wall-clock time is not
    # before the due time.  Built from the date and the wall clock in the zone, so a
    # daylight-saving change keeps "20:00" at 20:00.
    for offset in range(8):
        day = due.date() + timedelta(days=offset)
        candidate = datetime.combine(day, wall, tzinfo=tz)
        if candidate >= due.replace(microsecond=0) - timedelta(seconds=1) and day.weekday() in days:
            due = candidate
            break
    return due.astimezone(ZoneInfo("UTC")).replace(microsecond=0)


def parse_deadline(text: str, zone: str) -> datetime:
    """A game master's ``SET DEADLINE`` date: ``2026-11-28 20:00`` (in the game's zone) or
    ISO 8601 with an offset; raise ``ValueError`` saying what is expected."""
    cleaned = text.strip().replace("T", " ")
    for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M%z", "%Y-%m-%d %H:%M:%S%z"):
        try:
            parsed = datetime.strptime(cleaned, fmt)
        except ValueError:
            continue
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=ZoneInfo(zone))
        return parsed.astimezone(ZoneInfo("UTC"))
    raise ValueError(
        f"cannot read the date {text.strip()!r}: write it as YYYY-MM-DD HH:MM "
        f"(in the game's time zone, {zone}), e.g. 2026-11-28 20:00"
    )
