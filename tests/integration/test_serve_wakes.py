"""``judge serve`` as deployed (the inbox in a worker process): the last order, taken by
the inbox worker, marks the game; the deadline loop, woken by the batch, works out the end
of the early delay and processes the phase then, although its own tick is far longer."""

from __future__ import annotations

import signal
import smtplib
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import func, select
from support import ROOT
from support.netutil import free_port
from support.servicekit import GAME_FILE, make_app

from judge.db.models import Game, OrderRecord, PhaseRecord
from judge.services.game_files import load_game
from judge.services.games import start_game

ORDERS = {
    "austria@example.org": ("pw-aus", "A", "A Vie-Gal\r\nA Bud-Ser\r\nF Tri-Alb"),
    "england@example.org": ("pw-eng", "E", "F Lon-NTH\r\nF Edi-NWG\r\nA Lvp-Yor"),
    "france@example.org": ("paris-123", "F", "A Par-Bur\r\nA Mar-Spa\r\nF Bre-MAO"),
    "germany@example.org": ("pw-ger", "G", "A Ber-Kie\r\nA Mun-Ruh\r\nF Kie-Den"),
    "italy@example.org": ("pw-ita", "I", "A Ven-Pie\r\nA Rom-Ven\r\nF Nap-ION"),
    "russia@example.org": ("pw-rus", "R", "A Mos-Ukr\r\nA War-Gal\r\nF Sev-BLA\r\nF Stp-BOT"),
    "turkey@example.org": ("pw-tur", "T", "A Con-Bul\r\nA Smy-Con\r\nF Ank-BLA"),
}


def test_early_completion_by_the_inbox_worker_is_processed_when_the_delay_ends(
    tmp_path: Path,
) -> None:
    port = free_port()
    config = tmp_path / "config" / "judge.toml"
    config.parent.mkdir()
    config.write_text(
        f'[judge]\naddress = "judge@example.org"\nvar_dir = "{tmp_path / "var"}"\n'
        # A tick far longer than the test: only the wake-ups can process the phase.
        f"tick_seconds = 120\n[inbound]\nport = {port}\n"
    )
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    # Three seconds of early delay (0.05 minutes).
    path.write_text(GAME_FILE.replace('at = "20:00" }', 'at = "20:00", early = 0.05 }'))
    now = datetime.now(UTC)
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, now)
        start_game(session, app.judge, "test01", now)
    process = subprocess.Popen(
        [sys.executable, "-m", "judge.cli", "--config", str(config), "serve"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("judge serve: receiving mail")
        for n, (sender, (password, letter, lines)) in enumerate(ORDERS.items()):
            message = (
                f"From: {sender}\r\nTo: judge@example.org\r\nSubject: orders\r\n"
                f"Message-ID: <wake{n}@players.example>\r\n\r\n"
                f"SIGNON {letter}test01 {password}\r\n{lines}\r\n"
            )
            with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
                client.sendmail(sender, ["judge@example.org"], message.encode())
        limit = time.monotonic() + 30
        while time.monotonic() < limit:
            with app.sessions() as session:
                if session.scalars(select(Game.phase)).one() != "S1901M":
                    break
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        assert process.stderr is not None
        log = process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
    assert "test01 S1901M processed early (every order in); now F1901M" in log
    with app.sessions() as session:
        last = session.scalar(select(func.max(OrderRecord.created_at)))
        record = session.scalars(select(PhaseRecord).where(PhaseRecord.seq == 1)).one()
    assert last is not None and record.processed_at is not None
    early = last + timedelta(seconds=3)
    # Taken up at the end of the early delay (the clock of the pass that processed it).
    assert timedelta(0) <= record.processed_at - early < timedelta(seconds=1)
