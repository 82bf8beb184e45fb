"""The mail command language end to end: each command's effect and reply."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from support.servicekit import Table, at, started_game

from judge.config import ConfigError
from judge.db.models import Game, InboundMessage, OrderRecord, Player
from judge.runtime.bootstrap import App
from judge.services.context import Judge
from judge.services.game_files import load_game
from judge.services.inbound import process_batch, process_one, process_pending
from judge.services.intake import Stored, receive, receive_many


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    return started_game(tmp_path)


def reply(table: Table) -> tuple[str, str, str]:
    rows = table.new_mail()
    assert len(rows) == 1, [r.subject for r in rows]
    return rows[0].to_addr, rows[0].subject, rows[0].body


def test_list_and_help_without_signing_on(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("stranger@example.net", "LIST\nHELP\n", "2026-11-23 13:00", subject="hello")
    to, subject, body = reply(table)
    assert (to, subject) == ("stranger@example.net", "Re: hello")
    assert "Games on this judge:\n  test01: active, S1901M" in body
    assert "SIGNON <power initial><game> <password>" in body


def test_unknown_game_and_orders_without_sign_on(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("x@example.net", "SIGNON Fnope pw\nA Par-Bur\nhello there\n", "2026-11-23 13:00")
    _to, _subject, body = reply(table)
    assert "There is no game called 'nope' on this judge; send LIST for the games." in body
    assert "> A Par-Bur\nSign on before sending orders" in body
    assert "These lines were not read as orders or commands:\n> hello there" in body


def test_sign_on_from_another_address_copies_the_registered_one(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("alice@elsewhere.example", "SIGNON england@test01 pw-eng\nF Lon-NTH\n",
               "2026-11-23 13:00")  # fmt: skip
    rows = table.new_mail()
    assert [r.to_addr for r in rows] == ["alice@elsewhere.example", "england@example.org"]
    assert "England: Fleet London -> North Sea." in rows[0].body
    assert "signed on as England from alice@elsewhere.example" in rows[1].body.replace("\n", " ")


def test_later_order_replaces_earlier_and_clear(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nA Par-Pic\n", "2026-11-23 13:00")
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nA Par-Bur\n", "2026-11-23 13:01")
    rows = table.new_mail()
    assert "France: Army Paris -> Burgundy." in rows[-1].body
    assert "Picardy" not in rows[-1].body
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nCLEAR\n", "2026-11-23 13:02")
    _to, _subject, body = reply(table)
    assert "Your orders for this phase were cleared." in body
    assert "France: Army Paris, No Order Processed." in body
    with app.sessions() as session:
        raws = [o.raw for o in session.scalars(select(OrderRecord).order_by(OrderRecord.id))]
        active = session.scalars(select(OrderRecord).where(OrderRecord.active.is_(True))).all()
    # Every order as received is kept, none is active after CLEAR.
    assert raws == ["A Par-Pic", "A Par-Bur"] and active == []


def test_set_password_address_wait_and_resign(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("turkey@example.org", (
        "SIGNON Ttest01 pw-tur\nSET PASSWORD new-secret\nSET WAIT\nSET ADDRESS sultan@example.org\n"
    ), "2026-11-23 13:00")  # fmt: skip
    _to, _subject, body = reply(table)
    assert "Password changed." in body and "WAIT set" in body
    assert "Your address is now sultan@example.org." in body
    table.send("sultan@example.org", "SIGNON Ttest01 pw-tur\n", "2026-11-23 13:01")
    assert "Wrong password for Turkey in test01: " in reply(table)[2]
    table.send("sultan@example.org", "SIGNON Ttest01 new-secret\nSET NOWAIT\nRESIGN\n",
               "2026-11-23 13:02")  # fmt: skip
    rows = table.new_mail()
    # The game master, then every other player (tests/services/test_seats.py has the
    # mails), then the reply.
    others = [f"{p}@example.org" for p in ("austria", "england", "france", "germany", "italy",
                                           "russia")]  # fmt: skip
    assert [r.to_addr for r in rows] == ["gm@example.org", *others, "sultan@example.org"]
    assert rows[0].subject == "Diplomacy game test01: Turkey resigned from test01"
    with app.sessions() as session:
        turkey = session.scalars(select(Player).where(Player.power == "Turkey")).one()
        assert (turkey.status, turkey.wait, turkey.address) == (
            "resigned",
            False,
            "sultan@example.org",
        )


def test_summary_and_history(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("italy@example.org", "SUMMARY test01\nHISTORY test01\n", "2026-11-23 13:00")
    body = reply(table)[2]
    assert "Summary of test01, Movement for Spring of 1901:" in body
    assert "Italy: Army Venice" in body
    assert "No phase of test01 has been processed yet." in body
    table.process("2026-11-25 20:00")
    table.new_mail()
    table.send("italy@example.org", "HISTORY test01\n", "2026-11-26 10:00")
    assert "Movement results for Spring of 1901.  (test01.001)" in reply(table)[2]


def test_game_master_commands(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("gm@example.org", "SIGNON Mtest01 wrong\nPAUSE\n", "2026-11-23 13:00")
    body = reply(table)[2]
    assert (
        "Wrong game master password for test01: it is the [master] password of the game's file.\n"
    ) in body
    assert "Only the game master can do this" in body
    table.send("gm@example.org", (
        "SIGNON Mtest01 gm-secret\nPAUSE\nRESUME\nSET DEADLINE 2026-12-01 18:30\nPROCESS\n"
    ), "2026-11-23 13:05")  # fmt: skip
    rows = table.new_mail()
    results = [r for r in rows if r.subject == "Diplomacy results test01 S1901M"]
    assert len(results) == 8  # seven players and the game master
    gm_reply = next(r for r in rows if r.subject.startswith("Re:"))
    assert "Game test01 paused." in gm_reply.body
    assert "Game test01 resumed; the deadline is Wed Nov 25 2026 20:00:00" in gm_reply.body
    assert "Deadline set to Tue Dec 01 2026 18:30:00 +0000 (Europe/London)." in gm_reply.body
    assert "Processed S1901M; now F1901M." in gm_reply.body
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nSET DEADLINE tomorrow\n",
               "2026-11-23 13:06")  # fmt: skip
    assert "Cannot read the date 'tomorrow': write it as YYYY-MM-DD HH:MM" in reply(table)[2]
    with app.sessions() as session:
        assert session.scalars(select(Game)).one().phase == "F1901M"


def test_bounces_and_auto_replies_get_no_answer(game: tuple[App, Table]) -> None:
    app, table = game
    raw = (
        b"From: MAILER-DAEMON@example.org\r\nTo: judge@example.org\r\n"
        b"Return-Path: <>\r\nSubject: Undelivered Mail\r\nMessage-ID: <b1@x>\r\n\r\nSorry\r\n"
    )
    ooo = (
        b"From: england@example.org\r\nTo: judge@example.org\r\nAuto-Submitted: auto-replied\r\n"
        b"Subject: Out of office\r\nMessage-ID: <b2@x>\r\n\r\nI am away.\r\n"
    )
    now = at("2026-11-23 13:00")
    for message in (raw, ooo):
        with app.sessions() as session, session.begin():
            row, _new = receive(session, message, now)
            inbound_id = row.id
        assert process_one(app.sessions, app.judge, inbound_id, now) == "ignored"
    assert table.new_mail() == []
    with app.sessions() as session:
        reasons = [r.reason or "" for r in session.scalars(select(InboundMessage))]
    assert reasons[0].startswith("bounce") and reasons[1].startswith("auto-submitted")


def test_same_message_twice_is_stored_and_answered_once(game: tuple[App, Table]) -> None:
    app, table = game
    raw = (
        b"From: england@example.org\r\nTo: judge@example.org\r\nSubject: o\r\n"
        b"Message-ID: <dup@x>\r\n\r\nSIGNON Etest01 pw-eng\r\nF Lon-NTH\r\n"
    )
    now = at("2026-11-23 13:00")
    for _ in range(2):
        with app.sessions() as session, session.begin():
            row, _new = receive(session, raw, now)
            inbound_id = row.id
        process_one(app.sessions, app.judge, inbound_id, now)
    assert len(table.new_mail()) == 1


def test_a_fetch_is_stored_with_each_message_id_once(game: tuple[App, Table]) -> None:
    app, table = game

    def raw(message_id: str, body: str = "HELP") -> bytes:
        header = f"Message-ID: <{message_id}>\r\n" if message_id else ""
        return (
            f"From: Robot <Robot@Example.NET>\r\nTo: judge@example.org\r\nSubject: hi\r\n"
            f"{header}\r\n{body}\r\n"
        ).encode()

    now = at("2026-11-23 13:00")
    with app.store_sessions() as session, session.begin():
        receive(session, raw("old@x"), now)
    with app.store_sessions() as session, session.begin():
        stored = receive_many(
            session, [raw("old@x"), raw("a@x"), raw("a@x"), raw(""), raw("", "LIST"), raw("")], now
        )
    nameless = [s.message_id for s in stored if s.message_id.endswith("@judge.invalid>")]
    assert len(nameless) == 3 and nameless[0] != nameless[1] and nameless[0] == nameless[2]
    sender = "robot@example.net"
    assert stored == [
        Stored("<old@x>", sender, False),
        Stored("<a@x>", sender, True),
        Stored("<a@x>", sender, False),
        Stored(nameless[0], sender, True),
        Stored(nameless[1], sender, True),
        Stored(nameless[0], sender, False),
    ]
    with app.sessions() as session:
        rows = session.scalars(select(InboundMessage).order_by(InboundMessage.id)).all()
    assert [(r.message_id, r.state, r.subject, r.attempts) for r in rows] == [
        ("<old@x>", "new", "hi", 0),
        ("<a@x>", "new", "hi", 0),
        (nameless[0], "new", "hi", 0),
        (nameless[1], "new", "hi", 0),
    ]
    assert rows[1].raw == raw("a@x") and rows[1].received_at == now
    assert process_pending(app.sessions, app.judge, lambda: now) == 4
    assert len(table.new_mail()) == 4


def test_a_failure_parks_the_message_and_keeps_it(
    game: tuple[App, Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, table = game
    import judge.services.inbound as inbound

    def broken(*_args: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(inbound, "handle", broken)
    assert table.send("england@example.org", "SIGNON Etest01 pw-eng\n", "2026-11-23 13:00") == (
        "failed"
    )
    with app.sessions() as session:
        row = session.scalars(select(InboundMessage)).one()
        assert row.reason == "RuntimeError: disk on fire"
        assert b"SIGNON Etest01 pw-eng" in row.raw
    monkeypatch.undo()
    assert process_one(app.sessions, app.judge, row.id, at("2026-11-23 13:05")) == "done"
    assert len(table.new_mail()) == 1


def _store(app: App, sender: str, body: str, message_id: str) -> int:
    raw = (
        f"From: {sender}\r\nTo: judge@example.org\r\nSubject: orders\r\n"
        f"Message-ID: <{message_id}>\r\n\r\n{body}"
    ).encode()
    with app.store_sessions() as session, session.begin():
        row, new = receive(session, raw, at("2026-11-23 13:00"))
        assert new
        return row.id


def test_a_batch_is_processed_in_order_in_one_transaction(game: tuple[App, Table]) -> None:
    app, table = game
    england, france = "england@example.org", "france@example.org"
    ids = [
        _store(app, england, "SIGNON Etest01 pw-eng\nF Lon-NTH\n", "b1@x"),
        _store(app, england, "SIGNON Etest01 pw-eng\nF Lon-ENG\nA Lvp-Yor\n", "b2@x"),
        _store(app, france, "SIGNON Ftest01 paris-123\nA Par-Bur\n", "b3@x"),
        _store(app, england, "SIGNON Etest01 pw-eng\nCLEAR\nF Edi-NTH\n", "b4@x"),
    ]
    # A budget no loaded machine reaches: the default (half a second) may cut the batch
    # after fewer messages, as it should, but this test is about one whole batch.
    processed = process_batch(app.sessions, app.judge, ids, at("2026-11-23 13:01"), budget=60.0)
    assert processed == {i: "done" for i in ids}
    replies = table.new_mail()
    assert [r.to_addr for r in replies] == [england, england, france, england]
    # Each confirmation shows the orders as they stood after its own message.
    assert "England: Fleet London -> North Sea." in replies[0].body
    assert "England: Fleet London -> English Channel." in replies[1].body
    assert "England: Army Liverpool -> Yorkshire." in replies[1].body
    assert "North Sea" not in replies[1].body
    assert "France: Army Paris -> Burgundy." in replies[2].body
    assert "England: Fleet Edinburgh -> North Sea." in replies[3].body
    assert "English Channel" not in replies[3].body and "Yorkshire" not in replies[3].body
    with app.sessions() as session:
        active = session.scalars(
            select(OrderRecord.canonical).where(OrderRecord.active.is_(True))
        ).all()
        assert sorted(str(a) for a in active) == ["A par-bur", "F edi-nth"]
        assert session.scalar(select(func.count(OrderRecord.id))) == 5


def test_the_reply_ration_counts_earlier_replies_and_the_batch_itself(
    game: tuple[App, Table],
) -> None:
    app, table = game
    app.judge.settings = dataclasses.replace(app.judge.settings, replies_per_hour=3)
    robot, other = "robot@example.net", "other@example.net"
    table.send(robot, "HELP\n", "2026-11-23 12:59")
    assert [r.to_addr for r in table.new_mail()] == [robot]
    ids = [_store(app, robot, "HELP\n", f"r{n}@x") for n in range(4)]
    ids += [_store(app, other, "HELP\n", f"o{n}@x") for n in range(2)]
    assert process_batch(app.sessions, app.judge, ids, at("2026-11-23 13:01"), budget=60.0) == {
        i: "done" for i in ids
    }
    # One reply before the batch: two more for the robot, then its ration is spent.
    assert [r.to_addr for r in table.new_mail()] == [robot, robot, other, other]
    with app.sessions() as session:
        reasons = session.scalars(
            select(InboundMessage.reason)
            .where(InboundMessage.id.in_(ids))
            .order_by(InboundMessage.id)
        ).all()
    limited = "rate limit: more than 3 replies an hour"
    assert reasons == [None, None, limited, limited, None, None]


def test_orders_of_a_batch_are_written_before_its_game_master_processes(
    game: tuple[App, Table],
) -> None:
    app, table = game
    england, france = "england@example.org", "france@example.org"
    ids = [
        _store(app, england, "SIGNON Etest01 pw-eng\nF Lon-NTH\nA Lvp-Yor\n", "p1@x"),
        _store(app, france, "SIGNON Ftest01 paris-123\nA Par-Bur\nA Mar-Spa\n", "p2@x"),
        # England changes one order and France clears hers, in the same batch.
        _store(app, england, "SIGNON Etest01 pw-eng\nF Lon-ENG\n", "p3@x"),
        _store(app, france, "SIGNON Ftest01 paris-123\nCLEAR\nA Par-Pic\n", "p4@x"),
        _store(app, "gm@example.org", "SIGNON Mtest01 gm-secret\nPROCESS\n", "p5@x"),
    ]
    assert process_batch(app.sessions, app.judge, ids, at("2026-11-23 13:01"), budget=60.0) == {
        i: "done" for i in ids
    }
    assert table.phase() == "F1901M"
    units = table.units()
    assert (units["eng"], units["yor"], units["pic"]) == ("Eng F", "Eng A", "Fra A")
    assert "mar" in units and "spa" not in units and "nth" not in units
    with app.sessions() as session:
        rows = session.execute(
            select(OrderRecord.canonical, OrderRecord.active, InboundMessage.message_id)
            .join(InboundMessage, OrderRecord.inbound_id == InboundMessage.id)
            .order_by(OrderRecord.id)
        ).all()
    assert [tuple(r) for r in rows] == [
        ("F lon-nth", False, "<p1@x>"),
        ("A lvp-yor", True, "<p1@x>"),
        ("A par-bur", False, "<p2@x>"),
        ("A mar-spa", False, "<p2@x>"),
        ("F lon-eng", True, "<p3@x>"),
        ("A par-pic", True, "<p4@x>"),
    ]


def test_one_failure_in_a_batch_parks_that_message_only(
    game: tuple[App, Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, table = game
    import judge.services.inbound as inbound

    real = inbound.handle  # type: ignore[attr-defined]

    def sometimes(session: Session, judge: Judge, row: InboundMessage, *rest: Any) -> str:
        if row.message_id == "<c2@x>":
            raise RuntimeError("disk on fire")
        done: str = real(session, judge, row, *rest)
        return done

    monkeypatch.setattr(inbound, "handle", sometimes)
    body = "SIGNON Etest01 pw-eng\nF Lon-NTH\n"
    ids = [_store(app, "england@example.org", body, f"c{n}@x") for n in (1, 2, 3)]
    states = process_batch(app.sessions, app.judge, ids, at("2026-11-23 13:01"), budget=60.0)
    assert states == {ids[0]: "done", ids[1]: "failed", ids[2]: "done"}
    assert len(table.new_mail()) == 2
    with app.sessions() as session:
        rows = {r.message_id: r for r in session.scalars(select(InboundMessage))}
        assert (rows["<c2@x>"].state, rows["<c2@x>"].attempts) == ("failed", 1)
        assert rows["<c2@x>"].reason == "RuntimeError: disk on fire"
        assert (rows["<c1@x>"].attempts, rows["<c3@x>"].attempts) == (1, 1)
        # Processed once each: two orders stored, not four.
        assert session.scalar(select(func.count(OrderRecord.id))) == 2
    monkeypatch.undo()
    assert process_pending(app.sessions, app.judge, lambda: at("2026-11-23 13:05")) == 1
    assert len(table.new_mail()) == 1


def test_bad_game_file_names_the_key_and_changes_nothing(tmp_path: Path) -> None:
    app, _table = started_game(tmp_path)
    bad = tmp_path / "test01.toml"
    bad.write_text(bad.read_text().replace('timezone = "Europe/London"', 'timezone = "Mars/Base"'))
    with app.sessions() as session, session.begin(), pytest.raises(ConfigError) as err:
        load_game(session, app.judge, bad, at("2026-11-24 10:00"))
    assert str(err.value).startswith(f"{bad}: [game] timezone: unknown time zone 'Mars/Base'")
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert game.settings["timezone"] == "Europe/London"


def test_autostart_when_the_file_names_all_seven_players(tmp_path: Path) -> None:
    from support.servicekit import GAME_FILE, make_app

    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'judge.db'}")
    path = tmp_path / "auto.toml"
    path.write_text(GAME_FILE.replace('rules = "2023"', 'rules = "2023"\nstart = "auto"'))
    with app.sessions() as session, session.begin():
        report = load_game(session, app.judge, path, at("2026-11-23 12:00"))
    assert report.started and report.changes[-1] == "started the game"
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert (game.status, game.phase) == ("active", "S1901M")
    assert len(Table(app).new_mail()) == 8  # the game start: the players and the master


def test_replies_per_sender_are_rate_limited(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    app.judge.settings = dataclasses.replace(app.judge.settings, replies_per_hour=3)
    for minute in range(5):
        table.send("robot@example.net", "HELP\n", f"2026-11-23 13:0{minute}")
    assert len(table.new_mail()) == 3
    with app.sessions() as session:
        rows = session.scalars(select(InboundMessage).order_by(InboundMessage.id)).all()
    assert [r.state for r in rows] == ["done"] * 5
    assert rows[-1].reason == "rate limit: more than 3 replies an hour"
    # An hour later the sender is answered again.
    table.send("robot@example.net", "HELP\n", "2026-11-23 14:10")
    assert len(table.new_mail()) == 1


def test_oversized_message_gets_a_polite_refusal(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    app.judge.settings = dataclasses.replace(app.judge.settings, max_message_bytes=2000)
    table.send("england@example.org", "SIGNON Etest01 pw-eng\n" + "x" * 5000, "2026-11-23 13:00")
    _to, subject, body = reply(table)
    assert subject == "Re: orders"
    assert "is larger than this judge reads (2,000 bytes)" in body


# -- lines that are not orders ----------------------------------------------------------


def active_orders(app: App, power: str) -> list[str]:
    with app.sessions() as session:
        player = session.scalars(select(Player).where(Player.power == power)).one()
        rows = session.scalars(
            select(OrderRecord)
            .where(OrderRecord.player_id == player.id, OrderRecord.active.is_(True))
            .order_by(OrderRecord.id)
        )
        return [str(r.canonical) for r in rows]


def test_a_signature_that_names_a_place_is_not_a_hold(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("france@example.org", (
        "SIGNON Ftest01 paris-123\nF Bre-MAO\nA Par H\n\nJean Dupont\nBrest, France\n"
    ), "2026-11-23 13:00")  # fmt: skip
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nA Ven H\nCiao,\nMarco, Venice\n",
               "2026-11-23 13:01")  # fmt: skip
    france, italy = table.new_mail()
    assert active_orders(app, "France") == ["F bre-mao", "A par H"]
    assert active_orders(app, "Italy") == ["A ven H"]
    assert not france.subject.startswith("[Error Flag]")
    assert "France: Fleet Brest -> Mid-Atlantic Ocean." in france.body
    assert (
        "These lines were not read as orders or commands:\n\n  Jean Dupont\n  Brest, France\n"
    ) in france.body
    assert "  Ciao,\n  Marco, Venice\n" in italy.body and "Italy: Army Venice HOLD." in italy.body


def test_a_unit_alone_is_not_an_order_in_movement_or_retreats(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon\nEdinburgh\n",
               "2026-11-23 13:00")  # fmt: skip
    _to, subject, body = reply(table)
    assert active_orders(app, "England") == []
    assert not subject.startswith("[Error Flag]")
    assert "These lines were not read as orders or commands:\n\n  F Lon\n  Edinburgh\n" in body
    assert "England: Fleet London, No Order Processed." in body


def test_b_and_a_digit_is_not_a_build(game: tuple[App, Table]) -> None:
    app, table = game
    with app.sessions() as session, session.begin():
        game_row = session.scalars(select(Game)).one()
        game_row.phase = "W1901A"
        position = dict(game_row.phases[0].position)
        position["phase"] = "W1901A"
        position["centers"] = {**position["centers"], "France": [
            *position["centers"]["France"], "spa", "por"]}  # fmt: skip
        position["units"] = {**position["units"], "France": ["F BRE", "A MAR", "A BUR"]}
        game_row.phases[0].position = position
    table.send("france@example.org", (
        "SIGNON Ftest01 paris-123\nA Par\n\nJean\nb2b consulting\nB4 you go, call me\n"
        "b sure to call\n"
    ), "2026-11-23 13:00")  # fmt: skip
    _to, subject, body = reply(table)
    assert active_orders(app, "France") == ["Build A par"]
    assert not subject.startswith("[Error Flag]"), body
    assert (
        "These lines were not read as orders or commands:\n\n"
        "  Jean\n  b2b consulting\n  B4 you go, call me\n  b sure to call\n"
    ) in body


# -- the njudge's commands this judge does not have yet -------------------------------


def test_press_and_phase_blocks_are_not_read_as_orders(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("france@example.org", (
        "SIGNON Ftest01 paris-123\nA Par H\nPRESS TO E\nA Bur-Par\nENDPRESS\nF Bre-MAO\n"
        "BROADCAST\nHello all.\nA Mar-Spa\n"
    ), "2026-11-23 13:00")  # fmt: skip
    rows = table.new_mail()
    # The BROADCAST has no ENDPRESS and holds an order line: refused, nothing broadcast.
    assert [r.kind for r in rows] == ["press", "confirm"]
    assert rows[0].to_addr == "england@example.org"
    assert rows[0].body.startswith("Message from France to England in game test01 (S1901M):\n")
    body = rows[-1].body
    assert active_orders(app, "France") == ["A par H", "F bre-mao"]
    assert rows[-1].subject == "[Error Flag] Re: orders"
    assert "Press sent to England (white, from France; 1 line, 9 characters).\n" in body
    assert (
        "  BROADCAST\n    -> no ENDPRESS ended this press (it ran to the end of your "
        "message) and 1 of its lines reads as an order (A Mar-Spa): nothing was sent; write "
        "ENDPRESS alone on the line after the press, and your orders after it\n"
    ) in body
    assert "Burgundy" not in body and "Spain" not in body
    table.send("france@example.org", (
        "SIGNON Ftest01 paris-123\nPHASE Fall 1901 Movement\nA Par-Bur\nF Bre-Gas\n"
    ), "2026-11-23 13:05")  # fmt: skip
    _to, subject, body = reply(table)
    # The orders after PHASE are for that phase (issue 16), never this one's.
    assert active_orders(app, "France") == ["A par H", "F bre-mao"]
    assert subject == "Re: orders"
    assert (
        "Orders sent ahead for Fall 1901 Movement (checked when that phase begins):\n"
        "  A Par-Bur\n"
        "  F Bre-Gas\n"
    ) in body


def test_an_njudge_command_before_signing_on_is_flagged(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("x@example.net", "GET info\nWHOIS ann\n", "2026-11-23 13:00")
    _to, subject, body = reply(table)
    assert subject == "[Error Flag] Re: orders"
    assert (
        "> GET info\nGET is a command of the njudge that this judge does not have yet.\n\n"
        "> WHOIS ann\nWHOIS is a command of the njudge that this judge does not have yet.\n"
    ) in body


def test_a_wrong_password_is_flagged_and_says_where_the_password_went(
    game: tuple[App, Table],
) -> None:
    _app, table = game
    table.send("england@example.org", "SIGNON Etest01 pw-wrong\nF Lon-NTH\n", "2026-11-23 13:00")
    _to, subject, body = reply(table)
    assert subject == "[Error Flag] Re: orders"
    assert body.startswith(
        "> SIGNON Etest01 ********\n"
        "Wrong password for England in test01: the password is the one your game master "
        "gave you (it is written in the game's file), unless it was changed since with "
        "SET PASSWORD; the judge's mail for England goes to "
        "england@example.org.\n\n"
        "> F Lon-NTH\nSign on before sending orders"
    )
    assert "pw-eng" not in body and "pw-wrong" not in body
    # France's password was made by the judge and mailed when the game started.
    table.send("france@example.org", "SIGNON Ftest01 pw-wrong\n", "2026-11-23 13:01")
    _to, subject, body = reply(table)
    assert subject == "[Error Flag] Re: orders"
    assert body.startswith(
        "> SIGNON Ftest01 ********\n"
        "Wrong password for France in test01: the password is the one in the judge's "
        '"game starts" mail to France, unless it was changed since with SET PASSWORD; the '
        "judge's mail for France goes to france@example.org.\n"
    )
    assert "paris-123" not in body


def test_an_order_replaced_later_in_the_same_message_is_named(game: tuple[App, Table]) -> None:
    # The last order for a unit counts; the reply says which line of the message gave
    # way to which, so that a typo corrected below is not silently dropped.
    app, table = game
    table.send("england@example.org",
               "SIGNON Etest01 pw-eng\nA Lvp - Yorkshre\nF Lon H\nArmy Liverpool moves to Wales\n",
               "2026-11-23 13:00")  # fmt: skip
    _to, subject, body = reply(table)
    assert active_orders(app, "England") == ["F lon H", "A lvp-wal"]
    assert not subject.startswith("[Error Flag]")
    assert (
        "'A Lvp - Yorkshre' was replaced by a later line of this message, "
        "'Army Liverpool moves to Wales'.\n"
    ) in body
    # An order from an earlier message is replaced as ever, without a word.
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nA Lvp-Edi\n", "2026-11-23 13:05")
    _to, _subject, body = reply(table)
    assert "replaced" not in body


def test_set_address_refuses_an_overlong_address_and_the_judge_s_own(
    game: tuple[App, Table],
) -> None:
    # Issue 11 item 9: a 5,013-character address and the judge's own were taken.
    app, table = game
    long_address = "a" * 5000 + "@example.org"
    body = f"SIGNON Etest01 pw-eng\nSET ADDRESS {long_address}\nSET ADDRESS judge@example.org\n"
    table.send("england@example.org", body, "2026-11-23 13:00")
    _to, subject, body = reply(table)
    assert subject.startswith("[Error Flag]")
    assert "an email address has at most 254 characters (this one has 5012)" in body
    assert "judge@example.org is this judge's own address: give your own" in body
    with app.sessions() as session:
        players = {p.power: p.address for p in session.scalars(select(Player))}
    assert players["England"] == "england@example.org"


def test_a_second_sign_on_after_a_failed_one_is_not_checked(game: tuple[App, Table]) -> None:
    # Issue 11 item 3: every SIGNON line was checked, so one message could try thousands
    # of passwords and the reply showed which one was right.  After a failed sign-on the
    # message's other sign-ons are refused unchecked, the right password among them too.
    app, table = game
    table.send("stranger@example.net",
               "SIGNON Etest01 guess1\nSIGNON Etest01 guess2\nSIGNON Etest01 pw-eng\nF Lon H\n",
               "2026-11-23 13:00")  # fmt: skip
    _to, subject, body = reply(table)
    assert subject.startswith("[Error Flag]")
    assert body.count("Wrong password for England") == 1
    assert body.count("Not checked: a sign-on earlier in this message failed") == 2
    assert active_orders(app, "England") == []


def test_every_power_signed_on_from_elsewhere_gets_a_copy_of_its_own_part(
    game: tuple[App, Table],
) -> None:
    # Issue 11 item 8: SIGNON England / F Lon H / SIGNON France / A Par H from a stranger
    # changed England's order, and only France's registered address heard of it.  Each
    # power now gets a copy at its registered address, showing its own part only.
    app, table = game
    table.send(
        "stranger@example.net",
        "SIGNON Etest01 pw-eng\nF Lon H\nF Edi-Lvp\nSIGNON Ftest01 paris-123\nA Par H\n",
        "2026-11-23 13:00",
    )
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [
        ("stranger@example.net", "confirm"),
        ("england@example.org", "copy"),
        ("france@example.org", "copy"),
    ]
    assert active_orders(app, "England") == ["F lon H"]
    assert active_orders(app, "France") == ["A par H"]
    england, france = rows[1].body, rows[2].body
    assert "someone signed on as England from stranger@example.net" in " ".join(england.split())
    assert "England: Fleet London HOLD." in england
    assert "F Edi-Lvp" in england  # England's own refused line
    assert "Paris" not in england
    assert "someone signed on as France from stranger@example.net" in " ".join(france.split())
    assert "France: Army Paris HOLD." in france
    assert "Fleet London" not in france and "Edi" not in france
