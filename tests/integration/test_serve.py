"""``judge serve`` on its embedded defaults: a real SMTP conversation in, replies out to the
local Maildirs, deadlines processed, a clean stop on SIGTERM."""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import smtplib
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from support import ROOT
from support.netutil import free_port
from support.servicekit import GAME_FILE, at, make_app

from judge.config import InboundSmtpSettings
from judge.db.models import Game, InboundMessage, OutboundMessage
from judge.runtime.bootstrap import App
from judge.runtime.serve import Server
from judge.services.game_files import load_game
from judge.services.games import start_game
from judge.services.inbound import TEST_FAULT_HOOK


def wait_for(check: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[App, Server, Clock, int]]:
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'judge.db'}")
    port = free_port()
    app.judge.settings = dataclasses.replace(
        app.judge.settings, inbound=InboundSmtpSettings("127.0.0.1", port)
    )
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE)
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    clock = Clock(at("2026-11-23 13:00"))
    server = Server(app, clock=clock, tick=0.1)
    server.start()
    yield app, server, clock, port
    server.stop()


def maildir(app: App, address: str) -> list[str]:
    folder = app.judge.settings.var_dir / "mail" / address / "new"
    return [p.read_text() for p in sorted(folder.iterdir())] if folder.exists() else []


def send(port: int, sender: str, body: str, *, envelope_from: str | None = None) -> None:
    message = (
        f"From: {sender}\r\nTo: judge@example.org\r\nSubject: orders\r\n"
        f"Message-ID: <{time.monotonic_ns()}@players.example>\r\n\r\n{body}"
    )
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.sendmail(
            envelope_from if envelope_from is not None else sender,
            ["judge@example.org"],
            message.encode(),
        )


def test_orders_by_smtp_get_a_reply_in_the_maildir(served: tuple[App, Server, Clock, int]) -> None:
    app, _server, _clock, port = served
    send(port, "england@example.org", "SIGNON Etest01 pw-eng\r\nF Lon-NTH\r\n")
    wait_for(lambda: any("Subject: Re: orders" in m for m in maildir(app, "england@example.org")))
    reply = next(m for m in maildir(app, "england@example.org") if "Subject: Re: orders" in m)
    assert "England: Fleet London -> North Sea." in reply
    assert "Auto-Submitted: auto-replied" in reply and "X-Loop: judge@example.org" in reply


def test_other_recipients_are_refused(served: tuple[App, Server, Clock, int]) -> None:
    _app, _server, _clock, port = served
    with (
        smtplib.SMTP("127.0.0.1", port, timeout=10) as client,
        pytest.raises(smtplib.SMTPRecipientsRefused) as err,
    ):
        client.sendmail("x@example.net", ["someone@elsewhere.example"], b"Subject: x\r\n\r\nx")
    assert err.value.recipients["someone@elsewhere.example"][0] == 550


def test_a_bounce_is_stored_and_never_answered(served: tuple[App, Server, Clock, int]) -> None:
    app, _server, _clock, port = served
    send(port, "mailer-daemon@example.org", "Delivery failed", envelope_from="")

    def ignored() -> bool:
        with app.sessions() as session:
            return session.scalars(select(InboundMessage.state)).all() == ["ignored"]

    wait_for(ignored)
    with app.sessions() as session:
        row = session.scalars(select(InboundMessage)).one()
        assert row.raw.startswith(b"Return-Path: <>\r\n")
        kinds = set(session.scalars(select(OutboundMessage.kind)))
    assert kinds == {"gamestart"}


def test_deadline_passes_and_the_phase_is_processed(
    served: tuple[App, Server, Clock, int], caplog: pytest.LogCaptureFixture
) -> None:
    app, _server, clock, _port = served
    caplog.set_level(logging.INFO, logger="judge.serve")
    clock.now = at("2026-11-25 20:00") + timedelta(seconds=1)

    def processed() -> bool:
        with app.sessions() as session:
            return session.scalars(select(Game.phase)).one() == "F1901M"

    wait_for(processed)
    wait_for(
        lambda: any("Movement results for Spring" in m for m in maildir(app, "gm@example.org"))
    )
    # The log says what was processed, when, and where the game is now.
    assert "test01 S1901M processed at the deadline; now F1901M" in [
        r.getMessage() for r in caplog.records if r.name == "judge.serve"
    ]


