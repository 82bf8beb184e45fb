"""Time ``judge serve`` end to end: order emails in, confirmations out.

Usage::

    python benchmarks/bench_mail.py [--messages 1000] [--mode imap|smtp|both] [--rate R]
                                    [--database sqlite|postgresql]
                                    [--in-process [--no-profile]] [--keep]
                                    [--sqlite default|wal|wal-normal] [--one-connection]

For each configuration (``--mode both``, the default, runs the two one after the other):

1. start an :class:`~smtpsink.SmtpSink` (the relay the judge sends through) and, for
   ``imap``, a private Dovecot (``tests/support/dovecot.py``) whose mailbox ``judge`` the judge
   reads with IDLE and ``after = "flag"``;
2. write a settings file (SQLite in a temporary ``var`` directory, ``[smtp]`` to the sink,
   ``[imap]`` to Dovecot or ``[inbound]`` on a free port) and set up the seven-player game
   ``test01`` of ``tests/support/servicekit.py`` with ``judge game load`` and ``judge game start``
   (France's generated password is read from its game-start mail in the sink);
3. start ``judge serve`` as a subprocess (or, with ``--in-process``, the
   :class:`judge.runtime.serve.Server` in this process under cProfile);
4. deliver ``--messages`` order emails as fast as delivery goes, each on one persistent
   connection: over LMTP into Dovecot (``imap``) or with ``smtplib`` to the judge's
   embedded SMTP server (``smtp``).  The seven powers take turns, every message carries a
   different legal order set for Spring 1901 and a unique Message-ID, and each delivery's
   time is recorded when the server has acknowledged it;
5. wait for every confirmation to reach the sink (matched by In-Reply-To) and report the
   rates and latencies, plus the judge's own timestamps from the database (inbound
   ``received_at`` and ``processed_at``, outbox ``sent_at``).

Every process started here (Dovecot, ``judge serve``, the sink's thread) is stopped and
the temporary directories removed at the end, also after an error or Ctrl-C (SIGTERM is
handled like Ctrl-C).  ``--keep`` leaves the directories (database, logs) for inspection.

``--sqlite`` and ``--one-connection`` are experiments that change how the judge uses
SQLite from outside ``judge/`` (see benchmarks/README.md); ``--rate`` paces the delivery
to measure latency below the judge's capacity.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import logging
import math
import multiprocessing
import os
import platform
import pstats
import random
import re
import shlex
import shutil
import signal
import smtplib
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import formatdate
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# ``judge`` from the checkout, and the test support package (tests/support).
for _path in (str(ROOT / "tests"), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from support.dovecot import Dovecot  # noqa: E402
from support.netutil import free_port, log_tail  # noqa: E402
from support.pgserver import PostgresError, PostgresServer  # noqa: E402
from support.servicekit import GAME_FILE  # noqa: E402
from support.smtpsink import Received, SmtpSink, header  # noqa: E402

from judge.engine import Position, standard_map  # noqa: E402
from judge.engine.notation import format_order  # noqa: E402
from judge.engine.options import movement_options  # noqa: E402

JUDGE_ADDRESS = "judge@example.org"
JUDGE_MAILBOX = "judge"  # the Dovecot user (LMTP: judge@localhost)
GAME = "test01"
#: The passwords of GAME_FILE; France's is generated at game start.
PASSWORDS = {
    "Austria": "pw-aus",
    "England": "pw-eng",
    "Germany": "pw-ger",
    "Italy": "pw-ita",
    "Russia": "pw-rus",
    "Turkey": "pw-tur",
}
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


class BenchError(RuntimeError):
    """The benchmark could not run (a server would not start, replies never came)."""


# -- the sink, with arrival times -------------------------------------------------------


class TimedSink(SmtpSink):
    """An :class:`SmtpSink` that notes when each reply arrived, by its In-Reply-To."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived: dict[str, tuple[float, float]] = {}  # In-Reply-To -> (monotonic, epoch)
        self.changed = threading.Condition()

    def _keep(self, received: Received) -> None:
        stamp = (time.monotonic(), time.time())
        super()._keep(received)
        reply_to = header(received.raw, "In-Reply-To")
        if reply_to is not None:
            with self.changed:
                self.arrived.setdefault(str(reply_to).strip(), stamp)
                self.changed.notify_all()


# -- the orders -------------------------------------------------------------------------


@dataclass(frozen=True)
class Outgoing:
    """One order email to deliver."""

    message_id: str
    power: str
    sender: str
    raw: bytes


def order_sets(per_power: int, seed: int = 1901) -> dict[str, list[list[str]]]:
    """``per_power`` different legal Spring 1901 order sets for each power (short syntax)."""
    game_map = standard_map()
    position = Position.initial(game_map)
    options = movement_options(position)
    rng = random.Random(seed)
    sets: dict[str, list[list[str]]] = {}
    for power in POWERS:
        units = sorted(u.province for u in position.units_of(power))
        choices = [[format_order(o, game_map, short=True) for o in options[p]] for p in units]
        possible = math.prod(len(c) for c in choices)
        if possible < per_power:
            raise BenchError(f"{power} has only {possible} order sets, {per_power} wanted")
        seen: set[tuple[str, ...]] = set()
        out: list[list[str]] = []
        while len(out) < per_power:
            picked = tuple(rng.choice(c) for c in choices)
            if picked not in seen:
                seen.add(picked)
                out.append(list(picked))
        sets[power] = out
    return sets


