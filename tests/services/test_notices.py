"""Deadline notices: the reminder before the deadline and the late notices during grace.

The game is servicekit's test01, started Mon 2026-11-23 12:00 UTC with its S1901M
deadline at Wed 2026-11-25 20:00 (London, which is UTC in November); each test sets the
deadline settings on the game directly, as tests/services/test_deadlines.py does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from support.servicekit import Table, at, started_game
from test_render import check_golden

from judge.db.models import Game, NoticeRecord, OutboundMessage, Player
from judge.engine import Dislodged, Phase, Position, standard_map
from judge.engine.document import position_to_document
from judge.presenters import adjustment_status, format_deadline, phase_heading
from judge.render import Renderer
from judge.runtime.bootstrap import App
from judge.services.games import orders_complete
from judge.services.notices import Standing, send_late_notices, send_reminders, standings

DEADLINE = "2026-11-25 20:00"

#: Complete S1901M orders (everything holds) by address, with the sign-on line.
ORDERS = {
    "austria": "SIGNON Atest01 pw-aus\nA Vie H\nA Bud H\nF Tri H",
    "england": "SIGNON Etest01 pw-eng\nF Lon H\nF Edi H\nA Lvp H",
    "france": "SIGNON Ftest01 paris-123\nF Bre H\nA Par H\nA Mar H",
    "germany": "SIGNON Gtest01 pw-ger\nF Kie H\nA Ber H\nA Mun H",
    "italy": "SIGNON Itest01 pw-ita\nF Nap H\nA Rom H\nA Ven H",
    "russia": "SIGNON Rtest01 pw-rus\nF StP/SC H\nA Mos H\nA War H\nF Sev H",
    "turkey": "SIGNON Ttest01 pw-tur\nF Ank H\nA Con H\nA Smy H",
}


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[App, Table]]:
    """The started test01 on SQLite."""
    yield started_game(tmp_path)


def set_deadlines(app: App, spec: dict[str, Any], kind: str = "movement", **settings: Any) -> None:
    """Replace the game's deadline settings with ``spec`` for phases of ``kind``."""
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        game.settings = {**game.settings, **settings, "deadlines": {kind: spec}}


def set_status(app: App, **status: str) -> None:
    with app.sessions() as session, session.begin():
        for player in session.scalars(select(Player)):
            player.status = status.get(player.power, player.status)


def order(table: Table, who: str, body: str, when: str) -> None:
    """Send orders and drop the confirmation from the new mail."""
    assert table.send(f"{who}@example.org", body, when) == "done"
    assert [m.kind for m in table.new_mail()] == ["confirm"]


def remind(app: App, when: str) -> int:
    with app.sessions() as session, session.begin():
        return send_reminders(session, app.judge, at(when))


def late(app: App, when: str) -> int:
    with app.sessions() as session, session.begin():
        return send_late_notices(session, app.judge, at(when))


def addresses(mail: list[OutboundMessage]) -> list[str]:
    return [m.to_addr.partition("@")[0] for m in mail]


def to(mail: list[OutboundMessage], who: str) -> OutboundMessage:
    [found] = [m for m in mail if m.to_addr == f"{who}@example.org"]
    return found


# -- the reminder ---------------------------------------------------------------------

ENGLAND_REMINDER = """\
:: Judge: TESTJUDGE  Game: test01  Variant: Standard
:: Deadline: S1901M Wed Nov 25 2026 20:00:00 +0000 (Europe/London)

A reminder for England in 'test01': your orders for S1901M
(Movement for Spring of 1901) are not complete. The deadline is
    Wed Nov 25 2026 20:00:00 +0000 (Europe/London)

Movement orders for Spring of 1901.  (test01.001)

England: Fleet London -> North Sea.
England: Fleet Edinburgh, No Order Processed.
England: Army Liverpool, No Order Processed.

A unit marked "No Order Processed" has no valid order yet; if it still has
none when the phase is processed, it holds.

To send orders, mail judge@example.org with them in the body:

    SIGNON Etest01 <password>
    (your orders, one per line)
    SIGNOFF

The judge answers with all the orders it holds for you.

TESTJUDGE
"""


