"""How long drawing the map picture takes, and how large its PNG is.

    python benchmarks/bench_picture.py [--runs 30]
    python benchmarks/bench_picture.py --burst 100 [--postgres]

For the opening position and a busy results phase (tests/support/pictures.py: Fall 1901
with moves that succeed and bounce, a convoy, supports, a cut support, dislodged units
with their retreats and one destroyed), times ``draw()`` followed by ``svg()``, and
``draw()`` followed by ``png()``, ``--runs`` times each after one untimed run.  Prints the
median and the slowest run in milliseconds (the PNG's median also in CPU time, which
leaves out the waits for other processes on a shared machine), the PNG's size in KB, and
the time of the first picture of the process (which reads the geometry file and draws
the board, both kept from then on); nothing is asserted (the tests do that).

With ``--burst N``: where the drawing happens in a deadline burst.  N games of seven
players with ``maps = true`` (benchmarks/many_games.py) are started, then processed at
their common deadline, one transaction a game as ``judge serve`` does; then the sender
(``deliver_pending``, to a transport that only counts) delivers the outbox, all of it.
Prints the time and CPU time of the adjudications (the write transactions every other
game waits for) and of the sender, the pictures stored, the mails sent and how many
carried a picture.  On a SQLite file, or with ``--postgres`` a throwaway PostgreSQL.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ``judge`` from the checkout, and the test support package (tests/support).
for _path in (str(ROOT / "tests"), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from support import pictures  # noqa: E402

from judge.engine import Position  # noqa: E402
from judge.mail.outgoing import OutgoingMail  # noqa: E402
from judge.picture import Picture, draw  # noqa: E402


def _times(job: Callable[[], object], runs: int) -> tuple[list[float], list[float]]:
    """The wall-clock and the CPU milliseconds of each of ``runs`` runs of ``job`` (the
    CPU time leaves out the waits for other processes on a shared machine)."""
    job()  # untimed: the first picture of a process reads the geometry, draws the board
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        job()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return wall, cpu


class _Counting:
    """A transport that sends nothing: it counts the mails and those with a picture."""

    def __init__(self) -> None:
        self.mails = 0
        self.with_picture = 0

    def send(self, mail: OutgoingMail) -> None:
        self.mails += 1
        self.with_picture += bool(mail.attachments)


def burst(games: int, postgres: bool) -> None:
    """``--burst``: start ``games`` games with maps on, process them at one deadline,
    then deliver the outbox; print where the time went."""
    import tempfile
    from contextlib import ExitStack
    from datetime import timedelta

    from sqlalchemy import func, select

    from benchmarks.many_games import DUE, make_games
    from judge.config import JudgeSettings
    from judge.db.models import Picture as Stored
    from judge.runtime.bootstrap import open_app
    from judge.runtime.sender import deliver_pending
    from judge.services.games import due_games, process_game

    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        url = f"sqlite:///{tmp / 'var' / 'judge.db'}"
        if postgres:
            from support.pgserver import PostgresServer

            from benchmarks.bench_mail import new_postgres_database

            server = PostgresServer(fsync=True)
            stack.callback(server.stop)
            server.start()
            url = new_postgres_database(server.url, "bench_picture")
        settings = JudgeSettings(
            name="BENCH", address="judge@example.org", var_dir=tmp / "var", database_url=url
        )
        app = open_app(settings)
        make_games(app, games, tmp / "games", maps=True)
        start, start_cpu = time.perf_counter(), time.process_time()
        with app.sessions() as session:
            due = due_games(session, DUE)
        for name, phase in due:
            with app.sessions() as session, session.begin():
                process_game(session, app.judge, name, DUE, phase=phase)
        adjudicate = (time.perf_counter() - start, time.process_time() - start_cpu)
        transport = _Counting()
        start, start_cpu = time.perf_counter(), time.process_time()
        while deliver_pending(
            app.sessions, app.judge, transport, lambda: DUE + timedelta(minutes=1), limit=100_000
        ):
            pass
        send = (time.perf_counter() - start, time.process_time() - start_cpu)
        with app.sessions() as session:
            stored = session.scalar(
                select(func.count()).select_from(Stored).where(Stored.png.is_not(None))
            )
        for sessions in (app.sessions, app.store_sessions):
            bind = sessions.kw["bind"]
            bind.dispose()  # before the server stops
    print(f"{'step':<28}{'s':>8}{'CPU s':>8}{'ms/game':>9}")
    for step, (wall, cpu) in (("adjudications (write lock)", adjudicate), ("sender", send)):
        print(f"{step:<28}{wall:>8.2f}{cpu:>8.2f}{1000 * wall / max(len(due), 1):>9.1f}")
    print(
        f"games {len(due)}, pictures stored {stored}, mails sent {transport.mails}, "
        f"with a picture {transport.with_picture}"
    )


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="timed runs of each (30)")
    parser.add_argument("--burst", type=int, default=0, help="games of a deadline burst")
    parser.add_argument("--postgres", action="store_true", help="--burst on PostgreSQL")
    args = parser.parse_args(argv)
    if args.burst:
        burst(args.burst, args.postgres)
        return
    busy = pictures.movement()
    start = time.perf_counter()
    draw(busy.before, busy.results, busy.position, title="Game demo", caption="x").png()
    first = (time.perf_counter() - start) * 1000
    cases: dict[str, Callable[[], Picture]] = {
        "opening (S1901M)": lambda: draw(
            Position.initial(pictures.MAP), title="Game demo", caption="Spring 1901"
        ),
        "busy results (F1901M)": lambda: draw(
            busy.before, busy.results, busy.position, title="Game demo", caption="Fall 1901"
        ),
    }
    print(
        f"{'picture':<24}{'draw+svg ms':>12}{'draw+png ms':>12}{'(CPU ms)':>10}"
        f"{'max png ms':>12}{'PNG KB':>8}"
    )
    for name, make in cases.items():
        svg, _ = _times(lambda make=make: make().svg(), args.runs)  # type: ignore[misc]
        png, cpu = _times(lambda make=make: make().png(), args.runs)  # type: ignore[misc]
        size = len(make().png()) / 1024
        print(
            f"{name:<24}{statistics.median(svg):>12.1f}{statistics.median(png):>12.1f}"
            f"{statistics.median(cpu):>10.1f}{max(png):>12.1f}{size:>8.1f}"
        )
    print(f"the first picture of a process (geometry read, board drawn): {first:.1f} ms")


if __name__ == "__main__":
    main()
