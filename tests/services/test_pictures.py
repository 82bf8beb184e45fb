"""The map picture in the judge's mail: drawn once a phase, stored once, named by every
mail that carries it (results, game start, MAP replies), sent inline by the sender; a game
with ``maps = false`` sends text only; a picture that cannot be drawn never holds back the
adjudication or its mail; ``judge map`` draws one into a file."""

from __future__ import annotations

import email
import email.policy
import io
import logging
import mailbox
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from sqlalchemy import delete, select
from support.servicekit import GAME_FILE, Table, at, make_app, started_game

from judge.cli import main
from judge.db import queries
from judge.db.models import Game, OutboundMessage, OutboundState, PhaseRecord, Picture
from judge.engine.document import DocumentError, position_from_document
from judge.picture import draw
from judge.runtime.bootstrap import App
from judge.runtime.sender import deliver_pending
from judge.services import pictures
from judge.services.game_file_watch import reload_configs
from judge.services.game_files import load_game
from judge.services.games import process_game, start_game
from judge.services.pictures import drawn, record_views

PLAYERS = [
    f"{power}@example.org"
    for power in ("austria", "england", "france", "germany", "italy", "russia", "turkey")
]


def rows_of(app: App, kind: str) -> list[OutboundMessage]:
    with app.sessions() as session:
        return list(
            session.scalars(
                select(OutboundMessage)
                .where(OutboundMessage.kind == kind)
                .order_by(OutboundMessage.id)
            )
        )


def stored(app: App) -> list[tuple[int, str, str]]:
    with app.sessions() as session:
        return [
            (p.id, p.phase, p.kind) for p in session.scalars(select(Picture).order_by(Picture.id))
        ]


def png_of(app: App, picture: int) -> bytes | None:
    """The picture's PNG as stored, None while it is still to draw."""
    with app.sessions() as session:
        row = session.get(Picture, picture)
        assert row is not None
        return row.png


def send_all(app: App, when: str) -> int:
    """Run the sender (which draws the pictures its mail asks for) at ``when``."""
    return deliver_pending(app.sessions, app.judge, app.transport, lambda: at(when))


def delivered(app: App, address: str) -> list[EmailMessage]:
    """The mail delivered to ``address``'s Maildir, oldest first, as a reader parses it."""
    box = mailbox.Maildir(app.judge.settings.var_dir / "mail" / address, create=False)
    raws = sorted((key, box.get_bytes(key)) for key in box.iterkeys())
    messages = [email.message_from_bytes(raw, policy=email.policy.default) for _key, raw in raws]
    parsed = [m for m in messages if isinstance(m, EmailMessage)]
    return sorted(parsed, key=lambda m: str(m["Message-ID"]))


