"""Decoding incoming mail and separating what the player wrote from quotes and signatures."""

from __future__ import annotations

import base64
import hashlib
from email.message import EmailMessage

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import DATA

from judge.mail.decode import IncomingMail, decode, html_to_text, order_text, read_body

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def plain_message(body: str = "SIGNON Fwinter01 secret\nA Par-Bur\n") -> EmailMessage:
    """A typical player's message."""
    msg = EmailMessage()
    msg["From"] = "Ann Smith <Ann.Smith@Example.org>"
    msg["To"] = "judge@example.org"
    msg["Subject"] = "Orders"
    msg["Message-ID"] = "<abc123@mail.example.org>"
    msg.set_content(body)
    return msg


# -- decode -----------------------------------------------------------------------------


def test_plain_message() -> None:
    mail = decode(bytes(plain_message()))
    assert mail == IncomingMail(
        message_id="<abc123@mail.example.org>",
        sender="ann.smith@example.org",
        from_addr="ann.smith@example.org",
        subject="Orders",
        in_reply_to=None,
        references=(),
        text="SIGNON Fwinter01 secret\nA Par-Bur\n",
        headers=mail.headers,
        header_list=mail.header_list,
    )
    assert mail.headers["from"] == "Ann Smith <Ann.Smith@Example.org>"
    assert mail.headers["message-id"] == "<abc123@mail.example.org>"
    assert mail.headers["content-type"] == 'text/plain; charset="utf-8"'
    assert all(name == name.lower() for name in mail.headers)


def test_multipart_alternative_prefers_plain() -> None:
    msg = plain_message("A Par-Bur\n")
    msg.add_alternative("<p>A Mar-Spa</p>", subtype="html")
    assert decode(bytes(msg)).text == "A Par-Bur\n"


def test_empty_plain_part_falls_back_to_html() -> None:
    msg = plain_message("\n")
    msg.add_alternative("<p>A Mar-Spa</p>", subtype="html")
    assert decode(bytes(msg)).text == "A Mar-Spa"


def test_html_only_with_gmail_quote() -> None:
    html = (
        '<div dir="ltr">SIGNON Fwinter01 secret<div>A Par-Bur</div><div>F Bre&nbsp;-&gt; Mao'
        "</div><div><br></div><div>Thanks &amp; good luck</div></div><br>"
        '<div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">'
        "On Tue, Mar 5, 2024 at 10:00 AM Judge &lt;judge@example.org&gt; wrote:<br></div>"
        '<blockquote class="gmail_quote">Movement results for Spring of 1901.<br>'
        "Austria: Army Vienna HOLD.</blockquote></div>"
        "<style>p { color: red }</style><script>alert('x')</script>"
    )
    msg = EmailMessage()
    msg["From"] = "ann@example.org"
    msg.set_content(html, subtype="html")
    mail = decode(bytes(msg))
    assert mail.text == "SIGNON Fwinter01 secret\nA Par-Bur\nF Bre -> Mao\n\nThanks & good luck"


def test_outlook_html_reply() -> None:
    html = (
        '<html><head><style type="text/css">P {margin-top:0;}</style></head><body dir="ltr">'
        "<div>SIGNON Fwinter01 secret</div>\n<div>A Par - Bur</div>\n"
        '<div id="appendonsend"></div><hr style="display:inline-block;width:98%">'
        '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri"><b>From:</b> Judge '
        "&lt;judge@example.org&gt;<br>\n<b>Sent:</b> Tuesday, March 5, 2024 10:00 AM<br>"
        "<b>To:</b> Ann<br><b>Subject:</b> Results</font><div>&nbsp;</div></div>"
        "<div>Movement results for Spring of 1901.</div></body></html>"
    )
    kept, dropped = order_text(html_to_text(html))
    assert kept == ["SIGNON Fwinter01 secret", "A Par - Bur"]
    assert dropped[0] == "From: Judge <judge@example.org>"
    assert dropped[-1] == "Movement results for Spring of 1901."


def test_apple_mail_html_reply() -> None:
    html = (
        '<html><body style="word-wrap: break-word;">A Par-Bur<div>F Bre H</div><div><br>'
        '<blockquote type="cite"><div>On 5 Mar 2024, at 10:00, Judge &lt;judge@example.org&gt;'
        " wrote:</div><br><div>Results</div></blockquote></div><br></body></html>"
    )
    assert html_to_text(html) == "A Par-Bur\nF Bre H"


def test_html_blocks_tables_and_pre() -> None:
    html = (
        "<html><head><title>t</title></head><body><h1>Orders</h1>"
        "<table><tr><td>A</td><td>Par-Bur</td></tr><tr><td>F</td><td>Bre H</td></tr></table>"
        "<ul><li>one</li><li>two</li></ul><pre>  A Mar  S A Par-Bur\n  F Bre H</pre>"
        "<p>last<br/>line</p></body></html>"
    )
    assert html_to_text(html) == (
        "Orders\nA Par-Bur\nF Bre H\none\ntwo\nA Mar S A Par-Bur\nF Bre H\nlast\nline"
    )


def test_html_sloppy_markup_does_not_lose_text() -> None:
    html = "<div><p>A Par-Bur<p>F Bre H</span></div></div>after<blockquote>never"
    assert html_to_text(html) == "A Par-Bur\nF Bre H\nafter"
    assert html_to_text("<![if !supportLists]>A Par H<![endif]>") == "A Par H"
    assert html_to_text("<" * 1000 + "div>" * 3000) is not None


