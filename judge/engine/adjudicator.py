"""Adjudicate a phase: check the orders, resolve them, build the next position."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from judge.engine.board import Map
from judge.engine.errors import IllegalOrderError, OrderError
from judge.engine.legality import check_adjustment, check_movement, check_retreat
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
from judge.engine.resolver import Resolver
from judge.engine.results import Note, OrderResult, Reason, Rejection
from judge.engine.rules import CivilDisorder, Edition, Rules
from judge.engine.units import ARMY, FLEET, Unit

OrderInput = Order | str
OrdersInput = Mapping[str, Iterable[OrderInput]] | Iterable[tuple[str | None, OrderInput]]


@dataclass(frozen=True)
class Adjudication:
    """What one phase produced.

    ``position`` is the position at the start of the next phase that has something to
    do (empty retreat and adjustment phases are skipped; ``skipped`` lists them).
    ``results`` has one entry per order that took effect, including the orders the judge
    supplied (``default=True``); ``rejected`` has every order refused before adjudication.
    ``destroyed`` lists units dislodged with nowhere to go (movement) or disbanded by a
    failed retreat; ``winner`` is set when a power reached the victory centre count.
    """

    before: Position
    position: Position
    results: tuple[OrderResult, ...]
    rejected: tuple[Rejection, ...]
    destroyed: tuple[Unit, ...] = ()
    skipped: tuple[Phase, ...] = ()
    winner: str | None = None


def adjudicate(
    position: Position, orders: OrdersInput = (), rules: Rules | None = None
) -> Adjudication:
    """Adjudicate ``position``'s phase with ``orders`` and return the outcome.

    ``orders`` is either a mapping power -> orders or an iterable of (power, order)
    pairs; an order is an :class:`~judge.engine.orders.Order` or text in the judge
    syntax.  A power of ``None`` means "whoever owns the unit" (trusted input, e.g. a
    test file).  Orders are taken in the given sequence; a later order for a unit
    replaces an earlier one.

    >>> from judge.engine import standard_map, Position
    >>> start = Position.initial(standard_map())
    >>> out = adjudicate(start, {"France": ["A Par-Bur", "A Mar S A Par-Bur"]})
    >>> out.position.units["bur"]
    Unit(power='France', type=<UnitType.ARMY: 'A'>, location='bur')
    >>> str(out.position.phase)
    'F1901M'
    """
    rules = rules or Rules()
    pairs = _pairs(orders)
    kind = position.phase.kind
    if kind is PhaseKind.MOVEMENT:
        return _movement(position, pairs, rules)
    if kind is PhaseKind.RETREAT:
        return _retreats(position, pairs, rules)
    return _adjustments(position, pairs, rules)


def _pairs(orders: OrdersInput) -> list[tuple[str | None, OrderInput]]:
    if isinstance(orders, Mapping):
        return [(power, o) for power, items in orders.items() for o in items]
    return list(orders)


def _parse(
    position: Position, pairs: list[tuple[str | None, OrderInput]], rejected: list[Rejection]
) -> list[tuple[str | None, Order, str]]:
    """Turn text into orders; each item keeps the text it came from for messages.

    An order given as a value keeps ``""``: :func:`_written` prints it when a message
    needs it (printing every order up front costs more than the rest of its checking).
    """
    from judge.engine.notation import fast_orders_read, parse_fast, parse_orders

    out: list[tuple[str | None, Order, str]] = []
    game_map = position.map
    kind = position.phase.kind
    powers: dict[str, str | None] = {}
    already = fast_orders_read(game_map, kind)
    for power, item in pairs:
        if power is not None:
            canonical = powers.get(power, "")
            if canonical == "":
                canonical = powers[power] = game_map.find_power(power)
            if canonical is None:
                err = OrderError(f"{power!r} is not a power of this game", code="NSP")
                rejected.append(Rejection(power, str(item), err))
                continue
            power = canonical
        if isinstance(item, str):
            # The canonical short form (what the judge stores) and the common plain
            # spellings skip the general parser.
            fast = already.get(item) or parse_fast(item, game_map, kind)
            if fast is not None:
                out.append((power, fast, item.strip()))
                continue
        if isinstance(item, Order):
            out.append((power, item, ""))
            continue
        for parsed in parse_orders(item, game_map, kind):
            who = power if power is not None else parsed.power
            if parsed.order is None:
                assert parsed.error is not None
                rejected.append(Rejection(who, parsed.text, parsed.error))
            else:
                out.append((who, parsed.order, parsed.text))
    return out


def _written(game_map: Map, order: Order, text: str) -> str:
    """The text an order was given as, or its short form when it was given as a value."""
    if text:
        return text
    from judge.engine.notation import format_order

    return format_order(order, game_map, short=True)


# -- movement ---------------------------------------------------------------------------


def _movement(
    position: Position, pairs: list[tuple[str | None, OrderInput]], rules: Rules
) -> Adjudication:
    game_map = position.map
    units = position.units
    rejected: list[Rejection] = []
    parsed = _parse(position, pairs, rejected)

    handed, proxied = _proxy_orders(position, parsed, rules, rejected)

    chosen: dict[str, tuple[str | None, Order, str]] = {}
    written: dict[str, Order] = {}  # the order as given, for messages
    for power, order, text in parsed:
        if type(order) is Proxy:
            continue  # taken by _proxy_orders
        try:
            checked = check_movement(position, power, order, rules, proxied=proxied)
        except OrderError as err:
            rejected.append(Rejection(power, _written(game_map, order, text), err))
            continue
        prov = checked.province
        if prov in proxied and power is not None and power != proxied[prov]:
            # Once handed over, only the proxy holder's orders count for the unit.
            text = _written(game_map, order, text)
            rejected.append(
                Rejection(
                    power,
                    text,
                    IllegalOrderError(
                        f"{text}: this unit's orders were handed to {proxied[prov]}",
                        code="NYU",
                    ),
                )
            )
            continue
        if prov in chosen:
            old_power, _old, old_text = chosen[prov]
            old_text = _written(game_map, written[prov], old_text)
            text = _written(game_map, order, text)
            rejected.append(
                Rejection(
                    old_power,
                    old_text,
                    OrderError(f"{old_text}: replaced by the later order {text}", code="REPLACED"),
                )
            )
        chosen[prov] = (power, checked, text)
        written[prov] = order

    orders: dict[str, Order] = {p: c[1] for p, c in chosen.items()}
    if rules.implied_orders:
        _add_implied(position, orders, chosen, rules)

    defaulted: set[str] = set()
    for prov, unit in units.items():
        if prov not in orders:
            orders[prov] = Hold(unit.type, unit.location)
            defaulted.add(prov)

    convoyed, convoy_fleets = _convoy_plan(game_map, units, orders, rules)
    move_supports: dict[str, list[str]] = {}
    hold_supports: dict[str, list[str]] = {}
    void: set[str] = set()
    for prov, order in orders.items():
        kind = type(order)
        if kind is SupportMove:
            target = orders.get(order.target)  # type: ignore[attr-defined]
            wanted: str = order.destination  # type: ignore[attr-defined]
            if type(target) is Move and (
                target.destination == wanted
                or ("/" not in wanted and game_map.province_of(target.destination) == wanted)
            ):
                move_supports.setdefault(order.target, []).append(prov)  # type: ignore[attr-defined]
            else:
                void.add(prov)
        elif kind is SupportHold:
            target = orders.get(order.target)  # type: ignore[attr-defined]
            if target is not None and type(target) is not Move:
                hold_supports.setdefault(order.target, []).append(prov)  # type: ignore[attr-defined]
            else:
                void.add(prov)
        elif kind is Convoy and prov not in _used_fleets(convoy_fleets, order):
            void.add(prov)

    resolver = Resolver(
        game_map, units, orders, convoyed, convoy_fleets, move_supports, hold_supports
    )
    res = resolver.run()
    dest = resolver.dest

    # Who moved, who was dislodged, where stand-offs left provinces empty.
    new_units: dict[str, Unit] = {}
    moved: set[str] = set()
    for prov, d in dest.items():
        if res[prov]:
            moved.add(prov)
            order = orders[prov]
            unit = units[prov]
            new_units[d] = Unit(unit.power, unit.type, order.destination)  # type: ignore[attr-defined]
    dislodged_by: dict[str, str] = {}
    for prov, unit in units.items():
        if prov in moved:
            continue
        attackers = resolver.moves_to.get(prov)
        winner = next((a for a in attackers if res[a]), None) if attackers else None
        if winner is not None:
            dislodged_by[prov] = winner
        else:
            new_units[prov] = unit
    bounced: set[str] = set()
    for prov, d in dest.items():
        # A stand-off leaves a province vacant; a unit that lost a head-to-head battle
        # had no prevent strength and contests nothing (DATC 6.H.9).
        if (
            not res[prov]
            and d not in new_units
            and resolver.path(prov)
            and not (resolver.head_to_head(prov) and res[d])
        ):
            bounced.add(d)

    dislodged: dict[str, Dislodged] = {}
    destroyed: list[Unit] = []
    for prov, attacker in dislodged_by.items():
        unit = units[prov]
        came_by_convoy = attacker in convoyed
        options = (
            game_map.army_adj.get(unit.location, frozenset())
            if unit.type is ARMY
            else game_map.fleet_adj.get(unit.location, frozenset())
        )
        retreats = tuple(
            sorted(
                loc
                for loc in options
                if (p := game_map.province_of(loc)) not in new_units
                and p not in bounced
                and (came_by_convoy or p != attacker)
            )
        )
        entry = Dislodged(unit, None if came_by_convoy else attacker, retreats)
        if retreats:
            dislodged[prov] = entry
        else:
            destroyed.append(unit)

    results = _movement_results(
        resolver,
        orders,
        defaulted,
        void,
        dislodged_by,
        convoyed,
        res,
        proxied,
    )
    for (giver, prov), (proxy, _text) in handed.items():
        # Every proxy order is listed (seed 002); one not given by the owner did nothing.
        if units[prov].power == giver:
            results.append(OrderResult(giver, proxy, True))
        else:
            results.append(OrderResult(giver, proxy, False, (Reason(Note.NOT_OWNER),)))
    results.sort(key=lambda r: (r.power, r.order.location))
    after = Position(game_map, position.phase, new_units, position.centres, dislodged)
    nxt, skipped, winner = _advance(after, rules, had_retreats=bool(dislodged))
    return Adjudication(
        position, nxt, tuple(results), tuple(rejected), tuple(destroyed), skipped, winner
    )


def _proxy_orders(
    position: Position,
    parsed: list[tuple[str | None, Order, str]],
    rules: Rules,
    rejected: list[Rejection],
) -> tuple[dict[tuple[str, str], tuple[Proxy, str]], dict[str, str]]:
    """The proxy orders that stand, keyed by (giver, province), and the units they hand
    over (province -> the power that may order it).

    Checked before every other order, since whether a power may order another's unit
    depends on them; a refused one hands nothing over.  Any power may give a proxy
    order (seed 002), but only the owner's hands the unit over; a later proxy order of
    the same power for the same unit replaces its earlier one.
    """
    game_map = position.map
    units = position.units
    handed: dict[tuple[str, str], tuple[Proxy, str]] = {}
    for power, order, text in parsed:
        if type(order) is not Proxy:
            continue
        text = _written(game_map, order, text)
        try:
            checked = check_movement(position, power, order, rules)
        except OrderError as err:
            rejected.append(Rejection(power, text, err))
            continue
        assert type(checked) is Proxy
        prov = checked.province
        giver = power if power is not None else units[prov].power
        old = handed.pop((giver, prov), None)
        if old is not None:
            old_text = old[1]
            rejected.append(
                Rejection(
                    giver,
                    old_text,
                    OrderError(f"{old_text}: replaced by the later order {text}", code="REPLACED"),
                )
            )
        handed[(giver, prov)] = (checked, text)
    proxied = {
        prov: proxy.power
        for (giver, prov), (proxy, _text) in handed.items()
        if units[prov].power == giver
    }
    return handed, proxied


def _add_implied(
    position: Position,
    orders: dict[str, Order],
    chosen: dict[str, tuple[str | None, Order, str]],
    rules: Rules,
) -> None:
    """House rule 3.8: a support or convoy also orders the supported unit, if it has none."""
    given: dict[str | None, list[Order]] = {}
    for prov, order in orders.items():
        given.setdefault(chosen[prov][0], []).append(order)
    for power, its_orders in given.items():
        for prov, move in implied_moves(position, power, its_orders, rules, orders).items():
            if prov not in orders:  # not implied by another power's order already
                orders[prov] = move
                chosen[prov] = (power, move, "")


def implied_moves(
    position: Position,
    power: str | None,
    orders: Iterable[Order],
    rules: Rules,
    taken: Iterable[str] = (),
) -> dict[str, Order]:
    """House rule 3.8 (``rules.implied_orders``; nothing without it): the moves that the
    supports and convoys among ``power``'s ``orders`` imply, by province, checked as
    ``power``'s orders.

    Only a unit of the supporting unit's own owner is ordered so, and only one without an
    order of its own (in ``orders`` or ``taken``); an illegal implied move is dropped (the
    unit holds); the first order that implies a move for a unit decides it.  The
    adjudicator uses it, and the judge asks it what a power still owes.
    """
    if not rules.implied_orders or position.phase.kind is not PhaseKind.MOVEMENT:
        return {}
    orders = list(orders)
    skip = set(taken) | {order.province for order in orders}
    found: dict[str, Order] = {}
    for order in orders:
        if type(order) is not SupportMove and type(order) is not Convoy:
            continue
        giver = position.units.get(order.province)
        target = position.units.get(order.target)
        if giver is None or target is None or target.power != giver.power:
            continue
        if target.province in skip or target.province in found:
            continue
        move = Move(target.type, target.location, order.destination, type(order) is Convoy)
        try:
            found[target.province] = check_movement(position, power, move, rules)
        except OrderError:
            continue
    return found


def _used_fleets(convoy_fleets: dict[str, list[str]], order: Order) -> list[str]:
    return convoy_fleets.get(order.target, [])  # type: ignore[attr-defined]


def _convoy_plan(
    game_map: Map, units: Mapping[str, Unit], orders: Mapping[str, Order], rules: Rules
) -> tuple[set[str], dict[str, list[str]]]:
    """Which armies move by convoy, and the matching convoy fleets of each."""
    matching: dict[str, list[str]] = {}
    for prov, order in orders.items():
        if type(order) is Convoy:
            army_order = orders.get(order.target)
            if (
                type(army_order) is Move
                and army_order.unit_type is ARMY
                and army_order.destination == order.destination
            ):
                matching.setdefault(order.target, []).append(prov)
    convoyed: set[str] = set()
    plan: dict[str, list[str]] = {}
    for prov, order in orders.items():
        if type(order) is not Move or order.unit_type is not ARMY:
            continue
        fleets = matching.get(prov, [])
        if order.route:
            fleets = [f for f in fleets if f in order.route]
        adjacent = order.destination in game_map.army_adj.get(order.location, frozenset())
        # Next to its destination, an army goes by sea when ordered via convoy, or by
        # convoy intent: its own power ordered a fleet to convoy it.  2000 rules (DATC 2.4
        # 4.A.3, 6.G.8): only when the convoy orders given for it reach from its province
        # to its destination; otherwise it takes its land route.  A route that is whole as
        # ordered but broken by a dislodgement does not fall back (6.F.21, 6.G.11): the
        # check ignores the fight.
        by_sea = not adjacent or (
            (order.via_convoy or any(units[f].power == units[prov].power for f in fleets))
            and (not rules.land_route_fallback or _whole_route(game_map, prov, order, fleets))
        )
        if by_sea:
            convoyed.add(prov)
            plan[prov] = fleets
    return convoyed, plan


def _whole_route(game_map: Map, source: str, order: Move, fleets: list[str]) -> bool:
    """Whether ``fleets`` (the convoy orders given for the army) chain from ``source`` to
    the army's destination, every one of them taken as doing its job."""
    dest = order.destination
    adj = game_map.fleet_adj_prov
    frontier = [f for f in fleets if source in adj[f]]
    seen = set(frontier)
    while frontier:
        f = frontier.pop()
        if dest in adj[f]:
            return True
        for g in fleets:
            if g not in seen and g in adj[f]:
                seen.add(g)
                frontier.append(g)
    return False


