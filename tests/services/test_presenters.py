"""The text of results, order echoes, positions and deadlines, checked to the character.

Every Adjudication here comes from the real engine, so a change in the engine's results
that would change what players read shows up as a failing string.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from support.enginekit import MAP, pos

from judge.engine import (
    ARMY,
    FLEET,
    Adjudication,
    Dislodged,
    Move,
    Phase,
    PhaseKind,
    Position,
    Retreat,
    Rules,
    SupportMove,
    Unit,
    adjudicate,
)
from judge.presenters import (
    CentreYear,
    Ending,
    adjustment_status,
    centre_history,
    centre_history_report,
    format_deadline,
    missing_lines,
    order_lines,
    phase_heading,
    position_report,
    results_report,
)


def run(
    position: Position, orders: dict[str, list[str]], rules: Rules | None = None
) -> Adjudication:
    out = adjudicate(position, orders, rules)
    assert out.rejected == (), out.rejected  # the scenarios below are all legal orders
    return out


# -- movement ---------------------------------------------------------------------------


def test_movement_results_with_every_note_and_the_dislodged_list() -> None:
    start = pos(
        "S1902M",
        [
            ("Austria", "A", "bud"),
            ("Austria", "A", "ser"),
            ("Turkey", "A", "bul"),
            ("Russia", "A", "rum"),
            ("France", "A", "par"),
            ("Germany", "A", "mun"),
            ("Germany", "A", "ber"),
            ("England", "A", "lon"),
            ("England", "F", "nth"),
            ("France", "F", "bre"),
            ("France", "F", "mao"),
            ("England", "F", "eng"),
            ("Austria", "A", "apu"),
            ("Austria", "A", "rom"),
            ("Italy", "A", "nap"),
        ],
    )
    out = run(
        start,
        {
            "Austria": ["A Bud-Rum", "A Ser S A Bud-Rum", "A Apu-Nap", "A Rom S A Apu-Nap"],
            "Turkey": ["A Bul-Ser"],
            "Russia": ["A Rum H"],
            "France": ["A Par-Bur", "F Bre-Eng", "F Mao S F Bre-Eng"],
            "Germany": ["A Mun-Bur", "A Ber S A Mun-Sil"],
            "England": ["A Lon-Bel", "F Nth H"],
        },
    )
    assert results_report("winter01", 5, out) == (
        "Movement results for Spring of 1902.  (winter01.005)\n"
        "\n"
        "Austria: Army Apulia -> Naples.\n"
        "Austria: Army Budapest -> Rumania.  (*bounce*)\n"
        "Austria: Army Rome SUPPORT Army Apulia -> Naples.\n"
        "Austria: Army Serbia SUPPORT Army Budapest -> Rumania.  (*cut*)\n"
        "England: Fleet English Channel, No Order Processed.  (*dislodged*)\n"
        "England: Army London -> Belgium via Convoy.  (*no convoy*)\n"
        "England: Fleet North Sea HOLD.\n"
        "France: Fleet Brest -> English Channel.\n"
        "France: Fleet Mid-Atlantic Ocean SUPPORT Fleet Brest -> English Channel.\n"
        "France: Army Paris -> Burgundy.  (*bounce*)\n"
        "Germany: Army Berlin SUPPORT Army Munich -> Silesia.  (*void*)\n"
        "Germany: Army Munich -> Burgundy.  (*bounce*)\n"
        "Italy: Army Naples, No Order Processed.  (*dislodged*)\n"
        "Russia: Army Rumania HOLD.\n"
        "Turkey: Army Bulgaria -> Serbia.  (*bounce*)\n"
        "\n"
        "The following units were dislodged:\n"
        "The English Fleet in the English Channel can retreat to"
        " Belgium, Irish Sea, Picardy or Wales.\n"
        "The Italian Army in Naples with no valid retreats was destroyed."
    )


def test_disrupted_convoy_and_a_single_retreat_option() -> None:
    start = pos(
        "S1902M",
        [
            ("England", "F", "nth"),
            ("England", "A", "yor"),
            ("Germany", "F", "hel"),
            ("Germany", "F", "den"),
            ("Turkey", "F", "bla"),
            ("Turkey", "A", "arm"),
            ("Russia", "F", "sev"),
            ("Russia", "A", "ukr"),
            ("Russia", "A", "rum"),
            ("Russia", "A", "mos"),
        ],
    )
    out = run(
        start,
        {
            "England": ["F Nth C A Yor-Nwy", "A Yor-Nwy"],
            "Germany": ["F Hel-Nth", "F Den S F Hel-Nth"],
            "Turkey": ["F Bla-Sev", "A Arm S F Bla-Sev"],
        },
    )
    report = results_report("winter01", 5, out)
    assert "England: Army Yorkshire -> Norway via Convoy.  (*disrupted*)\n" in report
    assert "England: Fleet North Sea CONVOY Army Yorkshire -> Norway.  (*dislodged*)\n" in report
    assert report.endswith(
        "The following units were dislodged:\n"
        "The English Fleet in the North Sea can retreat to Belgium, Edinburgh,"
        " English Channel, Holland, London, Norway, Norwegian Sea or Skagerrak.\n"
        "The Russian Fleet in Sevastopol with no valid retreats was destroyed."
    )


def test_spring_results_have_no_ownership_table() -> None:
    out = run(Position.initial(MAP), {"France": ["A Par-Bur"]})
    report = results_report("g", 1, out)
    assert "Ownership" not in report
    assert "dislodged" not in report
    assert report.splitlines()[:3] == [
        "Movement results for Spring of 1901.  (g.001)",
        "",
        "Austria: Army Budapest, No Order Processed.",
    ]


# -- retreats ---------------------------------------------------------------------------


def test_retreat_results_with_a_bounce_and_the_fall_ownership_table() -> None:
    start = pos(
        "F1901R",
        [
            ("Italy", "A", "tri"),
            ("Italy", "F", "ion"),
            ("Austria", "A", "gal"),
            ("Germany", "A", "tyr"),
        ],
        dislodged=[
            Dislodged(Unit("Austria", FLEET, "tri"), "ven", ("adr", "alb")),
            Dislodged(Unit("Turkey", FLEET, "gre"), "ion", ("alb", "bul/sc")),
            Dislodged(Unit("Russia", ARMY, "war"), "gal", ("mos", "pru")),
            Dislodged(Unit("Germany", ARMY, "mun"), "tyr", ("kie", "ruh")),
        ],
    )
    out = run(start, {"Austria": ["F Tri-Alb"], "Turkey": ["F Gre-Alb"], "Germany": ["A Mun-Kie"]})
    assert str(out.position.phase) == "W1901A"
    assert results_report("winter01", 3, out) == (
        "Retreat results for Fall of 1901.  (winter01.003)\n"
        "\n"
        "Austria: Fleet Trieste -> Albania.  (*bounce, destroyed*)\n"
        "Germany: Army Munich -> Kiel.\n"
        "Russia: Army Warsaw DISBAND.  (*no order*)\n"
        "Turkey: Fleet Greece -> Albania.  (*bounce, destroyed*)\n"
        "\n"
        "Ownership of supply centers:\n"
        "\n"
        "Austria:   Budapest, Vienna.\n"
        "England:   Edinburgh, Liverpool, London.\n"
        "France:    Brest, Marseilles, Paris.\n"
        "Germany:   Berlin, Kiel, Munich.\n"
        "Italy:     Naples, Rome, Trieste, Venice.\n"
        "Russia:    Moscow, Sevastopol, St Petersburg, Warsaw.\n"
        "Turkey:    Ankara, Constantinople, Smyrna.\n"
        "Unowned:   Belgium, Bulgaria, Denmark, Greece, Holland, Norway, Portugal,\n"
        "           Rumania, Serbia, Spain, Sweden, Tunis.\n"
        "\n"
        "Austria:   2 Supply centers,  1 Units:  Builds   1 unit.\n"
        "England:   3 Supply centers,  0 Units:  Builds   3 units.\n"
        "France:    3 Supply centers,  0 Units:  Builds   3 units.\n"
        "Germany:   3 Supply centers,  2 Units:  Builds   1 unit.\n"
        "Italy:     4 Supply centers,  2 Units:  Builds   2 units.\n"
        "Russia:    4 Supply centers,  0 Units:  Builds   4 units.\n"
        "Turkey:    3 Supply centers,  0 Units:  Builds   3 units."
    )


def test_spring_retreats_have_no_ownership_table() -> None:
    start = pos(
        "S1901R",
        [("Italy", "A", "tri")],
        dislodged=[Dislodged(Unit("Austria", FLEET, "tri"), "ven", ("adr", "alb"))],
    )
    out = run(start, {"Austria": ["F Tri-Adr"]})
    assert results_report("g", 2, out) == (
        "Retreat results for Spring of 1901.  (g.002)\n\nAustria: Fleet Trieste -> Adriatic Sea."
    )


# -- Fall movement: ownership, removals and a winner -------------------------------------


def test_fall_movement_table_counts_removals_and_names_the_winner() -> None:
    centres = {
        "ber": "Germany",
        "kie": "Germany",
        "mun": "Germany",
        "hol": "Germany",
        "war": "Russia",
        "mos": "Russia",
    }
    start = pos(
        "F1901M",
        [
            ("Germany", "A", "ruh"),
            ("Germany", "A", "bur"),
            ("Russia", "A", "war"),
            ("Russia", "A", "lvn"),
            ("Russia", "A", "ukr"),
        ],
        centres,
    )
    out = run(start, {"Germany": ["A Ruh-Bel", "A Bur S A Ruh-Bel"]}, Rules(victory_centres=5))
    assert out.winner == "Germany"
    report = results_report("g", 2, out)
    assert report.endswith(
        "Ownership of supply centers:\n"
        "\n"
        "Germany:   Belgium, Berlin, Holland, Kiel, Munich.\n"
        "Russia:    Moscow, Warsaw.\n"
        "Unowned:   Ankara, Brest, Budapest, Bulgaria, Constantinople, Denmark,\n"
        "           Edinburgh, Greece, Liverpool, London, Marseilles, Naples, Norway,\n"
        "           Paris, Portugal, Rome, Rumania, Serbia, Sevastopol, Smyrna, Spain,\n"
        "           St Petersburg, Sweden, Trieste, Tunis, Venice, Vienna.\n"
        "\n"
        "Germany:   5 Supply centers,  2 Units:  Builds   3 units.\n"
        "Russia:    2 Supply centers,  3 Units:  Removes   1 unit.\n"
        "\n"
        "Germany has won the game with 5 supply centers."
    )
    assert all(len(line) <= 78 for line in report.splitlines())


def test_fall_movement_with_dislodgements_waits_for_the_retreats() -> None:
    start = pos(
        "F1901M",
        [("Italy", "A", "ven"), ("Italy", "A", "tyr"), ("Austria", "F", "tri")],
    )
    out = run(start, {"Italy": ["A Ven-Tri", "A Tyr S A Ven-Tri"]})
    assert str(out.position.phase) == "F1901R"
    assert "Ownership" not in results_report("g", 2, out)


# -- adjustments -------------------------------------------------------------------------


def test_adjustment_results_builds_removals_waive_and_civil_disorder() -> None:
    start = pos(
        "W1901A",
        [
            ("England", "F", "nth"),
            ("Austria", "F", "gre"),
            ("Austria", "A", "ser"),
            ("Austria", "A", "bud"),
            ("Russia", "A", "war"),
            ("Russia", "F", "sev"),
            ("Russia", "A", "ukr"),
            ("Russia", "F", "bla"),
            ("France", "A", "par"),
        ],
        {
            "lon": "England",
            "edi": "England",
            "lvp": "England",
            "bud": "Austria",
            "vie": "Austria",
            "war": "Russia",
            "mos": "Russia",
            "sev": "Russia",
            "par": "France",
            "bre": "France",
            "mar": "France",
        },
    )
    out = run(
        start,
        {
            "England": ["Build A Lon", "Build F Edi"],
            "Russia": ["Remove F Bla"],
            "France": ["Build A Mar", "Waive"],
        },
    )
    assert results_report("winter01", 4, out) == (
        "Adjustment results for Winter of 1901.  (winter01.004)\n"
        "\n"
        "Austria:   Removes the fleet in Greece (civil disorder).\n"
        "England:   Builds a fleet in Edinburgh.\n"
        "England:   Builds an army in London.\n"
        "France:    Builds an army in Marseilles.\n"
        "France:    Build waived.\n"
        "Russia:    Removes the fleet in the Black Sea."
    )


def test_a_build_on_a_split_coast_names_the_coast() -> None:
    start = pos("W1901A", [], {"stp": "Russia"})
    out = run(start, {"Russia": ["Build F StP/NC"]})
    assert results_report("g", 4, out).endswith(
        "Russia:    Builds a fleet in St Petersburg (north coast)."
    )


# -- confirmations -----------------------------------------------------------------------


def test_phase_heading() -> None:
    assert phase_heading("Retreat", Phase.parse("F1903R"), "game", 11) == (
        "Retreat orders for Fall of 1903.  (game.011)"
    )


def test_order_lines_are_long_form_sorted_by_province_name() -> None:
    orders = [
        Move(ARMY, "par", "bur"),
        SupportMove(FLEET, "bre", ARMY, "par", "bur"),
        Move(FLEET, "stp/sc", "bot"),
    ]
    assert order_lines("France", orders, MAP) == [
        "France: Fleet Brest SUPPORT Army Paris -> Burgundy.",
        "France: Army Paris -> Burgundy.",
        "France: Fleet St Petersburg (south coast) -> Gulf of Bothnia.",
    ]
    retreat = [Retreat(FLEET, "tri", "alb")]
    assert order_lines("Austria", retreat, MAP) == ["Austria: Fleet Trieste -> Albania."]


def test_missing_lines_by_phase_kind() -> None:
    units = [Unit("France", ARMY, "mar"), Unit("France", FLEET, "bre")]
    assert missing_lines("France", units, MAP, PhaseKind.MOVEMENT) == [
        "France: Fleet Brest, No Order Processed.",
        "France: Army Marseilles, No Order Processed.",
    ]
    assert missing_lines("France", units[:1], MAP, PhaseKind.RETREAT) == [
        "France: Army Marseilles, no retreat ordered (it will be disbanded).",
    ]
    with pytest.raises(ValueError, match="adjustment_status"):
        missing_lines("France", units, MAP, PhaseKind.ADJUSTMENT)


def test_adjustment_status_wording() -> None:
    assert adjustment_status("France", 0, 0) == "France: no builds or removals this winter."
    assert adjustment_status("England", 2, 2) == "England: all 2 builds ordered."
    assert adjustment_status("England", 1, 0) == (
        "England: 0 of 1 build ordered; 1 more may be ordered (builds not ordered are waived)."
    )
    assert adjustment_status("Austria", -2, 0) == (
        "Austria: 0 of 2 removals ordered; 2 more must be ordered, or the judge will choose them."
    )
    assert adjustment_status("Austria", -1, 1) == "Austria: all 1 removal ordered."


# -- positions and deadlines -------------------------------------------------------------


def test_position_report_of_the_start() -> None:
    text = position_report(Position.initial(MAP))
    lines = text.splitlines()
    assert lines[:5] == [
        "Units:",
        "",
        "Austria: Army Budapest",
        "Austria: Fleet Trieste",
        "Austria: Army Vienna",
    ]
    assert "Russia: Fleet St Petersburg (south coast)" in lines
    assert text.endswith(
        "Ownership of supply centers:\n"
        "\n"
        "Austria:   Budapest, Trieste, Vienna.\n"
        "England:   Edinburgh, Liverpool, London.\n"
        "France:    Brest, Marseilles, Paris.\n"
        "Germany:   Berlin, Kiel, Munich.\n"
        "Italy:     Naples, Rome, Venice.\n"
        "Russia:    Moscow, Sevastopol, St Petersburg, Warsaw.\n"
        "Turkey:    Ankara, Constantinople, Smyrna.\n"
        "Unowned:   Belgium, Bulgaria, Denmark, Greece, Holland, Norway, Portugal,\n"
        "           Rumania, Serbia, Spain, Sweden, Tunis."
    )


def test_position_report_lists_dislodged_units_in_a_retreat_phase() -> None:
    start = pos(
        "F1901R",
        [("Italy", "A", "tri")],
        {"tri": "Austria"},
        [Dislodged(Unit("Austria", FLEET, "tri"), "ven", ("adr", "alb"))],
    )
    assert position_report(start) == (
        "Units:\n"
        "\n"
        "Italy: Army Trieste\n"
        "\n"
        "Dislodged units:\n"
        "\n"
        "Austria: Fleet Trieste, dislodged, can retreat to Adriatic Sea or Albania.\n"
        "\n"
        "Ownership of supply centers:\n"
        "\n"
        "Austria:   Trieste.\n"
        "Unowned:   Ankara, Belgium, Berlin, Brest, Budapest, Bulgaria, Constantinople,\n"
        "           Denmark, Edinburgh, Greece, Holland, Kiel, Liverpool, London,\n"
        "           Marseilles, Moscow, Munich, Naples, Norway, Paris, Portugal, Rome,\n"
        "           Rumania, Serbia, Sevastopol, Smyrna, Spain, St Petersburg, Sweden,\n"
        "           Tunis, Venice, Vienna, Warsaw."
    )


def test_format_deadline_in_the_games_zone() -> None:
    when = datetime(2026, 11, 28, 20, 0, tzinfo=UTC)
    assert format_deadline(when, "Europe/London") == (
        "Sat Nov 28 2026 20:00:00 +0000 (Europe/London)"
    )
    assert format_deadline(when, "America/New_York") == (
        "Sat Nov 28 2026 15:00:00 -0500 (America/New_York)"
    )
    # Summer time is the zone's business, not the caller's.
    assert format_deadline(datetime(2026, 7, 1, 20, 0, tzinfo=UTC), "Europe/London") == (
        "Wed Jul 01 2026 21:00:00 +0100 (Europe/London)"
    )
    # Any aware datetime is accepted; it names an instant.
    plus_one = datetime(2026, 11, 28, 21, 0, tzinfo=timezone(timedelta(hours=1)))
    assert format_deadline(plus_one, "UTC") == "Sat Nov 28 2026 20:00:00 +0000 (UTC)"


def test_format_deadline_refuses_naive_datetimes_and_unknown_zones() -> None:
    with pytest.raises(ValueError, match="no time zone"):
        format_deadline(datetime(2026, 11, 28, 20, 0), "Europe/London")
    when = datetime(2026, 11, 28, 20, 0, tzinfo=UTC)
    with pytest.raises(ValueError, match="unknown time zone"):
        format_deadline(when, "Mars/Olympus_Mons")
    with pytest.raises(ValueError, match="unknown time zone"):
        format_deadline(when, "../etc/passwd")


def test_results_list_proxy_orders_and_proxied_units() -> None:
    # Seed 002: proxy orders show in the results; a unit handed over shows under the power
    # it was handed to, with "No Order Processed" when that power gave it no order.
    start = pos("S1901M", [("France", "A", "par"), ("France", "A", "mar"), ("Germany", "A", "mun")])
    out = adjudicate(
        start,
        {
            "France": ["A Par P Germany", "A Mar P Italy"],
            "Germany": ["A Par-Pic", "A Mar-Spa", "A Mun H"],
        },
        Rules(proxies=True),
    )
    assert results_report("game", 3, out).splitlines()[2:7] == [
        "France: Army Marseilles PROXY to Italy.",
        "France: Army Paris PROXY to Germany.",
        "Germany: Army Munich HOLD.",
        "Germany: Army Paris -> Picardy.",
        "Italy: Army Marseilles, No Order Processed.",
    ]


# -- the end of a game: centres year by year ----------------------------------------------


def test_centre_history_takes_each_year_from_its_winter_or_the_next_spring() -> None:
    start = Position.initial(MAP)
    centres = {**MAP.start_centres, "bel": "France", "spa": "France", "hol": "Germany"}
    with_1901 = Position.build(MAP, "W1901A", start.units.values(), centres)
    centres_1902 = {**centres, "mun": "France", "tun": "Italy"}
    positions = [
        start,
        Position.build(MAP, "F1901M", start.units.values(), MAP.start_centres),
        Position.build(MAP, "F1901R", start.units.values(), MAP.start_centres),
        with_1901,
        Position.build(MAP, "S1902M", start.units.values(), centres),
        Position.build(MAP, "F1902M", start.units.values(), centres),
        # No adjustments in 1902: the Spring of 1903 gives its count.
        Position.build(MAP, "S1903M", start.units.values(), centres_1902),
        # The game ends in Fall 1903, before its centres change: no row for 1903.
        Position.build(MAP, "F1903M", start.units.values(), centres_1902),
    ]
    rows = centre_history(positions)
    assert rows == [
        CentreYear(None, (3, 3, 3, 3, 3, 4, 3)),
        CentreYear(1901, (3, 3, 5, 4, 3, 4, 3)),
        CentreYear(1902, (3, 3, 6, 3, 4, 4, 3)),
    ]
    assert centre_history_report(MAP.powers, rows) == (
        "Year  Austria England  France Germany   Italy  Russia  Turkey\n"
        "Start       3       3       3       3       3       4       3\n"
        "1901        3       3       5       4       3       4       3\n"
        "1902        3       3       6       3       4       4       3"
    )
    assert centre_history([]) == []


def test_an_ending_names_its_winner_and_its_powers() -> None:
    solo = Ending("solo", "F1905M", "Movement for Fall of 1905", ((1, ("France",)),))
    assert (solo.winner, solo.powers) == ("France", ("France",))
    draw = Ending("draw", "S1906M", "Movement for Spring of 1906", ((1, ("Austria", "Italy")),))
    assert (draw.winner, draw.powers) == (None, ("Austria", "Italy"))
    result = Ending("result", "S1906M", "Movement for Spring of 1906",
                    ((1, ("Italy",)), (2, ("Austria", "Turkey"))))  # fmt: skip
    assert (result.winner, result.powers) == (None, ("Italy", "Austria", "Turkey"))
    assert Ending("terminated", "S1901M", "Movement for Spring of 1901").powers == ()
