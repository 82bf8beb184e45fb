"""What a deadline burst costs the judge: many games due at the same moment.

    python benchmarks/bench_deadline.py [--games 200] [--maps both|on|off]
    python benchmarks/bench_deadline.py --serve [--games 1000] [--postgres] [--repeat 1]
                                        [--maps off|on|both] [--lead 8] [--drain]
                                        [--sink light|aiosmtpd]

In process (the default), on a SQLite file in a temporary directory: ``--games`` games of
seven players are loaded and started (their game-start mail queued), then the clock is
moved past their common first deadline and every due game is processed (``due_games``,
then ``process_game`` in its own transaction, the orders missing so every unit holds).
The results mails are queued, not sent.  Prints, for each setting of the games' ``maps``
key, the time to start them and the time to process the burst (total, and per game),
and how many pictures were stored; nothing is asserted (the tests do that).
``--profile FILE`` runs that burst under cProfile and writes the statistics to FILE.

``--serve``: the real judge, end to end.  The games are made once (SQLite file, or with
``--postgres`` a database on a private PostgreSQL server), their game-start mail marked
sent, and the database copied for each run (a file copy; ``CREATE DATABASE ... TEMPLATE``).
For each run every game's deadline is set, in the database, to the same moment
``--lead`` seconds ahead, then ``judge serve`` starts as a subprocess with a settings file
(worker processes, its ``[smtp]`` a sink in this process that notes when each mail
arrives: ``--sink light``, the default, :mod:`benchmarks.relay_sink`, a stand-in for a
relay on another machine that costs this one little; ``--sink aiosmtpd``, the tests'
sink).  Prints: deadline -> first adjudication, -> last adjudication (the judge's log
lines "... processed at the deadline"), -> last results email received by the sink, and
last adjudication -> last email; and the CPU seconds (user + sys) of the judge and its
workers, of PostgreSQL and of this process (the sink, mostly), from the deadline to the
last email.  Nothing here depends on how the judge's deadline loop is woken: the
deadline, and each game's ``wake_at`` for it, are in the database before the judge
starts.

``--drain``: after the runs, each run's results mails are queued again, all due at once,
and ``judge serve`` started on its database: the sender alone, as if adjudicating cost
nothing.  Prints the time from the first mail received to the last, the mails a second,
and the CPU seconds of the judge and of this process (the sink) over that time.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import re
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ``judge`` and ``benchmarks`` from this checkout (also when run as a script), and the
# test support package (tests/support) for the sink and the PostgreSQL server.
for _path in (str(ROOT / "tests"), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from sqlalchemy import func, select, update  # noqa: E402

from benchmarks.many_games import DUE, make_games  # noqa: E402
from judge.config import JudgeSettings  # noqa: E402
from judge.db.models import Game, OutboundMessage, PhaseRecord, Picture  # noqa: E402
from judge.runtime.bootstrap import open_app  # noqa: E402
from judge.services.games import due_games, process_game  # noqa: E402
from judge.services.wakes import next_wake  # noqa: E402


def run(games: int, maps: bool, profile: Path | None = None) -> dict[str, float]:
    """Start ``games`` games and process them all at one deadline; the figures (and, with
    ``profile``, the burst's cProfile statistics written there)."""
    with tempfile.TemporaryDirectory() as tmp:
        var = Path(tmp) / "var"
        settings = JudgeSettings(
            name="BENCH",
            address="judge@example.org",
            var_dir=var,
            database_url=f"sqlite:///{var / 'judge.db'}",
        )
        app = open_app(settings)
        started = time.perf_counter()
        make_games(app, games, Path(tmp) / "games", maps=maps)
        start_s = time.perf_counter() - started
        profiler = cProfile.Profile() if profile is not None else None
        started = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        with app.sessions() as session:
            due = due_games(session, DUE)
        for name, phase in due:
            with app.sessions() as session, session.begin():
                process_game(session, app.judge, name, DUE, phase=phase)
        if profiler is not None:
            profiler.disable()
        burst_s = time.perf_counter() - started
        if profiler is not None and profile is not None:
            profiler.dump_stats(profile)
        with app.sessions() as session:
            pictures = session.scalar(select(func.count()).select_from(Picture)) or 0
            mails = session.scalar(select(func.count()).select_from(OutboundMessage)) or 0
    return {
        "start_s": start_s,
        "burst_s": burst_s,
        "due": float(len(due)),
        "pictures": float(pictures),
        "mails": float(mails),
    }


# -- the real judge ------------------------------------------------------------------------

#: The judge's log line for a phase processed (judge.runtime.serve), with its time.
PROCESSED = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) \w+ \S+ judge\.serve: (g\d{5}) \S+ processed ",
    re.MULTILINE,
)