def test_quoted_printable_latin1() -> None:
    raw = (
        b"From: =?iso-8859-1?q?Ren=E9?= <rene@example.fr>\r\n"
        b"Subject: =?iso-8859-1?q?Arm=E9e?=\r\n"
        b"MIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=iso-8859-1\r\n"
        b"Content-Transfer-Encoding: quoted-printable\r\n"
        b"\r\n"
        b"Arm=E9e Paris -> Bourgogne, une tr=E8s longue ligne qui est coup=\r\n"
        b"=E9e en deux\r\n"
        b"=93guillemets=94\r\n"
    )
    mail = decode(raw)
    assert mail.text == (
        "Armée Paris -> Bourgogne, une très longue ligne qui est coupée en deux\n“guillemets”\n"
    )
    assert mail.subject == "Armée"
    assert mail.from_addr == "rene@example.fr"


def test_base64_utf8() -> None:
    body = "Fleet St Petersburg (south coast) → Gulf of Bothnia\nÜberall 北京\n"
    encoded = base64.encodebytes(body.encode("utf-8"))
    raw = (
        b"From: boris@example.ru\r\n"
        b"Content-Type: text/plain; charset=UTF-8\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\n" + encoded.replace(b"\n", b"\r\n")
    )
    assert decode(raw).text == body


def test_attachments_are_ignored() -> None:
    msg = plain_message("A Par-Bur\n")
    msg.add_attachment(b"A Ber-Kie\n", maintype="text", subtype="plain", filename="old.txt")
    msg.add_attachment(b"\x89PNG\r\n", maintype="image", subtype="png", filename="map.png")
    assert decode(bytes(msg)).text == "A Par-Bur\n"


def test_attachment_only_gives_empty_text() -> None:
    msg = EmailMessage()
    msg["From"] = "ann@example.org"
    msg.add_attachment(b"\x00\x01", maintype="application", subtype="octet-stream")
    assert decode(bytes(msg)).text == ""


def test_forwarded_message_is_not_read() -> None:
    inner = plain_message("SIGNON Gwinter01 theirs\nA Ber-Kie\n")
    outer = EmailMessage()
    outer["From"] = "ann@example.org"
    outer["Message-ID"] = "<outer@example.org>"
    outer.set_content("See what Germany sent me.\n")
    outer.add_attachment(inner)
    mail = decode(bytes(outer))
    assert mail.text == "See what Germany sent me.\n"
    assert mail.message_id == "<outer@example.org>"


def test_inline_forwarded_message_is_dropped_by_order_text() -> None:
    text = (
        "A Par-Bur\n\n---------- Forwarded message ---------\nFrom: Germany <g@example.de>\n"
        "Date: Tue, Mar 5, 2024\nSubject: deal\n\nA Ber-Kie\n"
    )
    kept, dropped = order_text(text)
    assert kept == ["A Par-Bur", ""]
    assert dropped[0] == "---------- Forwarded message ---------"
    assert "A Ber-Kie" in dropped


def test_missing_message_id_uses_hash_of_raw_bytes() -> None:
    raw = b"From: ann@example.org\r\nSubject: hi\r\n\r\nA Par H\r\n"
    assert decode(raw).message_id == f"<{hashlib.sha256(raw).hexdigest()}@judge.invalid>"


def test_message_id_without_brackets_and_with_comment() -> None:
    assert decode(b"Message-ID: abc@x.org\r\n\r\n").message_id == "<abc@x.org>"
    assert decode(b"Message-ID: <a b@x.org> (c)\r\n\r\n").message_id == "<ab@x.org>"
    long_id = b"<" + b"x" * 600 + b"@x.org>"
    assert decode(b"Message-ID: " + long_id + b"\r\n\r\n").message_id.endswith("@judge.invalid>")


def test_rfc2047_subject_folded_on_one_line() -> None:
    raw = (
        b"From: ann@example.org\r\n"
        b"Subject: =?UTF-8?B?UmU6IE1vdmVtZW50IHJlc3VsdHM=?=\r\n"
        b" =?iso-8859-1?q?_f=FCr?= Fr\xc3\xbchling\r\n\tzwei\r\n\r\n"
    )
    assert decode(raw).subject == "Re: Movement results für Frühling zwei"


def test_reply_to_takes_precedence() -> None:
    msg = plain_message()
    msg["Reply-To"] = "Ann at home <ANN@Home.Example>"
    mail = decode(bytes(msg))
    assert mail.sender == "ann@home.example"
    assert mail.from_addr == "ann.smith@example.org"


def test_unusable_reply_to_falls_back_to_from() -> None:
    msg = plain_message()
    msg["Reply-To"] = "garbage,,, <>"
    assert decode(bytes(msg)).sender == "ann.smith@example.org"


def test_header_injection_in_address_is_refused() -> None:
    raw = b"From: <a@b.c\r\n\r\n"
    assert decode(raw).sender in ("", "a@b.c")
    mail = decode(b'From: "x\x00y" <evil@x.org>\r\n\r\n')
    assert mail.sender == "evil@x.org"


def test_in_reply_to_and_references() -> None:
    raw = (
        b"From: ann@example.org\r\nIn-Reply-To: <r2@judge.example> (Judge's message)\r\n"
        b"References: <r1@judge.example>\r\n <r2@judge.example>\r\n\r\nA Par H\r\n"
    )
    mail = decode(raw)
    assert mail.in_reply_to == "<r2@judge.example>"
    assert mail.references == ("<r1@judge.example>", "<r2@judge.example>")


def test_repeated_headers_first_value_and_list() -> None:
    raw = b"X-Loop: other@list.org\r\nX-Loop: judge@example.org\r\nFrom: a@b.org\r\n\r\n"
    mail = decode(raw)
    assert mail.headers["x-loop"] == "other@list.org"
    assert ("x-loop", "judge@example.org") in mail.header_list


def test_unknown_and_binary_charsets_fall_back() -> None:
    for charset in (b"x-klingon", b"zlib", b"idna", b"utf-7"):
        raw = b"Content-Type: text/plain; charset=" + charset + b"\r\n\r\nA Par H \xe9 +2D3-\r\n"
        text = decode(raw).text
        assert text.startswith("A Par H")
        text.encode("utf-8")  # no lone surrogates


