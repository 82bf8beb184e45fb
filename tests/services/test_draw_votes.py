"""The njudge's standing votes (issue 15, "The njudge way"), by mail with a fixed clock:
SET DRAW / SET NODRAW and SET CONCEDE / SET NOCONCEDE stored and withdrawn, the game
ended on the last vote or when the phase is processed, votes from powers in civil
disorder not counted, every refusal with its reason and nothing stored, LIST showing the
votes to the master alone, and no mail but the voter's own naming a voter."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at, game_row, make_app

from judge.db.models import Game, Observer, Player, PlayerStatus, VoteRecord
from judge.engine import Position, standard_map
from judge.engine.document import position_to_document
from judge.runtime.bootstrap import App
from judge.services.endgame import not_processed_why
from judge.services.game_files import load_game
from judge.services.games import current_phase, process_game, start_game

GM = "gm@example.org"
WATCHER = "watcher@example.net"
PASSWORDS = {
    "Austria": "pw-aus", "England": "pw-eng", "France": "paris-123", "Germany": "pw-ger",
    "Italy": "pw-ita", "Russia": "pw-rus", "Turkey": "pw-tur",
}  # fmt: skip
POWERS = tuple(PASSWORDS)
READERS = [f"{power.lower()}@example.org" for power in POWERS] + [GM, WATCHER]
HEAD = (
    ":: Judge: TESTJUDGE  Game: test01  Variant: Standard\n"
    ":: Deadline: S1901M Wed Nov 25 2026 20:00:00 +0000 (Europe/London)\n\n"
)
SECRET = "Votes are secret: only the game master sees who voted."


def new_game(tmp_path: Path, settings: str = "", *, start: bool = True) -> tuple[App, Table]:
    """test01 with ``settings`` added to its [game] table, started 2026-11-23 12:00 (S1901M,
    deadline Nov 25 20:00), with an observer."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace('rules = "2023"\n', f'rules = "2023"\n{settings}'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        if start:
            start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
        game = session.scalars(select(Game)).one()
        session.add(Observer(game_id=game.id, address=WATCHER))
    table = Table(app)
    table.new_mail()
    return app, table


def send(table: Table, power: str, lines: str, when: str = "2026-11-24 09:00") -> str:
    """``power`` signs on and sends ``lines``; its reply, the only mail queued (no other
    reader learns that it voted)."""
    initial = standard_map().power_letter[power]
    table.send(
        f"{power.lower()}@example.org", f"SIGNON {initial}test01 {PASSWORDS[power]}\n{lines}", when
    )
    rows = table.new_mail()
    assert [r.to_addr for r in rows] == [f"{power.lower()}@example.org"]
    return rows[0].body


def refusals(body: str) -> list[str]:
    """The reasons the reply gives for the lines it refused: after ``->`` in an order
    confirmation, on the line after the quoted line (``> SET DRAW``) in a plain reply."""
    lines = [line.strip() for line in body.splitlines()]
    found = [line[3:] for line in lines if line.startswith("-> ")]
    if not found:
        found = [after.rstrip(".") for line, after in pairwise(lines) if line[:2] == "> "]
    return found


def votes(app: App) -> list[tuple[str, str, list[str] | None]]:
    with app.sessions() as session:
        rows = session.scalars(select(VoteRecord).order_by(VoteRecord.power, VoteRecord.kind))
        return [(r.power, r.kind, r.powers) for r in rows]


def set_status(app: App, power: str, status: PlayerStatus) -> None:
    with app.sessions() as session, session.begin():
        player = session.scalars(select(Player).where(Player.power == power)).one()
        player.status = status


def without_germany(app: App) -> None:
    """Make the current phase's position one where Germany has nothing left."""
    game_map = standard_map()
    units = [u for u in game_map.start_units if u.power != "Germany"]
    centres = {c: p for c, p in game_map.start_centres.items() if p != "Germany"}
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        record = current_phase(session, game)
        assert record is not None
        position = Position.build(game_map, record.phase, units, centres)
        record.position = position_to_document(position)


