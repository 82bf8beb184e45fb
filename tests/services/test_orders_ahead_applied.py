"""Orders sent ahead (``PHASE`` sections and their IF blocks, kept in ``future_orders``)
applied when their phase begins: decided against that phase's position, checked for
legality then and stored as the player's first orders of the phase (refused ones with
their error); the rows of a phase that did not happen retire unused; each player told in
their own copy of the results.  The rows are written here as the intake stores them (one
row an order line as written, or one IF block's lines)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from support.servicekit import Table, at, started_game

from judge.db.models import FutureOrder, Game, OrderRecord, OutboundMessage, Player
from judge.runtime.bootstrap import App
from judge.services import future_orders
from judge.services.games import due_games

FRANCE = "SIGNON Ftest01 paris-123\n"
#: One order each for the powers other than France, so that nobody misses a phase.
HOLDS = {
    "austria@example.org": "SIGNON Atest01 pw-aus\nA Vie H\n",
    "england@example.org": "SIGNON Etest01 pw-eng\nF Lon H\n",
    "germany@example.org": "SIGNON Gtest01 pw-ger\nA Ber H\n",
    "italy@example.org": "SIGNON Itest01 pw-ita\nA Rom H\n",
    "russia@example.org": "SIGNON Rtest01 pw-rus\nA Mos H\n",
    "turkey@example.org": "SIGNON Ttest01 pw-tur\nA Con H\n",
}


def send_ahead(app: App, power: str, phase: str, *rows: list[str]) -> None:
    """Keep ``rows`` for ``power``'s seat as sent ahead for ``phase`` (one message)."""
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        player = session.scalars(select(Player).where(Player.power == power)).one()
        for lines in rows:
            future_orders.add(session, game, player, phase, lines, None, at("2026-11-23 13:00"))


def orders_of(app: App, seq: int, power: str) -> list[tuple[str, str | None, str | None, bool]]:
    """``power``'s order rows of phase ``seq``: (as written, canonical, error, active)."""
    with app.sessions() as session:
        rows = session.scalars(
            select(OrderRecord)
            .join(Player, Player.id == OrderRecord.player_id)
            .where(OrderRecord.seq == seq, Player.power == power)
            .order_by(OrderRecord.id)
        )
        return [(r.raw, r.canonical, r.error, r.active) for r in rows]


def pending(app: App) -> list[tuple[str, list[str]]]:
    with app.sessions() as session:
        rows = session.scalars(select(FutureOrder).where(FutureOrder.active.is_(True)))
        return [(r.phase, r.lines) for r in rows]


def results_to(rows: list[OutboundMessage], address: str) -> OutboundMessage:
    (mail,) = [r for r in rows if r.to_addr == address and r.subject.startswith("Diplomacy res")]
    return mail


def others_hold(table: Table, when: str) -> None:
    for address, body in HOLDS.items():
        table.send(address, body, when)
    table.new_mail()


