"""Behaviour of whole-phase adjudication beyond the DATC: results, phases, options."""

from __future__ import annotations

from support.enginekit import MAP, pos

from judge.engine import (
    ARMY,
    FLEET,
    CivilDisorder,
    Dislodged,
    Hold,
    Move,
    Note,
    Phase,
    Position,
    Proxy,
    Reason,
    Remove,
    Rules,
    SupportHold,
    Unit,
    adjudicate,
)


def test_bounce_results_name_the_culprit() -> None:
    out = adjudicate(Position.initial(MAP), {"France": ["A Par-Bur"], "Germany": ["A Mun-Bur"]})
    by_loc = {r.order.location: r for r in out.results}
    assert by_loc["par"].success is False
    assert by_loc["par"].reasons[0].note is Note.BOUNCE
    assert by_loc["par"].reasons[0].culprit == "mun"
    assert by_loc["mun"].reasons[0].culprit == "par"
    # Units without orders hold, marked as defaults.
    assert by_loc["bre"].default is True and by_loc["bre"].success is True
    assert out.skipped == (Phase.parse("S1901R"),)
    assert str(out.position.phase) == "F1901M"


def test_support_cut_and_dislodged_notes() -> None:
    start = pos(
        "S1901M",
        [
            ("Austria", "A", "ser"),
            ("Austria", "A", "bud"),
            ("Russia", "A", "rum"),
            ("Russia", "A", "gal"),
            ("Turkey", "A", "bul"),
        ],
    )
    out = adjudicate(
        start,
        {
            "Austria": ["A Bud-Rum", "A Ser S A Bud-Rum"],
            "Russia": ["A Gal S A Rum", "A Rum H"],
            "Turkey": ["A Bul-Ser"],
        },
    )
    by_loc = {r.order.location: r for r in out.results}
    assert by_loc["ser"].notes == (Note.CUT,)
    assert by_loc["ser"].reasons[0].culprit == "bul"
    assert by_loc["bud"].notes == (Note.BOUNCE,)
    assert "rum" in out.position.units and out.position.units["rum"].power == "Russia"


def test_dislodged_unit_gets_retreats_and_retreat_phase() -> None:
    start = pos(
        "F1901M",
        [
            ("Italy", "A", "ven"),
            ("Italy", "A", "tyr"),
            ("Austria", "F", "tri"),
            ("Austria", "A", "ser"),
        ],
    )
    out = adjudicate(start, {"Italy": ["A Ven-Tri", "A Tyr S A Ven-Tri"]})
    assert str(out.position.phase) == "F1901R"
    entry = out.position.dislodged["tri"]
    assert entry.unit == Unit("Austria", FLEET, "tri")
    assert entry.attacker == "ven"
    # Not back to Venice (the attacker's origin), not into occupied Tyrolia.
    assert entry.retreats == ("adr", "alb")
    # Results note the dislodgement and who did it.
    tri = next(r for r in out.results if r.order.location == "tri")
    assert tri.reasons[-1].note is Note.DISLODGED and tri.reasons[-1].culprit == "ven"


def test_no_retreat_means_destroyed_and_no_retreat_phase() -> None:
    start = pos(
        "S1901M",
        [
            ("Turkey", "F", "bla"),
            ("Russia", "F", "sev"),
            ("Russia", "A", "ukr"),
            ("Russia", "F", "rum"),
            ("Russia", "A", "arm"),
            ("Russia", "F", "ank"),
            ("Russia", "F", "con"),
            ("Russia", "A", "bul"),
        ],
    )
    out = adjudicate(start, {"Russia": ["F Sev-Bla", "F Rum S F Sev-Bla"]})
    assert out.destroyed == (Unit("Turkey", FLEET, "bla"),)
    assert str(out.position.phase) == "F1901M"


def test_two_retreats_to_one_province_both_disbanded() -> None:
    start = pos(
        "S1901R",
        [("Italy", "A", "tri")],
        dislodged=[
            Dislodged(Unit("Austria", ARMY, "ser"), "bul", ("alb", "gre")),
            Dislodged(Unit("Turkey", ARMY, "bud"), "vie", ("alb", "gal")),
        ],
    )
    out = adjudicate(start, {"Austria": ["A Ser-Alb"], "Turkey": ["A Bud-Alb"]})
    assert "alb" not in out.position.units
    assert all(r.has(Note.DESTROYED) for r in out.results)
    assert str(out.position.phase) == "F1901M"


