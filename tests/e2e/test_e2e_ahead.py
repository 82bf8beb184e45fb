"""Acceptance (issue 16): orders ahead of time, by injected mail with a fixed clock.

Orders for a later phase (``PHASE``) sent two phases ahead that apply when their phase
begins, and one that turned illegal by then and is refused, the player told in the
results; orders sent later in the phase replacing them unit by unit; nested ``IF`` blocks
decided on a unit's presence and a centre's owner (at once for the current phase, and when
their phase begins for a later one); a block with a bad condition refused whole.  And the
two-season year (house rules 3.1-3.5) played by mail from Spring 1901 to Autumn 1902: a
dislodged unit retreats by its Spring order, an undislodged unit's retreat order is
ignored, a conditional Autumn build happens and another does not, builds not ordered are
not made, missing removals follow rule 3.5, and ``Remove A(Par)`` removes the army that
moved from Paris.  Every phase is processed as the scheduler does it; every email the judge
sends is compared word for word with a golden file per step (``UPDATE_GOLDEN=1`` rewrites
them: then read them).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from support.mailgame import ADDRESS, POWERS, post, seven, tick
from support.servicekit import Table

from judge.db.models import Game, OrderRecord, OutboundMessage
from judge.runtime.bootstrap import App

#: Every unit of the initial position holding: what the quiet powers send.
HOLD = {
    "Austria": "A Vie H\nA Bud H\nF Tri H\n",
    "England": "F Lon H\nF Edi H\nA Lvp H\n",
    "France": "A Par H\nA Mar H\nF Bre H\n",
    "Germany": "A Ber H\nA Mun H\nF Kie H\n",
    "Italy": "A Ven H\nA Rom H\nF Nap H\n",
    "Russia": "A Mos H\nA War H\nF Sev H\nF StP/sc H\n",
    "Turkey": "A Con H\nA Smy H\nF Ank H\n",
}


def game(tmp_path: Path, settings: str = "") -> tuple[App, Table]:
    """The seven's game ``test01`` (``settings`` added to its [game] table), its start
    mail read (its own tests pin it)."""
    app, table = seven(tmp_path, settings)
    table.new_mail()
    return app, table


def orders_of(app: App, power: str) -> list[tuple[str, str | None, str | None]]:
    """``power``'s active orders of the current phase: (as written, as understood, error)."""
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        rows = session.scalars(
            select(OrderRecord)
            .where(OrderRecord.game_id == game.id, OrderRecord.seq == game.seq)
            .where(OrderRecord.active.is_(True))
            .order_by(OrderRecord.id)
        ).all()
        return [(r.raw, r.canonical, r.error) for r in rows if r.player.power == power]


def mail_to(rows: list[OutboundMessage], power: str) -> OutboundMessage:
    (row,) = [row for row in rows if row.to_addr == ADDRESS[power]]
    return row


# -- orders for later phases, and IF blocks --------------------------------------------