def test_unlabelled_8bit_is_read_as_utf8_else_cp1252() -> None:
    assert decode(b"\r\nA Par \xc3\xa9\r\n").text == "A Par é\n"
    assert decode(b"\r\nA Par \xe9\r\n").text == "A Par é\n"


def test_format_flowed_is_joined() -> None:
    raw = (
        b"Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\r\n\r\n"
        b"SET DEADLINE next Tuesday at eight in the  \r\nevening\r\n"
        b"> quoted and  \r\n> flowed\r\n"
        b"-- \r\nsig\r\n"
    )
    assert decode(raw).text == (
        "SET DEADLINE next Tuesday at eight in the evening\n> quoted and flowed\n-- \nsig\n"
    )


def test_malformed_mail_gives_empty_fields() -> None:
    for raw in (b"", b"\xff\xfe\x00garbage", b"From\r\n\r\n", b"Content-Type: multipart/mixed\r\n"):
        mail = decode(raw)
        assert mail.sender == ""
        assert mail.subject == ""
        assert mail.message_id.endswith("@judge.invalid>")


def test_deeply_nested_multipart_does_not_raise() -> None:
    head = b"".join(
        b"Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (i, i) for i in range(400)
    )
    mail = decode(b"From: a@b.org\r\n" + head + b"Content-Type: text/plain\r\n\r\nA Par H\r\n")
    assert mail.from_addr == "a@b.org"


def test_decode_accepts_str_and_bytearray() -> None:
    assert decode(bytearray(b"From: a@b.org\r\n\r\nx")).from_addr == "a@b.org"  # type: ignore[arg-type]
    assert decode("From: a@b.org\r\n\r\nx").from_addr == "a@b.org"  # type: ignore[arg-type]


def test_header_block_alone() -> None:
    raw = bytes(plain_message())
    head = raw[: raw.index(b"\n\n")] + b"\r\n\r\n"
    mail, whole = decode(head), decode(raw)
    assert (mail.message_id, mail.sender, mail.subject, mail.text) == (
        whole.message_id,
        whole.sender,
        whole.subject,
        "",
    )
    assert mail.header_list == whole.header_list


def test_addresses_in_their_usual_forms() -> None:
    for value, expected in [
        (b'"Smith, Ann" <Ann@Example.org>', "ann@example.org"),
        (b"=?utf-8?q?Ren=C3=A9?= <rene@example.fr>", "rene@example.fr"),
        (b"Dr. A. N. Other <ano@example.org>", "ano@example.org"),
        (b"  <ann@example.org>  ", "ann@example.org"),
        (b"ann@example.org (Ann)", "ann@example.org"),
        (b"Ann\r\n <ann@example.org>", "ann@example.org"),
        (b"Players: ann@example.org, bob@example.org;", "ann@example.org"),
        (b"ann@[192.0.2.1]", "ann@[192.0.2.1]"),
        (b"MAILER-DAEMON", "mailer-daemon"),
    ]:
        assert decode(b"From: " + value + b"\r\n\r\nx").from_addr == expected, value


def test_parameters_read_as_the_header_registry_reads_them() -> None:
    # A value followed by junk: the charset is still iso-8859-1 (read as cp1252).
    raw = (
        b"Content-Type: text/plain; charset=iso-8859-1 format=flowed\r\n\r\nArm\xe9e \x93x\x94\r\n"
    )
    assert decode(raw).text == "Armée “x”\n"
    # Folded parameters, upper case, quotes.
    raw = b'Content-Type: TEXT/PLAIN;\r\n\tcharset="UTF-8";\r\n format=flowed\r\n\r\na \r\nb\r\n'
    assert decode(raw).text == "a b\n"


def test_multipart_related_reads_its_root_part() -> None:
    raw = (
        b'Content-Type: multipart/related; boundary=b; start="<root@x>"\r\n\r\n'
        b"--b\r\nContent-Type: text/plain\r\n\r\nnot the root\r\n"
        b"--b\r\nContent-Type: text/html\r\nContent-ID: <root@x>\r\n\r\n<p>A Par-Bur</p>\r\n"
        b"--b--\r\n"
    )
    assert decode(raw).text == "A Par-Bur"
    # A related part without parts (no boundary) is passed over.
    raw = (
        b"Content-Type: multipart/mixed; boundary=b\r\n\r\n"
        b"--b\r\nContent-Type: multipart/related\r\n\r\nno boundary\r\n"
        b"--b\r\nContent-Type: text/plain\r\n\r\nA Par-Bur\r\n--b--\r\n"
    )
    assert decode(raw).text == "A Par-Bur"


def test_attachment_disposition_forms() -> None:
    for disposition in (b"attachment", b"ATTACHMENT; filename=a.txt", b"attachment (old orders)"):
        raw = (
            b"Content-Type: multipart/mixed; boundary=b\r\n\r\n"
            b"--b\r\nContent-Type: text/plain\r\nContent-Disposition: " + disposition + b"\r\n"
            b"\r\nA Ber-Kie\r\n--b\r\nContent-Type: text/plain\r\n\r\nA Par-Bur\r\n--b--\r\n"
        )
        assert decode(raw).text == "A Par-Bur", disposition


# -- order_text -------------------------------------------------------------------------

GMAIL_REPLY = """\
SIGNON Fwinter01 secret
A Par-Bur
Sent from my iPhone

On Tue, Mar 5, 2024 at 10:00 AM Diplomacy Judge <
judge@example.org> wrote:

> Movement results for Spring of 1901.  (winter01.001)
>
> Austria: Army Vienna HOLD.
"""