def test_retreat_priority_house_rule_for_one_power() -> None:
    dislodged = [
        Dislodged(Unit("Austria", ARMY, "ser"), "bul", ("alb",)),
        Dislodged(Unit("Austria", ARMY, "gre"), "bul", ("alb",)),
    ]
    start = pos("S1901R", [], dislodged=dislodged)
    orders = {"Austria": ["A Gre-Alb", "A Ser-Alb"]}
    plain = adjudicate(start, orders)
    assert "alb" not in plain.position.units
    house = adjudicate(start, orders, Rules(retreat_priority=True))
    assert house.position.units["alb"] == Unit("Austria", ARMY, "alb")
    assert "gre" not in house.position.units


def test_unordered_retreat_disbands_and_wrong_retreat_lists_choices() -> None:
    start = pos(
        "F1901R",
        [("Italy", "A", "tri")],
        dislodged=[Dislodged(Unit("Austria", FLEET, "tri"), "ven", ("adr", "alb"))],
    )
    out = adjudicate(start, {"Austria": ["F Tri-Ven"]})
    assert out.rejected[0].code == "MBE"
    assert "Adriatic Sea" in out.rejected[0].message and "Albania" in out.rejected[0].message
    assert out.results[0].default is True
    assert "tri" in out.position.units and out.position.units["tri"].power == "Italy"


def test_fall_changes_centre_ownership_and_builds_follow() -> None:
    start = pos(
        "F1901M",
        [("Germany", "A", "kie"), ("Germany", "A", "ber"), ("Germany", "F", "hol")],
        {"kie": "Germany", "ber": "Germany", "mun": "Germany"},
    )
    out = adjudicate(start, {"Germany": ["A Kie-Den"]})
    assert out.position.phase == Phase.parse("W1901A")
    assert out.position.centres["den"] == "Germany"
    assert out.position.centres["hol"] == "Germany"
    assert out.position.adjustment("Germany") == 2
    build = adjudicate(out.position, {"Germany": ["Build A Kie", "Build F Kie", "Build A Par"]})
    codes = [r.code for r in build.rejected]
    assert codes == ["ESC", "YSC"]
    assert build.position.units["kie"] == Unit("Germany", ARMY, "kie")
    assert str(build.position.phase) == "S1902M"


def test_adjustment_phase_skipped_when_nothing_to_do() -> None:
    out = adjudicate(pos("F1901M", [("France", "A", "par")], {"par": "France"}))
    assert out.skipped == (Phase.parse("F1901R"), Phase.parse("W1901A"))
    assert str(out.position.phase) == "S1902M"


def test_victory_at_eighteen_centres() -> None:
    centres = {c: "France" for c in sorted(MAP.supply_centres)[:17]}
    centres["par"] = "France"
    start = pos("F1901M", [("France", "A", "bur")], {c: p for c, p in centres.items()})
    owned = sum(1 for p in start.centres.values() if p == "France")
    out = adjudicate(start, {"France": ["A Bur-Mun"] if owned < 18 else []})
    assert sum(1 for p in out.position.centres.values() if p == "France") >= 18
    assert out.winner == "France"


def test_civil_disorder_removal_2023_vs_house_rule() -> None:
    # England owns London and Edinburgh with four units: two removals owed.
    units = [
        ("England", "A", "pic"),
        ("England", "F", "nth"),
        ("England", "F", "hel"),
        ("England", "F", "lon"),
    ]
    start = pos("W1901A", units, {"lon": "England", "edi": "England"})
    edition = adjudicate(start, {})
    removed = {r.order.location for r in edition.results if r.default}
    assert len(removed) == 2
    house = adjudicate(start, {}, Rules(civil_disorder=CivilDisorder.HOUSE))
    removed_house = {r.order.location for r in house.results if r.default}
    # House rule 3.5: units off centres, farthest from a home centre first: F HEL and
    # A PIC are two moves away, F NTH one; F LON stands on a centre.
    assert removed_house == {"hel", "pic"}


