"""Sending press by mail: PRESS and BROADCAST against the game's press settings, the mail
each recipient gets (and what it never shows), the sender's confirmation, the game
master's copy, refusals with the text given back, and SET PRESS."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at

from judge.config import JudgeSettings
from judge.db.models import Game, OutboundMessage, PhaseRecord, PressRecord
from judge.runtime.bootstrap import App, open_app
from judge.services.game_files import load_game
from judge.services.game_settings import game_settings
from judge.services.games import start_game

FRANCE = "SIGNON Ftest01 paris-123\n"
ADDRESSES = [
    f"{power}@example.org"
    for power in ("austria", "england", "france", "germany", "italy", "russia", "turkey")
]
WHEN = "2026-11-23 13:00"
#: The headers of every press mail: nothing in them about who sent it.
PRESS_HEADERS = {
    "Auto-Submitted": "auto-generated",
    "X-Auto-Response-Suppress": "All",
    "Precedence": "bulk",
    "X-Loop": "judge@example.org",
}
ANSWER_FRANCE = (
    "----\n"
    "To answer France: sign on to test01, then write PRESS TO F alone on a line,\n"
    "your text, and ENDPRESS alone on a line.\n"
    "\n"
    "TESTJUDGE\n"
)
ANSWER_GREY = (
    "----\n"
    "The sender is not named: to answer, sign on to test01 and send press to whom\n"
    "you choose (PRESS TO and their initials, your text, then ENDPRESS alone on a\n"
    "line) or a BROADCAST.\n"
    "\n"
    "TESTJUDGE\n"
)


def make_game(tmp_path: Path, extra: str = "", *, delay: int = 0) -> tuple[App, Table]:
    """game test01 (``extra`` lines in its [game] table) started at 2026-11-23 12:00, on
    a judge whose grey press is held up to ``delay`` seconds."""
    settings = JudgeSettings(
        name="TESTJUDGE", address="judge@example.org", var_dir=tmp_path / "var",
        database_url=f"sqlite:///{tmp_path / 'judge.db'}", grey_press_delay=delay,
    )  # fmt: skip
    app = open_app(settings)
    app.judge.make_password = lambda: "paris-123"
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace('rules = "2023"\n', f'rules = "2023"\n{extra}'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    table = Table(app)
    table.new_mail()
    return app, table


def split(rows: list[OutboundMessage]) -> tuple[list[OutboundMessage], OutboundMessage]:
    """The press mails, and the one reply to the sender (the last row)."""
    *press, reply = rows
    assert all(r.kind == "press" for r in press), [r.kind for r in rows]
    assert reply.kind not in ("press",)
    return press, reply


def records(app: App) -> list[PressRecord]:
    with app.sessions() as session:
        return list(session.scalars(select(PressRecord).order_by(PressRecord.id)))


def refused(body: str, line: str, reason: str, text: str, *, confirm: bool = True) -> bool:
    """Whether the reply ``body`` refuses the press of ``line`` with ``reason`` (the
    confirmation of a player's orders quotes it as ``  LINE -> reason``, the reply to
    anyone else as ``> LINE`` and the reason) and gives its ``text`` back."""
    back = "\n".join(f"  | {row}" for row in text.split("\n"))
    given = f"This press was not sent ({line}); its text, for you to send again:\n\n{back}\n"
    flagged = (
        f"  {line}\n    -> {reason}\n"
        if confirm
        else f"> {line}\n{reason[0].upper()}{reason[1:]}.\n"
    )
    return given in body and flagged in body


# -- white press ---------------------------------------------------------------------------


def test_white_press_to_two_powers_reaches_each_alone_and_is_confirmed(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    table.send("france@example.org", (
        f"{FRANCE}A Par H\nPRESS TO EG\nShall we talk?\nA Bur-Par\nENDPRESS\nF Bre-MAO\n"
    ), WHEN)  # fmt: skip
    press, reply = split(table.new_mail())
    assert [r.to_addr for r in press] == ["england@example.org", "germany@example.org"]
    for row in press:
        assert row.subject == "Diplomacy game test01: press from France"
        assert row.body == (
            "Message from France to England, Germany in game test01 (S1901M):\n"
            "\n"
            "Shall we talk?\n"
            "A Bur-Par\n"
            "\n" + ANSWER_FRANCE
        )
        assert row.headers == PRESS_HEADERS
        assert row.next_attempt_at is None
        # A Message-ID without the time it was written.
        assert re.fullmatch(r"<[0-9a-f]{32}@example\.org>", row.message_id)
    assert press[0].message_id != press[1].message_id
    assert reply.to_addr == "france@example.org" and reply.subject == "Re: orders"
    # The press is never read as orders; the orders around it are.
    assert reply.body == (
        ":: Judge: TESTJUDGE  Game: test01  Variant: Standard\n"
        ":: Deadline: S1901M Wed Nov 25 2026 20:00:00 +0000 (Europe/London)\n"
        "\n"
        "Press sent to England and Germany (white, from France; 2 lines, 24 characters).\n"
        "\n"
        "Movement orders for Spring of 1901.  (test01.001)\n"
        "\n"
        "France: Fleet Brest -> Mid-Atlantic Ocean.\n"
        "France: Army Paris HOLD.\n"
        "France: Army Marseilles, No Order Processed.\n"
        "\n"
        "Your orders are not complete yet. Still to be ordered:\n"
        "  France: Army Marseilles, No Order Processed.\n"
        "\n"
        "The deadline for S1901M is Wed Nov 25 2026 20:00:00 +0000 (Europe/London).\n"
    )
    [record] = records(app)
    assert (record.sender_role, record.sender_power, record.sender_address) == (
        "power",
        "France",
        "france@example.org",
    )
    assert (record.signed, record.shown_from, record.shown_to, record.state) == (
        "white",
        "France",
        "England, Germany",
        "sent",
    )
    assert record.recipients == {
        "powers": ["England", "Germany"], "master": False, "observers": False,
        "broadcast": False,
    }  # fmt: skip
    assert record.body == "Shall we talk?\nA Bur-Par"
    assert (record.seq, record.phase) == (1, "S1901M")


def test_press_naming_your_own_power_drops_it_and_says_so(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    table.send("france@example.org", f"{FRANCE}PRESS TO France, Italy\nCiao.\nENDPRESS\n", WHEN)
    press, reply = split(table.new_mail())
    assert [r.to_addr for r in press] == ["italy@example.org"]
    assert press[0].body.startswith("Message from France to Italy in game test01 (S1901M):\n")
    assert (
        "Press sent to Italy (white, from France; 1 line, 5 characters). Your own power "
        "was left out of the recipients.\n"
    ) in reply.body
    table.send("france@example.org", f"{FRANCE}PRESS TO F\nMe.\nENDPRESS\n", WHEN)
    [reply] = table.new_mail()
    assert refused(
        reply.body,
        "PRESS TO F",
        "the press reaches nobody (France is your own power): name other powers, M or O",
        "Me.",
    )
    assert len(records(app)) == 1


def test_a_press_without_endpress_runs_to_the_end_of_the_message(tmp_path: Path) -> None:
    _app, table = make_game(tmp_path)
    # (A press that holds lines read as orders needs its ENDPRESS: see below.)
    table.send("france@example.org", f"{FRANCE}PRESS TO E\nBurgundy?\nCheers,\nMarie\n", WHEN)
    press, reply = split(table.new_mail())
    assert press[0].body.startswith(
        "Message from France to England in game test01 (S1901M):\n\nBurgundy?\nCheers,\nMarie\n"
    )
    assert (
        "Press sent to England (white, from France; 3 lines, 23 characters). It had no "
        "ENDPRESS after it, so it ran to the end of your message.\n"
    ) in reply.body
    assert "Army Burgundy" not in reply.body


# -- grey and fake press ------------------------------------------------------------------


def test_grey_press_names_its_sender_nowhere_its_recipients_can_see(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, 'press = "grey"\n', delay=300)
    table.send("france@example.org", (
        f"{FRANCE}PRESS TO AEIRT\nGermany is lying to all of us.\nENDPRESS\n"
    ), WHEN)  # fmt: skip
    press, reply = split(table.new_mail())
    assert [r.to_addr for r in press] == [
        f"{p}@example.org" for p in ("austria", "england", "italy", "russia", "turkey")
    ]
    for row in press:
        assert row.subject == "Diplomacy game test01: press"
        # Five of the six others: shown as "all but Germany", six possible senders.
        assert row.body == (
            "Message to all but Germany, the game master in game test01 (S1901M):\n"
            "\n"
            "Germany is lying to all of us.\n"
            "\n" + ANSWER_GREY
        )
        assert row.headers == PRESS_HEADERS
        assert re.fullmatch(r"<[0-9a-f]{32}@example\.org>", row.message_id)
        seen = [row.subject, row.body, row.message_id, row.to_addr, *row.headers.values()]
        for text in seen:
            assert "france" not in text.lower() and "paris" not in text.lower()
        # Held a random while, so that it does not arrive with France's confirmation.
        assert row.next_attempt_at is not None
        held = row.next_attempt_at.replace(tzinfo=None) - at(WHEN).replace(tzinfo=None)
        assert timedelta(seconds=150) <= held <= timedelta(seconds=300)
    assert reply.to_addr == "france@example.org" and reply.next_attempt_at is None
    assert (
        "Press sent to Austria, England, Italy, Russia and Turkey (grey, your power not "
        "named; 1 line, 30 characters). Its readers see it as addressed to all but "
        "Germany, the game master. It goes out within 5 minutes, at a random moment, so "
        "that its arrival ties it to nothing else you send.\n"
    ) in reply.body
    [record] = records(app)
    assert (record.signed, record.shown_from, record.shown_to, record.sender_power) == (
        "grey",
        None,
        "all but Germany, the game master",
        "France",
    )


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        # One recipient: listed (six possible senders).
        ("PRESS TO E", "Message to England in game test01"),
        # Every other power: a broadcast.
        ("PRESS TO AEGIRTM", "Broadcast message in game test01"),
        # Five of six, the master not: "all but" leaves six possible senders.
        ("PRESS TO ALL BUT G", "Message to all but Germany in game test01"),
    ],
)
def test_grey_press_shows_its_recipients_so_as_not_to_single_out_the_sender(
    tmp_path: Path, line: str, shown: str
) -> None:
    _app, table = make_game(tmp_path, 'press = "grey/white"\n')
    table.send("france@example.org", f"{FRANCE}{line}\nPsst.\nENDPRESS\n", WHEN)
    press, _reply = split(table.new_mail())
    assert {r.body.split(" (S1901M)")[0] for r in press} == {shown}


def test_fake_as_another_power_is_shown_from_that_power(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, 'press = "fake"\n')
    table.send(
        "france@example.org", f"{FRANCE}PRESS TO E FAKE AS G\nBerlin sends love.\nENDPRESS\n", WHEN
    )
    press, reply = split(table.new_mail())
    [row] = press
    assert row.to_addr == "england@example.org"
    assert row.subject == "Diplomacy game test01: press from Germany"
    assert row.body == (
        "Message from Germany to England in game test01 (S1901M):\n"
        "\n"
        "Berlin sends love.\n"
        "\n"
        "----\n"
        "To answer Germany: sign on to test01, then write PRESS TO G alone on a line,\n"
        "your text, and ENDPRESS alone on a line.\n"
        "\n"
        "TESTJUDGE\n"
    )
    assert "france" not in str(row.headers).lower()
    assert (
        "Press sent to England (faked as from Germany; 1 line, 18 characters). Its readers "
        "see it as addressed to England.\n"
    ) in reply.body
    [record] = records(app)
    assert (record.signed, record.shown_from, record.sender_power) == ("fake", "Germany", "France")


def test_fake_broadcast_is_shown_as_a_broadcast_to_its_real_recipients(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, 'press = "fake"\n')
    table.send(
        "france@example.org", f"{FRANCE}PRESS TO E GREY FAKE BROADCAST\nHear ye.\nENDPRESS\n", WHEN
    )
    press, reply = split(table.new_mail())
    [row] = press
    assert row.to_addr == "england@example.org"
    assert row.subject == "Diplomacy game test01: broadcast"
    assert row.body.startswith("Broadcast message in game test01 (S1901M):\n\nHear ye.\n")
    assert "Its readers see it as a broadcast." in reply.body
    [record] = records(app)
    assert (record.signed, record.shown_from, record.shown_to) == ("fake", None, "all")
    assert record.recipients["powers"] == ["England"] and not record.recipients["broadcast"]


# -- refusals -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "line", "reason"),
    [
        ('press = "white"\n', "PRESS TO E GREY",
         "game test01 has white press only: every press names its sender; leave GREY out"),
        ('press = "grey"\n', "PRESS TO E WHITE",
         "game test01 has grey press only: no press names its sender; leave WHITE out"),
        ('press = "white/grey"\n', "PRESS TO E FAKE AS G",
         "game test01 has white/grey press, never faked: leave FAKE out (only a game with fake "
         "press allows it)"),
        ('press = "none"\n', "PRESS TO E",
         "game test01 has no press; you may still write to the game master: PRESS TO M"),
        ('press = "fake"\n', "PRESS TO E GREY FAKE AS G",
         "GREY and FAKE AS Germany: a press hides its sender or shows another, not both; "
         "leave one out"),
        ('press = "fake"\n', "PRESS TO M FAKE AS G",
         "press to the game master is never faked: leave FAKE out"),
        ("", "PRESS",
         "PRESS alone sends nothing: name the recipients, PRESS TO <powers> ... ENDPRESS "
         "(initials PRESS TO FG, or names), or BROADCAST for everyone"),
        ("", "PRESS TO Q",
         "TO Q: 'Q' names no power; write the powers' initials run together (PRESS TO FG) "
         "or their names (PRESS TO France, Germany), M for the game master, O for the "
         "observers"),
        ("", "PRESS TO FO",
         "game test01 has no observers: leave O out"),
    ],
)  # fmt: skip
def test_press_the_game_does_not_allow_is_refused_with_its_text_given_back(
    tmp_path: Path, extra: str, line: str, reason: str
) -> None:
    app, table = make_game(tmp_path, extra)
    table.send("france@example.org", f"{FRANCE}{line}\nSecret plan:\nA Par-Bur\nENDPRESS\n", WHEN)
    [reply] = table.new_mail()
    assert reply.to_addr == "france@example.org"
    assert reply.subject == "[Error Flag] Re: orders"
    assert refused(reply.body, line, reason, "Secret plan:\nA Par-Bur")
    assert records(app) == []


def test_press_to_a_power_without_a_player_is_refused_naming_it(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nRESIGN\n", WHEN)
    table.new_mail()
    table.send("france@example.org", f"{FRANCE}PRESS TO EG\nHello.\nENDPRESS\n", WHEN)
    [reply] = table.new_mail()
    assert refused(
        reply.body,
        "PRESS TO EG",
        "England has no player in test01 (its seat is open): no press reaches it; name "
        "the powers still played",
        "Hello.",
    )
    assert records(app) == []
    # A broadcast passes it over.
    table.send("france@example.org", f"{FRANCE}BROADCAST\nHello.\nENDPRESS\n", WHEN)
    press, _reply = split(table.new_mail())
    assert "england@example.org" not in [r.to_addr for r in press]


def test_press_to_the_master_goes_through_in_a_game_without_press(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, 'press = "none"\n')
    table.send(
        "france@example.org", f"{FRANCE}PRESS TO M GREY\nMay I have more time?\nENDPRESS\n", WHEN
    )
    press, reply = split(table.new_mail())
    [row] = press
    assert row.to_addr == "gm@example.org"
    assert row.subject == "Diplomacy game test01: press from France"
    assert row.body.startswith(
        "Message from France to the game master in game test01 (S1901M):\n\nMay I have more time?\n"
    )
    assert (
        "Press sent to the game master (white, from France; 1 line, 21 characters). Press "
        "to the game master is always white.\n"
    ) in reply.body
    [record] = records(app)
    assert (record.signed, record.shown_to) == ("white", "the game master")


def test_the_masters_press_is_white_and_allowed_in_a_game_without_press(
    tmp_path: Path,
) -> None:
    _app, table = make_game(tmp_path, 'press = "none"\n')
    table.send(
        "gm@example.org", "SIGNON Mtest01 gm-secret\nPRESS TO FG\nDeadline holds.\nENDPRESS\n", WHEN
    )
    press, reply = split(table.new_mail())
    assert [r.to_addr for r in press] == ["france@example.org", "germany@example.org"]
    assert press[0].subject == "Diplomacy game test01: press from the game master"
    assert press[0].body == (
        "Message from the game master to France, Germany in game test01 (S1901M):\n"
        "\n"
        "Deadline holds.\n"
        "\n"
        "----\n"
        "To answer the game master: sign on to test01, then write PRESS TO M alone on\n"
        "a line, your text, and ENDPRESS alone on a line.\n"
        "\n"
        "TESTJUDGE\n"
    )
    assert (
        "Press sent to France and Germany (from the game master; 1 line, 15 characters)."
        in reply.body
    )


# -- broadcasts, partial press, observers ---------------------------------------------------


def test_a_broadcast_reaches_every_player_the_master_and_an_observer(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    table.send("watcher@example.net", "OBSERVE test01\n", WHEN)
    table.new_mail()
    table.send("france@example.org", f"{FRANCE}BROADCAST\nHello all.\nENDBROADCAST\n", WHEN)
    press, reply = split(table.new_mail())
    assert [r.to_addr for r in press] == [
        *(f"{p}@example.org" for p in ("austria", "england", "germany", "italy", "russia",
                                         "turkey")),
        "gm@example.org", "watcher@example.net",
    ]  # fmt: skip
    for row in press:
        assert row.subject == "Diplomacy game test01: broadcast from France"
        assert row.body == (
            "Broadcast message from France in game test01 (S1901M):\n\nHello all.\n\n"
            + ANSWER_FRANCE
        )
    assert (
        "Press sent to Austria, England, Germany, Italy, Russia, Turkey, the game master "
        "and 1 observer (white, from France; 1 line, 10 characters).\n"
    ) in reply.body
    [record] = records(app)
    assert record.shown_to == "all" and record.recipients["broadcast"] is True


def test_without_partial_press_only_broadcasts_and_press_to_the_master_go(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path, "partial_press = false\n")
    table.send("france@example.org", f"{FRANCE}PRESS TO E\nJust us.\nENDPRESS\n", WHEN)
    [reply] = table.new_mail()
    assert refused(
        reply.body,
        "PRESS TO E",
        "game test01 allows broadcasts only (no partial press): BROADCAST ... ENDPRESS, or "
        "PRESS TO M for the game master",
        "Just us.",
    )
    table.send("france@example.org", (
        f"{FRANCE}BROADCAST\nAll of us.\nENDPRESS\nPRESS TO M\nHelp.\nENDPRESS\n"
    ), WHEN)  # fmt: skip
    press, _reply = split(table.new_mail())
    assert len(press) == 8 and press[-1].body.startswith("Message from France to the game master")
    assert len(records(app)) == 2


def test_observers_press_follows_observer_press(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, 'observer_press = "broadcast"\n')
    watch = "OBSERVE test01\n"
    table.send("watcher@example.net", f"{watch}PRESS TO E\nGo east.\nENDPRESS\n", WHEN)
    [reply] = table.new_mail()
    assert refused(
        reply.body,
        "PRESS TO E",
        "the observers of test01 may send broadcasts only: BROADCAST ... ENDPRESS",
        "Go east.",
        confirm=False,
    )
    table.send("watcher@example.net", f"{watch}BROADCAST\nGo east.\nENDPRESS\n", WHEN)
    press, reply = split(table.new_mail())
    assert len(press) == 8 and "watcher@example.net" not in [r.to_addr for r in press]
    assert press[0].subject == "Diplomacy game test01: broadcast from an observer"
    assert press[0].body == (
        "Broadcast message from an observer in game test01 (S1901M):\n"
        "\n"
        "Go east.\n"
        "\n"
        "----\n"
        "Observers are not named: to answer, sign on to test01 and send a BROADCAST\n"
        "(or PRESS TO O, for the observers alone), your text, and ENDPRESS alone on a\n"
        "line.\n"
        "\n"
        "TESTJUDGE\n"
    )
    [record] = records(app)
    assert (record.sender_role, record.shown_from, record.sender_address) == (
        "observer",
        "Observer",
        "watcher@example.net",
    )


def test_observers_without_press_may_still_write_to_the_master(tmp_path: Path) -> None:
    _app, table = make_game(tmp_path, 'observer_press = "none"\n')
    watch = "OBSERVE test01\n"
    table.send("watcher@example.net", f"{watch}BROADCAST\nHi.\nENDPRESS\n", WHEN)
    [reply] = table.new_mail()
    assert refused(
        reply.body,
        "BROADCAST",
        "the observers of test01 may send no press, except to the game master: PRESS TO M",
        "Hi.",
        confirm=False,
    )
    table.send("watcher@example.net", f"{watch}PRESS TO M\nHi.\nENDPRESS\n", WHEN)
    press, _reply = split(table.new_mail())
    assert [r.to_addr for r in press] == ["gm@example.org"]


# -- limits ---------------------------------------------------------------------------------


def test_press_longer_than_the_game_allows_or_one_too_many_is_refused(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, "press_max_chars = 20\npress_per_hour = 2\n")
    table.send("france@example.org", (
        f"{FRANCE}PRESS TO E\nThis text is too long.\nENDPRESS\n"
    ), WHEN)  # fmt: skip
    [reply] = table.new_mail()
    assert refused(
        reply.body,
        "PRESS TO E",
        "the press is 22 characters long; test01 takes press of at most 20 characters: cut "
        "it, or send it in parts",
        "This text is too long.",
    )
    two = (
        f"{FRANCE}PRESS TO E\nOne.\nENDPRESS\nPRESS TO G\nTwo.\nENDPRESS\n"
        "PRESS TO I\nThree.\nENDPRESS\n"
    )
    table.send("france@example.org", two, WHEN)
    press, reply = split(table.new_mail())
    assert [r.to_addr for r in press] == ["england@example.org", "germany@example.org"]
    assert refused(
        reply.body,
        "PRESS TO I",
        "you have sent 2 press in test01 in the last hour, the most the game allows; send "
        "this one again later",
        "Three.",
    )
    assert len(records(app)) == 2


# -- the master's copy ----------------------------------------------------------------------


def test_the_master_reads_a_copy_of_grey_press_with_its_true_sender(tmp_path: Path) -> None:
    _app, table = make_game(tmp_path, 'press = "grey"\nmaster_reads_press = true\n')
    table.send("france@example.org", f"{FRANCE}PRESS TO E\nTrust me.\nENDPRESS\n", WHEN)
    press, _reply = split(table.new_mail())
    assert [r.to_addr for r in press] == ["england@example.org", "gm@example.org"]
    england, master = press
    assert "France" not in england.body
    assert master.subject == "Diplomacy game test01: copy of press"
    assert master.body == (
        "The game master's copy (master_reads_press): France sent this press, grey,\n"
        "to England. Its readers see:\n"
        "\n"
        "Message to England in game test01 (S1901M):\n"
        "\n"
        "Trust me.\n"
        "\n" + ANSWER_GREY
    )
    # Press to the master itself is not copied twice.
    table.send("france@example.org", f"{FRANCE}PRESS TO EM\nUs.\nENDPRESS\n", WHEN)
    press, _reply = split(table.new_mail())
    assert [r.to_addr for r in press] == ["england@example.org", "gm@example.org"]
    assert not press[1].body.startswith("The game master's copy")


def test_game_settings_default_to_white_press(tmp_path: Path) -> None:
    app, _table = make_game(tmp_path)
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert game_settings(game).press.value == "white"


# -- SET PRESS ------------------------------------------------------------------------------


def test_the_master_sets_the_kind_of_press(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    master = "SIGNON Mtest01 gm-secret\n"
    table.send("gm@example.org", f"{master}SET PRESS Grey/White\n", WHEN)
    *news, reply = table.new_mail()
    assert reply.subject == "Re: orders"
    assert (
        "The press of test01 is now: grey/white (grey by default), partial allowed; "
        "observers: any (it was: white, partial allowed; observers: any). Everyone in the "
        "game is told.\n"
    ) in reply.body
    # Every player, the master: the same news, each greeted as themselves.
    assert [r.to_addr for r in news] == [*ADDRESSES, "gm@example.org"]
    assert news[0].subject == "Diplomacy game test01: the press is now grey/white"
    assert news[0].body == (
        "To Austria in 'test01':\n\n"
        "The game master has changed the press of 'test01'. It was: white, partial\n"
        "allowed; observers: any.\n\n"
        "Press from now on:\n"
        "    grey/white (grey by default), partial allowed; observers: any\n\n"
        "Press to and from the game master is always allowed. Send HELP for how to\n"
        "write press.\n\n"
        "TESTJUDGE\n"
    )
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert game_settings(game).press.value == "grey/white"
    # Grey by default now.
    table.send("france@example.org", f"{FRANCE}PRESS TO E\nWho am I?\nENDPRESS\n", WHEN)
    press, _reply = split(table.new_mail())
    assert press[0].body.startswith("Message to England in game test01 (S1901M):\n")
    table.send("gm@example.org", f"{master}SET PRESS loud\nSET PRESS grey/white\n", WHEN)
    [reply] = table.new_mail()
    assert reply.subject == "[Error Flag] Re: orders"
    assert (
        "> SET PRESS loud\nSET PRESS loud: not a kind of press; the kinds are none, white, "
        "grey, white/grey, grey/white, fake.\n"
    ) in reply.body
    assert "The press of test01 is already as asked; nothing changed.\n" in reply.body
    table.send("france@example.org", f"{FRANCE}SET PRESS none\n", WHEN)
    [reply] = table.new_mail()
    assert (
        "  SET PRESS none\n    -> only the game master can do this: SIGNON M<game> "
        "<password> first\n"
    ) in reply.body


def test_the_njudge_forms_set_the_press(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    master = "SIGNON Mtest01 gm-secret\n"
    for line, press, partial in (
        ("SET GREY", "grey", True),
        ("SET NO PARTIAL", "grey", False),
        ("SET WHITE", "white", False),
        ("SET PARTIAL", "white", True),
        ("SET NOPRESS", "none", True),
    ):
        table.send("gm@example.org", f"{master}{line}\n", WHEN)
        *news, reply = table.new_mail()
        assert "Everyone in the game is told." in reply.body, line
        assert len(news) == 8, line
        with app.sessions() as session:
            settings = game_settings(session.scalars(select(Game)).one())
        assert (settings.press.value, settings.partial_press) == (press, partial), line
    # No press: a player's press to another power is refused, to the master it goes.
    table.send("france@example.org", f"{FRANCE}PRESS TO E\nHello.\nENDPRESS\n", WHEN)
    assert [r.kind for r in table.new_mail()] == ["confirm"]


def test_the_hourly_limit_counts_a_powers_press_from_any_address(tmp_path: Path) -> None:
    # A player may sign on from another address; the limit is the power's, not the address's.
    app, table = make_game(tmp_path, "press_per_hour = 2\n")
    table.send("france@example.org", f"{FRANCE}PRESS TO E\nOne.\nENDPRESS\n", WHEN)
    table.send("france@example.org", f"{FRANCE}PRESS TO G\nTwo.\nENDPRESS\n", WHEN)
    table.new_mail()
    table.send("elsewhere@example.net", f"{FRANCE}PRESS TO I\nThree.\nENDPRESS\n", WHEN)
    rows = table.new_mail()
    assert [r.kind for r in rows if r.kind == "press"] == []
    reply = next(r for r in rows if r.to_addr == "elsewhere@example.net")
    assert refused(
        reply.body,
        "PRESS TO I",
        "you have sent 2 press in test01 in the last hour, the most the game allows; send "
        "this one again later",
        "Three.",
    )
    assert len(records(app)) == 2


def test_press_to_or_from_a_power_out_of_the_game_is_refused(tmp_path: Path) -> None:
    # Italy has lost every unit and supply centre: it reads no press and sends none, but
    # to the game master.
    app, table = make_game(tmp_path)
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        record = session.scalars(
            select(PhaseRecord).where(PhaseRecord.game_id == game.id, PhaseRecord.seq == game.seq)
        ).one()
        position = dict(record.position)
        position["units"] = {k: v for k, v in position["units"].items() if k != "Italy"}
        centres = dict(position["centers"])
        centres["Austria"] = [*centres["Austria"], *centres.pop("Italy")]
        position["centers"] = centres
        record.position = position
    table.send("france@example.org", f"{FRANCE}PRESS TO I\nCourage.\nENDPRESS\n", WHEN)
    (reply,) = table.new_mail()
    assert refused(
        reply.body,
        "PRESS TO I",
        "Italy is out of test01 (no units and no supply centres): no press reaches it",
        "Courage.",
    ), reply.body
    table.send("france@example.org", f"{FRANCE}BROADCAST\nHello.\nENDPRESS\n", WHEN)
    press, _reply = split(table.new_mail())
    assert "italy@example.org" not in [r.to_addr for r in press]
    assert len(press) == 5 + 1  # the five others still in, and the game master
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nPRESS TO F\nStill here.\nENDPRESS\n"
               "PRESS TO M\nWhat now?\nENDPRESS\n", WHEN)  # fmt: skip
    press, reply = split(table.new_mail())
    assert [r.to_addr for r in press] == ["gm@example.org"]
    assert refused(
        reply.body,
        "PRESS TO F",
        "Italy is out of test01 (no units and no supply centres): you may still write to the "
        "game master: PRESS TO M",
        "Still here.",
    ), reply.body


def test_a_press_without_endpress_that_holds_orders_is_not_sent(tmp_path: Path) -> None:
    # A newcomer forgot ENDPRESS: the orders after the press would have gone to France as
    # press (and not been entered). The press is refused, its text given back, nothing sent.
    app, table = make_game(tmp_path)
    germany = "SIGNON Gtest01 pw-ger\n"
    table.send("germany@example.org", f"{germany}PRESS TO F\nYes to Belgium split.\n"
               "A Mun-Ruh\nF Kie-Hol\n", WHEN)  # fmt: skip
    (reply,) = table.new_mail()
    assert refused(
        reply.body,
        "PRESS TO F",
        "no ENDPRESS ended this press (it ran to the end of your message) and 2 of its "
        "lines read as orders (A Mun-Ruh, F Kie-Hol): nothing was sent; write ENDPRESS "
        "alone on the line after the press, and your orders after it",
        "Yes to Belgium split.\nA Mun-Ruh\nF Kie-Hol",
    ), reply.body
    assert records(app) == []
    # A misspelt ENDPRESS, then SIGNOFF: the same, and the likely typo named.
    table.send("germany@example.org", f"{germany}PRESS TO F\nHello.\nENDPRES\nF Kie-Hol\n"
               "SIGNOFF\n", WHEN)  # fmt: skip
    (reply,) = table.new_mail()
    assert refused(
        reply.body,
        "PRESS TO F",
        "no ENDPRESS ended this press (SIGNOFF did) and 1 of its lines reads as an order "
        "(F Kie-Hol): nothing was sent; write ENDPRESS alone on the line after the press, "
        "and your orders after it (is 'ENDPRES' meant as ENDPRESS?)",
        "Hello.\nENDPRES\nF Kie-Hol",
    ), reply.body
    # Without order lines, a press may run to the end of the message, as on the njudge.
    table.send("germany@example.org", f"{germany}PRESS TO F\nJust words.\n", WHEN)
    press, reply = split(table.new_mail())
    assert [r.to_addr for r in press] == ["france@example.org"]
