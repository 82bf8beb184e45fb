"""Seats by mail (house rules 4.6): RESIGN and EJECT open a seat and every reader is told;
a new player takes an open seat over with its takeover password (with the hold-over
rule, one more phase length); the game master's SET PASSWORD and SET ADDRESS for a
player.  Every mail is compared with a golden file (tests/data/golden/e2e/seats_*)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at, game_row, make_app, player, started_game

from judge.config import ConfigError, load_game_config
from judge.db.models import OrderRecord, OutboundMessage
from judge.runtime.bootstrap import App
from judge.services.game_files import load_game
from judge.services.games import start_game
from judge.services.passwords import verify_password

GM = "SIGNON Mtest01 gm-secret\n"
OTHERS = [f"{p}@example.org" for p in ("austria", "france", "germany", "italy", "russia")]


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    return started_game(tmp_path)


def _game_with(tmp_path: Path, text: str) -> tuple[App, Table]:
    """A judge with ``test01`` loaded from ``text`` and started at 2026-11-23 12:00."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(text)
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    table = Table(app)
    table.new_mail()
    return app, table


def _refusals(table: Table) -> list[str]:
    """The refused lines and reasons of the one reply queued since last asked."""
    rows = table.new_mail()
    assert len(rows) == 1, [r.subject for r in rows]
    body = rows[0].body
    return [part for part in body.split("\n\n") if part.startswith("> ")]


def _active_orders(app: App, power: str) -> list[str]:
    seat = player(app, power)
    with app.sessions() as session:
        rows = session.scalars(
            select(OrderRecord).where(
                OrderRecord.player_id == seat.id, OrderRecord.active.is_(True)
            )
        )
        return [row.raw for row in rows]


# -- RESIGN ---------------------------------------------------------------------------------


def test_resign_tells_every_reader_and_the_reply_has_no_order_block(
    game: tuple[App, Table],
) -> None:
    app, table = game
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nA Con-Bul\nRESIGN\nA Smy-Arm\n",
               "2026-11-23 13:00")  # fmt: skip
    rows = table.check("seats_resign")
    # The game master's own notice, every other player (not the game master twice), and
    # a plain reply: nothing after RESIGN is done.
    assert [r.to_addr for r in rows] == [
        "gm@example.org", "austria@example.org", "england@example.org", *OTHERS[1:],
        "turkey@example.org",
    ]  # fmt: skip
    assert rows[-1].kind == "reply-signed" and "Movement orders" not in rows[-1].body
    assert "> A Smy-Arm\nNot done: you resigned from test01 above in this message." in (
        rows[-1].body
    )
    assert player(app, "Turkey").status == "resigned"
    assert _active_orders(app, "Turkey") == ["A Con-Bul"]


def test_a_resignation_from_another_address_is_told_to_the_registered_one(
    game: tuple[App, Table],
) -> None:
    _app, table = game
    table.send("someone@elsewhere.example", "SIGNON Ttest01 pw-tur\nRESIGN\n", "2026-11-23 13:00")
    rows = table.new_mail()
    seat_open = [r.to_addr for r in rows if r.subject.endswith("Turkey resigned; the seat is open")]
    assert seat_open == [
        "austria@example.org", "england@example.org", *OTHERS[1:], "turkey@example.org",
    ]  # fmt: skip
    assert rows[-1].to_addr == "someone@elsewhere.example"


# -- EJECT ----------------------------------------------------------------------------------


def test_eject_opens_the_seat_and_every_reader_is_told(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-NTH\nSET WAIT\n",
               "2026-11-23 13:00")  # fmt: skip
    table.new_mail()
    table.send("gm@example.org", GM + "EJECT E\n", "2026-11-23 14:00")
    rows = table.check("seats_eject")
    assert [r.to_addr for r in rows] == [
        "england@example.org", *OTHERS, "turkey@example.org", "gm@example.org", "gm@example.org",
    ]  # fmt: skip
    england = player(app, "England")
    assert (england.status, england.ejected_at, england.password_hash, england.wait) == (
        "civil_disorder", at("2026-11-23 14:00"), "", False,
    )  # fmt: skip
    # Its units hold: the orders it had are dropped.
    assert _active_orders(app, "England") == []
    # The old password no longer signs on (and nothing after it is read).
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-ENG\n", "2026-11-23 14:10")
    assert _refusals(table)[0] == (
        "> SIGNON Etest01 ******\n"
        "Wrong password for England in test01, an open seat (the game master ejected its "
        "player): the game master has set no takeover password for it yet (write to "
        "gm@example.org)."
    )
    assert _active_orders(app, "England") == []


