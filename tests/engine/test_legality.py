"""Every rejection code, with the message naming the order and the reason."""

from __future__ import annotations

import pytest

from judge.engine import (
    ARMY,
    FLEET,
    Dislodged,
    Position,
    Rules,
    Unit,
    adjudicate,
    standard_map,
)

MAP = standard_map()
START = Position.initial(MAP)


def reject(
    position: Position, power: str, text: str, rules: Rules | None = None
) -> tuple[str, str]:
    out = adjudicate(position, {power: [text]}, rules)
    assert len(out.rejected) == 1, f"{text!r} was not rejected"
    return out.rejected[0].code, out.rejected[0].message


@pytest.mark.parametrize(
    ("power", "text", "code", "words"),
    [
        ("France", "A Par-Lon", "FAR", ["Paris", "London"]),
        ("France", "A Par-Swi", "FAR", ["Switzerland", "impassable"]),
        ("England", "A Lvp-Iri", "FAR", ["Irish Sea", "armies"]),
        ("Germany", "F Kie-Mun", "FAR", ["Munich", "inland"]),
        ("France", "A Par-Xyz", "SYNTAX", ["Xyz"]),
        ("France", "A Pic-Bel", "NSU", ["Picardy"]),
        ("France", "F Par-Bur", "NSF", ["army"]),  # DAIDE: no such fleet
        ("France", "A Bre-Pic", "NSA", ["fleet"]),  # no such army
        ("Italy", "A Par-Bur", "NYU", ["French", "not yours"]),
        ("England", "F Lon C A Lvp-Nwy", "NAS", ["not at sea"]),
        ("France", "A Mar S A Par-Pic", "FAR", ["Marseilles", "Picardy"]),
        ("France", "A Par S A Par", "FAR", ["itself"]),
        ("France", "F Bre-Retreat", "SYNTAX", ["Retreat"]),
        ("France", "F Bre D", "NRS", ["Movement"]),
        ("France", "Build A Par", "NRS", ["Movement"]),
        ("Russia", "F StP/SC-Bar", "FAR", ["Barents Sea"]),
    ],
)
def test_movement_rejections(power: str, text: str, code: str, words: list[str]) -> None:
    got_code, message = reject(START, power, text)
    assert got_code == code, message
    for word in words:
        assert word in message, message


def test_convoy_route_checks() -> None:
    position = Position.build(
        MAP,
        "S1901M",
        [Unit("England", ARMY, "lon"), Unit("England", FLEET, "nth"), Unit("England", ARMY, "yor")],
    )
    assert reject(position, "England", "A Lon-ENG-Bel")[0] == "NSF"  # no fleet in the Channel
    assert reject(position, "England", "A Lon-Lvp-Nwy")[0] == "SYNTAX"  # not a sea
    assert reject(position, "England", "A Lon-Bel-Hol")[0] == "SYNTAX"  # Belgium is no sea
    ok = adjudicate(position, {"England": ["A Lon-NTH-Nwy", "F NTH C A Lon-Nwy"]})
    assert ok.rejected == ()
    assert ok.position.units["nwy"] == Unit("England", ARMY, "nwy")


def test_retreat_rejections() -> None:
    position = Position.build(
        MAP,
        "F1901R",
        [Unit("Italy", ARMY, "tri"), Unit("Austria", ARMY, "ser")],
        dislodged=[Dislodged(Unit("Austria", FLEET, "tri"), "ven", ("adr", "alb"))],
    )
    code, message = reject(position, "Austria", "A Ser-Bud")
    assert code == "NRN" and "Serbia" in message
    code, message = reject(position, "Austria", "F Tri-Ven")
    assert code == "MBE"
    assert "Adriatic Sea, Albania" in message
    code, _ = reject(position, "Austria", "A Ser S F Tri-Alb")
    assert code == "NRS"
    code, _ = reject(position, "Italy", "F Tri-Alb")
    assert code == "NYU"
    code, _ = reject(position, "Austria", "F Tri-NTH-Alb")
    assert code == "NVR"


@pytest.mark.parametrize(
    ("power", "text", "code"),
    [
        ("Germany", "Build A Hol", "YSC"),
        ("Germany", "Build A Bel", "YSC"),
        ("Germany", "Build A Ruh", "NSC"),
        ("Germany", "Build A Den", "HSC"),
        ("Germany", "Build A Ber", "ESC"),
        ("Germany", "Build F Mun", "CST"),
        ("Russia", "Build F StP", "CST"),
        ("France", "Build A Par", "NMB"),
        ("France", "Waive", "NMB"),
        ("France", "Remove A Par", "NMR"),
        ("Germany", "Remove A Ber", "NMR"),
        ("Germany", "A Ber-Pru", "NRS"),
    ],
)
def test_adjustment_rejections(power: str, text: str, code: str) -> None:
    centres = dict(MAP.start_centres)
    centres["den"] = "Germany"
    centres["hol"] = "Italy"
    units = [u for u in MAP.start_units if u.location not in ("kie", "mun", "stp/sc")]
    position = Position.build(MAP, "W1901A", units, centres)
    got, message = reject(position, power, text)
    assert got == code, message