def test_too_many_removals_and_waive() -> None:
    start = pos("W1901A", [("France", "A", "pic"), ("France", "A", "par")], {"par": "France"})
    out = adjudicate(start, {"France": ["Remove A Pic", "Remove A Par"]})
    assert [r.code for r in out.rejected] == ["NMR"]
    assert set(out.position.units) == {"par"}
    start = pos("W1901A", [], {"par": "France"})
    out = adjudicate(start, {"France": ["Waive", "Build A Par"]})
    assert [r.code for r in out.rejected] == ["NMB"]
    assert out.position.units == {}


def test_later_order_replaces_earlier_one() -> None:
    out = adjudicate(Position.initial(MAP), {"France": ["A Par-Pic", "A Par-Bur"]})
    assert out.position.units["bur"].power == "France"
    assert [r.code for r in out.rejected] == ["REPLACED"]


def test_not_your_unit_and_wrong_phase() -> None:
    out = adjudicate(Position.initial(MAP), {"Italy": ["A Mun-Tyr", "Build A Rom"]})
    assert [r.code for r in out.rejected] == ["NYU", "NRS"]
    assert "German" in out.rejected[0].message


def test_implied_orders_house_rule() -> None:
    start = pos(
        "S1901M", [("Germany", "A", "mun"), ("Germany", "A", "ruh"), ("France", "A", "bur")]
    )
    orders = {"Germany": ["A(Mun) S A(Ruh)-Bur"]}
    assert adjudicate(start, orders).position.units["bur"].power == "France"
    implied = adjudicate(start, orders, Rules(implied_orders=True))
    assert implied.position.units["bur"].power == "Germany"
    # An explicit order for the supported unit overrides the implied one.
    explicit = adjudicate(
        start, {"Germany": ["A(Mun) S A(Ruh)-Bur", "A Ruh-Bel"]}, Rules(implied_orders=True)
    )
    assert explicit.position.units["bel"].power == "Germany"


def test_proxy_orders() -> None:
    start = Position.initial(MAP)
    orders = {"France": ["A Par P Germany"], "Germany": ["A Par-Pic"]}
    refused = adjudicate(start, orders)
    assert {r.code for r in refused.rejected} == {"PROXY", "NYU"}
    out = adjudicate(start, orders, Rules(proxies=True))
    assert out.position.units["pic"] == Unit("France", ARMY, "pic")


def test_ambiguous_coast_is_reported_not_guessed() -> None:
    start = pos("S1901M", [("France", "F", "mao")])
    out = adjudicate(start, {"France": ["F MAO-Spa"]})
    assert out.rejected[0].code == "CST"
    assert "north coast" in out.rejected[0].message and "south coast" in out.rejected[0].message
    ok = adjudicate(start, {"France": ["F MAO-Spa/nc"]})
    assert ok.position.units["spa"] == Unit("France", FLEET, "spa/nc")


def test_build_fleet_needs_coast_on_split_province() -> None:
    start = pos("W1901A", [], {"stp": "Russia"})
    out = adjudicate(start, {"Russia": ["Build F StP"]})
    assert out.rejected[0].code == "CST"
    out = adjudicate(start, {"Russia": ["Build F StP/NC"]})
    assert out.position.units["stp"] == Unit("Russia", FLEET, "stp/nc")


# -- issue 10: coasts against provinces ------------------------------------------------


def test_support_naming_a_coast_is_not_cut_by_the_unit_attacked() -> None:
    # DATC 6.D.15 with a coast in the support: the army in Bulgaria attacks the supporter
    # from the province the support is given into, so it cannot cut the support.
    start = pos("S1901M", [("Germany", "A", "rum"), ("Russia", "A", "bul"), ("Turkey", "F", "con")])
    out = adjudicate(
        start,
        {
            "Germany": ["A Rum S F Con-Bul/ec"],
            "Russia": ["A Bul-Rum"],
            "Turkey": ["F Con-Bul/ec"],
        },
    )
    assert out.position.units["bul"] == Unit("Turkey", FLEET, "bul/ec")
    assert out.position.units["rum"] == Unit("Germany", ARMY, "rum")
    assert out.position.dislodged["bul"] == Dislodged(
        Unit("Russia", ARMY, "bul"), "con", ("gre", "ser")
    )
    by_loc = {r.order.location: r for r in out.results}
    assert by_loc["rum"].success is True and by_loc["rum"].reasons == ()


