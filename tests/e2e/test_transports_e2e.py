"""Acceptance: ``judge serve`` on real mail servers, as a real process.

The judge reads its own mailbox on the session's private Dovecot (IMAP, IDLE, ``after =
"flag"``) and sends through an aiosmtpd sink; players' mail is delivered into that mailbox
over LMTP, as an MTA would (so ``Return-Path`` is real).  The game is set up with ``judge
game load`` and ``judge game start``, whose mail goes out through the sink too.  Every test
counts what the sink received, matching replies to what was sent by ``In-Reply-To``, and
checks the judge's database: every inbound message stored once and handled, the outbox
drained.  Between them the tests cover a turn played end to end, Dovecot restarting under
the judge, the relay refusing for a while, bounces and out-of-office replies, and the judge
killed with SIGKILL in the middle of a batch.
"""

from __future__ import annotations

import io
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker
from support import ROOT
from support.dovecot import PASSWORD, Dovecot
from support.servicekit import GAME_FILE
from support.smtpsink import Received, SmtpSink

from judge.db.models import Game, InboundMessage, OutboundMessage
from judge.db.session import make_engine, make_sessionmaker
from judge.services.games import current_position

JUDGE = "judge@example.org"
GM = "gm@example.org"
POWERS = ("austria", "england", "france", "germany", "italy", "russia", "turkey")
PLAYERS = tuple(f"{power}@example.org" for power in POWERS)
#: How long any one awaited condition may take before the test fails.
TIMEOUT = 60.0


def wait_for(check: Callable[[], bool], what: str, explain: Callable[[], str]) -> None:
    """Poll ``check`` until it holds; fail after :data:`TIMEOUT` with ``explain()``."""
    deadline = time.monotonic() + TIMEOUT
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}\n{explain()}", pytrace=False)
        time.sleep(0.02)


def replies_to(sink: SmtpSink, message_id: str) -> list[Received]:
    """What the sink accepted in reply to ``message_id`` (by In-Reply-To)."""
    return [r for r in list(sink.received) if r.message["In-Reply-To"] == message_id]


def with_subject(sink: SmtpSink, subject: str) -> list[Received]:
    return [r for r in list(sink.received) if r.message["Subject"] == subject]


def recipients(received: list[Received]) -> Counter[str]:
    return Counter(address for r in received for address in r.rcpt_tos)


