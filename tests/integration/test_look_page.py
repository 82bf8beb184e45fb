"""A page of games looked at in one transaction (``judge.runtime.looks.look_page``) ends
exactly as each game looked at alone (``look``): the same games, phases, seats, orders,
notices and mail, on SQLite and PostgreSQL; a page costs the same statements whatever
its size; a look that fails holds none of the page's other games back."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, make_url, select, update
from sqlalchemy.orm import Session
from support.servicekit import GAME_FILE, Table, at, make_app

from judge.db import queries
from judge.db.models import (
    FutureOrder,
    Game,
    NoticeRecord,
    OrderRecord,
    OutboundMessage,
    PhaseRecord,
    Player,
    VoteRecord,
)
from judge.runtime.bootstrap import App
from judge.runtime.looks import Failed, Looked, look, look_page
from judge.runtime.serve import Server
from judge.services.game_files import load_game
from judge.services.games import set_deadline, start_game

TOKEN = "judge-a.example:1:1"
START = "2026-11-23 12:00"
#: Past the first deadline (2026-11-25 20:00).
LATER = at("2026-11-25 20:30")
GAMES = ("test01", "test02", "test03", "test04", "test05")

#: Complete S1901M orders (everything holds), with the sign-on line ({game}: its name).
HOLD = {
    "austria": "SIGNON A{game} pw-aus\nA Vie H\nA Bud H\nF Tri H",
    "england": "SIGNON E{game} pw-eng\nF Lon H\nF Edi H\nA Lvp H",
    "france": "SIGNON F{game} paris-123\nF Bre H\nA Par H\nA Mar H",
    "germany": "SIGNON G{game} pw-ger\nF Kie H\nA Ber H\nA Mun H",
    "italy": "SIGNON I{game} pw-ita\nF Nap H\nA Rom H\nA Ven H",
    "russia": "SIGNON R{game} pw-rus\nF StP/SC H\nA Mos H\nA War H\nF Sev H",
    "turkey": "SIGNON T{game} pw-tur\nF Ank H\nA Con H\nA Smy H",
}


@pytest.fixture(params=["sqlite", "postgresql"])
def two_urls(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two empty databases of one kind: SQLite files, or schemas of the tests' server."""
    if request.param == "sqlite":
        yield (f"sqlite:///{tmp_path / 'one.db'}", f"sqlite:///{tmp_path / 'two.db'}")
        return
    first: str = request.getfixturevalue("postgres_database_url")
    admin: Engine = request.getfixturevalue("_postgres_admin")
    name = f"test_{uuid.uuid4().hex[:16]}"
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{name}"')
    url = make_url(first).update_query_dict({"options": f"-csearch_path={name}"})
    try:
        yield first, url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{name}" CASCADE')


def judge_with_games(directory: Path, url: str, *, varied: bool = True, maps: bool = True) -> App:
    """Five started games (``maps``: with the map pictures), each claimed by
    :data:`TOKEN`, all alike (no orders) unless ``varied``, when they are in different
    states at :data:`LATER`:

    * test01: no orders (every power misses the phase);
    * test02: every power's orders in;
    * test03: France's orders, with orders sent ahead for the next phase, and a draw
      vote standing (Germany);
    * test04: its deadline moved to the next day, and a reminder due (none ordered);
    * test05: Italy and Turkey ordered, a press message released to all.
    """
    directory.mkdir()
    app = make_app(directory, url)
    table = Table(app)
    for name in GAMES:
        path = directory / f"{name}.toml"
        text = GAME_FILE.replace('"test01"', f'"{name}"')
        if not maps:
            text = text.replace('rules = "2023"\n', 'rules = "2023"\nmaps = false\n')
        if name == "test04" and varied:
            text = text.replace(
                'movement = { hours = 48, at = "20:00" }',
                'movement = { hours = 48, at = "20:00", remind = 24 }',
            )
        path.write_text(text)
        with app.sessions() as session, session.begin():
            load_game(session, app.judge, path, at(START))
            start_game(session, app.judge, name, at(START))
    if varied:
        vary(app, table)
    with app.sessions() as session, session.begin():
        session.execute(update(Game).values(claimed_by=TOKEN, updated_at=at(START)))
    return app


