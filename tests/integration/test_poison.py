"""A message that kills, stalls or exhausts its worker loses its place: its attempt is
counted before the work, it is tried alone, parked after a few attempts and its sender told
once, and the mail stored after it is answered.  Also what is stored of a message: one
capped header for storing and processing, and only a prefix of an oversized message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select
from support import ROOT, TESTS
from support.servicekit import Table, at, started_game

from judge.db.models import InboundMessage
from judge.mail.decode import MAX_HEADER_BYTES
from judge.runtime.bootstrap import App
from judge.services.inbound import MAX_ATTEMPTS, process_one, process_pending
from judge.services.intake import STORED_PREFIX_BYTES, receive, receive_many

#: A worker: process the stored mail once, with ``handle`` poisoned for messages that
#: carry an ``X-Poison`` header (the kill is the real thing: the process ends at once, in
#: the middle of its transaction, as under the kernel's OOM killer or a segfault).
WORKER = """
import os, sys
sys.path.insert(0, sys.argv[3])
from pathlib import Path
from support.servicekit import at, make_app
import judge.services.inbound as inbound
from judge.runtime.serve import limit_memory

app = make_app(Path(sys.argv[1]), sys.argv[2])
if sys.argv[4] != "0":
    assert limit_memory(int(sys.argv[4]))
real = inbound.handle

def poisoned(session, judge, row, *rest):
    if b"X-Poison: kill" in row.raw:
        os._exit(70)
    if b"X-Poison: memory" in row.raw:
        hoard = []
        while True:  # a runaway message: ends in MemoryError under the limit
            hoard.append(bytes(64 << 20))  # calloc: address space, not RAM
    return real(session, judge, row, *rest)