def order_mail(power: str, sender: str, subject: str, message_id: str, body: str) -> bytes:
    """A player's plain-text mail to the judge, as the benchmarks send it."""
    return (
        f"From: {power} <{sender}>\r\n"
        f"To: {JUDGE_ADDRESS}\r\n"
        f"Subject: {subject}\r\n"
        f"Date: {formatdate(localtime=False)}\r\n"
        f"Message-ID: {message_id}\r\n"
        "MIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "\r\n"
        f"{body}\r\n"
    ).encode()


def build_messages(count: int, passwords: dict[str, str], run: str) -> list[Outgoing]:
    """``count`` order emails, the seven powers in turn, each with its own order set."""
    game_map = standard_map()
    sets = order_sets(-(-count // len(POWERS)))
    messages = []
    for i in range(count):
        power = POWERS[i % len(POWERS)]
        sender = f"{power.lower()}@example.org"
        orders = sets[power][i // len(POWERS)]
        message_id = f"<bench.{run}.{i + 1}@players.example>"
        body = "\r\n".join(
            [f"SIGNON {game_map.power_letter[power]}{GAME} {passwords[power]}", *orders, "SIGNOFF"]
        )
        raw = order_mail(power, sender, f"{power} orders {i + 1}", message_id, body)
        messages.append(Outgoing(message_id, power, sender, raw))
    return messages


# -- setting up a judge ----------------------------------------------------------------


def write_settings(
    directory: Path, sink: SmtpSink, dovecot: Dovecot | None, inbound_port: int, database_url: str
) -> Path:
    """The judge's settings file; the config file sits in ``directory/config``."""
    config = directory / "config" / "judge.toml"
    config.parent.mkdir(parents=True)
    text = (
        "[judge]\n"
        'name = "BENCHJUDGE"\n'
        f'address = "{JUDGE_ADDRESS}"\n'
        f'var_dir = "{directory / "var"}"\n'
        f'database_url = "{database_url}"\n'
        # The defaults (30 replies per sender an hour, 100 to a signed-on sender) are loop
        # guards that would hold back all but the first 30 or 100 confirmations to each
        # power: 1,000 messages from seven powers are some 143 each.
        "replies_per_hour = 1000000\n"
        "signed_replies_per_hour = 1000000\n"
        "\n[smtp]\n"
        f'host = "{sink.host}"\n'
        f"port = {sink.port}\n"
        'security = "none"\n'
    )
    if dovecot is not None:
        settings = dovecot.imap_settings(JUDGE_MAILBOX)
        text += (
            "\n[imap]\n"
            f'host = "{settings.host}"\n'
            f"port = {settings.port}\n"
            'security = "none"\n'
            f'username = "{settings.username}"\n'
            f'password = "{settings.password}"\n'
            'folder = "INBOX"\n'
            'after = "flag"\n'
        )
    else:
        text += f'\n[inbound]\nhost = "127.0.0.1"\nport = {inbound_port}\n'
    config.write_text(text)
    return config


def judge_command(config: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "judge.cli", "--config", str(config), *args]


def run_cli(config: Path, *args: str) -> str:
    command = judge_command(config, *args)
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise BenchError(f"{shlex.join(command)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout.strip()


def set_up_game(directory: Path, config: Path, sink: SmtpSink) -> dict[str, str]:
    """Load and start test01 with the CLI; return every power's password."""
    game_file = directory / f"{GAME}.toml"
    game_file.write_text(GAME_FILE)
    for args in (("game", "load", str(game_file)), ("game", "start", GAME)):
        lines = run_cli(config, *args).splitlines() or [""]
        more = f" (and {len(lines) - 1} more lines)" if len(lines) > 1 else ""
        print(f"  $ judge {shlex.join(args)}: {lines[0].strip()}{more}")
    passwords = dict(PASSWORDS)
    for received in sink.messages_to("france@example.org"):
        found = re.search(r"Your password for this game is: (\S+)", received.text())
        if found:
            passwords["France"] = found.group(1)
    if "France" not in passwords:
        raise BenchError("France's game-start mail with its password did not reach the sink")
    return passwords


# -- running the judge -------------------------------------------------------------------


class Subprocess:
    """``judge serve`` as a child process, its output in ``log``."""

    def __init__(self, config: Path, log: Path) -> None:
        self.command = judge_command(config, "serve")
        self.log = log
        self._handle = log.open("wb")
        self.process = subprocess.Popen(
            self.command,
            cwd=ROOT,
            stdout=self._handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            # Its own session: a Ctrl-C reaches us, and we stop it in order.
            start_new_session=True,
        )

    def alive(self) -> bool:
        return self.process.poll() is None

    def cpu_seconds(self) -> float:
        """User plus system CPU time of the judge and its worker processes so far."""
        return tree_cpu_seconds(self.process.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._handle.close()


class InProcess:
    """The :class:`Server` in this process; with ``profile``, each of its threads (and
    every thread that calls ``store``) runs under its own cProfile profiler."""

    def __init__(
        self,
        config: Path,
        log: Path,
        profile: bool,
        synchronous_normal: bool = False,
        one_connection: bool = False,
    ) -> None:
        from judge.runtime.bootstrap import open_app
        from judge.runtime.serve import Server

        self.command = ["(in process)", *judge_command(config, "serve")[1:]]
        self.log = log
        handler = logging.FileHandler(log)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        self._handler = handler
        self.profiles: list[tuple[str, cProfile.Profile]] = []
        self._lock = threading.Lock()
        self._local = threading.local()
        outer = self

        class ProfiledServer(Server):
            def _thread(self, name: str, target: Callable[[], None]) -> None:
                super()._thread(name, outer._profiled(name, target) if profile else target)

            def store(self, raw: bytes) -> None:
                if not profile or getattr(outer._local, "profiled", False):
                    super().store(raw)
                    return
                # A thread of the embedded SMTP server's executor: profile just this call.
                profiler = outer._store_profiler()
                profiler.enable()
                try:
                    super().store(raw)
                finally:
                    profiler.disable()

        if one_connection:
            # An experiment, not the judge's code: one pooled connection for the whole
            # judge, so its threads queue for it in Python (woken at once when it is
            # free) instead of in SQLite's busy handler, which sleeps 1 to 100 ms a try.
            import functools

            import judge.db.session

            module: Any = judge.db.session
            original = module.create_engine
            module.create_engine = functools.partial(
                original, pool_size=1, max_overflow=0, pool_timeout=300
            )
            try:
                app = open_app(config=config)
            finally:
                module.create_engine = original
        else:
            app = open_app(config=config)
        if synchronous_normal:
            # An experiment, not the judge's code: PRAGMA synchronous=NORMAL on every new
            # connection (in WAL mode a commit then writes the WAL without an fsync).
            from sqlalchemy import event

            engine = app.sessions.kw["bind"]

            @event.listens_for(engine, "connect")
            def _synchronous(dbapi_connection: sqlite3.Connection, _record: object) -> None:
                dbapi_connection.execute("PRAGMA synchronous=NORMAL")

            engine.dispose()  # no connection opened before the listener is kept
        self.server = ProfiledServer(app)
        self._stopped = False
        self.server.start()

    def _profiled(self, name: str, target: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            profiler = cProfile.Profile()
            with self._lock:
                self.profiles.append((name, profiler))
            self._local.profiled = True
            profiler.enable()
            try:
                target()
            finally:
                profiler.disable()

        return run

    def _store_profiler(self) -> cProfile.Profile:
        profiler: cProfile.Profile | None = getattr(self._local, "profiler", None)
        if profiler is None:
            profiler = cProfile.Profile()
            self._local.profiler = profiler
            with self._lock:
                self.profiles.append(("smtp-store", profiler))
        return profiler

    def alive(self) -> bool:
        return not self.server.stopping.is_set()

    def cpu_seconds(self) -> float:
        return 0.0  # counted in this process's own time

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self.server.stop()
        logging.getLogger().removeHandler(self._handler)
        self._handler.close()


def set_wal(database: Path) -> None:
    """Switch the database file to WAL journaling (it stays so for every later connection)."""
    connection = sqlite3.connect(database)
    try:
        mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    finally:
        connection.close()
    if mode != "wal":
        raise BenchError(f"{database}: journal_mode stayed {mode}")
    print("  SQLite experiment: journal_mode=WAL set on the database file")


def wait_ready(judge: Subprocess | InProcess, mode: str, port: int, timeout: float = 60) -> None:
    """Until the judge watches the mailbox with IDLE (imap) or listens on ``port`` (smtp)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not judge.alive():
            raise BenchError(f"judge serve exited:\n{log_tail(judge.log)}")
        if mode == "imap":
            text = judge.log.read_text(errors="replace") if judge.log.exists() else ""
            if "with IDLE" in text:
                return
            if re.search(r"watching \S+ every", text):
                raise BenchError("the judge polls instead of idling: Dovecot offered no IDLE")
        else:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
                return
        time.sleep(0.05)
    raise BenchError(f"judge serve not ready after {timeout} s:\n{log_tail(judge.log)}")


# -- delivering ------------------------------------------------------------------------


@dataclass
class Delivery:
    started: float = 0.0  # monotonic, when the first message was handed over
    ended: float = 0.0  # monotonic, when the last was acknowledged
    at: dict[str, tuple[float, float]] = field(default_factory=dict)  # id -> (monotonic, epoch)
    #: How long the server took to acknowledge each message (the SMTP store's latency as
    #: the sender sees it: the embedded server answers once the message is committed).
    took: dict[str, float] = field(default_factory=dict)


def deliver(messages: list[Outgoing], mode: str, port: int, pace: float = 0.0) -> Delivery:
    """Deliver every message on one connection, noting when each was acknowledged;
    ``pace`` > 0: at most that many messages a second, evenly spaced."""
    result = Delivery()
    client: smtplib.SMTP
    if mode == "imap":
        client = smtplib.LMTP("127.0.0.1", port, timeout=30)
        recipient = f"{JUDGE_MAILBOX}@localhost"
    else:
        client = smtplib.SMTP("127.0.0.1", port, timeout=30)
        recipient = JUDGE_ADDRESS
    try:
        client.ehlo_or_helo_if_needed()
        result.started = time.monotonic()
        for number, message in enumerate(messages):
            if pace > 0:
                delay = result.started + number / pace - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            handed = time.monotonic()
            refused = client.sendmail(message.sender, [recipient], message.raw)
            if refused:
                raise BenchError(f"{message.message_id} refused: {refused}")
            result.at[message.message_id] = (time.monotonic(), time.time())
            result.took[message.message_id] = result.at[message.message_id][0] - handed
        result.ended = time.monotonic()
        client.quit()
    finally:
        client.close()  # after an error or Ctrl-C the conversation is out of step: no QUIT
    return result


def _deliver_child(
    connection: Any, messages: list[Outgoing], mode: str, port: int, pace: float
) -> None:
    try:
        connection.send(deliver(messages, mode, port, pace))
    except BaseException as err:  # reported by the parent
        connection.send(BenchError(f"delivery failed: {type(err).__name__}: {err}"))
    finally:
        connection.close()


def deliver_from_another_process(
    messages: list[Outgoing], mode: str, port: int, pace: float = 0.0
) -> Delivery:
    """:func:`deliver` in a child process, so the delivering client does not take turns
    with the sink on this process's interpreter lock (the sink would answer the judge's
    SMTP commands late while the delivery runs).  CLOCK_MONOTONIC is the same in every
    process on Linux, so the times compare with the sink's."""
    context = multiprocessing.get_context("spawn")
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(
        target=_deliver_child, args=(sending, messages, mode, port, pace), daemon=True
    )
    child.start()
    sending.close()
    try:
        result = receiving.recv()
    except EOFError:
        raise BenchError("the delivery process ended without a result") from None
    finally:
        child.join(30)
    if isinstance(result, BaseException):
        raise result
    assert isinstance(result, Delivery)
    return result


def tree_cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` and all its descendants now alive
    (Linux /proc; 0 elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after ")".
        fields = stat.rsplit(")", 1)[1].split()
        parents[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        total += cpu.get(current, 0.0)
        todo.extend(child for child, parent in parents.items() if parent == current)
    return total


def wait_for_replies(sink: TimedSink, wanted: set[str], stall: float) -> None:
    """Until a reply to every wanted message arrived, or none came for ``stall`` seconds."""
    last, last_change = -1, time.monotonic()
    with sink.changed:
        while True:
            have = sum(1 for key in sink.arrived if key in wanted)
            if have == len(wanted):
                return
            if have != last:
                last, last_change = have, time.monotonic()
            elif time.monotonic() - last_change > stall:
                return
            sink.changed.wait(0.5)


# -- the database's view ---------------------------------------------------------------


def _epoch(value: str | datetime | None) -> float | None:
    """A stored time (UTC: text on SQLite, a timestamp on PostgreSQL) in epoch seconds."""
    if value is None:
        return None
    when = datetime.fromisoformat(value) if isinstance(value, str) else value
    return (when if when.tzinfo is not None else when.replace(tzinfo=UTC)).timestamp()


@dataclass
class DbRow:
    received: float
    processed: float | None
    state: str
    sent: float | None


def read_database(
    url: str, wanted: set[str], game: str | None = GAME
) -> tuple[dict[str, DbRow], int, str]:
    """Per benchmark message: stored, processed, confirmation sent (epoch seconds); the
    number of refused orders; and ``game``'s phase (None: no game, phase "")."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            rows: dict[str, DbRow] = {}
            query = text(
                "SELECT i.message_id, i.received_at, i.processed_at, i.state, MIN(o.sent_at) "
                "FROM inbound i LEFT JOIN outbox o ON o.inbound_id = i.id "
                "AND o.kind = 'confirm' GROUP BY i.id, i.message_id, i.received_at, "
                "i.processed_at, i.state"
            )
            for message_id, received, processed, state, sent in connection.execute(query):
                if message_id in wanted:
                    rows[message_id] = DbRow(
                        _epoch(received) or 0.0, _epoch(processed), state, _epoch(sent)
                    )
            refused = connection.execute(
                text("SELECT COUNT(*) FROM orders WHERE error IS NOT NULL")
            ).scalar_one()
            phase = (
                ""
                if game is None
                else connection.execute(
                    text("SELECT phase FROM games WHERE name = :name"), {"name": game}
                ).scalar_one()
            )
        return rows, int(refused), str(phase)
    finally:
        engine.dispose()


# -- figures -----------------------------------------------------------------------------


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def summary(values: list[float]) -> str:
    if not values:
        return "n/a"
    return (
        f"mean {statistics.fmean(values):7.3f}  median {statistics.median(values):7.3f}  "
        f"p95 {percentile(values, 0.95):7.3f}  max {max(values):7.3f}"
    )


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:8.1f} msg/s  ({count} in {seconds:.3f} s)" if seconds > 0 else "n/a"


@dataclass
class Outcome:
    mode: str
    replies: int
    end_to_end_rate: float
    p95: float


def report(
    mode: str,
    messages: list[Outgoing],
    delivery: Delivery,
    sink: TimedSink,
    database_url: str,
) -> Outcome:
    wanted = {m.message_id for m in messages}
    count = len(messages)
    with sink.changed:
        arrived = {k: v for k, v in sink.arrived.items() if k in wanted}
    latencies = [arrived[k][0] - delivery.at[k][0] for k in arrived]
    rows, refused, phase = read_database(database_url, wanted)
    print(f"\n  results ({mode}):")
    print(f"    replies received by the sink: {len(arrived)} of {count}")
    print(f"    delivery ({'LMTP' if mode == 'imap' else 'SMTP'}, one connection): "
          f"{rate(count, delivery.ended - delivery.started)}")  # fmt: skip
    last_reply = max((v[0] for v in arrived.values()), default=delivery.started)
    end_to_end = len(arrived) / (last_reply - delivery.started) if arrived else 0.0
    print(f"    first delivery -> last confirmation in the sink: "
          f"{rate(len(arrived), last_reply - delivery.started)}")  # fmt: skip
    print(f"    latency delivery -> reply in the sink (s): {summary(latencies)}")
    received = [r.received for r in rows.values()]
    processed = [r.processed for r in rows.values() if r.processed is not None]
    sent = [r.sent for r in rows.values() if r.sent is not None]
    states: dict[str, int] = {}
    for r in rows.values():
        states[r.state] = states.get(r.state, 0) + 1
    print(f"    database: {len(rows)} stored, states {states}, {len(sent)} confirmations sent, "
          f"{refused} order(s) refused, game phase now {phase}")  # fmt: skip
    if received and sent:
        print(f"    judge, first stored -> last confirmation sent: "
              f"{rate(len(sent), max(sent) - min(received))}")  # fmt: skip
        print(f"    judge, storing (received_at span):             "
              f"{rate(len(received), max(received) - min(received))}")  # fmt: skip
        print(f"    judge, processing (processed_at span):         "
              f"{rate(len(processed), max(processed) - min(processed))}")  # fmt: skip
        print(f"    judge, sending (sent_at span):                 "
              f"{rate(len(sent), max(sent) - min(sent))}")  # fmt: skip
        pickup = [rows[k].received - delivery.at[k][1] for k in rows]
        queued = [r.processed - r.received for r in rows.values() if r.processed is not None]
        outbox = [
            r.sent - r.processed
            for r in rows.values()
            if r.sent is not None and r.processed is not None
        ]
        relay = [
            arrived[k][1] - sent_at
            for k, row in rows.items()
            if k in arrived and (sent_at := row.sent) is not None
        ]
        print("    where the latency goes (s, from the database's timestamps):")
        print(f"      delivered -> stored (received_at):   {summary(pickup)}")
        print(f"      stored -> processing (processed_at): {summary(queued)}")
        print(f"      processing -> sent (sent_at):        {summary(outbox)}")
        print(f"      sent -> in the sink:                 {summary(relay)}")
    return Outcome(mode, len(arrived), end_to_end, percentile(latencies, 0.95) if latencies else 0)


# -- profiles ---------------------------------------------------------------------------

#: Functions whose cumulative time says where the judge's time goes.
WATCH = (
    ("serve.py", "store"),
    ("inbound.py", "receive"),
    ("imap.py", "fetch_pending"),
    ("imap.py", "_mark"),
    ("imap.py", "_idle"),
    ("inbound.py", "process_pending"),
    ("inbound.py", "process_one"),
    ("conversation.py", "handle"),
    ("signon.py", "process"),
    ("passwords.py", "verify_password"),
    ("orders.py", "process"),
    ("replies.py", "rate_limited"),
    ("conversation.py", "finish"),
    ("confirmation.py", "confirmation_mail"),
    ("render.py", "render"),
    ("games.py", "current_position"),
    ("sender.py", "deliver_pending"),
    ("outbox.py", "claim_messages"),
    ("smtp_out.py", "send"),
    ("smtp_out.py", "_connect"),
    ("smtplib.py", "noop"),
    ("smtplib.py", "send_message"),
    ("outbox.py", "record_sent"),
    ("session.py", "commit"),
    ("base.py", "_commit_impl"),
    ("base.py", "_begin_impl"),
    ("~", "<method 'commit' of 'sqlite3.Connection' objects>"),
    ("~", "<method 'execute' of 'sqlite3.Cursor' objects>"),
    ("threading.py", "wait"),
)


def profile_report(judge: InProcess, directory: Path, keep_dir: Path | None) -> None:
    by_name: dict[str, pstats.Stats] = {}
    for name, profiler in judge.profiles:
        stats = pstats.Stats(profiler)
        if name in by_name:
            by_name[name].add(stats)
        else:
            by_name[name] = stats
    print("\n  profile (cProfile per thread; cumulative seconds, calls):")
    for name, stats in by_name.items():
        table: dict[tuple[str, int, str], tuple[int, int, float, float, Any]] = stats.stats  # type: ignore[attr-defined]
        total = stats.total_tt  # type: ignore[attr-defined]
        print(f"    thread {name}: {total:.3f} s of CPU+wait in profiled functions")
        for file_part, function in WATCH:
            for (filename, _line, func), (_cc, calls, _tt, cumulative, _) in table.items():
                if func == function and filename.endswith(file_part):
                    print(f"      {file_part}:{function:<45} {cumulative:8.3f} s  {calls:7d} calls")
        if keep_dir is not None:
            out = keep_dir / f"profile-{name}.pstats"
            stats.dump_stats(str(out))
        text = io.StringIO()
        stats.stream = text  # type: ignore[attr-defined]
        stats.sort_stats("tottime").print_stats(12)
        body = text.getvalue()
        start = body.find("ncalls")
        print("      top functions by own time:")
        for line in body[start:].splitlines()[:14]:
            if line.strip():
                print(f"        {line}")


# -- one configuration -------------------------------------------------------------------


def scratch_directory(stack: contextlib.ExitStack, prefix: str, keep: bool) -> Path:
    """A new temporary directory, removed when ``stack`` closes unless ``keep`` (then
    its path is printed)."""
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    if keep:
        print(f"  files kept in {directory}")
    else:
        stack.callback(shutil.rmtree, directory, ignore_errors=True)
    return directory


def new_postgres_database(server_url: str, name: str, template: str | None = None) -> str:
    """Create database ``name`` on the server (a copy of database ``template``, if given:
    ``CREATE DATABASE ... TEMPLATE``); return its URL."""
    from sqlalchemy import create_engine, make_url

    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    copy = f' TEMPLATE "{template}"' if template is not None else ""
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"{copy}')
    finally:
        admin.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


def run_configuration(
    args: argparse.Namespace,
    mode: str,
    stack: contextlib.ExitStack,
    postgres: PostgresServer | None,
) -> Outcome:
    """One configuration; ``postgres``: a running PostgreSQL server (the configuration
    gets a database of its own there), or None for SQLite."""
    what = "IMAP IDLE from Dovecot" if mode == "imap" else "embedded SMTP server"
    print(f"\n== configuration: {mode} ({what})")
    directory = scratch_directory(stack, f"bench-mail-{mode}-", args.keep)
    sink = TimedSink()
    sink.start()
    stack.callback(sink.close)
    dovecot: Dovecot | None = None
    if mode == "imap":
        dovecot = Dovecot()
        stack.callback(dovecot.cleanup)
        dovecot.start()
    inbound_port = free_port()
    if postgres is not None:
        name = f"bench_{mode}_{uuid.uuid4().hex[:8]}"
        database_url = new_postgres_database(postgres.url, name)
    else:
        database_url = f"sqlite:///{directory / 'var' / 'judge.db'}"
    config = write_settings(directory, sink, dovecot, inbound_port, database_url)
    passwords = set_up_game(directory, config, sink)
    messages = build_messages(args.messages, passwords, uuid.uuid4().hex[:8])
    if args.sqlite != "default":
        set_wal(directory / "var" / "judge.db")
    judge: Subprocess | InProcess
    if args.in_process:
        judge = InProcess(
            config,
            directory / "serve.log",
            profile=not args.no_profile,
            synchronous_normal=args.sqlite == "wal-normal",
            one_connection=args.one_connection,
        )
    else:
        judge = Subprocess(config, directory / "serve.log")
    stack.callback(judge.stop)
    print(f"  judge: {shlex.join(judge.command)}")
    wait_ready(judge, mode, inbound_port)
    port = dovecot.lmtp_port if dovecot is not None else inbound_port
    pace = f", {args.rate:g} a second" if args.rate > 0 else ", as fast as delivery goes"
    print(f"  delivering {len(messages)} messages "
          f"({'LMTP to Dovecot' if mode == 'imap' else 'SMTP to the judge'}{pace})...")  # fmt: skip
    cpu_before = judge.cpu_seconds()
    dovecot_pid = dovecot.pid if dovecot is not None else None
    dovecot_before = tree_cpu_seconds(dovecot_pid) if dovecot_pid is not None else 0.0
    postgres_pid = postgres.process.pid if postgres is not None and postgres.process else None
    postgres_before = tree_cpu_seconds(postgres_pid) if postgres_pid is not None else 0.0
    own_before = time.process_time()
    if args.in_process:
        delivery = deliver(messages, mode, port, args.rate)
    else:
        delivery = deliver_from_another_process(messages, mode, port, args.rate)
    wait_for_replies(sink, {m.message_id for m in messages}, args.stall)
    busy = time.monotonic() - delivery.started
    cpu = judge.cpu_seconds() - cpu_before
    dovecot_cpu = (
        tree_cpu_seconds(dovecot_pid) if dovecot_pid is not None else 0.0
    ) - dovecot_before
    own = time.process_time() - own_before
    postgres_cpu = (
        tree_cpu_seconds(postgres_pid) - postgres_before if postgres_pid is not None else 0.0
    )
    judge.stop()
    log_text = judge.log.read_text("utf-8", "replace") if judge.log.exists() else ""
    if re.search(r" (ERROR|CRITICAL) ", log_text):
        print(f"  the judge logged errors; see {judge.log}")
    outcome = report(mode, messages, delivery, sink, database_url)
    if isinstance(judge, Subprocess):
        print(f"    CPU from first delivery to last reply ({busy:.3f} s): judge serve and "
              f"its workers {cpu:.3f} s ({cpu / busy:.0%} of one CPU, "
              f"{cpu / len(messages) * 1000:.2f} ms a message); Dovecot {dovecot_cpu:.3f} s; "
              + (f"PostgreSQL {postgres_cpu:.3f} s; " if postgres_pid is not None else "")
              + f"this process (sink) {own:.3f} s")  # fmt: skip
    else:
        print(f"    CPU from first delivery to last reply ({busy:.3f} s): this process (judge, "
              f"sink, delivery) {own:.3f} s ({own / busy:.0%} of one CPU)")  # fmt: skip
    if isinstance(judge, InProcess) and not args.no_profile:
        profile_report(judge, directory, directory if args.keep else None)
    return outcome


# -- first sign-ons ----------------------------------------------------------------------


def first_signon_messages(count: int, run: str) -> tuple[list[Outgoing], int]:
    """One order email from each of ``count`` distinct players, in games ``g00000``...
    of :data:`benchmarks.many_games.DISTINCT_GAME_FILE` (seven players a game, each with
    an address and a password of its own): every message is its player's first sign-on.
    Returns the messages and the number of games they need."""
    from benchmarks.many_games import player_address, player_password

    games = -(-count // len(POWERS))
    game_map = standard_map()
    sets = order_sets(games)
    messages = []
    for i in range(count):
        game, power = f"g{i // len(POWERS):05d}", POWERS[i % len(POWERS)]
        sender = player_address(game, power)
        message_id = f"<first.{run}.{i + 1}@players.example>"
        orders = sets[power][i // len(POWERS)]
        signon = f"SIGNON {game_map.power_letter[power]}{game} {player_password(game, power)}"
        body = "\r\n".join([signon, *orders, "SIGNOFF"])
        raw = order_mail(power, sender, f"{power} orders in {game}", message_id, body)
        messages.append(Outgoing(message_id, power, sender, raw))
    return messages, games


def set_up_first_signons(config: Path, games: int, directory: Path) -> None:
    """``games`` running games made by :func:`benchmarks.many_games.make_games` with
    :data:`~benchmarks.many_games.DISTINCT_GAME_FILE` (argon2 once per player), started
    now; their game-start mails are marked sent, so that the judge's sender is idle
    while the sign-ons are timed."""
    from sqlalchemy import update

    from benchmarks.many_games import DISTINCT_GAME_FILE, make_games
    from judge.db.models import OutboundMessage, OutboundState
    from judge.runtime.bootstrap import open_app

    app = open_app(config=config)
    started = time.monotonic()
    try:
        make_games(
            app, games, directory / "games", start=datetime.now(UTC), game_file=DISTINCT_GAME_FILE
        )
        with app.sessions() as session, session.begin():
            session.execute(
                update(OutboundMessage).values(state=OutboundState.SENT, sent_at=datetime.now(UTC))
            )
    finally:
        for maker in (app.sessions, app.store_sessions):
            maker.kw["bind"].dispose()
    print(f"  {games} games of 7 players made and started in {time.monotonic() - started:.1f} s "
          "(benchmarks/many_games.py, a password of its own for every player)")  # fmt: skip


def run_first_signons(
    args: argparse.Namespace, stack: contextlib.ExitStack, postgres: PostgresServer | None
) -> Outcome:
    """``--first-signons``: every message is a new player's first sign-on (its password
    verified by argon2 once), delivered by the embedded SMTP server at ``--rate``."""
    count = args.first_signons
    print(f"\n== configuration: first sign-ons, {count} players (embedded SMTP server)")
    directory = scratch_directory(stack, "bench-mail-first-", args.keep)
    sink = TimedSink()
    sink.start()
    stack.callback(sink.close)
    inbound_port = free_port()
    if postgres is not None:
        database_url = new_postgres_database(postgres.url, f"bench_first_{uuid.uuid4().hex[:8]}")
    else:
        database_url = f"sqlite:///{directory / 'var' / 'judge.db'}"
    config = write_settings(directory, sink, None, inbound_port, database_url)
    messages, games = first_signon_messages(count, uuid.uuid4().hex[:8])
    set_up_first_signons(config, games, directory)
    judge = Subprocess(config, directory / "serve.log")
    stack.callback(judge.stop)
    print(f"  judge: {shlex.join(judge.command)}")
    wait_ready(judge, "smtp", inbound_port)
    pace = f"{args.rate:g} a second" if args.rate > 0 else "as fast as delivery goes"
    print(f"  delivering {count} first sign-ons by SMTP to the judge, {pace}...")
    cpu_before = judge.cpu_seconds()
    delivery = deliver_from_another_process(messages, "smtp", inbound_port, args.rate)
    wanted = {m.message_id for m in messages}
    wait_for_replies(sink, wanted, args.stall)
    busy = time.monotonic() - delivery.started
    cpu = judge.cpu_seconds() - cpu_before
    judge.stop()
    log_text = judge.log.read_text("utf-8", "replace") if judge.log.exists() else ""
    if re.search(r" (ERROR|CRITICAL) ", log_text):
        print(f"  the judge logged errors; see {judge.log}")
    rows, refused, _phase = read_database(database_url, wanted, game=None)
    with sink.changed:
        arrived = {k: v for k, v in sink.arrived.items() if k in wanted}
    took = list(delivery.took.values())
    received = [r.received for r in rows.values()]
    processed = [r.processed for r in rows.values() if r.processed is not None]
    states: dict[str, int] = {}
    for row in rows.values():
        states[row.state] = states.get(row.state, 0) + 1
    confirmed = sum(1 for r in rows.values() if r.sent is not None)
    print(f"    delivered:  {rate(count, delivery.ended - delivery.started)}")
    print(f"    SMTP store latency (s, each message's DATA to the server's answer): "
          f"p50 {percentile(took, 0.5):.3f}  p95 {percentile(took, 0.95):.3f}  "
          f"max {max(took):.3f}")  # fmt: skip
    print(f"    database: {len(rows)} stored, states {states}, {confirmed} order "
          f"confirmations sent ({len(arrived)} replies in the sink), {refused} order(s) "
          "refused")  # fmt: skip
    if received and processed:
        print(f"    stored (received_at span):      "
              f"{rate(len(received), max(received) - min(received))}")  # fmt: skip
        print(f"    processed (processed_at span):  "
              f"{rate(len(processed), max(processed) - min(processed))}")  # fmt: skip
        first = min(at[1] for at in delivery.at.values())
        span = max(processed) - first
        print(f"    first delivery -> last processed: {rate(len(processed), span)}")
        queued = [r.processed - r.received for r in rows.values() if r.processed is not None]
        print(f"    stored -> processed (s): {summary(queued)}")
    print(f"    CPU from first delivery to last reply ({busy:.3f} s): judge serve and its "
          f"workers {cpu:.3f} s ({cpu / count * 1000:.2f} ms a message)")  # fmt: skip
    latencies = [arrived[k][0] - delivery.at[k][0] for k in arrived if k in delivery.at]
    end = max((a[0] for a in arrived.values()), default=delivery.started)
    return Outcome(
        "first",
        len(arrived),
        len(arrived) / (end - delivery.started) if end > delivery.started else 0.0,
        percentile(latencies, 0.95) if latencies else 0.0,
    )


# -- main ------------------------------------------------------------------------------


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1000, help="order emails (1000)")
    parser.add_argument("--mode", choices=["imap", "smtp", "both"], default="both")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run judge.runtime.serve.Server in this process, each thread under cProfile",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="deliver at most this many messages a second (default: as fast as delivery goes)",
    )
    parser.add_argument("--no-profile", action="store_true", help="with --in-process: no cProfile")
    parser.add_argument(
        "--stall", type=float, default=60.0, help="give up after this long without a reply (60 s)"
    )
    parser.add_argument(
        "--sqlite",
        choices=["default", "wal", "wal-normal"],
        default="default",
        help="experiment: WAL journal on the database file; wal-normal also "
        "synchronous=NORMAL on every connection (needs --in-process)",
    )
    parser.add_argument(
        "--one-connection",
        action="store_true",
        help="experiment (needs --in-process): the judge's threads share one database "
        "connection, queueing in Python instead of in SQLite's busy handler",
    )
    parser.add_argument(
        "--database",
        choices=["sqlite", "postgresql"],
        default="sqlite",
        help="the judge's database: a SQLite file (default), or a private PostgreSQL server "
        "started for the run (tests/support/pgserver.py, fsync on)",
    )
    parser.add_argument(
        "--first-signons",
        type=int,
        default=0,
        metavar="M",
        help="instead: M distinct new players (in M/7 games of benchmarks/many_games.py) "
        "each send their first orders by the embedded SMTP server at --rate",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary directories")
    args = parser.parse_args(argv)
    if args.messages < 1:
        parser.error("--messages must be at least 1")
    if args.sqlite == "wal-normal" and not args.in_process:
        parser.error("--sqlite wal-normal needs --in-process")
    if args.one_connection and not args.in_process:
        parser.error("--one-connection needs --in-process")
    if args.database == "postgresql" and (args.sqlite != "default" or args.one_connection):
        parser.error("--sqlite and --one-connection are SQLite experiments")

    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(f"machine: {os.cpu_count()} CPUs ({platform.processor() or platform.machine()}), "
          f"Python {platform.python_version()} ({platform.python_implementation()}), "
          f"{platform.system()} {platform.release()}, SQLite {sqlite3.sqlite_version}")  # fmt: skip
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          "(other work on the machine skews every figure below)")  # fmt: skip
    modes = ["imap", "smtp"] if args.mode == "both" else [args.mode]
    previous = signal.signal(signal.SIGTERM, _interrupt)
    outcomes = []
    try:
        with contextlib.ExitStack() as server_stack:
            postgres: PostgresServer | None = None
            if args.database == "postgresql":
                postgres = PostgresServer(fsync=True)
                server_stack.callback(postgres.stop)
                try:
                    postgres.start()
                except PostgresError as err:
                    raise BenchError(str(err)) from None
                print(f"database: a private PostgreSQL server at {postgres.url}")
            if args.first_signons:
                with contextlib.ExitStack() as stack:
                    outcomes.append(run_first_signons(args, stack, postgres))
                return 0
            for mode in modes:
                with contextlib.ExitStack() as stack:
                    outcomes.append(run_configuration(args, mode, stack, postgres))
    except KeyboardInterrupt:
        print("\ninterrupted; everything started here has been stopped", file=sys.stderr)
        return 130
    except BenchError as err:
        print(f"\nbench_mail: {err}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("targets: >= 100 msg/s end to end (a burst); p95 latency < 2 s with IMAP IDLE at")
    print("         100 msg/s (--rate 100: a burst faster than the judge only measures its queue)")
    for outcome in outcomes:
        complete = outcome.replies == args.messages
        if args.rate <= 0:
            rate_ok = outcome.end_to_end_rate >= 100 and complete
            print(f"  {outcome.mode:5}: {outcome.end_to_end_rate:7.1f} msg/s end to end, "
                  f"{outcome.replies} replies: throughput {'met' if rate_ok else 'NOT met'} "
                  f"(p95 {outcome.p95:.3f} s in the burst)")  # fmt: skip
        else:
            late_ok = outcome.p95 < 2 and complete
            paced = "" if args.rate >= 100 else f" (delivered at {args.rate:g} a second, not 100)"
            print(f"  {outcome.mode:5}: p95 {outcome.p95:.3f} s at {args.rate:g} msg/s, "
                  f"{outcome.replies} replies: latency {'met' if late_ok else 'NOT met'}"
                  f"{paced}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
