"""The final mail of a game (issue 15, "The end"), by mail with a fixed clock: a solo and
the game master's TERMINATE each send it to every reader (resigned players, the master and
the observers too), with the players unveiled in an anonymous game; LIST says how the game
ended; orders afterwards are refused with the reason."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at, game_row, make_app

from judge.db.models import Game, GameStatus, Observer, Player, PlayerStatus
from judge.engine import Position, standard_map
from judge.engine.document import position_to_document
from judge.runtime.bootstrap import App
from judge.services.game_files import load_game
from judge.services.games import current_phase, start_game

GM = "gm@example.org"
WATCHER = "watcher@example.net"
READERS = [
    "austria@example.org", "england@example.org", "france@example.org",
    "germany@example.org", "italy@example.org", "russia@example.org",
    "turkey@example.org", GM, WATCHER,
]  # fmt: skip


def anonymous_game(tmp_path: Path) -> tuple[App, Table]:
    """test01, anonymous, started 2026-11-23 12:00, with an observer and England resigned
    (a resigned player still reads how the game ends)."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace('rules = "2023"\n', 'rules = "2023"\nanonymous = true\n'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        game = start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
        session.add(Observer(game_id=game.id, address=WATCHER))
        england = session.scalars(select(Player).where(Player.power == "England")).one()
        england.status = PlayerStatus.RESIGNED
    table = Table(app)
    table.new_mail()
    return app, table


def player_status(app: App, power: str) -> str:
    with app.sessions() as session:
        return session.scalars(select(Player.status).where(Player.power == power)).one()


def reply(table: Table) -> str:
    rows = table.new_mail()
    assert len(rows) == 1, [(r.to_addr, r.subject) for r in rows]
    return rows[0].body


def france_about_to_win(app: App) -> None:
    """Make the current phase (F1902M) one where France holds 17 centres, Germany is gone
    and France's army in Burgundy can walk into empty Belgium for the 18th."""
    game_map = standard_map()
    units = [
        replace(u, location="bur") if u.location == "par" else u
        for u in game_map.start_units
        if u.power != "Germany"
    ]
    centres = dict(game_map.start_centres)
    for centre in (
        "ber",
        "kie",
        "mun",
        "spa",
        "por",
        "hol",
        "den",
        "nor",
        "swe",
        "tun",
        "gre",
        "rum",
        "bul",
        "ser",
    ):
        centres[centre] = "France"
    centres = {c: p for c, p in centres.items() if p != "Germany"}
    position = Position.build(game_map, "F1902M", units, centres)
    assert len(position.centres_of("France")) == 17
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        record = current_phase(session, game)
        assert record is not None and record.phase == "F1902M"
        record.position = position_to_document(position)


def test_a_solo_sends_the_final_mail_to_every_reader(tmp_path: Path) -> None:
    app, table = anonymous_game(tmp_path)
    table.process("2026-11-25 20:00")  # S1901M: every unit holds
    table.process("2026-11-27 20:00")  # F1901M: no centre changes, no adjustments
    table.process("2026-11-30 20:00")  # S1902M
    assert table.phase() == "F1902M"
    table.new_mail()
    france_about_to_win(app)
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nA Bur-Bel\n", "2026-12-01 09:00")
    table.new_mail()
    table.process("2026-12-02 20:00")
    rows = table.check("game_over_solo")
    # The results first (as before), then the final mail, to the same readers.
    assert [(r.to_addr, r.kind) for r in rows] == [
        *[(reader, "results") for reader in READERS],
        *[(reader, "game_over") for reader in READERS],
    ]
    final = rows[-1]
    assert final.subject == "Diplomacy game test01 is over: France has won"
    # The anonymous game's players are named now that it is over.
    assert "  England  england@example.org (resigned)\n" in final.body
    assert (
        "Year  Austria England  France Germany   Italy  Russia  Turkey\n"
        "Start       3       3       3       3       3       4       3\n"
        "1901        3       3       3       3       3       4       3\n"
        "1902        3       3      18       0       3       4       3\n"
    ) in final.body
    game = game_row(app)
    assert (game.status, game.winner, game.ending, game.deadline) == (
        GameStatus.FINISHED, "France", None, None,
    )  # fmt: skip
    # Over: orders are refused with the reason, and LIST says how it ended and who played.
    # Italy, in civil disorder after missing two phases, signs on with its own password (an
    # open seat's sign-on was refused: "Test01 is finished: its seats no longer change",
    # and the orders then asked for a sign-on).
    assert player_status(app, "Italy") == PlayerStatus.CIVIL_DISORDER
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nA Ven-Tyr\n", "2026-12-03 09:00")
    assert reply(table) == (
        "Game test01 is over.\n\n"
        "> A Ven-Tyr\n"
        "Game test01 is over: France won it, and no more orders are taken.\n\n"
        "TESTJUDGE\n"
    )
    table.send("someone@example.net", "LIST test01\n", "2026-12-03 09:05")
    body = reply(table)
    assert "Game test01: finished, won by France.  Variant: Standard.\n" in body
    assert "Anonymous: players' addresses are shown now that the game is over.\n" in body
    assert "  France   france@example.org  active\n" in body


def test_terminate_sends_the_final_mail_to_every_reader(tmp_path: Path) -> None:
    app, table = anonymous_game(tmp_path)
    table.process("2026-11-25 20:00")
    table.new_mail()
    table.send(GM, "SIGNON Mtest01 gm-secret\nTERMINATE\n", "2026-11-26 09:00")
    rows = table.check("game_over_terminated")
    # The final mail is the termination's only news (it says who ended the game), then
    # the master's reply.
    assert [(r.to_addr, r.kind) for r in rows] == [
        *[(reader, "game_over") for reader in READERS],
        (GM, "reply-signed"),
    ]
    assert rows[0].subject == "Diplomacy game test01 is over: ended by the game master"
    assert "  England  england@example.org (resigned)\n" in rows[0].body
    assert game_row(app).ending == "terminated"
    table.send("someone@example.net", "LIST test01\n", "2026-11-26 09:05")
    assert (
        "Game test01: finished, ended by the game master with no winner.\nVariant: Standard.\n"
    ) in reply(table)