def vary(app: App, table: Table) -> None:
    """The orders, votes, press and deadlines of :func:`judge_with_games`'s varied games."""
    for address, body in HOLD.items():
        assert (
            table.send(f"{address}@example.org", body.format(game="test02"), "2026-11-24 09:00")
            == "done"
        )
    assert (
        table.send(
            "france@example.org",
            HOLD["france"].format(game="test03") + "\nPHASE Fall 1901 Movement\nA Par-Bur\n",
            "2026-11-24 10:00",
        )
        == "done"
    )
    assert (
        table.send(
            "germany@example.org", "SIGNON Gtest03 pw-ger\nDRAW AEFGIRT\n", "2026-11-24 10:05"
        )
        == "done"
    )
    for address in ("italy", "turkey"):
        assert (
            table.send(
                f"{address}@example.org", HOLD[address].format(game="test05"), "2026-11-24 11:00"
            )
            == "done"
        )
    assert table.send(
        "italy@example.org", "SIGNON Itest05 pw-ita\nPRESS TO ALL\nPeace in our time.\nENDPRESS\n",
        "2026-11-24 11:05",
    ) == "done"  # fmt: skip
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game).where(Game.name == "test04")).one()
        set_deadline(session, game, at("2026-11-26 20:00"))


#: Columns left out of the comparison: the Message-ID is made of the time and a random
#: part, a password's hash of a random salt, and the game files are in two directories
#: (where they were loaded from, and when); a game's ``updated_at`` is the real clock's
#: at its last write.
_SKIP = {"message_id", "config_path", "file_applied", "updated_at"}


def dump(app: App) -> dict[str, list[dict[str, Any]]]:
    """Every row the looks write, by table, in the order of their ids."""
    tables = (Game, PhaseRecord, Player, OrderRecord, FutureOrder, NoticeRecord, VoteRecord,
              OutboundMessage)  # fmt: skip
    found: dict[str, list[dict[str, Any]]] = {}
    with app.sessions() as session:
        for model in tables:
            columns = [
                c
                for c in model.__table__.columns
                if c.name not in _SKIP and not c.name.endswith("_hash")
            ]
            rows = session.execute(select(*columns).order_by(model.__table__.c.id))
            found[model.__tablename__] = [dict(row._mapping) for row in rows]
    return found


