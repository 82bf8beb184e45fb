"""Orders sent ahead by mail (issue 16, the intake half): PHASE sections and ENDPHASE,
refused PHASE lines refusing their section, CLEAR in a section, the IF block decided now
or kept whole, the two-season headings, the confirmation listing pending orders by phase,
and the activity line.  Confirmations are golden files (tests/data/golden/e2e/ahead/)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at, make_app

from judge.db.models import FutureOrder, OrderRecord, Player
from judge.runtime.bootstrap import App
from judge.services.game_files import load_game
from judge.services.games import start_game

FRANCE = "SIGNON Ftest01 paris-123\n"
WHEN = "2026-11-23 13:00"
LOGGER = "judge.services.inbound"


def logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The keeper's log lines (judge.services.activity) so far."""
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def game(tmp_path: Path, extra: str = "") -> tuple[App, Table]:
    """The game test01 (``extra`` lines in its [game] table) started at 2026-11-23 12:00."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace('rules = "2023"\n', f'rules = "2023"\n{extra}'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    table = Table(app)
    table.new_mail()
    return app, table


def two_season(tmp_path: Path) -> tuple[App, Table]:
    return game(tmp_path, 'year = "two-season"\n')


def rows(app: App) -> list[tuple[str, str, list[str], bool]]:
    """Every future_orders row: (power, phase, lines, active), oldest first."""
    with app.sessions() as session:
        found = session.execute(
            select(Player.power, FutureOrder)
            .join(Player, Player.id == FutureOrder.player_id)
            .order_by(FutureOrder.id)
        ).all()
        return [(power, row.phase, list(row.lines), row.active) for power, row in found]


def current(app: App) -> list[tuple[str | None, str | None, str | None]]:
    """France's active order records now: (unit, canonical, error)."""
    with app.sessions() as session:
        records = session.scalars(
            select(OrderRecord).where(OrderRecord.active.is_(True)).order_by(OrderRecord.id)
        ).all()
        return [(r.unit, r.canonical, r.error) for r in records]


def reply(table: Table, step: str) -> str:
    """The one reply just sent, checked against its golden file."""
    [row] = table.check(f"ahead/{step}")
    return row.body


# -- PHASE sections -----------------------------------------------------------------


def test_phase_sections_keep_orders_for_later_phases_one_row_a_piece(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app, table = game(tmp_path)
    caplog.set_level(logging.INFO, logger=LOGGER)
    table.send("france@example.org", FRANCE + (
        "A Par-Bur\n"
        "PHASE Fall 1901 Movement\n"
        "A Bur-Bel, A Mar-Spa\n"
        "Germany: A Mun-Ruh\n"
        "A Bur-Xyz\n"
        "PRESS TO G\nHello\nENDPRESS\n"
        "PHASE w1901a\n"
        "Build A Par\n"
        "A Par-Bur\n"
        "ENDPHASE\n"
        "F Bre-MAO\n"
    ), WHEN)  # fmt: skip
    assert rows(app) == [
        ("France", "F1901M", ["A Bur-Bel"], True),
        ("France", "F1901M", ["A Mar-Spa"], True),
        ("France", "W1901A", ["Build A Par"], True),
    ]
    # The current phase's orders: before the first PHASE and after ENDPHASE.
    assert current(app) == [("par", "A par-bur", None), ("bre", "F bre-mao", None)]
    assert logged(caplog) == [
        "France in test01: 2 orders, 3 sent ahead, 3 refused, PHASE, PRESS, PHASE, ENDPHASE"
    ]
    mail = table.check("ahead/phase_sections")
    assert [row.kind for row in mail] == ["press", "confirm"]
    body = mail[1].body
    assert (
        "Orders sent ahead for Fall 1901 Movement (checked when that phase begins):\n"
        "  A Bur-Bel\n"
        "  A Mar-Spa\n"
        "\n"
        "Orders sent ahead for Winter 1901 Adjustments (checked when that phase begins):\n"
        "  Build A Par\n"
    ) in body
    assert "  Germany: A Mun-Ruh\n    -> you play France, not Germany\n" in body
    assert "  A Bur-Xyz\n    -> 'A Bur-Xyz': 'Xyz' is not a province name on this map\n" in body
    # An adjustment phase reads adjustments only.
    assert "  A Par-Bur\n    -> " in body


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("PHASE F1900M", "F1900M is past: game test01 is at S1901M"),
        ("PHASE Fall 1900", "F1900M is past: game test01 is at S1901M"),
        (
            "PHASE Spring 1902 Adjustments",
            "'Spring 1902 Adjustments' is not a phase: there are no adjustments after Spring;"
            " they come in Winter (PHASE Winter 1902 Adjustments)",
        ),
        (
            "PHASE Winter 1901 Movement",
            "'Winter 1901 Movement' is not a phase: Winter has adjustments only "
            "(PHASE Winter 1901 Adjustments)",
        ),
        (
            "PHASE S1907M",
            "S1907M is too far ahead: orders may be sent up to 5 years ahead of S1901M "
            "(up to W1906A)",
        ),
        (
            "PHASE Summer 1901",
            "'Summer' is not a season: write Spring, Fall (or Autumn) or Winter, e.g. PHASE "
            "Fall 1902 Movement",
        ),
        (
            "PHASE",
            "PHASE names no phase: write PHASE <season> <year> [<kind>] or PHASE <code>, e.g. "
            "PHASE Fall 1902 Movement or PHASE F1902M",
        ),
    ],
)
def test_a_refused_phase_line_refuses_the_orders_of_its_section(
    tmp_path: Path, line: str, reason: str
) -> None:
    app, table = game(tmp_path)
    table.send(
        "france@example.org", f"{FRANCE}{line}\nA Par-Bur, F Bre-MAO\nCLEAR\nEND PHASE\nA Mar H\n",
        WHEN,
    )  # fmt: skip
    [row] = table.new_mail()
    refusal = "not taken: the PHASE line above was refused"
    assert (
        "These lines were not accepted:\n\n"
        f"  {line}\n    -> {reason}\n"
        f"  A Par-Bur, F Bre-MAO\n    -> {refusal}\n"
        f"  CLEAR\n    -> {refusal}\n"
        "\n3 errors in this message."
    ) in row.body
    assert row.subject == "[Error Flag] Re: orders"
    # Never applied to another phase: neither kept ahead nor taken now; after ENDPHASE,
    # the lines are for now again.
    assert rows(app) == []
    assert current(app) == [("mar", "A mar H", None)]


