"""Positions and adjudications as plain JSON-ready documents.

The input document (see ``docs/adjudicate.md``)::

    {"phase": "S1901M",
     "units": {"England": ["F LON", "A LVP", "F STP/SC"], ...},
     "dislodged": {"Austria": {"F TRI": ["ALB", "VEN"]}},   # retreat phases only
     "centers": {"England": ["LON", "LVP", "EDI"], ...},
     "orders": {"England": ["F LON-NTH", ...], ...}}

Powers may be written in any case, provinces by any alias; the output uses the canonical
power names and canonical abbreviations in upper case.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judge.engine.adjudicator import Adjudication, adjudicate
from judge.engine.board import Map, standard_map
from judge.engine.legality import retreat_locations
from judge.engine.phases import Phase
from judge.engine.position import Dislodged, Position
from judge.engine.results import OrderResult
from judge.engine.rules import Rules
from judge.engine.units import Unit, UnitType


class DocumentError(ValueError):
    """A malformed input document; the message names the key and the fix."""


def _power(game_map: Map, text: object, where: str) -> str:
    if not isinstance(text, str) or (power := game_map.find_power(text)) is None:
        raise DocumentError(
            f"{where}: {text!r} is not a power; use one of {', '.join(game_map.powers)}"
        )
    return power


def _location(game_map: Map, text: object, where: str) -> str:
    if not isinstance(text, str) or (loc := game_map.find_location(text)) is None:
        raise DocumentError(f"{where}: {text!r} is not a province or coast of the map")
    return loc


def _unit(game_map: Map, power: str, text: object, where: str) -> Unit:
    if not isinstance(text, str):
        raise DocumentError(f'{where}: expected a unit such as "F LON", got {text!r}')
    kind, _, rest = text.strip().partition(" ")
    if kind.upper() not in ("A", "F") or not rest.strip():
        raise DocumentError(f'{where}: expected a unit such as "A PAR" or "F STP/SC", got {text!r}')
    location = _location(game_map, rest.strip(), where)
    unit_type = UnitType(kind.upper())
    if unit_type is UnitType.ARMY:
        location = game_map.province_of(location)
    elif not game_map.can_hold(unit_type, location):
        raise DocumentError(f"{where}: a fleet cannot stand at {text!r} (a coast may be missing)")
    return Unit(power, unit_type, location)


def _mapping(doc: Mapping[str, Any], key: str, required: bool = False) -> Mapping[str, Any]:
    value = doc.get(key)
    if value is None:
        if required:
            raise DocumentError(f"missing key {key!r}")
        return {}
    if not isinstance(value, Mapping):
        raise DocumentError(f"{key!r} must be an object mapping powers to lists")
    return value


def _list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise DocumentError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def position_from_document(doc: Mapping[str, Any], game_map: Map | None = None) -> Position:
    """A :class:`Position` from the keys ``phase``, ``units``, ``dislodged``, ``centers``."""
    game_map = game_map or standard_map()
    if not isinstance(doc, Mapping):
        raise DocumentError("the document must be a JSON object")
    try:
        phase = Phase.parse(str(doc.get("phase", "")))
    except ValueError as err:
        raise DocumentError(f"'phase': {err}") from None
    units: list[Unit] = []
    for power_text, items in _mapping(doc, "units", True).items():
        power = _power(game_map, power_text, f"units.{power_text}")
        for item in _list(items, f"units.{power_text}"):
            units.append(_unit(game_map, power, item, f"units.{power_text}"))
    dislodged: list[Dislodged] = []
    for power_text, items in _mapping(doc, "dislodged").items():
        power = _power(game_map, power_text, f"dislodged.{power_text}")
        if not isinstance(items, Mapping):
            raise DocumentError(f'dislodged.{power_text}: expected {{"F TRI": ["ALB"]}}')
        for unit_text, retreats in items.items():
            where = f"dislodged.{power_text}.{unit_text}"
            unit = _unit(game_map, power, unit_text, where)
            found: set[str] = set()
            for r in _list(retreats, where):
                for loc in retreat_locations(game_map, unit, _location(game_map, r, where)):
                    if not game_map.can_hold(unit.type, loc):
                        raise DocumentError(
                            f"{where}: {r!r} is not a place the {unit.type.word.lower()} "
                            "can retreat to (a coast may be missing)"
                        )
                    found.add(loc)
            options = tuple(sorted(found))
            dislodged.append(Dislodged(unit, None, options))
    centres: dict[str, str] | None = None
    if "centers" in doc or "centres" in doc:
        centres = {}
        key = "centers" if "centers" in doc else "centres"
        for power_text, items in _mapping(doc, key).items():
            power = _power(game_map, power_text, f"{key}.{power_text}")
            for item in _list(items, f"{key}.{power_text}"):
                prov = game_map.province_of(_location(game_map, item, f"{key}.{power_text}"))
                if prov not in game_map.supply_centres:
                    raise DocumentError(f"{key}.{power_text}: {item!r} is not a supply centre")
                centres[prov] = power
    try:
        return Position.build(game_map, phase, units, centres, dislodged)
    except ValueError as err:
        raise DocumentError(f"'units': {err}") from None


def _up(location: str) -> str:
    return location.upper()


def position_to_document(position: Position) -> dict[str, Any]:
    """The output keys ``phase``, ``units``, ``dislodged``, ``centers`` of a position."""
    units: dict[str, list[str]] = {}
    for unit in sorted(position.units.values(), key=lambda u: (u.power, u.location)):
        units.setdefault(unit.power, []).append(f"{unit.type.value} {_up(unit.location)}")
    dislodged: dict[str, dict[str, list[str]]] = {}
    for entry in sorted(position.dislodged.values(), key=lambda d: (d.unit.power, d.unit.location)):
        u = entry.unit
        dislodged.setdefault(u.power, {})[f"{u.type.value} {_up(u.location)}"] = [
            _up(r) for r in entry.retreats
        ]
    centres: dict[str, list[str]] = {}
    for prov, power in sorted(position.centres.items(), key=lambda kv: (kv[1], kv[0])):
        centres.setdefault(power, []).append(_up(prov))
    return {
        "phase": position.phase.code,
        "units": units,
        "dislodged": dislodged,
        "centers": centres,
    }


def result_to_document(result: OrderResult, game_map: Map) -> dict[str, Any]:
    """One order's result: the order in short and long form, success and notes."""
    from judge.engine.notation import format_order

    return {
        "power": result.power,
        "order": format_order(result.order, game_map, short=True).upper(),
        "text": format_order(result.order, game_map),
        "result": "success" if result.success else "failure",
        "notes": [
            {"note": r.note.value, **({"culprit": _up(r.culprit)} if r.culprit else {})}
            for r in result.reasons
        ],
        "default": result.default,
    }


