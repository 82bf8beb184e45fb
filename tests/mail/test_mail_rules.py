"""The inbound rules: one test per rule with its exact reason, and a normal mail passing."""

from __future__ import annotations

from email.message import EmailMessage

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.mail.decode import IncomingMail, decode
from judge.mail.rules import (
    REPLY_REASONS,
    RULES,
    deserves_reply,
    first_match,
    reason_code,
    refuse_reason,
)

OWN = ("Diplomacy Judge <Judge@Example.org>", "judge-admin@example.org")
LOOP = "judge@example.org"
LIMIT = 100_000


def message(headers: dict[str, str] | None = None, body: str = "A Par-Bur\n") -> bytes:
    """A player's message with extra headers."""
    msg = EmailMessage()
    msg["From"] = "Ann <ann@example.net>"
    msg["To"] = "judge@example.org"
    msg["Subject"] = "orders"
    msg["Message-ID"] = "<m1@example.net>"
    for name, value in (headers or {}).items():
        del msg[name]
        msg[name] = value
    msg.set_content(body)
    return bytes(msg)


def reason(raw: bytes, size: int | None = None) -> str | None:
    return refuse_reason(
        decode(raw),
        len(raw) if size is None else size,
        own_addresses=OWN,
        loop_tag=LOOP,
        max_size=LIMIT,
    )


def test_normal_mail_passes() -> None:
    assert reason(message()) is None
    assert reason(message({"Auto-Submitted": "no", "Precedence": "first-class"})) is None
    assert reason(message({"X-Auto-Response-Suppress": "DR, RN"})) is None
    assert reason(message({"X-Loop": "someone-else@example.com"})) is None


def test_auto_submitted() -> None:
    raw = message({"Auto-Submitted": "auto-replied; owner-email=ann@example.net"})
    assert reason(raw) == "auto-submitted: Auto-Submitted auto-replied; owner-email=ann@example.net"
    assert reason(message({"Auto-Submitted": "Auto-Generated"})) == (
        "auto-submitted: Auto-Submitted Auto-Generated"
    )


def test_bounce_null_return_path() -> None:
    assert reason(b"Return-Path: <>\r\n" + message()) == "bounce: Return-Path <>"
    assert reason(b"Return-Path: < >\r\n" + message()) == "bounce: Return-Path <>"


def test_delivery_report() -> None:
    report = EmailMessage()
    report["From"] = "Mail Delivery <delivery@example.net>"
    report.set_content("Your message could not be delivered.")
    report.make_mixed()
    del report["Content-Type"]
    report["Content-Type"] = "multipart/report; report-type=delivery-status; boundary=x"
    assert reason(bytes(report)) == "report: Content-Type multipart/report"


def test_precedence() -> None:
    for value in ("bulk", "junk", "list", "auto_reply", "BULK"):
        assert reason(message({"Precedence": value})) == f"precedence: Precedence {value}"


def test_auto_reply_headers() -> None:
    assert reason(message({"X-Autoreply": "yes"})) == "auto-reply: X-Autoreply present"
    assert reason(message({"X-Autorespond": "x"})) == "auto-reply: X-Autorespond present"
    assert reason(message({"X-Failed-Recipients": "ann@example.net"})) == (
        "auto-reply: X-Failed-Recipients present"
    )


def test_auto_response_suppress() -> None:
    for value in ("All", "OOF", "AutoReply", "DR, OOF"):
        assert reason(message({"X-Auto-Response-Suppress": value})) == (
            f"auto-response-suppress: X-Auto-Response-Suppress {value}"
        )


def test_mailing_list() -> None:
    assert reason(message({"List-Id": "<players.example.net>"})) == "mailing list: List-Id present"
    assert reason(message({"List-Unsubscribe": "<mailto:x@example.net>"})) == (
        "mailing list: List-Unsubscribe present"
    )


def test_auto_reply_and_bounce_known_only_by_their_subject() -> None:
    # Issue 11 item 9: behind a relay that strips the auto-reply headers, the subject is
    # all that is left; two judges answered each other 58 times an hour.
    for subject in (
        "Out of Office: orders",
        "Automatic reply: Diplomacy game demo",
        "Autoreply: Re: orders",
        "Abwesenheitsnotiz: Re: Diplomacy results",
        "Automatische Antwort: orders",
        "Réponse automatique : orders",
        "Respuesta automática: orders",
        "Risposta automatica: orders",
        "Automatisch antwoord: orders",
        "Fuera de la oficina: orders",
        "Undelivered Mail Returned to Sender",
        "Delivery Status Notification (Failure)",
        "Mail delivery failed: returning message to sender",
        "Returned mail: see transcript for details",
        "Undeliverable: Re: orders",
        "Unzustellbar: orders",
        "Non remis : orders",
    ):
        assert reason(message({"Subject": subject})) == f"auto-reply subject: {subject}", subject
    # A player's own words that merely mention these are answered.
    for subject in (
        "orders (out of office next week)",
        "Re: automatic replies?",
        "Undo",
        "Absence: 20-27 December",
        "Auto: orders",
    ):
        assert reason(message({"Subject": subject})) is None, subject


def test_own_x_loop() -> None:
    assert reason(message({"X-Loop": "Judge@Example.org"})) == "loop: X-Loop Judge@Example.org"
    # Our tag below another system's: still found.
    raw = b"X-Loop: list@example.com\r\nX-Loop: judge@example.org\r\n" + message()
    assert reason(raw) == "loop: X-Loop judge@example.org"


