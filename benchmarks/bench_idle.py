"""What an idle judge costs, and how late it acts on a deadline, with many active games.

    python benchmarks/bench_idle.py [--games 10 1000 10000] [--seconds 30] [--settle 15]
                                    [--moved 20] [--ahead 5] [--cache DIR] [--postgres]

For each number of games: ``--games`` games of seven players are loaded and started
(``benchmarks/many_games.py``, their game files in the judge's ``games/`` directory as a
game master's would be; their first deadline two days ahead), on SQLite in a temporary
directory (``--postgres``: a database of its own on a throwaway PostgreSQL server).  The
game-start mail is dropped from the outbox, so that what follows is the idle judge alone.
``--cache DIR`` keeps each database made (by number of games) and copies it for the next
run (SQLite only); one made by an older judge is migrated by ``judge serve`` as it starts.

Then ``judge serve`` runs as a child process with a settings file, as it is deployed
(worker processes, the default tick); after ``--settle`` seconds, the CPU time (user +
system) of its whole process tree over ``--seconds`` seconds is the idle cost, printed as
a share of one core.

Then the deadline latency: the deadlines of ``--moved`` games are moved to ``--ahead``
seconds from now, in one transaction by the judge's own ``set_deadline`` (as a game
master's SET DEADLINE does), and the judge gets a SIGHUP (``judge reload``).  Each game's
lateness is the time of the judge's log line "... processed at the deadline" minus its
deadline; the median and the worst are printed.  Nothing is asserted (the tests do that).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the project's root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from sqlalchemy import delete, select
from support.netutil import free_port

from benchmarks.bench_mail import new_postgres_database, tree_cpu_seconds
from benchmarks.many_games import make_games
from judge.config import load_settings
from judge.db.models import Game, OutboundMessage, PhaseRecord
from judge.runtime.bootstrap import open_app
from judge.services.games import find_game, set_deadline

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Figures:
    """One run's figures."""

    games: int
    setup_s: float
    idle_cpu_s: float
    idle_wall_s: float
    late_ms: list[float]
    missed: int
    #: How late the judge took each game up (its pass's clock, the phase's processed_at).
    taken_ms: list[float]

    @property
    def idle_share(self) -> float:
        return self.idle_cpu_s / self.idle_wall_s


def write_config(directory: Path, database_url: str) -> Path:
    """The judge's settings file (its ``games/`` directory beside it)."""
    config = directory / "config" / "judge.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    (config.parent / "games").mkdir(exist_ok=True)
    config.write_text(
        "[judge]\n"
        'name = "BENCHJUDGE"\n'
        'address = "judge@example.org"\n'
        f'var_dir = "{directory / "var"}"\n'
        f'database_url = "{database_url}"\n'
        f'\n[inbound]\nhost = "127.0.0.1"\nport = {free_port()}\n'
    )
    return config


def schema_revision() -> str:
    """The newest migration's file name: a cached database is made by the same schema."""
    return sorted(p.stem for p in (ROOT / "migrations" / "versions").glob("0*.py"))[-1]