def test_support_naming_a_coast_of_spain_is_not_cut_from_spain() -> None:
    start = pos("S1901M", [("France", "F", "mao"), ("France", "F", "por"), ("Italy", "A", "spa")])
    out = adjudicate(
        start, {"France": ["F MAO-Spa/nc", "F Por S F MAO-Spa/nc"], "Italy": ["A Spa-Por"]}
    )
    assert out.position.units["spa"] == Unit("France", FLEET, "spa/nc")
    assert out.position.dislodged["spa"].unit == Unit("Italy", ARMY, "spa")
    assert out.position.dislodged["spa"].retreats == ("gas", "mar")


def test_cut_culprit_is_the_unit_that_cut_the_support() -> None:
    # Bulgaria cannot cut the support (it is the unit attacked); Ukraine does.
    start = pos(
        "S1901M",
        [
            ("Germany", "A", "rum"),
            ("Russia", "A", "bul"),
            ("Russia", "A", "ukr"),
            ("Turkey", "F", "con"),
        ],
    )
    out = adjudicate(
        start,
        {
            "Germany": ["A Rum S F Con-Bul/ec"],
            "Russia": ["A Bul-Rum", "A Ukr-Rum"],
            "Turkey": ["F Con-Bul/ec"],
        },
    )
    by_loc = {r.order.location: r for r in out.results}
    assert by_loc["rum"].reasons == (Reason(Note.CUT, "ukr"),)


# -- issue 10: the 2000 rules' land fallback -------------------------------------------

R2000 = Rules.parse_edition("2000")


def test_2000_incomplete_convoy_falls_back_to_the_land_route() -> None:
    # The convoy orders (North Sea only) do not reach Wales: no route, so the army walks.
    start = pos(
        "S1901M", [("England", "A", "wal"), ("England", "F", "nth"), ("England", "F", "eng")]
    )
    for army in ("A Wal-Yor via convoy", "A Wal-Yor"):
        out = adjudicate(start, {"England": [army, "F NTH C A Wal-Yor", "F ENG H"]}, R2000)
        assert out.rejected == ()
        assert out.position.units["yor"] == Unit("England", ARMY, "yor"), army
        by_loc = {r.order.location: r for r in out.results}
        assert by_loc["wal"].success is True and by_loc["wal"].reasons == ()
        assert by_loc["nth"].notes == (Note.VOID,)
    # Under 2023 the army ordered via convoy stays put.
    out = adjudicate(
        start, {"England": ["A Wal-Yor via convoy", "F NTH C A Wal-Yor", "F ENG H"]}, Rules()
    )
    assert out.position.units["wal"] == Unit("England", ARMY, "wal")


def test_2000_foreign_incomplete_convoy_falls_back_to_the_land_route() -> None:
    start = pos(
        "S1901M", [("England", "A", "wal"), ("France", "F", "nth"), ("England", "F", "eng")]
    )
    out = adjudicate(
        start,
        {"England": ["A Wal-Yor via convoy", "F ENG H"], "France": ["F NTH C A Wal-Yor"]},
        R2000,
    )
    assert out.rejected == ()
    assert out.position.units["yor"] == Unit("England", ARMY, "yor")


def test_2000_via_convoy_without_any_fleet_walks() -> None:
    start = pos("S1901M", [("England", "A", "wal")])
    out = adjudicate(start, {"England": ["A Wal-Yor via convoy"]}, R2000)
    assert out.rejected == ()
    assert out.position.units["yor"] == Unit("England", ARMY, "yor")
    assert [r.code for r in adjudicate(start, {"England": ["A Wal-Yor via convoy"]}).rejected] == [
        "FAR"
    ]


def test_2000_complete_convoy_broken_by_dislodgement_has_no_fallback() -> None:
    # DATC 6.F.21 / 6.G.11: the route was whole as ordered; losing a fleet does not send
    # the army over land.
    start = pos(
        "S1901M",
        [
            ("England", "A", "wal"),
            ("England", "F", "nth"),
            ("England", "F", "eng"),
            ("France", "F", "bel"),
            ("France", "F", "pic"),
        ],
    )
    out = adjudicate(
        start,
        {
            "England": ["A Wal-Yor via convoy", "F NTH C A Wal-Yor", "F ENG C A Wal-Yor"],
            "France": ["F Bel-ENG", "F Pic S F Bel-ENG"],
        },
        R2000,
    )
    assert out.position.units["wal"] == Unit("England", ARMY, "wal")
    wal = next(r for r in out.results if r.order.location == "wal")
    assert wal.reasons == (Reason(Note.DISRUPTED, "eng"),)


