"""Positions and adjudications as plain JSON-ready documents.

The input document (see ``docs/adjudicate.md``)::

    {"phase": "S1901M",
     "units": {"England": ["F LON", "A LVP", "F STP/SC"], ...},
     "dislodged": {"Austria": {"F TRI": ["ALB", "VEN"]}},   # retreat phases only
     "centers": {"England": ["LON", "LVP", "EDI"], ...},
     "orders": {"England": ["F LON-NTH", ...], ...}}

A season of the two-season year (house rules 3.1-3.5) adds the orders given ahead, with
IF ... ENDIF blocks, to a movement phase's document; either key (or ``"season": true``)
makes the document a season's::

     "retreats": {"Germany": ["IF French A Mun", "A Mun-Boh", "ENDIF"]},
     "adjustments": {"France": ["Build A Par"]},
     "retreat_priority": true,          # house rule 3.2 (default false)
     "civil_disorder": "house"          # or "edition"; a season's default is "house"

Powers may be written in any case, provinces by any alias; the output uses the canonical
power names and canonical abbreviations in upper case.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from judge.engine.adjudicator import Adjudication, adjudicate
from judge.engine.board import Map, standard_map
from judge.engine.legality import retreat_locations
from judge.engine.orders import Order
from judge.engine.phases import Phase, PhaseKind
from judge.engine.position import Dislodged, Position
from judge.engine.results import OrderResult
from judge.engine.rules import CivilDisorder, Rules
from judge.engine.units import Unit, UnitType

if TYPE_CHECKING:  # a season's modules are imported when a season's document comes
    from judge.engine.conditional import Item
    from judge.engine.seasons import SeasonOutcome


class DocumentError(ValueError):
    """A malformed input document; the message names the key and the fix."""


#: The most answers each per-map memo below keeps: far more than a map has names and
#: units, so every document spelled the usual way is answered from it, and a stream of
#: odd spellings cannot make it grow without bound.
_MEMO_LIMIT = 4096
#: The longest text the memos keep an answer for (no name is longer).
_MEMO_TEXT_MAX = 64


class _Memo:
    """One map's answers to the lookups a document needs again and again (``"A PAR"`` is
    read in almost every document of a game): the same answers as the map gives, kept.
    The map is immutable, so an answer never goes stale."""

    __slots__ = ("formats", "game_map", "locations", "powers", "unit_texts", "units", "values")

    def __init__(self, game_map: Map) -> None:
        self.game_map = game_map
        self.powers: dict[str, str | None] = {}
        self.locations: dict[str, str | None] = {}
        self.units: dict[str, tuple[UnitType, str]] = {}
        #: The unit a power's unit text reads as (units are immutable values, so one
        #: object serves every document that has it).
        self.values: dict[tuple[str, str], Unit] = {}
        self.formats: dict[Order, tuple[str, str]] = {}
        #: A location's unit as written out: ("A PAR", "F PAR").
        self.unit_texts: dict[str, tuple[str, str]] = {}


_MEMOS: dict[int, _Memo] = {}


def _memo(game_map: Map) -> _Memo:
    memo = _MEMOS.get(id(game_map))
    if memo is None or memo.game_map is not game_map:
        if len(_MEMOS) >= 16:  # maps made and dropped (tests): start again
            _MEMOS.clear()
        memo = _MEMOS[id(game_map)] = _Memo(game_map)
    return memo


def _keep(table: dict[Any, Any], key: Any, value: Any) -> None:
    if len(table) < _MEMO_LIMIT:
        table[key] = value


def _power(game_map: Map, text: object, where: str) -> str:
    powers = _memo(game_map).powers
    power = powers.get(text) if isinstance(text, str) else None
    if power is None:
        if not isinstance(text, str) or (power := game_map.find_power(text)) is None:
            raise DocumentError(
                f"{where}: {text!r} is not a power; use one of {', '.join(game_map.powers)}"
            )
        if len(text) <= _MEMO_TEXT_MAX:
            _keep(powers, text, power)
    return power


def _location(game_map: Map, text: object, where: str) -> str:
    locations = _memo(game_map).locations
    loc = locations.get(text) if isinstance(text, str) else None
    if loc is None:
        if not isinstance(text, str) or (loc := game_map.find_location(text)) is None:
            raise DocumentError(f"{where}: {text!r} is not a province or coast of the map")
        if len(text) <= _MEMO_TEXT_MAX:
            _keep(locations, text, loc)
    return loc


def _unit(game_map: Map, power: str, text: object, where: str) -> Unit:
    units = _memo(game_map).units
    known = units.get(text) if isinstance(text, str) else None
    if known is not None:
        return Unit(power, known[0], known[1])
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
    if len(text) <= _MEMO_TEXT_MAX:
        _keep(units, text, (unit_type, location))
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
    memo = _memo(game_map)
    values = memo.values
    units: list[Unit] = []
    for power_text, items in _mapping(doc, "units", True).items():
        where = f"units.{power_text}"
        power = _power(game_map, power_text, where)
        for item in _list(items, where):
            # The usual spelling is answered from the memo; anything else is read and
            # checked by _unit (and remembered when it is good).
            held = (power, item) if type(item) is str else None
            unit = values.get(held) if held is not None else None
            if unit is None:
                unit = _unit(game_map, power, item, where)
                if held is not None and len(item) <= _MEMO_TEXT_MAX:
                    _keep(values, held, unit)
            units.append(unit)
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
        known_locations = memo.locations
        for power_text, items in _mapping(doc, key).items():
            where = f"{key}.{power_text}"
            power = _power(game_map, power_text, where)
            for item in _list(items, where):
                place = known_locations.get(item) if type(item) is str else None
                if place is None:
                    place = _location(game_map, item, where)
                prov = game_map.province_of(place)
                if prov not in game_map.supply_centres:
                    raise DocumentError(f"{where}: {item!r} is not a supply centre")
                centres[prov] = power
    try:
        return Position.build(game_map, phase, units, centres, dislodged)
    except ValueError as err:
        raise DocumentError(f"'units': {err}") from None


def _up(location: str) -> str:
    return location.upper()


def _unit_key(unit: Unit) -> tuple[str, str]:
    return unit.power, unit.location


def _letter(unit_type: UnitType) -> str:
    """A unit's type as the documents write it (compared, not looked up: hashing an enum
    member runs Python code)."""
    return "A" if unit_type is UnitType.ARMY else "F"


def position_to_document(position: Position) -> dict[str, Any]:
    """The output keys ``phase``, ``units``, ``dislodged``, ``centers`` of a position."""
    units: dict[str, list[str]] = {}
    written = _memo(position.map).unit_texts
    for unit in sorted(position.units.values(), key=_unit_key):
        location = unit.location
        pair = written.get(location)
        if pair is None:
            pair = (f"A {location.upper()}", f"F {location.upper()}")
            _keep(written, location, pair)
        text = pair[0] if unit.type is UnitType.ARMY else pair[1]
        listed = units.get(unit.power)
        if listed is None:
            units[unit.power] = [text]
        else:
            listed.append(text)
    dislodged: dict[str, dict[str, list[str]]] = {}
    for entry in sorted(position.dislodged.values(), key=lambda d: (d.unit.power, d.unit.location)):
        u = entry.unit
        dislodged.setdefault(u.power, {})[f"{_letter(u.type)} {_up(u.location)}"] = [
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
    return _result_document(result, game_map, _memo(game_map).formats)


def _result_document(
    result: OrderResult, game_map: Map, formats: dict[Order, tuple[str, str]]
) -> dict[str, Any]:
    order = result.order
    written = formats.get(order)
    if written is None:
        from judge.engine.notation import format_order

        written = (format_order(order, game_map, short=True).upper(), format_order(order, game_map))
        _keep(formats, order, written)
    return {
        "power": result.power,
        "order": written[0],
        "text": written[1],
        "result": "success" if result.success else "failure",
        "notes": [
            {"note": r.note.value, **({"culprit": _up(r.culprit)} if r.culprit else {})}
            for r in result.reasons
        ]
        if result.reasons
        else [],
        "default": result.default,
    }


def results_from_document(
    items: object, kind: PhaseKind, game_map: Map | None = None
) -> tuple[OrderResult, ...]:
    """The inverse of the ``results`` part of :func:`adjudication_to_document`: the
    results of a phase of ``kind`` (whose short orders are read as that kind's, as
    ``F TRI-ALB`` is a retreat in a retreat phase) as :class:`OrderResult` values.
    Raises :class:`DocumentError` naming the entry that is not one.

    >>> from judge.engine import Position, standard_map
    >>> out = adjudicate(Position.initial(standard_map()), {"France": ["A Par-Bur"]})
    >>> doc = adjudication_to_document(out)
    >>> results_from_document(doc["results"], PhaseKind.MOVEMENT) == out.results
    True
    """
    from judge.engine.notation import parse_order
    from judge.engine.results import Note, Reason

    game_map = game_map or standard_map()
    read: list[OrderResult] = []
    for number, item in enumerate(_list(items, "results"), 1):
        where = f"results[{number}]"
        if not isinstance(item, Mapping):
            raise DocumentError(f"{where}: expected an object with power, order and result")
        power = _power(game_map, item.get("power"), f"{where}.power")
        text = item.get("order")
        if not isinstance(text, str):
            raise DocumentError(f'{where}.order: expected an order such as "A PAR-BUR"')
        try:
            order = parse_order(text, game_map, kind)
        except ValueError as err:
            raise DocumentError(f"{where}.order: {err}") from None
        if item.get("result") not in ("success", "failure"):
            raise DocumentError(f'{where}.result: use "success" or "failure"')
        reasons: list[Reason] = []
        for note in _list(item.get("notes", []), f"{where}.notes"):
            try:
                value = Note(note["note"])
            except (KeyError, TypeError, ValueError):
                raise DocumentError(f"{where}.notes: {note!r} is not a note") from None
            culprit = note.get("culprit")
            located = None if culprit is None else _location(game_map, culprit, where)
            reasons.append(Reason(value, located))
        success = item["result"] == "success"
        default = bool(item.get("default", False))
        read.append(OrderResult(power, order, success, tuple(reasons), default))
    return tuple(read)


def adjudication_to_document(out: Adjudication) -> dict[str, Any]:
    """The whole output document of one adjudication."""
    game_map = out.position.map
    doc = position_to_document(out.position)
    formats = _memo(game_map).formats
    doc["results"] = [_result_document(r, game_map, formats) for r in out.results]
    doc["rejected"] = [
        {"power": r.power, "order": r.text, "code": r.code, "message": r.message}
        for r in out.rejected
    ]
    doc["destroyed"] = [f"{u.power} {_letter(u.type)} {_up(u.location)}" for u in out.destroyed]
    doc["skipped"] = [p.code for p in out.skipped]
    doc["winner"] = out.winner
    return doc


#: The keys of a season's orders given ahead, and the phase kind each is for.
SEASON_KEYS = (("retreats", PhaseKind.RETREAT), ("adjustments", PhaseKind.ADJUSTMENT))


def is_season_document(doc: Mapping[str, Any]) -> bool:
    """Whether ``doc`` asks for a whole season of the two-season year: it has
    ``retreats`` or ``adjustments``, or ``"season": true``."""
    season = doc.get("season", False)
    if not isinstance(season, bool):
        raise DocumentError(f"'season' must be true or false, got {season!r}")
    return season or any(key in doc for key, _kind in SEASON_KEYS)


def _orders(doc: Mapping[str, Any], game_map: Map) -> list[tuple[str | None, str]]:
    orders: list[tuple[str | None, str]] = []
    for power_text, items in _mapping(doc, "orders").items():
        power = _power(game_map, power_text, f"orders.{power_text}")
        for item in _list(items, f"orders.{power_text}"):
            if not isinstance(item, str):
                raise DocumentError(f"orders.{power_text}: orders are strings, got {item!r}")
            orders.append((power, item))
    return orders


def _ahead(doc: Mapping[str, Any], game_map: Map) -> dict[PhaseKind, dict[str, list[Item]]]:
    """The orders given ahead under ``retreats`` and ``adjustments``, blocks read."""
    from judge.engine.conditional import parse_blocks

    ahead: dict[PhaseKind, dict[str, list[Item]]] = {}
    for key, kind in SEASON_KEYS:
        for power_text, items in _mapping(doc, key).items():
            where = f"{key}.{power_text}"
            power = _power(game_map, power_text, where)
            lines = _list(items, where)
            for line in lines:
                if not isinstance(line, str):
                    raise DocumentError(f"{where}: order lines are strings, got {line!r}")
            try:
                read = parse_blocks(lines, game_map)
            except ValueError as err:
                raise DocumentError(f"{where}: {err}") from None
            ahead.setdefault(kind, {}).setdefault(power, []).extend(read)
    return ahead


def _rules(doc: Mapping[str, Any], rules: Rules | None, season: bool) -> Rules:
    """``rules`` with the document's ``retreat_priority`` and ``civil_disorder``; a
    season's removals default to house rule 3.5, as a two-season game's do."""
    rules = rules or Rules()
    priority = doc.get("retreat_priority", rules.retreat_priority)
    if not isinstance(priority, bool):
        raise DocumentError(f"'retreat_priority' must be true or false, got {priority!r}")
    written = doc.get("civil_disorder")
    if written is None:
        disorder = CivilDisorder.HOUSE if season else rules.civil_disorder
    else:
        choices = [c.value for c in CivilDisorder]
        if written not in choices:
            raise DocumentError(
                f"'civil_disorder' must be one of {', '.join(map(repr, choices))}, got {written!r}"
            )
        disorder = CivilDisorder(written)
    return replace(rules, retreat_priority=priority, civil_disorder=disorder)


def season_to_document(outcome: SeasonOutcome) -> dict[str, Any]:
    """The output document of a season: the position it leaves, each phase played
    (``steps``: ``phase``, ``results``, ``rejected``, ``destroyed``, ``skipped``), the
    notes for each power that gave orders ahead, and the winner."""
    doc = position_to_document(outcome.position)
    steps = []
    for step in outcome.steps:
        full = adjudication_to_document(step)
        steps.append(
            {
                "phase": step.before.phase.code,
                **{key: full[key] for key in ("results", "rejected", "destroyed", "skipped")},
            }
        )
    doc["steps"] = steps
    doc["notes"] = {power: list(lines) for power, lines in outcome.notes.items()}
    doc["winner"] = outcome.winner
    return doc


def adjudicate_document(doc: Mapping[str, Any], rules: Rules | None = None) -> dict[str, Any]:
    """Adjudicate an input document and return the output document: one phase, or a
    whole season when :func:`is_season_document` says so."""
    game_map = standard_map()
    position = position_from_document(doc, game_map)
    orders = _orders(doc, game_map)
    season = is_season_document(doc)
    rules = _rules(doc, rules, season)
    if not season:
        return adjudication_to_document(adjudicate(position, orders, rules))
    if position.phase.kind is not PhaseKind.MOVEMENT:
        raise DocumentError(
            f"'phase': a season starts with its moves; {position.phase.code} is not a"
            " movement phase"
        )
    from judge.engine.seasons import adjudicate_season

    return season_to_document(adjudicate_season(position, orders, _ahead(doc, game_map), rules))
