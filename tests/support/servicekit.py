"""Helpers for service tests: a judge on a temporary database driven with a fixed clock."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import select

from judge.config import JudgeSettings
from judge.db.models import Game, OutboundMessage, Player
from judge.render import RenderedMail
from judge.runtime.bootstrap import App, open_app
from judge.services.games import current_position, process_game
from judge.services.inbound import process_one
from judge.services.intake import receive
from judge.services.outbox import insert_outbox, queue_mail
from support import DATA

GOLDEN = DATA / "golden" / "e2e"

GAME_FILE = """\
[game]
name = "test01"
rules = "2023"
timezone = "Europe/London"

[deadlines]
movement = { hours = 48, at = "20:00" }
retreat = 24
adjustment = 24

[master]
address = "gm@example.org"
password = "gm-secret"

[players]
Austria = { address = "austria@example.org", password = "pw-aus" }
England = { address = "england@example.org", password = "pw-eng" }
France = "france@example.org"
Germany = { address = "germany@example.org", password = "pw-ger" }
Italy = { address = "italy@example.org", password = "pw-ita" }
Russia = { address = "russia@example.org", password = "pw-rus", timezone = "Europe/Moscow" }
Turkey = { address = "turkey@example.org", password = "pw-tur" }
"""


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


class Table:
    """Drives the judge like its mail front end would, with a fixed clock."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.count = 0
        self.seen = 0

    def send(self, sender: str, body: str, when: str, subject: str = "orders") -> str:
        """Store a plain mail and process it; the state it ends in."""
        inbound_id = self.store(sender, body, when, subject)
        return process_one(self.app.sessions, self.app.judge, inbound_id, at(when))

    def store(self, sender: str, body: str, when: str, subject: str = "orders") -> int:
        """Store a plain mail as received, not yet processed; its inbound id."""
        self.count += 1
        mail = EmailMessage()
        mail["From"] = sender
        mail["To"] = "judge@example.org"
        mail["Subject"] = subject
        mail["Message-ID"] = f"<m{self.count}@players.example>"
        mail.set_content(body)
        with self.app.sessions() as session, session.begin():
            row, new = receive(session, mail.as_bytes(), at(when))
            assert new
            return row.id

    def inject(self, raw: bytes, when: str) -> str:
        """Store and process a raw message as received (a mail program's own bytes)."""
        now = at(when)
        with self.app.sessions() as session, session.begin():
            row, new = receive(session, raw, now)
            assert new
            inbound_id = row.id
        return process_one(self.app.sessions, self.app.judge, inbound_id, now)

    def new_mail(self) -> list[OutboundMessage]:
        with self.app.sessions() as session:
            rows = list(
                session.scalars(
                    select(OutboundMessage)
                    .where(OutboundMessage.id > self.seen)
                    .order_by(OutboundMessage.id)
                )
            )
        if rows:
            self.seen = rows[-1].id
        return rows

    def check(self, step: str) -> list[OutboundMessage]:
        rows = self.new_mail()
        text = "\n".join(
            f"To: {r.to_addr}\nSubject: {r.subject}\n\n{r.body}" + "=" * 78 + "\n" for r in rows
        )
        path = GOLDEN / f"{step}.txt"
        if os.environ.get("UPDATE_GOLDEN") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        else:
            assert path.exists(), f"no golden file {path}: run with UPDATE_GOLDEN=1"
            assert text == path.read_text(encoding="utf-8"), f"step {step} differs"
        return rows

    def units(self) -> dict[str, str]:
        with self.app.sessions() as session:
            game = session.scalars(select(Game)).one()
            position = current_position(session, game)
        return {
            u.location: f"{u.power[:3]} {u.type.value}"
            for u in sorted(position.units.values(), key=lambda u: u.location)
        }

    def phase(self) -> str:
        with self.app.sessions() as session:
            game = session.scalars(select(Game)).one()
            return str(game.phase)

    def process(self, when: str) -> None:
        with self.app.sessions() as session, session.begin():
            game = session.scalars(select(Game)).one()
            phase = game.phase
            assert process_game(session, self.app.judge, "test01", at(when), phase=phase)
        # A second run for the same phase (a double fire) does nothing.
        with self.app.sessions() as session, session.begin():
            assert process_game(session, self.app.judge, "test01", at(when), phase=phase) is None


def make_app(tmp_path: Path, url: str) -> App:
    settings = JudgeSettings(
        name="TESTJUDGE", address="judge@example.org", var_dir=tmp_path / "var", database_url=url
    )
    app = open_app(settings)
    app.judge.make_password = lambda: "paris-123"
    return app


def started_game(
    tmp_path: Path, url: str | None = None, start: datetime | None = None
) -> tuple[App, Table]:
    """A judge with the game ``test01`` of :data:`GAME_FILE` started at ``start`` (by
    default 2026-11-23 12:00: tests that run the judge on the real clock pass the real
    time, or the first deadline is long past when they run)."""
    from judge.services.game_files import load_game
    from judge.services.games import start_game

    app = make_app(tmp_path, url or f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE)
    with app.sessions() as session, session.begin():
        when = start if start is not None else at("2026-11-23 12:00")
        load_game(session, app.judge, path, when)
        start_game(session, app.judge, "test01", when)
    table = Table(app)
    table.new_mail()
    return app, table


def game_row(app: App) -> Game:
    """The one game of the judge, as stored now."""
    with app.sessions() as session:
        return session.scalars(select(Game)).one()


def player(app: App, power: str) -> Player:
    """The seat of ``power``, as stored now."""
    with app.sessions() as session:
        return session.scalars(select(Player).where(Player.power == power)).one()


def queue_results(app: App, count: int, now: datetime) -> None:
    """Queue ``count`` more results mails (a burst's, one to each of ``count`` made-up
    players), in one statement."""
    with app.sessions() as session, session.begin():
        rows: list[dict[str, object]] = []
        for number in range(count):
            queue_mail(
                session, app.judge, to=f"p{number}@example.org", kind="results", now=now,
                mail=RenderedMail("Diplomacy results", "Spring 1901.\n"), into=rows,
            )  # fmt: skip
        insert_outbox(session, rows)
