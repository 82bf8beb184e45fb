"""How much press costs the judge: messages with press answered per second, the press
mails they queue, and HISTORY PRESS on a game full of press.

    python benchmarks/bench_press.py [--messages 400] [--observers 5]

In process, on a SQLite file in a temporary directory, through the judge's own path for
one message (stored, then read, checked, stored as press and its mails queued: the
service functions ``judge serve`` calls, without a mail server): a started game of seven
players, its master and ``--observers`` observers; each message is one player's signed
press, in turn a BROADCAST (to the six others, the master and the observers), a PRESS TO
two powers and a grey PRESS TO ALL BUT one, with an order line beside it.  Then HISTORY
PRESS of the game, as a player, for the most recent entries and for ALL.  Prints the
figures; nothing is asserted (the tests do that).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import func, select

from judge.config import JudgeSettings
from judge.db.models import OutboundMessage, PressRecord
from judge.runtime.bootstrap import open_app
from judge.services.game_files import load_game
from judge.services.games import start_game
from judge.services.inbound import process_one
from judge.services.intake import receive

POWERS = ("austria", "england", "france", "germany", "italy", "russia", "turkey")
_GAME = """\
[game]
name = "bench01"
rules = "2023"
press = "white/grey"
press_per_hour = 1000

[master]
address = "gm@example.org"
password = "gm-secret"

[players]
"""
GAME = _GAME + "".join(
    f'{p.title()} = {{ address = "{p}@example.org", password = "pw-{p}" }}\n' for p in POWERS
)
ORDERS = {"austria": "A Vie-Gal", "england": "F Lon-NTH", "france": "A Par-Bur",
          "germany": "A Mun-Ruh", "italy": "A Ven-Tyr", "russia": "A War-Ukr",
          "turkey": "A Con-Bul"}  # fmt: skip
FORMS = ("BROADCAST", "PRESS TO {two}", "PRESS TO ALL BUT {one} GREY")
T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def _mail(number: int, power: str, text: str) -> bytes:
    mail = EmailMessage()
    mail["From"] = f"{power}@example.org"
    mail["To"] = "judge@example.org"
    mail["Subject"] = "press"
    mail["Message-ID"] = f"<press{number}@bench.example>"
    mail.set_content(text)
    return mail.as_bytes()


def _press(number: int) -> tuple[str, str]:
    power = POWERS[number % len(POWERS)]
    others = [p for p in POWERS if p != power]
    two = "".join(p[0].upper() for p in others[number % 5 : number % 5 + 2])
    form = FORMS[number % len(FORMS)].format(two=two, one=others[number % 6][0].upper())
    text = (
        f"SIGNON {power[0].upper()}bench01 pw-{power}\n{ORDERS[power]}\n{form}\n"
        f"Press number {number}: shall we talk about the Balkans this spring?\n"
        "A second line, as most press has.\nENDPRESS\n"
    )
    return power, text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=400)
    parser.add_argument("--observers", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        settings = JudgeSettings(
            name="BENCH", address="judge@example.org", var_dir=root / "var",
            database_url=f"sqlite:///{root / 'judge.db'}", grey_press_delay=0,
        )  # fmt: skip
        app = open_app(settings)
        path = root / "bench01.toml"
        path.write_text(GAME)
        with app.sessions() as session, session.begin():
            load_game(session, app.judge, path, T0)
            start_game(session, app.judge, "bench01", T0)
        for index in range(args.observers):
            raw = _mail(10_000 + index, f"watcher{index}", "OBSERVE bench01\n")
            with app.sessions() as session, session.begin():
                row, _new = receive(session, raw.replace(b"@example.org", b"@example.net"), T0)
                inbound = row.id
            process_one(app.sessions, app.judge, inbound, T0)
        with app.sessions() as session:
            before = session.scalar(select(func.count(OutboundMessage.id))) or 0
        times: list[float] = []
        start = time.perf_counter()
        for number in range(args.messages):
            now = T0 + timedelta(hours=1, seconds=number)
            power, text = _press(number)
            began = time.perf_counter()
            with app.sessions() as session, session.begin():
                row, _new = receive(session, _mail(number, power, text), now)
                inbound = row.id
            process_one(app.sessions, app.judge, inbound, now)
            times.append(time.perf_counter() - began)
        elapsed = time.perf_counter() - start
        with app.sessions() as session:
            after = session.scalar(select(func.count(OutboundMessage.id))) or 0
            stored = session.scalar(select(func.count(PressRecord.id))) or 0
        history: dict[str, float] = {}
        for label, line in (
            ("recent 20", "HISTORY bench01 PRESS"),
            ("ALL", "HISTORY bench01 PRESS ALL"),
        ):
            now = T0 + timedelta(hours=2)
            raw = _mail(20_000 + len(history), "france", f"SIGNON Fbench01 pw-france\n{line}\n")
            began = time.perf_counter()
            with app.sessions() as session, session.begin():
                row, _new = receive(session, raw, now)
                inbound = row.id
            process_one(app.sessions, app.judge, inbound, now)
            history[label] = time.perf_counter() - began
    mails = after - before
    times.sort()
    print(f"python {sys.version.split()[0]}, SQLite, {args.observers} observers")
    print(f"messages with press: {args.messages} in {elapsed:.2f} s: "
          f"{args.messages / elapsed:.1f} msg/s")  # fmt: skip
    print(f"press stored: {stored}; mails queued (press and replies): {mails} "
          f"({mails / elapsed:.1f}/s)")  # fmt: skip
    print(f"per message: median {statistics.median(times) * 1000:.1f} ms, "
          f"p95 {times[int(len(times) * 0.95) - 1] * 1000:.1f} ms")  # fmt: skip
    for label, seconds in history.items():
        print(f"HISTORY PRESS ({label}) over {stored} press: {seconds * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