# -- issue 10: civil disorder -----------------------------------------------------------


def test_house_civil_disorder_outside_the_home_country_goes_first() -> None:
    # Livonia and Prussia are both off centres and one move from a home centre; Prussia
    # is outside Russia, Livonia inside, so the army in Prussia goes (rule 3.5).
    start = pos(
        "W1901A",
        [
            ("Russia", "A", "lvn"),
            ("Russia", "A", "pru"),
            ("Russia", "A", "mos"),
            ("Russia", "A", "sev"),
        ],
        {"mos": "Russia", "sev": "Russia", "stp": "Russia"},
    )
    out = adjudicate(start, {}, Rules(civil_disorder=CivilDisorder.HOUSE))
    assert [r.order for r in out.results if r.default] == [Remove(ARMY, "pru")]
    assert set(out.position.units) == {"lvn", "mos", "sev"}


def test_house_civil_disorder_seed_example() -> None:
    # Rule 3.5's own example: England would remove F(HEL) and F(SKA) before A(Pic), but
    # A(Pic) before F(ENG) or F(NTH); A(Bel) and F(Hol) would not be removed.
    units = [
        ("England", "F", "hel"),
        ("England", "F", "ska"),
        ("England", "A", "pic"),
        ("England", "F", "eng"),
        ("England", "F", "nth"),
        ("England", "A", "bel"),
        ("England", "F", "hol"),
    ]
    centres = {"lon": "England", "bel": "England", "hol": "England"}
    rules = Rules(civil_disorder=CivilDisorder.HOUSE)
    for owed, removed in ((2, ["hel", "ska"]), (3, ["hel", "pic", "ska"])):
        start = pos(
            "W1901A", units, {**centres, **{c: "England" for c in ["edi", "lvp"][: 4 - owed]}}
        )
        assert start.adjustment("England") == -owed
        out = adjudicate(start, {}, rules)
        assert sorted(r.order.location for r in out.results if r.default) == removed


# -- issue 10: results ------------------------------------------------------------------


def test_bounce_culprit_is_the_unit_that_stopped_the_move() -> None:
    # The army in Spain has no convoy, so it contests nothing: the fleet holding Tuscany
    # stopped the French army.
    start = pos(
        "S1901M",
        [
            ("France", "A", "mar"),
            ("France", "F", "gol"),
            ("England", "A", "spa"),
            ("Italy", "F", "tus"),
        ],
    )
    out = adjudicate(
        start,
        {
            "France": ["A Mar-Tus via convoy", "F GOL C A Mar-Tus"],
            "England": ["A Spa-Tus via convoy"],
            "Italy": ["F Tus H"],
        },
    )
    assert out.rejected == ()
    by_loc = {r.order.location: r for r in out.results}
    assert by_loc["mar"].reasons == (Reason(Note.BOUNCE, "tus"),)
    assert by_loc["spa"].reasons == (Reason(Note.NO_CONVOY),)


def test_bounce_culprit_of_a_stand_off_and_of_a_stronger_move() -> None:
    start = pos(
        "S1901M",
        [
            ("France", "A", "par"),
            ("Germany", "A", "mun"),
            ("Germany", "A", "ruh"),
            ("Italy", "A", "pie"),
        ],
    )
    # Germany's supported move beats Paris; Paris is bounced by Munich, not by an
    # empty Burgundy.
    out = adjudicate(
        start, {"France": ["A Par-Bur"], "Germany": ["A Mun-Bur", "A Ruh S A Mun-Bur"]}
    )
    by_loc = {r.order.location: r for r in out.results}
    assert by_loc["par"].reasons == (Reason(Note.BOUNCE, "mun"),)
    # Two moves of one strength into an empty province stop each other.
    out = adjudicate(start, {"France": ["A Par-Bur"], "Germany": ["A Mun-Bur"]})
    by_loc = {r.order.location: r for r in out.results}
    assert by_loc["par"].reasons == (Reason(Note.BOUNCE, "mun"),)
    assert by_loc["mun"].reasons == (Reason(Note.BOUNCE, "par"),)


