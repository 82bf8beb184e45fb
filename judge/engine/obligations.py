"""What a power still owes in a phase: the one answer every part of the judge asks.

A power owes an order for each of its units in a movement phase, for each of its
dislodged units in a retreat phase, and in an adjustment phase each removal it must make
and each build it may make where it has a centre free to build in.  :func:`owed` answers
it for one power from the position, the rules and the orders it has given;
:func:`powers_owing` (who has anything to order at all) is :func:`owed` with no orders,
so the two cannot disagree.

>>> from judge.engine import Rules, standard_map, Position
>>> start = Position.initial(standard_map())
>>> [u.location for u in owed(start, "England", [], Rules()).units]
['edi', 'lon', 'lvp']
>>> len(powers_owing(start, Rules()))
7
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from judge.engine.adjudicator import implied_moves
from judge.engine.orders import Order
from judge.engine.phases import PhaseKind
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.engine.units import Unit

__all__ = ["Owed", "build_places", "owed", "powers_owing"]


@dataclass(frozen=True, slots=True)
class Owed:
    """What one power still owes this phase, given its orders (see :func:`owed`).

    >>> Owed("Italy", adjustment=2, places=1, ordered=1).complete
    True
    >>> Owed("Italy", adjustment=-2, ordered=1).removals
    1
    """

    power: str
    #: Movement: its units still without an order; retreats: its dislodged units still
    #: without one.  Sorted by location.
    units: tuple[Unit, ...] = ()
    #: Movement under house rule 3.8: the moves its supports and convoys order for its
    #: own units that have no order of their own (those units are ordered, not owed).
    implied: tuple[Order, ...] = ()
    #: Adjustments: centres minus units (builds when positive, removals when negative).
    adjustment: int = 0
    #: Adjustments with builds: how many centres it has free to build in now.
    places: int = 0
    #: Adjustments: how many build, waive or remove orders it has given.
    ordered: int = 0

    @property
    def needed(self) -> int:
        """Adjustments: how many orders it must give to be complete: every removal, and
        as many builds as it has centres free to build in."""
        if self.adjustment < 0:
            return -self.adjustment
        return min(self.adjustment, self.places)

    @property
    def allowed(self) -> int:
        """Adjustments: how many build, waive or remove orders it may give at most (one per
        build or removal; a build beyond its free centres can only be a waive)."""
        return abs(self.adjustment)

    @property
    def removals(self) -> int:
        """Adjustments: removals still to order (the civil disorder rule picks the rest)."""
        return max(0, -self.adjustment - self.ordered) if self.adjustment < 0 else 0

    @property
    def builds(self) -> int:
        """Adjustments: builds it may still order and has room for (the rest are waived)."""
        return max(0, self.needed - self.ordered) if self.adjustment > 0 else 0

    @property
    def complete(self) -> bool:
        """Whether it has ordered everything it owes."""
        return not self.units and not self.removals and not self.builds


def build_places(position: Position, power: str, rules: Rules) -> tuple[str, ...]:
    """The centres, sorted, where ``power`` could build now: centres it owns with no unit
    in them, among its home centres (any of its centres under ``rules.build_anywhere``).

    >>> from judge.engine import Rules, standard_map, Position
    >>> build_places(Position.initial(standard_map()), "France", Rules())
    ()
    """
    homes = position.map.home_centres.get(power, frozenset())
    return tuple(
        sorted(
            centre
            for centre, owner in position.centres.items()
            if owner == power
            and centre not in position.units
            and (rules.build_anywhere or centre in homes)
        )
    )


def owed(position: Position, power: str, orders: Iterable[Order], rules: Rules) -> Owed:
    """What ``power`` still owes in ``position``'s phase with ``orders`` (the orders it has
    given this phase, already checked).

    Movement: each of its units without an order; a unit that one of its supports or
    convoys orders under house rule 3.8 (``rules.implied_orders``) is ordered.  With
    proxies a power may give orders for another power's units: those order nothing of its
    own and imply nothing for it.  Retreats: each of its dislodged units without an order.
    Adjustments: counted, not listed (see :class:`Owed`), builds only as many as
    :func:`build_places` has room for.

    >>> from judge.engine import Hold, Rules, standard_map, Position
    >>> start = Position.initial(standard_map())
    >>> due = owed(start, "England", [Hold(None, "lon"), Hold(None, "edi")], Rules())
    >>> [u.location for u in due.units], due.complete
    (['lvp'], False)
    """
    orders = list(orders)
    kind = position.phase.kind
    if kind is PhaseKind.ADJUSTMENT:
        adjustment = position.adjustment(power)
        places = len(build_places(position, power, rules)) if adjustment > 0 else 0
        return Owed(power, adjustment=adjustment, places=places, ordered=len(orders))
    if kind is PhaseKind.RETREAT:
        ordered = {o.province for o in orders}
        units = tuple(
            d.unit
            for d in position.dislodged.values()
            if d.unit.power == power and d.unit.province not in ordered
        )
        return Owed(power, units=tuple(sorted(units, key=_location)))
    own = [o for o in orders if (u := position.units.get(o.province)) and u.power == power]
    implied = tuple(implied_moves(position, power, own, rules).values())
    ordered = {o.province for o in own} | {o.province for o in implied}
    units = tuple(u for u in position.units_of(power) if u.province not in ordered)
    return Owed(power, units=units, implied=implied)


def powers_owing(position: Position, rules: Rules) -> frozenset[str]:
    """The powers that have anything to order in ``position``'s phase: those that owe
    something before giving any order (a build counts only where there is room for it).

    >>> from judge.engine import Rules, standard_map, Position
    >>> game_map = standard_map()
    >>> sorted(powers_owing(Position.build(game_map, "W1901A", game_map.start_units), Rules()))
    []
    """
    return frozenset(p for p in position.map.powers if not owed(position, p, (), rules).complete)


def _location(unit: Unit) -> str:
    return unit.location