def test_a_page_looked_at_together_ends_as_each_game_looked_at_alone(
    tmp_path: Path, two_urls: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    alone = judge_with_games(tmp_path / "alone", two_urls[0])
    together = judge_with_games(tmp_path / "together", two_urls[1])
    ids = list(range(1, len(GAMES) + 1))
    before = dump(alone)
    assert dump(together) == before
    looked_alone = [look(alone, TOKEN, game_id, LATER) for game_id in ids]
    looked_together = look_page(together, TOKEN, ids, LATER)
    assert looked_together == looked_alone
    # Together, not each alone after a failure.
    assert not [r for r in caplog.records if "together failed" in r.getMessage()]
    assert looked_alone == [
        Looked("test01 S1901M processed at the deadline; now F1901M", True),
        Looked("test02 S1901M processed at the deadline; now F1901M", True),
        Looked("test03 S1901M processed at the deadline; now F1901M", True),
        Looked(None, True),  # the reminders
        Looked("test05 S1901M processed at the deadline; now F1901M", True),
    ]
    after = dump(alone)
    assert dump(together) == after
    # What the comparison covers did happen.
    assert after != before
    assert {game["name"]: (game["phase"], game["claimed_by"]) for game in after["games"]} == {
        "test01": ("F1901M", None), "test02": ("F1901M", None), "test03": ("F1901M", None),
        "test04": ("S1901M", None), "test05": ("F1901M", None),
    }  # fmt: skip
    kinds = [row["kind"] for row in after["outbox"][len(before["outbox"]) :]]
    assert kinds.count("reminder") == 7
    assert kinds.count("results") >= 4 * 7


def test_a_look_that_fails_holds_none_of_the_others_back(
    tmp_path: Path, two_urls: tuple[str, str]
) -> None:
    app = judge_with_games(tmp_path / "one", two_urls[0])

    def process(session: Session, game: Game, now: datetime) -> str | None:
        if game.name == "test02":
            raise RuntimeError("test02 cannot be processed")
        return f"{game.name} processed"

    outcomes = look_page(app, TOKEN, [1, 2, 3], LATER, process)
    assert outcomes[0] == Looked("test01 processed", True)
    assert outcomes[2] == Looked("test03 processed", True)
    failed = outcomes[1]
    assert isinstance(failed, Failed)
    assert failed.trace.splitlines()[-1] == "RuntimeError: test02 cannot be processed"
    with app.sessions() as session:
        claims = dict(session.execute(select(Game.name, Game.claimed_by).order_by(Game.id)).all())
    # The failed look rolled back: its game is still claimed (the judge gives it back).
    assert claims == {
        "test01": None,
        "test02": TOKEN,
        "test03": None,
        "test04": TOKEN,
        "test05": TOKEN,
    }


def test_a_page_costs_the_same_statements_whatever_its_size(
    tmp_path: Path, two_urls: tuple[str, str]
) -> None:
    app = judge_with_games(tmp_path / "one", two_urls[0], varied=False, maps=False)
    postgres = two_urls[0].startswith("postgresql")

    def expected(games: int) -> list[tuple[str, str]]:
        # SQLite cannot insert many rows at once and tell each one's id: the new phases
        # are one INSERT each there.
        return [
            ("SELECT", "games"),  # the page's rows locked
            # What the looks ask of each game, one statement a kind for the page.
            ("SELECT", "phases"),
            ("SELECT", "players"),
            ("SELECT", "orders"),
            ("SELECT", "absent"),
            # Every look's changes in one flush: one statement a table (executemany).
            ("UPDATE", "games"),
            ("UPDATE", "phases"),
            *[("INSERT", "phases")] * (1 if postgres else games),
            ("UPDATE", "players"),
            ("UPDATE", "games"),  # each game's next moment, and its claim given back
            ("INSERT", "outbox"),  # every look's mail, at the commit
        ]

    assert _statements(app, [1, 2]) == expected(2)
    assert _statements(app, [3, 4, 5]) == expected(3)
    with app.sessions() as session:
        assert set(session.scalars(select(Game.phase))) == {"F1901M"}
        assert session.scalar(select(func.count()).select_from(OutboundMessage)) == 5 * (8 + 8)


def _statements(app: App, ids: list[int]) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    engine = app.sessions.kw["bind"]

    def listen(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        words = statement.split()
        verb = words[0].upper()
        if statement.startswith("SELECT games.id, games.seq, NOT (EXISTS"):
            seen.append((verb, "absent"))
        elif verb == "SELECT":
            seen.append((verb, words[words.index("FROM") + 1]))
        elif verb == "INSERT":
            seen.append((verb, words[2]))
        else:
            seen.append((verb, words[1]))

    event.listen(engine, "before_cursor_execute", listen)
    try:
        look_page(app, TOKEN, ids, LATER)
    finally:
        event.remove(engine, "before_cursor_execute", listen)
    return seen


class FailingServer(Server):
    """A judge whose processing of test02 fails."""

    def _process(self, session: Session, game: Game, now: datetime) -> str | None:
        if game.name == "test02":
            raise RuntimeError("test02 cannot be processed")
        return super()._process(session, game, now)


def test_the_deadline_loop_gives_back_a_game_whose_look_failed_and_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = judge_with_games(tmp_path / "one", f"sqlite:///{tmp_path / 'one.db'}", varied=False)
    with app.sessions() as session, session.begin():
        session.execute(update(Game).values(claimed_by=None))
    server = FailingServer(app, clock=lambda: LATER, use_scheduler=False)
    server._deadlines()
    with app.sessions() as session:
        games = session.execute(select(Game.name, Game.phase, Game.claimed_by).order_by(Game.id))
        assert [tuple(row) for row in games] == [
            ("test01", "F1901M", None),
            ("test02", "S1901M", None),  # given back, to be looked at again
            ("test03", "F1901M", None),
            ("test04", "F1901M", None),
            ("test05", "F1901M", None),
        ]
    assert server.errors == 1
    (failed,) = [r for r in caplog.records if "looking at its deadline failed" in r.getMessage()]
    assert failed.levelname == "ERROR"
    assert failed.getMessage().startswith("test02: looking at its deadline failed; retrying\n")
    assert failed.getMessage().endswith("RuntimeError: test02 cannot be processed\n")
    # The part was tried together first, then each game alone.
    (together,) = [r for r in caplog.records if "together failed" in r.getMessage()]
    assert together.getMessage() == (
        "looking at 5 games together failed (RuntimeError); looking at each alone"
    )


def test_a_page_does_not_wait_for_a_game_held_elsewhere_while_it_holds_the_others(
    tmp_path: Path, postgres_database_url: str
) -> None:
    """An inbox reading a game (``FOR KEY SHARE``) while a page is looked at: the page's
    other games are looked at and committed without it, and it is looked at alone once
    free.  (Waiting for it while holding the others could close a circle with an inbox
    that holds it and then reads one of them.)"""
    app = judge_with_games(tmp_path / "one", postgres_database_url, varied=False, maps=False)
    outcome: dict[str, list[Looked | Failed]] = {}
    with app.sessions() as holder:
        holder.begin()
        assert queries.game_past_looks(holder, 2) is not None  # as an inbox reads test02
        thread = threading.Thread(
            target=lambda: outcome.update(looked=look_page(app, TOKEN, [1, 2, 3], LATER))
        )
        thread.start()
        until = time.monotonic() + 10
        while time.monotonic() < until:
            phases = _phases(app)
            if phases[0] == phases[2] == "F1901M":
                break
            time.sleep(0.05)
        assert phases == ["F1901M", "S1901M", "F1901M", "S1901M", "S1901M"]
        assert thread.is_alive()  # waiting for test02, alone
        holder.rollback()
    thread.join(30)
    assert outcome["looked"] == [
        Looked(f"test0{n} S1901M processed at the deadline; now F1901M", True) for n in (1, 2, 3)
    ]
    assert _phases(app) == ["F1901M", "F1901M", "F1901M", "S1901M", "S1901M"]


def _phases(app: App) -> list[str | None]:
    with app.sessions() as session:
        return list(session.scalars(select(Game.phase).order_by(Game.id)))


class DyingPool:
    """Stands for the look processes, a part holding test02 killing its process: its
    future fails as a dead process's does (BrokenProcessPool); any other part is looked
    at here.  Notes the parts submitted."""

    usable = True

    def __init__(self, app: App, token: str) -> None:
        self.app, self.token = app, token
        self.parts: list[list[int]] = []

    def submit_page(self, game_ids: list[int], now: datetime) -> Future[list[Looked | Failed]]:
        self.parts.append(list(game_ids))
        future: Future[list[Looked | Failed]] = Future()
        if 2 in game_ids:
            future.set_exception(BrokenProcessPool("a look process died"))
        else:
            future.set_result(look_page(self.app, self.token, game_ids, now))
        return future


def test_the_games_of_a_part_whose_process_died_are_looked_at_alone_until_looked_at(
    tmp_path: Path,
) -> None:
    app = judge_with_games(tmp_path / "one", f"sqlite:///{tmp_path / 'one.db'}", varied=False)
    with app.sessions() as session, session.begin():
        session.execute(update(Game).values(claimed_by=None))
    server = Server(app, clock=lambda: LATER, use_scheduler=False)
    pool = DyingPool(app, server.token)
    server._look_pool = pool  # type: ignore[assignment]
    server._deadlines()
    # The part died: every game given back, each to be looked at alone.
    assert pool.parts == [[1, 2, 3, 4, 5]]
    assert _phases(app) == ["S1901M"] * 5
    server._deadlines()
    assert pool.parts[1:] == [[1], [2], [3], [4], [5]]
    assert _phases(app) == ["F1901M", "S1901M", "F1901M", "F1901M", "F1901M"]
    assert server._alone == {2}
    with app.sessions() as session:
        assert set(session.scalars(select(Game.claimed_by))) == {None}