def test_orders_sent_two_phases_ahead_apply_when_their_phases_begin(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    # France sends, in Spring, orders for Spring's retreats (which will not happen), for
    # Fall's moves and for Winter's builds: one taken as it is, one that Spring's moves
    # make illegal (A Par has gone), one replaced later, and IF blocks.
    send_ahead(app, "France", "S1901R", ["A Bur-Pic"])
    send_ahead(
        app, "France", "F1901M",
        ["A Bur-Bel"],
        ["A Par-Pic"],
        ["A Spa-Gas"],
        ["IF Bel OWNED", "F Mao-Spa/sc", "ELSE", "F Mao-Por", "ENDIF"],
    )  # fmt: skip
    send_ahead(
        app, "France", "W1901A",
        ["Build A Par"],
        ["IF A Bur", "Build A Mun", "ELSE IF F Por", "IF Bel OWNED BY France", "Build F Bre",
         "ELSE", "Build A Bre", "ENDIF", "ENDIF"],
        ["IF NOT Spa OWNED BY France", "Waive", "ELSE", "Build A Mar", "ENDIF"],
    )  # fmt: skip
    table.send(
        "france@example.org", FRANCE + "A Par-Bur\nA Mar-Spa\nF Bre-Mao\n", "2026-11-24 10:00"
    )
    others_hold(table, "2026-11-24 10:00")
    table.new_mail()
    table.process("2026-11-25 20:00")
    rows = table.check("ahead_01_spring_results")

    # Fall begins with France's orders sent ahead: checked against the position now.
    assert table.phase() == "F1901M"
    assert orders_of(app, 2, "France") == [
        ("A Bur-Bel", "A bur-bel", None, True),
        ("A Par-Pic", None, "A par-pic: there is no unit in Paris", False),
        ("A Spa-Gas", "A spa-gas", None, True),
        ("F Mao-Por", "F mao-por", None, True),
    ]
    assert [p for p, _ in pending(app)] == ["W1901A", "W1901A", "W1901A"]
    mail = results_to(rows, "france@example.org")
    tail = mail.body.split("Turkey: Army Smyrna, No Order Processed.\n\n", 1)[1]
    assert tail == (
        "Orders you sent ahead for Spring 1901 Retreats:\n"
        "  A Bur-Pic\n"
        "Not used: Spring 1901 Retreats did not happen\n"
        "\n"
        "Orders you sent ahead for Fall 1901 Movement:\n"
        "  A Bur-Bel\n"
        "  A Par-Pic\n"
        "  A Spa-Gas\n"
        "  IF Bel OWNED\n"
        "    F Mao-Spa/sc\n"
        "  ELSE  <- taken\n"
        "    F Mao-Por\n"
        "  ENDIF\n"
        "Taken: A Bur-Bel\n"
        "Refused: A par-pic: there is no unit in Paris\n"
        "Taken: A Spa-Gas\n"
        "Taken: F Mao-Por\n"
        "\n"
        "The next phase of 'test01' will be Movement for Fall of 1901.\n"
        "The deadline for orders will be Fri Nov 27 2026 20:00:00 +0000 (Europe/London).\n"
    )
    # Everyone else's copy is the same one, without France's lines.
    germany = results_to(rows, "germany@example.org")
    assert "sent ahead" not in germany.body
    assert germany.body == results_to(rows, "italy@example.org").body

    # An order sent in the phase replaces one of them, unit by unit, as usual.
    table.send("france@example.org", FRANCE + "A Spa H\n", "2026-11-26 10:00")
    reply = table.new_mail()[0]
    assert "France: Army Spain HOLD." in reply.body
    assert "France: Army Burgundy -> Belgium." in reply.body
    assert "Gascony" not in reply.body
    others_hold(table, "2026-11-26 10:00")
    table.process("2026-11-27 20:00")
    rows = table.check("ahead_02_fall_results")

    # Winter: the builds decided against the position after Fall (France owns Belgium,
    # Portugal and Spain; its fleet is in Portugal, no army in Burgundy).
    assert table.phase() == "W1901A"
    assert orders_of(app, 3, "France") == [
        ("Build A Par", "Build A par", None, True),
        ("Build F Bre", "Build F bre", None, True),
        ("Build A Mar", "Build A mar", None, True),
    ]
    assert pending(app) == []
    mail = results_to(rows, "france@example.org")
    assert (
        "Orders you sent ahead for Winter 1901 Adjustments:\n"
        "  Build A Par\n"
        "  IF A Bur\n"
        "    Build A Mun\n"
        "  ELSE IF F Por  <- taken\n"
        "    IF Bel OWNED BY France  <- taken\n"
        "      Build F Bre\n"
        "    ELSE\n"
        "      Build A Bre\n"
        "    ENDIF\n"
        "  ENDIF\n"
        "  IF NOT Spa OWNED BY France\n"
        "    Waive\n"
        "  ELSE  <- taken\n"
        "    Build A Mar\n"
        "  ENDIF\n"
        "Taken: Build A Par\n"
        "Taken: Build F Bre\n"
        "Taken: Build A Mar\n"
    ) in mail.body

    # Every order of the phase is in (France's came from its rows, nobody else owes
    # any): the phase is due once the early delay has run from when they were stored.
    with app.sessions() as session:
        assert due_games(session, at("2026-11-27 20:09")) == []
        assert due_games(session, at("2026-11-27 20:10")) == [("test01", "W1901A")]


def test_a_refused_block_and_an_open_seat_are_reported_not_used(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    # Rows the intake would refuse today (kept by an older judge): they are never
    # applied, and their sender is told why.
    send_ahead(app, "France", "F1901M", ["IF Xyz", "A Par-Bur", "ENDIF"], ["A Par-Bur"])
    send_ahead(app, "Germany", "F1901M", ["A Ber-Kie"])
    with app.sessions() as session, session.begin():
        germany = session.scalars(select(Player).where(Player.power == "Germany")).one()
        germany.status = "resigned"
    table.process("2026-11-25 20:00")
    rows = table.check("ahead_03_refused_and_open_seat")
    assert orders_of(app, 2, "France") == [("A Par-Bur", "A par-bur", None, True)]
    assert orders_of(app, 2, "Germany") == []
    assert pending(app) == []
    france = results_to(rows, "france@example.org").body
    assert (
        "Orders you sent ahead for Fall 1901 Movement:\n"
        "  IF Xyz\n"
        "  A Par-Bur\n"
        "  ENDIF\n"
        "  A Par-Bur\n"
        "Refused, the whole block: line 1: 'IF Xyz': 'Xyz' is not a place on the map;\n"
        "    expected a unit such as 'A Mun' or 'German F Kie', or a centre such as\n"
        "    'Bel OWNED'\n"
        "Taken: A Par-Bur\n"
        "\n"
        "The next phase of 'test01' will be Movement for Fall of 1901.\n"
    ) in france
    germany_mail = results_to(rows, "germany@example.org").body
    assert (
        "Orders you sent ahead for Fall 1901 Movement:\n"
        "  A Ber-Kie\n"
        "Not used: Fall 1901 Movement began with your seat open\n"
    ) in germany_mail


def test_an_order_sent_ahead_replaced_by_a_later_one_is_said_replaced(tmp_path: Path) -> None:
    # Two orders for one unit sent ahead: the later counts, as in a message, and the
    # player is not told that both were taken.
    app, table = started_game(tmp_path)
    send_ahead(app, "France", "F1901M", ["IF A Bur", "A Bur-Bel", "ENDIF"], ["A Bur H"])
    table.send("france@example.org", FRANCE + "A Par-Bur\n", "2026-11-24 10:00")
    others_hold(table, "2026-11-24 10:00")
    table.new_mail()
    table.process("2026-11-25 20:00")
    france = results_to(table.new_mail(), "france@example.org").body
    assert (
        "Orders you sent ahead for Fall 1901 Movement:\n"
        "  IF A Bur  <- taken\n"
        "    A Bur-Bel\n"
        "  ENDIF\n"
        "  A Bur H\n"
        "Replaced: A Bur-Bel: a later order for the same unit counts\n"
        "Taken: A Bur H\n"
    ) in france
    assert [row[:2] for row in orders_of(app, 2, "France") if row[3]] == [("A Bur H", "A bur H")]


GM = "SIGNON Mtest01 gm-secret\n"


def test_a_seat_taken_over_drops_the_old_players_orders_sent_ahead(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nPHASE F1901M\nA Con-Bul\n",
               "2026-11-23 13:00")  # fmt: skip
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nRESIGN\n", "2026-11-23 13:10")
    table.send("gm@example.org", GM + "SET PASSWORD Turkey sultan-2\n", "2026-11-23 14:00")
    table.new_mail()
    # Kept while the seat is open: the resigned player's, applied to nobody.
    assert pending(app) == [("F1901M", ["A Con-Bul"])]
    table.send("newbie@example.net", "SIGNON Ttest01 sultan-2\nA Con H\n", "2026-11-23 15:00")
    confirm = table.new_mail()[-1]
    assert (confirm.to_addr, confirm.kind) == ("newbie@example.net", "confirm")
    # The new player never sent them: they are gone, and shown to nobody.
    assert "A Con-Bul" not in confirm.body
    assert pending(app) == []
    table.process("2026-11-25 20:00")
    rows = table.new_mail()
    assert orders_of(app, 2, "Turkey") == []
    assert not any("sent ahead" in row.body for row in rows)


def test_an_ejected_players_orders_sent_ahead_are_dropped(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nPHASE F1901M\nF Lon-NTH\n",
               "2026-11-23 13:00")  # fmt: skip
    table.send("gm@example.org", GM + "EJECT England\n", "2026-11-23 14:00")
    table.new_mail()
    assert pending(app) == []
    table.process("2026-11-25 20:00")
    rows = table.new_mail()
    assert orders_of(app, 2, "England") == []
    assert not any("sent ahead" in row.body for row in rows)


def test_a_rollback_puts_back_the_orders_sent_ahead_as_they_stood(tmp_path: Path) -> None:
    app, table = started_game(tmp_path)
    table.send("france@example.org", FRANCE + "PHASE F1901M\nA Par-Bur\n", "2026-11-23 13:00")
    others_hold(table, "2026-11-23 13:00")
    table.process("2026-11-25 20:00")
    table.new_mail()
    assert orders_of(app, 2, "France") == [("A Par-Bur", "A par-bur", None, True)]
    # Sent during Fall 1901, which the rollback undoes: undone with it.
    table.send("france@example.org", FRANCE + "PHASE S1902M\nA Bur-Bel\n", "2026-11-26 08:00")
    table.new_mail()
    table.send("gm@example.org", GM + "ROLLBACK S1901M mistyped\n", "2026-11-26 09:00")
    table.new_mail()
    # As at Spring 1901's deadline: the order for Fall 1901 pending again, the later one gone.
    assert pending(app) == [("F1901M", ["A Par-Bur"])]
    table.process("2026-11-28 20:00")
    table.new_mail()
    assert orders_of(app, 2, "France") == [("A Par-Bur", "A par-bur", None, True)]
    assert pending(app) == []


def test_a_block_sent_ahead_that_takes_no_branch_says_nothing_was_taken(tmp_path: Path) -> None:
    # The only row sent ahead is an IF block whose condition fails and which has no ELSE.
    app, table = started_game(tmp_path)
    send_ahead(app, "France", "F1901M", ["IF A Bel", "A Bel-Hol", "ENDIF"])
    table.send("france@example.org", FRANCE + "A Par H\n", "2026-11-24 10:00")
    others_hold(table, "2026-11-24 10:00")
    table.new_mail()
    table.process("2026-11-25 20:00")
    france = results_to(table.new_mail(), "france@example.org").body
    assert (
        "Orders you sent ahead for Fall 1901 Movement:\n"
        "  IF A Bel\n"
        "    A Bel-Hol\n"
        "  ENDIF  <- no branch taken\n"
        "Taken: nothing (no branch with orders was taken)\n"
        "\n"
    ) in france
    assert orders_of(app, 2, "France") == []
    assert pending(app) == []