def test_gmail_reply_above_quote() -> None:
    kept, dropped = order_text(GMAIL_REPLY)
    assert [line for line in kept if line] == [
        "SIGNON Fwinter01 secret",
        "A Par-Bur",
        "Sent from my iPhone",
    ]
    assert dropped[:2] == [
        "On Tue, Mar 5, 2024 at 10:00 AM Diplomacy Judge <",
        "judge@example.org> wrote:",
    ]
    assert "> Austria: Army Vienna HOLD." in dropped


def test_outlook_reply_with_underscores() -> None:
    text = (
        "F Kie-Den\n\n________________________________\nFrom: Judge <judge@example.org>\n"
        "Sent: Tuesday, March 5, 2024 10:00 AM\nTo: Ann\nSubject: Results\n\n"
        "Austria: Army Vienna HOLD.\n"
    )
    kept, dropped = order_text(text)
    assert kept == ["F Kie-Den", ""]
    assert dropped[0] == "________________________________"
    assert dropped[-1] == "Austria: Army Vienna HOLD."


def test_outlook_header_block_without_rule() -> None:
    text = "A Vie-Tri\n*From:* Judge <judge@example.org>\n*Sent:* Tuesday\n\nA Bud H\n"
    assert order_text(text) == (
        ["A Vie-Tri"],
        ["*From:* Judge <judge@example.org>", "*Sent:* Tuesday", "", "A Bud H"],
    )
    one_line = "A Vie-Tri\nFrom: Judge Sent: Tuesday To: Ann Subject: Results\nA Bud H"
    assert order_text(one_line)[0] == ["A Vie-Tri"]


def test_original_message_separator() -> None:
    text = "A Par H\n-----Original Message-----\nFrom: judge@example.org\nA Mar H\n"
    assert order_text(text) == (
        ["A Par H"],
        ["-----Original Message-----", "From: judge@example.org", "A Mar H"],
    )


def test_french_quote_header() -> None:
    text = (
        "A Par-Bur\nLe mar. 5 mars 2024 à 10:00, Juge <judge@example.org> a écrit\u00a0:\nA Mar H"
    )
    assert order_text(text)[0] == ["A Par-Bur"]


def test_german_quote_header() -> None:
    text = "A Mun-Ber\n\nAm 05.03.2024 um 10:00 schrieb Judge <judge@example.org>:\nA Kie H"
    assert order_text(text) == (
        ["A Mun-Ber", ""],
        ["Am 05.03.2024 um 10:00 schrieb Judge <judge@example.org>:", "A Kie H"],
    )


def test_quoted_lines_are_skipped_and_interleaved_answers_read() -> None:
    text = (
        "On Tue, 5 Mar 2024, Judge wrote:\n> France: Army Paris, No Order Processed.\n"
        "A Par-Bur\n>> older\n  > indented quote\nF Bre H\n"
    )
    assert order_text(text) == (
        ["A Par-Bur", "F Bre H"],
        [
            "On Tue, 5 Mar 2024, Judge wrote:",
            "> France: Army Paris, No Order Processed.",
            ">> older",
            "  > indented quote",
        ],
    )


def test_signature_separators() -> None:
    assert order_text("A Par H\n-- \nAnn\nA Mar H") == (["A Par H"], ["-- ", "Ann", "A Mar H"])
    assert order_text("A Par H\n--\nAnn") == (["A Par H"], ["--", "Ann"])
    assert order_text("A Par H\n---\nA Mar H") == (["A Par H", "---", "A Mar H"], [])


def test_sign_offs_and_ordinary_sentences_are_kept() -> None:
    text = "On reflection I hold.\nA Par H\nSent from my iPhone\nGet Outlook for Android"
    assert order_text(text) == (text.split("\n"), [])


def test_order_text_of_nothing() -> None:
    assert order_text("") == ([], [])
    assert order_text("\n\n") == (["", ""], [])


# -- never raises -----------------------------------------------------------------------

HEADER_LINES = st.sampled_from(
    [
        b"From: a@b.org\r\n",
        b"From: =?utf-8?q?=C3=A9?= <\r\n",
        b"Reply-To: ,,<>\r\n",
        b"Subject: =?bogus?x?zz?=\r\n",
        b"Message-ID: <<>>\r\n",
        b"Content-Type: multipart/alternative; boundary=X\r\n",
        b"Content-Type: text/html; charset=utf-16\r\n",
        b"Content-Type: text/plain; charset*=''%ff\r\n",
        b"Content-Transfer-Encoding: base64\r\n",
        b"Content-Transfer-Encoding: quoted-printable\r\n",
        b"Content-Disposition: attachment\r\n",
        b"References: <a@b> <c\r\n",
        b"\r\n",
        b"--X\r\n",
        b"--X--\r\n",
        b"\xff\xfe\r\n",
        b" folded\r\n",
    ]
)


@FAST
@given(st.lists(st.one_of(HEADER_LINES, st.binary(max_size=40)), max_size=30))
def test_decode_never_raises_on_mail_like_bytes(parts: list[bytes]) -> None:
    mail = decode(b"".join(parts))
    for value in (mail.message_id, mail.sender, mail.subject, mail.text):
        value.encode("utf-8")
    assert "\n" not in mail.subject
    order_text(mail.text)


@FAST
@given(st.binary(max_size=500))
def test_decode_never_raises_on_bytes(raw: bytes) -> None:
    assert isinstance(decode(raw), IncomingMail)


@FAST
@given(st.text(max_size=300))
def test_html_and_order_text_never_raise(text: str) -> None:
    html_to_text(text)
    kept, dropped = order_text(text)
    assert len(kept) + len(dropped) == len(text.splitlines())


# -- what real mail programs add (issue 10) ---------------------------------------------

MAIL = DATA / "mail"


def read_fixture(name: str) -> IncomingMail:
    return decode((MAIL / name).read_bytes())


RESULTS = "Movement results for Spring of 1901.\n\nFrance: Army Marseilles HOLD.\n"


