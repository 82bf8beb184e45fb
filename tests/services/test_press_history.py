"""``HISTORY <game> PRESS``: each reader reads again the press they may read, as they were
shown it (a grey press never names its sender to a recipient), the game master all of it
when the game sets ``master_reads_press``; the answer bounded, saying what it left out.

The press rows are written here as the press service stores them (the model's fields), so
that reading is tested on its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at, make_app

from judge.db.models import Game, PressRecord, PressState
from judge.runtime.bootstrap import App
from judge.services.game_files import load_game
from judge.services.games import start_game

GM = "SIGNON Mtest01 gm-secret\n"
WATCHER = "watcher@example.net"
ALL = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


def make_game(tmp_path: Path, extra: str = "") -> tuple[App, Table]:
    """Game test01 (``extra`` in its [game]) started at 2026-11-23 12:00."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace('rules = "2023"\n', f'rules = "2023"\n{extra}'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    table = Table(app)
    table.new_mail()
    return app, table


def to(
    powers: list[str] | None = None,
    *,
    master: bool = False,
    observers: bool = False,
    broadcast: bool = False,
) -> dict[str, Any]:
    return {"powers": powers or [], "master": master, "observers": observers,
            "broadcast": broadcast}  # fmt: skip


def add_press(app: App, minute: int, **fields: Any) -> None:
    """A press row of test01 received at 13:<minute> on 2026-11-23, in S1901M."""
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        values: dict[str, Any] = {
            "seq": 1, "phase": "S1901M", "sender_role": "power", "signed": "white",
            "created_at": at(f"2026-11-23 13:{minute:02d}"),
        }  # fmt: skip
        values.update(fields)
        if values["sender_role"] == "power" and "sender_address" not in values:
            values["sender_address"] = f"{str(values['sender_power']).lower()}@example.org"
        session.add(PressRecord(game_id=game.id, **values))


def the_press(app: App) -> None:
    """The press of test01 these tests read."""
    add_press(app, 0, sender_power="England", shown_from="England",
              shown_to="France, Germany", recipients=to(["France", "Germany"]),
              body="Dear France and Germany,\n\nshall we?\n")  # fmt: skip
    add_press(app, 1, sender_power="England", signed="grey", shown_from=None,
              shown_to="France", recipients=to(["France"]), body="Beware of Germany.")  # fmt: skip
    add_press(app, 2, sender_power="Germany", shown_from="Germany", shown_to="all",
              recipients=to(ALL, master=True, observers=True, broadcast=True),
              body="Peace in our time.")  # fmt: skip
    add_press(app, 3, sender_power="Russia", shown_from="Russia", shown_to="Turkey",
              recipients=to(["Turkey"]), body="Black Sea?")  # fmt: skip
    add_press(app, 4, sender_power="Italy", signed="fake", shown_from="Austria",
              shown_to="all", recipients=to(["England"]), body="Austria means war.")  # fmt: skip
    add_press(app, 5, sender_power="France", shown_from="France", shown_to="the game master",
              recipients=to(master=True), body="I may be late.")  # fmt: skip
    add_press(app, 6, sender_role="master", sender_power=None, sender_address="gm@example.org",
              shown_from="Master", shown_to="the observers", recipients=to(observers=True),
              body="Welcome, observers.")  # fmt: skip
    add_press(app, 7, sender_power="Austria", shown_from="Austria", shown_to="all",
              recipients=to(broadcast=True), release=True, dateline="Vienna",
              state=PressState.PUBLISHED, published_seq=1, body="Vienna stands firm.")  # fmt: skip
    add_press(app, 8, sender_power="Turkey", shown_from=None, shown_to="all",
              recipients=to(broadcast=True), release=True, dateline="Paris",
              state=PressState.HELD, body="Paris is burning.")  # fmt: skip
    add_press(app, 9, sender_role="observer", sender_power=None, sender_address=WATCHER,
              shown_from="Observer", shown_to="England", recipients=to(["England"]),
              body="A word from the gallery.")  # fmt: skip


def reply(table: Table, sender: str, body: str) -> str:
    table.send(sender, body, "2026-11-24 10:00", subject="history")
    rows = table.new_mail()
    assert len(rows) == 1, [(r.to_addr, r.subject) for r in rows]
    assert rows[0].to_addr == sender
    return rows[0].body