def test_phase_naming_the_current_phase_takes_its_orders_now(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", f"{FRANCE}PHASE Spring 1901\nA Par-Bur\n", WHEN)
    assert rows(app) == []
    assert current(app) == [("par", "A par-bur", None)]


def test_clear_in_a_section_clears_that_phase_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", FRANCE + (
        "A Par-Bur\nPHASE F1901M\nA Bur-Bel\nPHASE S1902M\nA Bel-Hol\n"
    ), WHEN)  # fmt: skip
    table.new_mail()
    caplog.set_level(logging.INFO, logger=LOGGER)
    table.send("france@example.org", FRANCE + (
        "PHASE F1901M\nCLEAR\nA Bur-Pic\nPHASE F1902M\nCLEAR\n"
    ), "2026-11-23 14:00")  # fmt: skip
    assert rows(app) == [
        ("France", "F1901M", ["A Bur-Bel"], False),
        ("France", "S1902M", ["A Bel-Hol"], True),
        ("France", "F1901M", ["A Bur-Pic"], True),
    ]
    # The current phase's orders are untouched.
    assert current(app) == [("par", "A par-bur", None)]
    assert logged(caplog) == ["France in test01: PHASE, CLEAR, 1 order sent ahead, PHASE, CLEAR"]
    body = reply(table, "clear_in_a_section")
    assert (
        "Your orders sent ahead for Fall 1901 Movement were cleared.\n"
        "You had no orders sent ahead for Fall 1902 Movement: nothing was cleared.\n"
    ) in body


def test_stray_endphase_is_refused(tmp_path: Path) -> None:
    _app, table = game(tmp_path)
    table.send("france@example.org", f"{FRANCE}ENDPHASE\nA Par H\n", WHEN)
    [row] = table.new_mail()
    assert (
        "  ENDPHASE\n    -> ENDPHASE ends the orders after a PHASE line (or a heading such as "
        "RETREATS), and none came before it\n"
    ) in row.body


def test_a_new_signon_ends_the_section(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    table.send(
        "france@example.org",
        f"{FRANCE}PHASE F1901M\nA Par-Bur\nSIGNON Etest01 pw-eng\nF Lon-NTH\n",
        WHEN,
    )
    assert rows(app) == [("France", "F1901M", ["A Par-Bur"], True)]
    assert current(app) == [("lon", "F lon-nth", None)]
