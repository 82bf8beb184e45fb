"""What a unit or a power may order: every legal order, in normal form.

:func:`possible_orders` lists the movement-phase orders of one unit,
:func:`movement_options` those of every unit of a position at once (sharing the work),
:func:`retreat_options` the choices of a dislodged unit and :func:`adjustment_options` the
builds, removals and waives of a power in winter.  Every order returned is in the normal
form that :mod:`judge.engine.legality` gives (the matching ``check_*`` function returns it
unchanged), so the lists can be compared with checked orders and fed to the adjudicator.

Two kinds of order that the legality check would also accept are left out on purpose,
since they only ever mean the same as an order that is listed or make no sense:

* moves with an explicit convoy route (``A Lon-NTH-Nwy``): the plain ``via convoy``
  move is listed instead;
* supports and convoys of moves that the supported or convoyed unit could not be ordered
  to make now (an army "convoyed" through seas where no fleets stand), and supports naming
  a coast (``S F Por-Spa/nc``): the province form, which backs a move to either coast, is
  listed.

>>> from judge.engine import Position, standard_map
>>> from judge.engine.notation import format_order
>>> start = Position.initial(standard_map())
>>> [format_order(o, short=True) for o in possible_orders(start, start.units["par"])][:5]
['A par H', 'A par-bre', 'A par-bur', 'A par-gas', 'A par-pic']
"""

from __future__ import annotations

from collections.abc import Mapping

from judge.engine.board import Map
from judge.engine.errors import OrderError
from judge.engine.legality import check_adjustment, check_movement, check_retreat, coast_seas
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
from judge.engine.units import ARMY, FLEET, Unit

__all__ = [
    "adjustment_options",
    "movement_options",
    "possible_orders",
    "retreat_options",
]

_SEA_COASTS: dict[tuple[int, str], frozenset[str]] = {}


def _sea_coasts(game_map: Map, sea: str) -> frozenset[str]:
    """The coastal provinces next to a sea."""
    key = (id(game_map), sea)
    found = _SEA_COASTS.get(key)
    if found is None:
        found = frozenset(
            p for p in game_map.fleet_adj_prov.get(sea, frozenset()) if game_map.is_coastal(p)
        )
        _SEA_COASTS[key] = found
    return found


class _Context:
    """What the options of all units of one position share: the fleet chains at sea."""

    __slots__ = ("_chain_of", "_reach_by_convoy", "game_map", "position", "rules")

    def __init__(self, position: Position, rules: Rules) -> None:
        self.position = position
        self.rules = rules
        self.game_map = position.map
        self._chain_of: dict[str, frozenset[str]] | None = None
        self._reach_by_convoy: dict[str, tuple[str, ...]] = {}

    def chains(self) -> dict[str, frozenset[str]]:
        """Each sea holding a fleet -> the connected group of fleet-held seas it is in."""
        if self._chain_of is None:
            game_map = self.game_map
            units = self.position.units
            held = {p for p, u in units.items() if u.type is FLEET and game_map.is_sea(p)}
            chain_of: dict[str, frozenset[str]] = {}
            for sea in sorted(held):
                if sea in chain_of:
                    continue
                group = {sea}
                stack = [sea]
                while stack:
                    here = stack.pop()
                    for nxt in game_map.fleet_adj_prov[here]:
                        if nxt in held and nxt not in group:
                            group.add(nxt)
                            stack.append(nxt)
                frozen = frozenset(group)
                for member in group:
                    chain_of[member] = frozen
            self._chain_of = chain_of
        return self._chain_of

    def convoy_destinations(self, province: str) -> tuple[str, ...]:
        """Coastal provinces an army in ``province`` could be convoyed to by fleets now at sea."""
        found = self._reach_by_convoy.get(province)
        if found is not None:
            return found
        game_map = self.game_map
        out: set[str] = set()
        if game_map.is_coastal(province):
            chains = self.chains()
            seen: set[frozenset[str]] = set()
            for sea in coast_seas(game_map, province):
                group = chains.get(sea)
                if group is None or group in seen:
                    continue
                seen.add(group)
                for member in group:
                    out |= _sea_coasts(game_map, member)
            out.discard(province)
        found = tuple(sorted(out))
        self._reach_by_convoy[province] = found
        return found

    def reach(self, unit: Unit) -> frozenset[str]:
        """Provinces ``unit`` could move to without a convoy (what it can support into)."""
        if unit.type is ARMY:
            return self.game_map.army_adj.get(unit.location, frozenset())
        return self.game_map.fleet_adj_prov.get(unit.location, frozenset())

    def movers(self) -> dict[str, list[Unit]]:
        """Province -> the units that could be ordered to move there (land, sea or convoy)."""
        out: dict[str, list[Unit]] = {}
        for prov in sorted(self.position.units):
            unit = self.position.units[prov]
            targets = set(self.reach(unit))
            if unit.type is ARMY:
                targets.update(self.convoy_destinations(prov))
            for dest in targets:
                out.setdefault(dest, []).append(unit)
        return out

    # -- candidates -------------------------------------------------------------------

    def candidates(self, unit: Unit, movers: Mapping[str, list[Unit]]) -> list[Order]:
        """Orders for ``unit`` that are legal or nearly so, to be filtered by the check."""
        game_map = self.game_map
        t, loc, prov = unit.type, unit.location, unit.province
        out: list[Order] = [Hold(t, loc)]
        if t is FLEET:
            out.extend(Move(t, loc, d) for d in sorted(game_map.fleet_adj.get(loc, ())))
        else:
            out.extend(Move(t, loc, d) for d in sorted(game_map.army_adj.get(loc, ())))
            out.extend(Move(t, loc, d, True) for d in self.convoy_destinations(prov))
        reach = sorted(self.reach(unit))
        units = self.position.units
        for p in reach:
            target = units.get(p)
            if target is not None:
                out.append(SupportHold(t, loc, target.type, p))
        for p in reach:
            for target in movers.get(p, ()):
                if target.province != prov:
                    out.append(SupportMove(t, loc, target.type, target.province, p))
        if t is FLEET and game_map.is_sea(prov):
            group = self.chains().get(prov, frozenset())
            armies = sorted(
                {
                    a
                    for sea in group
                    for a in _sea_coasts(game_map, sea)
                    if (u := units.get(a)) is not None and u.type is ARMY
                }
            )
            for army in armies:
                for dest in self.convoy_destinations(army):
                    out.append(Convoy(t, loc, ARMY, army, dest))
        if self.rules.proxies:
            out.extend(Proxy(t, loc, power) for power in game_map.powers if power != unit.power)
        return out

    def legal(self, unit: Unit, movers: Mapping[str, list[Unit]]) -> list[Order]:
        """The candidates of ``unit`` that pass the legality check, in normal form."""
        out: list[Order] = []
        seen: set[Order] = set()
        for order in self.candidates(unit, movers):
            try:
                checked = check_movement(self.position, unit.power, order, self.rules)
            except OrderError:
                continue
            if checked not in seen:
                seen.add(checked)
                out.append(checked)
        return out


