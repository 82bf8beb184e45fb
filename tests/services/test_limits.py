"""The bounds on what one message can make the judge read (issue 11, items 1, 2 and 9).

Each limit is a named constant; a message beyond it is read up to the limit and the rest
is named in words for the reply, never searched, parsed or echoed whole.
"""

from __future__ import annotations

import time

from judge.commands import MAX_COMMANDS, MAX_WORD, UNREAD, parse_commands
from judge.engine.board import standard_map
from judge.engine.notation import MAX_ORDERS, MAX_WORD_LENGTH, parse_orders
from judge.mail.decode import (
    MAX_BODY_LINES,
    MAX_HEADER_BYTES,
    MAX_HEADER_FIELD_BYTES,
    MAX_LINE_CHARS,
    MAX_MULTIPARTS,
    MAX_PARTS,
    decode,
    header_block,
    read_body,
)
from judge.mail.rules import refuse_reason


def _mail(headers: bytes, body: bytes = b"A Par H\r\n") -> bytes:
    return headers + b"\r\n" + body


# -- headers ---------------------------------------------------------------------------


def test_a_long_from_header_is_not_parsed() -> None:
    # A From of 600 kB of words took about 366 s (the header parser is quadratic on it);
    # 200 kB takes seconds.  Now it is left out unread, and the reply's note says so.
    words = b"word " * 40000
    start = time.perf_counter()
    mail = decode(_mail(b"From: " + words + b"<ann@example.org>\r\nSubject: orders\r\n"))
    assert time.perf_counter() - start < 1.0
    assert (mail.sender, mail.from_addr, mail.subject, mail.text) == ("", "", "orders", "A Par H\n")
    size = len(b"From: " + words + b"<ann@example.org>\r\n")
    assert mail.sender_problem == (
        f"the From header is {size:,} bytes long; at most {MAX_HEADER_FIELD_BYTES:,} bytes "
        "of a header field are read"
    )
    assert mail.unread_parts == (
        f"the From header ({size:,} bytes): at most {MAX_HEADER_FIELD_BYTES:,} bytes of a "
        "header field are read",
    )


def test_a_long_header_field_is_left_out_and_the_rest_read() -> None:
    raw = _mail(
        b"From: Ann <ann@example.org>\r\nX-Junk: " + b"a" * MAX_HEADER_FIELD_BYTES + b"\r\n"
        b"Subject: orders\r\n"
    )
    mail = decode(raw)
    assert (mail.sender, mail.subject, mail.text) == ("ann@example.org", "orders", "A Par H\n")
    assert "x-junk" not in mail.headers
    assert mail.unread_parts[0].startswith("the X-Junk header (")
    # A field just at the limit is read.
    value = b"a" * (MAX_HEADER_FIELD_BYTES - len(b"X-Junk: \r\n"))
    mail = decode(_mail(b"From: ann@example.org\r\nX-Junk: " + value + b"\r\n"))
    assert mail.headers["x-junk"] == value.decode()
    assert mail.unread_parts == ()


def test_a_header_block_beyond_its_limit_is_not_read() -> None:
    # 300 KiB of small header fields: the fields past the first 256 KiB are not read, and
    # the body is not read either (such a message is nobody's orders).
    field = b"X-Pad: " + b"p" * 90 + b"\r\n"
    count = 300 * 1024 // len(field)
    head = b"From: ann@example.org\r\nMessage-ID: <m@x>\r\n"
    raw = _mail(head + field * count + b"Subject: late\r\n")
    mail = decode(raw)
    assert mail.sender == "ann@example.org"
    assert mail.subject == ""  # it came after the limit
    assert mail.text == ""
    kept = (MAX_HEADER_BYTES - len(head)) // len(field)
    assert len(mail.header_list) == 2 + kept
    assert mail.unread_parts == (
        f"the header beyond its first {MAX_HEADER_BYTES:,} bytes "
        f"({len(raw) - len(head) - kept * len(field):,} bytes) and the body: a header "
        f"longer than {MAX_HEADER_BYTES:,} bytes is not read further",
    )
    # Storing reads the same header as processing.
    stored = decode(header_block(raw))
    assert (stored.sender, stored.message_id, stored.header_list) == (
        mail.sender,
        mail.message_id,
        mail.header_list,
    )


def test_header_block_is_the_capped_header() -> None:
    raw = _mail(b"From: ann@example.org\r\nSubject: x\r\n", b"body\r\n")
    assert header_block(raw) == b"From: ann@example.org\r\nSubject: x\r\n\r\n"
    assert header_block(header_block(raw)) == header_block(raw)


