"""The two-season year (house rules 3.1-3.5) at its deadlines: the season's moves from
the phase's orders, then its retreats and (Autumn) the year's adjustments from the orders
sent ahead with them (rows of ``future_orders``, written here as the intake stores them),
one results mail for the season, each player told in their own copy what became of the
orders they sent ahead; the game goes S1901M -> F1901M -> S1902M."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at, make_app

from judge.db.models import FutureOrder, Game, OutboundMessage, PhaseRecord, Player
from judge.runtime.bootstrap import App
from judge.services import future_orders
from judge.services.game_files import load_game
from judge.services.games import due_games, start_game

SIGNONS = {
    "Austria": ("austria@example.org", "SIGNON Atest01 pw-aus\n"),
    "England": ("england@example.org", "SIGNON Etest01 pw-eng\n"),
    "France": ("france@example.org", "SIGNON Ftest01 paris-123\n"),
    "Germany": ("germany@example.org", "SIGNON Gtest01 pw-ger\n"),
    "Italy": ("italy@example.org", "SIGNON Itest01 pw-ita\n"),
    "Russia": ("russia@example.org", "SIGNON Rtest01 pw-rus\n"),
    "Turkey": ("turkey@example.org", "SIGNON Ttest01 pw-tur\n"),
}


def make_game(tmp_path: Path) -> tuple[App, Table]:
    """Game test01 playing the two-season year, started at 2026-11-23 12:00."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace('rules = "2023"\n', 'rules = "2023"\nyear = "two-season"\n'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    table = Table(app)
    return app, table


def order(table: Table, power: str, orders: str, when: str) -> None:
    address, signon = SIGNONS[power]
    table.send(address, signon + orders, when)
    reply = table.new_mail()[0]
    assert "[Error Flag]" not in reply.subject, reply.body


def send_ahead(app: App, power: str, phase: str, *rows: list[str]) -> None:
    """Keep ``rows`` for ``power`` as sent ahead for ``phase`` (one message)."""
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        player = session.scalars(select(Player).where(Player.power == power)).one()
        for lines in rows:
            future_orders.add(session, game, player, phase, lines, None, at("2026-11-23 13:00"))


def results_to(rows: list[OutboundMessage], address: str) -> str:
    (mail,) = [r for r in rows if r.to_addr == address and r.subject.startswith("Diplomacy res")]
    return mail.body


def private_part(body: str) -> str:
    """What a results copy of a Spring season without retreats says after the report
    and before the next phase."""
    after = body.split("Turkey: Army Smyrna HOLD.\n", 1)[1]
    return after.split("The next phase", 1)[0].strip("\n")


