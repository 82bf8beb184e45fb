"""A seeded random player of the standard game, for benchmarks and property tests.

:func:`play_game` plays from Spring 1901 to the end of a given year (or a solo), giving
every unit a legal order in every phase, and records each phase: the position as a
document, the orders as values and as text.  Play is deterministic for a seed: all
choices come from one ``random.Random(seed)`` and everything is visited in sorted order.

Movement orders are not uniform over the legal ones, which would give a game of lonely
moves and unmatched supports.  Each power first picks some attacks; its units that can
support an attack usually do, and its fleets convoy the armies it sends by sea.  The
rest of its units then hold, move, support (preferring moves already ordered, by any
power) or convoy at random.  Retreats are usually made when there is somewhere to go,
builds and removals are chosen at random among the legal ones, with the odd waive.

``coasts=True`` plays games for the differential run against the ``diplomacy`` package
(``benchmarks/differential.py``), which must exercise the split coasts: moves into
Bulgaria, Spain and St Petersburg (by land, by sea and by convoy) are preferred, a
support of a fleet's move to a coast names that coast (now and then the other one, or
none), and the orders' text names the coast of every fleet it mentions (``F Bla S F
Bul/ec``, ``A Fin S F StP/sc-Bot``).  ``missed_removals`` is the chance that a power owing
removals orders one fewer, so the civil-disorder rule picks the last.  Neither changes
the games played without them.

Run as a script to print one game: ``python benchmarks/random_games.py SEED [LAST_YEAR]``.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``judge`` and ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judge.engine.adjudicator import Adjudication, adjudicate
from judge.engine.board import standard_map
from judge.engine.document import position_to_document
from judge.engine.notation import format_order
from judge.engine.options import adjustment_options, movement_options, retreat_options
from judge.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from judge.engine.phases import PhaseKind
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.engine.units import ARMY, FLEET

__all__ = ["PhaseRecord", "choose_orders", "play_game"]

#: Chance that a unit is picked to attack in the first round of a power's orders.
ATTACK_CHANCE = 0.45
#: Chance that a unit able to support one of its power's attacks does so.
BACKING_CHANCE = 0.75
#: Chance that a free support backs a move already ordered when it can.
MATCH_CHANCE = 0.8
#: Weights of the order kinds for the units left after the attacks.
REST_WEIGHTS: Mapping[type[Order], float] = {
    Hold: 0.15,
    Move: 0.35,
    SupportHold: 0.2,
    SupportMove: 0.25,
    Convoy: 0.05,
}
#: Chance that a dislodged unit with somewhere to go retreats rather than disbands.
RETREAT_CHANCE = 0.85
#: Chance that a build owed is waived.
WAIVE_CHANCE = 0.08
#: With ``coasts``: chance that a move is picked among those into a province with coasts.
COAST_MOVE_CHANCE = 0.5
#: With ``coasts``: chance that a support of a fleet's move to a coast names that coast;
#: of the rest, half name the other coast (a support that fails, DATC 6.B.9), half none.
COAST_NAME_CHANCE = 0.8


@dataclass(frozen=True)
class PhaseRecord:
    """One phase played: the position before it and the orders given.

    ``document`` is :func:`~judge.engine.document.position_to_document` of ``position``;
    ``orders`` maps each power that gave orders to them (as values, in the order given)
    and ``texts`` to the same orders printed in the short judge form.  ``adjudication``
    is what the engine made of them (its ``position`` is the next record's).
    """

    phase: str
    document: dict[str, Any]
    orders: dict[str, tuple[Order, ...]]
    texts: dict[str, tuple[str, ...]]
    position: Position = field(repr=False, compare=False)
    adjudication: Adjudication = field(repr=False, compare=False)


def play_game(
    seed: int,
    last_year: int = 1930,
    rules: Rules | None = None,
    *,
    coasts: bool = False,
    missed_removals: float = 0.0,
) -> list[PhaseRecord]:
    """Play the standard game from Spring 1901 to the end of ``last_year`` or a solo.

    ``coasts`` and ``missed_removals`` are described in the module notes.

    >>> game = play_game(7, last_year=1901)
    >>> [r.phase for r in game][:2]
    ['S1901M', 'F1901M']
    >>> game == play_game(7, last_year=1901)
    True
    """
    rules = rules or Rules()
    rng = random.Random(seed)
    game_map = standard_map()
    position = Position.initial(game_map)
    records: list[PhaseRecord] = []
    while position.phase.year <= last_year:
        orders = choose_orders(rng, position, rules, coasts=coasts, missed_removals=missed_removals)
        out = adjudicate(position, orders, rules)
        records.append(
            PhaseRecord(
                phase=position.phase.code,
                document=position_to_document(position),
                orders={p: tuple(o) for p, o in orders.items()},
                texts={
                    p: tuple(_text(o, position, coasts) for o in os) for p, os in orders.items()
                },
                position=position,
                adjudication=out,
            )
        )
        if out.winner is not None:
            break
        position = out.position
    return records


def choose_orders(
    rng: random.Random,
    position: Position,
    rules: Rules | None = None,
    *,
    coasts: bool = False,
    missed_removals: float = 0.0,
) -> dict[str, list[Order]]:
    """Random legal orders for every power in ``position``'s phase (powers sorted)."""
    rules = rules or Rules()
    kind = position.phase.kind
    if kind is PhaseKind.MOVEMENT:
        return _movement(rng, position, rules, coasts)
    if kind is PhaseKind.RETREAT:
        return _retreats(rng, position)
    return _adjustments(rng, position, rules, missed_removals)


def _text(order: Order, position: Position, coasts: bool) -> str:
    """``order`` in the short judge form; with ``coasts``, fleets it names with their coast."""
    if coasts and isinstance(order, (SupportHold, SupportMove)):
        target = position.units.get(order.target)
        if target is not None and target.location != order.target:
            order = replace(order, target=target.location)
    return format_order(order, position.map, short=True)


# -- movement ---------------------------------------------------------------------------


def _movement(
    rng: random.Random, position: Position, rules: Rules, coasts: bool = False
) -> dict[str, list[Order]]:
    options = movement_options(position, rules)
    option_sets = {prov: set(found) for prov, found in options.items()}
    units = position.units
    game_map = position.map
    # (unit province, destination province) -> the destination as ordered (with its coast)
    ordered_moves: dict[tuple[str, str], str] = {}
    convoyed_moves: set[tuple[str, str]] = set()
    out: dict[str, list[Order]] = {}
    for power in sorted({u.power for u in units.values()}):
        mine = [p for p in sorted(options) if units[p].power == power]
        turn = list(mine)
        rng.shuffle(turn)
        chosen: dict[str, Order] = {}
        # 1. Attacks, backed by the power's own supports and convoys.
        for prov in turn:
            if prov in chosen or rng.random() >= ATTACK_CHANCE:
                continue
            moves = [o for o in options[prov] if type(o) is Move]
            if not moves:
                continue
            move = _pick_move(rng, moves, position, coasts)
            dest = game_map.province_of(move.destination)
            if move.via_convoy:
                fleets = [
                    f
                    for f in mine
                    if f not in chosen
                    and Convoy(FLEET, units[f].location, ARMY, prov, dest) in option_sets[f]
                ]
                if not fleets:
                    land = [m for m in moves if isinstance(m, Move) and not m.via_convoy]
                    if not land:
                        continue
                    move = _pick_move(rng, land, position, coasts)
                    dest = game_map.province_of(move.destination)
                else:
                    for f in fleets:
                        chosen[f] = Convoy(FLEET, units[f].location, ARMY, prov, dest)
                    convoyed_moves.add((prov, dest))
            chosen[prov] = move
            ordered_moves[(prov, dest)] = move.destination
            for s in mine:
                if s in chosen or rng.random() >= BACKING_CHANCE:
                    continue
                backer = units[s]
                support = SupportMove(backer.type, backer.location, units[prov].type, prov, dest)
                if support in option_sets[s]:
                    chosen[s] = _name_coast(rng, support, move.destination, position, coasts)

        # 2. Everything else at random, by kind.
        for prov in turn:
            if prov not in chosen:
                picked = _random_order(
                    rng, options[prov], ordered_moves, convoyed_moves, position, coasts
                )
                if type(picked) is Move:
                    ordered_moves[(prov, game_map.province_of(picked.destination))] = (
                        picked.destination
                    )
                chosen[prov] = picked
        out[power] = [chosen[p] for p in mine]
    return out


def _pick_move(
    rng: random.Random, moves: Sequence[Order], position: Position, coasts: bool
) -> Move:
    """One of ``moves``; with ``coasts``, often one into a province with coasts."""
    pool = moves
    if coasts and rng.random() < COAST_MOVE_CHANCE:
        coasts_of = position.map.coasts
        split = [
            m
            for m in moves
            if isinstance(m, Move) and position.map.province_of(m.destination) in coasts_of
        ]
        pool = split or moves
    move = rng.choice(pool)
    assert isinstance(move, Move)
    return move


def _name_coast(
    rng: random.Random, support: SupportMove, ordered: str, position: Position, coasts: bool
) -> SupportMove:
    """With ``coasts``, ``support`` of a fleet's move to the coast ``ordered`` names a coast.

    Mostly the coast ordered; otherwise the province (any coast) or another coast the
    fleet could also reach (the support then fails, DATC 6.B.9).  A supporting fleet
    names only a coast it could reach itself (another is not a legal support).
    """
    if not coasts or "/" not in ordered or support.target_type is not FLEET:
        return support
    game_map = position.map
    own = game_map.fleet_adj.get(support.location, frozenset())

    def can_name(coast: str) -> bool:
        return support.unit_type is not FLEET or coast in own

    roll = rng.random()
    if roll < COAST_NAME_CHANCE:
        return replace(support, destination=ordered) if can_name(ordered) else support
    reach = game_map.fleet_adj.get(position.units[support.target].location, frozenset())
    others = [
        c
        for c in game_map.coasts[support.destination]
        if c != ordered and c in reach and can_name(c)
    ]
    if others and roll < (1 + COAST_NAME_CHANCE) / 2:
        return replace(support, destination=others[0])
    return support


def _random_order(
    rng: random.Random,
    choices: Sequence[Order],
    ordered_moves: Mapping[tuple[str, str], str],
    convoyed_moves: set[tuple[str, str]],
    position: Position,
    coasts: bool = False,
) -> Order:
    by_kind: dict[type[Order], list[Order]] = {}
    for order in choices:
        if isinstance(order, Move) and order.via_convoy:
            continue  # sea moves are made in the first round, with their convoys
        by_kind.setdefault(type(order), []).append(order)
    kinds = [k for k in REST_WEIGHTS if k in by_kind]
    kind = rng.choices(kinds, weights=[REST_WEIGHTS[k] for k in kinds])[0]
    pool = by_kind[kind]
    if kind is Move:
        return _pick_move(rng, pool, position, coasts)
    if kind is SupportMove:
        useful = [o for o in pool if _support_key(o) in ordered_moves]
        if useful and rng.random() < MATCH_CHANCE:
            pool = useful
        picked = rng.choice(pool)
        assert isinstance(picked, SupportMove)
        ordered = ordered_moves.get(_support_key(picked))
        return _name_coast(rng, picked, ordered, position, coasts) if ordered else picked
    if kind is Convoy:
        useful = [o for o in pool if _support_key(o) in convoyed_moves]
        if useful:
            pool = useful
    return rng.choice(pool)


def _support_key(order: Order) -> tuple[str, str]:
    assert isinstance(order, (SupportMove, Convoy))
    return order.target, order.destination.split("/", 1)[0]


# -- retreats and adjustments -----------------------------------------------------------


def _retreats(rng: random.Random, position: Position) -> dict[str, list[Order]]:
    out: dict[str, list[Order]] = {}
    for prov in sorted(position.dislodged):
        choices = retreat_options(position, prov)
        retreats = [o for o in choices if type(o) is Retreat]
        order: Order
        if retreats and rng.random() < RETREAT_CHANCE:
            order = rng.choice(retreats)
        else:
            order = next(o for o in choices if type(o) is Disband)
        out.setdefault(position.dislodged[prov].unit.power, []).append(order)
    return {p: out[p] for p in sorted(out)}


def _adjustments(
    rng: random.Random, position: Position, rules: Rules, missed_removals: float = 0.0
) -> dict[str, list[Order]]:
    out: dict[str, list[Order]] = {}
    game_map = position.map
    for power in game_map.powers:
        owed = position.adjustment(power)
        if owed < 0:
            if missed_removals and rng.random() < missed_removals:
                owed += 1  # one removal left to the civil-disorder rule
            units = position.units_of(power)
            removals: list[Order] = [Remove(u.type, u.location) for u in rng.sample(units, -owed)]
            if removals:
                out[power] = removals
        elif owed > 0:
            by_centre: dict[str, list[Order]] = {}
            for order in adjustment_options(position, power, rules):
                if type(order) is Build:
                    by_centre.setdefault(order.province, []).append(order)
            centres = sorted(by_centre)
            rng.shuffle(centres)
            orders: list[Order] = []
            for centre in centres[:owed]:
                if rng.random() < WAIVE_CHANCE:
                    orders.append(Waive())
                else:
                    orders.append(rng.choice(by_centre[centre]))
            if orders:
                out[power] = orders
    return out


def main(argv: list[str] | None = None) -> int:
    """Print one game, phase by phase."""
    args = sys.argv[1:] if argv is None else argv
    seed = int(args[0]) if args else 1
    last_year = int(args[1]) if len(args) > 1 else 1905
    for record in play_game(seed, last_year):
        print(record.phase)
        for power, texts in record.texts.items():
            print(f"  {power}: {', '.join(texts)}")
        if record.adjudication.winner:
            print(f"  winner: {record.adjudication.winner}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