def game_with(tmp_path: Path, extra: str) -> tuple[App, Table]:
    """The service kit's game test01 with ``extra`` lines in its [game] table, started at
    2026-11-23 12:00."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace('rules = "2023"\n', f'rules = "2023"\n{extra}'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    return app, Table(app)


# -- stored once, named by every mail -----------------------------------------------------


def test_each_phase_is_drawn_once_and_every_copy_names_it(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send("watcher@example.org", "OBSERVE test01\n", "2026-11-23 13:00")
    table.process("2026-11-25 20:00")
    assert stored(app) == [(1, "S1901M", "board"), (2, "S1901M", "results")]
    board = [{"picture": 1, "filename": "test01-S1901M.png"}]
    starts = rows_of(app, "gamestart")
    assert [r.to_addr for r in starts] == [*PLAYERS, "gm@example.org"]
    assert all(r.attachments == board for r in starts)
    results = rows_of(app, "results")
    assert sorted(r.to_addr for r in results) == sorted(
        [*PLAYERS, "gm@example.org", "watcher@example.org"]
    )
    assert all(r.attachments == [{"picture": 2, "filename": "test01-S1901M.png"}] for r in results)
    # Other mail carries none (the answer to OBSERVE).
    with app.sessions() as session:
        others = session.scalars(
            select(OutboundMessage).where(OutboundMessage.kind.not_in(["gamestart", "results"]))
        ).all()
    assert [(r.to_addr, r.attachments) for r in others] == [("watcher@example.org", None)]
    # Asked for, not drawn: the sender draws it, from the record, as MAP draws it again.
    assert png_of(app, 1) is None and png_of(app, 2) is None
    send_all(app, "2026-11-25 20:01")
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        record = session.scalars(select(PhaseRecord).where(PhaseRecord.seq == 1)).one()
        (view,) = record_views(record)
        again = drawn(game, view, "Europe/London").png()
    assert png_of(app, 2) == again
    assert pictures.record_phases(record) == [view.phase]
    assert view.kind == "results" and view.after is not None and view.phase.code == "S1901M"
    assert len(view.results) == 22  # every unit's order, the defaults too


def test_the_sender_sends_the_picture_inline_under_the_text(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.process("2026-11-25 20:00")
    assert send_all(app, "2026-11-25 20:01") == 16
    start, results = delivered(app, "italy@example.org")
    for message, picture in ((start, 1), (results, 2)):
        assert message.get_content_type() == "multipart/mixed"
        text, image = message.iter_parts()
        assert text.get_content_type() == "text/plain"
        assert image.get_content_type() == "image/png"
        assert image.get_content_disposition() == "inline"
        assert image.get_filename() == "test01-S1901M.png"
        assert image.get_content() == png_of(app, picture)
        with Image.open(io.BytesIO(image.get_content())) as opened:
            assert opened.format == "PNG"
    body = results.get_body()
    assert body is not None
    assert "Movement results for Spring of 1901." in body.get_content()


def test_a_picture_that_is_gone_does_not_hold_the_mail(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app, table = started_game(tmp_path)
    table.process("2026-11-25 20:00")
    with app.sessions() as session, session.begin():
        session.execute(delete(Picture).where(Picture.kind == "results"))
    with caplog.at_level(logging.WARNING, logger="judge.services.outbox"):
        deliver_pending(app.sessions, app.judge, app.transport, lambda: at("2026-11-25 20:01"))
    assert {r.state for r in rows_of(app, "results")} == {OutboundState.SENT}
    _start, results = delivered(app, "italy@example.org")
    assert results.get_content_type() == "text/plain"
    assert "Movement results for Spring of 1901." in results.get_content()
    gone = [m for m in caplog.messages if "is gone; sent without it" in m]
    assert len(gone) == 8  # the seven players and the game master
    assert gone[0].endswith("its picture 2 (test01-S1901M.png) is gone; sent without it")


# -- drawn by the sender, never inside the transaction that queues the mail ---------------


def every_picture_sent(app: App, addresses: list[str]) -> dict[tuple[str, str], set[bytes]]:
    """The pictures delivered to ``addresses``, by the mail's subject up to its game's name
    and the picture's file name: every copy's bytes."""
    sent: dict[tuple[str, str], set[bytes]] = {}
    for address in addresses:
        for message in delivered(app, address):
            subject = str(message["Subject"]).split(" test0")[0]
            for part in list(message.iter_parts())[1:]:
                key = (subject, str(part.get_filename()))
                sent.setdefault(key, set()).add(part.get_content())
    return sent


def test_a_deadline_burst_draws_no_picture_inside_the_adjudication(
    tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three games start and reach their deadline together: neither the starts nor the
    # adjudications draw (they only ask for the pictures, one row each to draw); the
    # sender then draws each picture once and every copy of a mail carries its bytes.
    real = draw
    draws: list[str] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        draws.append(str(kwargs["caption"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(pictures, "draw", counted)
    app = make_app(tmp_path, db_url)
    names = ["test01", "test02", "test03"]
    for name in names:
        path = tmp_path / f"{name}.toml"
        path.write_text(GAME_FILE.replace('name = "test01"', f'name = "{name}"'))
        with app.sessions() as session, session.begin():
            load_game(session, app.judge, path, at("2026-11-23 12:00"))
            start_game(session, app.judge, name, at("2026-11-23 12:00"))
    for name in names:
        with app.sessions() as session, session.begin():
            assert process_game(session, app.judge, name, at("2026-11-25 20:00"), phase="S1901M")
    assert draws == []
    with app.sessions() as session:
        rows = session.execute(
            select(Game.name, Picture.phase, Picture.kind, Picture.png)
            .join(Game, Game.id == Picture.game_id)
            .order_by(Picture.id)
        ).all()
        assert [tuple(row) for row in rows] == [
            (name, "S1901M", kind, None) for kind in ("board", "results") for name in names
        ]
    assert send_all(app, "2026-11-25 20:01") == 3 * 16
    assert sorted(draws) == sorted(
        ["Spring 1901 Movement, as it stands on 23 Nov 2026"] * 3
        + ["Spring 1901 Movement, results of 25 Nov 2026"] * 3
    )
    with app.sessions() as session:
        stored_pngs = {
            (name, kind): png
            for name, kind, png in session.execute(
                select(Game.name, Picture.kind, Picture.png).join(Game, Game.id == Picture.game_id)
            )
        }
    assert None not in stored_pngs.values()
    sent = every_picture_sent(app, [*PLAYERS, "gm@example.org"])
    for name in names:
        assert (
            sent[("Diplomacy results", f"{name}-S1901M.png")]
            != sent[("Diplomacy game", f"{name}-S1901M.png")]
        )
    for (subject, filename), copies in sent.items():
        kind = "results" if subject == "Diplomacy results" else "board"
        assert copies == {stored_pngs[(filename.split("-")[0], kind)]}, (subject, filename)
    assert send_all(app, "2026-11-25 20:02") == 0
    assert len(draws) == 6  # drawn once: not again for a later batch


def test_two_senders_drawing_one_picture_store_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another sender (another judge on the same database) draws the same picture at the
    # same time and stores it first: its bytes are kept, and this sender's mail carries
    # them, not what it drew itself.
    app, table = started_game(tmp_path)
    table.process("2026-11-25 20:00")
    real = draw

    def raced(*args: Any, **kwargs: Any) -> Any:
        picture = real(*args, **kwargs)
        if kwargs["caption"].startswith("Spring 1901 Movement, results"):
            with app.sessions() as session, session.begin():
                assert queries.fill_picture(session, 2, b"the other sender's")
        return picture

    monkeypatch.setattr(pictures, "draw", raced)
    assert send_all(app, "2026-11-25 20:01") == 16
    assert png_of(app, 2) == b"the other sender's"
    sent = every_picture_sent(app, [*PLAYERS, "gm@example.org"])
    assert sent[("Diplomacy results", "test01-S1901M.png")] == {b"the other sender's"}
    assert sent[("Diplomacy game", "test01-S1901M.png")] == {png_of(app, 1)}
    # What is stored stays: storing again changes nothing.
    with app.sessions() as session, session.begin():
        assert not queries.fill_picture(session, 2, b"drawn over")
    assert png_of(app, 2) == b"the other sender's"


def test_a_map_before_the_sender_draws_the_picture_the_mail_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # MAP draws at once what it needs: the board the game-start mail asked for, captioned
    # with the day it was asked for (as the sender would draw it), into the same row; the
    # sender then sends those bytes and draws nothing.
    app, table = started_game(tmp_path)
    table.send("italy@example.org", "MAP test01\n", "2026-11-24 10:00")
    (reply,) = table.new_mail()
    assert reply.attachments == [{"picture": 1, "filename": "test01-S1901M.png"}]
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        record = session.scalars(select(PhaseRecord)).one()
        start = pictures.board_view(position_from_document(record.position), at("2026-11-23 12:00"))
        expected = drawn(game, start, "Europe/London").png()
    assert png_of(app, 1) == expected
    monkeypatch.setattr(pictures, "draw", None)
    assert send_all(app, "2026-11-24 10:01") == 9
    sent = every_picture_sent(app, [*PLAYERS, "gm@example.org"])
    assert list(sent) == [
        ("Diplomacy game", "test01-S1901M.png"),
        ("Re: orders", "test01-S1901M.png"),
    ]
    assert all(copies == {expected} for copies in sent.values())


# -- maps = false, and a picture that cannot be drawn -------------------------------------


def test_a_game_without_maps_sends_text_only_and_refuses_map(tmp_path: Path) -> None:
    app, table = game_with(tmp_path, "maps = false\n")
    table.process("2026-11-25 20:00")
    assert stored(app) == []
    assert {str(r.attachments) for r in rows_of(app, "gamestart")} == {"None"}
    assert {str(r.attachments) for r in rows_of(app, "results")} == {"None"}
    table.new_mail()
    table.send("italy@example.org", "MAP test01\nLIST test01\n", "2026-11-26 10:00")
    (reply,) = table.new_mail()
    assert reply.attachments is None
    assert (
        "> MAP test01\n"
        "Game test01 sends no map pictures (its game file says maps = false); SUMMARY "
        "test01 gives the position in words.\n"
    ) in reply.body
    assert "\nMaps: none (no map picture is sent with the mail, and MAP is refused).\n" in (
        reply.body
    )


def test_a_picture_that_cannot_be_drawn_leaves_the_mail_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    app, table = started_game(tmp_path)

    def broken(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("the rasteriser is out of ink")

    monkeypatch.setattr(pictures, "draw", broken)
    with caplog.at_level(logging.ERROR, logger="judge.services.pictures"):
        table.process("2026-11-25 20:00")
    # The adjudication does not draw: it only names the picture, and it is none the wiser.
    assert table.phase() == "F1901M"
    assert caplog.messages == []
    results = rows_of(app, "results")
    assert len(results) == 8
    assert {str(r.attachments) for r in results} == {
        str([{"picture": 2, "filename": "test01-S1901M.png"}])
    }
    # The sender cannot draw it: the mail goes without it, logged, and is not held.
    with caplog.at_level(logging.WARNING):
        assert send_all(app, "2026-11-25 20:01") == 16
    assert {r.state for r in rows_of(app, "results")} == {OutboundState.SENT}
    _start, sent = delivered(app, "italy@example.org")
    assert sent.get_content_type() == "text/plain"
    assert [m for m in caplog.messages if "could not be drawn; the mail" in m] == [
        "game test01: the picture of S1901M could not be drawn; the mail goes without it"
    ] * 2  # the board and the results, in the one batch
    assert "out of ink" in caplog.text
    assert caplog.messages[-1].endswith(
        "its picture 2 (test01-S1901M.png) could not be drawn; sent without it"
    )
    assert stored(app) == [(1, "S1901M", "board"), (2, "S1901M", "results")]
    assert png_of(app, 2) is None
    assert send_all(app, "2026-11-25 20:02") == 0  # nothing stuck
    # MAP says it could not draw, and names no error of the judge's to the sender.
    table.new_mail()
    table.send("italy@example.org", "MAP test01\n", "2026-11-26 10:00")
    (reply,) = table.new_mail()
    assert reply.attachments is None
    assert (
        "The map of game test01 could not be drawn (the judge's keeper has been told); "
        "SUMMARY test01 gives the position in words.\n"
    ) in reply.body


def test_results_that_cannot_be_read_back_leave_the_mail_without_a_picture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    app, table = started_game(tmp_path)

    def unreadable(*_args: Any, **_kwargs: Any) -> None:
        raise DocumentError("results[1].order: 'A XYZ H' is not an order")

    monkeypatch.setattr(pictures, "results_from_document", unreadable)
    with caplog.at_level(logging.ERROR, logger="judge.services.pictures"):
        table.process("2026-11-25 20:00")
        assert table.phase() == "F1901M"
        assert caplog.messages == []
        send_all(app, "2026-11-25 20:01")
    assert {r.state for r in rows_of(app, "results")} == {OutboundState.SENT}
    assert caplog.messages == [
        "game test01: the results of S1901M could not be read for their picture; the mail "
        "goes without it"
    ]
    start, results = delivered(app, "italy@example.org")
    assert results.get_content_type() == "text/plain"
    assert start.get_content_type() == "multipart/mixed"  # the board needs no results


def test_a_record_that_does_not_say_its_phases_leaves_the_results_without_a_picture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    app, table = started_game(tmp_path)

    def unreadable(_record: PhaseRecord) -> list[Any]:
        raise KeyError("phase")

    monkeypatch.setattr(pictures, "record_phases", unreadable)
    with caplog.at_level(logging.ERROR, logger="judge.services.pictures"):
        table.process("2026-11-25 20:00")
    assert table.phase() == "F1901M"
    assert {str(r.attachments) for r in rows_of(app, "results")} == {"None"}
    assert caplog.messages == [
        "game test01: the results of S1901M could not be read for their picture; the mail "
        "goes without it"
    ]


# -- a phase played again; a two-season season ------------------------------------------


def test_a_phase_played_again_after_a_rollback_gets_its_new_picture(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.process("2026-11-25 20:00")
    assert stored(app) == [(1, "S1901M", "board"), (2, "S1901M", "results")]
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nROLLBACK S1901M\n", "2026-11-26 10:00")
    assert table.phase() == "S1901M"
    assert stored(app) == []
    table.new_mail()
    table.send("italy@example.org", "MAP test01 S1901M\n", "2026-11-26 10:05")
    (reply,) = table.new_mail()
    assert "The map of game test01 as it stands, Spring 1901 Movement," in reply.body
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        deadline = game.deadline
    assert deadline is not None
    table.process(deadline.strftime("%Y-%m-%d %H:%M"))
    ids = {str(r.attachments) for r in rows_of(app, "results")[8:]}
    assert ids == {str([{"picture": 4, "filename": "test01-S1901M.png"}])}
    assert stored(app) == [(3, "S1901M", "board"), (4, "S1901M", "results")]


def test_a_two_season_season_carries_a_picture_of_each_phase_it_played(tmp_path: Path) -> None:
    app, table = game_with(tmp_path, 'year = "two-season"\n')
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nA Mar-Spa\n", "2026-11-23 13:00")
    table.process("2026-11-25 20:00")
    table.process("2026-11-27 20:00")
    assert table.phase() == "S1902M"
    autumn = rows_of(app, "results")[8:]
    # The moves, then the year's adjustments (France gained Spain); no retreats to make.
    assert {str(r.attachments) for r in autumn} == {
        str(
            [
                {"picture": 3, "filename": "test01-F1901M.png"},
                {"picture": 4, "filename": "test01-W1901A.png"},
            ]
        )
    }
    assert stored(app) == [
        (1, "S1901M", "board"), (2, "S1901M", "results"), (3, "F1901M", "results"),
        (4, "W1901A", "results"),
    ]  # fmt: skip
    # MAP finds the season's adjustments by their own code.
    table.new_mail()
    table.send("italy@example.org", "MAP test01 W1901A\n", "2026-11-28 10:00")
    (reply,) = table.new_mail()
    assert reply.attachments == [{"picture": 4, "filename": "test01-W1901A.png"}]


# -- MAP ------------------------------------------------------------------------------------


def test_map_replies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _app, table = started_game(tmp_path)
    table.process("2026-11-25 20:00")
    table.new_mail()
    table.send(
        "italy@example.org", "MAP test01\nMAP test01 Spring 1901 Movement\n", "2026-11-26 10:00"
    )
    (reply,) = table.check("map_01_board_and_results")
    assert reply.attachments == [
        {"picture": 3, "filename": "test01-F1901M.png"},
        {"picture": 2, "filename": "test01-S1901M.png"},
    ]
    # A processed phase's stored picture is sent again, not drawn again.
    monkeypatch.setattr(pictures, "draw", None)
    table.send("england@example.org", "map test01 s1901m\n", "2026-11-26 10:01")
    (reply,) = table.new_mail()
    assert reply.attachments == [{"picture": 2, "filename": "test01-S1901M.png"}]
    monkeypatch.undo()
    table.send(
        "italy@example.org",
        "MAP test01 Spring 1902\nMAP F1901M\nMAP nosuch\nMAP test01 N\nMAP test01 S1899M\n"
        "MAP test01 Winter 1901 Movement\n",
        "2026-11-26 10:02",
    )
    (reply,) = table.check("map_02_refused")
    assert reply.attachments is None
    # Signed on: the game signed on to, the picture with the confirmation.
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nMAP\nMAP F1901M\n", "2026-11-26 10:03")
    (reply,) = table.check("map_03_signed_on")
    assert reply.kind == "confirm"
    assert reply.attachments == [{"picture": 3, "filename": "test01-F1901M.png"}]


def test_at_most_three_maps_are_answered_in_a_message(tmp_path: Path) -> None:
    _app, table = started_game(tmp_path)
    table.process("2026-11-25 20:00")
    table.new_mail()
    table.send(
        "italy@example.org",
        "MAP test01\nMAP test01 S1901M\nMAP test01 F1901M\nMAP test01 S1901M\n",
        "2026-11-26 10:00",
    )
    (reply,) = table.new_mail()
    # The same picture asked twice goes once.
    assert reply.attachments == [
        {"picture": 3, "filename": "test01-F1901M.png"},
        {"picture": 2, "filename": "test01-S1901M.png"},
    ]
    assert reply.body.endswith(
        "> MAP test01 S1901M\n"
        "Only 3 MAP commands are answered in one message (a picture takes a while to "
        "draw): send this one again in another message.\n\nTESTJUDGE\n"
    )
    assert reply.body.count("is attached to this") == 2  # the same answer once


# -- judge map ----------------------------------------------------------------------------


def cli(tmp_path: Path, *args: str) -> int:
    config = tmp_path / "judge.toml"
    var = tmp_path / "var"
    config.write_text(
        f'[judge]\nname = "TESTJUDGE"\naddress = "judge@example.org"\nvar_dir = "{var}"\n'
        f'database_url = "sqlite:///{var / "judge.db"}"\n'
    )
    return main(["--config", str(config), "--now", "2026-11-26T10:00", "map", *args])


def test_judge_map_writes_a_png_or_an_svg(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _app, table = game_with(tmp_path / "var", "anonymous = true\n")
    table.process("2026-11-25 20:00")
    monkeypatch.chdir(tmp_path)
    assert cli(tmp_path, "test01") == 0
    assert capsys.readouterr().out == "test01-F1901M.png\n"
    with Image.open(tmp_path / "test01-F1901M.png") as opened:
        assert opened.format == "PNG"
    svg = tmp_path / "out" / "spring.svg"
    svg.parent.mkdir()
    assert cli(tmp_path, "test01", "--phase", "Spring 1901", "--out", str(svg)) == 0
    assert capsys.readouterr().out == f"{svg}\n"
    text = svg.read_text(encoding="utf-8")
    assert text.startswith("<svg") and "Game test01" in text
    # An anonymous game's picture names no player: no address, no part of one.
    for address in [*PLAYERS, "gm@example.org"]:
        assert address.split("@")[0] + "@" not in text and address not in text
    assert "example.org" not in text


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("nosuch",), "judge map: there is no game called 'nosuch' (games: test01)\n"),
        (
            ("test01", "--phase", "F1903M"),
            "judge map: F1903M has not been played yet in game test01: it is at F1901M now "
            "(MAP test01 F1901M draws the board as it stands)\n",
        ),
        (
            ("test01", "--phase", "X1901M"),
            "judge map: --phase: 'X1901M' is not a phase: bad phase code 'X1901M': expected "
            "season S/F/W, a year and M/R/A, e.g. S1901M; write a code such as F1901M, or "
            "words such as 'Fall 1901 Movement'\n",
        ),
        (
            ("test01", "--phase", "Spring 1901 Movement now"),
            "judge map: --phase: 'Spring 1901 Movement now' is not a phase: too many words "
            "for a phase; write a code such as F1901M, or words such as 'Fall 1901 Movement'\n",
        ),
        (
            ("test01", "--out", "map.jpg"),
            "judge map: --out map.jpg: the file must end in .png or .svg (the picture's format)\n",
        ),
    ],
)
def test_judge_map_names_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], error: str
) -> None:
    _app, table = game_with(tmp_path / "var", "")
    table.process("2026-11-25 20:00")
    assert cli(tmp_path, *args) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", error)


def test_map_reads_back_only_the_record_that_holds_the_phase(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A MAP costs one record read back, however long the game: a message of MAP lines
    # naming phases not played (none of them counts in the bound of 3) must stay cheap.
    _app, table = started_game(tmp_path)
    for when in ("2026-11-25 20:00", "2026-11-27 20:00", "2026-11-29 20:00"):
        table.process(when)
    assert table.phase() == "F1902M"
    read: list[str] = []
    real = pictures.record_views

    def counted(record: PhaseRecord) -> list[pictures.PhaseView]:
        read.append(record.phase)
        return real(record)

    monkeypatch.setattr(pictures, "record_views", counted)
    table.new_mail()
    table.send(
        "italy@example.org",
        "MAP test01 S1902M\nMAP test01 F1903M\nMAP test01 F1901R\nMAP test01 F1902M\n",
        "2026-11-30 10:00",
    )
    (reply,) = table.new_mail()
    assert read == ["S1902M", "F1901M"]  # F1901R: the F1901M record, which has none
    assert reply.attachments == [
        {"picture": 4, "filename": "test01-S1902M.png"},
        {"picture": 5, "filename": "test01-F1902M.png"},
    ]
    assert "F1903M has not been played yet in game test01: it is at F1902M now" in reply.body
    assert "Game test01 had no phase F1901R (a phase with nothing to do is skipped)" in reply.body


def test_map_of_the_board_sends_the_stored_board_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A phase's board never changes (its record's position is written once; a ROLLBACK
    # forgets its pictures): MAP names the picture the game-start mail carries, neither
    # drawn again nor written over, so that a mail sent again carries the same bytes.
    app, table = started_game(tmp_path)
    send_all(app, "2026-11-23 12:01")  # the game-start mail's board, drawn by the sender
    with app.sessions() as session:
        before = session.get(Picture, 1)
        assert before is not None and before.png is not None
        first = (before.png, before.created_at)
    monkeypatch.setattr(pictures, "draw", None)
    table.send("italy@example.org", "MAP test01\nMAP test01 S1901M\n", "2026-11-24 10:00")
    (reply,) = table.new_mail()
    assert reply.attachments == [{"picture": 1, "filename": "test01-S1901M.png"}]
    assert reply.body.count("The map of game test01 as it stands, Spring 1901 Movement,") == 1
    with app.sessions() as session:
        after = session.get(Picture, 1)
        assert after is not None
        assert (after.png, after.created_at) == first
    assert stored(app) == [(1, "S1901M", "board")]


def test_the_copy_to_the_registered_address_carries_the_map_it_speaks_of(
    tmp_path: Path,
) -> None:
    # Signed on from elsewhere: the registered address gets a copy of what the message
    # did, whose text says the map is attached; so it is.
    _app, table = started_game(tmp_path)
    table.send("elsewhere@example.net", "SIGNON Itest01 pw-ita\nMAP\nA Ven H\n", "2026-11-24 10:00")
    confirm, copy = table.new_mail()
    assert (confirm.kind, confirm.to_addr) == ("confirm", "elsewhere@example.net")
    assert (copy.kind, copy.to_addr) == ("copy", "italy@example.org")
    board = [{"picture": 1, "filename": "test01-S1901M.png"}]
    assert confirm.attachments == board
    assert "is attached to\nthis reply as a picture: test01-S1901M.png." in copy.body
    assert copy.attachments == board


def test_a_replacement_players_welcome_carries_the_board_as_stored(tmp_path: Path) -> None:
    # The welcome of a player who takes over a seat is a game-start mail: it carries the
    # board of the phase being played, the picture already stored for it (not drawn over).
    app, table = started_game(tmp_path)
    table.process("2026-11-25 20:00")
    table.send("italy@example.org", "MAP test01\n", "2026-11-26 09:00")
    assert stored(app) == [(1, "S1901M", "board"), (2, "S1901M", "results"), (3, "F1901M", "board")]
    path = tmp_path / "test01.toml"
    path.write_text(
        path.read_text().replace(
            'Turkey = { address = "turkey@example.org", password = "pw-tur" }',
            'Turkey = "sultan@example.net"',
        )
    )
    table.new_mail()
    with app.sessions() as session, session.begin():
        reload_configs(session, app.judge, at("2026-11-26 10:00"))
    (welcome,) = [r for r in table.new_mail() if r.kind == "replacement"]
    assert welcome.attachments == [{"picture": 3, "filename": "test01-F1901M.png"}]
    assert stored(app) == [(1, "S1901M", "board"), (2, "S1901M", "results"), (3, "F1901M", "board")]