def test_a_two_season_year_played_by_the_judge(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    gamestart = table.new_mail()
    assert (
        "Year:    two seasons (house rule 3.1): one deadline each Spring and Autumn; a\n"
        "         season's retreats (RETREATS) and, in Autumn, the year's builds and\n"
        "         removals (BUILDS) are sent with its moves.\n"
    ) in gamestart[0].body

    # Spring: moves only; France's retreat for a unit not dislodged is not used (3.1).
    send_ahead(app, "France", "S1901R", ["A Par-Gas"])
    order(table, "Austria", "F Tri H\nA Vie-Tyr\nA Bud H\n", "2026-11-24 10:00")
    order(table, "Italy", "A Rom H\nA Ven H\nF Nap H\n", "2026-11-24 10:00")
    order(table, "France", "A Par-Bur\nA Mar-Spa\nF Bre-Mao\n", "2026-11-24 10:00")
    order(table, "Germany", "A Mun-Ruh\nA Ber H\nF Kie H\n", "2026-11-24 10:00")
    order(table, "England", "F Lon H\nF Edi H\nA Lvp H\n", "2026-11-24 10:00")
    order(table, "Russia", "A Mos H\nF Sev H\nF Stp H\nA War H\n", "2026-11-24 10:00")
    order(table, "Turkey", "A Con H\nF Ank H\nA Smy H\n", "2026-11-24 10:00")
    # Every season's moves are in: the season is due after the early delay.
    with app.sessions() as session:
        assert due_games(session, at("2026-11-24 10:09")) == []
        assert due_games(session, at("2026-11-24 10:10")) == [("test01", "S1901M")]
    table.process("2026-11-25 20:00")
    rows = table.check("two_season_01_spring")
    assert table.phase() == "F1901M"
    assert private_part(results_to(rows, "france@example.org")) == (
        "Retreats for Spring 1901:\n"
        "  A Par-Gas\n"
        "Not used: no unit had a retreat to make this season"
    )
    assert private_part(results_to(rows, "italy@example.org")) == ""

    # Autumn: Austria takes Venice, Italy's army there retreats by the order it sent with
    # its moves; France takes Munich and Portugal; Italy's army from Rome goes to
    # Tuscany. The builds and removals come from the orders sent ahead.
    send_ahead(app, "Italy", "F1901R", ["A Ven-Pie"])
    send_ahead(
        app, "France", "W1901A",
        ["IF F Por", "Build F Bre", "ENDIF"],
        ["IF A Bel", "Build A Par", "ENDIF"],
    )  # fmt: skip
    send_ahead(app, "Italy", "W1901A", ["Remove A(Rom)"])
    order(table, "France", "A Bur-Mun\nA Spa-Mar\nF Mao-Por\n", "2026-11-26 10:00")
    order(table, "Italy", "A Rom-Tus\nA Ven H\nF Nap H\n", "2026-11-26 10:00")
    order(table, "Austria", "F Tri-Ven\nA Tyr S F Tri-Ven\nA Bud-Ser\n", "2026-11-26 10:00")
    order(table, "England", "F Lon H\n", "2026-11-26 10:00")
    order(table, "Russia", "A Mos H\n", "2026-11-26 10:00")
    order(table, "Turkey", "A Con H\n", "2026-11-26 10:00")
    table.process("2026-11-27 20:00")
    rows = table.check("two_season_02_autumn")
    assert table.phase() == "S1902M"
    units = table.units()
    # Built: F Bre (its condition held); not built: A Par (no army in Belgium), nor the
    # second build France never ordered, nor Austria's two (3.3).
    assert units["bre"] == "Fra F" and "par" not in units
    assert sum(1 for u in units.values() if u.startswith("Fra")) == 4
    assert sum(1 for u in units.values() if u.startswith("Aus")) == 3
    # Italy's "Remove A(Rom)" removed the army that moved from Rome to Tuscany (3.4);
    # the army dislodged from Venice retreated to Piedmont.
    assert "tus" not in units and units["pie"] == "Ita A" and units["nap"] == "Ita F"
    # Germany owed a removal and gave none: house rule 3.5 chose it.
    assert sum(1 for u in units.values() if u.startswith("Ger")) == 2
    with app.sessions() as session:
        assert not session.scalars(select(FutureOrder).where(FutureOrder.active)).all()
        record = session.scalars(select(PhaseRecord).where(PhaseRecord.seq == 2)).one()
        assert record.results is not None
        steps = [(step["phase"], step["skipped"]) for step in record.results["steps"]]
        assert steps == [("F1901R", []), ("W1901A", []), ("S1902M", [])]
        assert record.results["phase"] == "F1901R"
        assert record.results["report"].startswith("Movement results for Fall of 1901.")

    # Spring 1902: France and Austria dislodge Italy's army from Piedmont; it retreats by
    # the order Italy sent with its Spring moves.
    send_ahead(app, "Italy", "S1902R", ["A Pie-Tus"])
    order(table, "France", "A Mar-Pie\n", "2026-11-28 10:00")
    order(table, "Austria", "A Tyr S A Mar-Pie\n", "2026-11-28 10:00")
    order(table, "Italy", "A Pie H\n", "2026-11-28 10:00")
    order(table, "Germany", "A Ber H\n", "2026-11-28 10:00")
    table.process("2026-11-29 20:00")
    table.check("two_season_03_spring")
    assert table.phase() == "F1902M"
    units = table.units()
    assert units["pie"] == "Fra A" and units["tus"] == "Ita A"

    # LIST names the year; HISTORY gives each season's whole report, as mailed.
    table.send("watcher@example.net", "LIST test01\n", "2026-11-30 10:00")
    listing = table.new_mail()[0].body
    assert "Year: two seasons (house rule 3.1): one deadline each Spring and Autumn; a\n" in (
        listing
    )
    table.send("watcher@example.net", "HISTORY test01\n", "2026-11-30 10:00")
    history = table.new_mail()[0].body
    assert "Adjustment results for Winter of 1901.  (test01.002)" in history
    assert "Retreat results for Spring of 1902.  (test01.003)" in history


def test_preview_of_a_two_season_autumn_shows_the_whole_season_and_keeps_the_rows(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path)
    table.new_mail()
    order(table, "France", "A Par-Bur\n", "2026-11-24 10:00")
    table.process("2026-11-25 20:00")
    table.new_mail()
    order(table, "France", "A Bur-Bel\n", "2026-11-26 10:00")
    send_ahead(app, "France", "W1901A", ["Build A Par"])
    send_ahead(app, "Italy", "F1901R", ["A Ven-Pie"])
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nPREVIEW\n", "2026-11-26 11:00")
    (reply,) = table.new_mail()
    body = reply.body
    # The whole season: the moves, then the year's adjustments from the rows sent ahead.
    assert "Preview of test01 F1901M, with the orders as they stand now:" in body
    assert "Movement results for Fall of 1901.  (test01.002)" in body
    assert "Adjustment results for Winter of 1901.  (test01.002)" in body
    assert "France:    Builds an army in Paris.\n" in body
    assert "The next phase of 'test01' would be Movement for Spring of 1902." in body
    # Nothing stored: the phase, and the rows sent ahead, still pending.
    assert table.phase() == "F1901M"
    with app.sessions() as session:
        rows = session.scalars(select(FutureOrder).where(FutureOrder.active)).all()
        assert sorted((r.phase, r.lines) for r in rows) == [
            ("F1901R", ["A Ven-Pie"]),
            ("W1901A", ["Build A Par"]),
        ]