def test_reminder_at_exactly_deadline_minus_remind_to_those_who_owe_orders_once(
    game: tuple[App, Table],
) -> None:
    app, table = game
    set_deadlines(app, {"hours": 48, "at": "20:00", "remind": 24})
    set_status(app, Germany="civil_disorder", Italy="resigned")
    order(table, "france", ORDERS["france"], "2026-11-23 13:00")  # complete
    order(table, "england", "SIGNON Etest01 pw-eng\nF Lon-Nth", "2026-11-23 13:01")  # partial
    order(table, "turkey", ORDERS["turkey"], "2026-11-23 13:02")
    order(table, "turkey", "SIGNON Ttest01 pw-tur\nCLEAR", "2026-11-23 13:03")  # and taken back

    assert remind(app, "2026-11-24 19:59") == 0
    assert table.new_mail() == []

    assert remind(app, "2026-11-24 20:00") == 4
    mail = table.new_mail()
    # Not France (complete), nor Germany (civil disorder) nor Italy (resigned).
    assert addresses(mail) == ["austria", "england", "russia", "turkey"]
    assert {(m.kind, m.subject) for m in mail} == {
        ("reminder", "Diplomacy game test01 S1901M: reminder, your orders are due")
    }
    assert to(mail, "england").body == ENGLAND_REMINDER
    # Russia plays from Moscow: the deadline in both zones.
    assert to(mail, "russia").body.splitlines()[3:8] == [
        "A reminder for Russia in 'test01': your orders for S1901M",
        "(Movement for Spring of 1901) are not complete. The deadline is",
        "    Wed Nov 25 2026 20:00:00 +0000 (Europe/London)",
        "which in your own time zone is",
        "    Wed Nov 25 2026 23:00:00 +0300 (Europe/Moscow)",
    ]

    # Once per phase: not again at the same minute, later on, or at the deadline.
    for when in ("2026-11-24 20:00", "2026-11-24 20:01", "2026-11-25 19:59", DEADLINE):
        assert remind(app, when) == 0
    assert table.new_mail() == []


def test_no_reminder_without_the_setting_or_after_the_deadline(game: tuple[App, Table]) -> None:
    app, table = game
    set_deadlines(app, {"hours": 48, "at": "20:00"})
    assert remind(app, "2026-11-25 19:00") == 0
    set_deadlines(app, {"hours": 48, "at": "20:00", "remind": 24, "grace": 24})
    assert remind(app, DEADLINE) == 0  # too late for a reminder: late notices take over
    assert table.new_mail() == []


def test_a_player_whose_orders_are_in_gets_no_reminder(game: tuple[App, Table]) -> None:
    app, table = game
    set_deadlines(app, {"hours": 48, "at": "20:00", "remind": 12})
    for minute, (who, body) in enumerate(ORDERS.items()):
        if who != "italy":
            order(table, who, body, f"2026-11-23 13:0{minute}")
    assert remind(app, "2026-11-25 08:00") == 1
    assert addresses(table.new_mail()) == ["italy"]


# -- late notices ---------------------------------------------------------------------

FRANCE_LATE = """\
:: Judge: TESTJUDGE  Game: test01  Variant: Standard
:: Deadline: S1901M Wed Nov 25 2026 20:00:00 +0000 (Europe/London)

Your orders for France in 'test01' are late: the deadline for
S1901M (Movement for Spring of 1901) was
    Wed Nov 25 2026 20:00:00 +0000 (Europe/London)

Unless the missing orders arrive first, the phase will be processed
without them at
    Fri Nov 27 2026 20:00:00 +0000 (Europe/London)
Orders that arrive before then still count.

Movement orders for Spring of 1901.  (test01.001)

France: Fleet Brest, No Order Processed.
France: Army Marseilles, No Order Processed.
France: Army Paris, No Order Processed.

A unit marked "No Order Processed" has no valid order yet; if it still has
none when the phase is processed, it holds.

Send your orders to judge@example.org now.

TESTJUDGE
"""


def others_body(missing: str, own: str, power: str) -> str:
    """The notice to a player who is not late, as the game's zone shows it."""
    return f"""\
:: Judge: TESTJUDGE  Game: test01  Variant: Standard
:: Deadline: S1901M Wed Nov 25 2026 20:00:00 +0000 (Europe/London)

The deadline for S1901M (Movement for Spring of 1901) in 'test01' was
    Wed Nov 25 2026 20:00:00 +0000 (Europe/London)
and orders are still missing from {missing}.

The judge waits for them until
    Fri Nov 27 2026 20:00:00 +0000 (Europe/London)
{own}and processes the phase then at the latest, with or without them.

Your own orders for {power} are complete. You may still change them until
the phase is processed.

TESTJUDGE
"""