def test_support_against_the_supporters_own_unit_is_void() -> None:
    start = pos(
        "S1901M", [("France", "A", "par"), ("Germany", "A", "bur"), ("Germany", "A", "mun")]
    )
    out = adjudicate(start, {"France": ["A Par-Bur"], "Germany": ["A Mun S A Par-Bur"]})
    by_loc = {r.order.location: r for r in out.results}
    # It cannot count against the German army in Burgundy, and the results say so.
    assert (by_loc["mun"].success, by_loc["mun"].reasons) == (False, (Reason(Note.VOID),))
    assert by_loc["par"].reasons == (Reason(Note.BOUNCE, "bur"),)
    # With Burgundy left empty by a successful move the support counts as usual.
    out = adjudicate(
        start, {"France": ["A Par-Bur"], "Germany": ["A Mun S A Par-Bur", "A Bur-Pic"]}
    )
    by_loc = {r.order.location: r for r in out.results}
    assert (by_loc["mun"].success, by_loc["mun"].reasons) == (True, ())
    assert out.position.units["bur"] == Unit("France", ARMY, "bur")


def test_support_against_own_unit_that_still_prevents_is_not_void() -> None:
    # The French support cannot dislodge the French army in Burgundy, but it does count
    # in the prevent strength of Germany's move, and that stops Italy's supported attack
    # on Burgundy: the support was given, so it is a success, not "void".
    start = pos(
        "S1901M",
        [
            ("France", "A", "bur"),
            ("France", "A", "pic"),
            ("Germany", "A", "ruh"),
            ("Italy", "A", "mar"),
            ("Italy", "A", "gas"),
        ],
    )
    out = adjudicate(
        start,
        {
            "France": ["A Bur H", "A Pic S A Ruh-Bur"],
            "Germany": ["A Ruh-Bur"],
            "Italy": ["A Mar-Bur", "A Gas S A Mar-Bur"],
        },
    )
    by_loc = {r.order.location: r for r in out.results}
    assert (by_loc["pic"].success, by_loc["pic"].reasons) == (True, ())
    assert by_loc["mar"].reasons == (Reason(Note.BOUNCE, "ruh"),)
    assert by_loc["ruh"].reasons == (Reason(Note.BOUNCE, "bur"),)
    assert out.position.units["bur"] == Unit("France", ARMY, "bur")


def test_support_against_own_unit_contested_to_no_effect_is_void() -> None:
    # Another move contests Ankara, but it bounces off the Turkish army there whatever
    # the supports do: they changed nothing, so they are void, as when uncontested.
    start = pos(
        "S1901M",
        [
            ("Turkey", "A", "ank"),
            ("Turkey", "A", "smy"),
            ("Turkey", "F", "con"),
            ("Russia", "F", "arm"),
            ("Russia", "A", "sev"),
        ],
    )
    out = adjudicate(
        start,
        {
            "Turkey": ["A Ank H", "A Smy-Ank", "F Con S A Smy-Ank"],
            "Russia": ["F Arm-Ank", "A Sev-Arm"],
        },
    )
    by_loc = {r.order.location: r for r in out.results}
    assert (by_loc["con"].success, by_loc["con"].reasons) == (False, (Reason(Note.VOID),))
    assert by_loc["arm"].reasons == (Reason(Note.BOUNCE, "ank"),)
    assert out.position.units["ank"] == Unit("Turkey", ARMY, "ank")


def test_support_against_own_unit_beside_a_convoy_that_failed_is_void() -> None:
    # The only rival for Bulgaria is an army whose convoy never sailed: nothing the
    # Turkish support did stopped it, so the support is void.
    start = pos(
        "S1901M",
        [
            ("Turkey", "F", "bul/sc"),
            ("Turkey", "F", "aeg"),
            ("Turkey", "A", "gre"),
            ("Austria", "A", "alb"),
            ("Austria", "A", "ser"),
            ("Austria", "F", "ion"),
        ],
    )
    out = adjudicate(
        start,
        {
            "Turkey": ["F Bul H", "F Aeg-Bul/sc", "A Gre S F Aeg-Bul/sc"],
            "Austria": ["A Alb-Bul via convoy", "A Ser S A Alb-Bul", "F Ion C A Alb-Bul"],
        },
        R2000,
    )
    by_loc = {r.order.location: r for r in out.results}
    assert (by_loc["gre"].success, by_loc["gre"].reasons) == (False, (Reason(Note.VOID),))


