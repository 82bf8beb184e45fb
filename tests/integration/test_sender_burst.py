"""After a burst the sender does not wait for its next tick between runs: a delivery
run says when it stopped at its limit (more may be due), and the loop runs again at once."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import event, func, select, update
from support.servicekit import at, queue_results, started_game

from judge.db.models import OutboundMessage
from judge.runtime.bootstrap import App
from judge.runtime.sender import CLAIM_BATCH, Delivered, deliver_due, deliver_pending
from judge.runtime.serve import _send_pass, run_loop
from judge.services.outbox import PURGED_BODY
from judge.services.presence import HEARTBEAT_SECONDS


def test_a_run_says_whether_it_stopped_at_its_limit(tmp_path: Path) -> None:
    app, _table = started_game(tmp_path)
    now = at("2026-11-23 12:01")

    def run(limit: int) -> Delivered:
        return deliver_due(app.sessions, app.judge, app.transport, lambda: now, limit)

    # The game start queued 8 mails: one to each player and one to the game master.
    assert run(3) == Delivered(3, True)
    assert run(3) == Delivered(3, True)
    assert run(3) == Delivered(2, False)
    assert run(3) == Delivered(0, False)
    with app.sessions() as session:
        assert set(session.scalars(select(OutboundMessage.state))) == {"sent"}


def test_a_run_that_took_exactly_its_limit_says_more_and_the_next_finds_none(
    tmp_path: Path,
) -> None:
    app, _table = started_game(tmp_path)
    now = at("2026-11-23 12:01")
    assert deliver_due(app.sessions, app.judge, app.transport, lambda: now, 8) == (8, True)
    assert deliver_due(app.sessions, app.judge, app.transport, lambda: now, 8) == (0, False)
    # deliver_pending still answers how many went.
    assert deliver_pending(app.sessions, app.judge, app.transport, lambda: now, 8) == 0


def test_a_run_stopped_by_should_stop_says_no_more(tmp_path: Path) -> None:
    app, _table = started_game(tmp_path)
    now = at("2026-11-23 12:01")
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 2

    outcome = deliver_due(app.sessions, app.judge, app.transport, lambda: now, 3, should_stop=stop)
    assert outcome == Delivered(2, False)
    with app.sessions() as session:
        states = sorted(session.scalars(select(OutboundMessage.state)))
    assert states == ["queued"] * 6 + ["sent"] * 2


class CountingEvent(threading.Event):
    """A real Event that counts how often the loop waited on it."""

    def __init__(self) -> None:
        super().__init__()
        self.waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        return super().wait(0)


def test_the_loop_runs_again_at_once_while_the_work_has_more() -> None:
    wake = CountingEvent()
    answers = [True, True, None, True, False]
    done: list[int] = []

    def work() -> bool | None:
        done.append(wake.waits)
        return answers[len(done) - 1]

    run_loop("outbox", work, wake, lambda: len(done) == len(answers), tick=60)
    # Each call, with how many waits came before it: none after a True.
    assert done == [0, 0, 0, 1, 1]
    assert wake.waits == 2


def test_a_send_pass_that_found_a_backlog_runs_again_at_once(tmp_path: Path) -> None:
    """A pass that sent a claim batch's worth or more found a backlog (in a burst the
    deadline loop queues results faster than they go): it asks to run again without
    waiting for a wake-up and the gather's pause.  A smaller pass, or one that finds
    nothing, lets the loop wait, so that a trickle is sent in runs of several games."""
    app, _table = started_game(tmp_path)  # its game start queued 8 mails
    now = at("2026-11-23 12:01")
    assert _send_pass(app, app.transport, lambda: now, lambda: False, None) is False
    queue_results(app, CLAIM_BATCH, now)
    assert _send_pass(app, app.transport, lambda: now, lambda: False, None) is True
    with app.sessions() as session:
        assert set(session.scalars(select(OutboundMessage.state))) == {"sent"}
        assert session.scalar(select(func.count()).select_from(OutboundMessage)) == 108
    assert _send_pass(app, app.transport, lambda: now, lambda: False, None) is False


def _outbox_looks(app: App, run: Callable[[], object]) -> list[str]:
    """The sender's looks ``run`` makes: for mail holding a password that was sent
    ("secrets"), and for mail held by senders ("holders")."""
    seen: list[str] = []
    engine = app.sessions.kw["bind"]

    def listen(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        words = statement.split()
        if (
            words[:4] == ["SELECT", "outbox.id", "FROM", "outbox"]
            and "outbox.secret IS" in statement
        ):
            seen.append("secrets")
        elif statement.startswith("SELECT DISTINCT outbox.claimed_by"):
            seen.append("holders")

    event.listen(engine, "before_cursor_execute", listen)
    try:
        run()
    finally:
        event.remove(engine, "before_cursor_execute", listen)
    return seen


def test_the_password_purge_looks_after_runs_that_tried_one_or_found_nothing(
    tmp_path: Path,
) -> None:
    """A burst's runs of results do not each look for passwords to purge: a run looks
    when it tried a mail that held one (a game start's), and when it finds nothing to
    send, which purges what a run before a crash sent and could not purge."""
    app, _table = started_game(tmp_path)  # its game start queued 8 mails, with passwords
    now = at("2026-11-23 12:01")

    def run() -> Delivered:
        return deliver_due(app.sessions, app.judge, app.transport, lambda: now)

    assert _outbox_looks(app, run) == ["holders", "secrets"]
    with app.sessions() as session:
        assert not any(session.scalars(select(OutboundMessage.secret)))
    queue_results(app, 30, now)
    assert _outbox_looks(app, run) == ["holders"]
    # A crash between the sending and the purge leaves a sent mail with its password.
    with app.sessions() as session, session.begin():
        session.execute(update(OutboundMessage).where(OutboundMessage.id == 1).values(secret=True))
    assert _outbox_looks(app, run) == ["holders", "secrets"]
    with app.sessions() as session:
        first = session.get(OutboundMessage, 1)
        assert first is not None
        assert (first.secret, first.body) == (False, PURGED_BODY)


def test_a_send_pass_looks_for_gone_senders_at_most_once_a_heartbeat(tmp_path: Path) -> None:
    """The look for mail held by senders that are gone is a read of its own: the runs of
    a burst, which follow each other at once, make it once a heartbeat."""
    app, _table = started_game(tmp_path)
    now = at("2026-11-23 12:01")
    looked = [-math.inf]

    def send() -> bool:
        return _send_pass(app, app.transport, lambda: now, lambda: False, None, looked=looked)

    assert _outbox_looks(app, send) == ["holders", "secrets"]
    assert _outbox_looks(app, send) == ["secrets"]  # nothing to send: the purge's look
    looked[0] -= HEARTBEAT_SECONDS
    assert _outbox_looks(app, send) == ["holders", "secrets"]
    # Without a memory (a caller of its own), every run looks.
    assert _outbox_looks(
        app, lambda: _send_pass(app, app.transport, lambda: now, lambda: False, None)
    ) == ["holders", "secrets"]


def test_a_send_pass_while_the_heartbeat_is_late_does_not_count_as_the_look(
    tmp_path: Path,
) -> None:
    """A run while this judge's heartbeat is late claims nothing and frees nothing: the
    look for gone senders' mail it skipped is made at the next run that may claim, not a
    heartbeat later."""
    app, _table = started_game(tmp_path)
    now = at("2026-11-23 12:01")
    looked = [-math.inf]
    late = True

    def send() -> bool:
        return _send_pass(
            app, app.transport, lambda: now, lambda: False, None,
            may_claim=lambda: not late, looked=looked,
        )  # fmt: skip

    assert _outbox_looks(app, send) == []
    assert looked == [-math.inf]
    late = False
    assert _outbox_looks(app, send) == ["holders", "secrets"]
    assert looked[0] > -math.inf