def test_outlook_header_blocks_in_every_language() -> None:
    blocks = {
        "es": "De: Judge <j@x.org>\nEnviado el: martes, 24 de noviembre de 2026 10:00\n"
        "Para: ana@x.org\nAsunto: Resultados",
        "es-mac": "De: Judge <j@x.org>\nFecha: martes, 24 de noviembre de 2026, 10:00\n"
        "Para: ana@x.org\nAsunto: Resultados",
        "pt": "De: Judge <j@x.org>\nEnviado: terça-feira, 24 de novembro de 2026 10:00\n"
        "Para: ana@x.org\nAssunto: Resultados",
        "pt-br": "De: Judge <j@x.org>\nEnviada em: terça-feira, 24 de novembro de 2026 10:00\n"
        "Para: ana@x.org\nAssunto: Resultados",
        "sv": "Från: Judge <j@x.org>\nSkickat: den 24 november 2026 10:00\nTill: a@x.org\n"
        "Ämne: Resultat",
        "pl": "Od: Judge <j@x.org>\nWysłano: wtorek, 24 listopada 2026 10:00\nDo: a@x.org\n"
        "Temat: Wyniki",
        "ru": "От: Judge <j@x.org>\nОтправлено: 24 ноября 2026 г. 10:00\nКому: a@x.org\n"
        "Тема: Результаты",
        "fi": "Lähettäjä: Judge <j@x.org>\nLähetetty: tiistai 24. marraskuuta 2026 10.00\n"
        "Vastaanottaja: a@x.org\nAihe: Tulokset",
        "cs": "Od: Judge <j@x.org>\nOdesláno: úterý 24. listopadu 2026 10:00\nKomu: a@x.org\n"
        "Předmět: Výsledky",
        "hu": "Feladó: Judge <j@x.org>\nElküldve: 2026. november 24., kedd 10:00\n"
        "Címzett: a@x.org\nTárgy: Eredmények",
        "tr": "Kimden: Judge <j@x.org>\nGönderildi: 24 Kasım 2026 Salı 10:00\nKime: a@x.org\n"
        "Konu: Sonuçlar",
        "el": "Από: Judge <j@x.org>\nΑποστολή: Τρίτη, 24 Νοεμβρίου 2026 10:00 πμ\n"
        "Προς: a@x.org\nΘέμα: Αποτελέσματα",
        "ja": "差出人: Judge <j@x.org>\n送信日時: 2026年11月24日 10:00\n宛先: a@x.org\n件名: 結果",
        "zh": "发件人: Judge <j@x.org>\n发送时间: 2026年11月24日 10:00\n收件人: a@x.org\n"
        "主题: 结果",
        "ko": "보낸 사람: Judge <j@x.org>\n보낸 날짜: 2026년 11월 24일 화요일 오전 10:00\n"
        "받는 사람: a@x.org\n제목: 결과",
        "nl-bold": "*Van:* Judge <j@x.org>\n*Verzonden:* dinsdag 24 november 2026 10:00\n"
        "*Aan:* a@x.org\n*Onderwerp:* Uitslag",
        # No "Sent" line: three header lines starting with a "From" line are enough.
        "it-no-date": "Da: Judge <j@x.org>\nA: a@x.org\nOggetto: Risultati",
        "da-no-date": "Fra: Judge <j@x.org>\nTil: a@x.org\nEmne: Resultater",
    }
    for language, block in blocks.items():
        text = f"A Par-Bur\nF Bre H\n\n{block}\n\n{RESULTS}"
        body = read_body(text)
        assert body.lines == ("A Par-Bur", "F Bre H", ""), language
        assert body.left_out[-1] == "France: Army Marseilles HOLD.", language
        first = block.split("\n")[0]
        assert body.quoted == (f"the quoted message from line 4 on ({first!r})",), language


def test_header_words_are_of_one_kind_in_every_language() -> None:
    from judge.mail.decode import _HEADER_WORDS, _word_key

    kinds: dict[str, set[str]] = {}
    for froms, sents, fields in _HEADER_WORDS.values():
        for kind, words in (("from", froms), ("sent", sents), ("field", fields)):
            for word in words:
                kinds.setdefault(_word_key(word), set()).add(kind)
    assert {word: k for word, k in kinds.items() if len(k) > 1} == {}


def test_header_like_lines_that_are_no_quote_header_are_read() -> None:
    # Two header lines without a "Sent" line, or a "From" line alone, start no quote.
    text = "De: Ana\nPara: Judge\nA Par-Bur\nFrom: France\n\nA Mar H\nTo: all\nSubject: x"
    assert read_body(text).lines == tuple(text.split("\n"))


def test_on_wrote_in_other_languages() -> None:
    attributions = [
        "Am Di., 24. Nov. 2026 um 10:00 Uhr schrieb TESTJUDGE <judge@example.org>:",
        "Le mar. 24 nov. 2026 à 10:00, TESTJUDGE <judge@example.org> a écrit :",
        "El mar, 24 nov 2026 a las 10:00, TESTJUDGE (<judge@example.org>) escribió:",
        "Il giorno mar 24 nov 2026 alle ore 10:00 TESTJUDGE <judge@example.org> ha scritto:",
        "Em ter., 24 de nov. de 2026 às 10:00, TESTJUDGE <judge@example.org> escreveu:",
        "Op di 24 nov 2026 om 10:00 schreef TESTJUDGE <judge@example.org>:",
        "Den tis 24 nov. 2026 kl 10:00 skrev TESTJUDGE <judge@example.org>:",
        "W dniu 24.11.2026 o 10:00, TESTJUDGE pisze:",
        "wt., 24 lis 2026 o 10:00 TESTJUDGE <judge@example.org> napisał(a):",
        "24.11.2026 10:00, TESTJUDGE пишет:",
        "вт, 24 нояб. 2026 г. в 10:00, TESTJUDGE <judge@example.org>:",
        "ti 24.11.2026 klo 10.00 TESTJUDGE (judge@example.org) kirjoitti:",
        "TESTJUDGE <judge@example.org> ezt írta (időpont: 2026. nov. 24., K, 10:00):",
        "2026年11月24日(火) 10:00 TESTJUDGE <judge@example.org>:",
        "TESTJUDGE <judge@example.org> 于2026年11月24日周二 10:00写道：",
        "On 24 Nov 2026, at 10:00, TESTJUDGE <judge@example.org> wrote:",
        "Il 24/11/2026 10:00, TESTJUDGE ha scritto:",
    ]
    for line in attributions:
        # Quoted text that is not marked with ">" (Outlook's "reply above" habit).
        body = read_body(f"A Par-Bur\n\n{line}\n\n{RESULTS}")
        assert body.lines == ("A Par-Bur", ""), line
        assert body.left_out[0] == line, line