def test_proxy_orders_appear_in_the_results() -> None:
    # Seed 002: every proxy order shows in the results; a foreign unit's order shows only
    # when the unit was handed to that power; a proxied unit nobody orders holds and shows
    # "No order processed" (a default), under the power it was handed to.
    start = pos(
        "S1901M",
        [("France", "A", "par"), ("France", "A", "mar"), ("Germany", "A", "mun")],
    )
    rules = Rules(proxies=True)
    out = adjudicate(
        start,
        {
            "France": ["A Par P Germany", "A Mar P Italy"],
            "Germany": ["A Par-Pic", "A Mar-Spa", "A Mun H"],
        },
        rules,
    )
    assert [(r.code, r.text) for r in out.rejected] == [("NYU", "A Mar-Spa")]
    assert [(r.power, r.order, r.success, r.default) for r in out.results] == [
        ("France", Proxy(ARMY, "mar", "Italy"), True, False),
        ("France", Proxy(ARMY, "par", "Germany"), True, False),
        ("Germany", Hold(ARMY, "mun"), True, False),
        ("Germany", Move(ARMY, "par", "pic"), True, False),
        ("Italy", Hold(ARMY, "mar"), True, True),
    ]
    assert out.position.units["pic"] == Unit("France", ARMY, "pic")


def test_document_retreat_option_naming_a_split_province_means_its_coasts() -> None:
    # A fleet's retreat option written "SPA" stands for the coasts the fleet can reach;
    # a bare province is no place for a fleet.
    from judge.engine.document import adjudicate_document, position_from_document

    doc = {
        "phase": "F1901R",
        "units": {"Italy": ["A GAS"]},
        "dislodged": {"France": {"F GAS": ["SPA", "MAO"]}},
        "centers": {},
    }
    assert position_from_document(doc).dislodged["gas"].retreats == ("mao", "spa/nc")
    out = adjudicate_document({**doc, "orders": {"France": ["F Gas-Spa/nc"]}})
    assert (out["rejected"], out["units"]["France"]) == ([], ["F SPA/NC"])
    out = adjudicate_document({**doc, "orders": {"France": ["F Gas-Spa"]}})
    assert (out["rejected"], out["units"]["France"]) == ([], ["F SPA/NC"])
    # From the Gulf of Lyon only the south coast; from the Mid-Atlantic both coasts.
    doc["units"] = {"Italy": ["A MAR"]}
    doc["dislodged"] = {"France": {"F MAO": ["SPA"], "F GOL": ["SPA"]}}
    position = position_from_document(doc)
    assert position.dislodged["mao"].retreats == ("spa/nc", "spa/sc")
    assert position.dislodged["gol"].retreats == ("spa/sc",)
    # An army's option naming a coast is the province.
    doc["dislodged"] = {"France": {"A GAS": ["SPA/NC"]}}
    doc["units"] = {"Italy": ["A MAR"]}
    assert position_from_document(doc).dislodged["gas"].retreats == ("spa",)


def test_a_refused_proxy_order_does_not_undo_an_earlier_valid_one() -> None:
    # "A Par P France" is refused (a unit cannot be handed to its own owner), so the
    # earlier "A Par P Germany" stands: Germany's order for Paris counts.
    start = pos("S1901M", [("France", "A", "par")])
    out = adjudicate(
        start,
        {"France": ["A Par P Germany", "A Par P France"], "Germany": ["A Par-Pic"]},
        Rules(proxies=True),
    )
    assert [(r.power, r.text, r.code) for r in out.rejected] == [
        ("France", "A Par P France", "PROXY")
    ]
    assert [(r.power, r.order, r.success, r.default) for r in out.results] == [
        ("France", Proxy(ARMY, "par", "Germany"), True, False),
        ("Germany", Move(ARMY, "par", "pic"), True, False),
    ]
    assert out.position.units["pic"] == Unit("France", ARMY, "pic")


