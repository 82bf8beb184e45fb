"""Game files edited while a game runs: a reload applies only what the game master changed
in the file since it was last applied, never undoes what players set by mail, and applies
a one-off deadline to the phase it was written for, once (issue 10, section 2)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import Table, at, game_row, player, started_game

from judge.config import GameConfig, load_game_config
from judge.db.models import Game, OutboundMessage
from judge.runtime.bootstrap import App
from judge.services import game_file_watch
from judge.services.game_file_watch import reload_configs

ENGLAND_LINE = 'England = { address = "england@example.org", password = "pw-eng" }'
SIGNED_BY_GM = "SIGNON Mtest01 gm-secret\n"
#: What a reload reports after ``retreat = 24`` became ``retreat = 36``.
RETREAT_EDITED = ["test01: reloaded (changed the settings (deadlines))"]


def edit(tmp_path: Path, old: str, new: str) -> None:
    path = tmp_path / "test01.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def reload(app: App, when: str) -> list[str]:
    with app.sessions() as session, session.begin():
        return reload_configs(session, app.judge, at(when))


def mails(rows: list[OutboundMessage]) -> list[tuple[str, str, str]]:
    return [(r.to_addr, r.kind, r.subject) for r in rows]


def set_deadline_in_file(tmp_path: Path, when: str) -> None:
    path = tmp_path / "test01.toml"
    text = path.read_text()
    lines = [line for line in text.splitlines() if not line.startswith("deadline = ")]
    at_zone = lines.index('timezone = "Europe/London"')
    lines.insert(at_zone + 1, f'deadline = "{when}"')
    path.write_text("\n".join(lines) + "\n")


# -- the three reproductions -------------------------------------------------------------


def test_a_password_set_by_mail_survives_an_unrelated_edit(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET PASSWORD tea-for-two\n",
               "2026-11-23 13:00")  # fmt: skip
    assert "Password changed." in table.new_mail()[0].body
    set_deadline_in_file(tmp_path, "2026-11-27 18:00")
    assert reload(app, "2026-11-24 09:00") == [
        "test01: reloaded (deadline Fri Nov 27 2026 18:00:00 +0000 (Europe/London))"
    ]
    rows = table.new_mail()
    assert {r.kind for r in rows} == {"deadline"} and len(rows) == 8  # players and master
    table.send("england@example.org", "SIGNON Etest01 tea-for-two\nF Lon-NTH\n", "2026-11-24 10:00")
    rows = table.new_mail()
    assert mails(rows) == [("england@example.org", "confirm", "Re: orders")]
    assert "England: Fleet London -> North Sea." in rows[0].body
    # The file's old password no longer opens the seat: the player changed it.
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-ENG\n", "2026-11-24 10:05")
    assert "England: Fleet London -> North Sea." not in table.new_mail()[0].body


def test_an_address_set_by_mail_survives_an_unrelated_edit(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET ADDRESS eng2@example.org\n",
               "2026-11-23 13:00")  # fmt: skip
    assert "Your address is now eng2@example.org." in table.new_mail()[0].body
    edit(tmp_path, "retreat = 24", "retreat = 36")
    assert reload(app, "2026-11-24 09:00") == RETREAT_EDITED
    assert table.new_mail() == []  # no welcome to anyone, no mail at all
    england = player(app, "England")
    assert (england.address, england.status) == ("eng2@example.org", "active")
    assert game_row(app).settings["deadlines"]["retreat"]["hours"] == 36
    table.send("eng2@example.org", "SIGNON Etest01 pw-eng\nF Lon-NTH\n", "2026-11-24 10:00")
    rows = table.new_mail()
    assert mails(rows) == [("eng2@example.org", "confirm", "Re: orders")]


def play_to_spring_1902(table: Table) -> None:
    table.process("2026-11-25 20:00")  # S1901M -> F1901M
    table.process("2026-11-27 20:00")  # F1901M -> S1902M (no centre changed hands)
    assert table.phase() == "S1902M"
    table.new_mail()


def test_a_one_off_deadline_applies_to_its_phase_once(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    play_to_spring_1902(table)
    # The game master sets Spring 1902's deadline in the file.
    set_deadline_in_file(tmp_path, "2026-12-02 18:00")
    assert reload(app, "2026-11-28 09:00") == [
        "test01: reloaded (deadline Wed Dec 02 2026 18:00:00 +0000 (Europe/London))"
    ]
    assert game_row(app).deadline == at("2026-12-02 18:00")
    assert len([r for r in table.new_mail() if r.kind == "deadline"]) == 8  # players and master
    table.process("2026-12-02 18:00")  # S1902M -> F1902M
    table.process("2026-12-04 20:00")  # F1902M -> S1903M
    assert table.phase() == "S1903M"
    deadline = game_row(app).deadline
    assert deadline == at("2026-12-06 20:00")
    table.new_mail()
    # An unrelated edit, with the old key still in the file.
    edit(tmp_path, "retreat = 24", "retreat = 36")
    assert reload(app, "2026-12-05 09:00") == [
        "test01: reloaded (changed the settings (deadlines), "
        "deadline Wed Dec 02 2026 18:00:00 +0000 (Europe/London) is stale: "
        "it was for S1902M)"
    ]
    assert game_row(app).deadline == deadline
    table.check("files_stale_deadline")  # the game master is told; no player is


# -- the game master's deliberate changes to a power's line ------------------------------


def test_a_new_address_in_the_file_replaces_the_player(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET ADDRESS eng2@example.org\n"
               "SET WAIT\nSET TIMEZONE Asia/Tokyo\n", "2026-11-23 13:00")  # fmt: skip
    table.new_mail()
    edit(tmp_path, ENGLAND_LINE, 'England = "newcomer@example.net"')
    assert reload(app, "2026-11-24 09:00") == [
        "test01: reloaded (England: replacement player newcomer@example.net for eng2@example.org)"
    ]
    england = player(app, "England")
    assert (england.address, england.wait, england.timezone, england.status) == (
        "newcomer@example.net",
        False,
        None,
        "active",
    )
    table.check("files_replacement")
    table.send("newcomer@example.net", "SIGNON Etest01 paris-123\nF Lon-NTH\n", "2026-11-24 09:05")
    assert "England: Fleet London -> North Sea." in table.new_mail()[0].body


def test_a_new_password_in_the_file_is_a_reset_told_to_the_player(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET PASSWORD tea-for-two\n"
               "SET ADDRESS eng2@example.org\n", "2026-11-23 13:00")  # fmt: skip
    table.new_mail()
    edit(tmp_path, ENGLAND_LINE,
         'England = { address = "england@example.org", password = "fresh-start" }')  # fmt: skip
    assert reload(app, "2026-11-24 09:00") == ["test01: reloaded (England: password reset)"]
    assert player(app, "England").address == "eng2@example.org"  # still the player's own
    table.check("files_password_reset")
    table.send("eng2@example.org", "SIGNON Etest01 fresh-start\nF Lon-NTH\n", "2026-11-24 09:05")
    assert "England: Fleet London -> North Sea." in table.new_mail()[0].body


# -- the same mistake elsewhere ------------------------------------------------------------


def test_settings_set_by_mail_survive_an_unrelated_edit(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send("russia@example.org", "SIGNON Rtest01 pw-rus\nSET TIMEZONE Asia/Tokyo\nSET WAIT\n"
               "SET ABSENCE 2026-11-25 TO 2026-11-27\n", "2026-11-23 13:00")  # fmt: skip
    table.send("gm@example.org", SIGNED_BY_GM + "PAUSE\n", "2026-11-23 13:05")
    table.new_mail()
    before = game_row(app)
    assert (before.status, before.deadline) == ("paused", at("2026-11-27 14:59"))
    edit(tmp_path, "retreat = 24", "retreat = 36")
    assert reload(app, "2026-11-24 09:00") == RETREAT_EDITED
    russia = player(app, "Russia")
    assert (russia.timezone, russia.wait, russia.absence_to) == (
        "Asia/Tokyo",
        True,
        at("2026-11-27 14:59"),
    )
    after = game_row(app)
    assert (after.status, after.deadline) == ("paused", at("2026-11-27 14:59"))
    assert table.new_mail() == []


def test_a_deadline_set_by_mail_survives_an_unrelated_edit(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    set_deadline_in_file(tmp_path, "2026-11-27 18:00")
    reload(app, "2026-11-24 09:00")
    table.send("gm@example.org", SIGNED_BY_GM + "SET DEADLINE 2026-11-29 20:00\n",
               "2026-11-24 10:00")  # fmt: skip
    assert game_row(app).deadline == at("2026-11-29 20:00")
    table.new_mail()
    edit(tmp_path, "retreat = 24", "retreat = 36")
    assert reload(app, "2026-11-24 11:00") == RETREAT_EDITED
    assert game_row(app).deadline == at("2026-11-29 20:00")
    assert table.new_mail() == []
    # Writing a new date in the file is a new act of the game master: it applies.
    set_deadline_in_file(tmp_path, "2026-11-30 20:00")
    assert reload(app, "2026-11-24 12:00") == [
        "test01: reloaded (deadline Mon Nov 30 2026 20:00:00 +0000 (Europe/London))"
    ]
    assert game_row(app).deadline == at("2026-11-30 20:00")


def test_a_deadline_written_before_the_start_is_the_first_phase_s(tmp_path: Path) -> None:
    from support.servicekit import GAME_FILE, make_app

    from judge.services.game_files import load_game
    from judge.services.games import start_game

    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace(
        'timezone = "Europe/London"', 'timezone = "Europe/London"\ndeadline = "2026-11-28 12:00"'
    ))  # fmt: skip
    with app.sessions() as session, session.begin():
        report = load_game(session, app.judge, path, at("2026-11-23 12:00"))
        assert "deadline" not in ", ".join(report.changes)
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    assert game_row(app).deadline == at("2026-11-28 12:00")
    table = Table(app)
    table.new_mail()
    edit(tmp_path, "retreat = 24", "retreat = 36")
    assert reload(app, "2026-11-24 09:00") == RETREAT_EDITED
    assert table.new_mail() == []


def test_a_game_loaded_before_the_judge_kept_what_it_applied(tmp_path: Path) -> None:
    """Upgrading: a game whose file was loaded by an older judge (nothing recorded) takes
    the file as it is as applied, so nothing in it is applied again."""
    app, table = started_game(tmp_path)
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET PASSWORD tea-for-two\n"
               "SET ADDRESS eng2@example.org\n", "2026-11-23 13:00")  # fmt: skip
    with app.sessions() as session, session.begin():
        session.scalars(select(Game)).one().file_applied = None
    table.new_mail()
    assert reload(app, "2026-11-24 08:00") == []  # the file did not change: recorded quietly
    assert game_row(app).file_applied is not None
    edit(tmp_path, "retreat = 24", "retreat = 36")
    assert reload(app, "2026-11-24 09:00") == RETREAT_EDITED
    assert player(app, "England").address == "eng2@example.org"
    assert table.new_mail() == []
    table.send("eng2@example.org", "SIGNON Etest01 tea-for-two\nF Lon-NTH\n", "2026-11-24 10:00")
    assert "England: Fleet London -> North Sea." in table.new_mail()[0].body


def test_an_unusable_file_of_an_older_judge_is_read_once_not_at_every_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Upgrading with a file this judge cannot use (here: it names another game) but that
    the older judge loaded as it is: the file is not parsed again at every look (every
    second), only once it changes."""
    app, _table = started_game(tmp_path)
    edit(tmp_path, 'name = "test01"', 'name = "test02"')
    digest = hashlib.sha256((tmp_path / "test01.toml").read_bytes()).hexdigest()
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        game.file_applied, game.config_digest = None, digest
    parsed: list[Path] = []

    def counting(path: Path) -> GameConfig:
        parsed.append(path)
        return load_game_config(path)

    monkeypatch.setattr(game_file_watch, "load_game_config", counting)
    for second in range(3):
        assert reload(app, f"2026-11-24 08:00:0{second}") == []
    assert (len(parsed), game_row(app).file_applied) == (1, None)


