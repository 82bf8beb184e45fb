"""Tests of the option lists (judge/engine/options.py): exact lists and legality of all."""

from __future__ import annotations

import random

import pytest
from support import enginekit
from support.enginekit import MAP

from judge.engine.adjudicator import adjudicate
from judge.engine.legality import check_adjustment, check_movement, check_retreat
from judge.engine.notation import format_order
from judge.engine.options import (
    adjustment_options,
    movement_options,
    possible_orders,
    retreat_options,
)
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
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.engine.units import ARMY, FLEET

START = Position.initial(MAP)


def short(orders: list[Order]) -> list[str]:
    """The orders in the short judge form."""
    return [format_order(o, MAP, short=True) for o in orders]


def position(
    phase: str, *units: tuple[str, str, str], centres: dict[str, str] | None = None
) -> Position:
    """A position from (power, "A"/"F", location) triples."""
    return enginekit.pos(phase, list(units), centres)


def assert_all_legal(pos: Position, rules: Rules | None = None) -> None:
    """Every listed order passes the legality check unchanged, and none is listed twice."""
    rules = rules or Rules()
    for prov, orders in movement_options(pos, rules).items():
        unit = pos.units[prov]
        assert len(set(orders)) == len(orders)
        for order in orders:
            assert order.province == prov
            assert check_movement(pos, unit.power, order, rules) == order, order


# -- exact lists in the starting position -------------------------------------------------


def test_army_paris_1901() -> None:
    assert short(possible_orders(START, START.units["par"])) == [
        "A par H",
        "A par-bre",
        "A par-bur",
        "A par-gas",
        "A par-pic",
        "A par S F bre",
        "A par S A mar-bur",
        "A par S A mun-bur",
        "A par S F bre-gas",
        "A par S A mar-gas",
        "A par S F bre-pic",
    ]


def test_fleet_st_petersburg_south_coast_1901() -> None:
    assert possible_orders(START, START.units["stp"]) == [
        Hold(FLEET, "stp/sc"),
        Move(FLEET, "stp/sc", "bot"),
        Move(FLEET, "stp/sc", "fin"),
        Move(FLEET, "stp/sc", "lvn"),
        SupportMove(FLEET, "stp/sc", ARMY, "mos", "lvn"),
        SupportMove(FLEET, "stp/sc", ARMY, "war", "lvn"),
    ]


def test_fleet_london_1901() -> None:
    assert short(possible_orders(START, START.units["lon"])) == [
        "F lon H",
        "F lon-eng",
        "F lon-nth",
        "F lon-wal",
        "F lon-yor",
        "F lon S F bre-eng",
        "F lon S F edi-nth",
        "F lon S A lvp-wal",
        "F lon S F edi-yor",
        "F lon S A lvp-yor",
    ]


def test_fleet_trieste_1901() -> None:
    assert short(possible_orders(START, START.units["tri"])) == [
        "F tri H",
        "F tri-adr",
        "F tri-alb",
        "F tri-ven",
        "F tri S A ven",
        "F tri S A rom-ven",
    ]


def test_every_option_of_1901_is_legal() -> None:
    assert_all_legal(START)
    options = movement_options(START)
    assert sorted(options) == sorted(START.units)
    assert all(options[p] == possible_orders(START, START.units[p]) for p in options)


# -- coasts, convoys, proxies ---------------------------------------------------------------


def test_fleet_at_sea_reaches_each_coast() -> None:
    pos = position("S1901M", ("France", "F", "mao"), ("France", "F", "por"))
    orders = possible_orders(pos, pos.units["mao"])
    assert Move(FLEET, "mao", "spa/nc") in orders
    assert Move(FLEET, "mao", "spa/sc") in orders
    assert Move(FLEET, "mao", "spa") not in orders
    # A support into Spain names the province: it backs a move to either coast.
    assert SupportMove(FLEET, "mao", FLEET, "por", "spa") in orders
    assert_all_legal(pos)


def test_single_fleet_convoy_options() -> None:
    pos = position(
        "S1901M", ("England", "F", "nth"), ("England", "A", "lon"), ("England", "A", "wal")
    )
    army = possible_orders(pos, pos.units["lon"])
    assert Move(ARMY, "lon", "nwy", True) in army
    assert Move(ARMY, "lon", "yor", True) in army  # adjacent, but may still go by sea
    assert Move(ARMY, "lon", "yor") in army
    assert Move(ARMY, "lon", "bre", True) not in army  # the North Sea does not reach Brest
    fleet = possible_orders(pos, pos.units["nth"])
    assert Convoy(FLEET, "nth", ARMY, "lon", "nwy") in fleet
    assert Convoy(FLEET, "nth", ARMY, "lon", "bel") in fleet
    assert not any(type(o) is Convoy and o.target == "wal" for o in fleet)
    # Wales may support London in place, and its move by sea into Liverpool or Yorkshire.
    wales = possible_orders(pos, pos.units["wal"])
    assert SupportHold(ARMY, "wal", ARMY, "lon") in wales
    assert SupportMove(ARMY, "wal", ARMY, "lon", "yor") in wales
    assert_all_legal(pos)