inbound.handle = poisoned
print(inbound.process_pending(app.sessions, app.judge, lambda: at("2026-11-23 13:05")))
"""


def run_worker(tmp_path: Path, app: App, memory_mb: int = 0) -> int:
    """One pass of a real worker process over the stored mail; its exit code."""
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(tmp_path), app.judge.settings.url, str(TESTS),
         str(memory_mb)],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode in (0, 70), done.stderr[-3000:]
    return done.returncode


def store(app: App, sender: str, body: str, message_id: str, extra: str = "") -> int:
    raw = (
        f"From: {sender}\r\nTo: judge@example.org\r\nSubject: orders {message_id}\r\n"
        f"Message-ID: <{message_id}>\r\n{extra}\r\n{body}"
    ).encode()
    with app.store_sessions() as session, session.begin():
        row, new = receive(session, raw, at("2026-11-23 13:00"))
        assert new
        return row.id


def rows(app: App) -> dict[str, InboundMessage]:
    with app.sessions() as session:
        return {r.message_id: r for r in session.scalars(select(InboundMessage))}


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    return started_game(tmp_path)


def test_a_message_that_kills_its_worker_is_parked_and_the_rest_answered(
    tmp_path: Path, game: tuple[App, Table]
) -> None:
    app, table = game
    store(app, "mallory@example.net", "HELP\r\n", "poison@x", "X-Poison: kill\r\n")
    store(app, "england@example.org", "SIGNON Etest01 pw-eng\r\nF Lon-NTH\r\n", "e1@x")
    store(app, "someone@example.net", "HELP\r\n", "h1@x")
    # 1: the batch dies (every attempt counted); 2: the poison alone dies; 3: it lost its
    # place: the others first, then it dies a third time; 4: parked.
    exits = [run_worker(tmp_path, app) for _ in range(MAX_ATTEMPTS + 1)]
    assert exits == [70, 70, 70, 0]
    stored = rows(app)
    poison = stored["<poison@x>"]
    assert (poison.state, poison.attempts) == ("parked", 3)
    assert poison.reason == (
        "parked after 3 attempts that did not finish (the worker died, was stopped as "
        "stalled, or failed)"
    )
    assert stored["<e1@x>"].state == stored["<h1@x>"].state == "done"
    mail = table.new_mail()
    assert [(m.to_addr, m.kind) for m in mail] == [
        ("england@example.org", "confirm"),
        ("someone@example.net", "reply"),
        ("mallory@example.net", "refusal"),
    ]
    assert "England: Fleet London -> North Sea." in mail[0].body
    assert mail[2].subject == "Re: orders poison@x"
    assert mail[2].body == (
        "This judge could not process your message of 2026-11-23 13:00 UTC: it was tried\n"
        "3 times and could not be finished. Nothing in it was carried out.\n\n"
        "The message is kept, and the keeper of this judge (or your game master) can look\n"
        "at it. Please send your commands again in a short plain-text message.\n\n"
        "TESTJUDGE\n"
    )
    # Parked for good: answered once, never tried again.
    assert process_pending(app.sessions, app.judge, lambda: at("2026-11-23 14:00")) == 0
    assert table.new_mail() == []


def test_a_runaway_message_meets_the_memory_limit_and_is_parked(
    tmp_path: Path, game: tuple[App, Table]
) -> None:
    app, table = game
    store(app, "mallory@example.net", "HELP\r\n", "hog@x", "X-Poison: memory\r\n")
    store(app, "someone@example.net", "HELP\r\n", "h1@x")
    # The worker lives: MemoryError is an error like any other, the batch-mate goes through,
    # and the message counts a failed attempt (parked after MAX_ATTEMPTS, as any other).
    assert run_worker(tmp_path, app, memory_mb=1024) == 0
    hog = rows(app)["<hog@x>"]
    assert (hog.state, hog.attempts, hog.reason) == ("failed", 1, "MemoryError: ")
    assert [m.to_addr for m in table.new_mail()] == ["someone@example.net"]


def test_a_parked_message_s_answer_quotes_a_bounded_subject_and_spares_robots(
    tmp_path: Path, game: tuple[App, Table]
) -> None:
    app, table = game
    long_subject = "x" * 5000
    raw = (
        f"From: mallory@example.net\r\nSubject: {long_subject}\r\nMessage-ID: <p@x>\r\n\r\nHELP\r\n"
    ).encode()
    bounce = (
        b"From: MAILER-DAEMON@example.org\r\nReturn-Path: <>\r\nSubject: Undelivered\r\n"
        b"Message-ID: <b@x>\r\n\r\nSorry\r\n"
    )
    with app.store_sessions() as session, session.begin():
        receive(session, raw, at("2026-11-23 13:00"))
        receive(session, bounce, at("2026-11-23 13:00"))
        for row in session.scalars(select(InboundMessage)):
            row.attempts = MAX_ATTEMPTS  # died or failed three times already
            row.state, row.reason = "failed", "MemoryError: "
    assert process_pending(app.sessions, app.judge, lambda: at("2026-11-23 13:05")) == 2
    assert {r.state for r in rows(app).values()} == {"parked"}
    assert rows(app)["<p@x>"].reason == (
        "parked after 3 attempts that did not finish (the worker died, was stopped as "
        "stalled, or failed); the last error: MemoryError: "
    )
    (answer,) = table.new_mail()
    assert answer.to_addr == "mallory@example.net"
    assert answer.subject == "Re: " + "x" * 77 + "..."
    assert len(answer.body) < 600


def test_storing_and_processing_read_the_same_header_however_long(
    game: tuple[App, Table],
) -> None:
    app, table = game
    padding = "".join(f"X-Pad-{n}: {'p' * 990}\r\n" for n in range(300))
    assert len(padding) > MAX_HEADER_BYTES
    # Past the first 256 KiB of header: a Reply-To and a second Message-ID.
    raw = (
        "From: england@example.org\r\nMessage-ID: <first@x>\r\nSubject: long\r\n"
        f"{padding}Reply-To: elsewhere@example.net\r\nMessage-ID: <late@x>\r\n\r\nHELP\r\n"
    ).encode()
    with app.store_sessions() as session, session.begin():
        row, _new = receive(session, raw, at("2026-11-23 13:00"))
        inbound_id = row.id
        assert (row.sender, row.message_id) == ("england@example.org", "<first@x>")
    assert process_one(app.sessions, app.judge, inbound_id, at("2026-11-23 13:01")) == "done"
    (answer,) = table.new_mail()
    assert answer.to_addr == "england@example.org"
    assert answer.headers["In-Reply-To"] == "<first@x>"


def test_an_oversized_message_is_stored_as_its_header_and_a_prefix(
    game: tuple[App, Table],
) -> None:
    app, table = game
    limit = app.judge.settings.max_message_bytes
    body = b"SIGNON Etest01 pw-eng\r\n" + b"A" * (3 * limit)
    raw = b"From: england@example.org\r\nSubject: big\r\nMessage-ID: <big@x>\r\n\r\n" + body
    with app.store_sessions() as session, session.begin():
        (stored,) = receive_many(session, [raw], at("2026-11-23 13:00"), max_bytes=limit)
    assert stored.new
    row = rows(app)["<big@x>"]
    header_length = raw.index(b"\r\n\r\n") + 4
    assert row.raw == raw[: header_length + STORED_PREFIX_BYTES]
    assert (row.size, row.original_size) == (len(raw), len(raw))
    assert process_pending(app.sessions, app.judge, lambda: at("2026-11-23 13:01")) == 1
    row = rows(app)["<big@x>"]
    assert row.state == "ignored" and (row.reason or "").startswith("too large")
    (answer,) = table.new_mail()
    assert f"Your message of {len(raw):,} bytes is larger" in answer.body
    # Within the limit, a message is stored whole.
    small = raw[: header_length + 100]
    small = small.replace(b"<big@x>", b"<small@x>")
    with app.store_sessions() as session, session.begin():
        receive_many(session, [small], at("2026-11-23 13:00"), max_bytes=limit)
    assert rows(app)["<small@x>"].raw == small
