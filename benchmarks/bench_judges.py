"""Several ``judge serve`` on one PostgreSQL database through a deadline burst.

    python benchmarks/bench_judges.py [--games 1000] [--judges 1 2] [--repeat 1] [--lead 10]

The games are made once on a private PostgreSQL server (``benchmarks/many_games.py``,
maps off, their game-start mail marked sent) and the database copied for each run
(``CREATE DATABASE ... TEMPLATE``).  For each run every game's deadline is set to the same
moment ``--lead`` seconds ahead, then N ``judge serve`` processes start on that one
database, each with its own settings file and ``var/`` directory (as on N machines), all
sending to one aiosmtpd sink in this process (``bench_deadline.ArrivalSink``).

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
import re
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (str(ROOT / "tests"), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from sqlalchemy import func, select  # noqa: E402

from benchmarks.bench_deadline import (  # noqa: E402
    PROCESSED,
    ArrivalSink,
    prepare,
    set_deadlines,
    write_config,
)
from benchmarks.bench_mail import (  # noqa: E402
    Subprocess,
    new_postgres_database,
    tree_cpu_seconds,
)
from judge.db.models import OutboundMessage  # noqa: E402
from judge.db.session import make_engine  # noqa: E402

_MESSAGE_ID = re.compile(rb"^Message-ID:\s*(\S+)", re.MULTILINE | re.IGNORECASE)


class CountingSink(ArrivalSink):
    """The arrival sink, also counting each Message-ID (a mail sent twice)."""

    def __init__(self) -> None:
        from support.smtpsink import Received, SmtpSink

        outer = self

        class _CountingSink(SmtpSink):
            def _keep(self, received: Received) -> None:
                stamp = time.time()
                found = _MESSAGE_ID.search(received.raw[:8192])
                with outer.lock:
                    outer.arrivals.append(stamp)
                    if found:
                        outer.ids[found.group(1)] += 1

        self.lock = threading.Lock()
        self.arrivals: list[float] = []
        self.ids: Counter[bytes] = Counter()
        self.sink = _CountingSink()  # type: ignore[assignment]
        self.host, self.port = self.sink.host, self.sink.port

    def reset(self) -> None:
        with self.lock:
            self.arrivals.clear()
            self.ids.clear()


@dataclass
class Run:
    """One run's figures, in seconds from the deadline."""

    judges: int
    first: float | None
    last: float | None
    last_mail: float | None
    mails: int
    expected: int
    shares: list[int]
    twice_processed: int
    twice_sent: int
    judge_cpu: float
    postgres_cpu: float


def one_run(
    directory: Path,
    url: str,
    sink: CountingSink,
    judges: int,
    games: int,
    lead: float,
    stall: float,
    postgres_pid: int | None,
) -> Run:
    """Set the deadlines ``lead`` seconds ahead, start ``judges`` judges on ``url``,
    wait for every results mail, stop them; the figures."""
    sink.reset()
    deadline = datetime.now(UTC) + timedelta(seconds=lead)
    set_deadlines(url, directory / "var-setup", deadline)
    at = deadline.timestamp()
    started: list[Subprocess] = []
    logs: list[Path] = []
    try:
        for number in range(judges):
            home = directory / f"judge-{number}"
            home.mkdir()
            config = write_config(home, sink, url)
            log = home / f"serve-{uuid.uuid4().hex[:6]}.log"
            logs.append(log)
            started.append(Subprocess(config, log))
        while time.time() < at:
            time.sleep(0.02)
        cpu_before = sum(judge.cpu_seconds() for judge in started)
        pg_before = tree_cpu_seconds(postgres_pid) if postgres_pid else 0.0
        engine = make_engine(url)
        expected = 7 * games
        last_count, last_change = -1, time.monotonic()
        while True:
            time.sleep(0.2)
            processed: set[str] = set()
            for log in logs:
                text = log.read_text("utf-8", "replace")
                processed.update(m.group(2) for m in PROCESSED.finditer(text))
            if len(processed) >= games:
                with engine.connect() as connection:
                    expected = connection.execute(
                        select(func.count())
                        .select_from(OutboundMessage)
                        .where(OutboundMessage.kind != "gamestart")
                    ).scalar_one()
            count = sink.count()
            if len(processed) >= games and count >= expected:
                break
            if count + len(processed) != last_count:
                last_count, last_change = count + len(processed), time.monotonic()
            if not all(judge.alive() for judge in started):
                raise RuntimeError(f"a judge serve exited; see {directory}")
            if time.monotonic() - last_change > stall and time.time() > at + stall:
                print(f"    gave up: {count} of {expected} mails after {stall} s without one")
                break
        judge_cpu = sum(judge.cpu_seconds() for judge in started) - cpu_before
        postgres_cpu = (tree_cpu_seconds(postgres_pid) - pg_before) if postgres_pid else 0.0
        engine.dispose()
    finally:
        for judge in started:
            judge.stop()
    stamps: list[float] = []
    shares: list[int] = []
    by_game: Counter[str] = Counter()
    for log in logs:
        mine = 0
        for line in log.read_text("utf-8", "replace").splitlines():
            found = PROCESSED.match(line)
            if found:
                local = datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S,%f")
                stamps.append(local.timestamp() - at)  # the log's asctime is local time
                by_game[found.group(2)] += 1
                mine += 1
        shares.append(mine)
    with sink.lock:
        arrivals = list(sink.arrivals)
        twice_sent = sum(1 for n in sink.ids.values() if n > 1)
    return Run(
        judges=judges,
        first=min(stamps) if stamps else None,
        last=max(stamps) if stamps else None,
        last_mail=max(arrivals) - at if arrivals else None,
        mails=len(arrivals),
        expected=expected,
        shares=shares,
        twice_processed=sum(1 for n in by_game.values() if n > 1),
        twice_sent=twice_sent,
        judge_cpu=judge_cpu,
        postgres_cpu=postgres_cpu,
    )


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


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
        directory = Path(tempfile.mkdtemp(prefix="bench-judges-"))
        if args.keep:
            print(f"files kept in {directory}")
        else:
            stack.callback(shutil.rmtree, directory, ignore_errors=True)
        postgres = PostgresServer(fsync=True)
        stack.callback(postgres.stop)
        postgres.start()
        sink = CountingSink()
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
                one = one_run(run_dir, url, sink, judges, args.games, args.lead, args.stall, pid)
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
