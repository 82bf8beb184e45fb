"""Acceptance: seven players play Spring 1901 to Winter 1901 by email.

Raw emails go in through the whole path (store, decode, commands, orders, replies); every
email the judge sends is compared word for word with a golden file per step, and the
position after each phase is asserted exactly.  The same game runs on SQLite and on a
private PostgreSQL server.  ``UPDATE_GOLDEN=1`` rewrites the golden files (then read them).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at, make_app

from judge.db.models import Game, InboundMessage, OutboundMessage
from judge.runtime.bootstrap import App
from judge.runtime.sender import deliver_pending
from judge.services.game_files import load_game
from judge.services.games import current_position, start_game


@pytest.fixture
def sqlite_app(tmp_path: Path) -> Iterator[App]:
    yield make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")


def play_first_year(app: App, tmp_path: Path) -> None:
    table = Table(app)
    game_file = tmp_path / "test01.toml"
    game_file.write_text(GAME_FILE)
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, game_file, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    # The seven players, then the game master (the roster; nobody watches yet).
    assert [m.to_addr for m in table.check("01_gamestart")] == [
        f"{p}@example.org"
        for p in ("austria", "england", "france", "germany", "italy", "russia", "turkey", "gm")
    ]

    # -- Spring 1901 ---------------------------------------------------------------
    assert table.send("england@example.org", (
        "SIGNON Etest01 pw-eng\n"
        "F Lon-NTH\n"
        "F Edinburgh -> Norwegian Sea\n"
        "A Lvp-Yor\n"
        "SIGNOFF\n"
        "Alice\n"
    ), "2026-11-23 13:00") == "done"  # fmt: skip
    table.send("france@example.org", (
        "signon france@test01 paris-123\n"
        "A Par-Bur, A Mar S A Par-Bur; F Bre-MAO\n"
    ), "2026-11-23 13:05")  # fmt: skip
    # A wrong password: nothing is taken, the reply says why.
    table.send("germany@example.org", "SIGNON Gtest01 wrong\nA Mun-Ruh\n", "2026-11-23 13:10")
    # A rejected order, then the corrected resend.
    table.send("germany@example.org", (
        "SIGNON Gtest01 pw-ger\nA Mun-Ruh\nA Ber-Kie\nF Kie-Mun\n"
    ), "2026-11-23 13:15")  # fmt: skip
    table.send("germany@example.org", "SIGNON Gtest01 pw-ger\nF Kie-Den\n", "2026-11-23 13:20")
    table.send("italy@example.org", (
        "SIGNON Itest01 pw-ita\nA(Ven)-Tyr\nA(Rom)-Ven\nF(Nap)-ION\n"
    ), "2026-11-23 13:25")  # fmt: skip
    table.send("austria@example.org", (
        "SIGNON Atest01 pw-aus\n"
        "Army Vienna moves to Galicia\n"
        "A Bud-Ser\n"
        "F Tri H\n"
        "\n"
        "On Mon, 23 Nov 2026 at 12:00, TESTJUDGE <judge@example.org> wrote:\n"
        "> A Vie-Boh\n"
    ), "2026-11-23 13:30")  # fmt: skip
    table.send("russia@example.org", (
        "SIGNON Rtest01 pw-rus\n"
        "(RUS FLT (STP SCS)) MTO BOT\n"
        "A War-Ukr\nA Mos-Sev\nF Sev-Bla\n"
    ), "2026-11-23 13:35")  # fmt: skip
    # Turkey sends nothing.
    table.check("02_spring_orders")
    table.process("2026-11-25 20:00")
    table.check("03_spring_results")
    assert table.phase() == "F1901M"
    assert table.units() == {
        "ank": "Tur F", "bla": "Rus F", "bot": "Rus F", "bur": "Fra A", "con": "Tur A",
        "den": "Ger F", "gal": "Aus A", "ion": "Ita F", "kie": "Ger A", "mao": "Fra F",
        "mar": "Fra A", "nth": "Eng F", "nwg": "Eng F", "ruh": "Ger A", "ser": "Aus A",
        "sev": "Rus A", "smy": "Tur A", "tri": "Aus F", "tyr": "Ita A", "ukr": "Rus A",
        "ven": "Ita A", "yor": "Eng A",
    }  # fmt: skip

    # -- Fall 1901 -----------------------------------------------------------------
    table.send(
        "england@example.org",
        "SIGNON Etest01 pw-eng\nF NTH-Nwy\nA Yor H\nF NWG H\n",
        "2026-11-26 09:00",
    )
    table.send("france@example.org", (
        "SIGNON Ftest01 paris-123\nA Bur-Bel\nF MAO-Spa\nA Mar H\n"
    ), "2026-11-26 09:05")  # fmt: skip
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nF MAO-Por\n", "2026-11-26 09:10")
    table.send("germany@example.org", (
        "SIGNON Gtest01 pw-ger\nA Ruh-Hol\nF Den H\nA Kie-Mun\n"
    ), "2026-11-26 09:15")  # fmt: skip
    table.send("italy@example.org", (
        "SIGNON Itest01 pw-ita\nA Tyr-Tri\nA Ven S A Tyr-Tri\nF ION-Tun\n"
    ), "2026-11-26 09:20")  # fmt: skip
    table.send(
        "austria@example.org",
        "SIGNON Atest01 pw-aus\nF Tri H\nA Ser H\nA Gal H\n",
        "2026-11-26 09:25",
    )
    table.send("russia@example.org", (
        "SIGNON Rtest01 pw-rus\nF Bot-Swe\nA Ukr-Rum\nA Sev H\nF Bla H\n"
    ), "2026-11-26 09:30")  # fmt: skip
    table.send(
        "turkey@example.org",
        "SIGNON Ttest01 pw-tur\nA Con-Bul\nF Ank H\nA Smy H\n",
        "2026-11-26 09:35",
    )
    table.check("04_fall_orders")
    table.process("2026-11-27 20:00")
    table.check("05_fall_results")
    assert table.phase() == "F1901R"
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        position = current_position(session, game)
    assert {p: d.retreats for p, d in position.dislodged.items()} == {"tri": ("adr", "alb")}
    after_fall = {
        "ank": "Tur F", "bel": "Fra A", "bla": "Rus F", "bul": "Tur A", "den": "Ger F",
        "gal": "Aus A", "hol": "Ger A", "mar": "Fra A", "mun": "Ger A", "nwg": "Eng F",
        "nwy": "Eng F", "por": "Fra F", "rum": "Rus A", "ser": "Aus A", "sev": "Rus A",
        "smy": "Tur A", "swe": "Rus F", "tri": "Ita A", "tun": "Ita F", "ven": "Ita A",
        "yor": "Eng A",
    }  # fmt: skip
    assert table.units() == after_fall

    # -- Fall 1901 retreats: Austria retreats to Albania (a first try to Venice fails) --
    table.send("austria@example.org", "SIGNON Atest01 pw-aus\nF Tri-Ven\n", "2026-11-28 10:00")
    table.send("austria@example.org", "SIGNON Atest01 pw-aus\nF Tri-Alb\n", "2026-11-28 10:05")
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Nwy-Swe\n", "2026-11-28 10:10")
    table.check("06_retreat_orders")
    table.process("2026-11-28 20:00")
    table.check("07_retreat_results")
    assert table.phase() == "W1901A"
    assert table.units() == {**after_fall, "alb": "Aus F"}

    # -- Winter 1901 ---------------------------------------------------------------
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nBuild F Lon\n", "2026-11-29 09:00")
    table.send(
        "france@example.org", "SIGNON Ftest01 paris-123\nBuild A Par\nB F Bre\n", "2026-11-29 09:05"
    )
    table.send(
        "germany@example.org",
        "SIGNON Gtest01 pw-ger\nBuild F Kie, Build A Ber\n",
        "2026-11-29 09:10",
    )
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nBuild F Nap\n", "2026-11-29 09:15")
    table.send(
        "russia@example.org",
        "SIGNON Rtest01 pw-rus\nBuild F StP\nBuild A War\n",
        "2026-11-29 09:20",
    )
    table.send("russia@example.org", "SIGNON Rtest01 pw-rus\nBuild F StP/NC\n", "2026-11-29 09:25")
    table.check("08_winter_orders")
    table.process("2026-11-30 20:00")
    table.check("09_winter_results")
    assert table.phase() == "S1902M"
    assert table.units() == {
        "alb": "Aus F", "ank": "Tur F", "bel": "Fra A", "ber": "Ger A", "bla": "Rus F",
        "bre": "Fra F", "bul": "Tur A", "den": "Ger F", "gal": "Aus A", "hol": "Ger A",
        "kie": "Ger F",
        "lon": "Eng F", "mar": "Fra A", "mun": "Ger A", "nap": "Ita F", "nwg": "Eng F",
        "nwy": "Eng F", "par": "Fra A", "por": "Fra F", "rum": "Rus A", "ser": "Aus A",
        "sev": "Rus A", "smy": "Tur A", "stp/nc": "Rus F", "swe": "Rus F", "tri": "Ita A",
        "tun": "Ita F", "ven": "Ita A", "war": "Rus A", "yor": "Eng A",
    }  # fmt: skip
    with app.sessions() as session:
        states = set(session.scalars(select(InboundMessage.state)))
    assert states == {"done"}
    # Everything queued reaches the local Maildirs exactly once.
    with app.sessions() as session:
        total = len(session.scalars(select(OutboundMessage.id)).all())
    deliver = deliver_pending
    assert deliver(app.sessions, app.judge, app.transport, lambda: at("2026-11-30 20:01")) == total
    assert deliver(app.sessions, app.judge, app.transport, lambda: at("2026-11-30 20:02")) == 0
    france = app.judge.settings.var_dir / "mail" / "france@example.org" / "new"
    # Game start, four results and four confirmations (one of them for a corrected order).
    assert len(list(france.iterdir())) == 9


def test_first_year_on_sqlite(sqlite_app: App, tmp_path: Path) -> None:
    play_first_year(sqlite_app, tmp_path)


def test_first_year_on_postgresql(postgres_database_url: str, tmp_path: Path) -> None:
    play_first_year(make_app(tmp_path, postgres_database_url), tmp_path)
