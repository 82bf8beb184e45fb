"""``judge.engine.document``: a season of the two-season year as a JSON document."""

from __future__ import annotations

from typing import Any

import pytest

from judge.engine import CivilDisorder, Rules
from judge.engine.document import DocumentError, adjudicate_document, is_season_document

#: Germany's A Mun is dislodged; A Kie stands.
SPRING: dict[str, Any] = {
    "phase": "S1901M",
    "units": {"France": ["A BUR", "A TYR"], "Germany": ["A MUN", "A KIE"]},
    "centers": {"France": ["PAR", "BRE", "MAR"], "Germany": ["BER", "KIE", "MUN"]},
    "orders": {"France": ["A Bur-Mun", "A Tyr S A Bur-Mun"]},
}


def test_a_season_document_gives_every_step_the_notes_and_the_final_position() -> None:
    doc = {
        **SPRING,
        "retreats": {"germany": ["IF French A Mun", "A Mun-Boh", "ELSE", "A Mun-Ber", "ENDIF"]},
    }
    out = adjudicate_document(doc)
    assert list(out) == [
        "phase",
        "units",
        "dislodged",
        "centers",
        "steps",
        "notes",
        "winner",
    ]
    assert out["phase"] == "F1901M"
    assert out["units"] == {"France": ["A MUN", "A TYR"], "Germany": ["A BOH", "A KIE"]}
    assert [step["phase"] for step in out["steps"]] == ["S1901M", "S1901R"]
    assert out["steps"][1] == {
        "phase": "S1901R",
        "results": [
            {
                "power": "Germany",
                "order": "A MUN-BOH",
                "text": "Army Munich -> Bohemia",
                "result": "success",
                "notes": [],
                "default": False,
            }
        ],
        "rejected": [],
        "destroyed": [],
        "skipped": [],
    }
    assert out["notes"] == {
        "Germany": [
            "Retreats for Spring 1901, decided after the moves:",
            "  IF French A Mun  <- taken",
            "    A Mun-Boh",
            "  ELSE",
            "    A Mun-Ber",
            "  ENDIF",
            "Taken: A Mun-Boh",
        ]
    }
    assert out["winner"] is None


def test_season_true_plays_a_season_without_orders_given_ahead() -> None:
    out = adjudicate_document({**SPRING, "season": True})
    assert [step["phase"] for step in out["steps"]] == ["S1901M", "S1901R"]
    assert out["steps"][1]["results"][0]["order"] == "A MUN D"
    assert out["notes"] == {}


def test_a_document_without_the_season_keys_is_one_phase_as_before() -> None:
    out = adjudicate_document(SPRING)
    assert "steps" not in out
    assert out["phase"] == "S1901R"
    assert is_season_document(SPRING) is False
    assert is_season_document({**SPRING, "season": False}) is False
    assert is_season_document({**SPRING, "adjustments": {}}) is True


def test_a_season_removes_by_house_rule_3_5_unless_the_document_says_otherwise() -> None:
    # Germany owes one removal: the house rule removes A Gas (farther from a home
    # centre), the edition's A Boh (farther from Spain, its one owned centre).
    doc = {
        "phase": "F1901M",
        "units": {"Germany": ["A GAS", "A BOH"]},
        "centers": {"Germany": ["SPA"]},
        "season": True,
    }

    def removed(document: dict[str, Any], rules: Rules | None = None) -> str:
        out = adjudicate_document(document, rules)
        return str(out["steps"][-1]["results"][0]["order"])

    assert removed(doc) == "REMOVE A GAS"
    assert removed({**doc, "civil_disorder": "edition"}) == "REMOVE A BOH"
    assert removed({**doc, "civil_disorder": "house"}, Rules()) == "REMOVE A GAS"
    # One phase keeps the rules given unless the document names one.
    winter = {"phase": "W1901A", "units": doc["units"], "centers": doc["centers"]}
    assert adjudicate_document(winter)["results"][0]["order"] == "REMOVE A BOH"
    house = Rules(civil_disorder=CivilDisorder.HOUSE)
    assert adjudicate_document(winter, house)["results"][0]["order"] == "REMOVE A GAS"


def test_retreat_priority_may_be_set_by_the_document() -> None:
    doc = {
        "phase": "S1901M",
        "units": {
            "France": ["A BUR", "A RUH"],
            "Russia": ["A WAR", "A PRU"],
            "Germany": ["A MUN", "A SIL"],
        },
        "orders": {
            "France": ["A Bur-Mun", "A Ruh S A Bur-Mun"],
            "Russia": ["A War-Sil", "A Pru S A War-Sil"],
        },
        "retreats": {"Germany": ["A Sil-Boh", "A Mun-Boh"]},
    }
    assert "Germany" not in adjudicate_document(doc)["units"]
    assert adjudicate_document({**doc, "retreat_priority": True})["units"]["Germany"] == ["A BOH"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"season": "yes"}, "'season' must be true or false, got 'yes'"),
        ({"retreats": ["A Mun-Boh"]}, "'retreats' must be an object mapping powers to lists"),
        ({"retreats": {"Narnia": []}}, "retreats.Narnia: 'Narnia' is not a power"),
        ({"adjustments": {"France": "Build A Par"}}, "adjustments.France: expected a list"),
        (
            {"adjustments": {"France": [["Build A Par"]]}},
            "adjustments.France: order lines are strings, got ['Build A Par']",
        ),
        (
            {"retreats": {"Germany": ["A Mun-Boh", "ELSE"]}},
            "retreats.Germany: line 2: 'ELSE' without IF",
        ),
        (
            {"retreats": {"Germany": ["IF Xyz", "A Mun-Boh", "ENDIF"]}},
            "retreats.Germany: line 1: 'IF Xyz': 'Xyz' is not a place on the map",
        ),
        ({"retreat_priority": 1}, "'retreat_priority' must be true or false, got 1"),
        (
            {"civil_disorder": "harsh"},
            "'civil_disorder' must be one of 'edition', 'house', got 'harsh'",
        ),
        (
            {"phase": "S1901R", "season": True},
            "'phase': a season starts with its moves; S1901R is not a movement phase",
        ),
    ],
)
def test_a_bad_season_document_names_the_key(change: dict[str, Any], message: str) -> None:
    with pytest.raises(DocumentError) as caught:
        adjudicate_document({**SPRING, **change})
    assert str(caught.value).startswith(message)
