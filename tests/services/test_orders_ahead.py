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


# -- IF blocks ------------------------------------------------------------------------

NESTED = (
    "IF A Mun AND NOT Bel OWNED THEN\n"
    "  IF F Kie\n"
    "    A Mar-Bur\n"
    "  ELSE\n"
    "    A Mar-Gas\n"
    "  END IF\n"
    "ELSE IF Bel OWNED BY France\n"
    "  A Mar H\n"
    "ELSE\n"
    "  A Mar-Spa\n"
    "ENDIF\n"
)


def test_an_if_block_for_now_is_decided_at_once_and_shown_with_the_branch_taken(
    tmp_path: Path,
) -> None:
    app, table = game(tmp_path)
    # The branch taken holds an order the position refuses: refused alone, the rest taken.
    table.send("france@example.org", FRANCE + NESTED.replace(
        "    A Mar-Bur\n", "    A Mar-Bur\n    A Par-Mun\n    F Bre-MAO\n"
    ), WHEN)  # fmt: skip
    body = reply(table, "if_now")
    assert (
        "IF block decided on the position of S1901M:\n"
        "  IF A Mun AND NOT Bel OWNED  <- taken\n"
        "    IF F Kie  <- taken\n"
        "      A Mar-Bur\n"
        "      A Par-Mun\n"
        "      F Bre-MAO\n"
        "    ELSE\n"
        "      A Mar-Gas\n"
        "    ENDIF\n"
        "  ELSE IF Bel OWNED BY France\n"
        "    A Mar H\n"
        "  ELSE\n"
        "    A Mar-Spa\n"
        "  ENDIF\n"
    ) in body
    assert "  A Par-Mun\n    -> " in body
    assert current(app) == [("mar", "A mar-bur", None), ("bre", "F bre-mao", None)]
    assert rows(app) == []


def test_an_if_block_in_a_phase_section_is_kept_whole_as_one_row(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", f"{FRANCE}PHASE F1901M\nA Par-Bur\n{NESTED}", WHEN)
    assert rows(app) == [
        ("France", "F1901M", ["A Par-Bur"], True),
        ("France", "F1901M", [
            "IF A Mun AND NOT Bel OWNED THEN", "IF F Kie", "A Mar-Bur", "ELSE", "A Mar-Gas",
            "END IF", "ELSE IF Bel OWNED BY France", "A Mar H", "ELSE", "A Mar-Spa", "ENDIF",
        ], True),
    ]  # fmt: skip
    assert current(app) == []
    body = reply(table, "if_ahead")
    assert (
        "Orders sent ahead for Fall 1901 Movement (checked when that phase begins):\n"
        "  A Par-Bur\n"
        "  IF A Mun AND NOT Bel OWNED\n"
        "    IF F Kie\n"
        "      A Mar-Bur\n"
        "    ELSE\n"
        "      A Mar-Gas\n"
        "    ENDIF\n"
        "  ELSE IF Bel OWNED BY France\n"
        "    A Mar H\n"
        "  ELSE\n"
        "    A Mar-Spa\n"
        "  ENDIF\n"
    ) in body


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        (
            "IF A Mun AND Bel OWNED BY Spain\nA Mar-Bur\nENDIF\n",
            "line 2: 'IF A Mun AND Bel OWNED BY Spain': 'Spain' is not a power; expected one "
            "of Austria, England, France, Germany, Italy, Russia, Turkey",
        ),
        (
            "IF A Mun\nA Mar-Bur\nELSE\nA Mar-Xyz\nENDIF\n",
            "line 5: 'A Mar-Xyz': 'Xyz' is not a province name on this map",
        ),
        (
            "IF A Mun THEN A Mar-Bur\nA Par H\n",
            "write the orders on the lines after 'IF <condition> THEN', one a line, and ENDIF "
            "alone on the line after them",
        ),
        (
            "IF A Mun\nGermany: A Mun-Ruh\nENDIF\n",
            "line 3: 'Germany: A Mun-Ruh': you play France, not Germany",
        ),
        (
            "IF A Mun\nBuild A Par\nENDIF\n",
            "line 3: 'Build A Par': S1901M is a movement phase; only hold, move, support and "
            "convoy orders are taken then",
        ),
        (
            "IF A Mun\nA Mar-Bur\nELSE\nA Mar H\nELSE\nA Mar-Spa\nENDIF\n",
            "line 6: 'ELSE' after the ELSE of the IF on line 2",
        ),
        (
            "IF A Mun\nA Mar-Bur\nA Par H\n",
            "no ENDIF ended this IF block (it ran to the end of your message): nothing of it "
            "was taken; write ENDIF alone on the line after the block",
        ),
    ],
)
def test_an_if_block_with_any_error_is_refused_whole_and_given_back(
    tmp_path: Path, block: str, reason: str
) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", FRANCE + block, WHEN)
    [row] = table.new_mail()
    first = block.split("\n", 1)[0]
    back = "\n".join(f"  | {line}" for line in block.strip("\n").split("\n"))
    assert (
        f"Nothing of this IF block was taken; its lines, for you to send again:\n\n{back}\n"
    ) in row.body
    assert f"This line was not accepted:\n\n  {first}\n    -> {reason}\n" in row.body
    assert row.subject == "[Error Flag] Re: orders"
    assert current(app) == [] and rows(app) == []


