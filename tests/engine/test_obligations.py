"""What a power still owes (judge/engine/obligations.py): exact answers in each kind of
phase, and properties over random adjustment positions."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from support.enginekit import MAP

from judge.engine.obligations import Owed, build_places, owed, powers_owing
from judge.engine.options import adjustment_options
from judge.engine.orders import (
    Build,
    Convoy,
    Hold,
    Move,
    Order,
    Proxy,
    Remove,
    Retreat,
    SupportMove,
    Waive,
)
from judge.engine.phases import Phase
from judge.engine.position import Dislodged, Position
from judge.engine.rules import Rules
from judge.engine.units import ARMY, FLEET, Unit

START = Position.initial(MAP)
RULES = Rules()
IMPLIED = Rules(implied_orders=True)
PROXIES = Rules(proxies=True)


def unit(power: str, kind: str, location: str) -> Unit:
    return Unit(power, ARMY if kind == "A" else FLEET, location)


# -- movement ---------------------------------------------------------------------------


def test_movement_every_unit_without_an_order_is_owed() -> None:
    assert owed(START, "England", [], RULES) == Owed(
        "England", units=(unit("England", "F", "edi"), unit("England", "F", "lon"),
                          unit("England", "A", "lvp")),
    )  # fmt: skip
    due = owed(START, "England", [Move(FLEET, "lon", "nth"), Hold(None, "edi")], RULES)
    assert due == Owed("England", units=(unit("England", "A", "lvp"),))
    assert not due.complete
    every = [Hold(None, "lon"), Hold(None, "edi"), Hold(None, "lvp")]
    assert owed(START, "England", every, RULES) == Owed("England")
    assert owed(START, "England", every, RULES).complete


def test_a_support_orders_the_supported_unit_under_implied_orders() -> None:
    orders: list[Order] = [SupportMove(ARMY, "mun", ARMY, "ber", "sil"), Hold(FLEET, "kie")]
    # House rule 3.8: Berlin is ordered to Silesia by Munich's support.
    assert owed(START, "Germany", orders, IMPLIED) == Owed(
        "Germany", implied=(Move(ARMY, "ber", "sil"),)
    )
    # Without it, Berlin has no order.
    assert owed(START, "Germany", orders, RULES) == Owed(
        "Germany", units=(unit("Germany", "A", "ber"),)
    )


def test_a_convoy_orders_the_convoyed_army_under_implied_orders() -> None:
    position = Position.build(
        MAP, "S1901M", [unit("England", "F", "nth"), unit("England", "A", "yor")]
    )
    due = owed(position, "England", [Convoy(FLEET, "nth", ARMY, "yor", "nwy")], IMPLIED)
    assert due == Owed("England", implied=(Move(ARMY, "yor", "nwy", True),))


def test_an_illegal_implied_move_orders_nothing() -> None:
    # Berlin cannot reach Burgundy: the support implies no move and Berlin is owed.
    orders = [SupportMove(ARMY, "mun", ARMY, "ber", "bur"), Hold(FLEET, "kie")]
    assert owed(START, "Germany", orders, IMPLIED) == Owed(
        "Germany", units=(unit("Germany", "A", "ber"),)
    )


def test_a_units_own_order_wins_over_the_implied_one() -> None:
    orders = [SupportMove(ARMY, "mun", ARMY, "ber", "sil"), Hold(ARMY, "ber"), Hold(FLEET, "kie")]
    assert owed(START, "Germany", orders, IMPLIED) == Owed("Germany")


def test_orders_for_another_powers_units_order_nothing_of_ones_own() -> None:
    rules = Rules(proxies=True, implied_orders=True)
    # Germany orders French units (proxies): a support between two French units implies
    # nothing for Germany, whose own units are all still owed.
    german = [Move(ARMY, "par", "bur"), SupportMove(FLEET, "bre", ARMY, "par", "pic")]
    assert owed(START, "Germany", german, rules) == owed(START, "Germany", [], rules)
    assert len(owed(START, "Germany", german, rules).units) == 3
    # France hands Paris to Germany: that is France's order for it.
    assert owed(START, "France", [Proxy(ARMY, "par", "Germany")], PROXIES) == Owed(
        "France", units=(unit("France", "F", "bre"), unit("France", "A", "mar"))
    )


# -- retreats ---------------------------------------------------------------------------


def retreat_position() -> Position:
    army = unit("France", "A", "bur")
    units = [u for u in MAP.start_units if u.location != "par"]
    return Position.build(MAP, "S1901R", units, dislodged=[Dislodged(army, "mun", ("gas", "pic"))])


def test_retreats_each_dislodged_unit_is_owed() -> None:
    position = retreat_position()
    assert owed(position, "France", [], RULES) == Owed(
        "France", units=(unit("France", "A", "bur"),)
    )
    assert owed(position, "France", [Retreat(ARMY, "bur", "gas")], RULES) == Owed("France")
    # Units that stand where they are owe nothing in a retreat phase.
    assert owed(position, "Germany", [], RULES) == Owed("Germany")
    assert powers_owing(position, RULES) == {"France"}


# -- adjustments ------------------------------------------------------------------------


def winter() -> Position:
    """France took Spain and Belgium and has one free home centre (its army left Paris);
    Italy took Tunis but has no free home centre; Austria lost Budapest to Russia."""
    units = [replace(u, location="bur") if u.location == "par" else u for u in MAP.start_units]
    centres = {**MAP.start_centres, "spa": "France", "bel": "France", "tun": "Italy"}
    centres["bud"] = "Russia"
    return Position.build(MAP, "W1901A", units, centres)


def test_builds_are_owed_only_where_there_is_room() -> None:
    position = winter()
    france = owed(position, "France", [], RULES)
    assert france == Owed("France", adjustment=2, places=1)
    assert (france.needed, france.builds, france.allowed, france.complete) == (1, 1, 2, False)
    built = owed(position, "France", [Build(ARMY, "par")], RULES)
    assert built == Owed("France", adjustment=2, places=1, ordered=1)
    assert (built.builds, built.complete) == (0, True)
    italy = owed(position, "Italy", [], RULES)
    assert italy == Owed("Italy", adjustment=1, places=0)
    assert (italy.needed, italy.builds, italy.allowed, italy.complete) == (0, 0, 1, True)


def test_build_anywhere_counts_every_free_owned_centre() -> None:
    position = winter()
    anywhere = Rules(build_anywhere=True)
    assert build_places(position, "Italy", RULES) == ()
    assert build_places(position, "Italy", anywhere) == ("tun",)
    assert build_places(position, "France", anywhere) == ("bel", "par", "spa")
    assert owed(position, "Italy", [], anywhere) == Owed("Italy", adjustment=1, places=1)
    assert owed(position, "France", [], anywhere).builds == 2
    assert powers_owing(position, RULES) == {"Austria", "France"}
    assert powers_owing(position, anywhere) == {"Austria", "France", "Italy"}


def test_removals_are_owed_until_ordered() -> None:
    position = winter()
    austria = owed(position, "Austria", [], RULES)
    assert austria == Owed("Austria", adjustment=-1)
    assert (austria.removals, austria.needed, austria.allowed) == (1, 1, 1)
    assert owed(position, "Austria", [Remove(FLEET, "tri")], RULES).complete


def test_a_power_with_nothing_to_adjust_owes_nothing() -> None:
    assert owed(winter(), "England", [], RULES) == Owed("England")
    assert owed(winter(), "England", [], RULES).complete


# -- properties -------------------------------------------------------------------------

POWERS = (None, *MAP.powers)
CENTRES = sorted(MAP.supply_centres)


@st.composite
def adjustment_positions(draw: st.DrawFn) -> tuple[Position, Rules]:
    """A winter position: any owner (or none) for each centre, any subset of the start
    units, and either build rule."""
    owners = draw(st.lists(st.sampled_from(POWERS), min_size=len(CENTRES), max_size=len(CENTRES)))
    kept = draw(st.lists(st.booleans(), min_size=22, max_size=22))
    centres = {c: p for c, p in zip(CENTRES, owners, strict=True) if p is not None}
    units = [u for u, keep in zip(MAP.start_units, kept, strict=False) if keep]
    rules = Rules(build_anywhere=draw(st.booleans()))
    return Position(MAP, Phase.parse("W1901A"), {u.province: u for u in units}, centres), rules


@settings(max_examples=200, deadline=None)
@given(adjustment_positions())
def test_adjustments_complete_exactly_when_the_needed_orders_are_given(
    drawn: tuple[Position, Rules],
) -> None:
    position, rules = drawn
    owing = powers_owing(position, rules)
    for power in MAP.powers:
        due = owed(position, power, [], rules)
        adjustment = position.adjustment(power)
        assert due.adjustment == adjustment
        # As many builds as the option list has centres for, every removal.
        room = {o.province for o in adjustment_options(position, power, rules) if o.location}
        assert due.needed == (min(adjustment, len(room)) if adjustment > 0 else -adjustment)
        assert (power in owing) == (due.needed > 0) == (not due.complete)
        given_ = [Waive()] * due.needed
        assert owed(position, power, given_, rules).complete
        if due.needed:
            assert not owed(position, power, given_[1:], rules).complete


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(MAP.powers), st.lists(st.booleans(), min_size=4, max_size=4))
def test_movement_a_power_whose_every_unit_is_ordered_owes_nothing(
    power: str, which: list[bool]
) -> None:
    units = START.units_of(power)
    orders = [Hold(u.type, u.location) for u, keep in zip(units, which, strict=False) if keep]
    due = owed(START, power, orders, IMPLIED)
    ordered = {o.province for o in orders}
    assert due.units == tuple(u for u in units if u.province not in ordered)
    assert due.complete == (len(orders) == len(units))