def listing(table: Table, sender: str, lines: str, when: str = "2026-11-24 10:00") -> str:
    table.send(sender, lines, when)
    rows = table.new_mail()
    assert [r.to_addr for r in rows] == [sender]
    return rows[0].body


def test_a_dias_draw_passes_on_the_last_vote(tmp_path: Path) -> None:
    app, table = new_game(tmp_path)
    for power in POWERS[:-1]:
        body = send(table, power, "SET DRAW\n")
        assert (
            f"{power}'s vote for a draw (every survivor) is recorded; it stands until SET "
            f"NODRAW.  {SECRET}\n"
        ) in body
        assert "over" not in body
        assert game_row(app).status == "active"
    assert [power for power, _, _ in votes(app)] == list(POWERS[:-1])
    # The last survivor's vote ends the game at once: its reply says so, and everyone
    # (the players, the master and the observer) gets the final mail.
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nSET DRAW\n", "2026-11-24 11:00")
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [
        *[(reader, "game_over") for reader in READERS],
        ("turkey@example.org", "reply-signed"),
    ]
    final = rows[0]
    assert final.subject == (
        "Diplomacy game test01 is over: a draw among Austria, England, France, Germany, "
        "Italy, Russia and Turkey"
    )
    assert rows[-1].body == (
        "Game test01 is over.\n\n"
        "Turkey's vote for a draw (every survivor) is recorded."
        "  With it the vote passed: game test01 is over, drawn among Austria, "
        "England, France, Germany, Italy, Russia and Turkey.  Every player and observer gets "
        "the final mail.\n\n"
        "TESTJUDGE\n"
    )
    # No mail names a voter: the final mail says the result only.
    for row in rows[:-1]:
        assert "vote" not in row.body.lower()
    game = game_row(app)
    assert (game.status, game.ending, game.winner, game.result, game.deadline) == (
        "finished", "draw", None, [[1, list(POWERS)]], None,
    )  # fmt: skip
    # LIST of the finished game says how it ended, and shows no votes.
    body = listing(table, "someone@example.net", "LIST test01\n")
    assert body.startswith(
        "Game test01: finished, drawn among Austria, England, France, Germany, Italy,\n"
        "  Russia and Turkey.\n"
        "Variant: Standard.\n"
        "Game master: gm@example.org\n"
        "Rules: 2023 rulebook.  NMR: process (missing units hold).\n"
        "Press: white, partial allowed; observers: any.\n"
        "Endings: draw votes (SET DRAW; every survivor is in the draw) and concessions\n"
        "  (SET CONCEDE <power>).\n"
        "Not anonymous: players' addresses are shown.\n"
    )
    # A vote after the end is refused.
    body = send(table, "Austria", "SET NODRAW\n", "2026-11-24 12:00")
    assert refusals(body) == [
        "SET NODRAW: game test01 is over: it ended in a draw among Austria, England, France, "
        "Germany, Italy, Russia and Turkey, and no more orders are taken"
    ]


def test_a_withdrawn_vote_blocks_the_draw_and_votes_stand_across_phases(tmp_path: Path) -> None:
    app, table = new_game(tmp_path)
    for power in POWERS:
        if power == "Italy":
            body = send(table, power, "SET DRAW\nSET NO DRAW\nSET NODRAW\n")
            assert (
                f"Italy's vote for a draw (every survivor) is recorded; it stands until SET "
                f"NODRAW.  {SECRET}\n"
                "Italy's vote for a draw (every survivor) is withdrawn.\n"
                "Italy had no vote for a draw standing: nothing to withdraw.\n"
            ) in body
        else:
            send(table, power, "SET DRAW\n")
    assert game_row(app).status == "active"
    assert "Italy" not in [power for power, _, _ in votes(app)]
    # Processing the phase ends nothing: the draw lacks Italy.
    with app.sessions() as session, session.begin():
        assert process_game(session, app.judge, "test01", at("2026-11-25 20:00")) is not None
    assert game_row(app).phase == "F1901M"
    table.new_mail()
    # The six votes stand into the next phase: Italy's makes the draw.
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nSET DRAW\n", "2026-11-26 09:00")
    rows = table.new_mail()
    assert [r.kind for r in rows] == ["game_over"] * len(READERS) + ["reply-signed"]
    game = game_row(app)
    assert (game.status, game.ending, game.phase) == ("finished", "draw", "F1901M")