def _movement_results(
    resolver: Resolver,
    orders: Mapping[str, Order],
    defaulted: set[str],
    void: set[str],
    dislodged_by: Mapping[str, str],
    convoyed: set[str],
    res: Mapping[str, bool],
    proxied: Mapping[str, str],
) -> list[OrderResult]:
    """One result per unit; a unit handed over by proxy is listed under the power it was
    handed to, whose order it carried out (or who gave none: "No order processed")."""
    units = resolver.units
    out: list[OrderResult] = []
    for prov, order in orders.items():
        unit = units[prov]
        reasons: list[Reason] = []
        kind = type(order)
        success = res[prov]
        if kind is Move:
            if not success:
                if prov in convoyed and not resolver.path(prov):
                    fleets = resolver.convoy_fleets.get(prov)
                    disrupted = [f for f in fleets or () if f in dislodged_by]
                    if disrupted and prov not in resolver.no_path:
                        reasons.append(Reason(Note.DISRUPTED, disrupted[0]))
                    else:
                        reasons.append(Reason(Note.NO_CONVOY))
                else:
                    reasons.append(Reason(Note.BOUNCE, resolver.bouncer(prov)))
        elif kind in (SupportMove, SupportHold, Convoy):
            if prov in void or (success and resolver.support_spent_on_own_unit(prov)):
                # Void: the order matched nothing, or the support could not count since
                # the move it backs would dislodge the supporter's own unit.
                success = False
                reasons.append(Reason(Note.VOID))
            elif not success and prov not in dislodged_by:
                reasons.append(Reason(Note.CUT, resolver.cutter(prov)))
        if prov in dislodged_by:
            success = False if kind is not Move else success
            reasons.append(Reason(Note.DISLODGED, dislodged_by[prov]))
        power = proxied.get(prov, unit.power)
        out.append(OrderResult(power, order, success, tuple(reasons), prov in defaulted))
    return out


