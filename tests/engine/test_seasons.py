"""The two-season year (house rules 3.1-3.5): a season's moves, then its retreats and
(Autumn) adjustments from the orders given ahead, at one deadline."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from support.enginekit import MAP, pos

from judge.engine import CivilDisorder, PhaseKind, Position, Rules
from judge.engine.adjudicator import Adjudication
from judge.engine.conditional import Item, parse_blocks
from judge.engine.seasons import SeasonOutcome, adjudicate_season

RETREAT, ADJUSTMENT = PhaseKind.RETREAT, PhaseKind.ADJUSTMENT
HOUSE = Rules(civil_disorder=CivilDisorder.HOUSE)

#: Home centres of France and Germany only, so no other power owes anything.
CENTRES = {
    "par": "France",
    "bre": "France",
    "mar": "France",
    "ber": "Germany",
    "kie": "Germany",
    "mun": "Germany",
}


def blocks(*lines: str) -> list[Item]:
    """Order lines and IF blocks as a player writes them."""
    return parse_blocks(lines, MAP)


def units(position: Position) -> list[str]:
    """Every unit standing, as ``Power T loc``, sorted."""
    return sorted(f"{u.power} {u.type.value} {u.location}" for u in position.units.values())


def played(outcome: SeasonOutcome) -> list[str]:
    """The phases the season played, in order."""
    return [step.before.phase.code for step in outcome.steps]


def step_results(step: Adjudication) -> list[tuple[str, str, bool, bool]]:
    """A retreat or adjustment step's results: power, order, success, default."""
    from judge.engine.notation import format_order

    return [
        (r.power, format_order(r.order, MAP, short=True), r.success, r.default)
        for r in step.results
    ]


def refusals(step: Adjudication) -> list[tuple[str | None, str, str, str]]:
    return [(r.power, r.text, r.code, r.message) for r in step.rejected]


# -- Spring: retreats given ahead ---------------------------------------------------------

#: France takes Munich with support; Germany's A Kie stands by.
SPRING = pos(
    "S1901M",
    [
        ("France", "A", "bur"),
        ("France", "A", "tyr"),
        ("Germany", "A", "mun"),
        ("Germany", "A", "kie"),
    ],
    CENTRES,
)
SPRING_MOVES = {"France": ["A Bur-Mun", "A Tyr S A Bur-Mun"], "Germany": ["A Mun H", "A Kie H"]}


def test_a_dislodged_unit_retreats_by_its_spring_order_and_others_are_not_used() -> None:
    ahead: dict[PhaseKind, dict[str, Sequence[Item]]] = {
        RETREAT: {
            # Decided after the moves: the French army stands in Munich by then, not before.
            "Germany": blocks(
                "IF French A Mun", "A Mun-Boh", "ELSE", "A Mun-Ber", "ENDIF", "A Kie-Den"
            )
        }
    }
    out = adjudicate_season(SPRING, SPRING_MOVES, ahead, HOUSE)
    assert played(out) == ["S1901M", "S1901R"]
    assert step_results(out.steps[1]) == [("Germany", "A mun-boh", True, False)]
    assert out.steps[1].rejected == ()
    assert out.position.phase.code == "F1901M"
    assert units(out.position) == [
        "France A mun",
        "France A tyr",
        "Germany A boh",
        "Germany A kie",
    ]
    assert out.notes == {
        "Germany": (
            "Retreats for Spring 1901, decided after the moves:",
            "  IF French A Mun  <- taken",
            "    A Mun-Boh",
            "  ELSE",
            "    A Mun-Ber",
            "  ENDIF",
            "  A Kie-Den",
            "Taken: A Mun-Boh",
            "Not used: A Kie-Den: the army in Kiel was not dislodged",
        )
    }


def test_a_dislodged_unit_without_a_retreat_order_is_disbanded() -> None:
    out = adjudicate_season(SPRING, SPRING_MOVES, {}, HOUSE)
    assert played(out) == ["S1901M", "S1901R"]
    assert step_results(out.steps[1]) == [("Germany", "A mun D", True, True)]
    assert units(out.position) == ["France A mun", "France A tyr", "Germany A kie"]
    assert out.notes == {}


