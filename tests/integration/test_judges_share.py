"""Two judges on one PostgreSQL database share a deadline burst: each game's phase is
looked at and processed by one of them, once, and both take part.  (The judges run here
as two :class:`~judge.runtime.serve.Server` objects in one process, each named as a judge
of its own host; tests/integration/test_two_judges.py runs two real ``judge serve``.)"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session
from support.netutil import free_port
from support.servicekit import GAME_FILE, at, make_app

from judge.config import InboundSmtpSettings
from judge.db.models import Game, JudgeProcess, PhaseRecord
from judge.runtime.bootstrap import App
from judge.runtime.serve import CLAIM_PAGE, Server
from judge.services.game_files import load_game
from judge.services.games import process_game, start_game

#: Two pages' worth: one judge alone could claim them all at once otherwise.
GAMES = 2 * CLAIM_PAGE
START = at("2026-11-23 12:00")
#: Past every game's first deadline (48 hours at 20:00).
LATER = at("2026-11-26 12:00")


class CountingServer(Server):
    """A judge that notes each phase it processes (and is slowed a little, as a real
    adjudication with its mail is, so that a burst overlaps the two judges)."""

    processed: list[tuple[str, str, str]]
    lock = threading.Lock()

    def _process(self, session: Session, game: Game, now: datetime) -> str | None:
        with self.lock:
            self.processed.append((self.token, game.name, game.phase or ""))
        time.sleep(0.02)
        return super()._process(session, game, now)


def judge(app: App, token: str, seen: list[tuple[str, str, str]]) -> CountingServer:
    app.judge.settings = dataclasses.replace(
        app.judge.settings, inbound=InboundSmtpSettings("127.0.0.1", free_port())
    )
    server = CountingServer(app, clock=lambda: LATER, tick=0.2, use_scheduler=False)
    server.token = token
    server.processed = seen
    # Only the deadline loop and the mail loops: the burst is already in the database.
    server._game_files = lambda now, games_dir: None  # type: ignore[method-assign]
    return server


def test_two_judges_share_a_deadline_burst_and_process_each_phase_once(
    tmp_path: Path, postgres_database_url: str
) -> None:
    first = make_app(tmp_path / "a", postgres_database_url)
    second = make_app(tmp_path / "b", postgres_database_url)
    with first.sessions() as session, session.begin():
        for number in range(GAMES):
            path = tmp_path / f"g{number:02}.toml"
            path.write_text(GAME_FILE.replace('name = "test01"', f'name = "g{number:02}"'))
            load_game(session, first.judge, path, START)
            start_game(session, first.judge, f"g{number:02}", START)
    seen: list[tuple[str, str, str]] = []
    a = judge(first, "judge-a.example:1:1", seen)
    b = judge(second, "judge-b.example:2:1", seen)
    a.start()
    try:
        b.start()
        with first.sessions() as session:
            judges = set(session.scalars(select(JudgeProcess.token)))
        assert judges == {a.token, b.token}
        limit = time.monotonic() + 60
        while time.monotonic() < limit:
            with first.sessions() as session:
                phases = set(session.scalars(select(Game.phase)))
            if phases == {"F1901M"}:
                break
            time.sleep(0.1)
    finally:
        a.stop()
        b.stop()
    assert a.errors == b.errors == 0
    with first.sessions() as session:
        assert set(session.scalars(select(Game.phase))) == {"F1901M"}
        records = Counter(session.execute(select(PhaseRecord.game_id, PhaseRecord.phase)).all())
        # Stopped cleanly: nothing held, nobody registered.
        assert (
            list(session.scalars(select(Game.claimed_by).where(Game.claimed_by.is_not(None)))) == []
        )
        assert list(session.scalars(select(JudgeProcess.token))) == []
    assert sorted(records.values()) == [1] * (2 * GAMES)  # S1901M done, F1901M begun
    by_game = Counter((name, phase) for _token, name, phase in seen)
    assert by_game == Counter({(f"g{n:02}", "S1901M"): 1 for n in range(GAMES)})
    by_judge = Counter(token for token, _name, _phase in seen)
    assert set(by_judge) == {a.token, b.token}


def test_judges_read_the_game_files_one_at_a_time(
    tmp_path: Path, postgres_database_url: str
) -> None:
    """Two judges loading one new game file together would both make its game: the
    second waits for the first (a PostgreSQL advisory lock), then finds it made."""
    from sqlalchemy import text

    from judge.db.session import make_engine
    from judge.runtime.serve import GAME_FILES_LOCK

    app = make_app(tmp_path / "a", postgres_database_url)
    games = tmp_path / "games"
    games.mkdir()
    (games / "new01.toml").write_text(GAME_FILE.replace('name = "test01"', 'name = "new01"'))
    server = Server(app, clock=lambda: START, use_scheduler=False)
    done = threading.Event()

    def look() -> None:
        server._game_files(START, games)
        done.set()

    engine = make_engine(postgres_database_url)
    try:
        with engine.connect() as other_judge:
            other_judge.execute(text("SELECT pg_advisory_lock(:key)"), {"key": GAME_FILES_LOCK})
            other_judge.commit()
            thread = threading.Thread(target=look, daemon=True)
            thread.start()
            assert not done.wait(1.0)
            with app.sessions() as session:
                assert list(session.scalars(select(Game.name))) == []
            other_judge.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": GAME_FILES_LOCK})
            other_judge.commit()
            thread.join(30)
    finally:
        engine.dispose()
    assert done.is_set()
    with app.sessions() as session:
        assert list(session.scalars(select(Game.name))) == ["new01"]


def test_a_phase_processed_by_two_judges_at_once_is_processed_once(
    tmp_path: Path, postgres_database_url: str
) -> None:
    """Two judges processing one game's phase together (one wrongly taken for dead, its
    game claim freed): the second waits on the game's row and finds the phase done,
    instead of adjudicating it again and failing on the next phase's row."""
    app = make_app(tmp_path, postgres_database_url)
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE)
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, START)
        start_game(session, app.judge, "test01", START)
    first = app.sessions()
    first.begin()
    assert process_game(first, app.judge, "test01", LATER, phase="S1901M") is not None
    outcome: list[object] = []

    def second() -> None:
        try:
            with app.sessions() as session, session.begin():
                outcome.append(process_game(session, app.judge, "test01", LATER, phase="S1901M"))
        except Exception as error:  # the failure is what the test looks at
            outcome.append(error)

    thread = threading.Thread(target=second)
    thread.start()
    thread.join(1.0)
    assert thread.is_alive()  # waiting for the first judge's transaction
    first.commit()
    first.close()
    thread.join(10)
    assert outcome == [None]
    with app.sessions() as session:
        phases = session.scalars(select(PhaseRecord.phase).order_by(PhaseRecord.seq)).all()
    assert phases == ["S1901M", "F1901M"]