# -- retreats ---------------------------------------------------------------------------


def _retreats(
    position: Position, pairs: list[tuple[str | None, OrderInput]], rules: Rules
) -> Adjudication:
    game_map = position.map
    rejected: list[Rejection] = []
    parsed = _parse(position, pairs, rejected)
    chosen: dict[str, tuple[str | None, Order, str]] = {}
    for power, order, text in parsed:
        text = _written(game_map, order, text)
        try:
            checked = check_retreat(position, power, order)
        except OrderError as err:
            rejected.append(Rejection(power, text, err))
            continue
        prov = checked.province
        if prov in chosen:
            old_power, _old, old_text = chosen[prov]
            rejected.append(
                Rejection(
                    old_power,
                    old_text,
                    OrderError(f"{old_text}: replaced by the later order {text}", code="REPLACED"),
                )
            )
            del chosen[prov]  # keep the listing order of the latest orders
        chosen[prov] = (power, checked, text)

    by_target: dict[str, list[str]] = {}
    for prov, (_power, order, _text) in chosen.items():
        if type(order) is Retreat:
            by_target.setdefault(game_map.province_of(order.destination), []).append(prov)
    winners: set[str] = set()
    for contenders in by_target.values():
        if len(contenders) == 1:
            winners.add(contenders[0])
        elif rules.retreat_priority:
            owners = {position.dislodged[c].unit.power for c in contenders}
            if len(owners) == 1:
                winners.add(contenders[0])  # the first one its owner listed

    new_units = dict(position.units)
    results: list[OrderResult] = []
    destroyed: list[Unit] = []
    for prov, entry in position.dislodged.items():
        unit = entry.unit
        picked = chosen.get(prov)
        if picked is None:
            results.append(
                OrderResult(unit.power, Disband(unit.type, unit.location), True, (), True)
            )
            destroyed.append(unit)
            continue
        order = picked[1]
        if type(order) is Retreat and prov in winners:
            new_units[game_map.province_of(order.destination)] = Unit(
                unit.power, unit.type, order.destination
            )
            results.append(OrderResult(unit.power, order, True))
        elif type(order) is Retreat:
            others = [c for c in by_target[game_map.province_of(order.destination)] if c != prov]
            results.append(
                OrderResult(
                    unit.power,
                    order,
                    False,
                    (Reason(Note.BOUNCE, others[0] if others else None), Reason(Note.DESTROYED)),
                )
            )
            destroyed.append(unit)
        else:
            results.append(OrderResult(unit.power, order, True))
            destroyed.append(unit)
    results.sort(key=lambda r: (r.power, r.order.location))
    after = Position(game_map, position.phase, new_units, position.centres, {})
    nxt, skipped, winner = _advance(after, rules, had_retreats=False)
    return Adjudication(
        position, nxt, tuple(results), tuple(rejected), tuple(destroyed), skipped, winner
    )