def test_a_retreat_for_a_unit_that_moved_away_is_not_used() -> None:
    moves = {
        "France": ["A Bur-Mun", "A Tyr S A Bur-Mun"],
        "Germany": ["A Mun H", "A Kie-Hol"],
    }
    ahead = {RETREAT: {"Germany": blocks("A Kie-Den", "A Mun-Sil")}}
    out = adjudicate_season(SPRING, moves, ahead, HOUSE)
    assert step_results(out.steps[1]) == [("Germany", "A mun-sil", True, False)]
    assert out.notes["Germany"][-2:] == (
        "Not used: A Kie-Den: the army that was in Kiel moved away and was not dislodged",
        "Taken: A Mun-Sil",
    )


def test_a_retreat_the_rules_forbid_is_refused_with_the_engines_reason() -> None:
    ahead = {RETREAT: {"Germany": blocks("A Mun-Bur")}}
    out = adjudicate_season(SPRING, SPRING_MOVES, ahead, HOUSE)
    (refusal,) = refusals(out.steps[1])
    assert refusal[:3] == ("Germany", "A Mun-Bur", "MBE")
    assert step_results(out.steps[1]) == [("Germany", "A mun D", True, True)]
    assert out.notes["Germany"][-1] == f"Refused: {refusal[3]}"


def test_a_spring_without_dislodgement_is_one_step_and_says_what_was_not_used() -> None:
    ahead = {
        RETREAT: {"Germany": blocks("A Mun-Boh")},
        ADJUSTMENT: {"France": blocks("Build A Par")},
    }
    out = adjudicate_season(SPRING, {"France": ["A Bur-Mun"]}, ahead, HOUSE)
    assert played(out) == ["S1901M"]
    assert out.position.phase.code == "F1901M"
    assert units(out.position) == [
        "France A bur",
        "France A tyr",
        "Germany A kie",
        "Germany A mun",
    ]
    assert out.notes == {
        "France": (
            "Builds and removals for Winter 1901:",
            "  Build A Par",
            "Not used: builds and removals come after the Autumn moves, not in Spring",
        ),
        "Germany": (
            "Retreats for Spring 1901:",
            "  A Mun-Boh",
            "Not used: no unit had a retreat to make this season",
        ),
    }


# -- retreat priority (house rule 3.2) ----------------------------------------------------

#: France dislodges Germany's A Mun, Russia its A Sil; both may retreat to Bohemia.
CROWDED = pos(
    "S1901M",
    [
        ("France", "A", "bur"),
        ("France", "A", "ruh"),
        ("Russia", "A", "war"),
        ("Russia", "A", "pru"),
        ("Germany", "A", "mun"),
        ("Germany", "A", "sil"),
    ],
    CENTRES,
)
CROWDED_MOVES = {
    "France": ["A Bur-Mun", "A Ruh S A Bur-Mun"],
    "Russia": ["A War-Sil", "A Pru S A War-Sil"],
}
CROWDED_AHEAD = {RETREAT: {"Germany": blocks("A Sil-Boh", "A Mun-Boh")}}


def test_with_retreat_priority_the_first_retreat_listed_wins() -> None:
    rules = Rules(civil_disorder=CivilDisorder.HOUSE, retreat_priority=True)
    out = adjudicate_season(CROWDED, CROWDED_MOVES, CROWDED_AHEAD, rules)
    assert step_results(out.steps[1]) == [
        ("Germany", "A mun-boh", False, False),
        ("Germany", "A sil-boh", True, False),
    ]
    assert "Germany A boh" in units(out.position)
    assert "Germany A sil" not in units(out.position)


def test_without_retreat_priority_both_retreats_bounce_and_are_disbanded() -> None:
    out = adjudicate_season(CROWDED, CROWDED_MOVES, CROWDED_AHEAD, HOUSE)
    assert step_results(out.steps[1]) == [
        ("Germany", "A mun-boh", False, False),
        ("Germany", "A sil-boh", False, False),
    ]
    assert [u for u in units(out.position) if u.startswith("Germany")] == []


# -- Autumn: retreats, then conditional builds and removals -------------------------------

#: France takes Munich (with support) and Belgium; Germany's A Ber goes to Silesia.
AUTUMN = pos(
    "F1901M",
    [
        ("France", "A", "bur"),
        ("France", "A", "ruh"),
        ("France", "A", "pic"),
        ("Germany", "A", "mun"),
        ("Germany", "A", "ber"),
        ("Germany", "F", "kie"),
    ],
    CENTRES,
)
AUTUMN_MOVES = {
    "France": ["A Bur-Mun", "A Ruh S A Bur-Mun", "A Pic-Bel"],
    "Germany": ["A Mun H", "A Ber-Sil", "F Kie H"],
}


