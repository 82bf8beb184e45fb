"""The game master's clock by mail: SET DEADLINE, PAUSE, RESUME and SET GRACE, each told to
everyone still following the game (players still in, the master, observers), with the
times in the game's zone and each reader's own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import select
from support import DATA
from support.servicekit import Table, at, game_row, started_game

from judge.config import settings_from_json
from judge.db.models import Game, Observer, OutboundMessage, Player, PlayerStatus
from judge.runtime.bootstrap import App
from judge.services.game_file_watch import reload_configs

GOLDEN = DATA / "golden" / "schedule"
GM = "SIGNON Mtest01 gm-secret\n"


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    """The service kit's game, with Turkey resigned and one observer in New York."""
    app, table = started_game(tmp_path)
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        turkey = session.scalars(select(Player).where(Player.power == "Turkey")).one()
        turkey.status = PlayerStatus.RESIGNED
        session.add(Observer(game_id=game.id, address="watcher@example.net",
                             timezone="America/New_York"))  # fmt: skip
    return app, table


def check(rows: list[OutboundMessage], name: str) -> None:
    """The mails, one after the other, against ``golden/schedule/<name>``."""
    text = "".join(
        f"To: {r.to_addr}\nSubject: {r.subject}\n\n{r.body}" + "=" * 78 + "\n" for r in rows
    )
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def news(table: Table) -> tuple[OutboundMessage, list[OutboundMessage]]:
    """The master's reply, and the news mails (one per reader: not Turkey, resigned)."""
    rows = table.new_mail()
    replies = [r for r in rows if r.subject.startswith("Re:")]
    assert len(replies) == 1
    told = [r for r in rows if r is not replies[0]]
    assert [r.to_addr for r in told] == [
        "austria@example.org", "england@example.org", "france@example.org",
        "germany@example.org", "italy@example.org", "russia@example.org",
        "gm@example.org", "watcher@example.net",
    ]  # fmt: skip
    return replies[0], told


def test_set_deadline_is_mailed_to_everyone_following(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("gm@example.org", GM + "SET DEADLINE 2026-11-27 18:00\n", "2026-11-24 10:00")
    reply, told = news(table)
    assert (
        "Deadline set to Fri Nov 27 2026 18:00:00 +0000 (Europe/London). Every player and "
        "observer was told."
    ) in reply.body
    # England reads it in the game's zone; Russia and the observer in their own too.
    check([told[1], told[5], told[6], told[7]], "set_deadline.txt")
    assert game_row(app).deadline == at("2026-11-27 18:00")


def test_pause_and_resume_are_mailed(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("gm@example.org", GM + "PAUSE\n", "2026-11-24 10:00")
    reply, told = news(table)
    assert "Game test01 paused. Every player and observer was told." in reply.body
    check([told[5], told[7]], "paused.txt")
    # Resumed before the deadline: the deadline stays.
    table.send("gm@example.org", GM + "RESUME\n", "2026-11-24 12:00")
    reply, told = news(table)
    assert "the deadline is Wed Nov 25 2026 20:00:00 +0000 (Europe/London). Every" in reply.body
    check([told[5], told[6]], "resumed.txt")
    assert game_row(app).deadline == at("2026-11-25 20:00")


def test_resume_after_the_deadline_passed_tells_the_new_one(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("gm@example.org", GM + "PAUSE\n", "2026-11-24 10:00")
    table.new_mail()
    table.send("gm@example.org", GM + "RESUME\n", "2026-11-26 12:00")
    _reply, told = news(table)
    check([told[0], told[7]], "resumed_fresh.txt")
    assert game_row(app).deadline == at("2026-11-28 20:00")


def test_set_grace_is_stored_and_mailed(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("gm@example.org", GM + "SET GRACE 12\n", "2026-11-24 10:00")
    reply, told = news(table)
    assert (
        "The grace of movement phases is now 12 hours (it was 0). Every player and observer "
        "was told."
    ) in reply.body
    check([told[0], told[5], told[7]], "grace.txt")
    settings = settings_from_json(game_row(app).settings or {})
    assert (settings.movement.grace, settings.retreat.grace) == (12.0, 0.0)
    # The same again changes nothing and tells nobody.
    table.send("gm@example.org", GM + "SET GRACE 12 hours\n", "2026-11-24 10:01")
    [again] = table.new_mail()
    assert "The grace of movement phases is already 12 hours; nothing changed." in again.body


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("SET GRACE", "SET GRACE needs the hours of grace, a number from 0 to 336, as in "
                      "'SET GRACE 12'"),
        ("SET GRACE twelve", "SET GRACE takes a number of hours, not 'twelve': give a number "
                             "from 0 to 336, as in 'SET GRACE 12'"),
        ("SET GRACE -3", "SET GRACE cannot be negative (-3): give a number from 0 to 336, as "
                         "in 'SET GRACE 12'"),
        ("SET GRACE 337", "SET GRACE 337 is more than the longest grace, 336 hours (two "
                          "weeks): give a number from 0 to 336, as in 'SET GRACE 12'"),
        ("SET GRACE 1e9", "SET GRACE takes a number of hours, not '1e9': give a number from "
                          "0 to 336, as in 'SET GRACE 12'"),
    ],
)  # fmt: skip
def test_set_grace_refusals(game: tuple[App, Table], line: str, error: str) -> None:
    app, table = game
    table.send("gm@example.org", GM + line + "\n", "2026-11-24 10:00")
    [reply] = table.new_mail()
    assert f"> {line}\n{error}." in reply.body
    assert settings_from_json(game_row(app).settings or {}).movement.grace == 0.0


def test_set_grace_is_for_the_master(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nSET GRACE 12\n",
               "2026-11-24 10:00")  # fmt: skip
    [reply] = table.new_mail()
    assert (
        "  SET GRACE 12\n    -> only the game master can do this: SIGNON M<game> <password> first"
    ) in reply.body
    assert settings_from_json(game_row(app).settings or {}).movement.grace == 0.0


def test_grace_set_by_mail_survives_an_unrelated_edit_of_the_deadlines(
    game: tuple[App, Table], tmp_path: Path
) -> None:
    app, table = game
    table.send("gm@example.org", GM + "SET GRACE 12\n", "2026-11-24 10:00")
    table.new_mail()
    path = tmp_path / "test01.toml"
    path.write_text(path.read_text().replace("retreat = 24", "retreat = 36"))
    with app.sessions() as session, session.begin():
        reload_configs(session, app.judge, at("2026-11-24 11:00"))
    settings = settings_from_json(game_row(app).settings or {})
    assert (settings.movement.grace, settings.retreat.hours) == (12.0, 36.0)
    # The game master writing a grace in the file is a new act: it applies.
    path.write_text(path.read_text().replace(
        'movement = { hours = 48, at = "20:00" }',
        'movement = { hours = 48, at = "20:00", grace = 6 }',
    ))  # fmt: skip
    with app.sessions() as session, session.begin():
        reload_configs(session, app.judge, at("2026-11-24 12:00"))
    settings = settings_from_json(game_row(app).settings or {})
    assert (settings.movement.grace, settings.movement.at) == (6.0, "20:00")