def test_late_notices_at_the_deadline_and_each_day_of_grace(db_url: str, tmp_path: Path) -> None:
    app, table = started_game(tmp_path, db_url)
    set_deadlines(app, {"hours": 48, "at": "20:00", "grace": 48})
    set_status(app, Turkey="civil_disorder")  # neither told nor named
    for minute, who in enumerate(("austria", "italy", "russia")):
        order(table, who, ORDERS[who], f"2026-11-23 13:0{minute}")
    order(table, "england", "SIGNON Etest01 pw-eng\nF Lon-Nth", "2026-11-23 13:05")

    assert late(app, "2026-11-25 19:59") == 0
    assert table.new_mail() == []

    # Day 0, at the deadline: England, France and Germany are late; the master is told.
    assert late(app, DEADLINE) == 7
    mail = table.new_mail()
    assert [(m.to_addr.partition("@")[0], m.kind, m.subject) for m in mail] == [
        ("austria", "late", "Diplomacy game test01 S1901M: waiting for late orders"),
        ("england", "late", "Diplomacy game test01 S1901M: your orders are late"),
        ("france", "late", "Diplomacy game test01 S1901M: your orders are late"),
        ("germany", "late", "Diplomacy game test01 S1901M: your orders are late"),
        ("italy", "late", "Diplomacy game test01 S1901M: waiting for late orders"),
        ("russia", "late", "Diplomacy game test01 S1901M: waiting for late orders"),
        (
            "gm",
            "notice",
            "Diplomacy game test01 S1901M: orders late from England, France and Germany",
        ),
    ]
    assert to(mail, "france").body == FRANCE_LATE
    assert to(mail, "austria").body == others_body("England, France and Germany", "", "Austria")
    assert to(mail, "russia").body == others_body(
        "England, France and Germany",
        "which in your own time zone is\n    Fri Nov 27 2026 23:00:00 +0300 (Europe/Moscow)\n",
        "Russia",
    )

    # Never twice, and nothing more until a day later.
    for when in (DEADLINE, "2026-11-25 20:01", "2026-11-26 19:59"):
        assert late(app, when) == 0
    assert table.new_mail() == []

    # Germany orders in the meantime; day 1 names only England and France.
    order(table, "germany", ORDERS["germany"], "2026-11-26 10:00")
    assert late(app, "2026-11-26 20:00") == 7
    mail = table.new_mail()
    assert addresses(mail) == ["austria", "england", "france", "germany", "italy", "russia", "gm"]
    assert [m.subject.rpartition(": ")[2] for m in mail] == [
        "waiting for late orders",
        "your orders are late",
        "your orders are late",
        "waiting for late orders",
        "waiting for late orders",
        "waiting for late orders",
        "orders late from England and France",
    ]
    assert to(mail, "germany").body == others_body("England and France", "", "Germany")
    assert late(app, "2026-11-26 20:00") == 0
    assert late(app, "2026-11-27 19:59") == 0
    # Grace is over: the phase is due, not another day of notices.
    assert late(app, "2026-11-27 20:00") == 0
    assert table.new_mail() == []

    with app.sessions() as session:
        notices = session.scalars(select(NoticeRecord).order_by(NoticeRecord.id)).all()
        assert [(n.kind, n.day) for n in notices].count(("late", 0)) == 3
        assert [(n.kind, n.day) for n in notices].count(("late-others", 1)) == 5  # and the master
        assert len(notices) == 14


def test_a_judge_that_was_down_sends_only_the_current_day(game: tuple[App, Table]) -> None:
    app, table = game
    set_deadlines(app, {"hours": 48, "at": "20:00", "grace": 72})
    assert late(app, "2026-11-26 21:00") == 8  # day 1, everybody late, and the master
    mail = table.new_mail()
    assert len(mail) == 8
    assert late(app, "2026-11-26 23:00") == 0
    with app.sessions() as session:
        assert set(session.scalars(select(NoticeRecord.day))) == {1}


def test_an_anonymous_game_does_not_name_the_late(game: tuple[App, Table]) -> None:
    app, table = game
    set_deadlines(app, {"hours": 48, "at": "20:00", "grace": 48}, anonymous=True)
    for minute, who in enumerate(("austria", "england", "germany", "italy", "russia")):
        order(table, who, ORDERS[who], f"2026-11-23 13:0{minute}")
    assert late(app, DEADLINE) == 8
    mail = table.new_mail()
    assert to(mail, "austria").body == others_body("2 powers", "", "Austria")
    # The master is told which, as always.
    assert to(mail, "gm").subject.endswith("orders late from France and Turkey")
    for message in mail:
        if message.subject.endswith("waiting for late orders"):
            assert "France" not in message.body and "Turkey" not in message.body
    # France orders during grace; the next day only Turkey is late.
    order(table, "france", ORDERS["france"], "2026-11-26 09:00")
    assert late(app, "2026-11-26 20:00") == 8
    mail = table.new_mail()
    assert to(mail, "france").body == others_body("1 power", "", "France")
    assert "Turkey" not in to(mail, "austria").body


