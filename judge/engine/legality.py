"""Legality with reasons: match an order against a position and normalise it.

Each ``check_*`` function either returns the order in normal form (unit type filled in,
the unit's real location with its coast, a fleet's destination coast resolved) or raises
an :class:`~judge.engine.errors.IllegalOrderError` with a DPP/DAIDE code and an English
message that names the order and the reason.
"""

from __future__ import annotations

from collections.abc import Mapping

from judge.engine.board import Map
from judge.engine.errors import AmbiguousOrderError, IllegalOrderError, RetreatNotValidError
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
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.engine.units import ARMY, FLEET, Unit, UnitType


def describe(order: Order, game_map: Map) -> str:
    """The order in the judge's short form, for error messages."""
    from judge.engine.notation import format_order

    try:
        return format_order(order, game_map, short=True)
    except Exception:  # a message must never fail to be written
        return repr(order)


def _fail(order: Order, game_map: Map, code: str, why: str) -> IllegalOrderError:
    return IllegalOrderError(f"{describe(order, game_map)}: {why}", code=code)


def _name(game_map: Map, location: str) -> str:
    return game_map.location_name(location)


def find_unit(
    position: Position, order: Order, power: str | None, *, proxied: Mapping[str, str] | None = None
) -> Unit:
    """The unit an order is for, checking that it exists, its type and its owner.

    ``proxied`` maps a province to the power its unit's orders were handed to.
    """
    game_map = position.map
    unit = position.units.get(order.province)
    if unit is None:
        raise _fail(
            order, game_map, "NSU", f"there is no unit in {_name(game_map, order.province)}"
        )
    if order.unit_type is not None and order.unit_type is not unit.type:
        _check_type(order, order.unit_type, unit, game_map)
    if power is not None and unit.power != power:
        if proxied is not None and proxied.get(unit.province) == power:
            return unit
        raise _fail(
            order,
            game_map,
            "NYU",
            f"the {unit.type.word.lower()} in {_name(game_map, unit.location)} is "
            f"{game_map.power_adjective.get(unit.power, unit.power)}, not yours",
        )
    return unit


def _check_type(order: Order, written: UnitType | None, unit: Unit, game_map: Map) -> None:
    if written is not None and written is not unit.type:
        code = "NSF" if written is FLEET else "NSA"
        raise _fail(
            order,
            game_map,
            code,
            f"the unit in {_name(game_map, unit.province)} is an {unit.type.word.lower()}"
            if unit.type is ARMY
            else f"the unit in {_name(game_map, unit.province)} is a fleet",
        )


def fleet_destination(game_map: Map, order: Order, origin: str, destination: str) -> str:
    """Resolve a fleet's destination location from ``origin``, choosing or checking a coast."""
    reachable = game_map.fleet_adj.get(origin, frozenset())
    province = game_map.province_of(destination)
    coasts = game_map.coasts.get(province)
    if coasts:
        if destination != province:
            if destination in reachable:
                return destination
            raise _fail(
                order,
                game_map,
                "FAR",
                f"a fleet in {_name(game_map, origin)} cannot reach {_name(game_map, destination)}",
            )
        options = [c for c in coasts if c in reachable]
        if len(options) == 1:
            return options[0]
        if not options:
            raise _fail(
                order,
                game_map,
                "FAR",
                f"a fleet in {_name(game_map, origin)} cannot reach {_name(game_map, province)}",
            )
        raise AmbiguousOrderError(
            f"{describe(order, game_map)}: a fleet in {_name(game_map, origin)} can reach "
            + " and ".join(_name(game_map, c) for c in options)
            + "; say which coast",
            code="CST",
        )
    if province in reachable:
        return province
    reason = (
        f"{_name(game_map, province)} is inland, fleets cannot go there"
        if game_map.is_land(province) and not game_map.is_coastal(province)
        else f"{_name(game_map, province)} is not next to {_name(game_map, origin)}"
    )
    raise _fail(order, game_map, "FAR", reason)