# -- adjustments ------------------------------------------------------------------------


def _adjustments(
    position: Position, pairs: list[tuple[str | None, OrderInput]], rules: Rules
) -> Adjudication:
    game_map = position.map
    rejected: list[Rejection] = []
    parsed = _parse(position, pairs, rejected)
    new_units = dict(position.units)
    results: list[OrderResult] = []
    used: dict[str, int] = {}
    touched: set[str] = set()
    owed_by = {power: position.adjustment(power) for power in game_map.powers}
    for power, order, text in parsed:
        text = _written(game_map, order, text)
        if power is None:
            power = _owner_for(position, order)
            if power is None:
                rejected.append(
                    Rejection(
                        None,
                        text,
                        IllegalOrderError(f"{text}: cannot tell whose order this is", code="NYU"),
                    )
                )
                continue
        try:
            checked = check_adjustment(position, power, order, rules)
        except OrderError as err:
            rejected.append(Rejection(power, text, err))
            continue
        allowed = abs(owed_by[power] if power in owed_by else position.adjustment(power))
        if used.get(power, 0) >= allowed:
            code = "NMR" if type(checked) is Remove else "NMB"
            what = "removals" if type(checked) is Remove else "builds"
            rejected.append(
                Rejection(
                    power,
                    text,
                    IllegalOrderError(
                        f"{text}: you have already used all {allowed} of your {what}", code=code
                    ),
                )
            )
            continue
        prov = checked.province
        if type(checked) is not Waive:
            if prov in touched:
                why = (
                    "that unit is already being removed"
                    if type(checked) is Remove
                    else f"a unit is already being built in {game_map.province_name[prov]}"
                )
                code = "NSU" if type(checked) is Remove else "ESC"
                rejected.append(
                    Rejection(power, text, IllegalOrderError(f"{text}: {why}", code=code))
                )
                continue
            touched.add(prov)
        used[power] = used.get(power, 0) + 1
        if type(checked) is Build:
            new_units[prov] = Unit(power, checked.unit_type or ARMY, checked.location)
        elif type(checked) is Remove:
            del new_units[prov]
        results.append(OrderResult(power, checked, True))

    for power in game_map.powers:
        owed = owed_by[power]
        if owed < 0 and used.get(power, 0) < -owed:
            missing = -owed - used.get(power, 0)
            for unit in civil_disorder_removals(position, power, missing, rules, exclude=touched):
                del new_units[unit.province]
                touched.add(unit.province)
                results.append(OrderResult(power, Remove(unit.type, unit.location), True, (), True))
        elif owed > 0 and used.get(power, 0) < owed:
            for _ in range(owed - used.get(power, 0)):
                results.append(OrderResult(power, Waive(), True, (), True))
    results.sort(key=lambda r: (r.power, r.order.location))
    after = Position(game_map, position.phase, new_units, position.centres, {})
    nxt, skipped, winner = _advance(after, rules, had_retreats=False)
    return Adjudication(position, nxt, tuple(results), tuple(rejected), (), skipped, winner)