def entry(minute: int | None, heading: str, *body: str) -> str:
    """One entry of the answer, received at 13:<minute> (None: the time not shown, to a
    reader who did not send it)."""
    text = "\n".join(f"  {line}" if line else "" for line in body)
    when = "" if minute is None else f", Mon Nov 23 2026 13:{minute:02d}:00 +0000 (Europe/London)"
    return f"S1901M{when}\n{heading}:\n{text}"


ENGLAND_TO_FG = entry(None, "From England to France, Germany", "Dear France and Germany,", "",
                      "shall we?")  # fmt: skip
BROADCAST = entry(None, "From Germany to all", "Peace in our time.")
RELEASE = entry(
    None, "Press release from Austria, dateline Vienna (guaranteed genuine)", "Vienna stands firm."
)


def test_a_player_reads_what_it_sent_and_received_the_broadcasts_and_the_releases(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path)
    the_press(app)
    body = reply(table, "england@example.org", "SIGNON Etest01 pw-eng\nHISTORY test01 PRESS\n")
    # Its own press to its real recipients, how it went (grey); a fake as its recipient
    # was shown it; never Russia's to Turkey, the press to the master or the observers,
    # nor a release still held.
    assert (
        "The press of test01 that England sent or received, and the broadcasts and\n"
        "the published press releases:\n\n"
        + "\n\n".join([
            entry(0, "From you (England) to France, Germany", "Dear France and Germany,", "",
                  "shall we?"),
            entry(1, "From you (England) to France, sent grey", "Beware of Germany."),
            BROADCAST,
            entry(None, "From Austria to all", "Austria means war."),
            RELEASE,
            entry(None, "From an observer to England", "A word from the gallery."),
        ])
        + "\n\nMovement orders for Spring of 1901."
    ) in body  # fmt: skip
    for hidden in ("Black Sea", "I may be late", "Welcome, observers", "Paris is burning",
                   "Italy", "watcher@"):  # fmt: skip
        assert hidden not in body