def _army_reach(game_map: Map, order: Order, origin: str, destination: str) -> str:
    province = game_map.province_of(destination)
    if province not in game_map.army_adj:
        why = (
            f"{_name(game_map, province)} is impassable"
            if province not in game_map.kind or not game_map.is_sea(province)
            else f"{_name(game_map, province)} is a sea, armies cannot go there"
        )
        raise _fail(order, game_map, "FAR", why)
    return province


def convoy_possible(game_map: Map, source: str, destination: str, fleet: str | None = None) -> bool:
    """Whether some chain of seas could carry an army from ``source`` to ``destination``.

    With ``fleet``, that sea must be needed on some such chain: it lies on a route with no
    short cut (DATC 6.G.7 and 6.G.19: a fleet that no route needs cannot convoy, so its
    order shows no intent).
    """
    if not (game_map.is_coastal(source) and game_map.is_coastal(destination)):
        return False
    if source == destination:
        return False
    useful = _useful_seas(game_map, source, destination)
    if fleet is None:
        return bool(useful)
    return fleet in useful


_USEFUL: dict[tuple[int, str, str], frozenset[str]] = {}


def _useful_seas(game_map: Map, source: str, destination: str) -> frozenset[str]:
    """The seas that lie on some induced (short-cut free) route from source to destination."""
    key = (id(game_map), source, destination)
    found = _USEFUL.get(key)
    if found is not None:
        return found
    start = coast_seas(game_map, source)
    end = coast_seas(game_map, destination)
    adj = game_map.fleet_adj_prov
    useful: set[str] = set()

    def extend(path: list[str]) -> None:
        last = path[-1]
        if last in end:
            useful.update(path)
            return
        if len(path) >= 12:
            return
        for nxt in adj[last]:
            if not game_map.is_sea(nxt) or nxt in path or nxt in start:
                continue
            # Induced: the new sea touches no earlier sea but the last one.
            if any(nxt in adj[earlier] for earlier in path[:-1]):
                continue
            path.append(nxt)
            extend(path)
            path.pop()

    for first in start:
        extend([first])
    found = frozenset(useful)
    _USEFUL[key] = found
    return found


def fleet_route_exists(position: Position, source: str, destination: str) -> bool:
    """Whether fleets now at sea form a chain from ``source`` to ``destination``."""
    game_map = position.map
    if not (game_map.is_coastal(source) and game_map.is_coastal(destination)):
        return False
    units = position.units
    end = coast_seas(game_map, destination)
    frontier = [
        s
        for s in coast_seas(game_map, source)
        if (u := units.get(s)) is not None and u.type is FLEET
    ]
    seen = set(frontier)
    adj = game_map.fleet_adj_prov
    while frontier:
        sea = frontier.pop()
        if sea in end:
            return True
        for nxt in adj[sea]:
            if nxt not in seen and game_map.is_sea(nxt):
                u = units.get(nxt)
                if u is not None and u.type is FLEET:
                    seen.add(nxt)
                    frontier.append(nxt)
    return False


_COAST_SEAS: dict[tuple[int, str], frozenset[str]] = {}


def coast_seas(game_map: Map, province: str) -> frozenset[str]:
    """The seas next to a coastal province (any of its coasts), cached per map."""
    key = (id(game_map), province)
    seas = _COAST_SEAS.get(key)
    if seas is None:
        locations = game_map.coasts.get(province) or (province,)
        seas = frozenset(
            p
            for loc in locations
            for p in game_map.fleet_adj_prov.get(loc, frozenset())
            if game_map.is_sea(p)
        )
        _COAST_SEAS[key] = seas
    return seas


def can_reach(game_map: Map, unit: Unit, province: str) -> bool:
    """Whether ``unit`` could move to ``province`` without a convoy (any coast)."""
    if unit.type is ARMY:
        return province in game_map.army_adj.get(unit.location, frozenset())
    return province in game_map.fleet_adj_prov.get(unit.location, frozenset())


