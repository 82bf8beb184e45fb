"""The deadline loop's look processes (``judge.runtime.looks.LookPool``) on a real
PostgreSQL: a look in a pool process processes the game for the judge that claimed it
and gives the claim back with its commit; a pool whose process was killed is made
afresh, and the game it was looking at is left claimed by the judge (which gives it
back), never half processed."""

from __future__ import annotations

import dataclasses
import os
import pickle
import signal
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from sqlalchemy import select, update
from support.servicekit import GAME_FILE, at, started_game

from judge.db.models import Game
from judge.runtime.looks import MAX_RENEWALS, Looked, LookPool

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


def test_a_look_that_hangs_does_not_hang_closing_the_pool(
    tmp_path: Path, postgres_database_url: str
) -> None:
    app, _table = started_game(tmp_path, postgres_database_url)
    pool = LookPool(app.judge.settings, TOKEN, 1)
    pool.start(60)
    (process,) = pool._pool()._processes.values()
    with app.sessions() as session, session.begin():
        # The game's row held here: the look waits for it (as for a lock never given).
        session.execute(select(Game).with_for_update())
        future = pool.submit(1, LATER)
        time.sleep(1.0)
        assert not future.done()
        began = time.monotonic()
        pool.close(timeout=1.0)
        took = time.monotonic() - began
        # Read from /proc: the executor's own thread may be reaping it meanwhile.
        assert process.pid is not None and not _alive(process.pid)
    assert 1.0 <= took < 5.0
    # The look cut short rolled back: the phase is still to be processed.
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
    assert (game.phase, game.seq) == ("S1901M", 1)
    with pytest.raises(RuntimeError, match="the look processes are closed"):
        pool.submit(1, LATER)
    assert not pool.usable


def test_a_pool_that_breaks_again_and_again_is_given_up(
    tmp_path: Path, postgres_database_url: str
) -> None:
    app, _table = started_game(tmp_path, postgres_database_url)
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    # A pool process cannot open its judge (its var directory is under a file): each
    # pool breaks at its start.
    settings = dataclasses.replace(app.judge.settings, var_dir=blocked / "var")
    pool = LookPool(settings, TOKEN, 1)
    outcomes: list[str] = []
    try:
        for _ in range(MAX_RENEWALS + 2):
            try:
                pool.submit(1, LATER).result(60)
            except BrokenProcessPool as err:
                outcomes.append(f"broken: {err}" if "given up" in str(err) else "broken")
            else:
                outcomes.append("looked")
    finally:
        pool.close()
    # The first breaks the pool; each of the next finds it broken and makes it afresh,
    # until the third renewal gives it up.
    assert outcomes == [
        "broken",
        "broken",
        "broken",
        "broken: the look processes were given up",
        "broken: the look processes were given up",
    ]
    assert not pool.usable


_KILLED_JUDGE = """
import pickle, sys, time
from judge.runtime.looks import LookPool
settings = pickle.loads(open(sys.argv[1], "rb").read())
pool = LookPool(settings, "judge-a.example:1:1", 2)
pool.start(60)
print(" ".join(str(pid) for pid in pool._pool()._processes), flush=True)
time.sleep(600)
"""


def test_the_look_processes_end_when_their_judge_is_killed(
    tmp_path: Path, postgres_database_url: str
) -> None:
    app, _table = started_game(tmp_path, postgres_database_url)
    pickled = tmp_path / "settings.pickle"
    pickled.write_bytes(pickle.dumps(app.judge.settings))
    judge = subprocess.Popen(
        [sys.executable, "-c", _KILLED_JUDGE, str(pickled)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert judge.stdout is not None
        pids = [int(pid) for pid in judge.stdout.readline().split()]
        assert len(pids) == 2
        assert all(_alive(pid) for pid in pids)
        judge.kill()  # SIGKILL: no word to the pool
        judge.wait(10)
        until = time.monotonic() + 10
        while any(_alive(pid) for pid in pids) and time.monotonic() < until:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in pids)
    finally:
        judge.kill()
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (not a zombie: the orphans' reaper is init)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_judge_whose_look_processes_are_given_up_looks_in_its_own(
    tmp_path: Path, postgres_database_url: str
) -> None:
    """Every game of a page is looked at all the same: in the pool's processes while they
    work, here once they are given up (a look that failed is tried again at the next
    pass, as any failed look)."""
    from judge.runtime.serve import Server
    from judge.services.game_files import load_game
    from judge.services.games import start_game

    app, _table = started_game(tmp_path, postgres_database_url)
    second = tmp_path / "test02.toml"
    second.write_text(GAME_FILE.replace('"test01"', '"test02"'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, second, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test02", at("2026-11-23 12:00"))
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    settings = dataclasses.replace(app.judge.settings, var_dir=blocked / "var")
    server = Server(app, clock=lambda: LATER, use_scheduler=False)
    server._look_pool = pool = LookPool(settings, server.token, 2)
    try:
        passes = 0
        while passes < MAX_RENEWALS + 3:
            passes += 1
            server._deadlines()
            with app.sessions() as session:
                phases = session.execute(select(Game.name, Game.phase, Game.claimed_by)).all()
            if all(phase == "F1901M" for _name, phase, _by in phases):
                break
    finally:
        pool.close()
    assert sorted(phases) == [("test01", "F1901M", None), ("test02", "F1901M", None)]
    assert not pool.usable
    assert server.errors >= 1
