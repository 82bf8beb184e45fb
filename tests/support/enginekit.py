"""Small helpers for the engine's tests: the standard map and a position from a list."""

from __future__ import annotations

from judge.engine import ARMY, FLEET, Dislodged, Position, Unit, standard_map

MAP = standard_map()


def pos(
    phase: str,
    units: list[tuple[str, str, str]],
    centres: dict[str, str] | None = None,
    dislodged: list[Dislodged] | None = None,
) -> Position:
    """A position on the standard map: ``units`` as (power, "A" or "F", location)."""
    return Position.build(
        MAP,
        phase,
        [Unit(p, ARMY if t == "A" else FLEET, loc) for p, t, loc in units],
        centres,
        dislodged or [],
    )