_MESSAGE_ID = re.compile(rb"^Message-ID:\s*(\S+)", re.MULTILINE | re.IGNORECASE)


class ArrivalSink:
    """The relay the judge sends through, keeping only when each mail arrived and how
    often each Message-ID came (a mail sent twice): 10,000 games send 70,000 mails, too
    many to keep whole.  ``kind``: ``"light"`` (:mod:`benchmarks.relay_sink`, the
    default: a relay on another machine costs this one nothing, and this sink nearly
    nothing) or ``"aiosmtpd"`` (the tests' sink, ``tests/support/smtpsink.py``, about
    1 ms of CPU a mail taken from the judge's two CPUs)."""

    def __init__(self, kind: str = "light") -> None:
        from support.smtpsink import Received, SmtpSink

        from benchmarks.relay_sink import LightSink

        outer = self

        class _Sink(SmtpSink):
            def _keep(self, received: Received) -> None:
                stamp = time.time()  # just before the sink answers 250
                found = _MESSAGE_ID.search(received.raw[:8192])
                with outer.lock:
                    outer.arrivals.append(stamp)
                    if found:
                        outer.ids[found.group(1)] += 1

        self.kind = kind
        self.sink: SmtpSink | LightSink
        if kind == "light":
            self.sink = LightSink()
            self.lock, self.arrivals, self.ids = self.sink.lock, self.sink.arrivals, self.sink.ids
        else:
            self.lock = threading.Lock()
            self.arrivals = []
            self.ids = Counter()
            self.sink = _Sink()
        self.host = self.sink.host

    @property
    def port(self) -> int:
        """The port it listens on (the light sink's is known once started)."""
        return self.sink.port

    def count(self) -> int:
        with self.lock:
            return len(self.arrivals)

    def twice(self) -> int:
        """How many mails arrived more than once (by Message-ID)."""
        with self.lock:
            return sum(1 for n in self.ids.values() if n > 1)

    def reset(self) -> None:
        with self.lock:
            self.arrivals.clear()
            self.ids.clear()


def write_config(directory: Path, sink: ArrivalSink, database_url: str) -> Path:
    """The settings file of ``judge serve`` for one run."""
    from support.netutil import free_port

    config = directory / "judge.toml"
    config.write_text(
        "[judge]\n"
        'name = "BENCH"\n'
        'address = "judge@example.org"\n'
        f'var_dir = "{directory / "var"}"\n'
        f'database_url = "{database_url}"\n'
        "\n[smtp]\n"
        f'host = "{sink.host}"\nport = {sink.port}\nsecurity = "none"\n'
        f'\n[inbound]\nhost = "127.0.0.1"\nport = {free_port()}\n'
    )
    return config