def test_a_grey_press_names_no_sender_to_its_recipient(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    the_press(app)
    body = reply(table, "france@example.org", "SIGNON Ftest01 paris-123\nHISTORY test01 PRESS\n")
    grey = entry(None, "Grey press to France", "Beware of Germany.")
    assert (
        "The press of test01 that France sent or received, and the broadcasts and the\n"
        "published press releases:\n\n"
        + "\n\n".join([
            ENGLAND_TO_FG,
            grey,
            BROADCAST,
            entry(5, "From you (France) to the game master", "I may be late."),
            RELEASE,
        ])
        + "\n\nMovement orders for Spring of 1901."
    ) in body  # fmt: skip
    assert "England" not in grey and "england@" not in body


def test_an_observer_reads_what_the_observers_received_and_its_own(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    table.send(WATCHER, "OBSERVE test01\n", "2026-11-23 12:30")
    table.new_mail()
    the_press(app)
    body = reply(table, WATCHER, "OBSERVE test01\nHISTORY test01 PRESS\n")
    assert body == (
        "You watch test01 already; you are signed on as its observer.\n\n"
        "The press of test01 sent to the observers or by you, and the broadcasts and\n"
        "the published press releases:\n\n"
        + "\n\n".join([
            BROADCAST,
            entry(None, "From the game master to the observers", "Welcome, observers."),
            RELEASE,
            entry(9, "From you (Observer) to England", "A word from the gallery."),
        ])
        + "\n\nTESTJUDGE\n"
    )  # fmt: skip


def test_the_master_reads_what_was_sent_to_the_master(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    the_press(app)
    body = reply(table, "gm@example.org", GM + "HISTORY test01 PRESS\n")
    assert body == (
        "Signed on as game master of test01.\n\n"
        "The press of test01 that the game master sent or received, and the\n"
        "broadcasts and the published press releases:\n\n"
        + "\n\n".join([
            BROADCAST,
            entry(None, "From France to the game master", "I may be late."),
            entry(6, "From you (Master) to the observers", "Welcome, observers."),
            RELEASE,
        ])
        + "\n\nTESTJUDGE\n"
    )  # fmt: skip


def test_the_master_who_reads_all_press_sees_every_true_sender(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, "master_reads_press = true\n")
    the_press(app)
    body = reply(table, "gm@example.org", GM + "HISTORY test01 PRESS\n")
    assert body == (
        "Signed on as game master of test01.\n\n"
        "All the press of test01, with the true senders (the game master reads all\n"
        "press):\n\n"
        + "\n\n".join([
            entry(0, "From England to France, Germany", "Dear France and Germany,", "",
                  "shall we?"),
            entry(1, "From England to France, sent grey", "Beware of Germany."),
            entry(2, "From Germany to all", "Peace in our time."),
            entry(3, "From Russia to Turkey", "Black Sea?"),
            entry(4, "From Italy to England, faked as Austria, shown as to all",
                  "Austria means war."),
            entry(5, "From France to the game master", "I may be late."),
            entry(6, "From you (Master) to the observers", "Welcome, observers."),
            entry(7, "Press release from Austria, dateline Vienna (guaranteed genuine), published",
                  "Vienna stands firm."),
            entry(8, "Press release from Turkey, dateline Paris, held for the next results",
                  "Paris is burning."),
            entry(9, "From an observer (watcher@example.net) to England",
                  "A word from the gallery."),
        ])
        + "\n\nTESTJUDGE\n"
    )  # fmt: skip


def test_someone_not_signed_on_reads_the_public_press_of_an_open_game(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    the_press(app)
    body = reply(table, "someone@example.net", "HISTORY test01 PRESS ALL\n")
    assert body == (
        "The public press of test01: the broadcasts and the published press releases\n"
        "(sign on to the game to read the press you sent or received):\n\n"
        f"{BROADCAST}\n\n{RELEASE}\n\nTESTJUDGE\n"
    )


def test_the_press_of_a_game_closed_to_observers_needs_a_signon(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, 'observers = "none"\n')
    the_press(app)
    body = reply(table, "someone@example.net", "HISTORY test01 PRESS\n")
    assert body == (
        "> HISTORY test01 PRESS\n"
        "The press of test01 is read by its players, its game master and its observers: "
        "sign on to the game first (SIGNON <power initial>test01 <password>, or OBSERVE "
        "for an observer), then HISTORY test01 PRESS.\n\n"
        "TESTJUDGE\n"
    )


def test_the_answer_holds_the_most_recent_press_and_says_how_to_ask_for_more(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path)
    for minute in range(25):
        phase = "S1901M" if minute < 10 else "F1901M"
        add_press(app, minute, sender_power="Germany", shown_from="Germany", shown_to="all",
                  recipients=to(ALL, broadcast=True), body=f"Number {minute}.",
                  phase=phase, seq=1 if minute < 10 else 2)  # fmt: skip
    body = reply(table, "someone@example.net", "HISTORY test01 PRESS\n")
    assert "Number 4.\n" not in body
    assert body.endswith(
        "F1901M\n"
        "From Germany to all:\n"
        "  Number 24.\n\n"
        "5 earlier press were left out (S1901M): ask for one phase, e.g. HISTORY\n"
        "test01 PRESS S1901M, or for all of them: HISTORY test01 PRESS ALL.\n\n"
        "TESTJUDGE\n"
    )
    assert body.count("From Germany to all:") == 20
    assert "  Number 5.\n" in body
    # One phase: all of its press, and nothing of another phase.
    body = reply(table, "someone@example.net", "HISTORY test01 PRESS s1901m\n")
    assert body.count("From Germany to all:") == 10
    assert body.startswith("The public press of test01, S1901M: ")
    assert "Number 10." not in body and "left out" not in body
    body = reply(table, "someone@example.net", "HISTORY test01 PRESS ALL\n")
    assert body.count("From Germany to all:") == 25
    assert "left out" not in body
    body = reply(table, "someone@example.net", "HISTORY test01 PRESS S1902M\n")
    assert "There is none of S1902M." in body


def test_a_press_history_phase_is_read_as_every_phase_code_is(tmp_path: Path) -> None:
    # The phase codes ROLLBACK and the rest take: A for Fall (Autumn) too.
    _app, table = make_game(tmp_path)
    body = reply(table, "someone@example.net", "HISTORY test01 PRESS a1902m\n")
    assert "There is none of F1902M." in body


@pytest.mark.parametrize("line", ["HISTORY test01 PRESS 1901", "HISTORY test01 PRESS S1901M x"])
def test_a_bad_press_history_line_is_refused_with_the_forms(tmp_path: Path, line: str) -> None:
    _app, table = make_game(tmp_path)
    body = reply(table, "someone@example.net", line + "\n")
    assert (
        f"> {line}\n"
        "Write HISTORY <game> PRESS, then a phase (e.g. HISTORY test01 PRESS S1901M) or "
        "ALL if you like; nothing more.\n"
    ) in body


def test_the_master_acting_for_a_power_reads_as_the_master_and_the_power_s_copy_has_none(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path)
    the_press(app)
    table.send("gm@example.org", GM + "BECOME England\nHISTORY test01 PRESS\n",
               "2026-11-24 10:00", subject="history")  # fmt: skip
    rows = {row.to_addr: row.body for row in table.new_mail()}
    assert "From France to the game master:" in rows["gm@example.org"]
    assert "Dear France" not in rows["gm@example.org"]
    assert "press" not in rows["england@example.org"].lower()


def test_the_time_a_press_was_received_is_shown_to_its_sender_only(tmp_path: Path) -> None:
    # England's white and grey press came in one message: the same second would tell
    # France who sent the grey one (and undo the grey press's random hold).  France reads
    # the phase of each; England, its sender, the time too.
    app, table = make_game(tmp_path)
    the_press(app)
    body = reply(table, "france@example.org", "SIGNON Ftest01 paris-123\nHISTORY test01 PRESS\n")
    assert "S1901M\nGrey press to France:\n  Beware of Germany.\n" in body
    assert "S1901M\nFrom England to France, Germany:\n" in body
    assert "S1901M\nPress release from Austria, dateline Vienna (guaranteed genuine):\n" in body
    assert "13:01" not in body and "13:00" not in body
    assert "S1901M, Mon Nov 23 2026 13:05:00 +0000 (Europe/London)\nFrom you (France)" in body


def test_a_held_grey_press_is_not_in_history_before_its_mail_goes(tmp_path: Path) -> None:
    # A grey press's mail is held a random while (the judge's grey_press_delay) so that
    # its arrival ties it to nothing else of its sender's; HISTORY must not show it any
    # sooner, or asking again and again would tell when it was written.
    _app, table = make_game(tmp_path, 'press = "grey"\n')
    table.send("england@example.org", "SIGNON Etest01 pw-eng\nPRESS TO F\nWho am I?\nENDPRESS\n",
               "2026-11-24 09:59")  # fmt: skip
    (held,) = [row for row in table.new_mail() if row.to_addr == "france@example.org"]
    assert held.next_attempt_at is not None and held.next_attempt_at > at("2026-11-24 10:00")
    history = "SIGNON Ftest01 paris-123\nHISTORY test01 PRESS\n"
    assert "Who am I?" not in reply(table, "france@example.org", history)
    # Its sender sees it at once; the recipient once its mail has gone.
    assert "Who am I?" in reply(table, "england@example.org",
                                "SIGNON Etest01 pw-eng\nHISTORY test01 PRESS\n")  # fmt: skip
    table.send("france@example.org", history, "2026-11-24 10:05", subject="history")
    (later,) = table.new_mail()
    assert "Grey press to France:\n  Who am I?" in later.body


def test_history_press_without_a_game_is_the_press_of_the_game_signed_on_to(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path)
    the_press(app)
    named = reply(table, "france@example.org", "SIGNON Ftest01 paris-123\nHISTORY test01 PRESS\n")
    short = reply(table, "france@example.org", "SIGNON Ftest01 paris-123\nHISTORY PRESS\n")
    assert short == named
    table.send("someone@example.net", "HISTORY PRESS\n", "2026-11-24 10:00", subject="history")
    (answer,) = table.new_mail()
    assert (
        "> HISTORY PRESS\nName the game whose press you want: HISTORY <game> PRESS, e.g. "
        "HISTORY winter01 PRESS (or sign on first).\n"
    ) in answer.body