def possible_orders(position: Position, unit: Unit, rules: Rules | None = None) -> list[Order]:
    """Every legal movement-phase order of ``unit`` (see the module notes for what is left out).

    The list starts with the hold, then the moves (by land or sea, each reachable coast,
    then by convoy), supports in place, supports of moves, convoys and, when the rules
    allow them, proxies; each group is sorted by province.

    >>> from judge.engine import Position, standard_map
    >>> from judge.engine.notation import format_order
    >>> start = Position.initial(standard_map())
    >>> [format_order(o, short=True) for o in possible_orders(start, start.units["stp"])]
    ['F stp/sc H', 'F stp/sc-bot', 'F stp/sc-fin', 'F stp/sc-lvn', 'F stp/sc S A mos-lvn',
     'F stp/sc S A war-lvn']
    """
    context = _Context(position, rules or Rules())
    return context.legal(unit, context.movers())


def movement_options(position: Position, rules: Rules | None = None) -> dict[str, list[Order]]:
    """:func:`possible_orders` of every unit of ``position``, keyed by province (sorted)."""
    context = _Context(position, rules or Rules())
    movers = context.movers()
    return {prov: context.legal(position.units[prov], movers) for prov in sorted(position.units)}


def retreat_options(position: Position, province: str) -> list[Order]:
    """The retreats (sorted) and the disband open to the unit dislodged from ``province``.

    Raises ``KeyError`` when no unit was dislodged there.
    """
    entry = position.dislodged[province]
    unit = entry.unit
    out: list[Order] = [Retreat(unit.type, unit.location, r) for r in entry.retreats]
    out.append(Disband(unit.type, unit.location))
    return [check_retreat(position, unit.power, o) for o in out]


def adjustment_options(position: Position, power: str, rules: Rules | None = None) -> list[Order]:
    """The adjustment orders open to ``power``: builds and a waive, or removals.

    Builds are listed by centre (an army, then a fleet on each coast the centre has),
    then one :class:`~judge.engine.orders.Waive`; removals by unit location.  Each is one
    order; how many may be given is :meth:`Position.adjustment`.  Empty when the power
    owes nothing or has nowhere to build.
    """
    rules = rules or Rules()
    game_map = position.map
    owed = position.adjustment(power)
    if owed < 0:
        return [Remove(u.type, u.location) for u in position.units_of(power)]
    if owed == 0:
        return []
    places = (
        position.centres_of(power)
        if rules.build_anywhere
        else sorted(
            c for c in game_map.home_centres.get(power, ()) if position.centres.get(c) == power
        )
    )
    out: list[Order] = []
    for centre in places:
        if centre in position.units:
            continue
        candidates: list[Order] = [Build(ARMY, centre)]
        coasts = game_map.coasts.get(centre)
        if coasts:
            candidates.extend(Build(FLEET, c) for c in coasts)
        elif game_map.is_coastal(centre):
            candidates.append(Build(FLEET, centre))
        for order in candidates:
            try:
                out.append(check_adjustment(position, power, order, rules))
            except OrderError:
                continue
    if out:
        out.append(Waive())
    return out
