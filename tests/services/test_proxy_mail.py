"""Proxy orders by mail (seed 002, "Proxy Orders"): with proxies allowed a power may give
orders for any unit, and a proxy order for any unit; only the owner's proxy hands a unit
over, and only the proxy holder's orders for it count."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from support.enginekit import MAP, pos
from support.servicekit import Table, started_game

from judge.db.models import Game
from judge.engine.notation import format_order, parse_order
from judge.engine.obligations import owed
from judge.engine.rules import Rules
from judge.runtime.bootstrap import App


def _proxies(tmp_path: Path) -> tuple[App, Table]:
    app, table = started_game(tmp_path)
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        game.rules = {**(game.rules or {}), "proxies": True}
    return app, table


def test_orders_for_other_powers_units_are_taken_and_marked(tmp_path: Path) -> None:
    _app, table = _proxies(tmp_path)
    table.send(
        "germany@example.org",
        "SIGNON Gtest01 pw-ger\nA Mar P Italy\nA Par-Pic\nF Kie H\nA Ber H\nA Mun H\n",
        "2026-11-23 13:00",
    )
    [germany] = table.new_mail()
    assert "[Error Flag]" not in germany.subject
    assert (
        "Germany: Army Berlin HOLD.\n"
        "Germany: Fleet Kiel HOLD.\n"
        "Germany: Army Marseilles PROXY to Italy (a French unit: only France can hand it "
        "over, so this order does nothing).\n"
        "Germany: Army Munich HOLD.\n"
        "Germany: Army Paris -> Picardy (a French unit: this order counts only if France "
        "hands the unit to you).\n"
    ) in germany.body
    assert "Your orders are complete." in germany.body


def test_proxied_and_foreign_orders_in_the_results(tmp_path: Path) -> None:
    _app, table = _proxies(tmp_path)
    bodies = {
        "austria": "SIGNON Atest01 pw-aus\nA Vie H\nA Bud H\nF Tri H",
        "england": "SIGNON Etest01 pw-eng\nF Lon H\nF Edi H\nA Lvp H",
        "france": "SIGNON Ftest01 paris-123\nF Bre H\nA Par P Germany\nA Mar H",
        "germany": "SIGNON Gtest01 pw-ger\nF Kie H\nA Ber H\nA Mun H\nA Par-Pic\nA Mar P Italy",
        "italy": "SIGNON Itest01 pw-ita\nF Nap H\nA Rom H\nA Ven H\nA Mar-Spa",
        "russia": "SIGNON Rtest01 pw-rus\nF StP/SC H\nA Mos H\nA War H\nF Sev H",
        "turkey": "SIGNON Ttest01 pw-tur\nF Ank H\nA Con H\nA Smy H",
    }
    for who, body in bodies.items():
        assert table.send(f"{who}@example.org", body, "2026-11-23 13:00") == "done"
    table.new_mail()
    table.process("2026-11-25 20:00")
    results = next(m for m in table.new_mail() if m.to_addr == "france@example.org")
    lines = results.body.splitlines()
    # Italy's order for the French army in Marseilles was not handed to it: not listed.
    assert [line for line in lines if "Marseilles" in line or "Paris" in line] == [
        "France: Army Marseilles HOLD.",
        "France: Army Paris PROXY to Germany.",
        "Germany: Army Marseilles PROXY to Italy.  (*not owner*)",
        "Germany: Army Paris -> Picardy.",
    ]
    assert table.units()["pic"] == "Fra A"
    assert table.units()["mar"] == "Fra A"


def test_a_support_given_for_another_power_s_unit_implies_no_move() -> None:
    # House rule 3.8 and proxies together: Germany's order for a French unit supporting
    # a German move does not order the German army, as the adjudicator rules (only a
    # power's own support or convoy implies a move for its own unit).
    position = pos("S1901M", [("France", "A", "bur"), ("Germany", "A", "mun")])
    rules = Rules(implied_orders=True, proxies=True)
    orders = [parse_order("A Bur S A Mun-Ruh", MAP)]
    assert owed(position, "Germany", orders, rules).implied == ()
    own = [parse_order("A Mun S A Bur-Ruh", MAP)]
    position = pos("S1901M", [("Germany", "A", "bur"), ("Germany", "A", "mun")])
    assert [format_order(o) for o in owed(position, "Germany", own, rules).implied] == [
        "Army Burgundy -> Ruhr"
    ]
