"""The game clock with an injected time: NMRs and civil disorder, replacement players,
absences, time zones, pause and resume, and game files edited while the judge runs."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from support.servicekit import Table, at, game_row, player, started_game

from judge.db.models import Game
from judge.services.game_file_watch import reload_configs
from judge.services.games import due_games


def test_two_missed_phases_put_a_power_in_civil_disorder(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.process("2026-11-25 20:00")  # nobody ordered: everyone missed S1901M
    assert player(app, "Turkey").missed == 1
    table.new_mail()
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-NTH\n", "2026-11-26 10:00")
    table.process("2026-11-27 20:00")
    rows = table.new_mail()
    assert player(app, "Turkey").status == "civil_disorder"
    assert player(app, "England").status == "active" and player(app, "England").missed == 0
    notices = [r for r in rows if r.to_addr == "gm@example.org" and "civil disorder" in r.subject]
    assert [r.subject for r in notices][:1] == [
        "Diplomacy game test01: Austria is in civil disorder in test01"
    ]
    assert len(notices) == 6  # everyone but England


def test_nmr_policy_wait_holds_the_phase_for_the_game_master(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        game.settings = {**game.settings, "nmr": "wait"}
    with app.sessions() as session:
        assert due_games(session, at("2026-11-26 20:00")) == []
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nPROCESS\n", "2026-11-26 20:05")
    assert game_row(app).phase == "F1901M"


def test_replacement_player_from_the_game_file(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    path = tmp_path / "test01.toml"
    path.write_text(
        path.read_text().replace(
            'Turkey = { address = "turkey@example.org", password = "pw-tur" }',
            'Turkey = "sultan@example.net"',
        )
    )
    with app.sessions() as session, session.begin():
        lines = reload_configs(session, app.judge, at("2026-11-24 09:00"))
    assert lines == [
        "test01: reloaded (Turkey: replacement player sultan@example.net for turkey@example.org)"
    ]
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [
        ("turkey@example.org", "notice"),
        ("sultan@example.net", "replacement"),
        ("gm@example.org", "notice"),
    ]
    assert "paris-123" in rows[1].body  # the generated password (the test's maker)
    assert "Turkey: Army Constantinople" in rows[1].body
    table.send("sultan@example.net", "SIGNON Ttest01 paris-123\nA Con-Bul\n", "2026-11-24 09:05")
    assert "Turkey: Army Constantinople -> Bulgaria." in table.new_mail()[0].body


def test_a_deadline_edited_in_the_game_file_is_applied_and_announced(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    path = tmp_path / "test01.toml"
    text = path.read_text()
    path.write_text(
        text.replace(
            'timezone = "Europe/London"',
            'timezone = "Europe/London"\ndeadline = "2026-11-27 18:00"',
        )
    )
    with app.sessions() as session, session.begin():
        reload_configs(session, app.judge, at("2026-11-24 09:00"))
    assert game_row(app).deadline == at("2026-11-27 18:00")
    rows = table.new_mail()
    assert len(rows) == 8  # the seven players and the game master
    russia = next(r for r in rows if r.to_addr == "russia@example.org")
    assert russia.subject == "Diplomacy game test01: New deadline for test01 S1901M"
    # A player's notice, not the game master's.
    assert russia.body == (
        "To Russia in 'test01':\n\n"
        "The game master has moved the deadline.\n"
        "The deadline for S1901M is now Fri Nov 27 2026 18:00:00 +0000 (Europe/London).\n"
        "In your own time zone: Fri Nov 27 2026 21:00:00 +0300 (Europe/Moscow).\n\n"
        "TESTJUDGE\n"
    )
    # Nothing changed since: nothing happens.
    with app.sessions() as session, session.begin():
        assert reload_configs(session, app.judge, at("2026-11-24 09:01")) == []


def test_a_bad_edit_is_refused_and_the_old_schedule_stays(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    path = tmp_path / "test01.toml"
    path.write_text(path.read_text().replace("movement = { hours = 48", "movement = { hours = -3"))
    with app.sessions() as session, session.begin():
        lines = reload_configs(session, app.judge, at("2026-11-24 09:00"))
    assert lines[0].startswith(f"test01: edit refused: {path}: [deadlines] movement: hours")
    game = game_row(app)
    assert game.deadline == at("2026-11-25 20:00")
    assert game.settings["deadlines"]["movement"]["hours"] == 48
    rows = table.new_mail()
    assert [(r.to_addr, r.subject) for r in rows] == [
        ("gm@example.org", "Diplomacy game test01: Your edit of test01.toml was refused")
    ]
    assert "[deadlines] movement: hours" in rows[0].body
    # Told once, not at every look.
    with app.sessions() as session, session.begin():
        assert reload_configs(session, app.judge, at("2026-11-24 09:01")) == []


def test_absence_moves_the_deadline(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send(
        "italy@example.org",
        "SIGNON Itest01 pw-ita\nSET ABSENCE 2026-11-25 TO 2026-11-28\n",
        "2026-11-23 13:00",
    )
    body = table.new_mail()[-1].body  # the confirmation, after everyone's new deadline
    assert "Absence noted from Wed Nov 25 2026 00:00:00 +0000 (Europe/London)" in body
    assert "The deadline moves to Sat Nov 28 2026 23:59:00 +0000 (Europe/London)" in body
    assert game_row(app).deadline == at("2026-11-28 23:59")
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nSET ABSENCE 2026-11-01 TO 2026-12-30\n",
               "2026-11-23 13:05")  # fmt: skip
    assert "an absence may last at most 14 days" in table.new_mail()[0].body


def test_set_timezone_changes_the_dates_a_player_sees(tmp_path: Path) -> None:
    _app, table = started_game(tmp_path)
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET TIMEZONE Asia/Tokyo\n",
               "2026-11-23 13:00")  # fmt: skip
    body = table.new_mail()[0].body
    assert "Your time zone is now Asia/Tokyo." in body
    assert "In your own time zone that is Thu Nov 26 2026 05:00:00 +0900 (Asia/Tokyo)." in body
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET TIMEZONE Mars/Olympus\n",
               "2026-11-23 13:01")  # fmt: skip
    assert "'Mars/Olympus' is not a time zone" in table.new_mail()[0].body


def test_pause_holds_the_deadline_and_resume_gives_a_new_one(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nPAUSE\n", "2026-11-24 10:00")
    with app.sessions() as session:
        assert due_games(session, at("2026-11-26 12:00")) == []  # paused past the deadline
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nRESUME\n", "2026-11-26 12:00")
    assert game_row(app).deadline == at("2026-11-28 20:00")
    assert "the deadline is Sat Nov 28 2026 20:00:00 +0000" in Table(app).new_mail()[-1].body


def test_a_deadline_missed_while_the_judge_was_down_is_processed_at_start(tmp_path: Path) -> None:
    from support.servicekit import make_app

    from judge.runtime.serve import Server

    app, _table = started_game(tmp_path)
    # The judge comes back two days after the deadline.
    late = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    server = Server(late, clock=lambda: at("2026-11-27 09:00"), tick=0.05, use_scheduler=False)
    server._deadlines()
    assert game_row(app).phase == "F1901M"


def test_a_config_edit_is_noticed_by_the_running_judge(tmp_path: Path) -> None:
    import time

    from judge.runtime.serve import Server

    app, table = started_game(tmp_path)
    server = Server(app, clock=lambda: at("2026-11-24 09:00"), tick=0.05, use_scheduler=False)
    import threading

    thread = threading.Thread(
        target=server._loop, args=("deadlines", server.deadline_ready, server._deadlines)
    )
    thread.start()
    try:
        path = tmp_path / "test01.toml"
        path.write_text(
            path.read_text().replace(
                'timezone = "Europe/London"',
                'timezone = "Europe/London"\ndeadline = "2026-11-26 12:00"',
            )
        )
        server.reload()  # SIGHUP: the files are read at once, else every 30 s
        limit = time.monotonic() + 10
        while game_row(app).deadline != at("2026-11-26 12:00") and time.monotonic() < limit:
            time.sleep(0.05)
        assert game_row(app).deadline == at("2026-11-26 12:00")
    finally:
        server.stopping.set()
        server.deadline_ready.set()
        thread.join(5)
    assert len([r for r in table.new_mail() if r.kind == "deadline"]) == 8


def test_the_scheduler_keeps_its_jobs_in_memory_and_wakes_the_loop(tmp_path: Path) -> None:
    """Several judges may share one database, and APScheduler's job store cannot be
    shared: the jobs live in the process, nothing is written to the database."""
    import threading
    import time
    from datetime import UTC, datetime, timedelta

    from judge.runtime.scheduler import DeadlineScheduler

    path = tmp_path / "sched.db"
    url = f"sqlite:///{path}"
    woken = threading.Event()
    scheduler = DeadlineScheduler(url, woken.set)
    scheduler.start()
    try:
        soon = datetime.now(UTC) + timedelta(seconds=1)
        later = datetime.now(UTC) + timedelta(days=2)
        scheduler.sync({"deadline:a": soon, "deadline:b": later})
        assert sorted(j.id for j in scheduler.scheduler.get_jobs()) == ["deadline:a", "deadline:b"]
        assert woken.wait(10)
        limit = time.monotonic() + 10
        while scheduler.scheduler.get_job("deadline:a") is not None and time.monotonic() < limit:
            time.sleep(0.05)
        scheduler.sync({"deadline:b": later})
        assert [j.id for j in scheduler.scheduler.get_jobs()] == ["deadline:b"]
    finally:
        scheduler.stop()
    assert not path.exists()
    # A moment already past when the job is given (a deadline that passed while the judge
    # was down) still fires (misfires are kept).
    woken.clear()
    restarted = DeadlineScheduler(url, woken.set)
    restarted.start()
    try:
        restarted.sync({"deadline:next": datetime.now(UTC) - timedelta(hours=1)})
        assert woken.wait(10)
        limit = time.monotonic() + 10
        while restarted.scheduler.get_job("deadline:next") is not None and time.monotonic() < limit:
            time.sleep(0.05)
        assert restarted.scheduler.get_job("deadline:next") is None
    finally:
        restarted.stop()
