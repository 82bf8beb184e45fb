"""A PHASE line is read by one rule: the words the section's phase is read from decide
whether the line is a PHASE line at all.  A PHASE line written a little off (a comma, the
year fused to the season, a code without its kind) is a PHASE line, taken or refused with
its reason; never prose whose orders after it would be taken for the current phase."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_orders_ahead import FRANCE, WHEN, current, game, rows


@pytest.mark.parametrize("line", ["PHASE Fall, 1902", "PHASE Fall 1902, Movement."])
def test_punctuation_after_a_phase_word_still_names_the_phase(tmp_path: Path, line: str) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", f"{FRANCE}{line}\nA Par-Bur\n", WHEN)
    assert rows(app) == [("France", "F1902M", ["A Par-Bur"], True)]
    assert current(app) == []


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (
            "PHASE F1902",
            "bad phase code 'F1902': expected season S/F/W, a year and M/R/A, e.g. S1901M; "
            "write PHASE <season> <year> [<kind>] or PHASE <code>, e.g. PHASE Fall 1902 "
            "Movement or PHASE F1902M",
        ),
        (
            "PHASE Autumn1902",
            "bad phase code 'AUTUMN1902': expected season S/F/W, a year and M/R/A, e.g. "
            "S1901M; write PHASE <season> <year> [<kind>] or PHASE <code>, e.g. PHASE Fall "
            "1902 Movement or PHASE F1902M",
        ),
        (
            "PHASE 1902 Fall",
            "'1902' is not a season: write Spring, Fall (or Autumn) or Winter, e.g. PHASE "
            "Fall 1902 Movement",
        ),
    ],
)
def test_a_phase_line_written_off_is_refused_with_its_orders(
    tmp_path: Path, line: str, reason: str
) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", f"{FRANCE}{line}\nA Par-Bur\n", WHEN)
    [row] = table.new_mail()
    assert (
        f"  {line}\n    -> {reason}\n"
        "  A Par-Bur\n    -> not taken: the PHASE line above was refused\n"
    ) in row.body
    assert row.subject == "[Error Flag] Re: orders"
    assert current(app) == [] and rows(app) == []


@pytest.mark.parametrize(
    "prose", ["Phase two of the plan is yours", "Phase 2 of the plan", "Phase A goes well"]
)
def test_a_prose_phase_line_is_not_read(tmp_path: Path, prose: str) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", f"{FRANCE}{prose}\nA Par-Bur\n", WHEN)
    [row] = table.new_mail()
    assert f"These lines were not read as orders or commands:\n\n  {prose}\n" in row.body
    assert current(app) == [("par", "A par-bur", None)] and rows(app) == []