def test_eject_refusals_change_nothing(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nEJECT England\n",
               "2026-11-23 13:00")  # fmt: skip
    assert (
        "  EJECT England\n    -> only the game master can do this: SIGNON M<game> <password> "
        "first\n"
    ) in table.new_mail()[0].body
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nRESIGN\n", "2026-11-23 13:05")
    table.new_mail()
    table.send("gm@example.org", GM + "EJECT Spain\nEJECT\nEJECT England France\nEJECT Turkey\n"
               "EJECT Italy\nEJECT I\n", "2026-11-23 14:00")  # fmt: skip
    rows = table.new_mail()
    reply = rows[-1].body
    assert (
        "> EJECT Spain\n'Spain' is not a power of test01: name one of Austria, England, "
        "France, Germany, Italy, Russia, Turkey.\n\n"
        "> EJECT\nEJECT takes one power, as in 'EJECT England' or 'EJECT E'.\n\n"
        "> EJECT England France\nEJECT takes one power, as in 'EJECT England' or "
        "'EJECT E'.\n\n"
        "> EJECT Turkey\nTurkey resigned: its seat is open already; set its takeover "
        "password with SET PASSWORD Turkey <password>.\n\n"
        "> EJECT I\nItaly was ejected already: its seat is open.\n"
    ) in reply
    assert "Italy (italy@example.org) is ejected from test01" in reply
    assert player(app, "England").status == "active"
    assert player(app, "Turkey").ejected_at is None


# -- taking an open seat over ---------------------------------------------------------------