def test_a_stray_else_and_endif_are_refused_and_prose_if_is_not_read(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", FRANCE + (
        "A Par-Bur\nELSE\nA Mar H\nEND IF\nIf you agree, write back\n"
    ), WHEN)  # fmt: skip
    [row] = table.new_mail()
    stray = "belongs to an IF block (IF <condition> ... ELSE ... ENDIF), and no IF came before it"
    assert (
        f"  ELSE\n    -> ELSE {stray}\n  END IF\n    -> ENDIF {stray}\n"
        "\nThese lines were not read as orders or commands:\n\n  If you agree, write back\n"
    ) in row.body
    assert current(app) == [("par", "A par-bur", None), ("mar", "A mar H", None)]


def test_an_if_line_read_as_prose_is_a_block_when_an_endif_follows(tmp_path: Path) -> None:
    # "If Frnace holds Bel" starts like prose, but the ENDIF below says it opened a block:
    # its orders must never be taken without their condition.
    app, table = game(tmp_path)
    table.send("france@example.org", FRANCE + (
        "If Frnace holds Bel\nA Par-Bur\nENDIF\nA Mar H\n"
    ), WHEN)  # fmt: skip
    [row] = table.new_mail()
    assert row.subject == "[Error Flag] Re: orders"
    assert "Nothing of this IF block was taken; its lines, for you to send again:" in row.body
    assert "  If Frnace holds Bel\n    -> line 2: 'If Frnace holds Bel': " in row.body
    assert current(app) == [("mar", "A mar H", None)] and rows(app) == []