def set_up(config: Path, games: int, cache: Path | None, sqlite_file: Path | None) -> float:
    """Make the games (or copy them from the cache); the seconds it took."""
    settings = load_settings(config)
    assert settings.games_dir is not None
    # By number of games only: a database made by an older judge is migrated by
    # ``judge serve`` at its start, as a deployed judge's is (within --settle).
    cached = cache / f"idle-{games}" if cache is not None else None
    started = time.perf_counter()
    if cached is not None and sqlite_file is not None and (cached / "judge.db").exists():
        sqlite_file.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(cached / "judge.db", sqlite_file)
        shutil.copytree(cached / "games", settings.games_dir, dirs_exist_ok=True)
        # The rows name the games' files where they were made: name the copies instead.
        before = (cached / "games_dir").read_text()
        with contextlib.closing(sqlite3.connect(sqlite_file)) as db, db:
            db.execute(
                "UPDATE games SET config_path = replace(config_path, ?, ?)",
                (before, str(settings.games_dir)),
            )
        return time.perf_counter() - started
    app = open_app(settings)
    begun = datetime.now(UTC)

    def progress(done: int) -> None:
        if done % 1000 == 0:
            print(f"    {done} games started ({time.perf_counter() - started:.0f} s)", flush=True)

    make_games(app, games, settings.games_dir, start=begun, progress=progress)
    with app.sessions() as session, session.begin():
        session.execute(delete(OutboundMessage))
    took = time.perf_counter() - started
    for engine in {app.sessions.kw["bind"], app.store_sessions.kw["bind"]}:
        engine.dispose()
    if cached is not None and sqlite_file is not None:
        # Everything into the database file itself, so that a copy of it is whole.
        with contextlib.closing(sqlite3.connect(sqlite_file)) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        cached.mkdir(parents=True, exist_ok=True)
        shutil.copy(sqlite_file, cached / "judge.db")
        (cached / "games_dir").write_text(str(settings.games_dir))
        shutil.copytree(settings.games_dir, cached / "games", dirs_exist_ok=True)
    return took


def move_deadlines(config: Path, count: int, ahead: float) -> dict[str, datetime]:
    """Move ``count`` games' deadlines to ``ahead`` seconds from now; name -> deadline."""
    app = open_app(load_settings(config), migrate=False)
    when = (datetime.now(UTC) + timedelta(seconds=ahead)).replace(microsecond=0)
    moved: dict[str, datetime] = {}
    with app.sessions() as session, session.begin():
        for n in range(count):
            name = f"g{n:05d}"
            game = find_game(session, name)
            assert game is not None
            set_deadline(session, game, when)
            moved[name] = when
    return moved


def taken_up(config: Path, moved: dict[str, datetime]) -> list[float]:
    """How late (ms) the judge took up each moved game: its first phase's processed_at
    (the clock of the pass that processed it) minus its deadline."""
    app = open_app(load_settings(config), migrate=False)
    with app.sessions() as session:
        rows = session.execute(
            select(Game.name, PhaseRecord.processed_at)
            .join(PhaseRecord, PhaseRecord.game_id == Game.id)
            .where(PhaseRecord.seq == 1, Game.name.in_(list(moved)))
        ).all()
    return [(at - moved[name]).total_seconds() * 1000 for name, at in rows if at is not None]


#: "2026-11-25 02:40:01,123 INFO MainProcess judge.serve: g00001 S1901M processed at ..."
_PROCESSED = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) INFO \S+ judge\.serve: (g\d{5}) S1901M processed",
    re.MULTILINE,
)


def processed_at(log: Path) -> dict[str, datetime]:
    """When each game's first phase was processed, from the judge's log (local time)."""
    found: dict[str, datetime] = {}
    for match in _PROCESSED.finditer(log.read_text(errors="replace")):
        local = datetime.strptime(f"{match[1]}.{match[2]}", "%Y-%m-%d %H:%M:%S.%f")
        found[match[3]] = local.astimezone(UTC)
    return found