def _owner_for(position: Position, order: Order) -> str | None:
    unit = position.units.get(order.province)
    if unit is not None and type(order) is not Build:
        return unit.power
    return position.centres.get(order.province)


def civil_disorder_removals(
    position: Position,
    power: str,
    count: int,
    rules: Rules,
    exclude: Iterable[str] = (),
) -> list[Unit]:
    """The ``count`` units of ``power`` removed by the civil disorder rule in force.

    Edition rule: farthest first from the nearest owned centre (2023) or home centre
    (2000); distance counted over land and sea alike, except that under the 2000 rules a
    fleet counts only the moves a fleet could make (over water); ties: fleets before
    armies, then alphabetical by province name.  House rule 3.5: units not in centres go first; then
    farthest from a home centre; ties: sea first, then outside the home country (the map's
    ``home_country``), fleets, alphabetical.
    """
    game_map = position.map
    excluded = set(exclude)
    candidates = [u for u in position.units_of(power) if u.province not in excluded]
    homes = game_map.home_centres.get(power, frozenset())
    if rules.civil_disorder is CivilDisorder.HOUSE:
        dist = _distances(game_map, homes)
        # "Outside the home country": off every province of the power's colour, which is
        # more than its home centres (Livonia is Russian, Prussia is not).
        country = game_map.home_country.get(power, homes)

        def house_key(u: Unit) -> tuple[int, int, int, int, int, str]:
            return (
                0 if u.province not in game_map.supply_centres else 1,
                -dist.get(u.province, 999),
                0 if game_map.is_sea(u.province) else 1,
                0 if u.province not in country else 1,
                0 if u.type is FLEET else 1,
                game_map.province_name[u.province].lower(),
            )

        candidates.sort(key=house_key)
        return candidates[:count]
    if rules.edition is Edition.R2023:
        targets = frozenset(position.centres_of(power)) or homes
        fleet_dist = None
    else:
        targets = homes
        # 2000 rules (DATC 2.4 6.J.6): a fleet counts its distance over water only, that is
        # by the moves a fleet could make; an army counts over land and sea.
        fleet_dist = _fleet_distances(game_map, targets)
    dist = _distances(game_map, targets)

    def key(u: Unit) -> tuple[int, int, str]:
        if fleet_dist is not None and u.type is FLEET:
            here = fleet_dist.get(u.location, 999)
        else:
            here = dist.get(u.province, 999)
        return (
            -here,
            0 if u.type is FLEET else 1,
            game_map.province_name[u.province].lower(),
        )

    candidates.sort(key=key)
    return candidates[:count]