def test_a_game_edited_while_an_older_judge_had_loaded_it(tmp_path: Path) -> None:
    """Upgrading with the file already edited: the players' lines are taken as applied
    (what the old file said is not known), the game's own settings are compared with the
    game's, and the log says so."""
    app, table = started_game(tmp_path)
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET PASSWORD tea-for-two\n",
               "2026-11-23 13:00")  # fmt: skip
    with app.sessions() as session, session.begin():
        session.scalars(select(Game)).one().file_applied = None
    table.new_mail()
    edit(tmp_path, "retreat = 24", "retreat = 36")
    assert reload(app, "2026-11-24 09:00") == [
        "test01: reloaded (took the players' lines as already applied (loaded by an older "
        "judge), changed the settings (deadlines))"
    ]
    assert table.new_mail() == []
    table.send("england@example.org", "SIGNON Etest01 tea-for-two\nF Lon-NTH\n", "2026-11-24 10:00")
    assert "England: Fleet London -> North Sea." in table.new_mail()[0].body


def test_a_time_zone_the_game_master_changes_in_the_file_is_applied(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send("russia@example.org", "SIGNON Rtest01 pw-rus\nSET TIMEZONE Asia/Tokyo\n",
               "2026-11-23 13:00")  # fmt: skip
    table.new_mail()
    edit(tmp_path, 'timezone = "Europe/Moscow"', 'timezone = "Asia/Tbilisi"')
    assert reload(app, "2026-11-24 09:00") == ["test01: reloaded (Russia: time zone Asia/Tbilisi)"]
    assert player(app, "Russia").timezone == "Asia/Tbilisi"
    assert table.new_mail() == []
    # Only that field: the file's password and address for Russia did not change.
    table.send("russia@example.org", "SIGNON Rtest01 pw-rus\nA Mos-Ukr\n", "2026-11-24 10:00")
    assert "Russia: Army Moscow -> Ukraine." in table.new_mail()[0].body