def test_nothing_once_the_phase_is_processed(game: tuple[App, Table]) -> None:
    app, table = game
    set_deadlines(app, {"hours": 48, "at": "20:00", "grace": 48, "remind": 24})
    assert late(app, DEADLINE) == 8
    table.new_mail()
    table.process("2026-11-26 08:00")  # the game master processes during grace
    assert [m.kind for m in table.new_mail()] == ["results"] * 8
    assert late(app, "2026-11-26 20:00") == 0
    assert remind(app, "2026-11-26 20:00") == 0
    assert table.phase() == "F1901M"
    assert table.new_mail() == []


def test_two_judges_at_once_send_each_notice_once(
    postgres_database_url: str, tmp_path: Path
) -> None:
    # Two processes running the notices at the same moment (a double fire): the second's
    # insert waits for the first's row, then fails in its savepoint and sends nothing.
    app, table = started_game(tmp_path, postgres_database_url)
    set_deadlines(app, {"hours": 48, "at": "20:00", "grace": 24})
    result: dict[str, int] = {}

    def second() -> None:
        with app.sessions() as session, session.begin():
            result["queued"] = send_late_notices(session, app.judge, at(DEADLINE))

    with app.sessions() as first:
        first.begin()
        assert send_late_notices(first, app.judge, at(DEADLINE)) == 8
        thread = threading.Thread(target=second)
        thread.start()
        thread.join(timeout=1.0)
        assert thread.is_alive()  # held up by the first's uncommitted notices
        first.commit()
    thread.join(timeout=30.0)
    assert result == {"queued": 0}
    assert len(table.new_mail()) == 8  # the master's copy once too


def test_each_notice_is_stored_once(db_url: str, tmp_path: Path) -> None:
    app, _table = started_game(tmp_path, db_url)
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        player = session.scalars(select(Player).where(Player.power == "France")).one()
        ids = (game.id, player.id)
    row = {"seq": 1, "kind": "late", "day": 0, "sent_at": at(DEADLINE)}
    with app.sessions() as session, session.begin():
        session.add(NoticeRecord(game_id=ids[0], player_id=ids[1], **row))
    with app.sessions() as session:
        session.add(NoticeRecord(game_id=ids[0], player_id=ids[1], **row))
        with pytest.raises(IntegrityError):
            session.commit()
    with app.sessions() as session:
        session.add(NoticeRecord(game_id=ids[0], player_id=ids[1], **{**row, "kind": "soon"}))
        with pytest.raises(IntegrityError):
            session.commit()


# -- standings in the other kinds of phase ----------------------------------------------


def put_position(app: App, position: Position) -> None:
    """Make ``position`` the game's current one (its phase's first record)."""
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        game.phase = position.phase.code
        game.phases[0].phase = position.phase.code
        game.phases[0].position = position_to_document(position)


def test_standings_count_the_builds_a_power_can_make(game: tuple[App, Table]) -> None:
    app, _table = game
    game_map = standard_map()
    # Winter 1901: France has taken Spain and Belgium and has one free home centre (its
    # army left Paris); Italy took Tunis but has no free home centre; Austria lost Budapest.
    units = [replace(u, location="bur") if u.location == "par" else u for u in game_map.start_units]
    centres = {**game_map.start_centres, "spa": "France", "bel": "France", "tun": "Italy"}
    centres["bud"] = "Russia"
    put_position(app, Position.build(game_map, "W1901A", units, centres))
    with app.sessions() as session:
        got = standings(session, session.scalars(select(Game)).one())
    assert got["France"] == Standing(
        "France",
        (),
        (
            "France: 0 of 2 builds ordered; 1 more may be ordered (there is room for 1 build; "
            "builds not ordered are waived).",
        ),
        False,
    )
    assert got["Italy"] == Standing(
        "Italy",
        (),
        ("Italy: 0 of 1 build ordered; no centre is free to build in, so the build is waived.",),
        True,
    )
    assert got["Austria"] == Standing("Austria", (), (adjustment_status("Austria", -1, 0),), False)
    assert got["England"] == Standing("England", (), (), True)


