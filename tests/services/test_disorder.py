"""Civil disorder everyone hears about, what counts as a missed phase, the NMR policy
"wait", WAIT cleared each phase, and absences that move a deadline (issue 13).

The game is servicekit's test01, started Mon 2026-11-23 12:00 UTC with its S1901M
deadline at Wed 2026-11-25 20:00 (London, which is UTC in November).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import Table, at, game_row, player, started_game
from test_notices import put_position

from judge.db.models import Game, PhaseRecord, Player
from judge.engine import Dislodged, Position, standard_map
from judge.runtime.bootstrap import App
from judge.services.games import due_games
from judge.services.notices import send_late_notices


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[App, Table]]:
    """The started test01 on SQLite."""
    yield started_game(tmp_path)


def missed(app: App) -> dict[str, int]:
    with app.sessions() as session:
        return {p.power: p.missed for p in session.scalars(select(Player))}


def set_missed(app: App, **counts: int) -> None:
    with app.sessions() as session, session.begin():
        for seat in session.scalars(select(Player)):
            seat.missed = counts.get(seat.power, seat.missed)


# -- what counts as a missed phase ------------------------------------------------------


def test_an_unused_build_is_not_a_missed_phase_but_unordered_removals_are(
    game: tuple[App, Table],
) -> None:
    app, table = game
    game_map = standard_map()
    # France owes two builds and has room for one; Austria owes a removal.  Both missed
    # a phase before; nobody orders anything.
    units = [replace(u, location="bur") if u.location == "par" else u for u in game_map.start_units]
    centres = {**game_map.start_centres, "spa": "France", "bel": "France", "bud": "Russia"}
    put_position(app, Position.build(game_map, "W1901A", units, centres))
    set_missed(app, Austria=1, France=1)
    table.process("2026-11-25 20:00")
    assert missed(app) == {
        "Austria": 2, "England": 0, "France": 1, "Germany": 0, "Italy": 0, "Russia": 0,
        "Turkey": 0,
    }  # fmt: skip
    assert player(app, "Austria").status == "civil_disorder"
    assert player(app, "France").status == "active"


def test_a_retreat_not_ordered_is_not_a_missed_phase(game: tuple[App, Table]) -> None:
    app, table = game
    game_map = standard_map()
    army = next(u for u in game_map.start_units if u.location == "par")
    units = [u for u in game_map.start_units if u.location != "par"]
    dislodged = Dislodged(replace(army, location="bur"), "mun", ("gas", "pic"))
    put_position(app, Position.build(game_map, "S1901R", units, dislodged=[dislodged]))
    set_missed(app, France=1)
    table.process("2026-11-25 20:00")
    assert missed(app)["France"] == 1
    assert player(app, "France").status == "active"


# -- WAIT, per phase ----------------------------------------------------------------------


def test_wait_is_cleared_when_a_phase_is_processed_and_the_confirmation_says_it_is_set(
    game: tuple[App, Table],
) -> None:
    app, table = game
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET WAIT\nF Lon-NTH\n",
               "2026-11-23 13:00")  # fmt: skip
    [confirm] = table.new_mail()
    assert confirm.body.endswith(
        "WAIT is set: this phase will not be processed before its deadline.\n\n"
        "The deadline for S1901M is Wed Nov 25 2026 20:00:00 +0000 (Europe/London).\n"
    )
    assert player(app, "England").wait
    table.process("2026-11-25 20:00")
    assert not player(app, "England").wait  # the njudge's way: asked for again each phase
    table.new_mail()
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF NTH-Nwy\n", "2026-11-26 09:00")
    [confirm] = table.new_mail()
    assert "WAIT is set" not in confirm.body


# -- civil disorder, told to everyone -------------------------------------------------------

#: Complete S1901M orders (everything holds) by address, with the sign-on line.
HOLD = {
    "austria": "SIGNON Atest01 pw-aus\nA Vie H\nA Bud H\nF Tri H",
    "england": "SIGNON Etest01 pw-eng\nF Lon H\nF Edi H\nA Lvp H",
    "france": "SIGNON Ftest01 paris-123\nF Bre H\nA Par H\nA Mar H",
    "germany": "SIGNON Gtest01 pw-ger\nF Kie H\nA Ber H\nA Mun H",
    "italy": "SIGNON Itest01 pw-ita\nF Nap H\nA Rom H\nA Ven H",
    "russia": "SIGNON Rtest01 pw-rus\nF StP/SC H\nA Mos H\nA War H\nF Sev H",
}


def test_civil_disorder_is_told_to_the_power_the_master_and_everyone_and_orders_end_it(
    game: tuple[App, Table],
) -> None:
    app, table = game
    set_missed(app, Turkey=1)  # Turkey missed a phase before this one
    for who, body in HOLD.items():
        table.send(f"{who}@example.org", body, "2026-11-23 13:00")
    table.new_mail()
    table.process("2026-11-25 20:00")
    rows = table.check("disorder_into")
    assert player(app, "Turkey").status == "civil_disorder"
    # The results first, then the master's notice, the power's and everyone else's.
    assert [(r.to_addr.partition("@")[0], r.kind) for r in rows[8:]] == [
        ("gm", "notice"),
        ("turkey", "notice"),
        ("austria", "notice"),
        ("england", "notice"),
        ("france", "notice"),
        ("germany", "notice"),
        ("italy", "notice"),
        ("russia", "notice"),
    ]

    # Refused orders do not bring it back.
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nA Par-Bur\n", "2026-11-26 09:00")
    assert [r.kind for r in table.new_mail()] == ["confirm"]
    assert player(app, "Turkey").status == "civil_disorder"

    # The first order kept does, once for the message.
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nA Con-Bul\nF Ank-BLA\n",
               "2026-11-26 09:05")  # fmt: skip
    rows = table.check("disorder_back")
    assert [(r.to_addr.partition("@")[0], r.kind) for r in rows] == [
        ("austria", "notice"),
        ("england", "notice"),
        ("france", "notice"),
        ("germany", "notice"),
        ("italy", "notice"),
        ("russia", "notice"),
        ("gm", "notice"),
        ("turkey", "confirm"),
    ]
    assert rows[-1].body.splitlines()[3] == "Turkey is out of civil disorder."
    turkey = player(app, "Turkey")
    assert (turkey.status, turkey.missed) == ("active", 0)


# -- nmr = "wait": late notices that promise nothing, and the news that the game waits ----


def wait_game(app: App, **settings: object) -> None:
    """test01 under ``nmr = "wait"`` with 24 hours of grace after its movement deadlines."""
    with app.sessions() as session, session.begin():
        row = session.scalars(select(Game)).one()
        row.settings = {
            **row.settings, "nmr": "wait", **settings,
            "deadlines": {"movement": {"hours": 48, "at": "20:00", "grace": 24}},
        }  # fmt: skip


def late(app: App, when: str) -> int:
    with app.sessions() as session, session.begin():
        return send_late_notices(session, app.judge, at(when))


def due(app: App, when: str) -> list[tuple[str, str]]:
    with app.sessions() as session:
        return due_games(session, at(when))


def test_a_waiting_game_promises_no_time_and_says_once_that_it_waits(
    game: tuple[App, Table],
) -> None:
    app, table = game
    wait_game(app)
    for who in ("austria", "france", "germany", "italy", "russia"):
        table.send(f"{who}@example.org", HOLD[who], "2026-11-23 13:00")
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon H\n", "2026-11-23 13:01")
    table.new_mail()
    # At the deadline: England (some orders) and Turkey (none) are late; Turkey's missed
    # phase makes the game wait, so nobody is promised a time, the master included.
    assert late(app, "2026-11-25 20:00") == 8
    rows = table.check("wait_late")
    assert [(r.to_addr.partition("@")[0], r.kind) for r in rows][-1] == ("gm", "notice")
    assert not any("processed without them at" in r.body for r in rows)
    # The grace runs out: the game waits, and everyone following it is told once.
    assert due(app, "2026-11-26 20:00") == []
    assert late(app, "2026-11-26 20:00") == 8
    rows = table.check("wait_waiting")
    assert [(r.to_addr.partition("@")[0], r.subject.rpartition(": ")[2]) for r in rows] == [
        *[(who, "the game waits for missing orders") for who in
          ("austria", "england", "france", "germany", "italy", "russia", "turkey")],
        ("gm", "waiting for Turkey"),
    ]  # fmt: skip
    assert late(app, "2026-11-26 20:00") == late(app, "2026-11-27 09:00") == 0
    assert table.new_mail() == []
    # Turkey's orders end the wait (England's missing unit holds).
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nA Con-Bul\n", "2026-11-27 10:00")
    assert due(app, "2026-11-27 10:00") == [("test01", "S1901M")]


def test_a_wait_game_with_orders_from_every_power_promises_the_time(
    game: tuple[App, Table],
) -> None:
    app, table = game
    wait_game(app)
    for who in ("austria", "france", "germany", "italy", "russia"):
        table.send(f"{who}@example.org", HOLD[who], "2026-11-23 13:00")
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon H\n", "2026-11-23 13:01")
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nA Con-Bul\n", "2026-11-23 13:02")
    table.new_mail()
    assert late(app, "2026-11-25 20:00") == 8
    rows = table.new_mail()
    england = next(r for r in rows if r.to_addr == "england@example.org")
    assert "the phase will be processed\nwithout them at\n    Thu Nov 26 2026 20:00:00" in (
        england.body
    )
    assert late(app, "2026-11-26 20:00") == 0  # nothing missed: no waiting
    assert due(app, "2026-11-26 20:00") == [("test01", "S1901M")]


def test_an_anonymous_waiting_game_names_the_powers_to_the_master_only(
    game: tuple[App, Table],
) -> None:
    app, table = game
    wait_game(app, anonymous=True)
    for who, body in HOLD.items():
        if who != "france":
            table.send(f"{who}@example.org", body, "2026-11-23 13:00")
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nA Con-Bul\n", "2026-11-23 13:01")
    table.new_mail()
    assert late(app, "2026-11-26 20:00") == 8  # the deadline and grace passed unseen
    rows = table.new_mail()
    for row in rows:
        if row.to_addr not in ("gm@example.org", "france@example.org"):
            assert "France" not in row.body
            assert "no orders came from 1 power." in " ".join(row.body.split())
    gm = next(r for r in rows if r.to_addr == "gm@example.org")
    assert gm.subject == "Diplomacy game test01 S1901M: waiting for France"
    assert "without the names of the powers" in gm.body
    france = next(r for r in rows if r.to_addr == "france@example.org")
    assert "The game waits for you: send your orders for France" in france.body


# -- absences never move a deadline silently ------------------------------------------------


def test_an_absence_over_the_deadline_moves_it_and_everyone_is_told(
    game: tuple[App, Table],
) -> None:
    app, table = game
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nSET ABSENCE 2026-11-25 TO 2026-11-28\n",
               "2026-11-23 13:00")  # fmt: skip
    rows = table.check("absence_moves_deadline")
    assert game_row(app).deadline == at("2026-11-28 23:59")
    # Every player (Italy too), then the master; Italy's confirmation last.
    assert [r.to_addr.partition("@")[0] for r in rows] == [
        "austria", "england", "france", "germany", "italy", "russia", "turkey", "gm", "italy",
    ]  # fmt: skip
    assert rows[-1].kind == "confirm"


def test_an_absence_after_the_deadline_moves_nothing_now_and_the_next_phase_on_time(
    game: tuple[App, Table],
) -> None:
    app, table = game
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nSET ABSENCE 2026-11-27 TO 2026-11-29\n",
               "2026-11-23 13:00")  # fmt: skip
    [confirm] = table.new_mail()
    assert "Absence noted" in confirm.body and "deadline moves" not in confirm.body
    assert game_row(app).deadline == at("2026-11-25 20:00")
    # F1901M's deadline (Fri 27th 20:00) falls in the absence: the results give its end.
    table.process("2026-11-25 20:00")
    rows = table.new_mail()
    assert {r.kind for r in rows} == {"results"}
    assert rows[0].body.endswith(
        "The deadline for orders will be Sun Nov 29 2026 23:59:00 +0000 (Europe/London).\n"
    )
    assert game_row(app).deadline == at("2026-11-29 23:59")
    with app.sessions() as session:
        record = session.scalars(select(PhaseRecord).where(PhaseRecord.seq == 2)).one()
        assert record.deadline == at("2026-11-29 23:59")