def test_an_autumn_plays_moves_retreats_and_conditional_adjustments() -> None:
    ahead = {
        RETREAT: {"Germany": blocks("A Mun-Boh", "F Kie-Hol")},
        ADJUSTMENT: {
            "France": blocks(
                # Holds once the Autumn's centres change hands.
                "IF Bel OWNED BY France",
                "Build A Par",
                "ENDIF",
                # Holds only after the retreats: Bohemia is empty after the moves.
                "IF German A Boh",
                "Build F Bre",
                "ENDIF",
                "IF Hol OWNED BY France",
                "Build A Mar",
                "ENDIF",
            ),
            # House rule 3.4: the army that was in Berlin, now in Silesia.
            "Germany": blocks("Remove A(Ber)"),
        },
    }
    out = adjudicate_season(AUTUMN, AUTUMN_MOVES, ahead, HOUSE)
    assert played(out) == ["F1901M", "F1901R", "W1901A"]
    assert step_results(out.steps[1]) == [("Germany", "A mun-boh", True, False)]
    assert step_results(out.steps[2]) == [
        ("France", "Build F bre", True, False),
        ("France", "Build A par", True, False),
        ("Germany", "Remove A sil", True, False),
    ]
    assert out.steps[2].rejected == ()
    assert out.position.phase.code == "S1902M"
    assert units(out.position) == [
        "France A bel",
        "France A mun",
        "France A par",
        "France A ruh",
        "France F bre",
        "Germany A boh",
        "Germany F kie",
    ]
    assert out.notes == {
        "France": (
            "Builds and removals for Winter 1901, decided after the moves and retreats:",
            "  IF Bel OWNED BY France  <- taken",
            "    Build A Par",
            "  ENDIF",
            "  IF German A Boh  <- taken",
            "    Build F Bre",
            "  ENDIF",
            "  IF Hol OWNED BY France",
            "    Build A Mar",
            "  ENDIF  <- no branch taken",
            "Taken: Build A Par",
            "Taken: Build F Bre",
        ),
        "Germany": (
            "Retreats for Fall 1901, decided after the moves:",
            "  A Mun-Boh",
            "  F Kie-Hol",
            "Taken: A Mun-Boh",
            "Not used: F Kie-Hol: the fleet in Kiel was not dislodged",
            "",
            "Builds and removals for Winter 1901, decided after the moves and retreats:",
            "  Remove A(Ber)",
            "House rule 3.4: Remove A(Ber) means the army that was in Berlin at the start of"
            " the season, now in Silesia: read as Remove A Sil",
            "Taken: Remove A(Ber)",
        ),
    }


@pytest.mark.parametrize("written", ["Remove A Ber", "A Ber Remove", "Disband A Ber", "A Ber"])
def test_every_form_of_a_removal_is_read_by_house_rule_3_4(written: str) -> None:
    ahead = {RETREAT: {"Germany": blocks("A Mun-Boh")}, ADJUSTMENT: {"Germany": blocks(written)}}
    out = adjudicate_season(AUTUMN, AUTUMN_MOVES, ahead, HOUSE)
    assert ("Germany", "Remove A sil", True, False) in step_results(out.steps[2])
    assert out.notes["Germany"][-2:] == (
        f"House rule 3.4: {written} means the army that was in Berlin at the start of the"
        " season, now in Silesia: read as Remove A Sil",
        f"Taken: {written}",
    )


def test_a_removal_of_a_place_empty_at_the_start_removes_the_unit_there_now() -> None:
    # No German army stood in Bohemia when the season began; the one that retreated there
    # is removed (house rule 3.4, its second half).
    ahead = {
        RETREAT: {"Germany": blocks("A Mun-Boh")},
        ADJUSTMENT: {"Germany": blocks("Remove A Boh")},
    }
    out = adjudicate_season(AUTUMN, AUTUMN_MOVES, ahead, HOUSE)
    assert step_results(out.steps[2])[-1] == ("Germany", "Remove A boh", True, False)
    assert [u for u in units(out.position) if u.startswith("Germany")] == [
        "Germany A sil",
        "Germany F kie",
    ]
    assert out.notes["Germany"][-2:] == ("  Remove A Boh", "Taken: Remove A Boh")


