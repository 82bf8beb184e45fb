"""Property tests of the order language: robustness on any text, and print-then-read."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.engine.board import Map, standard_map
from judge.engine.errors import OrderError
from judge.engine.notation import format_order, parse_order, parse_orders
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
from judge.engine.phases import PhaseKind
from judge.engine.units import UnitType

MAP: Map = standard_map()
FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PROVINCES = sorted(MAP.provinces)
LOCATIONS = sorted(set(PROVINCES) | {c for cs in MAP.coasts.values() for c in cs})
SEAS = [p for p in PROVINCES if MAP.is_sea(p)]

KINDS = st.sampled_from([None, PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT])

ORDER_WORDS = [
    "A", "F", "army", "fleet", "H", "hold", "-", "->", "=>", "m", "moves to", "to", "S",
    "supports", "C", "convoys", "P", "proxy to", "via convoy", "by", "D", "disband", "b",
    "build", "r", "remove", "w", "waive", "(", ")", "/", "nc", "sc", "north coast", "(nc)",
    "England:", "ENG", "FLT", "AMY", "MTO", "HLD", "SUP", "CVY", "CTO", "VIA", "RTO", "DSB",
    "BLD", "REM", "WVE", "ECH", "(STP NCS)", ".", ",", ";", "\n", "Ge", "france", "the", "in",
    "St Petersburg", "Mid-Atlantic", "Ocean", "Gulf of", "xyz", ":", "",
]  # fmt: skip
TOKENS = st.sampled_from(ORDER_WORDS + LOCATIONS + [MAP.province_name[p] for p in PROVINCES])
ORDERISH = st.lists(TOKENS, max_size=10).map(" ".join) | st.lists(TOKENS, max_size=8).map("".join)


def _check_parse(text: str, kind: PhaseKind | None) -> None:
    try:
        parse_order(text, MAP, kind)
    except OrderError as exc:
        # never an internal error dressed up as a syntax error
        assert exc.__cause__ is None, repr(exc.__cause__)
        assert exc.text == text.strip() or exc.text == text
    for parsed in parse_orders(text, MAP, kind):
        assert (parsed.order is None) != (parsed.error is None)
        if parsed.error is not None:
            assert parsed.error.__cause__ is None, repr(parsed.error.__cause__)


@FAST
@given(st.text(max_size=60), KINDS)
def test_any_text_gives_an_order_or_an_order_error(text: str, kind: PhaseKind | None) -> None:
    _check_parse(text, kind)


@FAST
@given(ORDERISH, KINDS)
def test_orderish_text_gives_an_order_or_an_order_error(text: str, kind: PhaseKind | None) -> None:
    _check_parse(text, kind)


# -- print then read ------------------------------------------------------------------

TYPES = st.sampled_from([None, UnitType.ARMY, UnitType.FLEET])
LOCS = st.sampled_from(LOCATIONS)
PROVS = st.sampled_from(PROVINCES)


@st.composite
def moves(draw: st.DrawFn) -> Order:
    route = tuple(draw(st.lists(st.sampled_from(SEAS), max_size=3)))
    via = bool(route) or draw(st.booleans())
    return Move(draw(TYPES), draw(LOCS), draw(LOCS), via_convoy=via, route=route)


MOVEMENT_ORDERS = st.one_of(
    st.builds(Hold, TYPES, LOCS),
    moves(),
    st.builds(SupportHold, TYPES, LOCS, TYPES, LOCS),
    st.builds(SupportMove, TYPES, LOCS, TYPES, LOCS, LOCS),
    st.builds(Convoy, TYPES, LOCS, TYPES, LOCS, LOCS),
    st.builds(Proxy, TYPES, LOCS, st.sampled_from(MAP.powers)),
)
RETREAT_ORDERS = st.one_of(st.builds(Retreat, TYPES, LOCS, LOCS), st.builds(Disband, TYPES, LOCS))
ADJUSTMENT_ORDERS = st.one_of(
    st.builds(Build, TYPES, LOCS),
    st.builds(Remove, TYPES, LOCS),
    st.just(Waive()),
    st.builds(Waive, TYPES, LOCS),
)
ANY_ORDER = st.one_of(
    MOVEMENT_ORDERS.map(lambda o: (o, PhaseKind.MOVEMENT)),
    RETREAT_ORDERS.map(lambda o: (o, PhaseKind.RETREAT)),
    ADJUSTMENT_ORDERS.map(lambda o: (o, PhaseKind.ADJUSTMENT)),
)


@FAST
@given(ANY_ORDER, st.booleans())
def test_format_then_parse_gives_the_same_order(case: tuple[Order, PhaseKind], short: bool) -> None:
    order, kind = case
    text = format_order(order, MAP, short=short)
    assert parse_order(text, MAP, kind) == order, text


@FAST
@given(ANY_ORDER)
def test_format_then_parse_orders_with_power(case: tuple[Order, PhaseKind]) -> None:
    order, kind = case
    text = "France: " + format_order(order, MAP) + ".\n" + format_order(order, MAP, short=True)
    parsed = parse_orders(text, MAP, kind)
    assert [(p.power, p.order) for p in parsed] == [("France", order), (None, order)]


@FAST
@given(MOVEMENT_ORDERS)
def test_movement_orders_read_without_a_kind(order: Order) -> None:
    assert parse_order(format_order(order, MAP), MAP) == order
    assert parse_order(format_order(order, MAP, short=True), MAP) == order


@FAST
@given(ANY_ORDER)
def test_short_form_fast_path_agrees_with_the_general_parser(case: tuple[Order, PhaseKind]) -> None:
    from judge.engine.notation import _fast, _Parser

    order, kind = case
    text = format_order(order, MAP, short=True)
    fast = _fast(text, MAP, kind)
    if fast is not None:
        assert fast == _Parser(text, text, MAP, kind).parse() == order