def test_own_address() -> None:
    assert reason(message({"From": "The Judge <JUDGE@example.org>"})) == (
        "own address: From judge@example.org"
    )
    assert reason(message({"Reply-To": "judge-admin@example.org"})) == (
        "own address: sender judge-admin@example.org"
    )


def test_robot_sender() -> None:
    cases = {
        "MAILER-DAEMON@mx.example.net": "robot sender: From mailer-daemon@mx.example.net",
        "Mail System <postmaster@example.net>": "robot sender: From postmaster@example.net",
        "no-reply@example.net": "robot sender: From no-reply@example.net",
        "noreply+abc@github.example": "robot sender: From noreply+abc@github.example",
        "do_not_reply@bank.example": "robot sender: From do_not_reply@bank.example",
        "MAILER-DAEMON": "robot sender: From mailer-daemon",
    }
    for sender, expected in cases.items():
        assert reason(message({"From": sender})) == expected
    assert reason(message({"Reply-To": "noreply@example.net"})) == (
        "robot sender: sender noreply@example.net"
    )


def test_no_sender() -> None:
    raw = b"Subject: x\r\n\r\nA Par H\r\n"
    assert reason(raw) == "no sender: no From address"


def test_too_large_is_distinct_and_gets_a_reply() -> None:
    result = reason(message(), size=LIMIT + 1)
    assert result == f"too large: {LIMIT + 1} bytes, limit {LIMIT}"
    assert deserves_reply(result)
    assert reason_code(result) == "too large"


def test_silent_rules_win_over_too_large() -> None:
    result = reason(b"Return-Path: <>\r\n" + message(), size=LIMIT * 10)
    assert result == "bounce: Return-Path <>"
    assert not deserves_reply(result)


def test_only_too_large_gets_a_reply() -> None:
    assert {"too large"} == REPLY_REASONS
    assert not deserves_reply(None)
    assert not deserves_reply("bounce: Return-Path <>")
    assert [rule.name for rule in RULES][-1] == "too large"


def test_first_match_names_the_rule() -> None:
    found = first_match(
        decode(message({"Precedence": "junk"})),
        10,
        own_addresses=OWN,
        loop_tag=LOOP,
        max_size=LIMIT,
    )
    assert found is not None
    assert found[0].name == "precedence"
    assert found[1] == "Precedence junk"


def test_hand_built_mail_without_header_list() -> None:
    mail = IncomingMail(
        message_id="<x@y>",
        sender="ann@example.net",
        from_addr="ann@example.net",
        subject="",
        in_reply_to=None,
        references=(),
        text="",
        headers={"x-loop": "judge@example.org"},
    )
    assert refuse_reason(mail, 1, own_addresses=(), loop_tag=LOOP, max_size=10) == (
        "loop: X-Loop judge@example.org"
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400), st.integers(min_value=0, max_value=10**7))
def test_rules_never_raise(raw: bytes, size: int) -> None:
    result = reason(raw, size)
    assert result is None or reason_code(result) in {rule.name for rule in RULES}


def test_judge_reply() -> None:
    # A judge's automatic reply with its headers stripped by a relay: known by the first
    # line read (the njudge's and this judge's confirmation header, this judge's openings).
    for first in (
        ":: Judge: USEF  Game: winter01  Variant: Standard",
        "This judge found no commands or orders in your message.",
        "Send commands in the body of an email, one per line:",
        "Your message of 1,234,567 bytes is larger than this judge reads (1,000,000 bytes).",
    ):
        shown = first if len(first) <= 100 else first[:97] + "..."
        assert reason(message(body=f"\n{first}\nmore text\n")) == f"judge reply: {shown!r}", first
    assert not deserves_reply("judge reply: ':: Judge: X'")


def test_a_player_quoting_a_judge_reply_is_no_judge_reply() -> None:
    confirmation = ":: Judge: TESTJUDGE  Game: test01  Variant: Standard\n:: Deadline: S1901M\n"
    quoted = "".join(f"> {line}\n" for line in confirmation.splitlines())
    # Answered above the quote, below it (interleaved), or above Outlook's header block.
    assert reason(message(body=f"SIGNON Etest01 pw\nF Lon-NTH\n\n{quoted}")) is None
    assert reason(message(body=f"{quoted}\nSIGNON Etest01 pw\n")) is None
    outlook = (
        "SIGNON Etest01 pw\nF Lon-NTH\n\n-----Original Message-----\nFrom: judge@example.org\n"
        f"Sent: Monday\nTo: ann@example.net\nSubject: Re: orders\n\n{confirmation}"
    )
    assert reason(message(body=outlook)) is None
    # The mark counts at the start of the first line only.
    assert reason(message(body="Hello\n:: Judge: X\n")) is None
    assert (
        reason(message(body="I think this judge found no commands or orders in your message.\n"))
        is None
    )


def test_judge_reply_reads_only_the_top_of_a_long_body() -> None:
    # Forty lines at most: a mark further down, after a megabyte of blank lines, is not seen.
    assert reason(message(body="\n" * 39 + ":: Judge: X\n")) == "judge reply: ':: Judge: X'"
    assert reason(message(body="\n" * 40 + ":: Judge: X\n")) is None
    raw = message(body="\n" * 1_000_000 + ":: Judge: X\n")
    assert refuse_reason(decode(raw), 1, own_addresses=OWN, loop_tag=LOOP, max_size=10**9) is None
