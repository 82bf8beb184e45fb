"""A sender killed in the middle of a send gives its claimed mail back at once (the claim
dies with its process) instead of holding it for ``claim_time``; a live sender's claims are
respected."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from sqlalchemy import select
from support import ROOT, TESTS
from support.servicekit import at, started_game

from judge.db.models import OutboundMessage
from judge.runtime.sender import deliver_pending, sender_gone, sender_token

#: A sender whose mail server never answers: it claims the queued mail and hangs.
SENDER = """
import sys, time
sys.path.insert(0, sys.argv[3])
from pathlib import Path
from support.servicekit import at, make_app
from judge.runtime.sender import deliver_pending

class Hang:
    def send(self, mail):
        print("sending", flush=True)
        time.sleep(120)

app = make_app(Path(sys.argv[1]), sys.argv[2])
deliver_pending(app.sessions, app.judge, Hang(), lambda: at("2026-11-23 12:01"))
"""


def test_the_claims_of_a_killed_sender_are_given_back_at_once(tmp_path: Path) -> None:
    app, _table = started_game(tmp_path)
    with app.sessions() as session:
        queued = len(session.scalars(select(OutboundMessage.id)).all())
    assert queued == 8  # the game start, one to each player and one to the game master
    sender = subprocess.Popen(
        [sys.executable, "-c", SENDER, str(tmp_path), app.judge.settings.url, str(TESTS)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert sender.stdout is not None
        assert sender.stdout.readline() == "sending\n"
        token = sender_token(sender.pid)
        assert not sender_gone(token)
        with app.sessions() as session:
            holders = set(session.scalars(select(OutboundMessage.claimed_by)))
        assert holders == {token}
        # Held by a live sender: nobody else takes them.
        now = at("2026-11-23 12:02")
        assert deliver_pending(app.sessions, app.judge, app.transport, lambda: now) == 0
        sender.send_signal(signal.SIGKILL)
        sender.wait(timeout=10)
    finally:
        if sender.poll() is None:
            sender.kill()
    assert sender_gone(token)
    # A minute later, not ten: the claims died with their process.
    assert deliver_pending(app.sessions, app.judge, app.transport, lambda: now) == queued
    with app.sessions() as session:
        rows = session.scalars(select(OutboundMessage)).all()
    assert {(r.state, r.claimed_by) for r in rows} == {("sent", None)}
    # The attempt the killed sender counted still counts.
    assert [r.attempts for r in rows] == [2] * queued


def test_a_sender_on_another_host_is_never_known_gone() -> None:
    assert not sender_gone("elsewhere.example:1:1")
    assert not sender_gone("not a token")
    assert not sender_gone(sender_token())