def _distances(game_map: Map, targets: Iterable[str]) -> dict[str, int]:
    """Moves from every province to the nearest of ``targets``, over land and sea."""
    neighbours = _any_neighbours(game_map)
    dist: dict[str, int] = {}
    queue: deque[str] = deque()
    for t in targets:
        dist[t] = 0
        queue.append(t)
    while queue:
        here = queue.popleft()
        for nxt in neighbours[here]:
            if nxt not in dist:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist


def _fleet_distances(game_map: Map, targets: Iterable[str]) -> dict[str, int]:
    """Fleet moves from every fleet location to the nearest of the ``targets`` provinces.

    Keyed by location (``'stp/sc'``), since the coasts of a split province are apart for
    a fleet; an inland target is never reached.
    """
    wanted = set(targets)
    dist: dict[str, int] = {}
    queue: deque[str] = deque()
    for loc in game_map.fleet_adj:
        if game_map.province_of(loc) in wanted:
            dist[loc] = 0
            queue.append(loc)
    while queue:
        here = queue.popleft()
        for nxt in game_map.fleet_adj[here]:
            if nxt not in dist:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist


_NEIGHBOURS: dict[int, dict[str, frozenset[str]]] = {}


def _any_neighbours(game_map: Map) -> dict[str, frozenset[str]]:
    found = _NEIGHBOURS.get(id(game_map))
    if found is None:
        work: dict[str, set[str]] = {p: set() for p in game_map.provinces}
        for p, near in game_map.army_adj.items():
            work[p] |= near
        for loc, near in game_map.fleet_adj_prov.items():
            work[game_map.province_of(loc)] |= near
        found = {p: frozenset(n) for p, n in work.items()}
        _NEIGHBOURS[id(game_map)] = found
    return found


