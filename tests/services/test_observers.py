"""Observers: OBSERVE (WATCH, SIGNON O<game>) and RESIGN by mail, the game file's
``observers`` and ``observer_password``, and the mail an observer gets (the game's start,
its results) and never gets (a player's own)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at, make_app

from judge.config import ConfigError, Observers, load_game_config
from judge.db.models import Game, GameStatus, Observer, SignonGuard
from judge.engine.board import standard_map
from judge.runtime.bootstrap import App
from judge.services.game_files import load_game
from judge.services.game_settings import game_settings
from judge.services.games import start_game
from judge.services.notices import send_late_notices, send_reminders
from judge.services.passwords import verify_password

WATCHER = "watcher@example.net"
PASSWORD_GAME = 'observers = "password"\nobserver_password = "look-on"\n'


def game_file(extra: str = "") -> str:
    """GAME_FILE with ``extra`` lines in its [game] table, and reminders a day ahead."""
    text = GAME_FILE.replace('rules = "2023"\n', f'rules = "2023"\n{extra}')
    return text.replace('movement = { hours = 48, at = "20:00" }', (
        'movement = { hours = 48, at = "20:00", remind = 24 }'
    ))  # fmt: skip


def make_game(tmp_path: Path, extra: str = "", *, start: bool = True) -> tuple[App, Table]:
    """The judge with game test01 (``extra`` in its [game]) loaded at 2026-11-23 12:00,
    and started then unless ``start`` is false."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(game_file(extra))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        if start:
            start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    table = Table(app)
    table.new_mail()
    return app, table


def answer(table: Table) -> tuple[str, str, str]:
    rows = table.new_mail()
    assert len(rows) == 1, [(r.to_addr, r.subject) for r in rows]
    return rows[0].to_addr, rows[0].subject, rows[0].body


def watchers(app: App) -> list[str]:
    with app.sessions() as session:
        return list(session.scalars(select(Observer.address).order_by(Observer.id)))


POSITION = """\
Units:

Austria: Army Budapest
Austria: Fleet Trieste
Austria: Army Vienna
England: Fleet Edinburgh
England: Army Liverpool
England: Fleet London
France: Fleet Brest
France: Army Marseilles
France: Army Paris
Germany: Army Berlin
Germany: Fleet Kiel
Germany: Army Munich
Italy: Fleet Naples
Italy: Army Rome
Italy: Army Venice
Russia: Army Moscow
Russia: Fleet Sevastopol
Russia: Fleet St Petersburg (south coast)
Russia: Army Warsaw
Turkey: Fleet Ankara
Turkey: Army Constantinople
Turkey: Army Smyrna

Ownership of supply centers:

Austria:   Budapest, Trieste, Vienna.
England:   Edinburgh, Liverpool, London.
France:    Brest, Marseilles, Paris.
Germany:   Berlin, Kiel, Munich.
Italy:     Naples, Rome, Venice.
Russia:    Moscow, Sevastopol, St Petersburg, Warsaw.
Turkey:    Ankara, Constantinople, Smyrna.
Unowned:   Belgium, Bulgaria, Denmark, Greece, Holland, Norway, Portugal,
           Rumania, Serbia, Spain, Sweden, Tunis.
"""

WELCOME_RUNNING = f"""\
You now watch test01. As an observer you get the game's public mail: its
start, the results of every phase and the news of deadlines, pauses and
seats; never a player's own mail. You cannot give orders.

The phase being played is Movement for Spring of 1901. The deadline for
orders is Wed Nov 25 2026 20:00:00 +0000 (Europe/London).

{POSITION}
To stop watching, send OBSERVE test01 and, on the next line, RESIGN.

TESTJUDGE
"""


# -- watching and stopping ---------------------------------------------------------------


def test_observe_a_running_game_welcomes_with_the_position_and_adds_one_row(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path)
    table.send("Watcher@Example.NET", "OBSERVE test01\n", "2026-11-23 13:00", subject="watch")
    assert answer(table) == (WATCHER, "Re: watch", WELCOME_RUNNING)
    assert watchers(app) == [WATCHER]

    # Already watching (WATCH is the njudge's other name): said so, no second row.
    table.send(WATCHER, "WATCH test01\n", "2026-11-23 13:05", subject="watch")
    assert answer(table) == (
        WATCHER,
        "Re: watch",
        "You watch test01 already; you are signed on as its observer.\n\nTESTJUDGE\n",
    )
    assert watchers(app) == [WATCHER]


