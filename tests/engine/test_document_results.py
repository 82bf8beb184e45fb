"""``judge.engine.document.results_from_document``: the results part of an adjudication
document read back into engine values (the map picture of a past phase is drawn from
them), the inverse of ``adjudication_to_document``."""

from __future__ import annotations

import pytest
from support import TESTS

from judge.datc import parse_cases, starting_position
from judge.engine import Position, Rules, standard_map
from judge.engine.adjudicator import adjudicate
from judge.engine.document import DocumentError, adjudication_to_document, results_from_document
from judge.engine.orders import Build, Convoy, Disband, Hold, Move, Remove, Retreat, Waive
from judge.engine.phases import PhaseKind
from judge.engine.results import Note, OrderResult, Reason
from judge.engine.units import ARMY, FLEET

CASES = parse_cases((TESTS / "datc" / "datc_2023.txt").read_text(encoding="utf-8"))


def test_every_datc_case_s_results_read_back_as_they_were() -> None:
    game_map = standard_map()
    kinds: set[str] = set()
    for case in CASES:
        out = adjudicate(
            starting_position(case, game_map), [(p, t) for p, t, _c in case.orders], Rules()
        )
        doc = adjudication_to_document(out)
        assert results_from_document(doc["results"], case.phase.kind, game_map) == out.results
        kinds.update(type(r.order).__name__ for r in out.results)
    # The cases hold every kind of order the picture draws.
    assert kinds >= {
        "Hold", "Move", "SupportHold", "SupportMove", "Convoy", "Retreat", "Disband", "Build",
        "Remove", "Waive",
    }  # fmt: skip


def test_a_convoyed_move_a_culprit_on_a_coast_and_a_default_order_read_back() -> None:
    doc = [
        {"power": "England", "order": "A LON-BEL VIA CONVOY", "result": "success", "notes": []},
        {"power": "England", "order": "F NTH C A LON-BEL", "result": "success", "notes": []},
        {
            "power": "France", "order": "F MAO-SPA/NC", "result": "failure", "default": False,
            "notes": [{"note": "bounce", "culprit": "STP/SC"}],
        },
        {"power": "Italy", "order": "A ROM H", "result": "success", "notes": [], "default": True},
    ]  # fmt: skip
    assert results_from_document(doc, PhaseKind.MOVEMENT) == (
        OrderResult("England", Move(ARMY, "lon", "bel", via_convoy=True), True),
        OrderResult("England", Convoy(FLEET, "nth", ARMY, "lon", "bel"), True),
        OrderResult(
            "France", Move(FLEET, "mao", "spa/nc"), False, (Reason(Note.BOUNCE, "stp/sc"),)
        ),
        OrderResult("Italy", Hold(ARMY, "rom"), True, (), True),
    )


def test_orders_are_read_as_the_phase_s_kind() -> None:
    retreat = [{"power": "Austria", "order": "F TRI-ALB", "result": "success", "notes": []}]
    assert results_from_document(retreat, PhaseKind.RETREAT)[0].order == Retreat(
        FLEET, "tri", "alb"
    )
    disband = [{"power": "Austria", "order": "F TRI D", "result": "success", "notes": []}]
    assert results_from_document(disband, PhaseKind.RETREAT)[0].order == Disband(FLEET, "tri")
    builds = [
        {"power": "France", "order": "BUILD A PAR", "result": "success", "notes": []},
        {"power": "France", "order": "REMOVE F BRE", "result": "success", "notes": []},
        {"power": "France", "order": "WAIVE", "result": "success", "notes": []},
    ]
    assert [r.order for r in results_from_document(builds, PhaseKind.ADJUSTMENT)] == [
        Build(ARMY, "par"), Remove(FLEET, "bre"), Waive(),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("doc", "error"),
    [
        ({"power": "England"}, "results"),
        ([{"power": "Narnia", "order": "A LON H", "result": "success"}], "results[1].power"),
        ([{"power": "England", "order": "A XYZ H", "result": "success"}], "results[1].order"),
        ([{"power": "England", "order": "A LON H", "result": "maybe"}], "results[1].result"),
        (
            [{"power": "England", "order": "A LON H", "result": "success", "notes": [{"x": 1}]}],
            "results[1].notes",
        ),
    ],
)
def test_a_malformed_results_document_is_refused_naming_the_entry(doc: object, error: str) -> None:
    with pytest.raises(DocumentError, match=rf"^{error.replace('[', '.').replace(']', '.')}"):
        results_from_document(doc, PhaseKind.MOVEMENT)


def test_the_initial_position_has_no_results() -> None:
    assert results_from_document([], Position.initial(standard_map()).phase.kind) == ()