def adjudication_to_document(out: Adjudication) -> dict[str, Any]:
    """The whole output document of one adjudication."""
    game_map = out.position.map
    doc = position_to_document(out.position)
    doc["results"] = [result_to_document(r, game_map) for r in out.results]
    doc["rejected"] = [
        {"power": r.power, "order": r.text, "code": r.code, "message": r.message}
        for r in out.rejected
    ]
    doc["destroyed"] = [f"{u.power} {u.type.value} {_up(u.location)}" for u in out.destroyed]
    doc["skipped"] = [p.code for p in out.skipped]
    doc["winner"] = out.winner
    return doc


def adjudicate_document(doc: Mapping[str, Any], rules: Rules | None = None) -> dict[str, Any]:
    """Adjudicate an input document and return the output document."""
    game_map = standard_map()
    position = position_from_document(doc, game_map)
    orders: list[tuple[str | None, str]] = []
    for power_text, items in _mapping(doc, "orders").items():
        power = _power(game_map, power_text, f"orders.{power_text}")
        for item in _list(items, f"orders.{power_text}"):
            if not isinstance(item, str):
                raise DocumentError(f"orders.{power_text}: orders are strings, got {item!r}")
            orders.append((power, item))
    return adjudication_to_document(adjudicate(position, orders, rules))