class Judge:
    """One judge: its settings file, its database, and the ``judge serve`` processes run
    on them (each stopped at the end if it is still running)."""

    def __init__(self, directory: Path, dovecot: Dovecot, user: str, sink: SmtpSink) -> None:
        self.directory = directory
        self.dovecot = dovecot
        self.user = user
        self.sink = sink
        self.config = directory / "config" / "judge.toml"
        self.config.parent.mkdir()
        var = directory / "var"
        # Short delays so that retries and restarts take seconds, not minutes; a high
        # reply limit, as the tests send many messages from few addresses.
        self.config.write_text(
            f"""\
[judge]
name = "TESTJUDGE"
address = "{JUDGE}"
var_dir = "{var}"
replies_per_hour = 1000
tick_seconds = 0.2

[imap]
host = "127.0.0.1"
port = {dovecot.imap_port}
security = "none"
username = "{user}"
password = "{PASSWORD}"
after = "flag"

[smtp]
host = "{sink.host}"
port = {sink.port}
security = "none"
timeout = 10
max_attempts = 30
retry_seconds = 0.2
claim_seconds = 2
"""
        )
        self.url = f"sqlite:///{var / 'judge.db'}"
        self.processes: list[subprocess.Popen[bytes]] = []
        self.logs: list[Path] = []
        self.delivered: list[str] = []
        self._engine: Engine | None = None
        self._sessions: sessionmaker[Session] | None = None

    # -- the command line -------------------------------------------------------------

    def cli(self, *args: str) -> str:
        """Run ``judge --config ... ARGS`` to the end; its output."""
        done = subprocess.run(
            [sys.executable, "-m", "judge.cli", "--config", str(self.config), *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        assert done.returncode == 0, f"judge {' '.join(args)}: {done.stdout}{done.stderr}"
        return done.stdout

    def set_up_game(self) -> None:
        """``judge game load`` and ``judge game start`` for the game of GAME_FILE."""
        game_file = self.directory / "test01.toml"
        game_file.write_text(GAME_FILE)
        assert self.cli("game", "load", str(game_file)).startswith("created game test01")
        assert self.cli("game", "start", "test01").startswith("started test01: S1901M")

    def serve(self) -> subprocess.Popen[bytes]:
        """Start ``judge serve`` and wait until it watches the mailbox with IDLE."""
        log = self.directory / f"serve-{len(self.processes) + 1}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "judge.cli", "--config", str(self.config), "serve"],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.processes.append(process)
        self.logs.append(log)
        self.wait_for(lambda: self.log_count("with IDLE", log) >= 1, "judge serve to IDLE")
        return process

    def stop(self) -> None:
        """SIGTERM to every running ``judge serve`` and wait; SIGKILL what will not stop."""
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._engine is not None:
            self._engine.dispose()

    def log(self, path: Path | None = None) -> str:
        paths = [path] if path is not None else self.logs
        return "".join(p.read_text(errors="replace") for p in paths if p.exists())

    def log_count(self, text: str, path: Path | None = None) -> int:
        return self.log(path).count(text)

    def stored_count(self) -> int:
        """How many messages the IMAP passes say they stored (and marked) so far."""
        return sum(int(n) for n in re.findall(r"IMAP: stored (\d+) message", self.log()))

    def explain(self) -> str:
        """What a failure message shows: the sink, the database, the judge's log."""
        lines = [f"sink: {len(self.sink.received)} accepted, {len(self.sink.refusals)} refused"]
        for r in list(self.sink.received):
            lines.append(
                f"  to {','.join(r.rcpt_tos)} {r.message['Subject']!r} "
                f"in-reply-to {r.message['In-Reply-To']}"
            )
        try:
            with self.sessions() as session:
                for row in session.scalars(select(InboundMessage)):
                    lines.append(f"  in {row.message_id} {row.state} {row.reason or ''}")
                for out in session.scalars(select(OutboundMessage)):
                    lines.append(f"  out {out.to_addr} {out.kind} {out.state} {out.attempts}")
        except Exception as err:  # the database may not exist yet
            lines.append(f"  database: {err}")
        tail = "\n".join(self.log().splitlines()[-40:])
        return "\n".join(lines) + f"\njudge serve's log:\n{tail}"

    def wait_for(self, check: Callable[[], bool], what: str) -> None:
        wait_for(check, what, self.explain)

    # -- mail in ----------------------------------------------------------------------

    def send(
        self,
        sender: str,
        body: str,
        *,
        subject: str = "orders",
        headers: dict[str, str] | None = None,
        envelope_from: str | None = None,
    ) -> str:
        """Deliver a plain-text email from ``sender`` to the judge's mailbox; its Message-ID."""
        mail = EmailMessage()
        mail["From"] = sender
        mail["To"] = JUDGE
        mail["Subject"] = subject
        message_id = f"<{uuid.uuid4().hex}@players.example>"
        mail["Message-ID"] = message_id
        for name, value in (headers or {}).items():
            mail[name] = value
        mail.set_content(body)
        self.deliver(
            mail.as_bytes(), message_id, sender if envelope_from is None else envelope_from
        )
        return message_id

    def deliver(self, raw: bytes, message_id: str, envelope_from: str) -> None:
        self.dovecot.deliver(raw, user=self.user, sender=envelope_from)
        self.delivered.append(message_id)

    # -- the database -----------------------------------------------------------------

    def sessions(self) -> Session:
        if self._sessions is None:
            self._engine = make_engine(self.url)
            self._sessions = make_sessionmaker(self._engine)
        return self._sessions()

    def all_handled(self) -> bool:
        """Every delivered message stored (once) and handled, and the outbox drained."""
        with self.sessions() as session:
            inbound = list(session.scalars(select(InboundMessage)))
            states = set(session.scalars(select(OutboundMessage.state)))
        return (
            sorted(row.message_id for row in inbound) == sorted(self.delivered)
            and all(row.state in ("done", "ignored") for row in inbound)
            and states <= {"sent"}
        )

    def outbound(self) -> list[OutboundMessage]:
        with self.sessions() as session:
            return list(session.scalars(select(OutboundMessage).order_by(OutboundMessage.id)))

    def inbound_states(self) -> dict[str, str]:
        with self.sessions() as session:
            return {row.message_id: row.state for row in session.scalars(select(InboundMessage))}

    def units(self) -> dict[str, str]:
        with self.sessions() as session:
            game = session.scalars(select(Game)).one()
            position = current_position(session, game)
        return {
            unit.location: f"{unit.power[:3]} {unit.type.value}" for unit in position.units.values()
        }

    def phase(self) -> str:
        with self.sessions() as session:
            return str(session.scalars(select(Game.phase)).one())

    # -- checks ---------------------------------------------------------------------

    def assert_one_reply_each(self, message_ids: list[str]) -> None:
        """Each of ``message_ids`` has exactly one reply at the sink."""
        counts = {mid: len(replies_to(self.sink, mid)) for mid in message_ids}
        assert counts == dict.fromkeys(message_ids, 1), self.explain()

    def assert_sink_matches_outbox(self) -> None:
        """The sink holds each sent message of the outbox exactly once, and nothing else."""
        sent = sorted(out.message_id for out in self.outbound())
        assert all(out.state == "sent" for out in self.outbound())
        assert sorted(self.sink.message_ids()) == sent, self.explain()


@pytest.fixture
def judge(tmp_path: Path, dovecot: Dovecot, imap_user: str, smtp_sink: SmtpSink) -> Iterator[Judge]:
    """A judge reading ``imap_user``'s mailbox and sending through ``smtp_sink``; any
    ``judge serve`` a test started is stopped afterwards."""
    judge = Judge(tmp_path, dovecot, imap_user, smtp_sink)
    try:
        yield judge
    finally:
        judge.stop()


def gamestart_mail(sink: SmtpSink) -> list[Received]:
    return [
        r for r in list(sink.received) if str(r.message["Subject"]).startswith("Diplomacy game")
    ]


# -- 1. a turn played by email ---------------------------------------------------------------


def test_seven_players_play_spring_1901_by_email_through_judge_serve(judge: Judge) -> None:
    judge.set_up_game()
    sink = judge.sink
    starts = gamestart_mail(sink)
    # The game master's game-start mail (the roster) too.
    assert recipients(starts) == Counter([*PLAYERS, GM])
    france = next(r for r in starts if "france@example.org" in r.rcpt_tos).text()
    found = re.search(r"Your password for this game is: (\S+)", france)
    assert found is not None, france
    france_password = found.group(1)

    judge.serve()
    orders = {
        "austria@example.org": (
            "SIGNON Atest01 pw-aus\nArmy Vienna moves to Galicia\nA Bud-Ser\nF Tri H\n"
        ),
        "england@example.org": (
            "SIGNON Etest01 pw-eng\nF Lon-NTH\nF Edinburgh -> Norwegian Sea\nA Lvp-Yor\n"
            "SIGNOFF\nAlice\n"
        ),
        "france@example.org": (
            f"signon france@test01 {france_password}\nA Par-Bur, A Mar S A Par-Bur; F Bre-MAO\n"
        ),
        "germany@example.org": "SIGNON Gtest01 pw-ger\nA(Mun)-Ruh\nA Ber-Kie\nF Kie-Den\n",
        "italy@example.org": "SIGNON Itest01 pw-ita\nA(Ven)-Tyr\nA(Rom)-Ven\nF(Nap)-ION\n",
        "russia@example.org": (
            "SIGNON Rtest01 pw-rus\n(RUS FLT (STP SCS)) MTO BOT\nA War-Ukr\nA Mos-StP\nF Sev-Bla\n"
        ),
        "turkey@example.org": (
            "SIGNON Ttest01 pw-tur\nF ANK - BLA\nA Con-Bul\nA Smy H\n\n"
            "On Mon, 23 Nov 2026, TESTJUDGE <judge@example.org> wrote:\n> A Smy-Arm\n"
        ),
    }
    sent = {address: judge.send(address, body) for address, body in orders.items()}
    judge.wait_for(
        lambda: all(replies_to(sink, mid) for mid in sent.values()), "seven confirmations"
    )
    judge.wait_for(judge.all_handled, "every message handled and the outbox drained")
    judge.assert_one_reply_each(list(sent.values()))
    for address, message_id in sent.items():
        (reply,) = replies_to(sink, message_id)
        assert reply.rcpt_tos == (address,)
        assert reply.message["Subject"] == "Re: orders"
        assert reply.message["Auto-Submitted"] == "auto-replied"
        text = reply.text()
        assert "Your orders are complete" in text, text
    assert "Russia: Fleet St Petersburg (south coast) -> Gulf of Bothnia." in (
        replies_to(sink, sent["russia@example.org"])[0].text()
    )

    process = judge.send(GM, "SIGNON Mtest01 gm-secret\nPROCESS\n", subject="go")
    results_subject = "Diplomacy results test01 S1901M"
    judge.wait_for(
        lambda: len(with_subject(sink, results_subject)) >= 8 and bool(replies_to(sink, process)),
        "the results of S1901M",
    )
    judge.wait_for(judge.all_handled, "every message handled and the outbox drained")
    judge.assert_one_reply_each([process])
    assert "Processed S1901M; now F1901M." in replies_to(sink, process)[0].text()
    results = with_subject(sink, results_subject)
    assert recipients(results) == Counter([*PLAYERS, GM])
    report = results[0].text()
    assert "Russia: Fleet Sevastopol -> Black Sea." in report
    assert "Turkey: Fleet Ankara -> Black Sea." in report
    assert all(r.text() == report for r in results)
    # Eight game starts (the master's too), seven confirmations, the game master's reply,
    # eight results.
    assert len(sink.received) == 8 + 7 + 1 + 8
    judge.assert_sink_matches_outbox()

    assert judge.phase() == "F1901M"
    assert judge.units() == {
        "gal": "Aus A", "ser": "Aus A", "tri": "Aus F",
        "nth": "Eng F", "nwg": "Eng F", "yor": "Eng A",
        "bur": "Fra A", "mar": "Fra A", "mao": "Fra F",
        "ruh": "Ger A", "kie": "Ger A", "den": "Ger F",
        "tyr": "Ita A", "ven": "Ita A", "ion": "Ita F",
        "bot": "Rus F", "ukr": "Rus A", "stp": "Rus A", "sev": "Rus F",
        "ank": "Tur F", "bul": "Tur A", "smy": "Tur A",
    }  # fmt: skip


# -- 2. the IMAP server restarts ---------------------------------------------------------------


def test_dovecot_restarting_under_the_judge_loses_and_repeats_nothing(judge: Judge) -> None:
    judge.set_up_game()
    sink = judge.sink
    judge.serve()
    first = [judge.send(f"player{n}@example.net", "HELP\n") for n in range(5)]
    judge.wait_for(lambda: all(replies_to(sink, mid) for mid in first), "the first replies")
    # The passes that stored them have ended (their marks are set): the judge is in IDLE.
    judge.wait_for(lambda: judge.stored_count() == 5, "the end of the pass")
    judge.wait_for(judge.all_handled, "the first batch handled")

    judge.dovecot.restart()
    # Delivered while the judge is still reconnecting (its first retry is after 1 s).
    second = [judge.send(f"player{n}@example.net", "LIST\n") for n in range(5)]
    judge.wait_for(lambda: all(replies_to(sink, mid) for mid in second), "the second replies")
    judge.wait_for(judge.all_handled, "every message handled and the outbox drained")

    assert judge.log_count("reconnecting in") >= 1, judge.explain()
    # Each message was fetched and stored once: the marks made before the restart held.
    assert judge.stored_count() == 10 and judge.log_count("(again)") == 0, judge.explain()
    assert judge.log_count("with IDLE") >= 2, judge.explain()
    judge.assert_one_reply_each(first + second)
    assert all("Games on this judge:" in replies_to(sink, mid)[0].text() for mid in second)
    assert len(sink.received) == 8 + 10
    judge.assert_sink_matches_outbox()
    assert set(judge.inbound_states().values()) == {"done"}


# -- 3. the relay refuses for a while -------------------------------------------------------


def test_mail_refused_for_a_while_is_delivered_once_afterwards(judge: Judge) -> None:
    sink = judge.sink
    accepting = threading.Event()
    sink.refuse_while(lambda: not accepting.is_set())
    # The game start's mail is refused too: it waits in the outbox for judge serve.
    judge.set_up_game()
    assert len(sink.refusals) == 8 and not sink.received
    judge.serve()
    sent = [judge.send(f"player{n}@example.net", "HELP\n") for n in range(6)]

    def refused_three_times_each() -> bool:
        refused = Counter(message_id for message_id, _reply in sink.refusals)
        return len(refused) == 14 and min(refused.values()) >= 3

    judge.wait_for(refused_three_times_each, "every message refused three times")
    accepting.set()
    judge.wait_for(judge.all_handled, "every message handled and the outbox drained")

    assert all(reply.startswith("451 ") for _id, reply in sink.refusals)
    judge.assert_one_reply_each(sent)
    assert recipients(gamestart_mail(sink)) == Counter([*PLAYERS, GM])
    assert len(sink.received) == 8 + 6
    judge.assert_sink_matches_outbox()
    assert min(out.attempts for out in judge.outbound()) >= 4


# -- 4. bounces and out-of-office replies ----------------------------------------------------

BOUNCE = """\
From: Mail Delivery System <MAILER-DAEMON@mx.example.net>
To: judge@example.org
Subject: Undelivered Mail Returned to Sender
Message-ID: {message_id}
Date: Mon, 23 Nov 2026 13:00:00 +0000
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="report"

--report
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.net.
Your message could not be delivered to one or more recipients.

HELP

--report
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net

Final-Recipient: rfc822; nobody@example.net
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 No such user

--report
Content-Type: text/rfc822-headers

From: TESTJUDGE <judge@example.org>
To: nobody@example.net
Subject: Diplomacy game test01 starts

--report--
"""


def test_bounces_and_out_of_office_replies_get_no_answer(judge: Judge) -> None:
    judge.set_up_game()
    sink = judge.sink
    judge.serve()
    bounce_id = f"<{uuid.uuid4().hex}@mx.example.net>"
    bounce = BOUNCE.format(message_id=bounce_id).replace("\n", "\r\n").encode()
    judge.deliver(bounce, bounce_id, envelope_from="")  # MAIL FROM:<>, so Return-Path: <>
    away = judge.send(
        "england@example.org",
        "I am out of the office until Monday.\n\nSIGNON Etest01 pw-eng\nHELP\n",
        subject="Out of office: orders",
        headers={"Auto-Submitted": "auto-replied"},
    )
    # Then a person: once the answer to this is out, the two before it were handled too.
    person = judge.send("someone@example.net", "HELP\n")
    judge.wait_for(lambda: bool(replies_to(sink, person)), "the answer to the person")
    judge.wait_for(judge.all_handled, "every message handled and the outbox drained")

    states = judge.inbound_states()
    assert states == {bounce_id: "ignored", away: "ignored", person: "done"}
    assert replies_to(sink, bounce_id) == [] and replies_to(sink, away) == []
    judge.assert_one_reply_each([person])
    # The game start and the one answer: nothing to the mailer daemon, nothing more to England.
    assert len(sink.received) == 8 + 1
    assert recipients(list(sink.received)) == Counter([*PLAYERS, GM, "someone@example.net"])
    judge.assert_sink_matches_outbox()
    with judge.sessions() as session:
        rows = session.execute(select(InboundMessage.message_id, InboundMessage.reason))
        reasons = {message_id: reason for message_id, reason in rows}
    # Refused for what they are: Return-Path: <> as LMTP wrote it, and the auto-reply header.
    assert str(reasons[bounce_id]).startswith("bounce: ")
    assert str(reasons[away]).startswith("auto-submitted: ")


# -- 5. killed in the middle of a batch ------------------------------------------------------


def test_a_judge_killed_mid_batch_answers_everything_once_after_restart(judge: Judge) -> None:
    """SIGKILL as soon as the first replies reach the sink, then a restart: each message has
    exactly one reply, none lost and none answered twice.

    One copy may reach the sink twice, and only of a reply the sink had already taken when
    the kill came: the one whose send was cut off between the server's acceptance and the
    judge recording it.  SMTP gives no way to ask a server whether it took a message, so the
    outbox delivers at least once; that copy carries the same Message-ID, by which mail
    programs show it once.
    """
    judge.set_up_game()
    sink = judge.sink
    process = judge.serve()
    sent = [
        judge.send(f"player{n % 10}@example.net", "HELP\n" if n % 2 else "LIST\n")
        for n in range(30)
    ]
    judge.wait_for(
        lambda: any(replies_to(sink, mid) for mid in sent) or process.poll() is not None,
        "the first reply",
    )
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=10) == -signal.SIGKILL
    at_kill = set(sink.message_ids())
    answered_before = sum(1 for mid in sent if replies_to(sink, mid))
    assert 1 <= answered_before < len(sent), "the kill came after the batch"

    judge.serve()
    judge.wait_for(lambda: all(replies_to(sink, mid) for mid in sent), "every message answered")
    judge.wait_for(judge.all_handled, "every message handled and the outbox drained")

    # One reply each (by In-Reply-To, counting distinct Message-IDs): none lost, none twice.
    reply_ids = {mid: {str(r.message["Message-ID"]) for r in replies_to(sink, mid)} for mid in sent}
    assert {mid: len(ids) for mid, ids in reply_ids.items()} == dict.fromkeys(sent, 1)
    copies = Counter(sink.message_ids())
    repeated = {message_id: n for message_id, n in copies.items() if n > 1}
    assert len(repeated) <= 1 and set(repeated) <= at_kill, (repeated, judge.explain())
    assert all(n == 2 for n in repeated.values()), repeated
    outbox = judge.outbound()
    assert len(outbox) == 8 + 30 and all(out.state == "sent" for out in outbox)
    assert set(copies) == {out.message_id for out in outbox}
    assert recipients(gamestart_mail(sink)) == Counter([*PLAYERS, GM])
    assert set(judge.inbound_states().values()) == {"done"}


# -- 6. the map picture ----------------------------------------------------------------------


def png_part(received: Received) -> bytes:
    """The one picture of a mail as a mail program reads it: multipart/mixed, the text
    first, then an inline PNG, whose bytes are returned."""
    message = received.message
    assert message.get_content_type() == "multipart/mixed", received.raw[:400]
    text, image = message.iter_parts()
    assert text.get_content_type() == "text/plain"
    assert image.get_content_type() == "image/png"
    assert image.get_content_disposition() == "inline"
    assert image["Content-ID"] is not None
    data: bytes = image.get_content()
    return data


def test_results_and_game_start_mail_carry_the_map_picture_by_smtp(judge: Judge) -> None:
    from PIL import Image

    from judge.db.models import PhaseRecord, Picture
    from judge.services.pictures import drawn, record_views

    judge.set_up_game()
    sink = judge.sink
    starts = gamestart_mail(sink)
    assert recipients(starts) == Counter([*PLAYERS, GM])
    board = {png_part(received) for received in starts}
    assert len(board) == 1  # one picture, the same for everyone
    names = {image.get_filename() for r in starts for image in list(r.message.iter_parts())[1:]}
    assert names == {"test01-S1901M.png"}

    judge.serve()
    watch = judge.send("watcher@example.net", "OBSERVE test01\n")
    judge.wait_for(lambda: bool(replies_to(sink, watch)), "the observer's welcome")
    process = judge.send(GM, "SIGNON Mtest01 gm-secret\nPROCESS\n", subject="go")
    results_subject = "Diplomacy results test01 S1901M"
    judge.wait_for(lambda: len(with_subject(sink, results_subject)) >= 9, "the results")
    judge.wait_for(judge.all_handled, "every message handled and the outbox drained")
    results = with_subject(sink, results_subject)
    # The players, the master and the observer: each gets the results picture inline.
    assert recipients(results) == Counter([*PLAYERS, GM, "watcher@example.net"])
    pictures = {png_part(received) for received in results}
    assert len(pictures) == 1
    (picture,) = pictures
    with judge.sessions() as session:
        game = session.scalars(select(Game)).one()
        record = session.scalars(select(PhaseRecord).where(PhaseRecord.seq == 1)).one()
        (view,) = record_views(record)
        expected = drawn(game, view, "Europe/London")
        stored = session.scalars(select(Picture.png).where(Picture.kind == "results")).one()
    assert picture == stored
    with Image.open(io.BytesIO(picture)) as opened:
        opened.load()
        assert (opened.format, opened.size) == ("PNG", (expected.width, expected.height))
    assert "Movement results for Spring of 1901." in results[0].text()
    assert replies_to(sink, process)[0].message.get_content_type() == "text/plain"

    # A game whose file says maps = false: its mail is text only.
    quiet = judge.directory / "test02.toml"
    quiet.write_text(
        GAME_FILE.replace('name = "test01"', 'name = "test02"').replace(
            'rules = "2023"\n', 'rules = "2023"\nmaps = false\n'
        )
    )
    assert judge.cli("game", "load", str(quiet)).startswith("created game test02")
    assert judge.cli("game", "start", "test02").startswith("started test02: S1901M")
    quiet_starts = with_subject(sink, "Diplomacy game test02 starts: you are Italy")
    assert len(quiet_starts) == 1
    assert quiet_starts[0].message.get_content_type() == "text/plain"
    assert "Welcome to the game 'test02'. You are Italy." in quiet_starts[0].text()
