"""Mail from real mail programs, end to end: which orders are read, and what the reply
says was not read (issue 10, "Orders nobody gave")."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from support import DATA
from support.servicekit import Table, started_game

from judge.db.models import OrderRecord, Player
from judge.runtime.bootstrap import App

MAIL = DATA / "mail"
WHEN = "2026-11-23 13:00"


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    return started_game(tmp_path)


def active_orders(app: App, power: str) -> list[str]:
    """The active orders of ``power``, oldest first."""
    with app.sessions() as session:
        player = session.scalars(select(Player).where(Player.power == power)).one()
        return [
            str(o)
            for o in session.scalars(
                select(OrderRecord.canonical)
                .where(OrderRecord.player_id == player.id, OrderRecord.active.is_(True))
                .order_by(OrderRecord.id)
            )
        ]


def inject(table: Table, name: str) -> None:
    assert table.inject((MAIL / name).read_bytes(), WHEN) == "done"


def test_outlook_spanish_reply_reads_no_quoted_result(game: tuple[App, Table]) -> None:
    app, table = game
    inject(table, "outlook_es_reply.eml")
    # The quoted "France: Army Marseilles HOLD." did not replace the support.
    assert active_orders(app, "France") == ["A par-bur", "A mar S A par-bur"]
    table.check("mail_outlook_es_reply")


def test_outlook_polish_html_reply_reads_no_quoted_result(game: tuple[App, Table]) -> None:
    app, table = game
    inject(table, "outlook_pl_html_only.eml")
    assert active_orders(app, "Russia") == ["A mos-ukr", "F sev-bla"]


def test_yahoo_message_is_read_line_by_line(game: tuple[App, Table]) -> None:
    app, table = game
    inject(table, "yahoo_run_together.eml")
    assert active_orders(app, "Germany") == ["A ber-kie", "A mun-ruh", "F kie-den"]


def test_pgp_signed_orders_are_read_without_the_armour(game: tuple[App, Table]) -> None:
    app, table = game
    inject(table, "thunderbird_pgp_signed.eml")
    assert active_orders(app, "England") == ["F lon-nth", "F edi-nwg", "A lvp-yor"]
    table.check("mail_pgp_signed")


def test_orders_typed_as_a_list_are_read(game: tuple[App, Table]) -> None:
    app, table = game
    inject(table, "outlook_bulleted_list.eml")
    assert active_orders(app, "Turkey") == ["F ank-bla", "A con-bul", "A smy H"]


def test_encrypted_message_is_answered_with_the_reason(game: tuple[App, Table]) -> None:
    _app, table = game
    inject(table, "smime_encrypted.eml")
    table.check("mail_smime_encrypted")


def test_attachment_only_is_answered_with_the_reason(game: tuple[App, Table]) -> None:
    _app, table = game
    inject(table, "outlook_attachment_only.eml")
    table.check("mail_attachment_only")


def test_orders_in_the_subject_only(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("france@example.org", "\n", WHEN, subject="SIGNON Ftest01 paris-123 A Par-Bur")
    assert active_orders(app, "France") == []
    table.check("mail_subject_only")


def test_forward_of_own_orders_is_not_read_and_said_so(game: tuple[App, Table]) -> None:
    app, table = game
    inject(table, "gmail_forward_own_orders.eml")
    assert active_orders(app, "France") == []
    table.check("mail_forward_own_orders")


def test_forward_after_orders_is_told_in_the_confirmation(game: tuple[App, Table]) -> None:
    app, table = game
    body = (
        "SIGNON Ftest01 paris-123\nA Par-Bur\n\n---------- Forwarded message ---------\n"
        "From: Germany <germany@example.org>\nSubject: deal\n\nA Mar-Bur\n"
    )
    table.send("france@example.org", body, WHEN)
    assert active_orders(app, "France") == ["A par-bur"]
    table.check("mail_forward_after_orders")


def test_quote_only_reply_says_what_was_left_out(game: tuple[App, Table]) -> None:
    _app, table = game
    body = (
        "\nOn Mon, 23 Nov 2026 at 12:00, TESTJUDGE <judge@example.org> wrote:\n"
        "> France: Army Paris HOLD.\n> France: Army Marseilles HOLD.\n-- \nAnn\n"
    )
    table.send("france@example.org", body, WHEN, subject="Re: Diplomacy game test01")
    table.check("mail_quote_only")


def test_a_word_of_thanks_above_a_quote_is_no_command_either(game: tuple[App, Table]) -> None:
    # "Thanks!" is read but is no command or order: the reply still says that nothing
    # was found and what was left out (the quote), not only "these lines were not read".
    _app, table = game
    body = (
        "Thanks!\n\nOn Mon, 23 Nov 2026 at 12:00, TESTJUDGE <judge@example.org> wrote:\n"
        "> France: Army Paris HOLD.\n> France: Army Marseilles HOLD.\n"
    )
    table.send("france@example.org", body, WHEN, subject="Re: Diplomacy game test01")
    table.check("mail_thanks_above_quote")


def test_apple_mail_orders_after_a_picture_are_read(game: tuple[App, Table]) -> None:
    app, table = game
    inject(table, "apple_mail_text_after_picture.eml")
    # The orders after the picture (a second text/plain part) are the player's too.
    assert active_orders(app, "France") == ["A par-bur", "A mar S A par-bur", "F bre-mao"]
    table.check("mail_apple_text_after_picture")


def test_iphone_html_orders_after_a_picture_are_read(game: tuple[App, Table]) -> None:
    app, table = game
    inject(table, "apple_ios_html_after_picture.eml")
    assert active_orders(app, "France") == ["A par-bur", "A mar S A par-bur", "F bre-mao"]


@pytest.mark.parametrize(
    ("name", "power", "orders"),
    [
        ("gmail_web_reply.eml", "England", ["F lon-nth", "F edi-nwg", "A lvp-yor"]),
        ("gmail_android.eml", "Italy", ["A ven-tyr", "A rom-apu", "F nap-ion"]),
        ("thunderbird_flowed.eml", "Germany", ["A ber-kie", "A mun-ruh", "F kie-den"]),
        ("apple_ios_reply.eml", "Austria", ["A vie-gal", "A bud-ser", "F tri-alb"]),
        ("outlook365_tr_html_list.eml", "Turkey", ["F ank-bla", "A con-bul", "A smy-arm"]),
    ],
)
def test_replies_from_real_mail_programs(
    game: tuple[App, Table], name: str, power: str, orders: list[str]
) -> None:
    # Each quotes the results ("<Power>: Army ... HOLD."), which must not replace an order,
    # and signs with a name and a place without "-- ".
    app, table = game
    inject(table, name)
    assert active_orders(app, power) == orders
    table.check("mail_" + name.removesuffix(".eml"))


def test_a_signature_line_of_places_is_listed_whole(game: tuple[App, Table]) -> None:
    app, table = game
    body = "SIGNON Ttest01 pw-tur\nF Ank-Bla\n\nMehmet\nAnkara, Turkey\n"
    table.send("turkey@example.org", body, WHEN)
    assert active_orders(app, "Turkey") == ["F ank-bla"]
    (reply,) = table.new_mail()
    assert (
        "These lines were not read as orders or commands:\n\n  Mehmet\n  Ankara, Turkey\n\n"
        in reply.body
    )