def test_takeover_of_an_ejected_seat_without_hold_over(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-NTH\n", "2026-11-23 13:00")
    table.send("gm@example.org", GM + "EJECT England\nSET PASSWORD England take-over-1\n",
               "2026-11-23 14:00")  # fmt: skip
    gm_reply = table.new_mail()[-1].body
    assert (
        "Takeover password for England in test01 set (the game master ejected its player): "
        "a new player takes the seat over with SIGNON england@test01 <takeover password>."
    ) in gm_reply
    assert "take-over-1" not in gm_reply
    table.send("newbie@example.net", "SIGNON england@test01 take-over-1\nA Lvp-Yor\n",
               "2026-11-23 15:00")  # fmt: skip
    rows = table.check("seats_takeover")
    assert [(r.to_addr, r.kind) for r in rows] == [
        ("newbie@example.net", "takeover"),
        *((address, "notice") for address in [*OTHERS, "turkey@example.org", "gm@example.org"]),
        ("england@example.org", "notice"),
        ("newbie@example.net", "confirm"),
    ]
    england = player(app, "England")
    assert (england.address, england.status, england.missed, england.takeover_hash) == (
        "newbie@example.net", "active", 0, None,
    )  # fmt: skip
    assert verify_password(england.password_hash, "take-over-1")
    assert game_row(app).deadline == at("2026-11-25 20:00")  # no hold-over: unchanged
    assert _active_orders(app, "England") == ["A Lvp-Yor"]
    # The takeover password is the new player's own now; the seat is no longer open.
    table.send("newbie@example.net", "SIGNON Etest01 take-over-1\n", "2026-11-23 15:10")
    assert table.new_mail()[0].kind == "confirm"
    table.send("other@example.net", "SIGNON Etest01 take-over-1x\n", "2026-11-23 15:20")
    assert "England is not an open seat (it has a player), so it cannot be taken over" in (
        _refusals(table)[0].replace("\n", " ")
    )


HOLD_OVER_FILE = GAME_FILE.replace('timezone = "Europe/London"\n',
                                   'timezone = "Europe/London"\nhold_over = true\n').replace(
    'Turkey = { address = "turkey@example.org", password = "pw-tur" }',
    'Turkey = { address = "turkey@example.org", password = "pw-tur", takeover = "sultan-seat-1" }',
)  # fmt: skip


def test_takeover_with_hold_over_moves_the_deadline_one_phase_length(tmp_path: Path) -> None:
    app, table = _game_with(tmp_path, HOLD_OVER_FILE)
    # The game file's takeover password is kept hashed, never as written.
    assert verify_password(player(app, "Turkey").takeover_hash, "sultan-seat-1")
    assert "sultan-seat-1" not in str(game_row(app).file_applied)
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nRESIGN\n", "2026-11-24 09:00")
    table.new_mail()
    table.send("sultan@example.net", "SIGNON Ttest01 sultan-seat-1\n", "2026-11-24 10:00")
    rows = table.check("seats_takeover_hold_over")
    # Movement phases here are 48 hours: Wed 25 at 20:00 becomes Fri 27 at 20:00.
    assert game_row(app).deadline == at("2026-11-27 20:00")
    assert "Fri Nov 27 2026 20:00:00 +0000 (Europe/London)" in rows[0].body
    # A resigned player who is not in the game any more hears of it as the old address.
    assert [r.to_addr for r in rows][-2:] == ["turkey@example.org", "sultan@example.net"]
    with app.sessions() as session:
        record = game_row(app)
        from judge.services.games import current_phase

        assert current_phase(session, record).deadline == at("2026-11-27 20:00")  # type: ignore[union-attr]


def test_takeover_refusals_never_say_whether_the_password_was_right(
    game: tuple[App, Table],
) -> None:
    app, table = game
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nRESIGN\n", "2026-11-23 13:00")
    table.new_mail()
    # An open seat without a takeover password.
    table.send("a@example.net", "SIGNON turkey@test01 anything-1\n", "2026-11-23 13:10")
    assert _refusals(table) == [
        "> SIGNON turkey@test01 **********\n"
        "Wrong password for Turkey in test01, an open seat (its player resigned): the game "
        "master has set no takeover password for it yet (write to gm@example.org)."
    ]
    table.send("gm@example.org", GM + "SET PASSWORD T sultan-seat-1\n", "2026-11-23 13:20")
    table.new_mail()
    # A player of another power may not take a second one (house rule 2.3), even with the
    # right password; said before any password is looked at.
    table.send("italy@example.org", "SIGNON Ttest01 sultan-seat-1\n", "2026-11-23 13:30")
    assert _refusals(table) == [
        "> SIGNON Ttest01 *************\n"
        "Italy@example.org plays Italy in test01 already, and a player may play one power "
        "only (house rule 2.3)."
    ]
    # Wrong takeover passwords count towards the seat's lockout like any other.
    for minute in range(5):
        table.send("a@example.net", "SIGNON Ttest01 sultan-seat-2\n", f"2026-11-23 14:0{minute}")
    rows = table.new_mail()
    assert rows[0].body.startswith(
        "> SIGNON Ttest01 *************\n"
        "Wrong password for Turkey in test01, an open seat (its player resigned): a new "
        "player takes it over with the takeover password the game master gives (write to "
        "gm@example.org).\n"
    )
    assert [r.subject for r in rows if "locked" in r.subject.lower()]
    table.send("a@example.net", "SIGNON Ttest01 sultan-seat-1\n", "2026-11-23 14:10")
    assert "Not checked: after 5 wrong passwords for Turkey in test01" in _refusals(table)[0]
    assert player(app, "Turkey").status == "resigned"
    table.send("a@example.net", "SIGNON Ttest01 sultan-seat-1\n", "2026-11-23 15:10")
    assert table.new_mail()[0].kind == "takeover"
    assert player(app, "Turkey").address == "a@example.net"


def test_a_power_in_civil_disorder_is_open_and_its_player_may_come_back(
    game: tuple[App, Table],
) -> None:
    app, table = game
    for when in ("2026-11-25 20:00", "2026-11-27 20:00"):  # Austria misses two phases
        table.process(when)
    table.new_mail()
    assert player(app, "Austria").status == "civil_disorder"
    table.send("gm@example.org", GM + "SET PASSWORD Austria danube-seat\n", "2026-11-28 10:00")
    assert "Takeover password for Austria in test01 set (its player missed two phases" in (
        table.new_mail()[-1].body.replace("\n", " ")
    )
    # Its own player's password still signs on (the civil disorder helper's business then).
    table.send("austria@example.org", "SIGNON Atest01 pw-aus\n", "2026-11-28 10:05")
    assert table.new_mail()[0].kind == "confirm"
    table.send("new@example.net", "SIGNON Atest01 danube-seat\n", "2026-11-28 10:10")
    assert table.new_mail()[0].kind == "takeover"
    assert player(app, "Austria").status == "active"


# -- the game master's SET PASSWORD and SET ADDRESS -------------------------------------------


def test_master_set_password_and_address_for_a_player(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("gm@example.org", GM + "SET PASSWORD England new-pass-1\n"
               "SET ADDRESS England <Eng2@Example.net>\n", "2026-11-23 13:00")  # fmt: skip
    rows = table.check("seats_master_settings")
    assert [(r.to_addr, r.secret) for r in rows] == [
        ("england@example.org", True), ("eng2@example.net", False), ("gm@example.org", False),
    ]  # fmt: skip
    assert "new-pass-1" not in rows[-1].body
    table.send("eng2@example.net", "SIGNON Etest01 new-pass-1\n", "2026-11-23 13:10")
    assert table.new_mail()[0].kind == "confirm"
    table.send("gm@example.org", GM + "SET PASSWORD England short\nSET ADDRESS England "
               "judge@example.org\nSET ADDRESS E france@example.org\nSET ADDRESS Spain "
               "x@example.org\nSET ADDRESS E eng2@example.net\n", "2026-11-23 14:00")  # fmt: skip
    assert _refusals(table) == [
        "> SET PASSWORD ******* *****\nA password needs at least 8 characters (this one has "
        "5): choose a longer one, e.g. four words joined by dashes.",
        "> SET ADDRESS England judge@example.org\nJudge@example.org is this judge's own "
        "address: give your own.",
        "> SET ADDRESS E france@example.org\nFrance@example.org plays France in test01 "
        "already, and a player may play one power only (house rule 2.3).",
        "> SET ADDRESS Spain x@example.org\n'Spain' is not a power of test01: name one of "
        "Austria, England, France, Germany, Italy, Russia, Turkey.",
        "> SET ADDRESS E eng2@example.net\nEngland's address is eng2@example.net already.",
    ]
    # A player's two-word forms are refused: one is the game master's, the other no
    # password.
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nSET PASSWORD two words\n"
               "SET ADDRESS England f@example.org\n", "2026-11-23 14:10")  # fmt: skip
    body = table.new_mail()[0].body
    assert (
        "  SET PASSWORD *** *****\n    -> a password is one word with no spaces: write 'SET "
        "PASSWORD <new password>' ('SET PASSWORD <power> <new>' is the game master's)\n"
        "  SET ADDRESS England f@example.org\n    -> only the game master can do this: "
        "SIGNON M<game> <password> first\n"
    ) in body
    assert player(app, "England").address == "eng2@example.net"


def test_master_set_address_refuses_an_open_seat(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("gm@example.org", GM + "EJECT England\n", "2026-11-23 13:00")
    table.new_mail()
    table.send("gm@example.org", GM + "SET ADDRESS England new@example.net\n", "2026-11-23 13:10")
    assert _refusals(table) == [
        "> SET ADDRESS England new@example.net\nEngland's seat is open (the game master "
        "ejected its player): a new player takes it over by mail with its takeover password "
        "(SET PASSWORD England <password>)."
    ]


# -- the game file ----------------------------------------------------------------------------


def test_the_game_file_checks_its_takeover_and_hold_over_keys(tmp_path: Path) -> None:
    path = tmp_path / "test01.toml"
    path.write_text(HOLD_OVER_FILE.replace('takeover = "sultan-seat-1"', 'takeover = "short"'))
    with pytest.raises(ConfigError, match=r"\[players\] Turkey: takeover: expected one word "
                       r"of 8 to 64 characters"):  # fmt: skip
        load_game_config(path)
    path.write_text(HOLD_OVER_FILE.replace("hold_over = true", 'hold_over = "yes"'))
    with pytest.raises(ConfigError, match=r"\[game\] hold_over: use true or false"):
        load_game_config(path)
    path.write_text(HOLD_OVER_FILE)
    config = load_game_config(path)
    assert config.settings.hold_over is True
    assert [p.takeover for p in config.players if p.takeover] == ["sultan-seat-1"]


def test_no_mail_holds_a_takeover_password_in_clear(tmp_path: Path) -> None:
    app, table = _game_with(tmp_path, HOLD_OVER_FILE)
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nRESIGN\n", "2026-11-24 09:00")
    table.send("sultan@example.net", "SIGNON Ttest01 sultan-seat-1\n", "2026-11-24 10:00")
    with app.sessions() as session:
        bodies = [row.body for row in session.scalars(select(OutboundMessage))]
    assert bodies and not any("sultan-seat-1" in body for body in bodies)


def test_hold_over_goes_back_to_its_default_when_the_file_drops_it(tmp_path: Path) -> None:
    app, _table = _game_with(tmp_path, HOLD_OVER_FILE)
    from judge.services.game_settings import game_settings

    assert game_settings(game_row(app)).hold_over is True
    path = tmp_path / "test01.toml"
    path.write_text(HOLD_OVER_FILE.replace("hold_over = true\n", ""))
    with app.sessions() as session, session.begin():
        report = load_game(session, app.judge, path, at("2026-11-23 13:00"))
    assert report.changes == ("changed the settings (hold_over)",)
    assert game_settings(game_row(app)).hold_over is False


def test_an_ejected_player_hears_no_more_news_of_the_game(game: tuple[App, Table]) -> None:
    # The ejected player is told once (their own mail); a deadline moved after that is
    # told to the players still in the game, the master and the observers, not to them.
    _app, table = game
    table.send("gm@example.org", GM + "EJECT E\n", "2026-11-23 14:00")
    table.new_mail()
    table.send("gm@example.org", GM + "SET DEADLINE 2026-11-27 18:00\n", "2026-11-23 15:00")
    told = [r.to_addr for r in table.new_mail() if "New deadline" in r.subject]
    assert told == [*OTHERS, "turkey@example.org", "gm@example.org"]
