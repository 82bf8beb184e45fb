"""Orders ahead under attack (issue 16 review, intake integrity): nothing a player did not
send is acted on, and nothing they sent is lost, when a line that owns the lines after it
(PHASE, IF, PRESS) is refused for an over-long word; the bound on the orders a player may
keep pending ahead."""

from __future__ import annotations

from pathlib import Path

from test_orders_ahead import FRANCE, WHEN, current, game, rows

LONG = "x" * 70
LONG_REASON = (
    "is 70 characters long; no command word, name or password is longer than 64 characters"
)


def test_a_phase_line_refused_for_a_long_word_refuses_its_orders(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    table.send(
        "france@example.org", f"{FRANCE}PHASE F1901M {LONG}\nA Par-Bur\nENDPHASE\nF Bre-MAO\n", WHEN
    )
    [mail] = table.new_mail()
    assert (
        "These lines were not accepted:\n\n"
        f"  PHASE F1901M {LONG}\n    -> 'F1901M' is not a season: write Spring, Fall (or Autumn) "
        "or Winter, e.g. PHASE Fall 1902 Movement\n"
        "  A Par-Bur\n    -> not taken: the PHASE line above was refused\n"
    ) in mail.body
    # Neither taken now nor kept ahead; after ENDPHASE the lines are for now again.
    assert rows(app) == []
    assert current(app) == [("bre", "F bre-mao", None)]


def test_an_if_line_refused_for_a_long_word_takes_nothing_of_its_block(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    table.send(
        "france@example.org", f"{FRANCE}IF A Mun {LONG}\nA Par-Bur\nENDIF\nF Bre-MAO\n", WHEN
    )
    [mail] = table.new_mail()
    assert (
        "Nothing of this IF block was taken; its lines, for you to send again:\n\n  | A Par-Bur\n"
    ) in mail.body
    assert f"  IF A Mun {LONG}\n    -> word 4 of this line {LONG_REASON}\n" in mail.body
    assert "ENDIF belongs" not in mail.body
    assert rows(app) == []
    assert current(app) == [("bre", "F bre-mao", None)]


def test_a_press_line_refused_for_a_long_word_reads_none_of_its_text(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    table.send(
        "france@example.org",
        f"{FRANCE}PRESS TO G {LONG}\nA Par-Bur\nCLEAR\nENDPRESS\nF Bre-MAO\n", WHEN,
    )  # fmt: skip
    [mail] = table.new_mail()
    assert (
        "Nothing of this PRESS block was taken; its lines, for you to send again:\n\n"
        "  | A Par-Bur\n"
        "  | CLEAR\n"
    ) in mail.body
    assert f"  PRESS TO G {LONG}\n    -> word 4 of this line {LONG_REASON}\n" in mail.body
    assert "ENDPRESS ends" not in mail.body
    assert "cleared" not in mail.body
    assert current(app) == [("bre", "F bre-mao", None)]


def test_orders_kept_ahead_are_bounded_per_player(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    hundred = ", ".join(["A Par-Bur"] * 100) + "\n"
    table.send("france@example.org", f"{FRANCE}PHASE F1901M\n{hundred * 3}{hundred[:-12]}\n", WHEN)
    assert len(rows(app)) == 399
    table.new_mail()
    table.send("france@example.org", FRANCE + (
        "PHASE S1902M\nA Bur-Bel, A Mar-Spa\nIF A Bur\nA Bur-Ruh\nENDIF\n"
    ), "2026-11-23 14:00")  # fmt: skip
    [mail] = table.new_mail()
    full = (
        "you keep {} lines of orders sent ahead in game test01; at most 400 are kept, so "
        "this was not: send CLEAR after a PHASE line to drop that phase's and make room"
    )
    assert (
        "These lines were not accepted:\n\n"
        f"  A Mar-Spa\n    -> {full.format(400)}\n"
        f"  IF A Bur\n    -> {full.format(400)}\n"
    ) in mail.body
    assert "  | A Bur-Ruh\n" in mail.body
    assert len(rows(app)) == 400
    assert rows(app)[-1] == ("France", "S1902M", ["A Bur-Bel"], True)
    # Room made by CLEAR is room again.
    table.send(
        "france@example.org",
        f"{FRANCE}PHASE F1901M\nCLEAR\nPHASE S1902M\nA Bur-Bel\n",
        "2026-11-23 15:00",
    )
    assert [r for r in rows(app) if r[3]] == [
        ("France", "S1902M", ["A Bur-Bel"], True),
        ("France", "S1902M", ["A Bur-Bel"], True),
    ]


def test_prose_starting_with_if_opens_no_block(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    table.send("france@example.org", FRANCE + (
        "If a few of you agree, fine\nA Par-Bur\nIf not you, who else?\nF Bre-MAO\n"
        "If (and only if) you agree\nA Mar H\nIF A Mnu\nA Mar-Spa\nENDIF\n"
    ), WHEN)  # fmt: skip
    [mail] = table.new_mail()
    assert (
        "These lines were not read as orders or commands:\n\n"
        "  If a few of you agree, fine\n"
        "  If not you, who else?\n"
        "  If (and only if) you agree\n"
    ) in mail.body
    # A mistyped condition is still a block, refused whole.
    assert "  IF A Mnu\n    -> line 8: " in mail.body
    assert current(app) == [
        ("par", "A par-bur", None),
        ("bre", "F bre-mao", None),
        ("mar", "A mar H", None),
    ]
