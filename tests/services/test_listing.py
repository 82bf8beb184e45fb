"""LIST <game>: the game's settings, schedule, phase, players and who has orders in, for
anyone; and for its game master every power's orders, who is late, WAITs, absences, civil
disorder and the observers (an anonymous game's master still sees everything)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import select
from support import DATA
from support.servicekit import Table, at, started_game

from judge.db.models import Game, Observer, Player, PlayerStatus
from judge.runtime.bootstrap import App

GOLDEN = DATA / "golden" / "listing"
GM = "SIGNON Mtest01 gm-secret\n"


def golden(body: str, name: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(body, encoding="utf-8")
    assert body == path.read_text(encoding="utf-8")


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    """Spring 1901 of the service kit's game with 12 hours of movement grace: Turkey
    resigned, Italy in civil disorder, Russia away next week, an observer; England's
    orders complete (and WAIT), France's partly in."""
    app, table = started_game(tmp_path)
    with app.sessions() as session, session.begin():
        row = session.scalars(select(Game)).one()
        seats = {p.power: p for p in session.scalars(select(Player))}
        seats["Turkey"].status = PlayerStatus.RESIGNED
        seats["Italy"].status = PlayerStatus.CIVIL_DISORDER
        seats["Russia"].absence_from = at("2026-12-01 00:00")
        seats["Russia"].absence_to = at("2026-12-03 00:00")
        session.add(Observer(game_id=row.id, address="watcher@example.net",
                             timezone="America/New_York"))  # fmt: skip
    table.send("gm@example.org", GM + "SET GRACE 12\n", "2026-11-23 13:00")
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-NTH\nF Edi-NWG\n"
               "A Lvp-Yor\nSET WAIT\n", "2026-11-23 13:01")  # fmt: skip
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nA Par-Bur\n", "2026-11-23 13:02")
    table.new_mail()
    return app, table


def anonymous(app: App) -> None:
    with app.sessions() as session, session.begin():
        row = session.scalars(select(Game)).one()
        row.settings = {**(row.settings or {}), "anonymous": True}


def answer(table: Table) -> str:
    [mail] = table.new_mail()
    return mail.body


def test_list_for_anyone(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("stranger@example.net", "LIST test01\n", "2026-11-24 10:00")
    golden(answer(table), "public.txt")


def test_list_for_a_player_shows_the_deadline_in_their_own_zone(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("russia@example.org", "SIGNON Rtest01 pw-rus\nLIST\n", "2026-11-24 10:00")
    body = answer(table)
    assert (
        "Deadline: Wed Nov 25 2026 20:00:00 +0000 (Europe/London)\n"
        "  in your own time zone: Wed Nov 25 2026 23:00:00 +0300 (Europe/Moscow)\n"
        "Late orders taken until: Thu Nov 26 2026 08:00:00 +0000 (Europe/London)\n"
    ) in body
    assert "Current orders" not in body and "watcher@example.net" not in body


def test_list_of_an_anonymous_game(game: tuple[App, Table]) -> None:
    app, table = game
    anonymous(app)
    table.send("stranger@example.net", "LIST test01\n", "2026-11-24 10:00")
    golden(answer(table), "anonymous.txt")


def test_list_for_the_game_master(game: tuple[App, Table]) -> None:
    _app, table = game
    # Within the grace after the deadline: the powers owing orders are late.
    table.send("gm@example.org", GM + "LIST\n", "2026-11-26 07:00")
    golden(answer(table), "master.txt")


def test_an_anonymous_game_s_master_sees_everything(game: tuple[App, Table]) -> None:
    app, table = game
    anonymous(app)
    table.send("gm@example.org", GM + "LIST test01\n", "2026-11-24 10:00")
    body = answer(table)
    assert "Anonymous: players' addresses are not shown." in body
    assert "  France   france@example.org  active          orders partly in\n" in body
    assert "France (orders partly in):\n  France: Army Paris -> Burgundy.\n" in body
    assert "Observers: allowed, 1 watching (watcher@example.net)." in body


def test_list_sees_orders_given_earlier_in_the_same_message(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("germany@example.org", "SIGNON Gtest01 pw-ger\nA Mun-Ruh\nLIST\n",
               "2026-11-24 10:00")  # fmt: skip
    assert "  Germany  germany@example.org active          orders partly in\n" in answer(table)


def test_list_without_a_game_still_lists_the_games(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("stranger@example.net", "LIST\n", "2026-11-24 10:00")
    assert "Games on this judge:\n  test01: active, S1901M\n" in answer(table)


def test_list_shows_an_ejected_seat_as_ejected(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("gm@example.org", GM + "EJECT Germany\n", "2026-11-23 14:00")
    table.new_mail()
    table.send("someone@example.net", "LIST test01\n", "2026-11-23 14:05")
    [line] = [line for line in answer(table).splitlines() if line.startswith("  Germany")]
    assert line == "  Germany  germany@example.org ejected"