def test_a_non_dias_draw_fails_on_a_mismatched_set_and_passes_on_a_matching_one(
    tmp_path: Path,
) -> None:
    app, table = new_game(tmp_path, "dias = false\n")
    assert refusals(send(table, "Austria", "SET DRAW\n")) == [
        "SET DRAW: in this game a draw names its powers (no DIAS): write SET DRAW and the "
        "powers of the draw, their initials run together or their names (SET DRAW AEF, "
        "SET DRAW Austria, England, France)"
    ]
    assert votes(app) == []
    for power in POWERS[:-1]:
        body = send(table, power, "SET DRAW AEF\n")
        assert (
            f"{power}'s vote for a draw (Austria, England and France) is recorded; it stands "
            f"until SET NODRAW.  {SECRET}\n"
        ) in body
    # Turkey names another set: every survivor voted, but not for the same draw.
    body = send(table, "Turkey", "SET DRAW Austria, England\n")
    assert "Turkey's vote for a draw (Austria and England) is recorded" in body
    assert game_row(app).status == "active"
    with app.sessions() as session, session.begin():
        assert process_game(session, app.judge, "test01", at("2026-11-25 20:00")) is not None
    assert game_row(app).status == "active"
    table.new_mail()
    # Turkey's new vote replaces its old one, and matches.
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nSET DRAW F E A\n", "2026-11-26 09:00")
    rows = table.new_mail()
    assert rows[0].subject == (
        "Diplomacy game test01 is over: a draw among Austria, England and France"
    )
    assert "drawn among Austria, England and France" in rows[-1].body
    game = game_row(app)
    assert (game.ending, game.result) == ("draw", [[1, ["Austria", "England", "France"]]])


def test_a_non_dias_draw_of_one_power_is_a_concession_to_it(tmp_path: Path) -> None:
    app, table = new_game(tmp_path, "dias = false\n")
    for power in POWERS:
        if power != "Turkey":
            send(table, power, "SET DRAW R\n")
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nSET DRAW Russia\n", "2026-11-24 10:00")
    rows = table.new_mail()
    assert rows[0].subject == "Diplomacy game test01 is over: conceded to Russia"
    game = game_row(app)
    assert (game.ending, game.winner) == ("concession", "Russia")


def test_a_vote_from_a_power_in_civil_disorder_never_counts(tmp_path: Path) -> None:
    app, table = new_game(tmp_path)
    send(table, "Italy", "SET DRAW\n")
    set_status(app, "Italy", PlayerStatus.CIVIL_DISORDER)
    for power in POWERS:
        if power != "Italy":
            send(table, power, "SET DRAW\n")
    assert game_row(app).status == "active"
    body = listing(table, GM, "SIGNON Mtest01 gm-secret\nLIST\n")
    assert (
        "Votes (only you see them): Austria: draw; England: draw; France: draw;\n"
        "  Germany: draw; Italy: draw (in civil disorder: not counted); Russia: draw;\n"
        "  Turkey: draw.\n"
    ) in body
    # Italy back from civil disorder: its standing vote counts again, and the game ends
    # when the phase is processed (the master's PROCESS), not on Italy's orders.
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nA Ven H\n", "2026-11-24 11:00")
    assert game_row(app).status == "active"
    table.new_mail()
    table.send(GM, "SIGNON Mtest01 gm-secret\nPROCESS\n", "2026-11-24 12:00")
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [
        *[(reader, "game_over") for reader in READERS],
        (GM, "reply-signed"),
    ]
    assert "Game test01 is over: drawn among Austria, England, France, Germany, Italy, " in (
        rows[-1].body
    )
    game = game_row(app)
    assert (game.status, game.ending, game.phase) == ("finished", "draw", "S1901M")