def test_judge_serve_starts_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "config" / "judge.toml"
    config.parent.mkdir()
    config.write_text(
        f'[judge]\naddress = "judge@example.org"\nvar_dir = "{tmp_path / "var"}"\n'
        f"[inbound]\nport = {port}\n"
    )
    # A game file dropped in config/games is loaded (and, with start = "auto", started).
    (config.parent / "games").mkdir()
    (config.parent / "games" / "test01.toml").write_text(
        GAME_FILE.replace('rules = "2023"', 'rules = "2023"\nstart = "auto"')
    )
    (config.parent / "games" / "broken.toml").write_text("[game]\nname = 'Bad Name'\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "judge.cli", "--config", str(config), "serve"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith(
            f"judge serve: receiving mail for judge@example.org by SMTP on 127.0.0.1:{port}"
        )
        send(port, "someone@example.net", "HELP\r\n")
        folder = tmp_path / "var" / "mail" / "someone@example.net" / "new"
        wait_for(lambda: folder.exists() and any(folder.iterdir()))
        russia = tmp_path / "var" / "mail" / "russia@example.org" / "new"
        wait_for(lambda: russia.exists() and any(russia.iterdir()))
        first = next(russia.iterdir()).read_text()
        assert "Subject: Diplomacy game test01 starts: you are Russia" in first
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        assert process.stderr is not None
        log = process.stderr.read()
        assert "broken.toml: not loaded:" in log and "[game] name: expected" in log
        # A line per message the judge answered; the SMTP library's chatter is not there.
        assert "judge.services.inbound: HELP from someone@example.net\n" in log
        assert "mail.log" not in log and "apscheduler" not in log
    finally:
        if process.poll() is None:
            process.kill()


def test_judge_serve_that_cannot_listen_says_so_and_exits(tmp_path: Path) -> None:
    """The worker processes started before the SMTP port was found taken stop too:
    without that the process would wait for them forever on its way out."""

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    config = tmp_path / "config" / "judge.toml"
    config.parent.mkdir()
    config.write_text(
        f'[judge]\naddress = "judge@example.org"\nvar_dir = "{tmp_path / "var"}"\n'
        f"[inbound]\nport = {port}\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-m", "judge.cli", "--config", str(config), "serve"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        taken.close()
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("judge serve: cannot start: [Errno 98] error while attempting to bind")
    assert f"('127.0.0.1', {port}): address already in use" in last
    assert "inbox worker stopped" in done.stderr and "outbox worker stopped" in done.stderr


def send_raw(port: int, sender: str, header: str, body: str) -> None:
    message = (
        f"From: {sender}\r\nTo: judge@example.org\r\nSubject: hello\r\n"
        f"Message-ID: <{time.monotonic_ns()}@players.example>\r\n{header}\r\n{body}"
    )
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.sendmail(sender, ["judge@example.org"], message.encode())


@pytest.mark.parametrize(
    ("fault", "settings"), [("kill", ""), ("stall", "max_message_seconds = 1.5\n")]
)
def test_judge_serve_parks_a_poison_message_and_answers_the_mail_after_it(
    tmp_path: Path, fault: str, settings: str
) -> None:
    """A message that kills its worker process (or stalls it until the watchdog stops it)
    is tried alone, then parked with one answer, while the ordinary mail sent after it over
    SMTP is answered within seconds.  The poison is the worker's test fault hook."""
    port = free_port()
    config = tmp_path / "config" / "judge.toml"
    config.parent.mkdir()
    config.write_text(
        f'[judge]\naddress = "judge@example.org"\nvar_dir = "{tmp_path / "var"}"\n'
        f"tick_seconds = 0.2\n{settings}[inbound]\nport = {port}\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "judge.cli", "--config", str(config), "serve"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, TEST_FAULT_HOOK: "1"},
    )  # fmt: skip
    mail = tmp_path / "var" / "mail"

    def answers(address: str) -> list[str]:
        folder = mail / address / "new"
        return [p.read_text() for p in folder.iterdir()] if folder.exists() else []

    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("judge serve: receiving mail")
        started = time.monotonic()
        send_raw(port, "mallory@example.net", f"X-Judge-Test-Fault: {fault}\r\n", "HELP\r\n")
        ordinary = [f"player{n}@example.net" for n in range(3)]
        for address in ordinary:
            send_raw(port, address, "", "HELP\r\n")
        wait_for(lambda: all(answers(a) for a in ordinary), 40)
        answered = time.monotonic() - started
        wait_for(lambda: bool(answers("mallory@example.net")), 40)
        (parked,) = answers("mallory@example.net")
        assert "This judge could not process your message" in parked
        print(f"\n{fault}: the mail after the poison answered in {answered:.1f} s")
        assert answered < 30
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        assert process.stderr is not None
        log = process.stderr.read()
        assert log.count("the inbox worker process ended") == 3
        assert ("more than 1.5 s; stopping it" in log) == (fault == "stall")
    finally:
        if process.poll() is None:
            process.kill()