def test_proxy_order_from_a_power_that_does_not_own_the_unit_has_no_effect() -> None:
    # Seed 002: with proxies allowed a power may give a proxy order for any unit; only the
    # owner's hands the unit over, but every proxy order is listed in the results, under
    # the power that gave it.  Italy's proxy of the French army and Germany's of the army
    # France handed to it are listed as failed ("not owner"); France's hand-over counts.
    start = pos("S1901M", [("France", "A", "par"), ("France", "A", "mar")])
    out = adjudicate(
        start,
        {
            "Italy": ["A Mar P Italy", "A Par P Italy"],
            "France": ["A Par P Germany"],
            "Germany": ["A Par P Russia", "A Par-Pic"],
            "Russia": ["A Par-Bur"],
        },
        Rules(proxies=True),
    )
    not_owner = (Reason(Note.NOT_OWNER),)
    assert [(r.power, r.text, r.code) for r in out.rejected] == [("Russia", "A Par-Bur", "NYU")]
    assert [(r.power, r.order, r.success, r.reasons, r.default) for r in out.results] == [
        ("France", Hold(ARMY, "mar"), True, (), True),
        ("France", Proxy(ARMY, "par", "Germany"), True, (), False),
        ("Germany", Move(ARMY, "par", "pic"), True, (), False),
        ("Germany", Proxy(ARMY, "par", "Russia"), False, not_owner, False),
        ("Italy", Proxy(ARMY, "mar", "Italy"), False, not_owner, False),
        ("Italy", Proxy(ARMY, "par", "Italy"), False, not_owner, False),
    ]
    assert out.position.units["pic"] == Unit("France", ARMY, "pic")
    assert out.position.units["mar"] == Unit("France", ARMY, "mar")
    # Without proxies it is not the giver's unit to order.
    off = adjudicate(start, {"Italy": ["A Mar P Italy"]})
    assert [(r.power, r.code) for r in off.rejected] == [("Italy", "NYU")]


def test_a_later_proxy_order_of_a_non_owner_replaces_its_earlier_one() -> None:
    start = pos("S1901M", [("France", "A", "par")])
    out = adjudicate(start, {"Italy": ["A Par P Italy", "A Par P Austria"]}, Rules(proxies=True))
    assert [(r.power, r.text, r.code) for r in out.rejected] == [
        ("Italy", "A Par P Italy", "REPLACED")
    ]
    assert [(r.power, r.order, r.success) for r in out.results] == [
        ("France", Hold(ARMY, "par"), True),
        ("Italy", Proxy(ARMY, "par", "Austria"), False),
    ]


def test_an_unordered_proxied_unit_holds_and_can_be_supported() -> None:
    # Seed 002: "No order processed" is a hold: the owner may support the unit it handed
    # over, and the support counts when the proxy holder leaves the unit unordered.
    start = pos(
        "S1901M",
        [
            ("France", "A", "par"),
            ("France", "A", "pic"),
            ("Italy", "A", "bur"),
            ("Italy", "A", "gas"),
        ],
    )
    out = adjudicate(
        start,
        {
            "France": ["A Par P Germany", "A Pic S A Par"],
            "Italy": ["A Bur-Par", "A Gas S A Bur-Par"],
        },
        Rules(proxies=True),
    )
    by_loc = {(r.order.location, type(r.order)): r for r in out.results}
    held = by_loc[("par", Hold)]
    assert (held.power, held.success, held.default) == ("Germany", True, True)
    support = by_loc[("pic", SupportHold)]
    assert (support.success, support.reasons) == (True, ())
    assert by_loc[("bur", Move)].reasons == (Reason(Note.BOUNCE, "par"),)
    assert out.position.units["par"] == Unit("France", ARMY, "par")
    assert out.position.dislodged == {}


def test_edition_civil_disorder_2023_fleet_on_a_coast_counts_its_province() -> None:
    # 2023 rules: distance to the nearest owned centre, by province.  The fleet on
    # St Petersburg's south coast stands on an owned centre (distance 0), so the army in
    # Ukraine (one move from Moscow) is removed, not the fleet.
    start = pos(
        "W1901A",
        [("Russia", "F", "stp/sc"), ("Russia", "A", "mos"), ("Russia", "A", "ukr")],
        {"mos": "Russia", "stp": "Russia"},
    )
    out = adjudicate(start, {})
    assert [r.order for r in out.results if r.default] == [Remove(ARMY, "ukr")]
    assert set(out.position.units) == {"stp", "mos"}