def test_a_removal_of_a_unit_gone_this_season_is_refused_and_civil_disorder_removes() -> None:
    # A Mun is disbanded (no retreat given), so "Remove A Mun" names no unit; Germany
    # still owes a removal (A Pru, A Sil, F Kie on two centres): house rule 3.5 picks it.
    start = pos(
        "F1901M",
        [
            ("France", "A", "bur"),
            ("France", "A", "ruh"),
            ("Germany", "A", "mun"),
            ("Germany", "A", "ber"),
            ("Germany", "A", "pru"),
            ("Germany", "F", "kie"),
        ],
        CENTRES,
    )
    moves = {"France": ["A Bur-Mun", "A Ruh S A Bur-Mun"], "Germany": ["A Ber-Sil"]}
    ahead = {ADJUSTMENT: {"Germany": blocks("Remove A Mun")}}
    out = adjudicate_season(start, moves, ahead, HOUSE)
    assert played(out) == ["F1901M", "F1901R", "W1901A"]
    message = (
        "Remove A Mun: the army that was in Munich at the start of the season is no longer on"
        " the board, so there is no unit to remove (house rule 3.4)"
    )
    assert refusals(out.steps[2]) == [("Germany", "Remove A Mun", "NSU", message)]
    germany = [r for r in step_results(out.steps[2]) if r[0] == "Germany"]
    assert germany == [("Germany", "Remove A pru", True, True)]
    assert out.notes["Germany"][-1] == f"Refused: {message}"


#: Germany owes one removal: A Gas and A Boh on the one centre of Spain.  The edition's
#: rule measures to the nearest owned centre (Spain: Boh is farther); house rule 3.5 to
#: the nearest home centre (Munich: Gas is farther).
OWING = pos(
    "F1901M",
    [("Germany", "A", "gas"), ("Germany", "A", "boh")],
    {"spa": "Germany"},
)


@pytest.mark.parametrize(
    ("rule", "removed"),
    [(CivilDisorder.HOUSE, "Remove A gas"), (CivilDisorder.EDITION, "Remove A boh")],
)
def test_removals_not_ordered_follow_the_civil_disorder_rule(
    rule: CivilDisorder, removed: str
) -> None:
    out = adjudicate_season(OWING, {}, {}, Rules(civil_disorder=rule))
    assert played(out) == ["F1901M", "W1901A"]
    assert step_results(out.steps[1]) == [("Germany", removed, True, True)]


def test_a_build_owed_but_not_ordered_is_not_made() -> None:
    # France is owed two builds (Munich and Belgium) and orders one.
    ahead = {ADJUSTMENT: {"France": blocks("Build A Par")}}
    out = adjudicate_season(AUTUMN, AUTUMN_MOVES, ahead, HOUSE)
    assert [r for r in step_results(out.steps[2]) if r[0] == "France"] == [
        ("France", "Waive", True, True),
        ("France", "Build A par", True, False),
    ]
    assert sorted(u for u in units(out.position) if u.startswith("France")) == [
        "France A bel",
        "France A mun",
        "France A par",
        "France A ruh",
    ]


def test_adjustments_not_owed_are_not_used_rather_than_refused() -> None:
    # France is owed two builds: a removal, and a third build, are not needed.
    ahead = {
        ADJUSTMENT: {
            "France": blocks("Remove A Ruh", "Build A Par", "Build F Bre", "Build A Mar"),
            "Germany": blocks("Build A Ber"),
        }
    }
    out = adjudicate_season(AUTUMN, AUTUMN_MOVES, ahead, HOUSE)
    assert out.steps[2].rejected == ()
    assert out.notes["France"][-4:] == (
        "Not used: Remove A Ruh: France was owed 2 builds, not removals",
        "Taken: Build A Par",
        "Taken: Build F Bre",
        "Not used: Build A Mar: France was owed 2 builds, already ordered above",
    )
    # Germany (A Mun disbanded: Ber, Kie and A Sil, F Kie) owes nothing.
    assert out.notes["Germany"][-1] == (
        "Not used: Build A Ber: Germany had as many units as supply centres: no builds or removals"
    )


def test_of_two_same_builds_the_second_is_the_one_refused() -> None:
    ahead = {ADJUSTMENT: {"France": blocks("Build A Par", "Build A Par")}}
    out = adjudicate_season(AUTUMN, AUTUMN_MOVES, ahead, HOUSE)
    assert out.notes["France"][-2:] == (
        "Taken: Build A Par",
        "Refused: Build A Par: a unit is already being built in Paris",
    )