def test_wrapped_attribution_in_polish_takes_its_first_line_only_when_needed() -> None:
    text = "A War-Gal\nwt., 24 lis 2026 o 10:00 TESTJUDGE <judge@example.org>\nnapisał(a):\nold"
    assert read_body(text).lines == ("A War-Gal",)
    # The line before an attribution that is whole by itself is not part of it.
    text = "PHASE Fall 1901\nOn Tue, 24 Nov 2026 at 10:00, TESTJUDGE <judge@example.org> wrote:\nx"
    assert read_body(text).lines == ("PHASE Fall 1901",)


def test_sentences_with_times_or_colons_are_read() -> None:
    text = (
        "I wrote to Germany at 10:00:\nA Mun-Ruh\nDeadline 20:00 per judge@example.org\n"
        "As agreed on 24/11:\nF Kie-Den"
    )
    assert read_body(text).lines == tuple(text.split("\n"))


def test_original_and_forwarded_separators_in_other_languages() -> None:
    for separator, forward in [
        ("-----Ursprüngliche Nachricht-----", False),
        ("-----Message d'origine-----", False),
        ("-----Mensaje original-----", False),
        ("-------- Původní zpráva --------", False),
        ("-----Исходное сообщение-----", False),
        ("---------- Forwarded message ---------", True),
        ("---------- Weitergeleitete Nachricht ---------", True),
        ("-------- Message transféré --------", True),
        ("---------- Mensaje reenviado ---------", True),
        ("Begin forwarded message:", True),
        ("Anfang der weitergeleiteten Nachricht:", True),
        ("Inizio messaggio inoltrato:", True),
    ]:
        body = read_body(f"A Par-Bur\n{separator}\nFrom: Ann <a@x.org>\nA Mar H\n")
        assert body.lines == ("A Par-Bur",), separator
        assert body.left_out == (separator, "From: Ann <a@x.org>", "A Mar H"), separator
        if forward:
            assert body.quoted == ()
            assert body.not_read == (
                f"a forwarded message, from line 2 on ({separator!r}): forwarded text is not "
                "read, as it may be someone else's; to send orders from it, write them in your "
                "own message",
            )
        else:
            assert body.quoted == (f"the quoted message from line 2 on ({separator!r})",)
            assert body.not_read == ()


def test_outlook_forward_is_told_as_a_forward_by_its_subject() -> None:
    text = "FYI\n________________\nFrom: Ann\nSent: Monday\nSubject: orders\n\nA Par-Bur\n"
    assert (
        read_body(text, "FW: orders")
        .not_read[0]
        .startswith("a forwarded message, from line 2 on ('________________')")
    )
    assert read_body(text, "RE: orders").quoted == (
        "the quoted message from line 2 on ('________________')",
    )


def test_list_bullets_and_numbers_are_taken_off() -> None:
    text = (
        "- A Par-Bur\n* A Mar S A Par-Bur\n• F Bre-MAO\n· A Ven H\n   1. F Kie-Den\n2) A Ber-Kie\n"
        "10.\tA Mun-Ruh\n·         F Tri H\n- -A Par-Bur\n-A Par-Bur\n---\n1901. x\n"
        "PHASE Fall 1901\n*From:* nobody\n- \n"
    )
    body = read_body(text)
    assert body.lines == (
        "A Par-Bur", "A Mar S A Par-Bur", "F Bre-MAO", "A Ven H", "F Kie-Den", "A Ber-Kie",
        "A Mun-Ruh", "F Tri H", "-A Par-Bur", "-A Par-Bur", "---", "1901. x", "PHASE Fall 1901",
        "*From:* nobody", "- ",
    )  # fmt: skip
    # "-- " is still the signature separator, not a bullet.
    assert read_body("- A Par-Bur\n-- \n- A Mar H").lines == ("A Par-Bur",)


def test_inline_pgp_signed_message() -> None:
    text = (
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nSIGNON Etest01 pw-eng\n"
        "- - F Edi-NWG\n- b2 is my favourite\n\n- -- \nTom\n-----BEGIN PGP SIGNATURE-----\n\n"
        "iHUEARYIAB0WIQTb2k3x\n=Xy7Z\n-----END PGP SIGNATURE-----\n"
    )
    body = read_body(text)
    assert body.lines == ("SIGNON Etest01 pw-eng", "F Edi-NWG", "b2 is my favourite", "")
    assert body.left_out == (
        "-----BEGIN PGP SIGNED MESSAGE-----", "Hash: SHA256", "", "- -- ", "Tom",
        "-----BEGIN PGP SIGNATURE-----", "", "iHUEARYIAB0WIQTb2k3x", "=Xy7Z",
        "-----END PGP SIGNATURE-----",
    )  # fmt: skip
    # Without a signature separator the armour is still left out, and what follows it read.
    text = (
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\nA Par-Bur\n"
        "-----BEGIN PGP SIGNATURE-----\nb2VyZGVy\n-----END PGP SIGNATURE-----\nF Bre H\n"
    )
    assert read_body(text).lines == ("A Par-Bur", "F Bre H")
    # Outside a signed message a line starting with "- " is a list item.
    assert read_body("- - A Par-Bur").lines == ("- A Par-Bur",)


