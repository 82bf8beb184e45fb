"""Several ``judge serve`` on one PostgreSQL database through a deadline burst.

    python benchmarks/bench_judges.py [--games 1000] [--judges 1 2] [--repeat 1] [--lead 10]

The games are made once on a private PostgreSQL server (``benchmarks/many_games.py``,
maps off, their game-start mail marked sent) and the database copied for each run
(``CREATE DATABASE ... TEMPLATE``).  For each run every game's deadline is set to the same
moment ``--lead`` seconds ahead, then N ``judge serve`` processes start on that one
database, each with its own settings file and ``var/`` directory (as on N machines), all
sending to one sink in this process (``bench_deadline.ArrivalSink``, the light one).

Prints, per N: deadline -> first and last adjudication (the judges' log lines "...
processed"), -> last results email at the sink, last adjudication -> last email; how the
games were shared out (phases processed by each judge), how many games were processed by
more than one judge (must be 0) and how many mails the sink got twice (by Message-ID, must
be 0 without a judge dying); and the CPU seconds (user + sys) of all the judges and of
PostgreSQL from the deadline to the last email.  Nothing is asserted (the tests do that:
tests/integration/test_two_judges.py).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (str(ROOT / "tests"), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from benchmarks.bench_deadline import (  # noqa: E402
    ArrivalSink,
    _s,
    prepare,
    serve_run,
    write_config,
)
from benchmarks.bench_mail import new_postgres_database, scratch_directory  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    from support.pgserver import PostgresServer

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--judges", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=1, help="runs per number of judges")
    parser.add_argument("--lead", type=float, default=10.0, help="seconds to the deadline")
    parser.add_argument("--stall", type=float, default=60.0, help="give up after")
    parser.add_argument("--keep", action="store_true", help="keep the files")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        directory = scratch_directory(stack, "bench-judges-", args.keep)
        postgres = PostgresServer(fsync=True)
        stack.callback(postgres.stop)
        postgres.start()
        sink = ArrivalSink()
        sink.sink.start()
        stack.callback(sink.sink.close)
        pid = postgres.process.pid if postgres.process else None
        template = new_postgres_database(postgres.url, "template_games")
        print(f"{args.games} games due at one moment, PostgreSQL 15; making them...", flush=True)
        took = prepare(template, directory / "var-setup", args.games, directory / "games", False)
        print(f"  made in {took:.0f} s", flush=True)
        print(
            f"{'judges':>6} {'run':>3} {'first':>6} {'last':>6} {'mail':>7} {'adj->mail':>9} "
            f"{'mails':>7} {'twice':>5} {'sent 2x':>7} {'judge cpu':>9} {'pg cpu':>7}  shares"
        )
        for judges in args.judges:
            for number in range(1, args.repeat + 1):
                run_dir = directory / f"run-{judges}-{number}"
                run_dir.mkdir()
                url = new_postgres_database(
                    postgres.url, f"run_{judges}_{number}", template="template_games"
                )
                configs = []
                for judge in range(judges):
                    home = run_dir / f"judge-{judge}"
                    home.mkdir()
                    configs.append(write_config(home, sink, url))
                one = serve_run(
                    configs, url, run_dir / "var-setup", sink, args.games, args.lead,
                    args.stall, pid,
                )  # fmt: skip
                gap = (
                    one.last_mail - one.last
                    if one.last_mail is not None and one.last is not None
                    else None
                )
                print(
                    f"{judges:>6} {number:>3} {_s(one.first):>6} {_s(one.last):>6} "
                    f"{_s(one.last_mail):>7} {_s(gap):>9} {one.mails:>7} "
                    f"{one.twice_processed:>5} {one.twice_sent:>7} {one.judge_cpu:>9.1f} "
                    f"{one.postgres_cpu:>7.1f}  {'/'.join(str(s) for s in one.shares)}"
                    + (f"  ({one.expected} mails expected)" if one.mails < one.expected else ""),
                    flush=True,
                )
        print(
            "seconds from the deadline: first/last = first/last game adjudicated (the judges' "
            "logs); mail = last results email at the sink; adj->mail = last adjudication to "
            "last email; twice = games processed by more than one judge; sent 2x = mails the "
            "sink got more than once (by Message-ID); cpu = user+sys seconds of all the "
            "judges and of PostgreSQL from the deadline to the last email; shares = phases "
            "processed by each judge"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
