"""Mail loops without the headers that mark automatic mail (issue 11, item 9).

Two judges behind a relay that strips Auto-Submitted, Precedence, X-Loop and
X-Auto-Response-Suppress exchanged 58 mails an hour, each answering the other's "no
commands found".  Here two real judges (each its own database) talk through such a
relay, one simulated minute per hop, for an hour: the exchange must stop after a few.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select
from support.servicekit import at

from judge.config import JudgeSettings
from judge.db.models import InboundMessage, OutboundMessage
from judge.mail.compose import build_email
from judge.runtime.bootstrap import App, open_app
from judge.services.inbound import process_one
from judge.services.intake import receive
from judge.services.outbox import outgoing_mail

#: What the relay takes off: every header that says "automatic mail, do not answer".
STRIPPED = ("Auto-Submitted", "X-Auto-Response-Suppress", "Precedence", "X-Loop")


def judge_at(tmp_path: Path, name: str) -> App:
    var = tmp_path / name
    return open_app(
        JudgeSettings(
            name=f"{name.upper()}-JUDGE",
            address=f"judge@{name}.example",
            var_dir=var,
            database_url=f"sqlite:///{tmp_path / (name + '.db')}",
        )
    )


def deliver(app: App, raw: bytes, minute: int) -> None:
    now = at("2026-11-23 13:00") + timedelta(minutes=minute)
    with app.sessions() as session, session.begin():
        row, _new = receive(session, raw, now)
        inbound_id = row.id
    process_one(app.sessions, app.judge, inbound_id, now)


class Relay:
    """Carries each judge's outgoing mail to the other, headers stripped."""

    def __init__(self, *apps: App, strip_threading: bool = False) -> None:
        self.apps = apps
        self.strip = STRIPPED + (("In-Reply-To", "References") if strip_threading else ())
        self.seen = dict.fromkeys(range(len(apps)), 0)
        self.carried: list[tuple[str, str]] = []

    def run(self, minutes: int, robot: Callable[[bytes], bytes] | None = None) -> int:
        """Carry mail for ``minutes`` simulated minutes; return how many mails went."""
        for minute in range(1, minutes + 1):
            moved = False
            for index, app in enumerate(self.apps):
                other = self.apps[(index + 1) % len(self.apps)]
                for row in self._new(index, app):
                    mail = build_email(
                        outgoing_mail(row, app.judge.settings, at("2026-11-23 13:00"))
                    )
                    for name in self.strip:
                        del mail[name]
                    raw = mail.as_bytes()
                    self.carried.append((app.judge.settings.address, row.to_addr))
                    if robot is not None and other is app:
                        raw = robot(raw)
                    deliver(other, raw, minute)
                    moved = True
            if not moved:
                break
        return len(self.carried)

    def _new(self, index: int, app: App) -> list[OutboundMessage]:
        with app.sessions() as session:
            rows = list(
                session.scalars(
                    select(OutboundMessage)
                    .where(OutboundMessage.id > self.seen[index])
                    .order_by(OutboundMessage.id)
                )
            )
        if rows:
            self.seen[index] = rows[-1].id
        return rows


def forged(sender: str, body: str, subject: str = "hello") -> bytes:
    return (
        f"From: {sender}\r\nTo: judge@a.example\r\nSubject: {subject}\r\n"
        f"Message-ID: <forged@evil.example>\r\n\r\n{body}"
    ).encode()


def reasons(app: App) -> list[str | None]:
    with app.sessions() as session:
        return list(session.scalars(select(InboundMessage.reason).order_by(InboundMessage.id)))


def test_two_judges_stop_answering_each_other(tmp_path: Path) -> None:
    a, b = judge_at(tmp_path, "a"), judge_at(tmp_path, "b")
    deliver(a, forged("judge@b.example", "hello\n"), 0)
    relay = Relay(a, b)
    assert relay.run(60) == 1
    assert relay.carried == [("judge@a.example", "judge@b.example")]
    # B saw A's "nothing read" reply for what it is and kept silent.
    assert reasons(b) == ["judge reply: 'This judge found no commands or orders in your message.'"]


def test_two_judges_stop_after_help_without_threading_headers(tmp_path: Path) -> None:
    a, b = judge_at(tmp_path, "a"), judge_at(tmp_path, "b")
    deliver(a, forged("judge@b.example", "HELP\n"), 0)
    relay = Relay(a, b, strip_threading=True)
    assert relay.run(60) == 1
    assert reasons(b) == ["judge reply: 'Send commands in the body of an email, one per line:'"]


def test_two_judges_stop_after_a_refusal(tmp_path: Path) -> None:
    # An order without a sign-on: A's reply quotes the line (with ">") and gives the
    # reason, which starts "Sign on before ...": B reads that as a SIGNON, and refuses it.
    a, b = judge_at(tmp_path, "a"), judge_at(tmp_path, "b")
    deliver(a, forged("judge@b.example", "A Par-Bur\n"), 0)
    relay = Relay(a, b, strip_threading=True)
    # Each judge's refusal is a refused line to the other: three answers each, then A's
    # ration for mail that carried out no command is spent.
    assert relay.run(60) == 6
    assert reasons(a)[-1] == (
        "rate limit: more than 3 replies an hour to mail that carried out no command, was "
        "too large or answered the judge's own mail"
    )


def test_a_robot_that_quotes_everything_is_answered_a_few_times(tmp_path: Path) -> None:
    # Not a judge: a program that answers any mail with a line of its own above the
    # whole mail quoted, and no header that gives it away.
    a = judge_at(tmp_path, "a")
    robot_address = "robot@b.example"

    def answer(raw: bytes) -> bytes:
        text = raw.decode("utf-8", "replace").split("\n\n", 1)[-1]
        quoted = "".join(f"> {line}\r\n" for line in text.splitlines())
        return (
            f"From: {robot_address}\r\nTo: judge@a.example\r\nSubject: Re: hello\r\n"
            f"Message-ID: <{len(raw)}.{hash(raw)}@b.example>\r\n\r\n"
            f"Thank you, your mail has been received.\r\n\r\n{quoted}"
        ).encode()

    deliver(a, forged(robot_address, "hello\n"), 0)
    sent = 0
    seen = 0
    for minute in range(1, 61):
        with a.sessions() as session:
            rows = list(
                session.scalars(
                    select(OutboundMessage)
                    .where(OutboundMessage.id > seen)
                    .order_by(OutboundMessage.id)
                )
            )
        if not rows:
            break
        seen = rows[-1].id
        for row in rows:
            sent += 1
            mail = build_email(outgoing_mail(row, a.judge.settings, at("2026-11-23 13:00")))
            for name in (*STRIPPED, "In-Reply-To", "References"):
                del mail[name]
            deliver(a, answer(mail.as_bytes()), minute)
    assert sent == 3
    assert reasons(a)[-1] == (
        "rate limit: more than 3 replies an hour to mail that carried out no command, was "
        "too large or answered the judge's own mail"
    )
