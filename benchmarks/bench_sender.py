"""The sender alone, on PostgreSQL: CPU of the judge's sender and of PostgreSQL a mail.

```sh
python benchmarks/bench_sender.py [--games 300] [--profile FILE]
```

Makes ``--games`` running games on a private PostgreSQL server (maps off, as
``bench_look.py``), processes each one's first phase (which queues its results mail to
each of the seven powers), and then delivers the whole outbox in this process, as ``judge
serve``'s sender does (:func:`judge.runtime.sender.deliver_due` with its journal, over
SMTP to ``benchmarks/relay_sink.py``'s light sink, pipelined), run after run until none
is left. Printed: the sender thread's CPU (``time.thread_time``: the sink's thread is not
counted), PostgreSQL's CPU (its server processes, from ``/proc``) and the wall time, each
a mail. ``--profile FILE``: the delivery's cProfile statistics, timed on the thread's
CPU, written to FILE (the profiler about doubles the CPU figure).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ``judge`` and ``benchmarks`` from this checkout (also when run as a script), and the
# test support package (tests/support) for the PostgreSQL server.
for _path in (str(ROOT / "tests"), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from sqlalchemy import func, select  # noqa: E402

from benchmarks.bench_look import due_games  # noqa: E402
from benchmarks.bench_mail import tree_cpu_seconds  # noqa: E402
from benchmarks.relay_sink import LightSink  # noqa: E402
from judge.config import SmtpSettings  # noqa: E402
from judge.db.models import OutboundMessage  # noqa: E402
from judge.mail.smtp_out import SmtpTransport  # noqa: E402
from judge.runtime.looks import look  # noqa: E402
from judge.runtime.sender import SentJournal, deliver_due, sender_token  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--profile", type=Path, help="write the delivery's cProfile stats here")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        sink = LightSink()
        sink.start()
        stack.callback(sink.close)
        smtp = SmtpSettings(host=sink.host, port=sink.port, security="none")
        app, ids, server = due_games(stack, args.games, "sender", smtp)
        now = datetime.now(UTC)
        print("processing their first phases (results queued)...", flush=True)
        for game_id in ids:
            look(app, "bench", game_id, now)
        with app.sessions() as session:
            queued = (
                session.scalar(
                    select(func.count())
                    .select_from(OutboundMessage)
                    .where(OutboundMessage.state == "queued")
                )
                or 0
            )
        transport = SmtpTransport(smtp, local_hostname="judge.example.org")
        journal = SentJournal(app.judge.settings.var_dir / "sent.journal")
        stack.callback(journal.close)
        owner = sender_token()
        profiler = cProfile.Profile(time.thread_time) if args.profile else None
        cpu, pg, wall = time.thread_time(), tree_cpu_seconds(server), time.perf_counter()
        if profiler is not None:
            profiler.enable()
        sent = 0
        while True:
            run = deliver_due(
                app.sessions, app.judge, transport, lambda: datetime.now(UTC),
                journal=journal, owner=owner, free_orphans=False,
            )  # fmt: skip
            sent += run.sent
            if not run.more:
                break
        if profiler is not None:
            profiler.disable()
        cpu = time.thread_time() - cpu
        pg = tree_cpu_seconds(server) - pg
        wall = time.perf_counter() - wall
        transport.close()
        received = len(sink.arrivals)
        print(
            f"{sent} of {queued} queued mails sent ({received} received): sender CPU "
            f"{1000 * cpu / max(sent, 1):.3f} ms a mail, PostgreSQL CPU "
            f"{1000 * pg / max(sent, 1):.3f} ms, wall {1000 * wall / max(sent, 1):.3f} ms"
            + (" (profiled)" if profiler is not None else "")
        )
        if profiler is not None and args.profile is not None:
            profiler.dump_stats(args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
