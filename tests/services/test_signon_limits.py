"""Issue 11 items 3 and 5: password guessing is bounded per power over time (a lockout the
game master and the player hear about once), replies never show a password, new passwords
are long enough, and the copies sent to a registered address are rationed."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import Table, started_game

from judge.commands import MAX_WORD
from judge.db.models import OrderRecord, OutboundMessage
from judge.runtime.bootstrap import App
from judge.services.confirmation import MAX_COPIES_PER_HOUR
from judge.services.passwords import (
    GENERATED_PASSWORD_LENGTH,
    MAX_PASSWORD_LENGTH,
    MIN_PASSWORD_LENGTH,
    PASSWORD_ALPHABET,
    generated_password_bits,
    new_password,
)
from judge.services.signons import SIGNON_MAX_FAILURES


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    return started_game(tmp_path)


def active_orders(app: App, power: str) -> list[str]:
    with app.sessions() as session:
        rows = session.scalars(
            select(OrderRecord).where(OrderRecord.active.is_(True)).order_by(OrderRecord.id)
        )
        return [str(r.canonical) for r in rows if r.player.power == power]


def mail(rows: list[OutboundMessage]) -> list[tuple[str, str, str]]:
    return [(r.to_addr, r.kind, r.subject) for r in rows]


LOCKED_ENGLAND = (
    "> SIGNON Etest01 ******\n"
    "Not checked: after 5 wrong passwords for England in test01 within an hour, sign-ons as "
    "England from any address but its registered one are refused until Mon Nov 23 2026 "
    "14:04:00 +0000 (Europe/London); send it again after then, or from England's "
    "registered address."
)


def test_five_wrong_passwords_lock_the_power_for_an_hour(game: tuple[App, Table]) -> None:
    app, table = game
    assert SIGNON_MAX_FAILURES == 5
    for minute in range(4):
        table.send("guesser@example.net", f"SIGNON Etest01 guess{minute}\n",
                   f"2026-11-23 13:0{minute}")  # fmt: skip
        rows = table.new_mail()
        assert mail(rows) == [("guesser@example.net", "reply", "[Error Flag] Re: orders")]
        assert "Wrong password for England in test01" in rows[0].body
    # The fifth wrong password locks England's sign-ons from other addresses: the game
    # master and England's registered address are told, once.
    table.send("guesser@example.net", "SIGNON Etest01 guess4\n", "2026-11-23 13:04")
    rows = table.new_mail()
    assert mail(rows) == [
        ("gm@example.org", "notice", "Diplomacy game test01: sign-ons as England locked"),
        ("england@example.org", "notice", "Diplomacy game test01: sign-ons as England locked"),
        ("guesser@example.net", "reply", "[Error Flag] Re: orders"),
    ]
    told = (
        "5 wrong passwords for England were sent within an hour, the last from "
        "guesser@example.net: sign-ons as England from any address but its registered one "
        "(england@example.org) are refused, without looking at the password, until Mon Nov "
        "23 2026 14:04:00 +0000 (Europe/London)."
    )
    for row in rows[:2]:
        assert told in " ".join(row.body.split()), row.body
    # While locked, the right password is refused unchecked, in the very words a wrong one
    # gets: the guesser learns nothing, and the judge hashes nothing.
    table.send("guesser@example.net", "SIGNON Etest01 pw-eng\nF Lon-NTH\n", "2026-11-23 13:05")
    right = table.new_mail()
    table.send("guesser@example.net", "SIGNON Etest01 guess5\nF Lon-NTH\n", "2026-11-23 13:06")
    wrong = table.new_mail()
    refused = [("guesser@example.net", "reply", "[Error Flag] Re: orders")]
    assert mail(right) == mail(wrong) == refused
    assert right[0].body == wrong[0].body
    assert right[0].body.startswith(LOCKED_ENGLAND), right[0].body
    assert active_orders(app, "England") == []
    # The player at the registered address is not locked out by a stranger's guesses.
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-NTH\n", "2026-11-23 13:07")
    assert mail(table.new_mail()) == [("england@example.org", "confirm", "Re: orders")]
    assert active_orders(app, "England") == ["F lon-nth"]
    # After the lockout, sign-ons from elsewhere are checked again.
    table.send("guesser@example.net", "SIGNON Etest01 pw-eng\nF Lon-ENG\n", "2026-11-23 14:05")
    assert [r.to_addr for r in table.new_mail()] == ["guesser@example.net", "england@example.org"]
    assert active_orders(app, "England") == ["F lon-eng"]


def test_guesses_from_the_registered_address_lock_only_that_address(
    game: tuple[App, Table],
) -> None:
    # Someone forging England's address can lock it, for an hour at a time (and England
    # and the game master hear of it); sign-ons from anywhere else still work.
    app, table = game
    for minute in range(SIGNON_MAX_FAILURES):
        table.send("england@example.org", f"SIGNON Etest01 guess{minute}\n",
                   f"2026-11-23 13:0{minute}")  # fmt: skip
    notices = [r for r in table.new_mail() if r.kind == "notice"]
    assert [r.to_addr for r in notices] == ["gm@example.org", "england@example.org"]
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-NTH\n", "2026-11-23 13:10")
    body = table.new_mail()[0].body
    assert body.startswith(
        "> SIGNON Etest01 ******\n"
        "Not checked: after 5 wrong passwords for England in test01 within an hour from its "
        "registered address, sign-ons as England from that address are refused until Mon "
        "Nov 23 2026 14:04:00 +0000 (Europe/London); send it again after then."
    ), body
    table.send("traveller@example.net", "SIGNON Etest01 pw-eng\nF Lon-NTH\n", "2026-11-23 13:11")
    assert active_orders(app, "England") == ["F lon-nth"]
    table.new_mail()
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-ENG\n", "2026-11-23 14:04")
    assert active_orders(app, "England") == ["F lon-eng"]


def test_failures_older_than_the_window_are_forgotten(game: tuple[App, Table]) -> None:
    app, table = game
    for hour in range(10, 20, 2):  # five failures, two hours apart
        table.send("guesser@example.net", "SIGNON Etest01 guess\n", f"2026-11-24 {hour}:00")
    assert [r.kind for r in table.new_mail()] == ["reply"] * 5
    table.send("guesser@example.net", "SIGNON Etest01 pw-eng\nF Lon-NTH\n", "2026-11-24 19:00")
    assert active_orders(app, "England") == ["F lon-nth"]


def test_the_game_master_sign_on_is_locked_too(game: tuple[App, Table]) -> None:
    _app, table = game
    for minute in range(SIGNON_MAX_FAILURES):
        table.send("someone@example.net", f"SIGNON Mtest01 guess{minute}\n",
                   f"2026-11-23 13:0{minute}")  # fmt: skip
    notices = [r for r in table.new_mail() if r.kind == "notice"]
    assert [(r.to_addr, r.subject) for r in notices] == [
        ("gm@example.org", "Diplomacy game test01: sign-ons as game master locked")
    ]
    table.send("someone@example.net", "SIGNON Mtest01 gm-secret\nPAUSE\n", "2026-11-23 13:10")
    body = table.new_mail()[0].body
    assert body.startswith(
        "> SIGNON Mtest01 *********\n"
        "Not checked: after 5 wrong passwords for the game master of test01 within an hour, "
        "sign-ons as game master from any address but its registered one are refused until "
        "Mon Nov 23 2026 14:04:00 +0000 (Europe/London); send it again after then, or from "
        "the game master's registered address."
    ), body
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nPAUSE\n", "2026-11-23 13:11")
    assert "Game test01 paused." in table.new_mail()[-1].body  # after the news of the pause


def test_a_reply_never_shows_a_password(game: tuple[App, Table]) -> None:
    # The rejected lines are quoted with the password masked: a near miss mailed back
    # (and kept in the outbox) would give most of the right one away.
    _app, table = game
    table.send(
        "stranger@example.net",
        "SIGNON Etest01 pw-enh\nSIGNON F test01 paris-123\nSIGNON england@test01 pw-eng x\n",
        "2026-11-23 13:00",
    )
    body = table.new_mail()[0].body
    assert "pw-en" not in body and "paris" not in body
    assert "> SIGNON Etest01 ******\nWrong password for England" in body
    assert "> SIGNON F test01 *********\nNot checked" in body
    assert "> SIGNON england@test01 ****** *\nSIGNON takes three things" in body


def test_set_password_wants_a_long_enough_password(game: tuple[App, Table]) -> None:
    app, table = game
    assert MIN_PASSWORD_LENGTH == 8
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET PASSWORD 1234567\n",
               "2026-11-23 13:00")  # fmt: skip
    rows = table.new_mail()
    assert rows[0].subject.startswith("[Error Flag]")
    assert (
        "  SET PASSWORD *******\n"
        "    -> a password needs at least 8 characters (this one has 7): choose a longer one, "
        "e.g. four words joined by dashes\n"
    ) in rows[0].body
    assert "1234567" not in rows[0].body
    assert MAX_PASSWORD_LENGTH == MAX_WORD == 64
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET PASSWORD " + "x" * 65 + "\n",
               "2026-11-23 13:01")  # fmt: skip
    body = table.new_mail()[0].body
    assert (
        "word 3 of this line is 65 characters long; no command word, name or password is "
        "longer than 64 characters"
    ) in " ".join(body.split()), body
    assert "x" * 9 not in body
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET PASSWORD 12345678\n",
               "2026-11-23 13:02")  # fmt: skip
    assert "Password changed." in table.new_mail()[0].body
    table.send("england@example.org", "SIGNON Etest01 12345678\nF Lon-NTH\n", "2026-11-23 13:03")
    assert active_orders(app, "England") == ["F lon-nth"]


def test_the_judge_s_own_passwords_are_strong() -> None:
    # 10 characters from 31 (no 0/o, 1/l/i): about 49.5 bits, far beyond guessing at a
    # few tries an hour, and beyond the MIN_PASSWORD_LENGTH players must keep to.
    assert len(set(PASSWORD_ALPHABET)) == len(PASSWORD_ALPHABET) == 31
    assert generated_password_bits() == pytest.approx(10 * math.log2(31))
    assert generated_password_bits() > 48
    made = {new_password() for _ in range(200)}
    assert len(made) == 200
    for password in made:
        assert len(password) == GENERATED_PASSWORD_LENGTH >= MIN_PASSWORD_LENGTH
        assert set(password) <= set(PASSWORD_ALPHABET)


def test_copies_to_a_registered_address_are_rationed(game: tuple[App, Table]) -> None:
    # Issue 11 item 5: 60 sign-ons from elsewhere sent 60 copies to England.  Now at most
    # MAX_COPIES_PER_HOUR an hour, then one notice that further copies are held back.
    app, table = game
    assert MAX_COPIES_PER_HOUR == 5
    for minute in range(8):
        table.send("away@example.net", "SIGNON Etest01 pw-eng\nF Lon-NTH\n",
                   f"2026-11-23 13:{minute:02}")  # fmt: skip
    rows = table.new_mail()
    copies = [r for r in rows if r.to_addr == "england@example.org"]
    assert [r.kind for r in copies] == ["copy"] * 5 + ["copy-held"]
    assert all("This is a copy" in r.body for r in copies[:5])
    assert copies[5].subject == "Diplomacy game test01: copies held back"
    assert (
        "5 copies of mail signed on as England from other addresses were sent to you in the "
        "last hour; the judge holds back further copies until Mon Nov 23 2026 14:00:00 +0000 "
        "(Europe/London)."
    ) in " ".join(copies[5].body.split())
    # The sender is answered every time; copies do not use up England's own ration.
    assert [r.to_addr for r in rows if r.kind == "confirm"] == ["away@example.net"] * 8
    table.send("england@example.org", "SIGNON Etest01 pw-eng\n", "2026-11-23 13:30")
    assert [r.kind for r in table.new_mail()] == ["confirm"]
    # An hour after the first copy, copies flow again (one slot a minute here).
    table.send("away@example.net", "SIGNON Etest01 pw-eng\nF Lon-ENG\n", "2026-11-23 14:01")
    assert [(r.to_addr, r.kind) for r in table.new_mail()] == [
        ("away@example.net", "confirm"),
        ("england@example.org", "copy"),
    ]
    assert active_orders(app, "England") == ["F lon-eng"]