def check_movement(
    position: Position,
    power: str | None,
    order: Order,
    rules: Rules,
    *,
    proxied: Mapping[str, str] | None = None,
) -> Order:
    """Check a movement-phase order of ``power`` and return it in normal form.

    With proxies allowed, a proxy order for a unit of another power is returned too (seed
    002 lets any power give one); only the owner's hands the unit over, which the
    adjudicator decides.
    """
    game_map = position.map
    if not isinstance(order, (Hold, Move, SupportHold, SupportMove, Convoy, Proxy)):
        raise _fail(
            order,
            game_map,
            "NRS",
            f"the phase is {position.phase.describe()}; "
            "only hold, move, support and convoy orders are allowed now",
        )
    if type(order) is Proxy and rules.proxies:
        unit = find_unit(position, order, None)  # any power may give one (see above)
    else:
        unit = find_unit(position, order, power, proxied=proxied)
    t, loc = unit.type, unit.location
    # An order already in normal form is returned as it is (orders are immutable values;
    # building an equal one costs as much as the rest of the check).
    same_unit = order.unit_type is t and order.location == loc
    if isinstance(order, Hold):
        return order if same_unit and type(order) is Hold else Hold(t, loc)
    if isinstance(order, Move):
        return _check_move(position, order, unit, rules)
    if isinstance(order, SupportHold):
        target = _target(position, order, order.target, order.target_type)
        if target.province == unit.province:
            raise _fail(order, game_map, "FAR", "a unit cannot support itself")
        if not can_reach(game_map, unit, target.province):
            raise _fail(
                order,
                game_map,
                "FAR",
                f"the {unit.type.word.lower()} in {_name(game_map, loc)} could not move to "
                f"{_name(game_map, target.province)}, so it cannot support a unit there",
            )
        if same_unit and order.target_type is target.type and order.target == target.province:
            return order
        return SupportHold(t, loc, target.type, target.province)
    if isinstance(order, SupportMove):
        target = _target(position, order, order.target, order.target_type)
        dest = game_map.province_of(order.destination)
        if target.province == unit.province:
            raise _fail(order, game_map, "FAR", "a unit cannot support its own move")
        if dest == unit.province:
            raise _fail(
                order, game_map, "FAR", "a unit cannot support a move into its own province"
            )
        if not can_reach(game_map, unit, dest):
            raise _fail(
                order,
                game_map,
                "FAR",
                f"the {unit.type.word.lower()} in {_name(game_map, loc)} could not move to "
                f"{_name(game_map, dest)}, so it cannot support a move there",
            )
        if not _could_move(game_map, target, dest):
            raise _fail(
                order,
                game_map,
                "FAR",
                f"the {target.type.word.lower()} in {_name(game_map, target.location)} "
                f"cannot move to {_name(game_map, dest)}",
            )
        # A coast named in the support must match the move's (DATC 6.B.9); without one
        # the support is for either coast (province to province, 2023 rules).
        keep = order.destination if target.type is FLEET and "/" in order.destination else dest
        if keep != dest and keep not in game_map.fleet_adj.get(target.location, frozenset()):
            # The province is in reach but not the coast named: no such move can be made.
            raise _fail(
                order,
                game_map,
                "FAR",
                f"the fleet in {_name(game_map, target.location)} cannot move to "
                f"{_name(game_map, keep)}",
            )
        if (
            same_unit
            and order.target_type is target.type
            and order.target == target.province
            and order.destination == keep
        ):
            return order
        return SupportMove(t, loc, target.type, target.province, keep)
    if isinstance(order, Convoy):
        if t is not FLEET:
            raise _fail(order, game_map, "NSF", "only fleets can convoy")
        if not game_map.is_sea(unit.province):
            raise _fail(
                order,
                game_map,
                "NAS",
                f"the fleet in {_name(game_map, loc)} is not at sea, so it cannot convoy",
            )
        target = _target(position, order, order.target, order.target_type)
        if target.type is not ARMY:
            raise _fail(order, game_map, "NSA", "only armies can be convoyed")
        dest = game_map.province_of(order.destination)
        if not convoy_possible(game_map, target.province, dest, unit.province):
            raise _fail(
                order,
                game_map,
                "FAR",
                f"no convoy from {_name(game_map, target.province)} to "
                f"{_name(game_map, dest)} can pass through {_name(game_map, unit.province)}",
            )
        if (
            same_unit
            and order.target_type is ARMY
            and order.target == target.province
            and order.destination == dest
        ):
            return order
        return Convoy(t, loc, ARMY, target.province, dest)
    assert isinstance(order, Proxy)
    if not rules.proxies:
        raise _fail(order, game_map, "PROXY", "this game does not allow proxy orders")
    if order.power not in game_map.powers:
        raise _fail(order, game_map, "NSP", f"{order.power} is not a power of this game")
    if order.power == unit.power:
        raise _fail(order, game_map, "PROXY", "a unit cannot be handed to its own owner")
    return Proxy(t, loc, order.power)


