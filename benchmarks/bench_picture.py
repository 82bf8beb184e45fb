"""How long drawing the map picture takes, and how large its PNG is.

    python benchmarks/bench_picture.py [--runs 30]

For the opening position and a busy results phase (tests/support/pictures.py: Fall 1901
with moves that succeed and bounce, a convoy, supports, a cut support, dislodged units
with their retreats and one destroyed), times ``draw()`` followed by ``svg()``, and
``draw()`` followed by ``png()``, ``--runs`` times each after one untimed run.  Prints the
median and the slowest run in milliseconds (the PNG's median also in CPU time, which
leaves out the waits for other processes on a shared machine), the PNG's size in KB, and
the time of the first picture of the process (which reads the geometry file and draws
the board, both kept from then on); nothing is asserted (the tests do that).
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


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="timed runs of each (30)")
    args = parser.parse_args(argv)
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
