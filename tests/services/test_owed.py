"""What a power still owes, as the services see it: early processing, the reminders and
late notices, NMR-wait and civil disorder all ask the engine (judge/engine/obligations.py)
and agree on who the phase waits for.

Driven by mail on servicekit's test01 (started Mon 2026-11-23 12:00, S1901M deadline Wed
2026-11-25 20:00 London, which is UTC in November).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sqlalchemy import select
from support.servicekit import Table, at, player, started_game

from judge.db.models import Game
from judge.engine import Position, standard_map
from judge.engine.document import position_to_document
from judge.runtime.bootstrap import App
from judge.services.games import due_games, orders_complete
from judge.services.notices import send_late_notices, send_reminders, standings

#: Complete orders (everything holds) by address, with the sign-on line.
HOLD_ALL = {
    "austria": "SIGNON Atest01 pw-aus\nA Vie H\nA Bud H\nF Tri H",
    "england": "SIGNON Etest01 pw-eng\nF Lon H\nF Edi H\nA Lvp H",
    "france": "SIGNON Ftest01 paris-123\nF Bre H\nA Par H\nA Mar H",
    "germany": "SIGNON Gtest01 pw-ger\nF Kie H\nA Ber H\nA Mun H",
    "italy": "SIGNON Itest01 pw-ita\nF Nap H\nA Rom H\nA Ven H",
    "russia": "SIGNON Rtest01 pw-rus\nF StP/SC H\nA Mos H\nA War H\nF Sev H",
}


def due(app: App, when: str) -> list[tuple[str, str]]:
    with app.sessions() as session:
        return due_games(session, at(when))


def everyone_but_turkey_holds(table: Table, when: str) -> None:
    for who, body in HOLD_ALL.items():
        assert table.send(f"{who}@example.org", body, when) == "done"


def set_remind_and_grace(app: App) -> None:
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        spec = {"hours": 48, "at": "20:00", "remind": 24, "grace": 24}
        game.settings = {**game.settings, "deadlines": {"movement": spec}}


def test_a_power_in_civil_disorder_does_not_hold_up_early_processing(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    # Turkey misses S1901M and F1901M while everyone else orders: civil disorder.
    everyone_but_turkey_holds(table, "2026-11-23 13:00")
    table.process("2026-11-25 20:00")
    everyone_but_turkey_holds(table, "2026-11-26 13:00")
    table.process("2026-11-27 20:00")
    assert player(app, "Turkey").status == "civil_disorder"
    assert table.phase() == "S1902M"
    set_remind_and_grace(app)
    table.new_mail()

    everyone_but_turkey_holds(table, "2026-11-28 13:00")
    # The phase goes ahead early, ten minutes after the last order: Turkey's units hold.
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert orders_complete(session, game)
        owing = standings(session, game)
    assert [power for power, standing in owing.items() if not standing.complete] == ["Turkey"]
    assert due(app, "2026-11-28 13:09") == []
    assert due(app, "2026-11-28 13:10") == [("test01", "S1902M")]
    # As the notices say: nobody who plays is reminded (the deadline is Sun 29 Nov 20:00)
    # or late.
    with app.sessions() as session, session.begin():
        assert send_reminders(session, app.judge, at("2026-11-29 19:00")) == 0
        assert send_late_notices(session, app.judge, at("2026-11-29 21:00")) == 0


def test_a_resigned_power_does_not_hold_up_early_processing(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    assert table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nRESIGN\n",
                      "2026-11-23 12:30") == "done"  # fmt: skip
    everyone_but_turkey_holds(table, "2026-11-23 13:00")
    assert due(app, "2026-11-23 13:10") == [("test01", "S1901M")]


# -- the adjustment limit: one order per build or removal -----------------------------


def winter(app: App) -> None:
    """Make W1901A current: France took Spain and Belgium and has one free home centre
    (its army left Paris); Austria lost Budapest to Russia."""
    game_map = standard_map()
    units = [replace(u, location="bur") if u.location == "par" else u for u in game_map.start_units]
    centres = {**game_map.start_centres, "spa": "France", "bel": "France", "bud": "Russia"}
    position = Position.build(game_map, "W1901A", units, centres)
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        game.phase = position.phase.code
        game.phases[0].phase = position.phase.code
        game.phases[0].position = position_to_document(position)


def test_one_adjustment_order_per_build_or_removal_and_no_more(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    winter(app)
    body = "SIGNON Ftest01 paris-123\nBuild A Par\nWaive\nWaive\n"
    assert table.send("france@example.org", body, "2026-11-23 13:00") == "done"
    [france] = table.new_mail()
    # The second build has no centre to go in: it can be waived (as the adjudicator
    # takes it), and the confirmation said after the first build that the rest is waived.
    assert (
        "France: Build Army Paris.\n"
        "France: Waive.\n"
        "France: all 2 builds ordered.\n\n"
        "This line was not accepted:\n\n"
        "  Waive\n"
        "    -> Waive: you have already ordered all 2 of your builds; send CLEAR to start "
        "again\n"
    ) in france.body
    body = "SIGNON Atest01 pw-aus\nRemove F Tri\nRemove A Vie\n"
    assert table.send("austria@example.org", body, "2026-11-23 13:01") == "done"
    [austria] = table.new_mail()
    assert (
        "Austria: Remove Fleet Trieste.\n"
        "Austria: all 1 removal ordered.\n\n"
        "This line was not accepted:\n\n"
        "  Remove A Vie\n"
        "    -> Remove A vie: you have already ordered all 1 of your removals; send CLEAR to "
        "start again\n"
    ) in austria.body