def _target(position: Position, order: Order, target: str, target_type: UnitType | None) -> Unit:
    game_map = position.map
    province = game_map.province_of(target)
    unit = position.units.get(province)
    if unit is None:
        raise _fail(order, game_map, "NSU", f"there is no unit in {_name(game_map, province)}")
    if target_type is not None and target_type is not unit.type:
        _check_type(order, target_type, unit, game_map)
    return unit


def _could_move(game_map: Map, unit: Unit, province: str) -> bool:
    if can_reach(game_map, unit, province):
        return True
    return unit.type is ARMY and convoy_possible(game_map, unit.province, province)


def _same_move(order: Move, unit: Unit, dest: str, via_convoy: bool) -> bool:
    """Whether ``order`` already is ``Move(unit.type, unit.location, dest, via_convoy)``."""
    return (
        order.unit_type is unit.type
        and order.location == unit.location
        and order.destination == dest
        and order.via_convoy is via_convoy
        and not order.route
    )


def _check_move(position: Position, order: Move, unit: Unit, rules: Rules) -> Move:
    game_map = position.map
    loc = unit.location
    dest_province = game_map.province_of(order.destination)
    if dest_province not in game_map.kind:
        raise _fail(order, game_map, "NSP", f"{order.destination} is not a province")
    if dest_province == unit.province:
        raise _fail(order, game_map, "FAR", "a unit cannot move to where it already is")
    if unit.type is FLEET:
        if order.via_convoy or order.route:
            raise _fail(order, game_map, "NSA", "only armies can be convoyed")
        dest = fleet_destination(game_map, order, loc, order.destination)
        return order if _same_move(order, unit, dest, False) else Move(FLEET, loc, dest)
    dest = _army_reach(game_map, order, loc, order.destination)
    adjacent = dest in game_map.army_adj.get(loc, frozenset())
    if order.route:
        _check_route(position, order, unit.province, dest)
        return Move(ARMY, loc, dest, True, order.route)
    if order.via_convoy or not adjacent:
        carriable = convoy_possible(game_map, unit.province, dest)
        if (carriable and fleet_route_exists(position, unit.province, dest)) or (
            # 2000 rules: with no convoy to carry it, the army takes its land route (the
            # adjudicator decides; the order keeps the "via convoy" it was written with).
            adjacent and rules.land_route_fallback
        ):
            return order if _same_move(order, unit, dest, True) else Move(ARMY, loc, dest, True)
        # The judges reject a convoyed move with no fleets to carry it; the unit then
        # holds and can be supported in place (DATC 6.D.32).
        if adjacent:
            why = (
                "there are no fleets at sea to carry it"
                if carriable
                else "no convoy can carry an army"
            )
            message = (
                f"the army was ordered via convoy, but {why} from {_name(game_map, loc)} "
                f"to {_name(game_map, dest)}"
            )
        else:
            why = (
                "there are no fleets at sea to convoy the army there"
                if carriable
                else "no convoy could carry an army there"
            )
            message = f"{_name(game_map, dest)} is not next to {_name(game_map, loc)} and {why}"
        raise _fail(order, game_map, "FAR", message)
    return order if _same_move(order, unit, dest, False) else Move(ARMY, loc, dest, False)