# -- MIME ------------------------------------------------------------------------------


def _nested(depth: int) -> bytes:
    head = b"".join(
        b"Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (i, i)
        for i in range(depth)
    )
    return b"From: ann@example.org\r\n" + head + b"Content-Type: text/plain\r\n\r\nA Par H\r\n"


def test_deep_mime_nesting_is_not_parsed() -> None:
    mail = decode(_nested(MAX_MULTIPARTS))
    assert mail.text == "A Par H"
    start = time.perf_counter()
    mail = decode(_nested(5000))
    assert time.perf_counter() - start < 1.0
    assert (mail.sender, mail.text) == ("ann@example.org", "")
    assert mail.unread_parts == (
        f"the body: it has 5,000 multipart parts, more than the {MAX_MULTIPARTS} this judge "
        "reads; please send your commands as plain text",
    )


def test_many_text_parts_are_read_up_to_the_limit() -> None:
    parts = b"".join(
        b"--b\r\nContent-Type: text/plain\r\n\r\nline %d\r\n" % i for i in range(MAX_PARTS + 5)
    )
    raw = b"From: ann@example.org\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
    mail = decode(raw + parts + b"--b--\r\n")
    assert mail.text.splitlines() == [f"line {i}" for i in range(MAX_PARTS)]
    assert mail.unread_parts[0] == (
        f"5 further text parts: at most {MAX_PARTS} parts of a message are read"
    )


# -- addresses -------------------------------------------------------------------------


def test_the_sender_is_a_well_formed_address_or_none() -> None:
    cases = {
        # A display name holding an address never gives the address.
        b'"bob@evil.org" <victim@x.org>': "victim@x.org",
        b"=?utf-8?q?Bob_bob=40evil.org?= <victim@x.org>": "victim@x.org",
        b"bob@evil.org <victim@x.org>": "",
        b"Name bob@evil.org": "",
        b"=?utf-8?q?bob=40evil.org?=": "",
        # A NUL or another control byte never cuts the address into a fragment.
        b"victim@x.org\x00@evil.org": "",
        b"vic\x00tim@x.org": "",
        b"a\x01b@example.org": "",
        # Unbalanced quotes or angle brackets.
        b'"a@b.org <c@d.org>': "",
        b"<a@b.org": "",
        b"Ann <a@b.org": "",
        b"a@b.org>": "",
        b"a@b@c.org": "",
        b"a@b.org;c@d.org": "",
        # Several addresses: the first (as before).
        b"a@b.org, c@d.org": "a@b.org",
        b"Ann <a@b.org>, Bob <c@d.org>": "a@b.org",
        # Comments are not addresses.
        b"(comment a@b.org) c@d.org": "c@d.org",
        b"c@d.org (Ann a@b.org)": "c@d.org",
    }
    for value, expected in cases.items():
        mail = decode(_mail(b"From: " + value + b"\r\nSubject: x\r\n"))
        assert mail.sender == expected, value
        if not expected:
            assert mail.sender_problem.startswith("the From header "), value
            assert "holds no well-formed address" in mail.sender_problem, value


def test_a_malformed_reply_to_falls_back_to_from() -> None:
    raw = _mail(b"From: ann@example.org\r\nReply-To: bob\x00@evil.org\r\n")
    assert decode(raw).sender == "ann@example.org"
    raw = _mail(b"From: ann@example.org\r\nReply-To: Bob <bob@example.org>\r\n")
    assert decode(raw).sender == "bob@example.org"


# -- body ------------------------------------------------------------------------------


def test_body_lines_beyond_the_limit_are_not_read() -> None:
    text = "\n".join(f"A Par H {i}" for i in range(MAX_BODY_LINES + 50))
    body = read_body(text)
    assert len(body.lines) == MAX_BODY_LINES
    assert len(body.left_out) == 50
    assert body.not_read == (
        f"the 50 lines from line {MAX_BODY_LINES + 1:,} on: at most {MAX_BODY_LINES:,} "
        "lines of a message are read; send the rest in another message",
    )


def test_long_lines_are_not_read() -> None:
    long = "A Par-Bur " + "x" * MAX_LINE_CHARS
    body = read_body(f"A Mar H\n{long}\n{long}\nF Bre H")
    assert body.lines == ("A Mar H", "F Bre H")
    assert body.left_out == (long, long)
    assert body.not_read == (
        f"2 lines longer than {MAX_LINE_CHARS:,} characters, the first at line 2 "
        f"('{'A Par-Bur ' + 'x' * 47}...'): such lines are not read",
    )


