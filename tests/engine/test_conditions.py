"""Orders compared by meaning, and an order's outcome in a phase's results: what a press
release's condition (``IF A Par-Bur SUCCEEDS``) asks."""

from __future__ import annotations

import pytest
from support.enginekit import MAP, pos

from judge.engine import PhaseKind, Position, adjudicate
from judge.engine.conditions import order_outcome, same_order
from judge.engine.notation import parse_order


def _same(written: str, given: str, kind: PhaseKind = PhaseKind.MOVEMENT) -> bool:
    return same_order(parse_order(written, MAP, kind), parse_order(given, MAP, kind))


@pytest.mark.parametrize(
    ("written", "given"),
    [
        ("A Par-Bur", "Army Paris to Burgundy"),
        ("a par - bur", "A Par-Bur"),
        ("Par-Bur", "A Par-Bur"),
        ("A Lon-Nwy", "A Lon-NTH-Nwy"),
        ("A Lon-Nwy", "A Lon-Nwy via convoy"),
        ("F Mid-Spa", "F Mid-Spa/nc"),
        ("F Spa-Por", "F Spa/sc-Por"),
        ("Mun S Ruh-Bur", "A Mun S A Ruh-Bur"),
        ("A Mun S A Ber", "Army Munich supports Army Berlin"),
        ("F NTH C A Lon-Nwy", "F North Sea convoys A London - Norway"),
        ("A Par P Germany", "A Par P Ger"),
        ("A Par H", "A Paris holds"),
    ],
)
def test_same_meaning(written: str, given: str) -> None:
    assert _same(written, given)


@pytest.mark.parametrize(
    ("written", "given"),
    [
        ("A Par-Bur", "A Par-Pic"),
        ("F Par-Bur", "A Par-Bur"),
        ("A Par-Bur", "A Mar-Bur"),
        ("A Par H", "A Par-Bur"),
        ("A Par-Bur", "A Par H"),
        ("F Mid-Spa/sc", "F Mid-Spa/nc"),
        ("A Mun S A Ruh-Bur", "A Mun S A Ruh-Kie"),
        ("A Mun S A Ruh-Bur", "A Mun S A Ruh"),
        ("A Mun S A Ruh", "A Mun S A Kie"),
        ("F NTH C A Lon-Nwy", "F NTH C A Lon-Den"),
        ("A Par P Germany", "A Par P England"),
    ],
)
def test_different_meaning(written: str, given: str) -> None:
    assert not _same(written, given)


def test_retreat_and_adjustment_orders() -> None:
    retreat, adjust = PhaseKind.RETREAT, PhaseKind.ADJUSTMENT
    assert _same("F Tri-Alb", "Fleet Trieste retreats to Albania", retreat)
    assert not _same("F Tri-Alb", "F Tri-Adr", retreat)
    assert _same("Tri D", "F Tri disband", retreat)
    assert _same("Build A Par", "A Par", adjust)
    assert not _same("Build F Bre", "Build A Bre", adjust)
    assert _same("Build F StP", "Build F StP/nc", adjust)
    assert _same("Remove A Ber", "R A Ber", adjust)
    assert _same("Waive", "Waive", adjust)
    assert not _same("Remove A Ber", "Build A Ber", adjust)


def test_outcome_succeeds_fails_or_not_given() -> None:
    out = adjudicate(
        Position.initial(MAP),
        {"France": ["A Par-Bur", "A Mar-Spa"], "Germany": ["A Mun-Ruh", "F Kie-Den"]},
    )
    assert order_outcome(parse_order("a par - bur"), out.results) is True
    assert order_outcome(parse_order("Army Munich to Ruhr"), out.results) is True
    # Given differently: neither succeeded nor failed.
    assert order_outcome(parse_order("A Par-Pic"), out.results) is None
    # Not given at all: the judge's own hold for Brest is no order given.
    assert order_outcome(parse_order("F Bre H"), out.results) is None


def test_outcome_of_a_bounce() -> None:
    out = adjudicate(Position.initial(MAP), {"France": ["A Par-Bur"], "Germany": ["A Mun-Bur"]})
    assert order_outcome(parse_order("A Par-Bur"), out.results) is False
    assert order_outcome(parse_order("A Mun-Bur"), out.results) is False


def test_outcome_of_a_build() -> None:
    start = pos(
        "W1901A",
        [("France", "A", "bur")],
        {"par": "France", "bre": "France", "mar": "France", "spa": "France"},
    )
    out = adjudicate(start, {"France": ["Build A Par", "Build F Bre"]})
    assert order_outcome(parse_order("B A Par", MAP, PhaseKind.ADJUSTMENT), out.results) is True
    assert order_outcome(parse_order("B A Mar", MAP, PhaseKind.ADJUSTMENT), out.results) is None
