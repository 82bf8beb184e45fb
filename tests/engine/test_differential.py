"""The differential run's classifier (benchmarks/differential.py), without the package.

The ``diplomacy`` package's answers to each class's minimal position were recorded once
(``tests/data/diplomacy_minimal_answers.json``, from ``differential.py``'s
``run_package``), so these tests need neither the package nor its virtual environment.
"""

from __future__ import annotations

import json
import sys
from copy import deepcopy
from typing import Any

import pytest
from support import DATA, ROOT

sys.path.insert(0, str(ROOT))  # for the benchmarks package

from benchmarks import differential as diff_run
from benchmarks.random_games import play_game
from judge.engine.orders import SupportMove
from judge.engine.rules import Rules

ANSWERS: dict[str, Any] = json.loads((DATA / "diplomacy_minimal_answers.json").read_text())


def phase_diff(doc: dict[str, Any], theirs: dict[str, Any], rules: Rules) -> diff_run.PhaseDiff:
    record = diff_run.record_from_document(doc, rules)
    found = diff_run.differences(record.adjudication, theirs)
    return diff_run.PhaseDiff(0, record, rules, record.adjudication, theirs, found)


CASES = [
    (cls, edition)
    for cls in diff_run.CLASSES
    for edition in ("2000", "2023")
    if edition in cls.editions
]


@pytest.mark.parametrize(("cls", "edition"), CASES, ids=[f"{c.key}-{e}" for c, e in CASES])
def test_minimal_position_is_recognised_by_its_class(cls: diff_run.DiffClass, edition: str) -> None:
    """Each minimal position differs, and its class explains it (with others, no more)."""
    rules = Rules.parse_edition(edition)
    found = phase_diff(cls.minimal, ANSWERS[cls.key], rules)
    if not found.differences:
        # Only a defect of ours can vanish: once fixed, both engines agree.
        assert "ours" in cls.defect
        return
    keys, left = diff_run.classify(found)
    assert left == set()
    if cls.key not in keys:
        # Fixed in our engine: what is left is an edition difference of another class.
        assert "ours" in cls.defect and keys == ["civil-disorder-2023"]


def test_an_unknown_difference_is_left_unexplained() -> None:
    """A difference no class knows (the package keeps a unit we moved) stays unexplained."""
    rules = Rules.parse_edition("2000")
    doc = {
        "phase": "S1901M",
        "units": {"France": ["A PAR"]},
        "centers": {},
        "orders": {"France": ["A Par-Bur"]},
    }
    theirs = {
        "state": {"name": "F1901M", "units": {"FRANCE": ["A PAR"]}, "retreats": {}, "centers": {}},
        "results": {"A PAR": []},
        "errors": [],
    }
    found = phase_diff(doc, theirs, rules)
    assert found.differences == {"units": {"FRANCE": {"ours": ["A BUR"], "theirs": ["A PAR"]}}}
    assert diff_run.classify(found) == (
        [],
        {("units", "FRANCE", "A BUR"), ("units", "FRANCE", "A PAR")},
    )


def test_a_class_explains_only_its_own_items() -> None:
    """Another difference in the same phase as a known one is still reported."""
    rules = Rules.parse_edition("2000")
    theirs = deepcopy(ANSWERS["void-failed-convoy"])
    theirs["errors"] = ["SOMETHING ELSE"]
    cls = next(c for c in diff_run.CLASSES if c.key == "void-failed-convoy")
    found = phase_diff(cls.minimal, theirs, rules)
    assert diff_run.classify(found) == (["void-failed-convoy"], {("refused", "SOMETHING ELSE")})


def test_items_split_each_difference() -> None:
    found = {
        "phase": {"ours": "F1901M", "theirs": "S1901R"},
        "units": {"TURKEY": {"ours": ["A RUM"], "theirs": ["*F BUL/EC", "A RUM"]}},
        "retreats": {"TURKEY": {"ours": None, "theirs": {"F BUL/EC": ["BLA"]}}},
        "centers": {"FRANCE": {"ours": ["PAR", "VEN"], "theirs": ["PAR"]}},
        "support cut": {"A RUM": {"ours": True, "theirs": False}},
        "refused": ["IMPOSSIBLE CONVOY ORDER: F TYS C A TUN - SPA"],
    }
    assert diff_run.items(found) == {
        ("phase",),
        ("units", "TURKEY", "*F BUL/EC"),
        ("retreats", "TURKEY", "F BUL/EC"),
        ("centers", "FRANCE", "VEN"),
        ("support cut", "A RUM"),
        ("refused", "IMPOSSIBLE CONVOY ORDER: F TYS C A TUN - SPA"),
    }


def test_package_orders_name_the_coasts() -> None:
    """Supports of fleets on split coasts name the coast, as the package names units."""
    records = play_game(3, last_year=1903, coasts=True)
    texts = [
        text
        for record in records
        for orders in diff_run.package_phase(0, record)["orders"].values()
        for text in orders
    ]
    assert "A PRU S F STP/SC - LVN" in texts
    assert "F STP/SC S A LVN" in texts


def test_coast_games_name_coasts_in_supports() -> None:
    """``coasts=True`` games have supports of moves to a coast naming it; the default not."""

    def coast_supports(coasts: bool) -> int:
        return sum(
            isinstance(o, SupportMove) and "/" in o.destination
            for seed in (1, 2)
            for r in play_game(seed, last_year=1910, coasts=coasts)
            for os in r.orders.values()
            for o in os
        )

    assert coast_supports(False) == 0
    assert coast_supports(True) > 10


def test_coast_games_are_deterministic() -> None:
    a = play_game(5, last_year=1904, coasts=True, missed_removals=0.5)
    b = play_game(5, last_year=1904, coasts=True, missed_removals=0.5)
    assert [(r.phase, r.texts) for r in a] == [(r.phase, r.texts) for r in b]
