"""Acceptance (issue 13): a game master runs a game by email, with a fixed clock.

The master sees a late power (LIST), enters its orders as that power (BECOME), previews,
processes, rolls back one phase and processes again with different orders; an observer
receives the results; a power resigns and a new player takes its seat over by email with
the hold-over; a power goes into civil disorder and comes back, every player told; the
master moves a deadline by mail and every player is told.  Every email the judge sends is
compared word for word with a golden file per step (``UPDATE_GOLDEN=1`` rewrites them:
then read them).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from sqlalchemy import select
from support.servicekit import Table, at, make_app

from judge.db.models import Game, InboundMessage, OutboundMessage, Player, PlayerStatus
from judge.runtime.bootstrap import App
from judge.services.game_files import load_game
from judge.services.games import due_games, start_game
from judge.services.notices import send_late_notices

GAME_FILE = """\
[game]
name = "test01"
rules = "2023"
timezone = "Europe/London"
hold_over = true

[deadlines]
movement = { hours = 48, at = "20:00", grace = 24 }
retreat = 24
adjustment = 24

[master]
address = "gm@example.org"
password = "gm-secret"

[players]
Austria = { address = "austria@example.org", password = "pw-aus" }
England = { address = "england@example.org", password = "pw-eng" }
France = { address = "france@example.org", password = "pw-fra" }
Germany = { address = "germany@example.org", password = "pw-ger" }
Italy = { address = "italy@example.org", password = "pw-ita" }
Russia = { address = "russia@example.org", password = "pw-rus", timezone = "Europe/Moscow" }
Turkey = { address = "turkey@example.org", password = "pw-tur" }
"""

GM = "gm@example.org"
SIGNON_GM = "SIGNON Mtest01 gm-secret\n"


def recipients(rows: list[OutboundMessage]) -> list[str]:
    return [row.to_addr for row in rows]


def seat(app: App, power: str) -> Player:
    with app.sessions() as session:
        return session.scalars(select(Player).where(Player.power == power)).one()


def deadline(app: App) -> datetime | None:
    with app.sessions() as session:
        return session.scalars(select(Game)).one().deadline


def test_a_game_master_runs_a_game_by_email(tmp_path: Path) -> None:
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    table = Table(app)
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE)
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    # Every player's game-start mail lists the players' addresses; the master gets the roster.
    assert recipients(table.check("gm_00_start")) == [
        *(f"{p}@example.org" for p in (
            "austria", "england", "france", "germany", "italy", "russia", "turkey"
        )),
        GM,
    ]  # fmt: skip

    # -- an observer joins ------------------------------------------------------------
    table.send("watcher@example.net", "OBSERVE test01\n", "2026-11-23 12:30")
    assert recipients(table.check("gm_01_observe")) == ["watcher@example.net"]

    # -- Spring 1901: five powers order; Italy and Turkey are late ----------------------
    table.send("england@example.org", (
        "SIGNON Etest01 pw-eng\nF Lon-NTH\nF Edi-NWG\nA Lvp-Yor\n"
    ), "2026-11-23 13:00")  # fmt: skip
    table.send("france@example.org", (
        "SIGNON Ftest01 pw-fra\nA Par-Bur\nA Mar S A Par-Bur\nF Bre-MAO\n"
    ), "2026-11-23 13:05")  # fmt: skip
    table.send("germany@example.org", (
        "SIGNON Gtest01 pw-ger\nA Mun-Ruh\nA Ber-Kie\nF Kie-Den\n"
    ), "2026-11-23 13:10")  # fmt: skip
    table.send("russia@example.org", (
        "SIGNON Rtest01 pw-rus\nF StP/SC-BOT\nA War-Ukr\nA Mos-Sev\nF Sev-Bla\n"
    ), "2026-11-23 13:15")  # fmt: skip
    table.send("austria@example.org", (
        "SIGNON Atest01 pw-aus\nA Vie-Gal\nA Bud-Ser\nF Tri-Alb\n"
    ), "2026-11-23 13:20")  # fmt: skip
    table.check("gm_02_spring_orders")

    # The deadline passes: the late powers, the others and the master are told.
    with app.sessions() as session, session.begin():
        send_late_notices(session, app.judge, at("2026-11-25 20:01"))
    table.check("gm_03_late_notices")

    # The master sees who is late.
    table.send(GM, SIGNON_GM + "LIST test01\n", "2026-11-25 21:00")
    listing = table.check("gm_04_master_list")
    assert recipients(listing) == [GM]
    assert "LATE" in listing[0].body

    # The master accepts Italy's late orders (house rule 3.11) and previews the phase.
    table.send(GM, SIGNON_GM + (
        "BECOME Italy\nA Ven-Tyr\nA Rom-Ven\nF Nap-ION\nSIGNON Mtest01 gm-secret\nPREVIEW\n"
    ), "2026-11-25 21:10")  # fmt: skip
    master_reply, italy_copy = table.check("gm_05_become_preview")
    assert recipients([master_reply, italy_copy]) == [GM, "italy@example.org"]
    assert "Orders you entered for Italy (S1901M, complete):" in master_reply.body
    assert "Preview" not in italy_copy.body and "entered these orders" in italy_copy.body
    assert table.phase() == "S1901M"  # the preview stored nothing

    table.send(GM, SIGNON_GM + "PROCESS\n", "2026-11-25 21:20")
    results = table.check("gm_06_processed")
    assert table.phase() == "F1901M"
    # Everyone gets the results: the seven players, the master and the observer.
    assert "watcher@example.net" in recipients(results)
    assert table.units()["tyr"] == "Ita A"
    assert table.units()["bur"] == "Fra A"

    # -- the master rolls the phase back: France's order is to be read again ---------------
    table.send(GM, SIGNON_GM + "ROLLBACK S1901M France's order was misread\n", "2026-11-25 21:30")
    table.check("gm_07_rollback")
    assert table.phase() == "S1901M"
    assert table.units()["par"] == "Fra A"
    table.send("france@example.org", "SIGNON Ftest01 pw-fra\nA Par-Pic\n", "2026-11-26 09:00")
    table.check("gm_08_france_again")

    # The master moves the deadline by mail: every player (and the observer) is told.
    table.send(GM, SIGNON_GM + "SET DEADLINE 2026-11-26 18:00\n", "2026-11-26 10:00")
    news = table.check("gm_09_deadline_moved")
    assert len(news) == 1 + 7 + 1 + 1  # the master's reply, the players, the master, the observer
    assert deadline(app) == at("2026-11-26 18:00")

    table.process("2026-11-27 18:00")  # the deadline and its grace
    table.check("gm_10_processed_again")
    assert table.phase() == "F1901M"
    units = table.units()
    assert units["pic"] == "Fra A" and units["tyr"] == "Ita A" and "bur" not in units
    assert seat(app, "Turkey").missed == 1

    # -- Fall 1901: Austria resigns, a new player takes the seat over ------------------------
    table.send("austria@example.org", "SIGNON Atest01 pw-aus\nRESIGN\n", "2026-11-28 09:00")
    table.check("gm_11_resign")
    assert seat(app, "Austria").status == PlayerStatus.RESIGNED
    table.send(GM, SIGNON_GM + "SET PASSWORD Austria vienna-new-1\n", "2026-11-28 09:10")
    table.check("gm_12_takeover_password")
    before = deadline(app)
    table.send(
        "new.austria@example.net",
        "SIGNON austria@test01 vienna-new-1\nA Gal H\n",
        "2026-11-28 10:00",
    )
    table.check("gm_13_takeover")
    austria = seat(app, "Austria")
    assert (austria.address, austria.status) == ("new.austria@example.net", "active")
    # The hold-over: one more phase length (48 hours) before the deadline.
    assert before == at("2026-11-29 20:00")
    assert deadline(app) == at("2026-12-01 20:00")

    # Turkey misses a second movement phase: civil disorder, everyone told.
    table.process("2026-12-02 20:00")
    table.check("gm_14_fall_results")
    assert seat(app, "Turkey").status == PlayerStatus.CIVIL_DISORDER
    while table.phase() != "S1902M":
        table.process("2026-12-03 20:00")
    table.check("gm_15_to_spring_1902")

    # -- Spring 1902: Turkey sends orders again and comes back ------------------------
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nA Con-Bul\n", "2026-12-04 09:00")
    table.check("gm_16_turkey_back")
    turkey = seat(app, "Turkey")
    assert (turkey.status, turkey.missed) == (PlayerStatus.ACTIVE, 0)

    with app.sessions() as session:
        assert set(session.scalars(select(InboundMessage.state))) == {"done"}
        assert due_games(session, at("2026-12-04 09:01")) == []