def test_a_build_with_nowhere_to_build_is_not_a_missed_phase(game: tuple[App, Table]) -> None:
    app, table = game
    game_map = standard_map()
    # As above: France owes two builds and can make one, Italy owes one and can make none,
    # Austria owes a removal.  Nobody orders anything.
    units = [replace(u, location="bur") if u.location == "par" else u for u in game_map.start_units]
    centres = {**game_map.start_centres, "spa": "France", "bel": "France", "tun": "Italy"}
    centres["bud"] = "Russia"
    put_position(app, Position.build(game_map, "W1901A", units, centres))
    table.process("2026-11-25 20:00")
    with app.sessions() as session:
        missed = {p.power: p.missed for p in session.scalars(select(Player))}
    # Only Austria's removal counts: builds not made are waived (house rule 3.3).
    assert missed == {
        "Austria": 1, "England": 0, "France": 0, "Germany": 0, "Italy": 0, "Russia": 0,
        "Turkey": 0,
    }  # fmt: skip


def test_standings_in_retreats_list_the_dislodged(game: tuple[App, Table]) -> None:
    app, table = game
    game_map = standard_map()
    army = next(u for u in game_map.start_units if u.location == "par")
    units = [u for u in game_map.start_units if u.location != "par"]
    dislodged = Dislodged(replace(army, location="bur"), "mun", ("gas", "pic"))
    put_position(app, Position.build(game_map, "S1901R", units, dislodged=[dislodged]))
    set_deadlines(app, {"hours": 24, "remind": 24}, "retreat")
    with app.sessions() as session:
        got = standings(session, session.scalars(select(Game)).one())
    assert got["France"] == Standing(
        "France",
        (),
        ("France: Army Burgundy, no retreat ordered (it will be disbanded).",),
        False,
    )
    assert all(s.complete for power, s in got.items() if power != "France")
    # Only the power with a retreat to make is reminded (the deadline is still 25 Nov).
    assert remind(app, "2026-11-24 20:00") == 1
    [mail] = table.new_mail()
    assert mail.to_addr == "france@example.org"
    assert "Retreat orders for Spring of 1901.  (test01.001)" in mail.body
    assert "No Order Processed" not in mail.body


# -- the templates ----------------------------------------------------------------------

_WHEN = at("2026-11-28 20:00")
_LATER = at("2026-11-29 20:00")


def _context(**changes: object) -> dict[str, object]:
    context: dict[str, object] = {
        "judge_name": "USDP",
        "judge_address": "judge@example.org",
        "game_name": "winter01",
        "variant": "Standard",
        "phase_code": "F1901R",
        "phase_text": "Retreats for Fall of 1901",
        "phase_kind": "R",
        "power": "England",
        "deadline_game": format_deadline(_WHEN, "Europe/London"),
        "deadline_player": format_deadline(_WHEN, "America/New_York"),
        "process_game": format_deadline(_LATER, "Europe/London"),
        "process_player": format_deadline(_LATER, "America/New_York"),
        "heading": phase_heading("Retreat", Phase.parse("F1901R"), "winter01", 4),
        "order_lines": ["England: Fleet North Sea -> Norwegian Sea."],
        "missing_lines": [
            "England: Army Belgium, no retreat ordered (it will be disbanded).",
        ],
        "signon_line": "SIGNON Ewinter01 <password>",
        "late_count": 2,
        "late_powers": "England and Turkey",
        "nothing_needed": False,
    }
    context.update(changes)
    return context


def test_reminder_template() -> None:
    check_golden(Renderer().render("player/reminder.txt.j2", **_context()), "reminder.txt")


def test_reminder_template_adjustments() -> None:
    mail = Renderer().render(
        "player/reminder.txt.j2",
        **_context(
            phase_code="W1901A",
            phase_text="Adjustments for Winter of 1901",
            phase_kind="A",
            heading=phase_heading("Adjustment", Phase.parse("W1901A"), "winter01", 5),
            order_lines=["England: Build Fleet London."],
            missing_lines=[adjustment_status("England", 2, 1)],
            deadline_player=None,
        ),
    )
    check_golden(mail, "reminder_adjustments.txt")


def test_late_template() -> None:
    check_golden(Renderer().render("player/late.txt.j2", **_context()), "late_player.txt")


def test_late_others_template() -> None:
    mail = Renderer().render("all/late.txt.j2", **_context(power="France"))
    check_golden(mail, "late_others.txt")