def test_votes_are_checked_when_the_phase_is_processed(tmp_path: Path) -> None:
    app, table = new_game(tmp_path)
    send(table, "Italy", "SET DRAW\n")
    set_status(app, "Italy", PlayerStatus.CIVIL_DISORDER)
    for power in POWERS:
        if power != "Italy":
            send(table, power, "SET DRAW\n")
    set_status(app, "Italy", PlayerStatus.ACTIVE)  # back from civil disorder, say
    with app.sessions() as session, session.begin():
        assert process_game(session, app.judge, "test01", at("2026-11-25 20:00")) is None
        # What `judge process` and the keeper's log say of it.
        assert not_processed_why(session, session.scalars(select(Game)).one()) == (
            "the game is over: drawn among Austria, England, France, Germany, Italy, Russia "
            "and Turkey"
        )
    rows = table.new_mail()
    assert [r.kind for r in rows] == ["game_over"] * len(READERS)
    game = game_row(app)
    assert (game.status, game.ending, game.phase) == ("finished", "draw", "S1901M")


def test_a_concession_passes_when_every_other_survivor_concedes(tmp_path: Path) -> None:
    app, table = new_game(tmp_path)
    body = send(table, "Austria", "SET CONCEDE France\nSET NO CONCEDE\nSET NOCONCEDE\n")
    assert (
        "Austria's concession to France is recorded; it stands until SET NOCONCEDE.  "
        f"{SECRET}\n"
        "Austria's concession to France is withdrawn.\n"
        "Austria had no concession standing: nothing to withdraw.\n"
    ) in body
    others = [p for p in POWERS if p != "France"]
    for power in others[:-1]:
        send(table, power, "SET CONCEDE F\n")
    # France votes for a draw meanwhile: that draw does not pass, nor blocks the concession.
    send(table, "France", "SET DRAW\n")
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nSET CONCEDE f\n", "2026-11-24 10:00")
    rows = table.new_mail()
    assert rows[0].subject == "Diplomacy game test01 is over: conceded to France"
    assert rows[-1].body == (
        "Game test01 is over.\n\n"
        "Turkey's concession to France is recorded."
        "  With it the vote passed: game test01 is over, conceded to France.  Every player "
        "and observer gets the final mail.\n\n"
        "TESTJUDGE\n"
    )
    game = game_row(app)
    assert (game.status, game.ending, game.winner, game.result) == (
        "finished", "concession", "France", [[1, ["France"]]],
    )  # fmt: skip


def test_each_refusal_names_the_input_and_stores_nothing(tmp_path: Path) -> None:
    app, table = new_game(tmp_path, "concessions = false\n")
    body = send(table, "Austria", "SET DRAW AEF\nSET CONCEDE E\nSET NOCONCEDE\nSET DRAW\n")
    assert refusals(body) == [
        "SET DRAW Austria England France: every survivor is in a draw in this game (DIAS: "
        "Draws Include All Survivors): write SET DRAW alone",
        "SET CONCEDE England: game test01 does not allow concessions; a draw (SET DRAW) may "
        "still end it",
        "SET NOCONCEDE: game test01 does not allow concessions; a draw (SET DRAW) may still end it",
    ]
    assert votes(app) == [("Austria", "draw", None)]
    # The game master votes only while acting for a power; an observer never.
    table.send(GM, "SIGNON Mtest01 gm-secret\nSET DRAW\nBECOME E\nSET DRAW\n", "2026-11-24 10:00")
    rows = table.new_mail()
    assert [r.to_addr for r in rows] == [GM, "england@example.org"]
    assert refusals(rows[0].body) == [
        "SET DRAW: the game master does not vote; to vote for a power, write BECOME <power> first"
    ]
    assert "England's vote for a draw (every survivor) is recorded" in rows[1].body
    assert votes(app) == [("Austria", "draw", None), ("England", "draw", None)]
    table.send(WATCHER, "SIGNON Otest01 x\nSET DRAW\n", "2026-11-24 10:05")
    table.send("nobody@example.net", "SET DRAW\n", "2026-11-24 10:06")
    rows = table.new_mail()
    assert [r.to_addr for r in rows] == [WATCHER, "nobody@example.net"]
    assert "SET DRAW" in rows[0].body and "SET DRAW" in rows[1].body
    assert "Sign on first" in rows[1].body
    assert len(votes(app)) == 2