def test_inline_pgp_encrypted_block_is_told() -> None:
    text = "SIGNON Ftest01 pw\n-----BEGIN PGP MESSAGE-----\n\nhQEMA1b2\n-----END PGP MESSAGE-----\n"
    body = read_body(text)
    assert body.lines == ("SIGNON Ftest01 pw",)
    assert body.not_read == ("a PGP encrypted message, lines 2 to 5: this judge cannot decrypt it",)
    # An armour block without its end line runs to the end of the text.
    assert read_body("A Par H\n-----BEGIN PGP SIGNATURE-----\nA Mar H").lines == ("A Par H",)


def test_interleaved_quotes_and_signature_are_counted() -> None:
    body = read_body("> a\n> b\nA Par-Bur\n> c\n-- \nAnn")
    assert body.lines == ("A Par-Bur",)
    assert body.quoted == (
        "3 lines of quoted text, the first at line 1",
        "the signature from line 5 on",
    )


def test_outlook_spanish_reply_fixture() -> None:
    mail = read_fixture("outlook_es_reply.eml")
    body = read_body(mail.text, mail.subject)
    assert body.lines == (
        "SIGNON Ftest01 paris-123", "A Par-Bur", "A Mar S A Par-Bur", "", "Saludos,", "Ana", "",
    )  # fmt: skip
    assert "France: Army Marseilles HOLD." in body.left_out
    assert mail.unread_parts == ()


def test_outlook_polish_html_only_fixture() -> None:
    mail = read_fixture("outlook_pl_html_only.eml")
    body = read_body(mail.text, mail.subject)
    assert body.lines == ("SIGNON Rtest01 pw-rus", "A Mos-Ukr", "F Sev-Bla", "")
    assert body.left_out[0] == "Od: TESTJUDGE <judge@example.org>"
    assert body.left_out[-1] == "Russia: Fleet Sevastopol HOLD."


def test_yahoo_plain_part_without_line_breaks_gives_way_to_html() -> None:
    mail = read_fixture("yahoo_run_together.eml")
    assert mail.text == "SIGNON Gtest01 pw-ger\nA Ber-Kie\nA Mun-Ruh\nF Kie-Den"
    assert mail.unread_parts == ()


def test_plain_part_that_differs_from_html_is_kept() -> None:
    # The same words on fewer lines, but not the same text: the plain part is the one read.
    msg = plain_message("A Par-Bur F Bre H\n")
    msg.add_alternative("<div>A Par-Bur</div><div>F Bre-MAO</div>", subtype="html")
    assert decode(bytes(msg)).text == "A Par-Bur F Bre H\n"
    # Plain text with as many lines as the HTML: kept, even if the HTML differs in spacing.
    msg = plain_message("A Par-Bur\nF Bre H\n")
    msg.add_alternative("<div>A Par-Bur</div><div>F  Bre H</div>", subtype="html")
    assert decode(bytes(msg)).text == "A Par-Bur\nF Bre H\n"


def test_pgp_signed_thunderbird_fixture() -> None:
    mail = read_fixture("thunderbird_pgp_signed.eml")
    body = read_body(mail.text, mail.subject)
    assert body.lines == ("SIGNON Etest01 pw-eng", "F Lon-NTH", "F Edi-NWG", "A Lvp-Yor", "")
    assert body.quoted == ("the signature from line 9 on",)


def test_parts_not_read_are_listed() -> None:
    assert read_fixture("smime_encrypted.eml").unread_parts == (
        "an S/MIME encrypted or signed part (application/pkcs7-mime): this judge cannot open it",
    )
    mail = read_fixture("outlook_attachment_only.eml")
    assert mail.text == ""
    assert mail.unread_parts == (
        "an attachment orders.docx (application/vnd.openxmlformats-officedocument."
        "wordprocessingml.document): only the text of the message itself is read",
    )
    msg = plain_message("A Par-Bur\n")
    msg.add_attachment(b"A Ber-Kie\n", maintype="text", subtype="plain", filename="old.txt")
    msg.add_attachment(b"\x89PNG\r\n", maintype="image", subtype="png")
    inner = plain_message("SIGNON Gwinter01 theirs\n")
    msg.add_attachment(inner)
    assert decode(bytes(msg)).unread_parts == (
        "an attachment old.txt (text/plain): only the text of the message itself is read",
        "an attachment (image/png): only the text of the message itself is read",
        "an attached message ('Orders'): forwarded messages are not read, as they may be "
        "someone else's",
    )


def test_signatures_alternatives_and_pictures_are_not_listed() -> None:
    raw = (
        b'Content-Type: multipart/signed; protocol="application/pgp-signature"; boundary=s\r\n\r\n'
        b"--s\r\nContent-Type: multipart/alternative; boundary=a\r\n\r\n"
        b"--a\r\nContent-Type: text/plain\r\n\r\nA Par-Bur\r\n"
        b"--a\r\nContent-Type: multipart/related; boundary=r\r\n\r\n"
        b"--r\r\nContent-Type: text/html\r\n\r\n<p>A Par-Bur<img src=cid:x></p>\r\n"
        b"--r\r\nContent-Type: image/png\r\nContent-ID: <x>\r\n\r\nPNG\r\n--r--\r\n"
        b"--a--\r\n"
        b"--s\r\nContent-Type: application/pgp-signature\r\n\r\nsig\r\n--s--\r\n"
    )
    mail = decode(raw)
    assert (mail.text, mail.unread_parts) == ("A Par-Bur", ())
    encrypted = (
        b'Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary=e\r\n'
        b"\r\n--e\r\nContent-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n"
        b"--e\r\nContent-Type: application/octet-stream\r\n\r\n-----BEGIN PGP MESSAGE-----\r\n"
        b"--e--\r\n"
    )
    assert decode(encrypted).unread_parts == (
        "a PGP/MIME encrypted part: this judge cannot decrypt it",
    )