def run(games: int, args: argparse.Namespace, postgres_url: str | None) -> Figures:
    """One number of games: set up, serve, measure idle, then the deadline latency."""
    directory = Path(tempfile.mkdtemp(prefix=f"bench-idle-{games}-"))
    try:
        if postgres_url is not None:
            url = new_postgres_database(postgres_url, f"bench_idle_{games}_{os.getpid()}")
            sqlite_file = None
        else:
            sqlite_file = directory / "var" / "judge.db"
            url = f"sqlite:///{sqlite_file}"
        config = write_config(directory, url)
        print(f"\n== {games} active games", flush=True)
        setup_s = set_up(config, games, args.cache, sqlite_file)
        print(f"  set up in {setup_s:.1f} s", flush=True)
        log = directory / "serve.log"
        command = [sys.executable, "-m", "judge.cli", "--config", str(config), "serve"]
        with log.open("wb") as handle:
            process = subprocess.Popen(
                command, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        try:
            print(f"  judge: {' '.join(command[1:])}; settling {args.settle:g} s", flush=True)
            time.sleep(args.settle)
            if process.poll() is not None:
                raise SystemExit(f"judge serve exited:\n{log.read_text()[-3000:]}")
            cpu0, wall0 = tree_cpu_seconds(process.pid), time.monotonic()
            time.sleep(args.seconds)
            cpu, wall = tree_cpu_seconds(process.pid) - cpu0, time.monotonic() - wall0
            print(f"  idle: {cpu:.2f} CPU s in {wall:.1f} s = {cpu / wall:.2%} of one core",
                  flush=True)  # fmt: skip
            moved = move_deadlines(config, min(args.moved, games), args.ahead)
            process.send_signal(signal.SIGHUP)
            limit = time.monotonic() + args.ahead + 60
            done: dict[str, datetime] = {}
            while time.monotonic() < limit and len(done) < len(moved):
                time.sleep(0.5)
                done = processed_at(log)
            late = [(done[name] - when).total_seconds() * 1000 for name, when in moved.items()
                    if name in done]  # fmt: skip
            missed = len(moved) - len(late)
            taken = taken_up(config, moved)
            if taken:
                print(f"  taken up (the pass's clock, phases.processed_at): "
                      f"{statistics.median(taken):.0f} ms late (median), "
                      f"{max(taken):.0f} ms (worst)", flush=True)  # fmt: skip
            if late:
                print(f"  {len(moved)} deadlines moved {args.ahead:g} s ahead: processed "
                      f"{statistics.median(late):.0f} ms late (median), "
                      f"{max(late):.0f} ms (worst)"
                      + (f"; {missed} not processed within a minute" if missed else ""),
                      flush=True)  # fmt: skip
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        return Figures(games, setup_s, cpu, wall, late, missed, taken)
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)
        else:
            print(f"  files kept in {directory}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[10, 1000, 10000])
    parser.add_argument("--seconds", type=float, default=30.0, help="idle measure (30)")
    parser.add_argument("--settle", type=float, default=15.0, help="before measuring (15)")
    parser.add_argument("--moved", type=int, default=20, help="deadlines moved (20)")
    parser.add_argument("--ahead", type=float, default=5.0, help="seconds ahead (5)")
    parser.add_argument("--cache", type=Path, help="keep and reuse the databases made here")
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL")
    parser.add_argument("--keep", action="store_true", help="keep the temporary files")
    args = parser.parse_args(argv)
    print(f"bench_idle: {os.cpu_count()} CPUs; schema {schema_revision()}")
    results: list[Figures] = []
    with contextlib.ExitStack() as stack:
        postgres_url = None
        if args.postgres:
            from support.pgserver import PostgresServer

            server = PostgresServer(fsync=False)
            server.start()
            stack.callback(server.stop)
            postgres_url = server.url
        for games in args.games:
            results.append(run(games, args, postgres_url))
    database = "PostgreSQL" if args.postgres else "SQLite"
    print(f"\n{'games':>7} {'setup s':>8} {'idle CPU s':>11} {'of a core':>10} "
          f"{'taken up ms (median/worst)':>27} {'logged done ms (median/worst)':>30}"
          f"  ({database})")  # fmt: skip
    for r in results:
        taken = (f"{statistics.median(r.taken_ms):.0f} / {max(r.taken_ms):.0f}"
                 if r.taken_ms else "-")  # fmt: skip
        late = f"{statistics.median(r.late_ms):.0f} / {max(r.late_ms):.0f}" if r.late_ms else "-"
        missed = f"  ({r.missed} missed)" if r.missed else ""
        print(f"{r.games:>7} {r.setup_s:>8.1f} {r.idle_cpu_s:>11.2f} {r.idle_share:>10.2%} "
              f"{taken:>27} {late:>30}{missed}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
