"""Property tests of the engine: invariants that hold after every phase of random games.

The games come from the seeded random player of ``benchmarks/random_games.py`` (every
unit ordered among its legal orders, supports and convoys mostly backing real moves),
with Hypothesis choosing the seed and the length; a few years each keep the whole file
to a few seconds.
"""

from __future__ import annotations

import itertools
import random
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import ROOT

from judge.engine.adjudicator import Adjudication, adjudicate
from judge.engine.board import Map, standard_map
from judge.engine.legality import check_movement
from judge.engine.phases import PhaseKind, Season
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.engine.units import ARMY, FLEET

sys.path.insert(0, str(ROOT))  # for the benchmarks package

from benchmarks.random_games import PhaseRecord, choose_orders, play_game

MAP: Map = standard_map()
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
GAMES = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- invariants of one position -----------------------------------------------------------


def check_position(position: Position) -> None:
    """Board invariants that every position must satisfy."""
    for province, unit in position.units.items():
        # Keyed by province, so one unit per province at most; the key must be its own.
        assert unit.province == province, unit
        assert unit.power in MAP.powers
        assert MAP.can_hold(unit.type, unit.location), unit
        if unit.type is ARMY:
            assert MAP.is_land(unit.location) and "/" not in unit.location, unit
        else:
            assert unit.type is FLEET
            assert MAP.is_sea(unit.location) or MAP.is_coastal(unit.location), unit
            if unit.province in MAP.coasts:
                assert unit.location in MAP.coasts[unit.province], unit

    assert len(MAP.supply_centres) == 34
    assert set(position.centres) <= MAP.supply_centres
    assert all(owner in MAP.powers for owner in position.centres.values())
    neutral = MAP.supply_centres - set(position.centres)
    owned = sum(len(position.centres_of(p)) for p in MAP.powers)
    assert owned + len(neutral) == 34

    if position.phase.kind is PhaseKind.RETREAT:
        assert position.dislodged, "an empty retreat phase should have been skipped"
    else:
        assert not position.dislodged
    for province, entry in position.dislodged.items():
        unit = entry.unit
        assert unit.province == province
        assert MAP.can_hold(unit.type, unit.location)
        dislodger = position.units.get(province)
        assert dislodger is not None and dislodger.power != unit.power
        reach = MAP.army_adj[unit.location] if unit.type is ARMY else MAP.fleet_adj[unit.location]
        assert entry.retreats, "a unit with nowhere to go is destroyed, not dislodged"
        assert list(entry.retreats) == sorted(set(entry.retreats))
        for place in entry.retreats:
            assert place in reach, (unit, place)
            assert MAP.province_of(place) not in position.units, (unit, place)
            assert MAP.province_of(place) != entry.attacker, (unit, place)

    if position.phase.season is Season.SPRING and position.phase.kind is PhaseKind.MOVEMENT:
        # After the winter (played or skipped) no power has more units than centres.
        for power in MAP.powers:
            assert position.adjustment(power) >= 0, (power, position.phase)


def check_phase(record: PhaseRecord) -> None:
    """Invariants linking a phase's position, orders and outcome."""
    before = record.position
    out = record.adjudication
    after = out.position
    assert record.phase == before.phase.code
    assert not out.rejected, [r.message for r in out.rejected]
    # The sequence of phases always moves on, and skipped phases lie in between.
    assert before.phase < after.phase
    previous = before.phase
    for skipped in out.skipped:
        assert previous < skipped < after.phase
        previous = skipped
    kind = before.phase.kind
    if kind is PhaseKind.MOVEMENT:
        rules = Rules()
        ordered = 0
        for power, orders in record.orders.items():
            for order in orders:
                assert check_movement(before, power, order, rules) == order
                ordered += 1
        assert ordered == len(before.units), "every unit is ordered"
        assert not any(r.default for r in out.results)
        # No unit appears or vanishes: it stays, moves, is dislodged or is destroyed.
        assert len(after.units) + len(after.dislodged) + len(out.destroyed) == len(before.units)
    elif kind is PhaseKind.RETREAT:
        kept = len(before.units) + len(before.dislodged) - len(out.destroyed)
        assert len(after.units) == kept
    else:
        for power in MAP.powers:
            assert len(after.units_of(power)) <= len(after.centres_of(power)), power
    if out.winner is not None:
        assert len(after.centres_of(out.winner)) >= Rules().victory_centres


def same_outcome(a: Adjudication, b: Adjudication) -> bool:
    """Whether two adjudications agree (rejections compared by code and message)."""
    return (
        a.position == b.position
        and a.position.dislodged == b.position.dislodged
        and a.results == b.results
        and a.destroyed == b.destroyed
        and a.skipped == b.skipped
        and a.winner == b.winner
        and [(r.power, r.text, r.code, r.message) for r in a.rejected]
        == [(r.power, r.text, r.code, r.message) for r in b.rejected]
    )


# -- properties ---------------------------------------------------------------------------


@GAMES
@given(seed=SEEDS, years=st.integers(min_value=1, max_value=4))
def test_invariants_hold_after_every_phase(seed: int, years: int) -> None:
    game = play_game(seed, last_year=1900 + years)
    assert game[0].phase == "S1901M"
    check_position(game[0].position)
    for record, following in itertools.pairwise(game):
        assert following.position is record.adjudication.position
    for record in game:
        check_phase(record)
        check_position(record.adjudication.position)


@GAMES
@given(seed=SEEDS, years=st.integers(min_value=1, max_value=3))
def test_adjudication_is_deterministic(seed: int, years: int) -> None:
    game = play_game(seed, last_year=1900 + years)
    for record in game:
        orders = {p: list(o) for p, o in record.orders.items()}
        first = adjudicate(record.position, orders)
        second = adjudicate(record.position, orders)
        assert same_outcome(first, second)
        assert same_outcome(first, record.adjudication)
        # Text in the judge syntax means the same as the values it was printed from.
        texts = {p: list(t) for p, t in record.texts.items()}
        assert same_outcome(adjudicate(record.position, texts), first)


@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_random_play_is_deterministic(seed: int) -> None:
    assert play_game(seed, last_year=1901) == play_game(seed, last_year=1901)


@settings(max_examples=20, deadline=None)
@given(seed=SEEDS)
def test_random_orders_in_any_order_give_the_same_result(seed: int) -> None:
    """The adjudication does not depend on the order in which the orders are listed."""
    rng = random.Random(seed)
    position = Position.initial(MAP)
    orders = choose_orders(rng, position)
    pairs = [(power, order) for power, items in orders.items() for order in items]
    shuffled = list(pairs)
    rng.shuffle(shuffled)
    a = adjudicate(position, pairs)
    b = adjudicate(position, shuffled)
    assert a.position == b.position
    assert a.destroyed == b.destroyed
    # Compared without culprits: when three or more units bounce, the one named is the
    # first other mover listed, which does depend on the listing order.
    assert [(r.power, r.order, r.success, r.notes) for r in a.results] == [
        (r.power, r.order, r.success, r.notes) for r in b.results
    ]