def test_an_observer_signs_on_reads_the_game_never_orders_and_resigns(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, PASSWORD_GAME)
    table.send(WATCHER, "SIGNON Otest01 look-on\nSUMMARY\nA Par-Bur\nRESIGN\nRESIGN\n",
               "2026-11-23 13:00")  # fmt: skip
    _to, subject, body = answer(table)
    assert subject == "[Error Flag] Re: orders"
    assert body == WELCOME_RUNNING.replace("\nTESTJUDGE\n", "") + (
        "\nSummary of test01, Movement for Spring of 1901:\n\n"
        f"{POSITION}\n"
        "You no longer watch test01: the judge sends you none of its mail from now\n"
        "on. OBSERVE test01 watches it again.\n\n"
        "> A Par-Bur\n"
        "This command is for players; you are signed on as an observer.\n\n"
        "> RESIGN\n"
        "Sign on first: SIGNON <power initial><game> <password>, e.g. SIGNON Fwinter01 "
        "secret.\n\n"
        "TESTJUDGE\n"
    )
    assert watchers(app) == []


def test_an_observer_of_a_password_game_stops_without_the_password(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, PASSWORD_GAME)
    table.send(WATCHER, "OBSERVE test01 look-on\n", "2026-11-23 13:00")
    table.new_mail()
    table.send(WATCHER, "OBSERVE test01\nRESIGN\n", "2026-11-23 13:05", subject="stop")
    assert answer(table) == (
        WATCHER,
        "Re: stop",
        "You watch test01 already; you are signed on as its observer.\n\n"
        "You no longer watch test01: the judge sends you none of its mail from now\n"
        "on. OBSERVE test01 watches it again.\n\nTESTJUDGE\n",
    )
    assert watchers(app) == []


# -- what is refused -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "sender", "line", "error"),
    [
        ('observers = "none"\n', WATCHER, "OBSERVE test01",
         "Game test01 does not allow observers."),
        ('observers = "none"\n', WATCHER, "SIGNON Otest01 anything",
         "Game test01 does not allow observers."),
        (PASSWORD_GAME, WATCHER, "OBSERVE test01",
         "Game test01 asks observers for a password: write 'OBSERVE test01 <password>', "
         "with the password its game master gave you."),
        (PASSWORD_GAME, WATCHER, "WATCH test01 look-out",
         "Wrong observers' password for test01: it is the one its game master gave you."),
        ("", WATCHER, "OBSERVE nosuch",
         "There is no game called 'nosuch' on this judge; send LIST for the games."),
        ("", "france@example.org", "OBSERVE test01",
         "You play France in test01 and get its mail already."),
        ("", "gm@example.org", "OBSERVE test01",
         "You are the game master of test01 and get all of its mail already."),
        ("", WATCHER, "OBSERVE", "OBSERVE needs the game: write 'OBSERVE <game>', or "
         "'OBSERVE <game> <password>' for a game that asks observers for one."),
    ],
)  # fmt: skip
def test_observe_refused(tmp_path: Path, extra: str, sender: str, line: str, error: str) -> None:
    app, table = make_game(tmp_path, extra)
    table.send(sender, f"{line}\n", "2026-11-23 13:00", subject="watch")
    shown = line.replace("look-out", "********").replace("anything", "********")
    assert answer(table) == (
        sender, "[Error Flag] Re: watch", f"> {shown}\n{error}\n\nTESTJUDGE\n"
    )  # fmt: skip
    assert watchers(app) == []