def test_a_vote_naming_or_from_a_power_out_of_the_game_is_refused(tmp_path: Path) -> None:
    app, table = new_game(tmp_path, "dias = false\n")
    without_germany(app)
    body = send(table, "Austria", "SET DRAW AEG\nSET CONCEDE Germany\nSET CONCEDE A\n")
    assert refusals(body) == [
        "SET DRAW: Germany is not a surviving power; the survivors are Austria, England, "
        "France, Italy, Russia and Turkey",
        "SET CONCEDE Germany: Germany is not a surviving power; the survivors are Austria, "
        "England, France, Italy, Russia and Turkey",
        "SET CONCEDE Austria: Austria cannot concede to itself; name the power you concede "
        "the game to",
    ]
    body = send(table, "Germany", "SET DRAW AE\nSET CONCEDE A\n")
    assert refusals(body) == [
        "SET DRAW: Germany is out of the game (no units and no supply centres left) and has "
        "no vote",
        "SET CONCEDE Austria: Germany is out of the game (no units and no supply centres "
        "left) and has no vote",
    ]
    assert votes(app) == []
    # The six survivors' draw passes without Germany.
    for power in ("Austria", "England", "France", "Italy", "Russia"):
        send(table, power, "SET DRAW AEF\n")
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nSET DRAW AEF\n", "2026-11-24 10:00")
    assert game_row(app).result == [[1, ["Austria", "England", "France"]]]


def test_a_game_without_standing_votes_refuses_them(tmp_path: Path) -> None:
    app, table = new_game(tmp_path / "house", 'endgame = "house"\n')
    body = send(table, "Austria", "SET DRAW\nSET NODRAW\nSET CONCEDE F\n")
    assert refusals(body) == [
        f"{what}: game test01 ends by proposals, not by standing votes: propose an end with "
        "PROPOSE ... ENDPROPOSE, and answer a proposal with VOTE <n> YES, NO or ABSTAIN"
        for what in ("SET DRAW", "SET NODRAW", "SET CONCEDE")
    ]
    app, table = new_game(tmp_path / "none", 'endgame = "none"\n')
    body = send(table, "Austria", "SET DRAW\n")
    assert refusals(body) == [
        "SET DRAW: game test01 has no draw or concession votes: it ends on the board (or by "
        "its game master)"
    ]
    assert votes(app) == []


def test_a_game_not_started_refuses_votes(tmp_path: Path) -> None:
    app, table = new_game(tmp_path, start=False)
    table.send("austria@example.org", "SIGNON Atest01 pw-aus\nSET DRAW\n", "2026-11-24 09:00")
    (row,) = table.new_mail()
    assert refusals(row.body) == ["SET DRAW: game test01 has not started yet: there is no vote"]
    assert votes(app) == []


def test_list_shows_votes_to_the_master_and_a_pending_draw_only_when_the_game_says(
    tmp_path: Path,
) -> None:
    _app, table = new_game(tmp_path / "quiet")
    master = "SIGNON Mtest01 gm-secret\nLIST\n"
    assert "Votes" not in listing(table, GM, master)
    send(table, "England", "SET DRAW\n")
    send(table, "Italy", "SET CONCEDE F\nSET DRAW\n")
    assert (
        "Votes (only you see them): England: draw; Italy: draw, concede to France.\n"
    ) in listing(table, GM, master)
    # Nobody else sees the votes; this game does not show a pending draw.
    for sender, lines in (
        ("someone@example.net", "LIST test01\n"),
        ("austria@example.org", "SIGNON Atest01 pw-aus\nLIST\n"),
    ):
        body = listing(table, sender, lines)
        assert "vote" not in body.lower().replace("draw votes (set draw", "")
    _app, table = new_game(tmp_path / "shown", "show_pending_draw = true\n")
    assert "pending" not in listing(table, "someone@example.net", "LIST test01\n")
    send(table, "England", "SET DRAW\n")
    body = listing(table, "someone@example.net", "LIST test01\n")
    assert (
        "(SET CONCEDE <power>).\n"
        "A vote for a draw is pending: not every survivor has voted for the same draw\n"
        "  yet.\n"
        "Not anonymous"
    ) in body
    assert "England" not in body.split("Players:")[0]