@pytest.mark.parametrize(
    ("centres", "why"),
    [
        (
            {"par": "France", "bre": "France", "mar": "France"},
            "France had as many units as supply centres: no builds or removals",
        ),
        (
            {"par": "France", "bre": "France", "mar": "France", "bel": "France"},
            "France was owed 1 build but had no free home centre to build in",
        ),
    ],
)
def test_adjustments_given_when_no_power_has_any_to_make_are_not_used(
    centres: dict[str, str], why: str
) -> None:
    start = pos(
        "F1901M", [("France", "A", "par"), ("France", "A", "bre"), ("France", "A", "mar")], centres
    )
    ahead = {ADJUSTMENT: {"France": blocks("IF Bel OWNED", "Build A Mar", "ENDIF")}}
    out = adjudicate_season(start, {}, ahead, HOUSE)
    assert played(out) == ["F1901M"]
    assert out.position.phase.code == "S1902M"
    assert out.notes == {
        "France": (
            "Builds and removals for Winter 1901:",
            "  IF Bel OWNED",
            "    Build A Mar",
            "  ENDIF",
            f"Not used: {why}",
        )
    }


# -- the caller's mistakes ----------------------------------------------------------------


def test_a_season_starts_with_its_moves() -> None:
    with pytest.raises(ValueError, match="S1901R is not a movement phase"):
        adjudicate_season(pos("S1901R", [], CENTRES), {}, {})


def test_ahead_holds_retreats_and_adjustments_only() -> None:
    with pytest.raises(ValueError, match="not Movement"):
        adjudicate_season(SPRING, {}, {PhaseKind.MOVEMENT: {"France": blocks("A Bur H")}})
    with pytest.raises(ValueError, match="'Narnia' is not a power"):
        adjudicate_season(SPRING, {}, {RETREAT: {"Narnia": blocks("A Bur H")}})


def test_lines_that_are_no_orders_or_name_another_powers_unit_are_refused_one_by_one() -> None:
    ahead = {
        RETREAT: {
            "Germany": blocks("A Mun-Xyz, A Kie-Den", "A Mun-Boh"),
            "France": blocks("A Mun-Sil"),
        }
    }
    out = adjudicate_season(SPRING, SPRING_MOVES, ahead, HOUSE)
    assert [r[:3] for r in refusals(out.steps[1])] == [
        ("Germany", "A Mun-Xyz", "SYNTAX"),
        ("France", "A Mun-Sil", "NYU"),
    ]
    assert step_results(out.steps[1]) == [("Germany", "A mun-boh", True, False)]
    germany, france = out.notes["Germany"], out.notes["France"]
    assert germany[-3:] == (
        "Refused: 'A Mun-Xyz': 'Xyz' is not a province name on this map",
        "Not used: A Kie-Den: the army in Kiel was not dislodged",
        "Taken: A Mun-Boh",
    )
    assert france[-1] == f"Refused: {refusals(out.steps[1])[1][3]}"


def test_when_the_game_is_won_the_adjustments_are_not_played() -> None:
    # France reaches five centres (Munich and Belgium) at the end of the Autumn.
    rules = Rules(civil_disorder=CivilDisorder.HOUSE, victory_centres=5)
    ahead = {
        RETREAT: {"Germany": blocks("A Mun-Boh")},
        ADJUSTMENT: {"France": blocks("Build A Par")},
    }
    out = adjudicate_season(AUTUMN, AUTUMN_MOVES, ahead, rules)
    assert played(out) == ["F1901M", "F1901R"]
    assert out.winner == "France"
    assert out.notes["France"] == (
        "Builds and removals for Winter 1901:",
        "  Build A Par",
        "Not used: the game was won by France",
    )


def test_a_power_named_twice_keeps_all_its_lines_in_order() -> None:
    ahead = {RETREAT: {"germany": blocks("A Kie-Den"), "Germany": blocks("A Mun-Boh")}}
    out = adjudicate_season(SPRING, SPRING_MOVES, ahead, HOUSE)
    assert step_results(out.steps[1]) == [("Germany", "A mun-boh", True, False)]
    assert out.notes["Germany"][1:3] == ("  A Kie-Den", "  A Mun-Boh")