def _check_route(position: Position, order: Move, source: str, dest: str) -> None:
    game_map = position.map
    previous = source
    for sea in order.route:
        if sea not in game_map.kind or not game_map.is_sea(sea):
            raise _fail(order, game_map, "NAS", f"{_name(game_map, sea)} is not a sea")
        fleet = position.units.get(sea)
        if fleet is None or fleet.type is not FLEET:
            raise _fail(order, game_map, "NSF", f"there is no fleet in {_name(game_map, sea)}")
        if sea not in _reach_from(game_map, previous):
            raise _fail(
                order,
                game_map,
                "FAR",
                f"{_name(game_map, sea)} is not next to {_name(game_map, previous)}",
            )
        previous = sea
    if dest not in _reach_from(game_map, previous) or not game_map.is_coastal(dest):
        raise _fail(
            order,
            game_map,
            "FAR",
            f"{_name(game_map, dest)} is not next to {_name(game_map, previous)}",
        )


def _reach_from(game_map: Map, province: str) -> frozenset[str]:
    locations = game_map.coasts.get(province) or (province,)
    out: set[str] = set()
    for loc in locations:
        out |= game_map.fleet_adj_prov.get(loc, frozenset())
    return frozenset(out)


# -- retreats -------------------------------------------------------------------------


def retreat_locations(game_map: Map, unit: Unit, option: str) -> tuple[str, ...]:
    """The locations one written retreat option of ``unit`` stands for.

    An army retreats to a province (a coast written is dropped); a fleet to a location, so
    an option naming a split-coast province means each coast the fleet can reach from
    where it stands.  A fleet's option it reaches on no coast is given back unchanged.

    >>> from judge.engine import FLEET, Unit, standard_map
    >>> retreat_locations(standard_map(), Unit("France", FLEET, "mao"), "spa")
    ('spa/nc', 'spa/sc')
    """
    province = game_map.province_of(option)
    if unit.type is ARMY:
        return (province,)
    coasts = game_map.coasts.get(province)
    if option != province or not coasts:
        return (option,)
    reachable = game_map.fleet_adj.get(unit.location, frozenset())
    return tuple(c for c in coasts if c in reachable) or (option,)


def check_retreat(position: Position, power: str | None, order: Order) -> Order:
    """Check a retreat-phase order and return it in normal form."""
    game_map = position.map
    if not isinstance(order, (Retreat, Disband, Move, Remove)):
        raise _fail(
            order,
            game_map,
            "NRS",
            f"the phase is {position.phase.describe()}; only retreats and disbands are allowed",
        )
    dislodged = position.dislodged.get(order.province)
    if dislodged is None:
        if order.province in position.units:
            raise _fail(
                order,
                game_map,
                "NRN",
                f"the unit in {_name(game_map, order.province)} was not dislodged "
                "and needs no retreat",
            )
        raise _fail(
            order,
            game_map,
            "NSU",
            f"there is no dislodged unit in {_name(game_map, order.province)}",
        )
    unit = dislodged.unit
    _check_type(order, order.unit_type, unit, game_map)
    if power is not None and unit.power != power:
        raise _fail(
            order,
            game_map,
            "NYU",
            f"the {unit.type.word.lower()} dislodged from {_name(game_map, unit.province)} is "
            f"{game_map.power_adjective.get(unit.power, unit.power)}, not yours",
        )
    if isinstance(order, (Disband, Remove)):
        return Disband(unit.type, unit.location)
    assert isinstance(order, (Retreat, Move))
    if isinstance(order, Move) and (order.via_convoy or order.route):
        raise _fail(order, game_map, "NVR", "retreats cannot be convoyed")
    dest = order.destination
    choices = dislodged.retreats
    province = game_map.province_of(dest)
    matches = [c for c in choices if c == dest or game_map.province_of(c) == province]
    if unit.type is FLEET and dest != province:
        matches = [c for c in matches if c == dest]
    if len(matches) == 1:
        return Retreat(unit.type, unit.location, matches[0])
    if len(matches) > 1:
        raise AmbiguousOrderError(
            f"{describe(order, game_map)}: the fleet can retreat to "
            + " or ".join(_name(game_map, c) for c in matches)
            + "; say which coast",
            code="CST",
        )
    where = (
        "it can only disband"
        if not choices
        else "it can retreat to " + ", ".join(_name(game_map, c) for c in choices) + " or disband"
    )
    raise RetreatNotValidError(
        f"{describe(order, game_map)}: {_name(game_map, dest)} is not a valid retreat; {where}",
        choices=choices,
    )