def test_a_finished_game_takes_no_new_observer(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    with app.sessions() as session, session.begin():
        session.scalars(select(Game)).one().status = GameStatus.FINISHED
    table.send(WATCHER, "OBSERVE test01\n", "2026-11-23 13:00", subject="watch")
    assert answer(table)[2] == (
        "> OBSERVE test01\nGame test01 is over and takes no new observers; HISTORY test01 "
        "shows how it went.\n\nTESTJUDGE\n"
    )
    assert watchers(app) == []


def test_wrong_observer_passwords_lock_new_observers_out_for_an_hour(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, PASSWORD_GAME)
    for minute in range(5):
        table.send(f"guess{minute}@example.net", "OBSERVE test01 guess\nLIST\n",
                   f"2026-11-23 13:0{minute}")  # fmt: skip
        body = answer(table)[2]
        assert "Wrong observers' password for test01" in body
        # Nothing after a failed sign-on is read as that game's.
        assert "Games on this judge:" in body
    table.send(WATCHER, "OBSERVE test01 look-on\n", "2026-11-23 13:10")
    assert answer(table)[2] == (
        "> OBSERVE test01 *******\n"
        "Not checked: after 5 wrong observers' passwords for test01 within an hour, new "
        "observers are refused until Mon Nov 23 2026 14:04:00 +0000 (Europe/London); send "
        "it again after then.\n\nTESTJUDGE\n"
    )
    with app.sessions() as session:
        guard = session.scalars(select(SignonGuard)).one()
        assert (guard.seat, guard.registered) == ("O", False)
    table.send(WATCHER, "OBSERVE test01 look-on\n", "2026-11-23 14:04")
    assert answer(table)[2].startswith("You now watch test01.")
    assert watchers(app) == [WATCHER]


def test_no_power_s_initial_is_the_observer_s_o() -> None:
    assert "O" not in standard_map().power_letter.values()


# -- the mail an observer gets ----------------------------------------------------------------


def test_an_observer_gets_the_start_and_the_results_never_a_player_s_own_mail(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path, start=False)
    table.send(WATCHER, "OBSERVE test01\n", "2026-11-23 11:00", subject="watch")
    assert answer(table)[2] == (
        "You now watch test01. As an observer you get the game's public mail: its\n"
        "start, the results of every phase and the news of deadlines, pauses and\n"
        "seats; never a player's own mail. You cannot give orders.\n\n"
        "Game test01 has not started yet: you will get its game-start mail when it\n"
        "does.\n\n"
        "To stop watching, send OBSERVE test01 and, on the next line, RESIGN.\n\n"
        "TESTJUDGE\n"
    )
    with app.sessions() as session, session.begin():
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    started = table.new_mail()
    assert [(m.to_addr.split("@")[0], m.kind) for m in started][-2:] == [
        ("gm", "gamestart"), ("watcher", "gamestart"),
    ]  # fmt: skip
    mine = started[-1]
    assert mine.subject == "Diplomacy game test01 starts"
    assert "password" not in mine.body.lower() and "You are " not in mine.body
    assert "  France:  france@example.org\n" in mine.body

    # A player's confirmation, reminder and late notice: none to the observer.
    assert table.send("france@example.org", "SIGNON Ftest01 paris-123\nA Par-Bur\n",
                      "2026-11-23 13:00") == "done"  # fmt: skip
    with app.sessions() as session, session.begin():
        send_reminders(session, app.judge, at("2026-11-24 20:00"))
        send_late_notices(session, app.judge, at("2026-11-25 20:00"))
    assert WATCHER not in {m.to_addr for m in table.new_mail()}

    table.process("2026-11-25 20:00")
    results = [m for m in table.new_mail() if m.kind == "results"]
    to_watcher = [m for m in results if m.to_addr == WATCHER]
    france = [m for m in results if m.to_addr == "france@example.org"]
    assert len(to_watcher) == 1 and len(france) == 1
    assert (to_watcher[0].subject, to_watcher[0].body) == (france[0].subject, france[0].body)


def test_an_anonymous_game_publishes_no_address_at_the_start(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, "anonymous = true\n", start=False)
    table.send(WATCHER, "OBSERVE test01\n", "2026-11-23 11:00")
    table.new_mail()
    with app.sessions() as session, session.begin():
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    mail = {m.to_addr: m.body for m in table.new_mail()}
    assert "austria@example.org" not in mail["france@example.org"]
    assert "austria@example.org" not in mail[WATCHER]
    # The game master sees the roster whatever the game.
    assert "  Austria: austria@example.org\n" in mail["gm@example.org"]
    assert "without the other players' addresses (the game is anonymous)" in (
        mail["gm@example.org"].replace("\n", " ")
    )


# -- the game file ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "error"),
    [
        ('observers = "closed"\n',
         '[game] observers: use "open", "password" or "none", got \'closed\''),
        ('observers = "password"\n',
         '[game] observer_password: needed with observers = "password" (the password '
         "observers give: OBSERVE <game> <password>)"),
        ('observers = "password"\nobserver_password = "two words"\n',
         "[game] observer_password: expected one word of at least 4 characters"),
        ('observer_password = "look-on"\n',
         '[game] observer_password: only read with observers = "password"; remove it, or '
         'set observers to "password"'),
    ],
)  # fmt: skip
def test_bad_observer_keys_name_the_key(tmp_path: Path, extra: str, error: str) -> None:
    path = tmp_path / "test01.toml"
    path.write_text(game_file(extra))
    with pytest.raises(ConfigError) as raised:
        load_game_config(path)
    assert str(raised.value) == f"{path}: {error}"


def test_the_observers_password_is_kept_as_a_hash_and_an_edit_applies(tmp_path: Path) -> None:
    app, _table = make_game(tmp_path, PASSWORD_GAME)
    path = tmp_path / "test01.toml"
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert game_settings(game).observers is Observers.PASSWORD
        stored = game.observer_password_hash
        assert stored is not None and "look-on" not in stored
        assert verify_password(stored, "look-on")
        assert "look-on" not in str(game.file_applied)
    path.write_text(game_file('observers = "password"\nobserver_password = "new-one"\n'))
    with app.sessions() as session, session.begin():
        report = load_game(session, app.judge, path, at("2026-11-23 13:00"))
    assert report.changes == ("set the observers' password",)
    path.write_text(game_file('observers = "none"\n'))
    with app.sessions() as session, session.begin():
        report = load_game(session, app.judge, path, at("2026-11-23 14:00"))
    assert report.changes == ("changed the settings (observers)", "removed the observers' password")
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert game_settings(game).observers is Observers.NONE
        assert game.observer_password_hash is None
