"""ROLLBACK: the game master takes a game back to the start of an earlier phase, with the
orders then in force and a new deadline; everyone is told, HISTORY keeps what was undone,
and every refusal changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select
from support.servicekit import GAME_FILE, Table, at, game_row, player, started_game

from judge.db.models import (
    Game,
    GameStatus,
    NoticeRecord,
    OrderRecord,
    PhaseRecord,
    PlayerStatus,
    Rollback,
)
from judge.runtime.bootstrap import App
from judge.services.game_files import load_game

GM = "gm@example.org"
SIGNON_GM = "SIGNON Mtest01 gm-secret\n"


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    return started_game(tmp_path)


def reply_body(table: Table) -> str:
    rows = table.new_mail()
    assert len(rows) == 1, [(r.to_addr, r.subject) for r in rows]
    return rows[0].body


def phases(app: App) -> list[tuple[int, str, bool]]:
    with app.sessions() as session:
        records = session.scalars(select(PhaseRecord).order_by(PhaseRecord.seq))
        return [(r.seq, r.phase, r.results is not None) for r in records]


def count(app: App, model: type[object]) -> int:
    with app.sessions() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def test_roll_back_one_phase_and_process_again_with_different_orders(
    game: tuple[App, Table],
) -> None:
    app, table = game
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-NTH\nF Edi-NWG\nA Lvp-Yor\n",
               "2026-11-23 13:00")  # fmt: skip
    table.process("2026-11-25 20:00")
    table.new_mail()
    assert table.units()["nth"] == "Eng F"

    table.send("gm@example.org", SIGNON_GM + "ROLLBACK s1901m England's orders were mistyped\n",
               "2026-11-26 09:00")  # fmt: skip
    # The master's reply, and the news to the seven players and the master.
    rows = table.check("rollback_one_phase")
    assert [r.to_addr for r in rows] == [
        "austria@example.org", "england@example.org", "france@example.org",
        "germany@example.org", "italy@example.org", "russia@example.org", "turkey@example.org",
        "gm@example.org", "gm@example.org",
    ]  # fmt: skip
    gm_reply = rows[-1].body
    assert (
        "Rolled back from F1901M to the start of S1901M.\n"
        "The new deadline is "
        "Sat Nov 28 2026 20:00:00 +0000 (Europe/London).\n"
        "Undone: the results of S1901M; HISTORY still shows them.\n"
        "Put back: Austria: missed phases 1 -> 0.\n"
        "Put back: France: missed phases 1 -> 0.\n"
        "Put back: Germany: missed phases 1 -> 0.\n"
        "Put back: Italy: missed phases 1 -> 0.\n"
        "Put back: Russia: missed phases 1 -> 0.\n"
        "Put back: Turkey: missed phases 1 -> 0.\n"
        "8 readers of the game told by mail.\n"
    ) in gm_reply
    assert phases(app) == [(1, "S1901M", False)]
    stored = game_row(app)
    assert (stored.phase, stored.seq, stored.deadline) == ("S1901M", 1, at("2026-11-28 20:00"))
    assert table.units()["lon"] == "Eng F"
    with app.sessions() as session:
        [rollback] = session.scalars(select(Rollback))
        assert (rollback.from_seq, rollback.from_phase, rollback.to_seq, rollback.to_phase) == (
            2,
            "F1901M",
            1,
            "S1901M",
        )
        assert rollback.reason == "England's orders were mistyped"
        assert rollback.created_at == at("2026-11-26 09:00")
        undone = rollback.undone
        assert [(p["seq"], p["phase"]) for p in undone["phases"]] == [(1, "S1901M"), (2, "F1901M")]
        assert undone["phases"][0]["results"]["report"].startswith(
            "Movement results for Spring of 1901.  (test01.001)"
        )
        assert undone["phases"][1]["results"] is None
        assert undone["orders"] == [] and undone["notices"] == []
        assert undone["game"] == {
            "status": "active", "winner": None, "ending": None, "result": None,
            "deadline": "2026-11-27T20:00:00+00:00",
        }  # fmt: skip
        # The orders of S1901M are in force again.
        active = session.scalars(
            select(OrderRecord.canonical).where(OrderRecord.active.is_(True))
        ).all()
        assert sorted(str(text) for text in active) == ["A lvp-yor", "F edi-nwg", "F lon-nth"]

    table.send("england@example.org", "SIGNON Etest01 pw-eng\nF Lon-ENG\n", "2026-11-26 10:00")
    body = reply_body(table)
    assert (
        "England: Fleet Edinburgh -> Norwegian Sea.\n"
        "England: Army Liverpool -> Yorkshire.\n"
        "England: Fleet London -> English Channel.\n"
    ) in body
    table.process("2026-11-28 20:00")
    table.new_mail()
    # The new position: England's fleet went to the Channel this time.
    assert table.units() == {
        "ank": "Tur F", "ber": "Ger A", "bre": "Fra F", "bud": "Aus A", "con": "Tur A",
        "eng": "Eng F", "kie": "Ger F", "mar": "Fra A", "mos": "Rus A", "mun": "Ger A",
        "nap": "Ita F", "nwg": "Eng F", "par": "Fra A", "rom": "Ita A", "sev": "Rus F",
        "smy": "Tur A", "stp/sc": "Rus F", "tri": "Aus F", "ven": "Ita A", "vie": "Aus A",
        "war": "Rus A", "yor": "Eng A",
    }  # fmt: skip
    assert phases(app) == [(1, "S1901M", True), (2, "F1901M", False)]

    # HISTORY shows the phase as it stands, then the rollback and what it undid.
    table.send("italy@example.org", "HISTORY test01\n", "2026-11-29 10:00", subject="history")
    table.check("rollback_history")


def test_roll_back_across_retreats_and_adjustments(game: tuple[App, Table]) -> None:
    app, table = game
    send = table.send
    send("austria@example.org", "SIGNON Atest01 pw-aus\nA Bud-Ser\n", "2026-11-23 13:00")
    send("russia@example.org", "SIGNON Rtest01 pw-rus\nF Sev-Rum\n", "2026-11-23 13:00")
    send("turkey@example.org", "SIGNON Ttest01 pw-tur\nA Con-Bul\n", "2026-11-23 13:00")
    table.process("2026-11-25 20:00")
    send("austria@example.org", "SIGNON Atest01 pw-aus\nA Ser-Bul\n", "2026-11-26 09:00")
    send("russia@example.org", "SIGNON Rtest01 pw-rus\nF Rum S A Ser-Bul\n", "2026-11-26 09:00")
    send("turkey@example.org", "SIGNON Ttest01 pw-tur\nA Bul H\n", "2026-11-26 09:00")
    table.process("2026-11-27 20:00")
    # England, France, Germany and Italy missed two movement phases: civil disorder.
    assert (player(app, "France").missed, player(app, "France").status) == (2, "civil_disorder")
    send("turkey@example.org", "SIGNON Ttest01 pw-tur\nA Bul-Con\n", "2026-11-28 09:00")
    table.process("2026-11-28 20:00")
    send("austria@example.org", "SIGNON Atest01 pw-aus\nBuild A Bud\n", "2026-11-29 09:00")
    send("russia@example.org", "SIGNON Rtest01 pw-rus\nBuild F Sev\n", "2026-11-29 09:00")
    table.process("2026-11-29 20:00")
    assert phases(app) == [
        (1, "S1901M", True), (2, "F1901M", True), (3, "F1901R", True), (4, "W1901A", True),
        (5, "S1902M", False),
    ]  # fmt: skip
    table.new_mail()

    # Back one phase, to the adjustments: the builds are in force again.
    send(GM, SIGNON_GM + "ROLLBACK\n", "2026-11-30 09:00")
    rows = table.new_mail()
    assert rows[-1].to_addr == GM
    assert (
        "Rolled back from S1902M to the start of W1901A.\n"
        "The new deadline is "
        "Tue Dec 01 2026 09:00:00 +0000 (Europe/London).\n"
        "Undone: the results of W1901A; HISTORY still shows them.\n"
    ) in rows[-1].body
    austria = next(r for r in rows if r.to_addr == "austria@example.org")
    assert austria.subject == "Diplomacy game test01 rolled back to W1901A"
    assert "Reason: no reason given\n" in austria.body
    assert (
        "Adjustment orders for Winter of 1901.  (test01.004)\n\n"
        "Austria: Build Army Budapest.\n"
        "Austria: all 1 build ordered.\n"
    ) in austria.body
    assert "Russia: " not in austria.body.split("YOUR ORDERS")[1]
    assert table.units().get("bud") is None

    # Back across the retreats to the fall movement: its results, the retreat and the
    # pending builds are undone; the seats are as they were when F1901M was processed.
    send(GM, SIGNON_GM + "ROLLBACK F1901M: Russia's support was entered wrongly\n",
         "2026-11-30 09:05")  # fmt: skip
    rows = table.new_mail()
    assert (
        "Rolled back from W1901A to the start of F1901M.\n"
        "The new deadline is "
        "Wed Dec 02 2026 20:00:00 +0000 (Europe/London).\n"
        "Undone: the results of F1901M and F1901R, and 3 order lines of the later phases; "
        "HISTORY still shows them.\n"
        "Put back: England: missed phases 2 -> 1, civil disorder -> active.\n"
        "Put back: France: missed phases 2 -> 1, civil disorder -> active.\n"
        "Put back: Germany: missed phases 2 -> 1, civil disorder -> active.\n"
        "Put back: Italy: missed phases 2 -> 1, civil disorder -> active.\n"
        "8 readers of the game told by mail.\n"
    ) in rows[-1].body, repr(rows[-1].body)
    assert phases(app) == [(1, "S1901M", True), (2, "F1901M", False)]
    assert (player(app, "France").missed, player(app, "France").status) == (1, "active")
    russia = next(r for r in rows if r.to_addr == "russia@example.org")
    assert "Reason: Russia's support was entered wrongly\n" in russia.body
    assert "Russia: Fleet Rumania SUPPORT Army Serbia -> Bulgaria.\n" in russia.body
    with app.sessions() as session:
        last = session.scalars(select(Rollback).order_by(Rollback.id.desc())).first()
        assert last is not None
        assert [p["phase"] for p in last.undone["phases"]] == ["F1901M", "F1901R", "W1901A"]
        assert [(o["power"], o["raw"]) for o in last.undone["orders"]] == [
            ("Turkey", "A Bul-Con"), ("Austria", "Build A Bud"), ("Russia", "Build F Sev"),
        ]  # fmt: skip
        assert last.undone["seats"]["France"] == {
            "missed": 2,
            "status": "civil_disorder",
            "wait": False,
            "address": "france@example.org",
        }

    # Played again with Russia's fleet holding: a bounce, no retreat, the adjustments next.
    send("russia@example.org", "SIGNON Rtest01 pw-rus\nF Rum H\n", "2026-11-30 10:00")
    table.process("2026-12-02 20:00")
    units = table.units()
    assert (units["ser"], units["bul"], units["rum"]) == ("Aus A", "Tur A", "Rus F")
    assert phases(app) == [(1, "S1901M", True), (2, "F1901M", True), (3, "W1901A", False)]


def test_every_refusal_names_the_input_and_changes_nothing(
    game: tuple[App, Table], tmp_path: Path
) -> None:
    app, table = game
    send = table.send
    send("france@example.org", "SIGNON Ftest01 paris-123\nROLLBACK\n", "2026-11-23 13:00")
    assert (
        "  ROLLBACK\n    -> only the game master can do this: SIGNON M<game> <password> first\n"
    ) in reply_body(table)
    send(GM, SIGNON_GM + "ROLLBACK\n", "2026-11-23 13:01")
    assert (
        "> ROLLBACK\nCannot roll back test01: it is in its first phase, S1901M, and there is "
        "no earlier phase to go back to.\n"
    ) in reply_body(table)
    table.process("2026-11-25 20:00")
    # No dislodgement and no centre changes hands: neither retreats nor adjustments.
    table.process("2026-11-27 20:00")
    table.new_mail()
    before = (phases(app), game_row(app).deadline)
    assert before[0] == [(1, "S1901M", True), (2, "F1901M", True), (3, "S1902M", False)]
    refused = {
        "ROLLBACK S1902M": "Cannot roll back to S1902M: it is the phase test01 is in now; "
        "ROLLBACK goes back to the start of an earlier phase: S1901M, F1901M",
        "ROLLBACK F1902M": "Cannot roll back to F1902M: it is later than test01's current "
        "phase, S1902M; ROLLBACK goes back to an earlier phase: S1901M, F1901M",
        "ROLLBACK W1901A": "Cannot roll back to W1901A: it was never played in test01; its "
        "phases so far: S1901M, F1901M, S1902M",
        "ROLLBACK F1901R": "Cannot roll back to F1901R: it was never played in test01; its "
        "phases so far: S1901M, F1901M, S1902M",
        "ROLLBACK F19O1M oops": "ROLLBACK: 'F19O1M' is not a phase code; write 'ROLLBACK' for "
        "the phase before the current one, or 'ROLLBACK <phase>' with a phase code such as "
        "S1901M, F1901R or W1901A, then the reason if you like",
        "ROLLBACK W1901M": "ROLLBACK: 'W1901M' is not a phase code; write 'ROLLBACK' for the "
        "phase before the current one, or 'ROLLBACK <phase>' with a phase code such as "
        "S1901M, F1901R or W1901A, then the reason if you like",
        "ROLLBACK S1901M " + "because " * 40: "ROLLBACK: the reason is 319 characters long; "
        "keep it to 300 or fewer",
    }
    for line, error in refused.items():
        send(GM, SIGNON_GM + line + "\n", "2026-11-28 09:00")
        body = reply_body(table)
        # (A long line is quoted cut short.)
        assert f"\n{error}.\n" in body and f"> {line.strip()[:40]}" in body, (line, body)
    assert (phases(app), game_row(app).deadline) == before
    assert count(app, Rollback) == 0

    # A game that has not started has nothing to roll back.
    path = tmp_path / "forming.toml"
    path.write_text(
        GAME_FILE.replace('name = "test01"', 'name = "forming"').split("[players]")[0]
        + '[players]\nEngland = { address = "e2@example.org", password = "pw-eng" }\n'
    )
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-28 09:00"))
    table.new_mail()
    send(GM, "SIGNON Mforming gm-secret\nROLLBACK\n", "2026-11-28 09:05")
    assert "> ROLLBACK\nCannot roll back forming: it has not started.\n" in reply_body(table)


def test_a_finished_game_goes_on_and_a_paused_one_stays_paused(game: tuple[App, Table]) -> None:
    app, table = game
    table.process("2026-11-25 20:00")
    table.process("2026-11-27 20:00")
    with app.sessions() as session, session.begin():
        stored = session.scalars(select(Game)).one()
        stored.status, stored.winner, stored.deadline = GameStatus.FINISHED, "France", None
        # F1901M as a judge that did not keep the seats yet processed it.
        record = session.scalars(select(PhaseRecord).where(PhaseRecord.seq == 2)).one()
        record.results = {k: v for k, v in (record.results or {}).items() if k != "seats"}
        session.add(NoticeRecord(game_id=stored.id, seq=2, kind="reminder", player_id=None))
    table.new_mail()
    table.send(GM, SIGNON_GM + "ROLLBACK\n", "2026-11-28 09:00")
    gm_reply = table.new_mail()[-1].body
    assert (
        "The game had finished: it goes on again, with no winner yet.\n"
        "The players' missed phases and civil disorder could not be put back (F1901M was "
        "processed before the judge kept them): they stay as they are.\n"
    ) in gm_reply
    stored = game_row(app)
    assert (stored.status, stored.winner, stored.ending, stored.phase) == (
        "active",
        None,
        None,
        "F1901M",
    )
    assert count(app, NoticeRecord) == 0  # reminders go out again
    assert player(app, "France").status == PlayerStatus.CIVIL_DISORDER

    table.send(GM, SIGNON_GM + "PAUSE\nROLLBACK S1901M\n", "2026-11-28 09:10")
    # PAUSE's own news comes first; the rollback's news says the game is still paused.
    rows = [row for row in table.new_mail() if row.kind == "rollback"]
    assert game_row(app).status == "paused"
    assert (
        "The game is paused: no phase is processed until the game master resumes it.\n"
    ) in rows[0].body


def test_an_ejected_seat_stays_open_after_a_rollback(game: tuple[App, Table]) -> None:
    # An ejection is the game master's act, not the processing's: rolling back past it
    # must not make the seat active again (its password is emptied, so nobody could
    # then sign on to it, nor take it over).
    app, table = game
    table.process("2026-11-25 20:00")
    table.send(GM, SIGNON_GM + "EJECT France\n", "2026-11-26 08:00")
    table.new_mail()
    table.send(GM, SIGNON_GM + "ROLLBACK\n", "2026-11-26 09:00")
    gm_reply = table.new_mail()[-1].body
    assert "Put back: France" not in gm_reply
    france = player(app, "France")
    assert (france.status, france.ejected_at) == (
        PlayerStatus.CIVIL_DISORDER,
        at("2026-11-26 08:00"),
    )
