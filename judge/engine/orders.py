"""Orders as values.

An order names the ordered unit by its (optional) type and its location as written; the
legality check (:mod:`judge.engine.legality`) matches it against a position, fills in a
missing type or coast, and rejects what cannot be matched.  Locations are map location
keys: a province abbreviation (``"spa"``) or province and coast (``"spa/nc"``).

Orders are frozen, hashable and compare by value, so ``parse(format(o)) == o``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judge.engine.units import UnitType


@dataclass(frozen=True, slots=True)
class Order:
    """Base class of every order; ``unit_type`` is ``None`` when the writer omitted it."""

    unit_type: UnitType | None
    location: str

    @property
    def province(self) -> str:
        """The province of the ordered unit (its location without a coast)."""
        return self.location.split("/", 1)[0]


# -- movement phase -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hold(Order):
    """``A Par H``."""


@dataclass(frozen=True, slots=True)
class Move(Order):
    """``A Par-Bur``; an army by convoy has ``via_convoy`` and, when written, its ``route``.

    ``route`` lists the sea provinces of an explicit convoy route (``A Lon-NTH-Nwy`` gives
    ``("nth",)``); an explicit route implies ``via_convoy``.
    """

    destination: str
    via_convoy: bool = False
    route: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SupportHold(Order):
    """``A Mun S A Ber`` (support in place; the supported unit may do anything but move)."""

    target_type: UnitType | None
    target: str


@dataclass(frozen=True, slots=True)
class SupportMove(Order):
    """``A Mun S A Ruh-Bur``."""

    target_type: UnitType | None
    target: str
    destination: str


@dataclass(frozen=True, slots=True)
class Convoy(Order):
    """``F NTH C A Lon-Nwy``."""

    target_type: UnitType | None
    target: str
    destination: str


@dataclass(frozen=True, slots=True)
class Proxy(Order):
    """``A Par P Germany``: hand the unit's orders for this phase to another power."""

    power: str


# -- retreat phase --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Retreat(Order):
    """``F Tri-Alb`` in a retreat phase."""

    destination: str


@dataclass(frozen=True, slots=True)
class Disband(Order):
    """``F Tri D`` in a retreat phase."""


# -- adjustment phase -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Build(Order):
    """``Build A Par``.

    ``implied`` records that no keyword was written (``A Par`` in an adjustment phase),
    which the judge syntax allows for both builds and removals; it does not take part in
    comparisons.
    """

    implied: bool = field(default=False, compare=False)


@dataclass(frozen=True, slots=True)
class Remove(Order):
    """``Remove F Tri``."""


@dataclass(frozen=True, slots=True)
class Waive(Order):
    """``Waive``: give up one build.  ``location`` is ``""`` (or a centre, if written)."""

    unit_type: UnitType | None = None
    location: str = ""


MOVEMENT_ORDERS = (Hold, Move, SupportHold, SupportMove, Convoy, Proxy)
RETREAT_ORDERS = (Retreat, Disband)
ADJUSTMENT_ORDERS = (Build, Remove, Waive)
