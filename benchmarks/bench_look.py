"""The deadline loop's look at a due game, alone: CPU of the judge and of PostgreSQL.

```sh
python benchmarks/bench_look.py [--games 500] [--together N] [--profile FILE [--calls]]
```

Makes ``--games`` running games (maps off, their game-start mail marked sent) on a
private PostgreSQL server, sets every deadline to a moment just past, and looks at each
game in turn in this one process (:func:`judge.runtime.looks.look`: notices, the phase
processed, its results queued, the next moment settled, one transaction), or with
``--together N`` at N games at a time in one transaction
(:func:`judge.runtime.looks.look_page`, as ``judge serve`` does with N = 12). Printed: the
judge's CPU (user + sys of this process) and PostgreSQL's (its server processes, from
``/proc``) per look, and the wall time per look. No mail is sent: the sender's share is
``bench_deadline.py --serve``'s. ``--profile FILE``: the looks' cProfile statistics, timed
on CPU, written to FILE (the profiler about doubles the CPU figure); with ``--calls``,
counted instead (calls and returns, in millions), the same on any machine.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import itertools
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ``judge`` and ``benchmarks`` from this checkout (also when run as a script), and the
# test support package (tests/support) for the PostgreSQL server.
for _path in (str(ROOT / "tests"), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from sqlalchemy import select  # noqa: E402
from sqlalchemy.orm import configure_mappers  # noqa: E402

from benchmarks.bench_deadline import _dispose, prepare, set_deadlines  # noqa: E402
from benchmarks.bench_mail import new_postgres_database, tree_cpu_seconds  # noqa: E402
from judge.config import JudgeSettings, SmtpSettings  # noqa: E402
from judge.db.models import Game  # noqa: E402
from judge.runtime.bootstrap import App, open_app  # noqa: E402
from judge.runtime.looks import look, look_page  # noqa: E402


def due_games(
    stack: contextlib.ExitStack, games: int, name: str, smtp: SmtpSettings | None = None
) -> tuple[App, list[int], int]:
    """A private PostgreSQL server (stopped by ``stack``) holding ``games`` running games
    (maps off) whose deadline has just passed, and the judge on it (``smtp``: its relay);
    the judge, the games' ids in order and the server's process id (the postmaster: its
    children are the backends)."""
    from support.pgserver import PostgresServer

    postgres = PostgresServer(fsync=True)
    stack.callback(postgres.stop)
    postgres.start()
    directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"bench-{name}-")))
    url = new_postgres_database(postgres.url, name)
    var = directory / "var"
    print(f"making {games} games on PostgreSQL...", flush=True)
    prepare(url, var, games, directory / "games", False)
    when = datetime.now(UTC) + timedelta(seconds=2)
    set_deadlines(url, var, when)
    time.sleep(max((when - datetime.now(UTC)).total_seconds(), 0) + 0.1)
    settings = JudgeSettings(
        name="BENCH", address="judge@example.org", var_dir=var, database_url=url, smtp=smtp
    )
    app = open_app(settings, migrate=False)
    stack.callback(_dispose, app)
    configure_mappers()
    with app.sessions() as session:
        ids = list(session.scalars(select(Game.id).order_by(Game.id)))
    assert postgres.process is not None
    return app, ids, postgres.process.pid


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument(
        "--together",
        type=int,
        default=1,
        help="games looked at in one transaction (look_page); 1: each alone (look)",
    )
    parser.add_argument("--profile", type=Path, help="write the looks' cProfile stats here")
    parser.add_argument(
        "--calls",
        action="store_true",
        help="--profile: count calls and returns instead of timing (the same on any machine)",
    )
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        app, ids, server = due_games(stack, args.games, "looks")
        now = datetime.now(UTC)
        look(app, "bench", ids[0], now)  # the connection made, the statements prepared
        # Counted, the profile's "seconds" are millions of calls and returns: on a
        # machine whose speed wanders, the one measure that compares two versions.
        clock = itertools.count().__next__ if args.calls else time.process_time
        profiler = cProfile.Profile(clock, 1e-6 if args.calls else 0.0) if args.profile else None
        looks = ids[1:]
        cpu, pg, wall = time.process_time(), tree_cpu_seconds(server), time.perf_counter()
        if profiler is not None:
            profiler.enable()
        if args.together > 1:
            for at in range(0, len(looks), args.together):
                look_page(app, "bench", looks[at : at + args.together], now)
        else:
            for game_id in looks:
                look(app, "bench", game_id, now)
        if profiler is not None:
            profiler.disable()
        cpu = time.process_time() - cpu
        pg = tree_cpu_seconds(server) - pg
        wall = time.perf_counter() - wall
        print(
            f"{len(looks)} looks at due games: judge CPU {1000 * cpu / len(looks):.2f} ms a "
            f"look, PostgreSQL CPU {1000 * pg / len(looks):.2f} ms, wall "
            f"{1000 * wall / len(looks):.2f} ms" + (" (profiled)" if profiler is not None else "")
        )
        if profiler is not None and args.profile is not None:
            profiler.dump_stats(args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
