"""The keeper's log: one INFO line per message, saying what it did (who signed on, in
which game, which commands, how many orders taken and refused), never a password nor a
word of the message's text (``judge.services.activity``)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from support.servicekit import Table, at, started_game

from judge.runtime.bootstrap import App
from judge.services.inbound import process_pending
from judge.services.intake import receive

WHEN = "2026-11-23 13:00"
LOGGER = "judge.services.inbound"


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    return started_game(tmp_path)


def said(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == LOGGER]


def test_each_message_gets_a_line_that_says_what_it_did(
    game: tuple[App, Table], caplog: pytest.LogCaptureFixture
) -> None:
    _app, table = game
    caplog.set_level(logging.INFO, logger=LOGGER)
    table.send(
        "england@example.org",
        "SIGNON Etest01 pw-eng\nF Lon-NTH\nF Edi-NWG, A Lvp-Mun\nA Lvp-Yor\nSET WAIT\n",
        WHEN,
    )
    table.send("someone@example.net", "LIST\nHELP\n", WHEN)
    table.send("england@example.org", "SIGNON Etest01 wrong-pw\nF Lon-ENG\n", WHEN)
    table.send("germany@example.org", "SIGNON Gtest01 pw-ger\nSIGNOFF\n", WHEN)
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nPROCESS\n", WHEN)
    table.send("elsewhere@example.net", "SIGNON Atest01 pw-aus\nLIST\nSIGNON Ftest01 nope\n", WHEN)
    table.send("austria@example.org", "Thanks, see you\n", WHEN)
    table.send("austria@example.org", "\n", WHEN)
    assert said(caplog) == [
        (logging.INFO, "England in test01: 3 orders, 1 refused, SET WAIT"),
        (logging.INFO, "LIST, HELP from someone@example.net"),
        (logging.INFO, "SIGNON (refused), 1 order refused from england@example.org"),
        (logging.INFO, "Germany in test01: signed on only"),
        (logging.INFO, "PROCESS test01 S1901M by the game master"),
        (
            logging.INFO,
            "Austria in test01 from elsewhere@example.net: LIST; "
            "SIGNON (refused) from elsewhere@example.net",
        ),
        (logging.INFO, "no command from austria@example.org"),
        (logging.INFO, "nothing read from austria@example.org"),
    ]
    # Never a password, nor the text of an order or of the message.
    for secret in ("pw-eng", "wrong-pw", "gm-secret", "pw-aus", "nope", "Lon", "Thanks"):
        assert secret not in caplog.text


def test_mail_that_is_not_read_gets_a_line_with_the_reason(
    game: tuple[App, Table], caplog: pytest.LogCaptureFixture
) -> None:
    _app, table = game
    caplog.set_level(logging.INFO, logger=LOGGER)
    bounce = (
        b"From: MAILER-DAEMON@example.org\nTo: judge@example.org\nSubject: Undelivered\n"
        b"Message-ID: <b1@example.org>\nAuto-Submitted: auto-replied\n\nSIGNON Etest01 pw-eng\n"
    )
    assert table.inject(bounce, WHEN) == "ignored"
    [(level, line)] = said(caplog)
    assert level == logging.INFO
    assert line.startswith("ignored mail from mailer-daemon@example.org: ")
    assert "pw-eng" not in caplog.text
    # A header's value quoted in the reason is bounded.
    robot = (
        b"From: robot@example.org\nTo: judge@example.org\nSubject: x\nMessage-ID: <b2@x>\n"
        b"Auto-Submitted: auto-generated; " + b"x" * 3000 + b"\n\nLIST\n"
    )
    assert table.inject(robot, WHEN) == "ignored"
    line = said(caplog)[1][1]
    assert line.startswith("ignored mail from robot@example.org: ") and len(line) == 500


def test_a_batch_is_logged_once_committed_a_line_per_message(
    game: tuple[App, Table], caplog: pytest.LogCaptureFixture
) -> None:
    """Messages processed together in one transaction: the lines come after its commit,
    in the messages' order."""
    app, _table = game
    caplog.set_level(logging.INFO, logger=LOGGER)
    now = at(WHEN)
    with app.sessions() as session, session.begin():
        for number, (sender, body) in enumerate(
            [
                ("france@example.org", "LIST test01\n"),
                ("italy@example.org", "SIGNON Itest01 wrong\n"),
                ("turkey@example.org", "SIGNON Ttest01 pw-tur\nF Ank-BLA\nA Con-Bul\n"),
            ]
        ):
            raw = (
                f"From: {sender}\nTo: judge@example.org\nSubject: x\n"
                f"Message-ID: <batch{number}@players.example>\n\n{body}"
            ).encode()
            receive(session, raw, now)
    assert process_pending(app.sessions, app.judge, lambda: now) == 3
    assert said(caplog) == [
        (logging.INFO, "LIST from france@example.org"),
        (logging.INFO, "SIGNON (refused) from italy@example.org"),
        (logging.INFO, "Turkey in test01: 2 orders"),
    ]