def prepare(database_url: str, var: Path, games: int, files: Path, maps: bool) -> float:
    """Make ``games`` running games in the database at ``database_url``, their game-start
    mail marked sent (the runs time only the results); the seconds it took."""
    settings = JudgeSettings(
        name="BENCH", address="judge@example.org", var_dir=var, database_url=database_url
    )
    app = open_app(settings)
    started = time.perf_counter()
    step = max(games // 10, 1)

    def progress(done: int) -> None:
        if done % step == 0:
            print(f"    {done} games ({time.perf_counter() - started:.0f} s)", flush=True)

    make_games(app, games, files, maps=maps, start=datetime.now(UTC), progress=progress)
    with app.sessions() as session, session.begin():
        session.execute(update(OutboundMessage).values(state="sent", sent_at=datetime.now(UTC)))
    _dispose(app)
    return time.perf_counter() - started


def _dispose(app: object) -> None:
    """Close the connections of ``app``'s engines (PostgreSQL: a database copied from
    this one must have none)."""
    for factory in (app.sessions, app.store_sessions):  # type: ignore[attr-defined]
        bind = factory.kw.get("bind")
        if bind is not None:
            bind.dispose()


def set_deadlines(database_url: str, var: Path, when: datetime) -> None:
    """Every game's deadline, and its current phase's, at ``when``; and the moment the
    deadline loop looks at each game (``wake_at``) worked out for that deadline, as the
    judge stores it when it sets one (:func:`judge.services.wakes.settle`).  Without it
    the judge's first pass finds every game out of step and looks at each before any
    deadline comes (10,000 games on PostgreSQL: 108 s)."""
    settings = JudgeSettings(
        name="BENCH", address="judge@example.org", var_dir=var, database_url=database_url
    )
    app = open_app(settings, migrate=False)
    with app.sessions() as session, session.begin():
        session.execute(update(Game).values(deadline=when, wake_at=when, wake_deadline=when))
        session.execute(update(PhaseRecord).where(PhaseRecord.seq == 1).values(deadline=when))
        # The benchmark's games (no reminder, no grace, no orders) wake at the deadline.
        game = session.scalars(select(Game).limit(1)).one()
        assert next_wake(session, game, datetime.now(UTC)) == when, "games wake otherwise"
    _dispose(app)


@dataclass
class ServeRun:
    """One run's figures, in seconds from the deadline (None: never happened)."""

    first: float | None
    last: float | None
    adjudicated: int
    last_mail: float | None
    mails: int
    expected: int
    judge_cpu: float
    postgres_cpu: float
    #: user+sys of this process (the sink's thread, mostly) from the deadline to the last mail
    sink_cpu: float
    ready: float  # when the (last) judge was serving, from the deadline (negative: before)
    #: Phases processed by each judge, in the order of the settings files.
    shares: list[int]
    #: Games processed by more than one judge; mails the sink got more than once.
    twice_processed: int
    twice_sent: int


def _own_cpu() -> float:
    """User + system CPU seconds of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _read(path: Path) -> str:
    return path.read_text("utf-8", "replace")


def serve_run(
    configs: Sequence[Path],
    database_url: str,
    var: Path,
    sink: ArrivalSink,
    games: int,
    lead: float,
    stall: float,
    postgres_pid: int | None,
) -> ServeRun:
    """Set the deadlines ``lead`` seconds ahead, start a ``judge serve`` for each of
    ``configs`` (several: judges sharing the one database), wait for every results mail
    (none for ``stall`` seconds: give up), stop them; the figures."""
    from benchmarks.bench_mail import Subprocess, tree_cpu_seconds
    from judge.db.session import make_engine

    sink.reset()
    deadline = datetime.now(UTC) + timedelta(seconds=lead)
    set_deadlines(database_url, var, deadline)
    at = deadline.timestamp()
    logs = [config.parent / f"serve-{uuid.uuid4().hex[:6]}.log" for config in configs]
    judges: list[Subprocess] = []
    ready = None
    cpu_before = pg_before = 0.0
    try:
        judges.extend(Subprocess(config, log) for config, log in zip(configs, logs, strict=True))
        while time.time() < at:
            if ready is None and all("serving as" in _read(log) for log in logs):
                ready = time.time() - at
            time.sleep(0.02)
        if ready is None and all("serving as" in _read(log) for log in logs):
            ready = 0.0
        cpu_before = sum(judge.cpu_seconds() for judge in judges)
        sink_before = _own_cpu()
        pg_before = tree_cpu_seconds(postgres_pid) if postgres_pid else 0.0
        engine = make_engine(database_url)
        expected = 7 * games  # one results mail a power at least; counted below
        last_count, last_change = -1, time.monotonic()
        adjudicated = 0
        while True:
            time.sleep(0.2)
            adjudicated = len({m.group(2) for log in logs for m in PROCESSED.finditer(_read(log))})
            if adjudicated >= games:
                with engine.connect() as connection:
                    expected = connection.execute(
                        select(func.count())
                        .select_from(OutboundMessage)
                        .where(OutboundMessage.kind != "gamestart")
                    ).scalar_one()
            count = sink.count()
            if adjudicated >= games and count >= expected:
                break
            if count + adjudicated != last_count:
                last_count, last_change = count + adjudicated, time.monotonic()
            if not all(judge.alive() for judge in judges):
                raise RuntimeError(f"a judge serve exited; see {', '.join(map(str, logs))}")
            if time.monotonic() - last_change > stall and time.time() > at + stall:
                print(f"    gave up: {count} of {expected} mails after {stall} s without one")
                break
        judge_cpu = sum(judge.cpu_seconds() for judge in judges) - cpu_before
        sink_cpu = _own_cpu() - sink_before
        postgres_cpu = (tree_cpu_seconds(postgres_pid) - pg_before) if postgres_pid else 0.0
        engine.dispose()
    finally:
        for judge in judges:
            judge.stop()
    stamps: list[float] = []
    shares: list[int] = []
    by_game: Counter[str] = Counter()
    for log in logs:
        mine = 0
        for line in _read(log).splitlines():
            found = PROCESSED.match(line)
            if found:
                local = datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S,%f")
                stamps.append(local.timestamp() - at)  # the log's asctime is local time
                by_game[found.group(2)] += 1
                mine += 1
        shares.append(mine)
    with sink.lock:
        arrivals = list(sink.arrivals)
    return ServeRun(
        first=min(stamps) if stamps else None,
        last=max(stamps) if stamps else None,
        adjudicated=len(by_game),
        last_mail=max(arrivals) - at if arrivals else None,
        mails=len(arrivals),
        expected=expected,
        judge_cpu=judge_cpu,
        postgres_cpu=postgres_cpu,
        sink_cpu=sink_cpu,
        ready=ready if ready is not None else float("nan"),
        shares=shares,
        twice_processed=sum(1 for n in by_game.values() if n > 1),
        twice_sent=sink.twice(),
    )


@dataclass
class DrainRun:
    """The sender alone: every results mail of a finished run queued again at once."""

    mails: int
    expected: int
    span: float | None  # first to last mail received, seconds
    judge_cpu: float  # user+sys of judge serve from the first mail to the last
    sink_cpu: float  # user+sys of this process (the sink's thread, mostly) in that time


def drain_run(
    config: Path, database_url: str, sink: ArrivalSink, stall: float, postgres_pid: int | None
) -> DrainRun:
    """Queue again every results mail of the finished run in ``database_url`` and start
    ``judge serve`` on it: the pace of the sender with all of a burst's mail due at once
    (what the tail after the last adjudication would be if adjudicating cost nothing)."""
    from benchmarks.bench_mail import Subprocess
    from judge.db.session import make_engine

    engine = make_engine(database_url)
    with engine.begin() as connection:
        expected = connection.execute(
            update(OutboundMessage)
            .where(OutboundMessage.kind != "gamestart")
            .values(state="queued", sent_at=None, attempts=0, next_attempt_at=None, claimed_by=None)
        ).rowcount
    engine.dispose()
    sink.reset()
    log_path = config.parent / f"drain-{uuid.uuid4().hex[:6]}.log"
    judge = Subprocess(config, log_path)
    cpu_first = sink_first = 0.0
    seen_first = False
    try:
        last_count, last_change = -1, time.monotonic()
        while True:
            time.sleep(0.05)
            count = sink.count()
            if count and not seen_first:
                seen_first = True
                cpu_first = judge.cpu_seconds()
                sink_first = _own_cpu()
            if count >= expected:
                break
            if count != last_count:
                last_count, last_change = count, time.monotonic()
            if not judge.alive():
                raise RuntimeError(f"judge serve exited; see {log_path}")
            if time.monotonic() - last_change > stall:
                print(f"    gave up: {count} of {expected} mails after {stall} s without one")
                break
        judge_cpu = judge.cpu_seconds() - cpu_first
        sink_cpu = _own_cpu() - sink_first
    finally:
        judge.stop()
    with sink.lock:
        arrivals = list(sink.arrivals)
    return DrainRun(
        mails=len(arrivals),
        expected=expected,
        span=max(arrivals) - min(arrivals) if arrivals else None,
        judge_cpu=judge_cpu,
        sink_cpu=sink_cpu,
    )


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def serve_mode(args: argparse.Namespace) -> int:
    """``--serve``: the real judge over a burst, ``--repeat`` times per maps setting."""
    from support.pgserver import PostgresServer

    from benchmarks.bench_mail import new_postgres_database, scratch_directory

    maps_settings = {"both": (False, True), "on": (True,), "off": (False,)}[args.maps]
    with contextlib.ExitStack() as stack:
        directory = scratch_directory(stack, "bench-deadline-", args.keep)
        postgres: PostgresServer | None = None
        if args.postgres:
            postgres = PostgresServer(fsync=True)
            stack.callback(postgres.stop)
            postgres.start()
        sink = ArrivalSink(args.sink)
        sink.sink.start()
        stack.callback(sink.sink.close)
        database = "PostgreSQL 15" if postgres is not None else "SQLite"
        print(f"judge serve, {args.games} games due at one moment, {database}, {sink.kind} sink")
        print(
            f"{'maps':<5} {'run':>3} {'ready':>6} {'first':>6} {'last':>6} {'mail':>7} "
            f"{'adj->mail':>9} {'mails':>7} {'judge cpu':>9} {'pg cpu':>7} {'sink cpu':>8}"
        )
        for maps in maps_settings:
            tag = "on" if maps else "off"
            template_url = ""
            template_file = directory / f"template-{tag}.db"
            if postgres is not None:
                template_url = new_postgres_database(postgres.url, f"template_{tag}")
            else:
                template_url = f"sqlite:///{template_file}"
            print(f"  making {args.games} games (maps {tag})...", flush=True)
            took = prepare(template_url, directory / "var-setup", args.games,
                           directory / f"games-{tag}", maps)  # fmt: skip
            print(f"  made in {took:.0f} s", flush=True)
            results: list[ServeRun] = []
            runs: list[tuple[Path, str]] = []  # each run's settings file and database
            for number in range(1, args.repeat + 1):
                run_dir = directory / f"run-{tag}-{number}"
                run_dir.mkdir()
                copied = time.perf_counter()
                if postgres is not None:
                    url = new_postgres_database(
                        postgres.url, f"run_{tag}_{number}", template=f"template_{tag}"
                    )
                else:
                    shutil.copyfile(template_file, run_dir / "judge.db")
                    url = f"sqlite:///{run_dir / 'judge.db'}"
                copy_s = time.perf_counter() - copied
                config = write_config(run_dir, sink, url)
                runs.append((config, url))
                pid = postgres.process.pid if postgres is not None and postgres.process else None
                one = serve_run([config], url, run_dir / "var", sink, args.games, args.lead,
                                args.stall, pid)  # fmt: skip
                results.append(one)
                gap = (
                    one.last_mail - one.last
                    if one.last_mail is not None and one.last is not None
                    else None
                )
                print(
                    f"{tag:<5} {number:>3} {one.ready:>6.1f} {_s(one.first):>6} {_s(one.last):>6} "
                    f"{_s(one.last_mail):>7} {_s(gap):>9} {one.mails:>7} {one.judge_cpu:>9.1f} "
                    f"{one.postgres_cpu:>7.1f} {one.sink_cpu:>8.1f}   (copy {copy_s:.1f} s"
                    + (f"; only {one.adjudicated} adjudicated" if one.adjudicated < args.games
                       else "")
                    + (f"; {one.expected} mails expected" if one.mails < one.expected else "")
                    + ")",
                    flush=True,
                )  # fmt: skip
            drains: list[DrainRun] = []
            for number, (config, url) in enumerate(runs if args.drain else [], 1):
                pid = postgres.process.pid if postgres is not None and postgres.process else None
                drain = drain_run(config, url, sink, args.stall, pid)
                drains.append(drain)
                rate = drain.mails / drain.span if drain.span else float("nan")
                print(
                    f"{tag:<5} {number:>3} drain: {drain.mails} mails in {_s(drain.span)} s "
                    f"({rate:.0f} a second), judge cpu {drain.judge_cpu:.1f} s "
                    f"({1000 * drain.judge_cpu / max(drain.mails, 1):.2f} ms a mail), "
                    f"sink cpu {drain.sink_cpu:.1f} s"
                    + (f"; {drain.expected} expected" if drain.mails < drain.expected else ""),
                    flush=True,
                )
            if len(drains) > 1:
                span = statistics.median(d.span or 0.0 for d in drains)
                print(
                    f"{tag:<5} med drain: {span:.2f} s, "
                    f"judge cpu {statistics.median(d.judge_cpu for d in drains):.1f} s, "
                    f"sink cpu {statistics.median(d.sink_cpu for d in drains):.1f} s"
                )
            if len(results) > 1:

                def median(values: list[float | None]) -> str:
                    known = [v for v in values if v is not None]
                    return _s(statistics.median(known)) if known else "-"

                print(
                    f"{tag:<5} {'med':>3} {'':>6} {median([r.first for r in results]):>6} "
                    f"{median([r.last for r in results]):>6} "
                    f"{median([r.last_mail for r in results]):>7} "
                    f"{median([r.last_mail - r.last if r.last_mail and r.last else None for r in results]):>9}"  # noqa: E501
                )
        print(
            "seconds from the deadline: ready = judge serving (negative: before the deadline); "
            "first/last = first/last game adjudicated (log); mail = last results email "
            "received by the sink; adj->mail = last adjudication to last email; "
            "cpu = user+sys seconds from the deadline to the last email"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--maps", choices=("both", "on", "off"), default=None)
    parser.add_argument("--profile", type=Path, help="in process: cProfile the burst into FILE")
    parser.add_argument("--serve", action="store_true", help="run the real judge serve")
    parser.add_argument("--postgres", action="store_true", help="--serve on PostgreSQL")
    parser.add_argument(
        "--sink",
        choices=("light", "aiosmtpd"),
        default="light",
        help="--serve: the relay stand-in (default light: benchmarks/relay_sink.py)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="--serve runs per setting")
    parser.add_argument("--lead", type=float, default=8.0, help="seconds to the deadline")
    parser.add_argument("--stall", type=float, default=60.0, help="give up after")
    parser.add_argument("--keep", action="store_true", help="keep the files")
    parser.add_argument(
        "--drain", action="store_true",
        help="--serve: then send each run's results again, all due at once (the sender alone)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.serve:
        if args.maps is None:
            args.maps = "off"
        return serve_mode(args)
    if args.maps is None:
        args.maps = "both"
    settings = {"both": (False, True), "on": (True,), "off": (False,)}[args.maps]
    print(
        f"{'maps':<5} {'games':>6} {'start s':>8} {'burst s':>8} {'ms/game':>8} "
        f"{'pictures':>9} {'mails':>7}"
    )
    for maps in settings:
        f = run(args.games, maps, args.profile)
        print(
            f"{'on' if maps else 'off':<5} {int(f['due']):>6} {f['start_s']:>8.1f} "
            f"{f['burst_s']:>8.2f} {1000 * f['burst_s'] / max(f['due'], 1):>8.1f} "
            f"{int(f['pictures']):>9} {int(f['mails']):>7}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
