"""A game of seven players played by injected mail with a fixed clock: the seats, the
game file, signing on and sending, and the scheduler's tick (the end-to-end tests of
ending a game and of orders sent ahead share them)."""

from __future__ import annotations

from pathlib import Path

from judge.db.models import OutboundMessage
from judge.runtime.bootstrap import App
from judge.services.game_files import load_game
from judge.services.games import due_games, process_game, start_game
from support.servicekit import Table, at, make_app

GM = "gm@example.org"
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
PASSWORD = {power: f"pw-{power[:3].lower()}" for power in POWERS}
INITIAL = {power: power[0] for power in POWERS}
ADDRESS = {power: f"{power.lower()}@example.org" for power in POWERS}
PLAYERS = "\n".join(
    f'{power} = {{ address = "{ADDRESS[power]}", password = "{PASSWORD[power]}" }}'
    for power in POWERS
)


def seven(tmp_path: Path, settings: str = "") -> tuple[App, Table]:
    """A judge with game ``test01`` of the seven (``settings`` added to its [game]
    table), started 2026-11-23 12:00 (S1901M, deadline Nov 25 20:00 London); the
    game-start mail is left unread."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(
        f'[game]\nname = "test01"\nrules = "2023"\ntimezone = "Europe/London"\n{settings}\n'
        '[deadlines]\nmovement = { hours = 48, at = "20:00" }\nretreat = 24\nadjustment = 24\n\n'
        f'[master]\naddress = "{GM}"\npassword = "gm-secret"\n\n[players]\n{PLAYERS}\n'
    )
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    return app, Table(app)


def post(table: Table, power: str, text: str, when: str) -> None:
    """``power`` signs on and sends ``text`` (its mail is read by the caller)."""
    table.send(ADDRESS[power], f"SIGNON {INITIAL[power]}test01 {PASSWORD[power]}\n{text}", when)


def send(table: Table, power: str, text: str, when: str) -> list[OutboundMessage]:
    """``power`` signs on and sends ``text``; the mail it caused."""
    post(table, power, text, when)
    return table.new_mail()


def tick(app: App, when: str) -> list[str]:
    """What the scheduler does at ``when``: process each game that is due; the phases it
    processed (or tried to)."""
    now = at(when)
    with app.sessions() as session:
        due = due_games(session, now)
    for name, phase in due:
        with app.sessions() as session, session.begin():
            process_game(session, app.judge, name, now, phase=phase)
    return [phase for _name, phase in due]