def test_gmail_forward_of_own_orders_fixture() -> None:
    mail = read_fixture("gmail_forward_own_orders.eml")
    body = read_body(mail.text, mail.subject)
    assert body.lines == ("did this arrive?", "")
    assert "SIGNON Ftest01 paris-123" in body.left_out
    assert body.not_read == (
        "a forwarded message, from line 3 on ('---------- Forwarded message ---------'): "
        "forwarded text is not read, as it may be someone else's; to send orders from it, "
        "write them in your own message",
    )


def test_outlook_bulleted_list_fixture() -> None:
    mail = read_fixture("outlook_bulleted_list.eml")
    assert read_body(mail.text).lines == (
        "SIGNON Ttest01 pw-tur", "", "F Ank-Bla", "A Con-Bul", "", "A Smy H",
    )  # fmt: skip


def test_long_lines_of_blanks_and_marks_are_read_in_linear_time() -> None:
    # A header pattern with two optional runs of blanks in a row took quadratic time on a
    # line of blanks (minutes for 20,000); each of these takes well under a second.
    import time

    for line in (" " * 100_000 + ":", "\t" * 100_000, "*" * 100_000 + ":", "From" + " " * 100_000):
        start = time.perf_counter()
        body = read_body(f"A Par-Bur\n{line}\nF Bre H")
        assert time.perf_counter() - start < 5, repr(line[:10])
        assert len(body.lines) + len(body.left_out) == 3


def test_apple_mail_text_after_a_picture_is_read() -> None:
    # Apple Mail sends the text after an inline picture as a second text/plain part of the
    # multipart/mixed: the player's words continue there and are read, in order.
    mail = read_fixture("apple_mail_text_after_picture.eml")
    assert mail.text == (
        "SIGNON Ftest01 paris-123\nA Par-Bur\n\nHere is the plan as I drew it:"
        "\n\nA Mar S A Par-Bur\nF Bre-MAO\n\nFrançoise"
    )
    assert mail.unread_parts == (
        "an attachment plan.png (image/png): only the text of the message itself is read",
    )
    # The same from an iPhone writing HTML only.
    mail = read_fixture("apple_ios_html_after_picture.eml")
    assert mail.text == (
        "SIGNON Ftest01 paris-123\nA Par-Bur\nA Mar S A Par-Bur\nF Bre-MAO\n\nSent from my iPhone"
    )
    assert mail.unread_parts == (
        "an attachment IMG_0412.png (image/png): only the text of the message itself is read",
    )


def test_text_parts_of_a_mixed_message_are_read_but_not_attachments_or_alternatives() -> None:
    msg = plain_message("A Par-Bur\n")
    msg.add_attachment(b"\x89PNG\r\n", maintype="image", subtype="png", disposition="inline")
    msg.add_attachment(b"A Ber-Kie\n", maintype="text", subtype="plain", filename="old.txt")
    msg.add_attachment(b"F Bre-MAO\n", maintype="text", subtype="plain", disposition="inline")
    text = plain_message("A Mar H\n")
    text.add_alternative("<div>A Mar H</div>", subtype="html")
    alternative = text.get_payload()
    inner = EmailMessage()
    inner["Content-Type"] = "multipart/alternative"
    inner.set_payload(alternative)
    inner.set_param("boundary", "inner-alt")
    msg.attach(inner)
    mail = decode(bytes(msg))
    assert mail.text == "A Par-Bur\nF Bre-MAO\nA Mar H\n"
    assert mail.unread_parts == (
        "an attachment (image/png): only the text of the message itself is read",
        "an attachment old.txt (text/plain): only the text of the message itself is read",
    )


def test_apple_mail_rich_text_reads_the_plain_alternative_once() -> None:
    raw = (
        b"From: france@example.org\r\nContent-Type: multipart/alternative; boundary=a\r\n\r\n"
        b"--a\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
        b"A Par-Bur\r\n\r\n<plan.png>\r\n\r\nA Mar S A Par-Bur\r\n"
        b"--a\r\nContent-Type: multipart/mixed; boundary=m\r\n\r\n"
        b"--m\r\nContent-Type: text/html\r\n\r\n<div>A Par-Bur</div>\r\n"
        b"--m\r\nContent-Type: image/png; name=plan.png\r\nContent-Disposition: inline; "
        b"filename=plan.png\r\n\r\nPNG\r\n"
        b"--m\r\nContent-Type: text/html\r\n\r\n<div>A Mar S A Par-Bur</div>\r\n--m--\r\n"
        b"--a--\r\n"
    )
    mail = decode(raw)
    assert mail.text == "A Par-Bur\n\n<plan.png>\n\nA Mar S A Par-Bur"
    assert mail.unread_parts == ()


def test_many_inline_alternatives_are_decoded_in_linear_time() -> None:
    # Each group of alternatives read is looked up once, not against every other group.
    import time

    parts = b"".join(
        b"--m\r\nContent-Type: multipart/alternative; boundary=a%d\r\n\r\n--a%d\r\n"
        b"Content-Type: text/plain\r\n\r\nx\r\n--a%d--\r\n" % (i, i, i)
        for i in range(2000)
    )
    raw = b"From: a@b.org\r\nContent-Type: multipart/mixed; boundary=m\r\n\r\n" + parts + b"--m--"
    start = time.perf_counter()
    mail = decode(raw)
    assert time.perf_counter() - start < 6
    # More multipart parts than the judge reads (issue 11): the body is not read at all.
    assert mail.text == ""
    assert mail.unread_parts == (
        "the body: it has 2,001 multipart parts, more than the 64 this judge reads; please "
        "send your commands as plain text",
    )