def test_a_zine_unit_in_a_condition_is_read(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", FRANCE + "IF A(Par)\nA Par-Bur\nENDIF\n", WHEN)
    [row] = table.new_mail()
    assert "  IF A(Par)  <- taken\n    A Par-Bur\n  ENDIF\n" in row.body
    assert current(app) == [("par", "A par-bur", None)]


def test_an_if_block_of_too_many_lines_is_refused(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    block = "IF A Mun\n" + "A Mar H\n" * 199 + "ENDIF\n"
    table.send("france@example.org", FRANCE + block, WHEN)
    [row] = table.new_mail()
    assert (
        "  IF A Mun\n    -> this IF block has 201 lines; at most 200 are read from one block: "
        "split it\n"
    ) in row.body
    assert current(app) == []


def test_an_if_block_after_a_refused_phase_line_is_refused(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", f"{FRANCE}PHASE F1900M\nIF A Mun\nA Mar H\nENDIF\n", WHEN)
    [row] = table.new_mail()
    assert "  IF A Mun\n    -> not taken: the PHASE line above was refused\n" in row.body
    assert current(app) == [] and rows(app) == []


# -- the two-season year --------------------------------------------------------------


def test_two_season_spring_retreats_are_kept_for_the_season_and_builds_refused(
    tmp_path: Path,
) -> None:
    app, table = two_season(tmp_path)
    table.send("france@example.org", FRANCE + (
        "A Par-Bur\nRETREATS\nA Bur-Pic\nF Bre D\nBUILDS\nBuild A Par\nENDPHASE\nF Bre-MAO\n"
    ), WHEN)  # fmt: skip
    assert rows(app) == [
        ("France", "S1901R", ["A Bur-Pic"], True),
        ("France", "S1901R", ["F Bre D"], True),
    ]
    assert current(app) == [("par", "A par-bur", None), ("bre", "F bre-mao", None)]
    body = reply(table, "two_season_spring")
    assert (
        "Retreats this season, if dislodged:\n"
        "  A Bur-Pic  (if dislodged)\n"
        "  F Bre D  (if dislodged)\n"
    ) in body
    assert (
        "  BUILDS\n    -> BUILDS heads the year's builds and removals, sent with the Autumn "
        "orders: there are none after Spring (send them with your Autumn orders, or after "
        "PHASE W1901A)\n"
        "  Build A Par\n    -> not taken: the BUILDS line above was refused\n"
    ) in body


def test_two_season_autumn_builds_go_to_the_years_adjustments(tmp_path: Path) -> None:
    app, table = two_season(tmp_path)
    table.process("2026-11-25 20:00")
    assert table.phase() == "F1901M"
    table.new_mail()
    table.send("france@example.org", FRANCE + (
        "A Par-Bur\n"
        "Build A Par\n"
        "IF Bel OWNED BY France\nBuild F Bre\nENDIF\n"
        "RETREATS\nIF A Bur\nA Bur-Gas\nENDIF\n"
        "REMOVALS\nRemove A Par\n"
        "PHASE W1901A\nWaive\n"
    ), "2026-11-26 13:00")  # fmt: skip
    assert rows(app) == [
        ("France", "W1901A", ["Build A Par"], True),
        ("France", "W1901A", ["IF Bel OWNED BY France", "Build F Bre", "ENDIF"], True),
        ("France", "F1901R", ["IF A Bur", "A Bur-Gas", "ENDIF"], True),
        ("France", "W1901A", ["Remove A Par"], True),
        ("France", "W1901A", ["Waive"], True),
    ]
    body = reply(table, "two_season_autumn")
    assert (
        "Retreats this season, if dislodged:\n"
        "  IF A Bur\n"
        "    A Bur-Gas\n"
        "  ENDIF\n"
        "\n"
        "Builds and removals this year, if owed:\n"
        "  Build A Par  (if owed)\n"
        "  IF Bel OWNED BY France\n"
        "    Build F Bre\n"
        "  ENDIF\n"
        "  Remove A Par  (if owed)\n"
        "  Waive  (if owed)\n"
    ) in body


@pytest.mark.parametrize(
    ("heading", "reason"),
    [
        (
            "RETREATS",
            "RETREATS heads retreats in a two-season game; this game plays each phase at its "
            "own deadline: send them in the retreat phase, or after PHASE S1901R",
        ),
        (
            "ADJUSTMENTS",
            "ADJUSTMENTS heads builds and removals in a two-season game; this game plays each "
            "phase at its own deadline: send them in the adjustment phase, or after PHASE "
            "W1901A",
        ),
    ],
)
def test_the_two_season_headings_are_refused_in_a_standard_game(
    tmp_path: Path, heading: str, reason: str
) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", f"{FRANCE}{heading}\nA Par-Bur\n", WHEN)
    [row] = table.new_mail()
    assert (
        f"  {heading}\n    -> {reason}\n"
        f"  A Par-Bur\n    -> not taken: the {heading} line above was refused\n"
    ) in row.body
    assert current(app) == [] and rows(app) == []


def test_an_if_block_from_someone_not_signed_on_is_refused_and_given_back(
    tmp_path: Path,
) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", "IF A Mun\nA Mar H\nENDIF\n", WHEN)
    [row] = table.new_mail()
    assert "IF A Mun" in row.body and "  | A Mar H\n  | ENDIF\n" in row.body
    assert "Sign on first" in row.body
    assert current(app) == [] and rows(app) == []


def test_a_batch_of_confirmations_asks_once_who_keeps_orders_ahead(tmp_path: Path) -> None:
    # Four messages processed in one transaction (as the mail worker takes them): one
    # query learns who keeps orders sent ahead, not one per confirmation; orders France
    # sends ahead in the first message are still listed by its later confirmation.
    from sqlalchemy import event

    from judge.services.inbound import process_pending
    from judge.services.intake import receive

    app, table = game(tmp_path)
    bodies = [
        FRANCE + "A Par-Bur\nPHASE F1901M\nA Bur-Bel\n",
        "SIGNON Gtest01 pw-ger\nA Mun-Ruh\n",
        "SIGNON Gtest01 pw-ger\nA Ber-Kie\n",
        FRANCE + "F Bre-MAO\n",
    ]
    senders = ["france@example.org", "germany@example.org"] * 2
    senders[3] = "france@example.org"
    for number, (sender, body) in enumerate(zip(senders, bodies, strict=True)):
        raw = (
            f"From: {sender}\nTo: judge@example.org\nSubject: orders\n"
            f"Message-ID: <batch{number}@players.example>\n\n{body}"
        ).encode()
        with app.sessions() as session, session.begin():
            receive(session, raw, at(WHEN))
    statements: list[str] = []
    engine = app.sessions.kw["bind"]

    def seen(conn: object, cursor: object, statement: str, *args: object) -> None:
        if "future_orders" in statement and statement.lstrip().upper().startswith("SELECT"):
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        assert process_pending(app.sessions, app.judge, lambda: at(WHEN)) == 4
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    # Who keeps some (once); France's kept lines, counted against the bound as its PHASE
    # section is read; France's own rows for its two confirmations.  Germany's cost none.
    assert len(statements) == 4
    last = table.new_mail()[-1]
    assert last.to_addr == "france@example.org"
    assert (
        "Orders sent ahead for Fall 1901 Movement (checked when that phase begins):\n  A Bur-Bel\n"
    ) in last.body
