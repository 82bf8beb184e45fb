"""Whether an order, as someone wrote it, was given in a phase and succeeded: what a
press release's condition asks (``PRESS PUBLISH IF A Par-Bur SUCCEEDS``).

Orders are compared by meaning, never by text: the written order is read with the map
first (``A Par-Bur``, ``a par - bur`` and ``Army Paris to Burgundy`` are one order), and
what the writer left out is not held against them: a unit type not written matches
either type, a place written without a coast matches any of its coasts.  What the writer
did write must match: the kind of order, the unit's province, the destination, the unit
supported or convoyed, the power a unit is handed to.  How a move goes (by convoy, its
route) is not part of its meaning: the unit goes to the same place.
"""

from __future__ import annotations

from collections.abc import Iterable

from judge.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Proxy,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from judge.engine.results import OrderResult
from judge.engine.units import UnitType

__all__ = ["order_outcome", "same_order"]


def _same_place(written: str, given: str) -> bool:
    """Whether location ``written`` names ``given``: the same province, and the same
    coast when both name one.

    >>> _same_place("spa", "spa/nc"), _same_place("spa/sc", "spa/nc"), _same_place("spa", "por")
    (True, False, False)
    """
    province, _, coast = written.partition("/")
    given_province, _, given_coast = given.partition("/")
    return province == given_province and (not coast or not given_coast or coast == given_coast)


def _same_type(written: UnitType | None, given: UnitType | None) -> bool:
    """Whether unit type ``written`` (None: not written) allows ``given``."""
    return written is None or given is None or written is given


def same_order(written: Order, given: Order) -> bool:
    """Whether the order ``written`` (as read from a condition) means the order ``given``
    (as adjudicated): the same kind of order for the same unit, doing the same thing.

    >>> from judge.engine.notation import parse_order
    >>> same_order(parse_order("a par - bur"), parse_order("Army Paris to Burgundy"))
    True
    >>> same_order(parse_order("Par-Bur"), parse_order("A Par-Bur"))
    True
    >>> same_order(parse_order("F Par-Bur"), parse_order("A Par-Bur"))
    False
    >>> same_order(parse_order("A Par-Bur"), parse_order("A Par-Pic"))
    False
    >>> same_order(parse_order("A Par H"), parse_order("A Par-Bur"))
    False
    """
    if type(written) is not type(given):
        return False
    if not _same_type(written.unit_type, given.unit_type):
        return False
    if isinstance(written, Waive):
        # A waive names no unit; a centre, when written, must be the one given.
        return not written.location or _same_place(written.location, given.location)
    if not _same_place(written.location, given.location):
        return False
    match written:
        case Move(destination=destination) | Retreat(destination=destination):
            assert isinstance(given, (Move, Retreat))
            return _same_place(destination, given.destination)
        case SupportMove() | Convoy():
            assert isinstance(given, (SupportMove, Convoy))
            return (
                _same_type(written.target_type, given.target_type)
                and _same_place(written.target, given.target)
                and _same_place(written.destination, given.destination)
            )
        case SupportHold():
            assert isinstance(given, SupportHold)
            return _same_type(written.target_type, given.target_type) and _same_place(
                written.target, given.target
            )
        case Proxy():
            assert isinstance(given, Proxy)
            return written.power == given.power
        case Hold() | Disband() | Build() | Remove():
            return True
    return False  # pragma: no cover - every kind of order is matched above


def order_outcome(written: Order, results: Iterable[OrderResult]) -> bool | None:
    """Whether the order ``written`` was given and succeeded (True), was given and
    failed (False), or was not given at all, or given differently (None), among a
    phase's ``results``.

    An order the judge supplied for a unit without one (``default``: a hold, a disband,
    a civil-disorder removal) is not an order given, so it answers neither way.

    >>> from judge.engine import Position, adjudicate, standard_map
    >>> from judge.engine.notation import parse_order
    >>> out = adjudicate(Position.initial(standard_map()), {"France": ["A Par-Bur"]})
    >>> order_outcome(parse_order("a par - bur"), out.results)
    True
    >>> order_outcome(parse_order("A Mar-Bur"), out.results) is None
    True
    """
    for result in results:
        if not result.default and same_order(written, result.order):
            return result.success
    return None