def test_fleet_chain_convoys() -> None:
    pos = position(
        "S1901M",
        ("England", "A", "lon"),
        ("England", "F", "eng"),
        ("England", "F", "mao"),
        ("France", "A", "gas"),
    )
    army = possible_orders(pos, pos.units["lon"])
    for dest in ("bre", "pic", "por", "spa", "naf"):
        assert Move(ARMY, "lon", dest, True) in army, dest
    mao = possible_orders(pos, pos.units["mao"])
    assert Convoy(FLEET, "mao", ARMY, "lon", "por") in mao
    assert Convoy(FLEET, "mao", ARMY, "gas", "lon") in mao  # any power's army
    # Gascony can support the English army's convoyed move into Spain.
    assert SupportMove(ARMY, "gas", ARMY, "lon", "spa") in possible_orders(pos, pos.units["gas"])
    assert_all_legal(pos)


def test_no_convoys_without_fleets_at_sea() -> None:
    for prov in ("lon", "edi", "lvp"):
        orders = possible_orders(START, START.units[prov])
        assert not any(type(o) is Convoy or (type(o) is Move and o.via_convoy) for o in orders)
    # A fleet in a coastal province never convoys.
    assert not any(type(o) is Convoy for o in possible_orders(START, START.units["lon"]))


def test_proxies_only_when_allowed() -> None:
    unit = START.units["par"]
    assert not any(type(o) is Proxy for o in possible_orders(START, unit))
    rules = Rules(proxies=True)
    proxies = [o for o in possible_orders(START, unit, rules) if type(o) is Proxy]
    assert [o.power for o in proxies] == [p for p in MAP.powers if p != "France"]
    assert_all_legal(START, rules)


def test_random_game_positions_all_legal() -> None:
    """Options stay legal in crowded positions: units moved about at random."""
    rng = random.Random(5)
    pos = START
    for _ in range(12):
        if pos.phase.kind is not PhaseKind.MOVEMENT:
            out = adjudicate(pos, {})
        else:
            assert_all_legal(pos)
            options = movement_options(pos)
            orders = {
                power: [rng.choice(options[u.province]) for u in pos.units_of(power)]
                for power in MAP.powers
            }
            out = adjudicate(pos, orders)
            assert not out.rejected
        pos = out.position


# -- retreats and adjustments ---------------------------------------------------------------


def test_retreat_options() -> None:
    pos = position("S1901M", ("Austria", "F", "tri"), ("Italy", "A", "ven"), ("Italy", "F", "adr"))
    out = adjudicate(pos, {"Italy": ["A ven-tri", "F adr S A ven-tri"]})
    after = out.position
    assert str(after.phase) == "S1901R"
    options = retreat_options(after, "tri")
    assert options == [Retreat(FLEET, "tri", "alb"), Disband(FLEET, "tri")]
    for order in options:
        assert check_retreat(after, "Austria", order) == order
    with pytest.raises(KeyError):
        retreat_options(after, "ven")


def test_build_options() -> None:
    centres = dict(MAP.start_centres, spa="France", por="France", stp="Russia")
    pos = position(
        "W1901A",
        ("France", "A", "bur"),
        ("France", "F", "mao"),
        ("France", "A", "por"),
        ("Russia", "A", "mos"),
        ("Russia", "A", "war"),
        ("Russia", "F", "sev"),
        centres=centres,
    )
    assert short(adjustment_options(pos, "France")) == [
        "Build A bre",
        "Build F bre",
        "Build A mar",
        "Build F mar",
        "Build A par",
        "Waive",
    ]
    assert adjustment_options(pos, "Russia") == [
        Build(ARMY, "stp"),
        Build(FLEET, "stp/nc"),
        Build(FLEET, "stp/sc"),
        Waive(),
    ]
    anywhere = Rules(build_anywhere=True)
    spain = [o for o in adjustment_options(pos, "France", anywhere) if o.province == "spa"]
    assert spain == [Build(ARMY, "spa"), Build(FLEET, "spa/nc"), Build(FLEET, "spa/sc")]
    for power in ("France", "Russia"):
        for order in adjustment_options(pos, power):
            assert check_adjustment(pos, power, order, Rules()) == order


def test_removal_and_nothing_owed() -> None:
    centres = {c: p for c, p in MAP.start_centres.items() if c != "tri"}
    centres["tri"] = "Italy"
    pos = position(
        "W1901A",
        ("Austria", "A", "bud"),
        ("Austria", "A", "vie"),
        ("Austria", "F", "alb"),
        ("Italy", "A", "tri"),
        centres=centres,
    )
    assert adjustment_options(pos, "Austria") == [
        Remove(FLEET, "alb"),
        Remove(ARMY, "bud"),
        Remove(ARMY, "vie"),
    ]
    for order in adjustment_options(pos, "Austria"):
        assert check_adjustment(pos, "Austria", order, Rules()) == order
    assert adjustment_options(START, "France") == []
