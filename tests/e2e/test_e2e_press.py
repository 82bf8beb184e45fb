"""Acceptance (issue 14): press between players, by injected mail, with a fixed clock.

Four games, one per kind of press: a white game (white press, a broadcast an observer
receives, grey and faked press refused, press releases with a true and a false
condition, reserved datelines used rightly and forged, HISTORY PRESS), a grey game (a
grey press whose recipient's copy names its sender nowhere: every header and the body,
as the mail is built for sending), a game that allows fakes (a press that claims another
sender), and a game without press (press to the game master only).  Every email the
judge sends is compared word for word with a golden file per step (``UPDATE_GOLDEN=1``
rewrites them: then read them).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from sqlalchemy import select
from support.servicekit import Table, at, make_app

from judge.db.models import InboundMessage, OutboundMessage, PressRecord
from judge.mail.compose import build_email
from judge.runtime.bootstrap import App
from judge.services.game_files import load_game
from judge.services.games import start_game
from judge.services.outbox import outgoing_mail

PLAYERS = """\
[master]
address = "gm@example.org"
password = "gm-secret"

[players]
Austria = { address = "austria@example.org", password = "pw-aus" }
England = { address = "england@example.org", password = "pw-eng" }
France = { address = "france@example.org", password = "pw-fra" }
Germany = { address = "germany@example.org", password = "pw-ger" }
Italy = { address = "italy@example.org", password = "pw-ita" }
Russia = { address = "russia@example.org", password = "pw-rus" }
Turkey = { address = "turkey@example.org", password = "pw-tur" }
"""

GM = "gm@example.org"
WATCHER = "watcher@example.net"
SIGNON = {
    "austria": "SIGNON Atest01 pw-aus\n",
    "england": "SIGNON Etest01 pw-eng\n",
    "france": "SIGNON Ftest01 pw-fra\n",
    "germany": "SIGNON Gtest01 pw-ger\n",
    "italy": "SIGNON Itest01 pw-ita\n",
    "gm": "SIGNON Mtest01 gm-secret\n",
}


def game(tmp_path: Path, press: str, extra: str = "") -> tuple[App, Table]:
    """A judge with game ``test01`` of the ``press`` kind, started 2026-11-23 12:00."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(
        f'[game]\nname = "test01"\nrules = "2023"\ntimezone = "Europe/London"\n'
        f'press = "{press}"\n{extra}\n[deadlines]\nmovement = {{ hours = 48, at = "20:00" }}\n'
        f"retreat = 24\nadjustment = 24\n\n{PLAYERS}"
    )
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    table = Table(app)
    table.new_mail()  # the game start: its own tests pin it down
    return app, table


def send(table: Table, who: str, text: str, when: str) -> None:
    table.send(f"{who}@example.org", SIGNON[who] + text, when)


def to(rows: list[OutboundMessage]) -> list[str]:
    return [row.to_addr for row in rows]


def built(app: App, row: OutboundMessage) -> bytes:
    """The mail as the judge hands it to the mail server: every header and the body."""
    return build_email(outgoing_mail(row, app.judge.settings, at("2026-11-23 13:00"))).as_bytes()


def test_press_in_a_white_game(tmp_path: Path) -> None:
    app, table = game(tmp_path, "white")
    table.send(WATCHER, "OBSERVE test01\n", "2026-11-23 12:10")
    table.new_mail()

    # White press to two powers, initials run together: each gets a copy naming England.
    send(table, "england", "PRESS TO FG\nShall we share the Channel?\nENDPRESS\n", (
        "2026-11-23 13:00"
    ))  # fmt: skip
    rows = table.check("press_01_white")
    # The press goes out first, then the sender's confirmation.
    assert to(rows) == ["france@example.org", "germany@example.org", "england@example.org"]
    assert "Message from England to France, Germany" in rows[0].body

    # Grey and faked press are refused in a white game; the text comes back, nothing is sent.
    send(table, "england", (
        "PRESS TO F GREY\nThe Kaiser is lying.\nENDPRESS\n"
        "PRESS TO F FAKE AS G\nGermany here: I will not move to Burgundy.\nENDPRESS\n"
    ), "2026-11-23 13:10")  # fmt: skip
    (refused,) = table.check("press_02_refused_kinds")
    assert refused.to_addr == "england@example.org"
    assert refused.subject.startswith("[Error Flag]")
    assert "The Kaiser is lying." in refused.body
    assert "Germany here: I will not move to Burgundy." in refused.body

    # A broadcast reaches every other player, the game master and the observer.
    send(table, "france", "BROADCAST\nFrance wants peace.\nENDBROADCAST\nA Par-Bur\n", (
        "2026-11-23 13:20"
    ))  # fmt: skip
    rows = table.check("press_03_broadcast")
    assert set(to(rows)) == {
        "france@example.org", GM, WATCHER,
        *(f"{p}@example.org" for p in ("austria", "england", "germany", "italy", "russia",
                                       "turkey")),
    }  # fmt: skip

    # Press releases for the results: a true and a false condition, reserved datelines.
    send(table, "italy", (
        "A Ven-Tyr\nA Rom-Ven\nF Nap-ION\n"
        "PRESS PUBLISH IF A Ven-Tyr SUCCEEDS\nDATELINE Rome\nItaly marches north.\nENDPRESS\n"
    ), "2026-11-23 14:00")  # fmt: skip
    send(table, "austria", (
        "A Vie-Gal\nA Bud-Ser\nF Tri-Alb\n"
        "PRESS PUBLISH IF A Vie-Gal FAILS\nDATELINE Vienna\nGalicia held against us.\nENDPRESS\n"
    ), "2026-11-23 14:10")  # fmt: skip
    send(table, "germany", (
        "PRESS PUBLISH\nDATELINE Vienna\nThe Emperor abdicates.\nENDPRESS\n"
        "PRESS PUBLISH\nDATELINE Munich\nBeer for everyone.\nENDPRESS\n"
    ), "2026-11-23 14:20")  # fmt: skip
    send(table, "england", (
        "POSTALPRESS\nDATELINE Versailles\nThe Congress is closed.\nENDPRESS\n"
    ), "2026-11-23 14:30")  # fmt: skip
    send(table, "gm", "PRESS PUBLISH\nDATELINE Versailles\nThe Congress opens.\nENDPRESS\n", (
        "2026-11-23 14:40"
    ))  # fmt: skip
    rows = table.check("press_04_releases_held")
    assert "reserved for Austria" in rows[2].body  # Germany's forged Vienna
    assert "reserved for the game master" in rows[3].body  # England's Versailles

    table.process("2026-11-25 20:00")
    results = table.check("press_05_results")
    assert table.units()["tyr"] == "Ita A" and table.units()["gal"] == "Aus A"
    by_reader = {row.to_addr: row.body for row in results}
    for reader, body in by_reader.items():
        assert "Italy marches north." in body and "Beer for everyone." in body, reader
        assert "The Congress opens." in body, reader
        # Austria's condition failed: not published; Austria alone is told so.
        told = " ".join(body.split())
        assert ('Galicia held against us." was not published' in told) is (
            reader == "austria@example.org"
        ), reader
    assert by_reader[WATCHER] == by_reader["england@example.org"]

    # HISTORY PRESS: what France sent and received, the broadcasts and the releases.
    table.send("france@example.org", "SIGNON Ftest01 pw-fra\nHISTORY test01 PRESS\n", (
        "2026-11-26 09:00"
    ))  # fmt: skip
    (history,) = table.check("press_06_history")
    assert "Shall we share the Channel?" in history.body
    assert "France wants peace." in history.body and "Italy marches north." in history.body
    assert "The Emperor abdicates." not in history.body  # refused: never sent

    with app.sessions() as session:
        assert set(session.scalars(select(InboundMessage.state))) == {"done"}


