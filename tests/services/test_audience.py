"""Who gets a game's mail: each audience's exact list of readers."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import started_game

from judge.db.models import Game, Player
from judge.runtime.bootstrap import App
from judge.services.audience import Audience, Recipient, recipients

LONDON = "Europe/London"


@pytest.fixture
def app(tmp_path: Path) -> App:
    """The started game test01: Austria in civil disorder, England resigned, Russia in
    its own time zone (Moscow), the master at gm@example.org."""
    app, _table = started_game(tmp_path)
    with app.sessions() as session, session.begin():
        seats = {p.power: p for p in session.scalars(select(Player))}
        seats["Austria"].status = "civil_disorder"
        seats["England"].status = "resigned"
    return app


def readers(app: App, audience: Audience, **game_changes: object) -> list[tuple[object, ...]]:
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        for name, value in game_changes.items():
            setattr(game, name, value)
        ids = {p.id: p.power for p in session.scalars(select(Player))}
        got = recipients(session, game, audience, app.judge)
        assert all(r.player_id is None or ids[r.player_id] == r.power for r in got)
        return [(r.address, r.power, r.zone) for r in got]


SEATS = [
    ("austria@example.org", "Austria", LONDON),
    ("england@example.org", "England", LONDON),
    ("france@example.org", "France", LONDON),
    ("germany@example.org", "Germany", LONDON),
    ("italy@example.org", "Italy", LONDON),
    ("russia@example.org", "Russia", "Europe/Moscow"),
    ("turkey@example.org", "Turkey", LONDON),
]
MASTER = ("gm@example.org", None, LONDON)


def test_seats_are_every_player_resigned_too(app: App) -> None:
    assert readers(app, Audience.SEATS) == SEATS


def test_players_are_active_and_in_civil_disorder_not_resigned(app: App) -> None:
    assert readers(app, Audience.PLAYERS) == [s for s in SEATS if s[1] != "England"]


def test_ordering_players_are_the_active_ones_only(app: App) -> None:
    assert readers(app, Audience.ORDERING) == [
        s for s in SEATS if s[1] not in ("Austria", "England")
    ]


def test_master(app: App) -> None:
    assert readers(app, Audience.MASTER) == [MASTER]
    assert readers(app, Audience.MASTER, master_address=None) == []


def test_everyone_is_every_seat_then_the_master_once(app: App) -> None:
    assert readers(app, Audience.EVERYONE) == [*SEATS, MASTER]
    # A master who plays a power too reads the mail once, as that power.
    assert readers(app, Audience.EVERYONE, master_address="italy@example.org") == SEATS
    assert readers(app, Audience.EVERYONE, master_address=None) == SEATS


def test_the_game_zone_is_shown_to_readers_who_name_none(app: App) -> None:
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        game.settings = {**(game.settings or {}), "timezone": "America/New_York"}
        got = recipients(session, game, Audience.EVERYONE, app.judge)
    zones: dict[str | None, str] = {power: "America/New_York" for _a, power, _z in SEATS}
    zones.update({"Russia": "Europe/Moscow", None: "America/New_York"})
    assert {r.power: r.zone for r in got} == zones
    assert got[-1] == Recipient("gm@example.org", None, "America/New_York", None)