# -- the sequence of phases -------------------------------------------------------------


def _advance(
    after: Position, rules: Rules, *, had_retreats: bool
) -> tuple[Position, tuple[Phase, ...], str | None]:
    """From the state at the end of a phase, the next phase with something to do."""
    game_map = after.map
    phase = after.phase
    skipped: list[Phase] = []
    winner: str | None = None
    if phase.kind is PhaseKind.MOVEMENT:
        retreat = Phase(phase.year, phase.season, PhaseKind.RETREAT)
        if had_retreats:
            return (
                Position(game_map, retreat, after.units, after.centres, after.dislodged),
                (),
                None,
            )
        skipped.append(retreat)
        phase = retreat
    centres = after.centres
    if phase.kind is PhaseKind.RETREAT:
        if phase.season is Season.SPRING:
            nxt = Phase(phase.year, Season.FALL, PhaseKind.MOVEMENT)
            return Position(game_map, nxt, after.units, centres), tuple(skipped), None
        new_centres = dict(centres)
        for prov, unit in after.units.items():
            if prov in game_map.supply_centres:
                new_centres[prov] = unit.power
        centres = new_centres
        counts: dict[str, int] = {}
        for owner in centres.values():
            counts[owner] = counts.get(owner, 0) + 1
        leaders = [p for p, n in counts.items() if n >= rules.victory_centres]
        if len(leaders) == 1:
            winner = leaders[0]
        winter = Position(
            game_map, Phase(phase.year, Season.WINTER, PhaseKind.ADJUSTMENT), after.units, centres
        )
        if _adjustments_needed(winter, rules):
            return winter, tuple(skipped), winner
        skipped.append(winter.phase)
    nxt = Phase(phase.year + 1, Season.SPRING, PhaseKind.MOVEMENT)
    return Position(game_map, nxt, after.units, centres), tuple(skipped), winner


def _adjustments_needed(position: Position, rules: Rules) -> bool:
    game_map = position.map
    for power in game_map.powers:
        owed = position.adjustment(power)
        if owed < 0:
            return True
        if owed > 0:
            places = (
                position.centres_of(power)
                if rules.build_anywhere
                else [
                    c
                    for c in game_map.home_centres.get(power, ())
                    if position.centres.get(c) == power
                ]
            )
            if any(c not in position.units for c in places):
                return True
    return False
