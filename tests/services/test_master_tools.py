"""The game master's BECOME, PREVIEW (PREDICT) and TERMINATE, by mail, with a fixed clock
(issue 13): each command's effect, its exact replies and mails, and each refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select
from support.servicekit import GAME_FILE, Table, at, game_row, make_app, player, started_game

from judge.db.models import GameStatus, Observer, OrderRecord, PhaseRecord, Player
from judge.runtime.bootstrap import App
from judge.services.game_files import load_game
from judge.services.games import due_games

GM = "gm@example.org"
SIGNON_GM = "SIGNON Mtest01 gm-secret\n"
# The S1901M deadline is Wed Nov 25 2026 20:00 (London); these come after it.
LATE = "2026-11-25 20:30"


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    return started_game(tmp_path)


def active_orders(app: App, power: str) -> list[str]:
    with app.sessions() as session:
        seat = session.scalars(select(Player).where(Player.power == power)).one()
        rows = session.scalars(
            select(OrderRecord)
            .where(OrderRecord.player_id == seat.id, OrderRecord.active.is_(True))
            .order_by(OrderRecord.id)
        )
        return [str(r.canonical) for r in rows]


def reply(table: Table) -> str:
    rows = table.new_mail()
    assert len(rows) == 1, [(r.to_addr, r.subject) for r in rows]
    return rows[0].body


def phase_records(app: App) -> int:
    with app.sessions() as session:
        return session.scalar(select(func.count()).select_from(PhaseRecord)) or 0


# -- BECOME ------------------------------------------------------------------------------


def test_become_enters_a_late_order_and_the_power_gets_a_copy(game: tuple[App, Table]) -> None:
    # House rule 3.11: after the deadline, before processing, the master accepts a late
    # order.  The master gets England's confirmation; England a copy saying who entered it.
    app, table = game
    table.send(GM, f"{SIGNON_GM}BECOME England\nF Lon-NTH\nA Lvp-Yor\nF Edi H\n", LATE)
    rows = table.check("master_become")
    assert [(r.to_addr, r.kind) for r in rows] == [
        (GM, "confirm"),
        ("england@example.org", "copy"),
    ]
    assert active_orders(app, "England") == ["F lon-nth", "A lvp-yor", "F edi H"]
    assert " ".join(rows[1].body.split()).startswith(
        ":: Judge: TESTJUDGE Game: test01 Variant: Standard :: Deadline: S1901M Wed Nov 25 "
        "2026 20:00:00 +0000 (Europe/London) This is a copy: the game master of test01 "
        "entered these orders for England on your behalf (BECOME England), from "
        "gm@example.org. They count as your orders. Movement orders for Spring of 1901."
    )
    # The late orders are England's: processed, they count, and England missed nothing.
    table.process("2026-11-25 21:00")
    assert player(app, "England").missed == 0
    assert player(app, "France").missed == 1
    assert table.units()["nth"] == "Eng F"


def test_become_by_initial_switches_power_and_signon_ends_it(game: tuple[App, Table]) -> None:
    app, table = game
    table.send(GM, (
        f"{SIGNON_GM}BECOME e\nF Lon H\nBECOME F\nA Par H\n"
        "SIGNON Gtest01 pw-ger\nA Ber H\n"
    ), LATE)  # fmt: skip
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [
        (GM, "confirm"),
        ("england@example.org", "copy"),
        ("france@example.org", "copy"),
        ("germany@example.org", "copy"),
    ]
    assert (active_orders(app, "England"), active_orders(app, "France")) == (
        ["F lon H"],
        ["A par H"],
    )
    # After SIGNON the lines are Germany's own, signed on with its password: its copy
    # says so, not that the game master entered them.
    assert active_orders(app, "Germany") == ["A ber H"]
    england, france, germany = (" ".join(r.body.split()) for r in rows[1:])
    assert "the game master of test01 entered these orders for England" in england
    assert "Army Paris" not in england and "Acting for" not in england
    assert "the game master of test01 entered these orders for France" in france
    assert "Fleet London" not in france
    assert "someone signed on as Germany from gm@example.org" in germany
    master = rows[0].body
    assert (
        "Signed on as game master of test01.\n"
        "Acting for England in test01: the lines that follow are England's; "
        "england@example.org gets a copy.\n"
        "Acting for France in test01: the lines that follow are France's; "
        "france@example.org gets a copy.\n\n"
        "Movement orders for Spring of 1901.  (test01.001)\n\n"
        "Germany: Army Berlin HOLD.\n"
    ) in master


def test_the_master_is_shown_the_orders_entered_for_every_power_it_became(
    game: tuple[App, Table],
) -> None:
    # The answer is France's confirmation (the last BECOME); England's orders, entered
    # earlier in the message, are listed for the master too, and never in France's copy.
    _app, table = game
    table.send(GM, f"{SIGNON_GM}BECOME England\nF Lon H\nBECOME France\nA Par H\n", LATE)
    master, england, france = table.new_mail()
    assert (master.to_addr, england.to_addr, france.to_addr) == (
        GM, "england@example.org", "france@example.org",
    )  # fmt: skip
    assert (
        "Orders you entered for England (S1901M, not complete):\n"
        "  England: Fleet London HOLD.\n"
        "  England: Fleet Edinburgh, No Order Processed.\n"
        "  England: Army Liverpool, No Order Processed.\n"
    ) in master.body
    assert "France: Army Paris HOLD." in master.body
    assert "Fleet London" not in france.body and "Orders you entered" not in france.body
    assert "Army Paris" not in england.body


def test_master_commands_still_work_after_become(game: tuple[App, Table]) -> None:
    app, table = game
    table.send(GM, f"{SIGNON_GM}BECOME Italy\nA Ven-Pie\nPROCESS\n", LATE)
    rows = table.new_mail()
    results = [r for r in rows if r.kind == "results"]
    assert len(results) == 8
    assert "Italy: Army Venice -> Piedmont." in results[0].body
    assert game_row(app).phase == "F1901M"
    assert table.units()["pie"] == "Ita A"


@pytest.mark.parametrize(
    ("sender", "body", "expected"),
    [
        (
            # A player's confirmation lists the refused line under its orders.
            "england@example.org",
            "SIGNON Etest01 pw-eng\nBECOME France\n",
            "  BECOME France\n"
            "    -> only the game master can do this: SIGNON M<game> <password> first\n",
        ),
        (
            GM,
            f"{SIGNON_GM}BECOME Spain\n",
            "> BECOME Spain\n"
            "'Spain' is not a power: BECOME takes a power's initial (A E F G I R T) or name.\n",
        ),
        (
            GM,
            f"{SIGNON_GM}BECOME\n",
            "> BECOME\nBECOME needs the power to act for, as in 'BECOME England' or 'BECOME E'.\n",
        ),
        (
            GM,
            f"{SIGNON_GM}BECOME Turkey\n",
            "> BECOME Turkey\n"
            "Nobody plays Turkey in test01: its player resigned, and its seat waits for a "
            "replacement.\n",
        ),
    ],
)
def test_become_refusals(game: tuple[App, Table], sender: str, body: str, expected: str) -> None:
    app, table = game
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nRESIGN\n", "2026-11-23 13:00")
    table.new_mail()
    table.send(sender, body + "A Par-Bur\n", "2026-11-23 14:00")
    rows = table.new_mail()
    assert len(rows) == 1 and rows[0].to_addr == sender
    assert rows[0].subject.startswith("[Error Flag]")
    assert expected in rows[0].body
    # Refused, BECOME changes nobody's orders: the line after it is not France's.
    assert active_orders(app, "France") == []


def test_become_is_prose_with_more_than_a_power_after_it(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send(GM, f"{SIGNON_GM}Become friends with France\n", "2026-11-23 14:00")
    # Read as a line of orders, as before this judge had BECOME: never a BECOME refused.
    assert reply(table) == (
        "Signed on as game master of test01.\n\n"
        "> Become friends with France\n"
        "This command is for players; you are signed on as game master.\n\n"
        "TESTJUDGE\n"
    )


# -- PREVIEW -----------------------------------------------------------------------------


PREVIEW_TEXT = """\
Preview of test01 S1901M, with the orders as they stand now:

Movement results for Spring of 1901.  (test01.001)

Austria: Army Budapest, No Order Processed.
Austria: Fleet Trieste, No Order Processed.
Austria: Army Vienna, No Order Processed.
England: Fleet Edinburgh, No Order Processed.
England: Army Liverpool, No Order Processed.
England: Fleet London -> English Channel.  (*bounce*)
France: Fleet Brest -> English Channel.  (*bounce*)
France: Army Marseilles, No Order Processed.
France: Army Paris -> Burgundy.
Germany: Army Berlin, No Order Processed.
Germany: Fleet Kiel, No Order Processed.
Germany: Army Munich, No Order Processed.
Italy: Fleet Naples, No Order Processed.
Italy: Army Rome, No Order Processed.
Italy: Army Venice, No Order Processed.
Russia: Army Moscow, No Order Processed.
Russia: Fleet Sevastopol, No Order Processed.
Russia: Fleet St Petersburg (south coast), No Order Processed.
Russia: Army Warsaw, No Order Processed.
Turkey: Fleet Ankara, No Order Processed.
Turkey: Army Constantinople, No Order Processed.
Turkey: Army Smyrna, No Order Processed.

No orders from Austria, Germany, Italy, Russia and Turkey: processed now,
that is a missed phase.
The next phase of 'test01' would be Movement for Fall of 1901.
Nothing was stored, and nobody else was sent this preview.
"""


def test_preview_shows_the_master_alone_and_stores_nothing(game: tuple[App, Table]) -> None:
    app, table = game
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nA Par-Bur\nF Bre-Eng\n",
               "2026-11-23 13:00")  # fmt: skip
    table.new_mail()
    before = game_row(app)
    table.send(GM, f"{SIGNON_GM}BECOME England\nF Lon-Eng\nPREVIEW\nA Lvp H\n", LATE)
    rows = table.new_mail()
    # The master's reply holds the preview (orders of this very message included);
    # England's copy holds England's orders, never the preview; nobody else gets mail.
    assert [(r.to_addr, r.kind) for r in rows] == [
        (GM, "confirm"),
        ("england@example.org", "copy"),
    ]
    assert PREVIEW_TEXT in rows[0].body
    assert "Preview" not in rows[1].body and "France" not in rows[1].body
    assert "England: Army Liverpool HOLD." in rows[1].body  # after PREVIEW: still England
    # Nothing stored: no phase, no results, no missed phase, the same deadline.
    after = game_row(app)
    assert (after.seq, after.phase, after.deadline, after.status) == (
        before.seq, before.phase, before.deadline, before.status,
    )  # fmt: skip
    assert phase_records(app) == 1
    with app.sessions() as session:
        record = session.scalars(select(PhaseRecord)).one()
        assert (record.results, record.processed_at) == (None, None)
        assert {p.missed for p in session.scalars(select(Player))} == {0}
    # Processing now gives what the preview said (Liverpool's hold came after it).
    table.process("2026-11-25 21:00")
    with app.sessions() as session:
        record = session.scalars(select(PhaseRecord).where(PhaseRecord.seq == 1)).one()
        assert record.results is not None
        report = record.results["report"]
    assert report == PREVIEW_TEXT.split("\n\n", 1)[1].split("\n\nNo orders")[0].replace(
        "England: Army Liverpool, No Order Processed.", "England: Army Liverpool HOLD."
    )


def test_predict_is_the_njudge_spelling_of_preview(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send(GM, f"{SIGNON_GM}PREDICT\n", "2026-11-23 13:00")
    body = reply(table)
    assert body.startswith(
        "Signed on as game master of test01.\n\n"
        "Preview of test01 S1901M, with the orders as they stand now:\n\n"
        "Movement results for Spring of 1901.  (test01.001)\n"
    )
    assert (
        "No orders from Austria, England, France, Germany, Italy, Russia and Turkey:\n"
        "processed now, that is a missed phase.\n"
        "The next phase of 'test01' would be Movement for Fall of 1901.\n"
        "Nothing was stored, and nobody else was sent this preview.\n"
    ) in body


def test_preview_refusals(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nPREVIEW\n", "2026-11-23 13:00")
    body = table.new_mail()[0].body
    assert (
        "  PREVIEW\n    -> only the game master can do this: SIGNON M<game> <password> first\n"
    ) in body
    table.send(GM, f"{SIGNON_GM}TERMINATE\nPREVIEW\n", "2026-11-23 13:05")
    body = next(r for r in table.new_mail() if r.to_addr == GM and r.kind != "game_over").body
    assert "> PREVIEW\nGame test01 is over: there is no phase to preview.\n" in body


# -- TERMINATE ---------------------------------------------------------------------------


def test_terminate_ends_the_game_and_tells_every_reader(game: tuple[App, Table]) -> None:
    app, table = game
    with app.sessions() as session, session.begin():
        session.add(Observer(game_id=game_row(app).id, address="watcher@example.net"))
    table.send(GM, f"{SIGNON_GM}TERMINATE\n", "2026-11-24 09:00")
    rows = table.check("master_terminate")
    assert [r.to_addr for r in rows] == [
        "austria@example.org", "england@example.org", "france@example.org",
        "germany@example.org", "italy@example.org", "russia@example.org",
        "turkey@example.org", GM, "watcher@example.net", GM,
    ]  # fmt: skip
    assert rows[0].subject == "Diplomacy game test01 is over: ended by the game master"
    assert rows[-1].body.startswith(
        "Signed on as game master of test01.\n\n"
        "Game test01 ended during S1901M, with no winner; every player and observer was told.\n"
    )
    ended = game_row(app)
    assert (ended.status, ended.ending, ended.winner, ended.deadline) == (
        GameStatus.FINISHED, "terminated", None, None,
    )  # fmt: skip
    with app.sessions() as session:
        assert session.scalars(select(PhaseRecord)).one().deadline is None
        assert due_games(session, at("2026-12-31 00:00")) == []
    # Over: a second TERMINATE, orders and BECOME are refused, each with its reason.
    table.send(GM, f"{SIGNON_GM}TERMINATE\nBECOME France\n", "2026-11-24 09:05")
    assert reply(table).endswith(
        "> TERMINATE\n"
        "Game test01 is over: the game master ended it, and no more orders are taken.\n\n"
        "> BECOME France\n"
        "Game test01 is over: the game master ended it, and no more orders are taken.\n\n"
        "TESTJUDGE\n"
    )
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nA Par-Bur\n", "2026-11-24 09:10")
    assert reply(table) == (
        "Game test01 is over.\n\n"
        "> A Par-Bur\n"
        "Game test01 is over: the game master ended it, and no more orders are taken.\n\n"
        "TESTJUDGE\n"
    )
    assert active_orders(app, "France") == []


def test_a_game_not_started_cannot_be_terminated_previewed_or_become(tmp_path: Path) -> None:
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    # Turkey missing: the game waits for its seventh player.
    path.write_text("\n".join(line for line in GAME_FILE.splitlines() if "Turkey" not in line))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
    table = Table(app)
    table.new_mail()
    table.send(GM, f"{SIGNON_GM}TERMINATE\nPREVIEW\nBECOME France\n", "2026-11-23 13:00")
    assert reply(table).endswith(
        "> TERMINATE\nGame test01 has not started yet: there is nothing to end.\n\n"
        "> PREVIEW\nGame test01 has not started: there is no phase to preview.\n\n"
        "> BECOME France\nGame test01 has not started yet: there are no orders to enter.\n\n"
        "TESTJUDGE\n"
    )
    assert game_row(app).status == GameStatus.FORMING


def test_what_was_done_is_said_to_a_player_of_a_game_not_started(tmp_path: Path) -> None:
    # The reply to a player of a game not started (or over) said only that, and dropped
    # what the message did ("Password changed." never reached the player).
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text("\n".join(line for line in GAME_FILE.splitlines() if "Turkey" not in line))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
    table = Table(app)
    table.new_mail()
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nSET PASSWORD new-password-1\n",
               "2026-11-23 13:00")  # fmt: skip
    assert reply(table) == ("Game test01 has not started yet.\n\nPassword changed.\n\nTESTJUDGE\n")


def test_terminate_after_become_is_said_to_the_master(game: tuple[App, Table]) -> None:
    app, table = game
    table.send(GM, f"{SIGNON_GM}BECOME France\nA Par-Bur\nTERMINATE\n", LATE)
    rows = table.new_mail()
    # The game is over: the master gets a reply (no confirmation), France no copy.
    assert [r.kind for r in rows] == ["game_over"] * 8 + ["reply-signed"]
    assert rows[-1].body == (
        "Game test01 is over.\n\n"
        "Signed on as game master of test01.\n\n"
        "Acting for France in test01: the lines that follow are France's; "
        "france@example.org gets a copy.\n\n"
        "Game test01 ended during S1901M, with no winner; every player and observer was "
        "told.\n\n"
        "TESTJUDGE\n"
    )
    assert game_row(app).ending == "terminated"


def test_the_master_acting_for_a_power_sees_the_deadline_in_the_game_s_zone(
    game: tuple[App, Table],
) -> None:
    # Russia's player reads times in Moscow's zone; the master acting for Russia is not
    # that player: the master's confirmation gives the game's zone, Russia's copy both.
    _app, table = game
    table.send(GM, f"{SIGNON_GM}BECOME R\nA Mos H\n", LATE)
    master, russia = table.new_mail()
    assert master.body.endswith(
        "The deadline for S1901M is Wed Nov 25 2026 20:00:00 +0000 (Europe/London).\n"
    )
    assert russia.body.endswith(
        "The deadline for S1901M is Wed Nov 25 2026 20:00:00 +0000 (Europe/London).\n"
        "In your own time zone that is Wed Nov 25 2026 23:00:00 +0300 (Europe/Moscow).\n"
    )


def test_master_commands_after_become_are_never_in_the_power_s_copy(
    game: tuple[App, Table],
) -> None:
    # The master's LIST shows every power's orders and EJECT the ejected player's address:
    # said while acting for England, they belong to the master's reply, not England's copy.
    _app, table = game
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nA Par-Bur\n",
               "2026-11-23 13:00")  # fmt: skip
    table.new_mail()
    table.send(GM, f"{SIGNON_GM}BECOME England\nF Lon-Eng\nLIST\nEJECT Germany\nA Lvp H\n", LATE)
    rows = {(r.to_addr, r.kind): r.body for r in table.new_mail()}
    master, england = rows[(GM, "confirm")], rows[("england@example.org", "copy")]
    assert "Paris" in master
    assert "germany@example.org" in master
    flat = " ".join(england.split())
    assert "Paris" not in flat and "par-bur" not in flat.lower()
    assert "germany@example.org" not in flat and "ejected" not in flat
    # England's own orders, before and after, are in its copy.
    assert "England: Fleet London -> English Channel." in flat
    assert "England: Army Liverpool HOLD." in flat


def test_become_of_an_ejected_power_sends_the_ejected_player_no_copy(
    game: tuple[App, Table],
) -> None:
    # The ejected player no longer plays Germany: the orders the master enters for the
    # power in civil disorder are none of theirs.
    app, table = game
    table.send(GM, f"{SIGNON_GM}EJECT Germany\n", "2026-11-23 13:00")
    table.new_mail()
    table.send(GM, f"{SIGNON_GM}BECOME Germany\nA Ber-Kie\n", LATE)
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [(GM, "confirm")]
    assert "Acting for Germany in test01: the lines that follow are Germany's.\n" in rows[0].body
    assert active_orders(app, "Germany") == ["A ber-kie"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "SET ADDRESS",
            "SET ADDRESS: acting for England, write 'SET ADDRESS England <address>' to move "
            "England's seat (its player is told there)",
        ),
        (
            "SET PASSWORD new-secret-1",
            "SET PASSWORD: acting for England, write 'SET PASSWORD England <new>' to reset "
            "England's password (its player is told the new one)",
        ),
    ],
)
def test_a_player_s_own_settings_are_refused_to_the_master_acting_for_it(
    game: tuple[App, Table], line: str, expected: str
) -> None:
    # The player's own forms would move England's seat to the master's address, or
    # change a password nobody tells the player: the master's forms do it right.
    app, table = game
    before = player(app, "England")
    table.send(GM, f"{SIGNON_GM}BECOME England\n{line}\n", LATE)
    master = table.new_mail()[0].body
    assert " ".join(expected.split()) in " ".join(master.split())
    after = player(app, "England")
    assert (after.address, after.password_hash) == (before.address, before.password_hash)
