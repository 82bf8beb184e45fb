"""The deadline loop's look processes (``judge.runtime.looks.LookPool``) on a real
PostgreSQL: a look in a pool process processes the game for the judge that claimed it
and gives the claim back with its commit; a pool whose process was killed is made
afresh, and the game it was looking at is left claimed by the judge (which gives it
back), never half processed."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from sqlalchemy import select, update
from support.servicekit import at, started_game

from judge.db.models import Game
from judge.runtime.looks import Looked, LookPool

TOKEN = "judge-a.example:1:1"
#: Past the game's first deadline (48 hours, at 20:00).
LATER = at("2026-11-26 12:00")


def test_a_look_in_a_pool_process_processes_the_game_and_gives_the_claim_back(
    tmp_path: Path, postgres_database_url: str
) -> None:
    app, _table = started_game(tmp_path, postgres_database_url)
    with app.sessions() as session, session.begin():
        session.execute(update(Game).values(claimed_by=TOKEN))
    pool = LookPool(app.judge.settings, TOKEN, 2)
    try:
        pool.start(60)
        looked = pool.submit(1, LATER).result(60)
        # Looked at again at once: the phase is no longer due, nothing is said or sent.
        again = pool.submit(1, LATER).result(60)
    finally:
        pool.close()
    assert looked == Looked("test01 S1901M processed at the deadline; now F1901M", True)
    assert again == Looked(None, False)
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
    assert (game.phase, game.seq, game.claimed_by) == ("F1901M", 2, None)


def test_a_pool_whose_process_died_is_made_afresh(
    tmp_path: Path, postgres_database_url: str
) -> None:
    app, _table = started_game(tmp_path, postgres_database_url)
    pool = LookPool(app.judge.settings, TOKEN, 1)
    try:
        pool.start(60)
        executor = pool._pool()
        (pid,) = [process.pid for process in executor._processes.values()]
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        # The broken pool is noticed at the next look (at once, or when it fails).
        try:
            looked = pool.submit(1, LATER).result(60)
        except Exception:
            looked = pool.submit(1, LATER).result(60)
    finally:
        pool.close()
    assert looked.said == "test01 S1901M processed at the deadline; now F1901M"
