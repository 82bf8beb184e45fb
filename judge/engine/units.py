"""Units: the two unit types and a unit on the board."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class UnitType(enum.Enum):
    """Army or fleet; the value is the one-letter judge abbreviation."""

    ARMY = "A"
    FLEET = "F"

    @property
    def word(self) -> str:
        """The long English word used in results (``Army`` / ``Fleet``)."""
        return "Army" if self is UnitType.ARMY else "Fleet"


ARMY = UnitType.ARMY
FLEET = UnitType.FLEET


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit of ``power`` at ``location``.

    ``location`` is a map location key: a province abbreviation (``"par"``) or, for a
    fleet on a split coast, province and coast (``"stp/nc"``).

    >>> Unit("England", FLEET, "lon")
    Unit(power='England', type=<UnitType.FLEET: 'F'>, location='lon')
    """

    power: str
    type: UnitType
    location: str

    @property
    def province(self) -> str:
        """The province the unit stands in (the location without its coast)."""
        return self.location.split("/", 1)[0]

    def short(self) -> str:
        """``F stp/nc`` style text."""
        return f"{self.type.value} {self.location}"
