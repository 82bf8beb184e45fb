"""The rules of Diplomacy as a pure library (standard library only).

>>> from judge.engine import standard_map, Position, adjudicate
>>> game_map = standard_map()
>>> orders = {"Germany": ["A Mun-Bur"], "France": ["A Par-Bur"]}
>>> out = adjudicate(Position.initial(game_map), orders)
>>> sorted(r.notes for r in out.results if r.order.location in ("mun", "par"))
[(<Note.BOUNCE: 'bounce'>,), (<Note.BOUNCE: 'bounce'>,)]
"""

from judge.engine.adjudicator import Adjudication, adjudicate, civil_disorder_removals
from judge.engine.board import Map, ProvinceKind, standard_map
from judge.engine.errors import (
    AmbiguousOrderError,
    IllegalOrderError,
    OrderError,
    OrderSyntaxError,
    RetreatNotValidError,
)
from judge.engine.obligations import Owed, owed, powers_owing
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
from judge.engine.phases import Phase, PhaseKind, Season
from judge.engine.position import Dislodged, Position
from judge.engine.results import Note, OrderResult, Reason, Rejection
from judge.engine.rules import CivilDisorder, Edition, Rules
from judge.engine.units import ARMY, FLEET, Unit, UnitType

__all__ = [
    "ARMY",
    "FLEET",
    "Adjudication",
    "AmbiguousOrderError",
    "Build",
    "CivilDisorder",
    "Convoy",
    "Disband",
    "Dislodged",
    "Edition",
    "Hold",
    "IllegalOrderError",
    "Map",
    "Move",
    "Note",
    "Order",
    "OrderError",
    "OrderResult",
    "OrderSyntaxError",
    "Owed",
    "Phase",
    "PhaseKind",
    "Position",
    "ProvinceKind",
    "Proxy",
    "Reason",
    "Rejection",
    "Remove",
    "Retreat",
    "RetreatNotValidError",
    "Rules",
    "Season",
    "SupportHold",
    "SupportMove",
    "Unit",
    "UnitType",
    "Waive",
    "adjudicate",
    "civil_disorder_removals",
    "owed",
    "powers_owing",
    "standard_map",
]