# -- commands and orders ---------------------------------------------------------------


def test_commands_beyond_the_limit_are_not_read() -> None:
    lines = [f"A Par H {i}" for i in range(MAX_COMMANDS + 30)]
    commands, _after = parse_commands(lines)
    assert len(commands) == MAX_COMMANDS + 1
    last = commands[-1]
    assert (last.name, last.number, last.line) == (UNREAD, MAX_COMMANDS + 1, lines[MAX_COMMANDS])
    assert last.error == (
        f"line {MAX_COMMANDS + 1} and the 29 lines after it: at most {MAX_COMMANDS} commands "
        "and order lines are read from one message; send the rest in another message"
    )


def test_a_command_with_a_word_too_long_is_refused_as_such() -> None:
    word = "F" + "x" * 100000
    start = time.perf_counter()
    commands, _after = parse_commands([f"SIGNON {word} secret"])
    assert time.perf_counter() - start < 0.5
    assert [(c.name, c.error) for c in commands] == [
        (
            "UNKNOWN",
            f"word 2 of this line is 100,001 characters long; no command word, name or "
            f"password is longer than {MAX_WORD} characters",
        )
    ]


def test_a_password_too_long_is_never_quoted_back() -> None:
    # The refused line is quoted with its password masked; the reason must not quote the
    # password itself either.
    secret = "s3cret-" * 20
    commands, _after = parse_commands([f"SET PASSWORD {secret}", f"SIGNON Etest01 {secret}"])
    assert [(c.name, c.error) for c in commands] == [
        (
            "UNKNOWN",
            f"word 3 of this line is {len(secret)} characters long; no command word, name or "
            f"password is longer than {MAX_WORD} characters",
        )
    ] * 2
    assert all("s3cret" not in str(c.error) for c in commands)


def test_an_order_word_too_long_is_refused_as_such() -> None:
    game_map = standard_map()
    for text in ("A " + "q" * 100000, "A Par-" + "q" * 100000, "A Par S A " + "q" * 100000 + " H"):
        start = time.perf_counter()
        [piece] = parse_orders(text, game_map)
        assert time.perf_counter() - start < 0.5
        assert str(piece.error) == (
            f"'{text[:57]}...': the word '{'q' * 57}...' "
            f"is 100,000 letters long; no name or order word is longer than "
            f"{MAX_WORD_LENGTH} letters (is a space missing?)"
        )


def test_an_unknown_name_of_many_words_is_quoted_short() -> None:
    [piece] = parse_orders("A " + "qq " * 10000, standard_map())
    assert str(piece.error) == (
        f"'A {'qq ' * 18}q...': '{'qq ' * 19}...' is not a province name on this map"
    )


def test_orders_beyond_the_limit_of_one_text_are_not_read() -> None:
    # A 10,000-character line of "A Par, " took 0.12 s: 200 such lines, 24 s.
    text = "A Par H, " * (MAX_ORDERS + 1000)
    start = time.perf_counter()
    pieces = parse_orders(text, standard_map())
    assert time.perf_counter() - start < 0.5
    assert len(pieces) == MAX_ORDERS + 1
    assert all(piece.order is not None for piece in pieces[:MAX_ORDERS])
    assert str(pieces[-1].error) == (
        f"'A Par H': this order and the rest of the text after it were not read: at most "
        f"{MAX_ORDERS} orders are read at once"
    )


def test_a_malformed_from_is_ignored_with_its_reason() -> None:
    mail = decode(_mail(b"From: victim@x.org\x00@evil.org\r\nSubject: x\r\n"))
    reason = refuse_reason(
        mail, 100, own_addresses={"judge@example.org"}, loop_tag="judge@example.org", max_size=10**6
    )
    assert reason == (
        "no sender: the From header 'victim@x.org @evil.org' holds no well-formed address"
    )
    mail = decode(_mail(b"From: " + b"word " * 4000 + b"\r\n"))
    reason = refuse_reason(
        mail, 100, own_addresses={"judge@example.org"}, loop_tag="judge@example.org", max_size=10**6
    )
    assert reason == (
        "no sender: the From header is 20,008 bytes long; at most 16,384 bytes of a header "
        "field are read"
    )