def test_a_resigned_players_vote_never_counts(tmp_path: Path) -> None:
    # A resigned player's seat is open like one in civil disorder: the vote left behind
    # must not end the game for the powers still played.
    app, table = new_game(tmp_path)
    send(table, "Italy", "SET DRAW\n")
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nRESIGN\n", "2026-11-24 09:30")
    table.new_mail()
    for power in POWERS:
        if power != "Italy":
            send(table, power, "SET DRAW\n")
    assert game_row(app).status == "active"
    body = listing(table, GM, "SIGNON Mtest01 gm-secret\nLIST\n")
    assert "Italy: draw (resigned: not counted)" in " ".join(body.split()), body
    with app.sessions() as session, session.begin():
        process_game(session, app.judge, "test01", at("2026-11-25 20:00"))
    assert game_row(app).status == "active"


def test_a_seat_taken_over_drops_the_previous_players_votes(tmp_path: Path) -> None:
    # The new player did not cast the previous player's secret standing votes (only the
    # master sees them): they go with the seat's orders.
    app, table = new_game(tmp_path, "concessions = true\n")
    send(table, "Italy", "SET DRAW\nSET CONCEDE F\n")
    table.send(GM, "SIGNON Mtest01 gm-secret\nEJECT Italy\nSET PASSWORD Italy take-over-1\n",
               "2026-11-24 09:30")  # fmt: skip
    table.send("new@example.net", "SIGNON italy@test01 take-over-1\n", "2026-11-24 09:40")
    table.new_mail()
    assert votes(app) == []
    for power in POWERS:
        if power != "Italy":
            send(table, power, "SET DRAW\n")
    assert game_row(app).status == "active"


def test_set_concede_reads_to_before_the_power_as_propose_concede_does(tmp_path: Path) -> None:
    app, table = new_game(tmp_path)
    body = send(table, "Austria", "SET CONCEDE TO France\nSET CONCEDE to f\n")
    assert (
        f"Austria's concession to France is recorded; it stands until SET NOCONCEDE.  {SECRET}\n"
    ) in body
    assert votes(app) == [("Austria", "concede", ["France"])]
    # TO alone, or before two powers, is still refused with the shape of the command.
    body = send(table, "England", "SET CONCEDE TO\nSET CONCEDE TO F G\n")
    shape = (
        "SET CONCEDE takes the one power you concede the game to: write 'SET CONCEDE F' or "
        "'SET CONCEDE France'"
    )
    assert refusals(body) == [shape, shape]


def test_a_game_with_open_votes_shows_them_to_everyone(tmp_path: Path) -> None:
    _app, table = new_game(tmp_path, "secret_votes = false\n")
    body = send(table, "England", "SET DRAW\n")
    assert (
        "England's vote for a draw (every survivor) is recorded; it stands until SET NODRAW.  "
        "Votes are open in this game: LIST shows every standing vote to everyone.\n"
    ) in body
    send(table, "Italy", "SET CONCEDE F\n")
    public = " ".join(listing(table, "someone@example.net", "LIST test01\n").split())
    assert "; votes shown to everyone." in public
    assert "Votes: England: draw; Italy: concede to France." in public


def test_a_vote_from_civil_disorder_is_told_it_does_not_count_yet(tmp_path: Path) -> None:
    app, table = new_game(tmp_path)
    set_status(app, "Italy", PlayerStatus.CIVIL_DISORDER)
    body = send(table, "Italy", "SET DRAW\n")
    assert (
        f"Italy's vote for a draw (every survivor) is recorded; it stands until SET NODRAW.  "
        f"{SECRET}  Italy is in civil disorder: its votes do not count until orders are sent "
        "for it again.\n"
    ) in body
