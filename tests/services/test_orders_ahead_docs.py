"""docs/mail.md's section on orders ahead, tried by mail: its examples are sent as they
stand there (France's sign-on in place of the example's), and what the section shows of
the confirmation is what the judge sends."""

from __future__ import annotations

import re
from pathlib import Path

from support.servicekit import Table
from test_orders_ahead import FRANCE, WHEN, game, rows, two_season

from judge.db.models import OutboundMessage

DOC = Path(__file__).resolve().parents[2] / "docs" / "mail.md"
SECTION = "## Orders ahead: PHASE, IF and the two-season year"


def examples() -> list[str]:
    """The fenced examples of the section, in order, each ending in a newline."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    return [block for block in re.findall(r"```\n(.*?)```", text[start:end], flags=re.DOTALL)]


def confirmation(table: Table) -> str:
    [mail] = [row for row in table.new_mail() if row.kind == "confirm"]
    assert isinstance(mail, OutboundMessage)
    return mail.body


def test_the_section_has_its_four_examples() -> None:
    message, listed, block, two_seasons = examples()
    assert message.startswith("SIGNON Fwinter01 secret\n")
    assert listed.startswith("Orders sent ahead for ")
    assert block.startswith("IF ")
    assert two_seasons.startswith("Retreats this season, if dislodged:\n")


def test_the_phase_example_is_confirmed_as_the_section_shows(tmp_path: Path) -> None:
    message, listed, _block, _two = examples()
    app, table = game(tmp_path)
    sent = FRANCE + message.split("\n", 1)[1]
    table.send("france@example.org", sent, WHEN)
    body = confirmation(table)
    # CLEAR in the section dropped A Bur-Bel; the orders after ENDPHASE are for now.
    assert listed in body
    assert "Your orders sent ahead for Fall 1901 Movement were cleared.\n" in body
    assert [(phase, lines, active) for _power, phase, lines, active in rows(app)] == [
        ("F1901M", ["A Bur-Bel"], False),
        ("F1901M", ["A Bur-Mun"], True),
        ("W1901A", ["Build A Par"], True),
    ]
    assert "France: Fleet Brest -> Mid-Atlantic Ocean.\n" in body
    assert "France: Army Paris -> Burgundy.\n" in body


def test_the_if_example_is_kept_whole_and_shown_as_written(tmp_path: Path) -> None:
    _message, _listed, block, _two = examples()
    app, table = game(tmp_path)
    table.send("france@example.org", f"{FRANCE}PHASE Fall 1901 Movement\n{block}", WHEN)
    body = confirmation(table)
    shown = "".join(f"  {line}\n" for line in block.splitlines())
    assert (
        f"Orders sent ahead for Fall 1901 Movement (checked when that phase begins):\n{shown}"
    ) in body
    assert rows(app) == [("France", "F1901M", [line.strip() for line in block.splitlines()], True)]


def test_the_refusals_the_section_names_are_the_judges(tmp_path: Path) -> None:
    _app, table = game(tmp_path)
    table.send(
        "france@example.org",
        f"{FRANCE}PHASE Spring 1902 Adjustments\nA Par-Bur\nPHASE Winter 1902 Movement\n",
        WHEN,
    )
    body = confirmation(table)
    assert (
        "  PHASE Spring 1902 Adjustments\n"
        "    -> 'Spring 1902 Adjustments' is not a phase: there are no adjustments after "
        "Spring; they come in Winter (PHASE Winter 1902 Adjustments)\n"
        "  A Par-Bur\n"
        "    -> not taken: the PHASE line above was refused\n"
        "  PHASE Winter 1902 Movement\n"
        "    -> 'Winter 1902 Movement' is not a phase: Winter has adjustments only "
        "(PHASE Winter 1902 Adjustments)\n"
    ) in body
    doc = DOC.read_text(encoding="utf-8")
    assert '("not taken: the PHASE line above was refused")' in doc.replace("\n", " ")


def test_the_two_season_example_is_confirmed_as_the_section_shows(tmp_path: Path) -> None:
    _message, _listed, _block, two_seasons = examples()
    _app, table = two_season(tmp_path)
    table.process("2026-11-25 20:00")
    table.new_mail()
    table.send(
        "france@example.org",
        f"{FRANCE}RETREATS\nA Mun-Boh\nBUILDS\nBuild A Par\n",
        "2026-11-26 13:00",
    )
    assert two_seasons in confirmation(table)
