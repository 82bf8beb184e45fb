"""Storing never waits long on processing: a batch commits after a small time budget, so
that new mail is stored (and an SMTP client answered) within a fraction of a second while a
slow backlog is processed in another process."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import func, select
from support import ROOT, TESTS
from support.servicekit import at, started_game

from judge.db.models import InboundMessage
from judge.services.intake import receive_many

WORKER = """
import sys
sys.path.insert(0, sys.argv[3])
from pathlib import Path
from support.servicekit import at, make_app
from judge.services.inbound import process_pending

app = make_app(Path(sys.argv[1]), sys.argv[2])
print(process_pending(app.sessions, app.judge, lambda: at("2026-11-23 13:05")))
"""

#: Messages of the backlog: each signs on again and again (a password hash each time)
#: and orders, some tens of milliseconds of work.
BACKLOG = 100


def test_mail_is_stored_at_once_while_a_slow_backlog_is_processed(tmp_path: Path) -> None:
    app, _table = started_game(tmp_path)
    raws = [
        (
            f"From: england@example.org\r\nSubject: o\r\nMessage-ID: <b{n}@x>\r\n\r\n"
            + "SIGNON Etest01 pw-eng\r\nF Lon-NTH\r\nA Lvp-Yor\r\n" * 50
        ).encode()
        for n in range(BACKLOG)
    ]
    with app.store_sessions() as session, session.begin():
        receive_many(session, raws, at("2026-11-23 13:00"))
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(tmp_path), app.judge.settings.url, str(TESTS)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    waits: list[float] = []
    started = time.monotonic()
    try:
        while worker.poll() is None and time.monotonic() - started < 120:
            raw = (
                f"From: france@example.org\r\nSubject: o\r\nMessage-ID: <n{len(waits)}@x>"
                "\r\n\r\nHELP\r\n"
            ).encode()
            before = time.monotonic()
            with app.store_sessions() as session, session.begin():
                receive_many(session, [raw], at("2026-11-23 13:01"))
            waits.append(time.monotonic() - before)
            time.sleep(0.05)
        out, err = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 0, err[-3000:]
    total = time.monotonic() - started
    print(
        f"\nbacklog of {BACKLOG} processed in {total:.1f} s; {len(waits)} messages stored "
        f"meanwhile: longest wait {max(waits):.3f} s, mean {sum(waits) / len(waits):.3f} s"
    )
    assert int(out.split()[-1]) >= BACKLOG
    with app.sessions() as session:
        done = session.scalar(select(func.count()).where(InboundMessage.state == "done"))
    assert done is not None and done >= BACKLOG
    # The budget is 0.5 s a transaction, plus the message under way and the commit.
    assert max(waits) < 1.2