def test_late_others_template_anonymous() -> None:
    mail = Renderer().render(
        "all/late.txt.j2",
        **_context(power="France", late_powers=None, process_player=None, nothing_needed=True),
    )
    check_golden(mail, "late_others_anonymous.txt")
    assert "England" not in mail.body


# -- what the player is told: builds with nowhere to build, implied orders -------------


def test_a_build_with_nowhere_to_build_is_complete_in_the_confirmation(
    game: tuple[App, Table],
) -> None:
    app, table = game
    game_map = standard_map()
    # As above: Italy took Tunis and has no free home centre; France owes two builds and
    # has one free home centre.
    units = [replace(u, location="bur") if u.location == "par" else u for u in game_map.start_units]
    centres = {**game_map.start_centres, "spa": "France", "bel": "France", "tun": "Italy"}
    put_position(app, Position.build(game_map, "W1901A", units, centres))
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\n", "2026-11-23 13:00")
    [italy] = table.new_mail()
    assert (
        "Italy: 0 of 1 build ordered; no centre is free to build in, so the build is "
        "waived.\n\nYour orders are complete. You may still change them until the deadline.\n"
    ) in italy.body
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nBuild A Par\n", "2026-11-23 13:01")
    [france] = table.new_mail()
    assert (
        "France: Build Army Paris.\n"
        "France: 1 of 2 builds ordered; no other centre is free to build in, so the build "
        "is waived.\n\nYour orders are complete."
    ) in france.body
    with app.sessions() as session:
        got = standings(session, session.scalars(select(Game)).one())
    assert got["Italy"].missing_lines == (
        "Italy: 0 of 1 build ordered; no centre is free to build in, so the build is waived.",
    )
    assert got["Italy"].complete and got["France"].complete


def set_rules(app: App, **rules: object) -> None:
    with app.sessions() as session, session.begin():
        game_row = session.scalars(select(Game)).one()
        game_row.rules = {**(game_row.rules or {}), **rules}


def test_a_unit_ordered_by_an_implied_order_counts_as_ordered(game: tuple[App, Table]) -> None:
    app, table = game
    set_rules(app, implied_orders=True)
    set_deadlines(app, {"hours": 48, "at": "20:00", "remind": 24, "grace": 24})
    # House rule 3.8: the support orders the supported unit too.
    table.send("germany@example.org", "SIGNON Gtest01 pw-ger\nA(Mun) S A(Ber)-Sil\nF Kie H\n",
               "2026-11-23 13:00")  # fmt: skip
    [germany] = table.new_mail()
    assert (
        "Germany: Army Berlin -> Silesia (implied by a support or convoy).\n"
        "Germany: Fleet Kiel HOLD.\n"
        "Germany: Army Munich SUPPORT Army Berlin -> Silesia.\n\n"
        "Your orders are complete."
    ) in germany.body
    for who, body in ORDERS.items():
        if who != "germany":
            order(table, who, body, "2026-11-23 13:01")
    with app.sessions() as session:
        got = standings(session, session.scalars(select(Game)).one())
        assert orders_complete(session, session.scalars(select(Game)).one())
    assert got["Germany"].complete and got["Germany"].missing_lines == ()
    assert got["Germany"].order_lines[0] == (
        "Germany: Army Berlin -> Silesia (implied by a support or convoy)."
    )
    # Nobody is reminded or late.
    assert remind(app, "2026-11-24 20:00") == 0
    assert late(app, DEADLINE) == 0


def test_without_the_house_rule_the_supported_unit_is_still_owed(game: tuple[App, Table]) -> None:
    _app, table = game
    table.send("germany@example.org", "SIGNON Gtest01 pw-ger\nA(Mun) S A(Ber)-Sil\nF Kie H\n",
               "2026-11-23 13:00")  # fmt: skip
    [germany] = table.new_mail()
    assert "Germany: Army Berlin, No Order Processed." in germany.body
    assert "implied" not in germany.body


def test_player_notice_template() -> None:
    """The new-deadline notice (once a paragraph of a generic player notice) reads the same."""
    mail = Renderer().render(
        "all/new_deadline.txt.j2",
        judge_name="USDP",
        game_name="winter01",
        power="England",
        observer=False,
        by_master=False,
        phase_code="F1901R",
        deadline_game="Sat Nov 28 2026 20:00:00 +0000 (Europe/London)",
        deadline_player=None,
        reason=None,
    )
    check_golden(mail, "new_deadline.txt")
    assert "game master" not in mail.body