# -- adjustments ----------------------------------------------------------------------


def check_adjustment(position: Position, power: str, order: Order, rules: Rules) -> Order:
    """Check one adjustment order of ``power`` (counting is done by the caller)."""
    game_map = position.map
    owed = position.adjustment(power)
    if isinstance(order, Build) and order.implied and owed < 0:
        # "A Par" with no keyword: the judge syntax allows it for a removal too.
        order = Remove(order.unit_type, order.location)
    if isinstance(order, (Disband, Hold)):
        order = Remove(order.unit_type, order.location)
    if isinstance(order, Waive):
        if owed <= 0:
            raise _fail(order, game_map, "NMB", "you have no builds to waive")
        return Waive()
    if isinstance(order, Remove):
        if owed >= 0:
            raise _fail(order, game_map, "NMR", "you have no units to remove this winter")
        unit = find_unit(position, order, power)
        return Remove(unit.type, unit.location)
    if not isinstance(order, Build):
        raise _fail(
            order,
            game_map,
            "NRS",
            f"the phase is {position.phase.describe()}; only builds, removals and waives "
            "are allowed",
        )
    if owed <= 0:
        raise _fail(order, game_map, "NMB", "you have no builds this winter")
    province = game_map.province_of(order.location)
    if province not in game_map.supply_centres:
        raise _fail(order, game_map, "NSC", f"{_name(game_map, province)} is not a supply centre")
    if position.centres.get(province) != power:
        raise _fail(order, game_map, "YSC", f"you do not own {_name(game_map, province)}")
    if not rules.build_anywhere and province not in game_map.home_centres.get(power, ()):
        raise _fail(
            order, game_map, "HSC", f"{_name(game_map, province)} is not a home centre of yours"
        )
    if province in position.units:
        raise _fail(order, game_map, "ESC", f"{_name(game_map, province)} is occupied")
    if order.unit_type is None and not game_map.is_coastal(province):
        # "Build Par": only an army can stand in an inland centre, so nothing is guessed.
        return Build(ARMY, province)
    if order.unit_type is None:
        raise AmbiguousOrderError(
            f"{describe(order, game_map)}: say whether to build an army or a fleet", code="CST"
        )
    if order.unit_type is ARMY:
        return Build(ARMY, province)
    coasts = game_map.coasts.get(province)
    if coasts:
        if order.location in coasts:
            return Build(FLEET, order.location)
        raise AmbiguousOrderError(
            f"{describe(order, game_map)}: a fleet in {_name(game_map, province)} needs a coast: "
            + " or ".join(_name(game_map, c) for c in coasts),
            code="CST",
        )
    if not game_map.is_coastal(province):
        raise _fail(order, game_map, "CST", f"{_name(game_map, province)} has no coast for a fleet")
    return Build(FLEET, province)