def test_build_anywhere_option() -> None:
    centres = dict(MAP.start_centres)
    centres["den"] = "Germany"
    position = Position.build(MAP, "W1901A", [Unit("Germany", ARMY, "ber")], centres)
    assert reject(position, "Germany", "Build F Den")[0] == "HSC"
    out = adjudicate(position, {"Germany": ["Build F Den"]}, Rules(build_anywhere=True))
    assert out.position.units["den"] == Unit("Germany", FLEET, "den")


# -- issue 10 ---------------------------------------------------------------------------


def test_support_naming_a_coast_the_supported_fleet_cannot_reach() -> None:
    # The Aegean reaches only Bulgaria's south coast; supporting a move to the east coast
    # supports a move that cannot be made (a province-level check let it through).
    position = Position.build(
        MAP, "S1901M", [Unit("Turkey", FLEET, "aeg"), Unit("Turkey", FLEET, "gre")]
    )
    code, message = reject(position, "Turkey", "F Gre S F Aeg-Bul/ec")
    assert (code, message) == (
        "FAR",
        "F gre S F aeg-bul/ec: the fleet in Aegean Sea cannot move to Bulgaria (east coast)",
    )
    ok = adjudicate(position, {"Turkey": ["F Gre S F Aeg-Bul/sc", "F Aeg-Bul"]})
    assert ok.rejected == ()
    assert ok.position.units["bul"] == Unit("Turkey", FLEET, "bul/sc")


def test_via_convoy_refusal_says_what_is_wrong() -> None:
    # Yorkshire is next to Wales: the message must not say otherwise.
    position = Position.build(MAP, "S1901M", [Unit("England", ARMY, "wal")])
    code, message = reject(position, "England", "A Wal-Yor via convoy")
    assert (code, message) == (
        "FAR",
        "A wal-yor via convoy: the army was ordered via convoy, but there are no fleets at "
        "sea to carry it from Wales to Yorkshire",
    )
    position = Position.build(MAP, "S1901M", [Unit("Germany", ARMY, "mun")])
    code, message = reject(position, "Germany", "A Mun-Bur via convoy")
    assert (code, message) == (
        "FAR",
        "A mun-bur via convoy: the army was ordered via convoy, but no convoy can carry an "
        "army from Munich to Burgundy",
    )
    code, message = reject(position, "Germany", "A Mun-Par")
    assert (code, message) == (
        "FAR",
        "A mun-par: Paris is not next to Munich and no convoy could carry an army there",
    )


def test_retreat_written_as_a_convoy_is_not_a_valid_retreat() -> None:
    position = Position.build(
        MAP,
        "F1901R",
        [Unit("France", ARMY, "hol")],
        dislodged=[Dislodged(Unit("England", ARMY, "hol"), "bel", ("kie", "ruh"))],
    )
    for text in ("A Hol-NTH-Yor", "A Hol-Yor via convoy"):
        code, message = reject(position, "England", text)
        assert code == "NVR", message
        assert "a retreat cannot go by convoy" in message


def test_proxy_power_needs_two_letters() -> None:
    rules = Rules(proxies=True)
    code, message = reject(START, "France", "A Par P G", rules)
    assert code == "SYNTAX"
    assert "two or more letters" in message
    out = adjudicate(START, {"France": ["A Par P Ge"]}, rules)
    assert out.rejected == ()


def test_build_without_unit_type() -> None:
    position = Position.build(MAP, "W1901A", [], {"par": "France", "bre": "France"})
    # Paris is inland: only an army can stand there.
    out = adjudicate(position, {"France": ["Build Par"]})
    assert out.rejected == ()
    assert out.position.units["par"] == Unit("France", ARMY, "par")
    # Brest could hold either: still ambiguous.
    code, message = reject(position, "France", "Build Bre")
    assert (code, message) == ("CST", "Build bre: say whether to build an army or a fleet")


def test_an_order_of_another_phase_kind_names_the_phase_in_words() -> None:
    # "this is a Adjustment for Winter of 1901 phase" read badly; the phase is named.
    from judge.engine.adjudicator import adjudicate

    out = adjudicate(Position.initial(standard_map()), {"France": ["Build A Par"]})
    assert [r.message for r in out.rejected] == [
        "Build A par: the phase is Movement for Spring of 1901; only hold, move, support and "
        "convoy orders are allowed now"
    ]