def test_orders_ahead_apply_when_their_phase_begins(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    # France: this phase's orders, then two phases ahead (Fall 1901 and Winter 1901).
    post(table, "France", (
        "A Par-Bur\nA Mar S A Par-Bur\nF Bre-MAO\n"
        "PHASE Fall 1901 Movement\nA Bur-Bel\nF MAO-Spa/nc\n"
        "PHASE W1901A\nBuild A Par\n"
    ), "2026-11-24 09:00")  # fmt: skip
    table.check("accept_ahead_01_france_confirmation")
    # Germany's Fall order will be illegal: France takes Burgundy.
    post(table, "Germany", (
        "A Mun-Bur\nA Ber-Kie\nF Kie-Den\nPHASE F1901M\nA Bur-Bel\nENDPHASE\n"
    ), "2026-11-24 09:10")  # fmt: skip
    table.check("accept_ahead_02_germany_confirmation")
    # Russia: a nested IF for Fall, on a unit's presence and a centre's owner.
    post(table, "Russia", (
        "A War-Gal\nA Mos H\nF Sev H\nF StP/sc H\n"
        "PHASE Fall 1901\n"
        "IF AUSTRIAN A Gal\n  A War-Sil\n"
        "ELSE\n  IF Vie OWNED BY Austria\n    A War-Gal\n  ELSE\n    A War-Ukr\n  ENDIF\n"
        "ENDIF\n"
    ), "2026-11-24 09:20")  # fmt: skip
    table.check("accept_ahead_03_russia_confirmation")
    # Italy: a nested IF for this phase, decided at once.
    post(table, "Italy", (
        "A Rom H\nF Nap H\n"
        "IF A Ven AND NOT F Tri\n  A Ven H\n"
        "ELSE\n  IF Tri OWNED BY Austria\n    A Ven-Tyr\n  ELSE\n    A Ven-Pie\n  ENDIF\n"
        "ENDIF\n"
    ), "2026-11-24 09:30")  # fmt: skip
    table.check("accept_ahead_04_italy_decided_at_once")
    assert [canonical for _raw, canonical, _error in orders_of(app, "Italy")] == [
        "A rom H", "F nap H", "A ven-tyr",
    ]  # fmt: skip
    # Turkey: a block with a bad condition is refused whole.
    post(table, "Turkey", "IF Bel OWNED BY Narnia\nA Con-Bul\nENDIF\n", "2026-11-24 09:40")
    (refused,) = table.check("accept_ahead_05_turkey_refused_block")
    assert refused.subject.startswith("[Error Flag]")
    assert orders_of(app, "Turkey") == []
    post(table, "Austria", "A Vie-Gal\nA Bud-Ser\nF Tri-Alb\n", "2026-11-24 09:50")
    post(table, "England", HOLD["England"], "2026-11-24 09:51")
    post(table, "Turkey", HOLD["Turkey"], "2026-11-24 09:52")
    table.new_mail()

    assert tick(app, "2026-11-25 20:00") == ["S1901M"]
    assert table.phase() == "F1901M"
    # The results: France's and Russia's orders ahead taken, Germany's refused; each
    # told in its own copy only.
    rows = table.check("accept_ahead_06_spring_results")
    assert "A Bur-Bel" in mail_to(rows, "Germany").body
    assert "A Bur-Bel" not in mail_to(rows, "England").body
    assert [(raw, canonical) for raw, canonical, _e in orders_of(app, "France")] == [
        ("A Bur-Bel", "A bur-bel"), ("F MAO-Spa/nc", "F mao-spa/nc"),
    ]  # fmt: skip
    # Refused, so Germany has no order in the phase: its units hold unless it sends some.
    assert orders_of(app, "Germany") == []
    assert "the army in Burgundy is French, not yours" in mail_to(rows, "Germany").body
    assert [canonical for _raw, canonical, _e in orders_of(app, "Russia")] == ["A war-gal"]

    # An order sent in the phase replaces the one sent ahead, unit by unit.
    post(table, "France", "F MAO-Por\n", "2026-11-26 09:00")
    table.check("accept_ahead_07_france_replaces")
    assert [canonical for _raw, canonical, _e in orders_of(app, "France")] == [
        "A bur-bel", "F mao-por",
    ]  # fmt: skip
    assert tick(app, "2026-11-27 20:00") == ["F1901M"]
    assert table.phase() == "W1901A"
    table.check("accept_ahead_08_fall_results")
    assert [canonical for _raw, canonical, _e in orders_of(app, "France")] == ["Build A par"]


# -- the two-season year ----------------------------------------------------------------

TWO_SEASON = 'year = "two-season"\n'
#: Each season's orders by power, sent before its deadline.
S1901 = {
    **HOLD,
    "England": "F Lon-NTH\nF Edi-NWG\nA Lvp-Yor\n",
    "France": "A Par-Bur\nA Mar-Spa\nF Bre-MAO\n",
    "Germany": "A Mun-Ruh\nA Ber-Kie\nF Kie-Den\n",
    "Italy": "A Ven-Tyr\nA Rom-Ven\nF Nap-ION\n",
}
F1901 = {
    **HOLD,
    # Builds under conditions decided after the season's moves and retreats: the first
    # holds, so the army is built.
    "France": (
        "A Bur-Bel\nA Spa H\nF MAO-Por\n"
        "BUILDS\nIF Bel OWNED BY France\nBuild A Par\nENDIF\nBuild A Mar\nBuild F Bre\n"
    ),
    # England owes one build: the first block's condition fails, the second's holds.
    "England": (
        "F NWG-Nwy\nF NTH H\nA Yor H\n"
        "PHASE Winter 1901 Adjustments\n"
        "IF Swe OWNED BY England\nBuild F Lon\nENDIF\n"
        "IF Nwy OWNED BY England\nBuild F Edi\nENDIF\n"
    ),
    # Germany owes two builds and orders none: none is made (3.3).
    "Germany": "A Kie-Hol\nA Ruh H\nF Den H\n",
    "Italy": "A Tyr H\nA Ven H\nF ION-Tun\n",
}
S1902 = {
    **HOLD,
    # Austria's fleet in Trieste is dislodged and retreats by its Spring order; its army in
    # Vienna is not, and its retreat order is ignored.
    "Austria": "A Vie H\nA Bud H\nF Tri H\nPHASE Spring 1902 Retreats\nF Tri-Alb\nA Vie-Boh\n",
    "England": "F Nwy H\nF NTH H\nA Yor H\nF Edi H\n",
    "France": ("A Par H\nA Mar H\nF Bre H\nA Bel H\nA Spa H\nF Por H\nRETREATS\nA Bel-Pic\n"),
    "Germany": "A Ruh-Bel\nA Hol S A Ruh-Bel\nF Den H\n",
    "Italy": "A Ven-Tri\nA Tyr S A Ven-Tri\nF Tun H\n",
}
F1902 = {
    **HOLD,
    # Austria owes a removal and orders none: house rule 3.5 chooses the fleet in Albania.
    "Austria": "A Vie H\nA Bud H\nF Alb H\n",
    "England": "F Nwy H\nF NTH H\nA Yor H\nF Edi H\n",
    # France lost Belgium and owes a removal: "Remove A(Par)" is the army that was in
    # Paris when the season began, now in Gascony (3.4).
    "France": ("A Par-Gas\nA Mar H\nF Bre H\nA Pic H\nA Spa H\nF Por H\nREMOVALS\nRemove A(Par)\n"),
    "Germany": "A Bel H\nA Hol H\nF Den H\n",
    "Italy": "A Tri H\nA Tyr H\nF Tun H\n",
}


def season(table: Table, orders: dict[str, str], day: str) -> None:
    for minute, power in enumerate(POWERS):
        post(table, power, orders[power], f"{day} 09:{minute:02}")


def test_a_two_season_year(tmp_path: Path) -> None:
    app, table = game(tmp_path, TWO_SEASON)
    season(table, S1901, "2026-11-24")
    table.new_mail()
    assert tick(app, "2026-11-25 20:00") == ["S1901M"]
    assert table.phase() == "F1901M"
    table.new_mail()

    season(table, F1901, "2026-11-26")
    confirmations = table.new_mail()
    (france,) = [row for row in confirmations if row.to_addr == ADDRESS["France"]]
    assert "Builds and removals this year, if owed:\n  IF Bel OWNED BY France\n" in france.body
    assert tick(app, "2026-11-27 20:00") == ["F1901M"]
    # One results mail for the whole Autumn: the moves, then the adjustments.
    table.check("accept_seasons_01_autumn_1901")
    assert table.phase() == "S1902M"
    units = table.units()
    assert (units["par"], units["mar"], units["bre"]) == ("Fra A", "Fra A", "Fra F")
    assert units["edi"] == "Eng F" and "lon" not in units
    assert {loc for loc, unit in units.items() if unit.startswith("Ger")} == {"hol", "ruh", "den"}

    season(table, S1902, "2026-11-28")
    table.check("accept_seasons_02_spring_1902_confirmations")
    assert tick(app, "2026-11-29 20:00") == ["S1902M"]
    table.check("accept_seasons_03_spring_1902")
    assert table.phase() == "F1902M"
    units = table.units()
    assert units["alb"] == "Aus F" and units["tri"] == "Ita A"
    assert units["vie"] == "Aus A" and "boh" not in units
    assert units["pic"] == "Fra A" and units["bel"] == "Ger A"

    season(table, F1902, "2026-11-30")
    table.new_mail()
    assert tick(app, "2026-12-01 20:00") == ["F1902M"]
    table.check("accept_seasons_04_autumn_1902")
    assert table.phase() == "S1903M"
    units = table.units()
    assert "gas" not in units and "par" not in units  # the army from Paris was removed
    assert {loc for loc, unit in units.items() if unit.startswith("Fra")} == {
        "mar", "bre", "pic", "spa", "por",
    }  # fmt: skip
    assert {loc for loc, unit in units.items() if unit.startswith("Aus")} == {"vie", "bud"}
    assert len([u for u in units.values() if u.startswith("Ger")]) == 3
