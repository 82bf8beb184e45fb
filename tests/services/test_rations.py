"""The reply rations (issue 11, items 4 and 5): what strangers can fill, and what they cannot.

Three rations, each counted per address over the last hour (see docs/mail.md):
replies to mail that did not sign on (``replies_per_hour``), the tighter one for mail
that may be a robot's (nothing read, too large, or an answer to the judge's own mail:
``loop_replies_per_hour``), and replies to signed-on mail (``signed_replies_per_hour``),
which no stranger can fill.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from sqlalchemy import select
from support.servicekit import started_game

from judge.db.models import InboundMessage, OrderRecord
from judge.runtime.bootstrap import App

ENGLAND = "england@example.org"


def reasons(app: App) -> list[str | None]:
    with app.sessions() as session:
        return list(session.scalars(select(InboundMessage.reason).order_by(InboundMessage.id)))


def minute(n: int) -> str:
    """A time of 2026-11-23, ``n`` minutes after 13:00 (n < 60)."""
    return f"2026-11-23 13:{n:02d}"


def test_forged_help_mails_cannot_silence_a_signed_player(tmp_path: Path) -> None:
    # The exact report: thirty HELP mails with a forged From: england@... spend the
    # ration of replies to that address; England's real, signed orders come next.
    app, table = started_game(tmp_path)
    assert app.judge.settings.replies_per_hour == 30
    for n in range(31):
        table.send(ENGLAND, "HELP\n", minute(n))
    helps = table.new_mail()
    assert [(m.to_addr, m.kind) for m in helps] == [(ENGLAND, "reply")] * 30
    assert reasons(app)[-1] == "rate limit: more than 30 replies an hour"
    table.send(ENGLAND, "SIGNON Etest01 pw-eng\nF Lon-NTH\n", minute(40))
    (confirm,) = table.new_mail()
    assert (confirm.to_addr, confirm.kind) == (ENGLAND, "confirm")
    assert "England: Fleet London -> North Sea." in confirm.body
    assert reasons(app)[-1] is None
    # The stranger's ration is still spent.
    table.send(ENGLAND, "HELP\n", minute(41))
    assert table.new_mail() == []


def test_signed_replies_have_a_ration_of_their_own(tmp_path: Path) -> None:
    # Against a stolen password (or a program resending a signed message): a bound per
    # address on replies to signed-on mail, which unsigned mail does not touch.
    app, table = started_game(tmp_path)
    app.judge.settings = dataclasses.replace(
        app.judge.settings, signed_replies_per_hour=3, replies_per_hour=2
    )
    orders = ["F Lon-NTH", "F Lon-ENG", "F Lon-NTH", "F Lon-ENG"]
    for n, order in enumerate(orders):
        table.send(ENGLAND, f"SIGNON Etest01 pw-eng\n{order}\n", minute(n))
    assert [m.kind for m in table.new_mail()] == ["confirm"] * 3
    assert reasons(app)[-4:] == [
        None,
        None,
        None,
        "rate limit: more than 3 replies an hour to signed-on mail",
    ]
    # The last order was stored all the same.
    with app.sessions() as session:
        active = session.scalars(
            select(OrderRecord.canonical).where(OrderRecord.active.is_(True))
        ).all()
    assert active == ["F lon-eng"]
    # Unsigned mail from the same address is answered under its own ration.
    table.send(ENGLAND, "HELP\n", minute(10))
    assert [m.kind for m in table.new_mail()] == ["reply"]
    # An hour after the first, signed mail is answered again.
    table.send(ENGLAND, "SIGNON Etest01 pw-eng\nF Lon-NTH\n", "2026-11-23 14:01")
    assert [m.kind for m in table.new_mail()] == ["confirm"]


def test_the_game_master_is_answered_under_the_signed_ration(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    app.judge.settings = dataclasses.replace(app.judge.settings, replies_per_hour=1)
    table.send("gm@example.org", "HELP\n", minute(0))
    table.send("gm@example.org", "HELP\n", minute(1))
    assert [m.kind for m in table.new_mail()] == ["reply"]
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nPAUSE\n", minute(2))
    # The news of the pause (kind "deadline") goes to everyone, the game master too.
    (answer,) = [m for m in table.new_mail() if m.kind != "deadline"]
    assert (answer.kind, answer.to_addr) == ("reply-signed", "gm@example.org")
    assert "Game test01 paused." in answer.body


def test_too_large_refusals_are_rationed(tmp_path: Path) -> None:
    # Item 5: sixty oversized mails were answered sixty times.
    app, table = started_game(tmp_path)
    app.judge.settings = dataclasses.replace(app.judge.settings, max_message_bytes=2000)
    assert app.judge.settings.loop_replies_per_hour == 3
    for n in range(60):
        table.send("big@example.net", "x" * 5000 + "\n", minute(n))
    refusals = table.new_mail()
    assert [m.kind for m in refusals] == ["refusal"] * 3
    assert "is larger than this judge reads (2,000 bytes)" in refusals[0].body
    found = [str(r) for r in reasons(app)]
    assert len(found) == 60 and all(r.startswith("too large: ") for r in found)
    assert [r.split("limit 2000", 1)[1] for r in found] == [""] * 3 + [
        "; not answered: rate limit: more than 3 replies an hour to mail that carried out "
        "no command, was too large or answered the judge's own mail"
    ] * 57


def test_mail_with_nothing_to_read_is_answered_three_times_an_hour(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    for n in range(5):
        table.send("someone@example.net", "hello there\n", minute(n))
    replies = table.new_mail()
    assert [m.kind for m in replies] == ["reply-loop"] * 3
    assert replies[0].body.startswith("This judge found no commands or orders in your message.")
    assert reasons(app)[-1] == (
        "rate limit: more than 3 replies an hour to mail that carried out no command, was "
        "too large or answered the judge's own mail"
    )
    # A command is still answered: the wider ration is not spent.
    table.send("someone@example.net", "LIST\n", minute(6))
    assert [m.kind for m in table.new_mail()] == ["reply"]


def test_an_unsigned_answer_to_the_judges_own_mail_is_rationed_tighter(tmp_path: Path) -> None:
    # A robot that answers everything, behind a relay that strips the auto-reply headers,
    # still names the judge's mail in In-Reply-To.
    _app, table = started_game(tmp_path)
    table.send("robot@example.net", "LIST\n", minute(0))
    (first,) = table.new_mail()
    for n in range(1, 6):
        raw = (
            "From: robot@example.net\r\nTo: judge@example.org\r\nSubject: Re: orders\r\n"
            f"Message-ID: <r{n}@example.net>\r\nIn-Reply-To: {first.message_id}\r\n"
            f"References: {first.message_id}\r\n\r\nLIST\r\n"
        ).encode()
        table.inject(raw, minute(n))
    assert [m.kind for m in table.new_mail()] == ["reply-loop"] * 3
    # Mail answering somebody else's message is not.
    raw = (
        b"From: robot@example.net\r\nTo: judge@example.org\r\nSubject: Re: orders\r\n"
        b"Message-ID: <r9@example.net>\r\nIn-Reply-To: <x@elsewhere.example>\r\n\r\nLIST\r\n"
    )
    table.inject(raw, minute(9))
    assert [m.kind for m in table.new_mail()] == ["reply"]


def test_a_signed_player_replying_to_the_judge_is_not_rationed_as_a_robot(
    tmp_path: Path,
) -> None:
    _app, table = started_game(tmp_path)
    table.send(ENGLAND, "SIGNON Etest01 pw-eng\nF Lon-NTH\n", minute(0))
    (first,) = table.new_mail()
    for n in range(1, 6):
        raw = (
            f"From: {ENGLAND}\r\nTo: judge@example.org\r\nSubject: Re: orders\r\n"
            f"Message-ID: <e{n}@example.org>\r\nIn-Reply-To: {first.message_id}\r\n\r\n"
            "SIGNON Etest01 pw-eng\r\nF Lon-ENG\r\n"
        ).encode()
        table.inject(raw, minute(n))
    assert [m.kind for m in table.new_mail()] == ["confirm"] * 5