def test_a_grey_press_names_its_sender_nowhere(tmp_path: Path) -> None:
    app, table = game(tmp_path, "grey")
    send(table, "england", "PRESS TO F\nThe Kaiser is lying.\nENDPRESS\n", "2026-11-23 13:00")
    copy, confirmation = table.check("press_10_grey")
    assert to([copy, confirmation]) == ["france@example.org", "england@example.org"]
    raw = built(app, copy)
    # Every header and the body, as the mail server receives them.
    for leak in (b"england", b"England", b"ENGLAND", b"pw-eng", b"m1@players.example"):
        assert leak not in raw, leak
    assert b"In-Reply-To" not in raw and b"References" not in raw
    # The Message-ID holds no time, and delivery waits a random delay (up to 300 s), so
    # that nothing ties the press to the sender's own mail of the same moment.
    assert copy.message_id.count(".") <= 1 and "2026" not in copy.message_id
    assert copy.next_attempt_at is not None
    assert (
        at("2026-11-23 13:00")
        < copy.next_attempt_at
        <= at("2026-11-23 13:00") + timedelta(seconds=300)
    )
    with app.sessions() as session:
        record = session.scalars(select(PressRecord)).one()
        assert (record.sender_power, record.signed, record.shown_from) == ("England", "grey", None)

    # White is refused in a grey game; France's HISTORY shows the press without its sender.
    send(table, "england", "PRESS TO F WHITE\nSigned: England.\nENDPRESS\n", "2026-11-23 13:10")
    table.check("press_11_white_refused")
    table.send("france@example.org", "SIGNON Ftest01 pw-fra\nHISTORY test01 PRESS\n", (
        "2026-11-23 13:20"
    ))  # fmt: skip
    (history,) = table.check("press_12_grey_history")
    assert "The Kaiser is lying." in history.body and "England" not in history.body


def test_a_fake_press_claims_another_sender(tmp_path: Path) -> None:
    _app, table = game(tmp_path, "fake")
    send(table, "england", (
        "PRESS TO F FAKE AS G\nGermany here: Burgundy is yours.\nENDPRESS\n"
        "PRESS TO F GREY\nWatch Belgium.\nENDPRESS\n"
    ), "2026-11-23 13:00")  # fmt: skip
    fake, grey, confirmation = table.check("press_20_fake")
    assert to([fake, grey, confirmation]) == [
        "france@example.org", "france@example.org", "england@example.org",
    ]  # fmt: skip
    assert "Message from Germany to France" in fake.body
    assert "England" not in fake.body and "England" not in fake.subject
    assert "England" not in grey.body


def test_no_press_but_to_the_game_master(tmp_path: Path) -> None:
    _app, table = game(tmp_path, "none")
    send(table, "england", (
        "PRESS TO F\nShall we talk?\nENDPRESS\n"
        "BROADCAST\nHello all.\nENDPRESS\n"
        "PRESS TO M\nMay I have two more days? I am travelling.\nENDPRESS\n"
    ), "2026-11-23 13:00")  # fmt: skip
    to_master, reply = table.check("press_30_none")
    assert to([to_master, reply]) == [GM, "england@example.org"]
    assert reply.subject.startswith("[Error Flag]")
    assert "Shall we talk?" in reply.body and "Hello all." in reply.body
    assert "Message from England to the game master" in to_master.body
