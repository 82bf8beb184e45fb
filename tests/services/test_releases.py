"""Press releases (house rules 10.1-10.3, the njudge's POSTALPRESS) by injected mail:
held, confirmed, decided against the phase's results, published in the results mail to
everyone (observers too) or withheld and their sender told; datelines reserved for the
game master and for each power; refused in games and ways that do not allow them."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at, make_app

from judge.db.models import OutboundMessage, PressRecord
from judge.runtime.bootstrap import App
from judge.services.datelines import dateline_key, reserved_for
from judge.services.game_files import load_game
from judge.services.games import start_game

FRANCE = "SIGNON Ftest01 paris-123\n"
GERMANY = "SIGNON Gtest01 pw-ger\n"
AUSTRIA = "SIGNON Atest01 pw-aus\n"
ENGLAND = "SIGNON Etest01 pw-eng\n"
ITALY = "SIGNON Itest01 pw-ita\n"
RUSSIA = "SIGNON Rtest01 pw-rus\n"
TURKEY = "SIGNON Ttest01 pw-tur\n"
MASTER = "SIGNON Mtest01 gm-secret\n"
WATCHER = "watcher@example.net"
#: The last line of the report of S1901M in these tests (no Turkish orders given).
REPORT_END = "Turkey: Army Smyrna, No Order Processed.\n\n"
NEXT = "The next phase of 'test01' will be Movement for Fall of 1901.\n"


def make_game(tmp_path: Path, extra: str = "", *, start: bool = True) -> tuple[App, Table]:
    """Game test01 (``extra`` in its [game] table), started at 2026-11-23 12:00 unless
    ``start`` is false."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace('rules = "2023"\n', f'rules = "2023"\n{extra}'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        if start:
            start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    table = Table(app)
    table.new_mail()
    return app, table


def answer(table: Table) -> OutboundMessage:
    rows = table.new_mail()
    assert len(rows) == 1, [(r.to_addr, r.subject) for r in rows]
    return rows[0]


def held(table: Table, sender: str, text: str, confirmation: str, when: str) -> None:
    """``text`` from ``sender`` is taken, its reply confirming the release as given."""
    table.send(sender, text, when)
    reply = answer(table)
    assert "[Error Flag]" not in reply.subject, reply.body
    assert confirmation in reply.body, reply.body


def refused(table: Table, sender: str, text: str, line: str, reason: str, given: str) -> None:
    """``text`` from ``sender`` is refused: ``line`` with ``reason``, the press's text
    (``given``) given back."""
    table.send(sender, text, "2026-11-23 14:00")
    reply = answer(table)
    assert reply.subject.startswith("[Error Flag]"), reply.body
    assert f"  {line}\n    -> {reason}\n" in reply.body, reply.body
    assert f"This press was not sent ({line}); its text, for you to send again:\n\n{given}" in (
        reply.body
    ), reply.body


def results(table: Table) -> dict[str, str]:
    """The results of S1901M, processed at its deadline: each reader's body by address."""
    table.process("2026-11-25 20:00")
    rows = [r for r in table.new_mail() if r.subject == "Diplomacy results test01 S1901M"]
    return {r.to_addr: r.body for r in rows}


def press_part(body: str) -> str:
    """What a results mail shows after the report and before the next phase."""
    return body.split(REPORT_END, 1)[1].split(NEXT, 1)[0]


def releases(app: App) -> list[tuple[str | None, str, str | None, int | None, str | None]]:
    with app.sessions() as session:
        rows = session.scalars(select(PressRecord).order_by(PressRecord.id))
        return [(r.sender_power, r.state, r.dateline, r.published_seq, r.outcome) for r in rows]


# -- conditions ----------------------------------------------------------------------


def test_releases_published_or_withheld_by_their_conditions_and_the_sender_told(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path)
    table.send(WATCHER, "OBSERVE test01\n", "2026-11-23 12:30")
    table.new_mail()
    held(table, "france@example.org",
         FRANCE + "A Par-Bur\nPRESS PUBLISH IF A Par-Bur SUCCEEDS\nDATELINE Paris\n"
         "Burgundy is French.\nENDPRESS\n",
         "Press release held for the results of S1901M, to be published to everyone (19 "
         "characters):\n  signed: France (white)\n  dateline: Paris (reserved for you: "
         "published as genuine)\n  published only if: A Par-Bur succeeds\n",
         "2026-11-23 13:00")  # fmt: skip
    held(table, "germany@example.org",
         GERMANY + "A Mun-Bur\nPRESS PUBLISH IF army munich to burgundy FAILS\n"
         "DATELINE Munich\nBurgundy stays free.\n\nSo says Munich.\nENDPRESS\n",
         "  dateline: Munich\n  published only if: army munich to burgundy fails\n",
         "2026-11-23 13:05")  # fmt: skip
    # Two conditions, one true (Munich bounced), one false (Vienna was not so ordered).
    held(table, "austria@example.org",
         AUSTRIA + "A Vie-Tyr\nPRESS PUBLISH IF A Mun-Bur FAILS AND A Vie-Gal SUCCEEDS\n"
         "Galicia is ours.\nENDPRESS\n",
         "  published only if: A Mun-Bur fails, and A Vie-Gal succeeds\n",
         "2026-11-23 13:10")  # fmt: skip

    bodies = results(table)
    published = (
        "Press releases:\n\n"
        "Release 1\nDateline: Munich\nFrom: Germany\n\n"
        "    Burgundy stays free.\n\n    So says Munich.\n\n"
    )
    assert press_part(bodies["germany@example.org"]) == published
    # Everyone but the senders of the withheld ones reads the one rendering.
    for reader in ("england@example.org", "gm@example.org", WATCHER, "turkey@example.org"):
        assert bodies[reader] == bodies["germany@example.org"]
    assert press_part(bodies["france@example.org"]) == published + (
        'Your press release (dateline Paris) beginning "Burgundy is French." was not\n'
        "published with the results of S1901M: A Par-Bur failed.\n\n"
    )
    assert press_part(bodies["austria@example.org"]) == published + (
        'Your press release beginning "Galicia is ours." was not published with the\n'
        "results of S1901M: A Vie-Gal was not ordered in S1901M.\n\n"
    )
    assert releases(app) == [
        ("France", "withheld", "Paris", 1, "A Par-Bur failed"),
        ("Germany", "published", "Munich", 1, None),
        ("Austria", "withheld", None, 1, "A Vie-Gal was not ordered in S1901M"),
    ]


def test_a_condition_that_is_not_an_order_is_refused_naming_it(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    refused(table, "france@example.org",
            FRANCE + "PRESS PUBLISH IF A Par-Bur SUCCEEDS AND A Par-Xyz FAILS\nHello.\nENDPRESS\n",
            "PRESS PUBLISH IF A Par-Bur SUCCEEDS AND A Par-Xyz FAILS",
            "IF A Par-Xyz FAILS: 'A Par-Xyz': 'Xyz' is not a province name on this map; a "
            "condition names an order of this phase: IF A Par-Bur SUCCEEDS",
            "  | Hello.\n")  # fmt: skip
    assert releases(app) == []


# -- datelines -----------------------------------------------------------------------


def test_reserved_datelines_used_rightly_are_genuine_and_forged_ones_refused(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path)
    when = iter(f"2026-11-23 13:{m:02}" for m in range(60))
    for sender, signon, dateline, text in [
        ("austria@example.org", AUSTRIA, "vienna", "From the Hofburg."),
        ("russia@example.org", RUSSIA, "Saint Petersburg", "The Tsar is pleased."),
        ("turkey@example.org", TURKEY, "Turkey (Govt.)", "The Porte speaks."),
        ("gm@example.org", MASTER, "Versailles", "The Congress opens."),
        ("gm@example.org", MASTER, "Vienna", "The master may write from anywhere."),
        ("england@example.org", ENGLAND, "Munich", "Any free dateline will do."),
    ]:
        mark = " (reserved for you: published as genuine)" if dateline != "Vienna" else ""
        if sender == "england@example.org":
            mark = ""
        held(table, sender, f"{signon}PRESS PUBLISH\nDATELINE {dateline}\n{text}\nENDPRESS\n",
             f"  dateline: {dateline}{mark}\n", next(when))  # fmt: skip

    for dateline, whose in [
        ("St. Petersburg", "Russia"),
        ("StP", "Russia"),
        ("CONSTANTINOPLE", "Turkey"),
        ("Germany (Govt.)", "Germany"),
        ("france government", "France"),
        ("Lon", "England"),
        ("VERSAILLES.", "the game master"),
    ]:
        refused(table, "italy@example.org",
                f"{ITALY}PRESS PUBLISH\nDATELINE {dateline}\nForged.\nENDPRESS\n",
                "PRESS PUBLISH",
                f"the dateline {dateline} is reserved for {whose}; choose another dateline, "
                "or none",
                f"  | DATELINE {dateline}\n  | Forged.\n")  # fmt: skip
    refused(table, "italy@example.org",
            f"{ITALY}PRESS PUBLISH\nDATELINE Naples (genuine)\nForged.\nENDPRESS\n",
            "PRESS PUBLISH",
            "the dateline Naples (genuine) claims to be genuine; only the judge marks a "
            "release genuine (a capital's or a government's dateline used by its own power)",
            "  | DATELINE Naples (genuine)\n  | Forged.\n")  # fmt: skip

    bodies = results(table)
    assert press_part(bodies["italy@example.org"]) == (
        "Press releases:\n\n"
        "Release 1\nDateline: vienna (guaranteed genuine)\nFrom: Austria\n\n"
        "    From the Hofburg.\n\n"
        "Release 2\nDateline: Saint Petersburg (guaranteed genuine)\nFrom: Russia\n\n"
        "    The Tsar is pleased.\n\n"
        "Release 3\nDateline: Turkey (Govt.) (guaranteed genuine)\nFrom: Turkey\n\n"
        "    The Porte speaks.\n\n"
        "Release 4\nDateline: Versailles (guaranteed genuine)\nFrom: the game master\n\n"
        "    The Congress opens.\n\n"
        "Release 5\nDateline: Vienna\nFrom: the game master\n\n"
        "    The master may write from anywhere.\n\n"
        "Release 6\nDateline: Munich\nFrom: England\n\n"
        "    Any free dateline will do.\n\n"
    )
    assert [row[1] for row in releases(app)] == ["published"] * 6


def test_the_game_files_master_dateline_is_the_masters(tmp_path: Path) -> None:
    _app, table = make_game(tmp_path, 'master_dateline = "The Hague"\n')
    refused(table, "france@example.org",
            FRANCE + "PRESS PUBLISH\nDATELINE the hague\nNews.\nENDPRESS\n", "PRESS PUBLISH",
            "the dateline the hague is reserved for the game master; choose another "
            "dateline, or none",
            "  | DATELINE the hague\n  | News.\n")  # fmt: skip
    # Versailles is free in this game.
    held(table, "france@example.org",
         FRANCE + "PRESS PUBLISH\nDATELINE Versailles\nNews.\nENDPRESS\n",
         "  dateline: Versailles\n", "2026-11-23 14:05")  # fmt: skip


@pytest.mark.parametrize(
    ("dateline", "owner"),
    [
        ("Vienna", "Austria"),
        ("  VIE  ", "Austria"),
        ("St.P", "Russia"),
        ("st petersburg", "Russia"),
        ("ST. PETERSBURG", "Russia"),
        ("Saint-Petersburg", "Russia"),
        ("Rome", "Italy"),
        ("Italy (Govt)", "Italy"),
        ("ITALY (GOVERNMENT.)", "Italy"),
        ("Ber\u200blin", "Germany"),
        ("Versailles", "master"),
        ("Munich", None),
        ("Romeo", None),
        ("Vi\u0435nna", None),  # a Cyrillic letter: not reserved, and never genuine
        ("", None),
        ("...", None),
    ],
)
def test_reserved_for(dateline: str, owner: str | None) -> None:
    assert reserved_for(dateline, "Versailles") == owner


def test_dateline_key_is_linear_on_long_input() -> None:
    assert dateline_key("St. " * 50_000) == "st" * 50_000


# -- how a release is sent and signed --------------------------------------------------


def test_postalpress_in_a_grey_game_is_published_unsigned(tmp_path: Path) -> None:
    _app, table = make_game(tmp_path, 'press = "grey"\n')
    held(table, "france@example.org",
         FRANCE + "POSTALPRESS\nSomeone is watching Burgundy.\nENDPRESS\n",
         "Press release held for the results of S1901M, to be published to everyone (29 "
         "characters):\n  signed: not signed (grey)\n", "2026-11-23 13:00")  # fmt: skip
    # A grey release under its own capital: the sender is told that the mark names it.
    held(table, "france@example.org",
         FRANCE + "POSTALPRESS\nDATELINE Paris\nParis is calm.\nENDPRESS\n",
         "  dateline: Paris (reserved for you: published as genuine); it tells every reader "
         "that France sent it, grey or not\n", "2026-11-23 13:05")  # fmt: skip
    refused(table, "germany@example.org",
            GERMANY + "PRESS PUBLISH WHITE\nIt was me.\nENDPRESS\n", "PRESS PUBLISH WHITE",
            "game test01 has grey press only: no press names its sender; leave WHITE out",
            "  | It was me.\n")  # fmt: skip
    bodies = results(table)
    assert press_part(bodies["germany@example.org"]) == (
        "Press releases:\n\nRelease 1\n\n    Someone is watching Burgundy.\n\n"
        "Release 2\nDateline: Paris (guaranteed genuine)\n\n    Paris is calm.\n\n"
    )
    assert "france" not in bodies["germany@example.org"].lower().split("press releases")[1]
    assert "France" not in bodies["germany@example.org"].split("Release 1")[1]


def test_a_release_is_refused_grey_in_a_white_game_as_a_press_is(tmp_path: Path) -> None:
    # One rule, one wording: a release asking for what the game's kind refuses is told
    # what a press is told.
    _app, table = make_game(tmp_path, 'press = "white"\n')
    refused(table, "germany@example.org",
            GERMANY + "PRESS PUBLISH GREY\nGuess who.\nENDPRESS\n", "PRESS PUBLISH GREY",
            "game test01 has white press only: every press names its sender; leave GREY out",
            "  | Guess who.\n")  # fmt: skip


def test_a_white_grey_game_signs_as_asked(tmp_path: Path) -> None:
    _app, table = make_game(tmp_path, 'press = "white/grey"\n')
    held(table, "france@example.org",
         FRANCE + "PRESS PUBLISH GREY\nUnsigned.\nENDPRESS\n", "  signed: not signed (grey)\n",
         "2026-11-23 13:00")  # fmt: skip
    held(table, "england@example.org",
         ENGLAND + "PRESS PUBLISH\nSigned.\nENDPRESS\n", "  signed: England (white)\n",
         "2026-11-23 13:01")  # fmt: skip
    bodies = results(table)
    assert press_part(bodies["italy@example.org"]) == (
        "Press releases:\n\nRelease 1\n\n    Unsigned.\n\n"
        "Release 2\nFrom: England\n\n    Signed.\n\n"
    )


def test_a_release_is_refused_in_a_game_without_press_but_the_masters(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, 'press = "none"\n')
    refused(table, "france@example.org",
            FRANCE + "PRESS PUBLISH\nHello.\nENDPRESS\n", "PRESS PUBLISH",
            "game test01 has no press; you may still write to the game master: PRESS TO M",
            "  | Hello.\n")  # fmt: skip
    refused(table, "france@example.org",
            FRANCE + "POSTALPRESS\nHello.\nENDPRESS\n", "POSTALPRESS",
            "game test01 has no press; you may still write to the game master: PRESS TO M",
            "  | Hello.\n")  # fmt: skip
    assert releases(app) == []
    held(table, "gm@example.org", MASTER + "POSTALPRESS\nThe master speaks.\nENDPRESS\n",
         "  signed: from the game master\n", "2026-11-23 14:10")  # fmt: skip
    assert releases(app) == [(None, "held", None, None, None)]


def test_refusals_name_the_reason_and_store_nothing(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, 'press = "fake"\n')
    for line, reason in [
        ("PRESS PUBLISH FAKE AS G",
         "a press release cannot be faked: it is published signed as the game's press "
         "allows; leave out FAKE"),
        ("PRESS TO FG PUBLISH",
         "a press release is published to everyone: write PRESS PUBLISH (or POSTALPRESS) "
         "without TO"),
    ]:  # fmt: skip
        refused(table, "france@example.org", f"{FRANCE}{line}\nHello.\nENDPRESS\n", line,
                reason, "  | Hello.\n")  # fmt: skip
    refused(table, "france@example.org", f"{FRANCE}PRESS PUBLISH\nDATELINE\nHello.\nENDPRESS\n",
            "PRESS PUBLISH",
            "DATELINE: name the place after it, on the release's first line: DATELINE Munich",
            "  | DATELINE\n  | Hello.\n")  # fmt: skip
    refused(table, "france@example.org",
            f"{FRANCE}PRESS PUBLISH\nDATELINE {'x' * 61}\nHello.\nENDPRESS\n",
            "PRESS PUBLISH",
            "DATELINE: a dateline is at most 60 characters long; this one is 61",
            f"  | DATELINE {'x' * 61}\n  | Hello.\n")  # fmt: skip
    refused(table, "france@example.org", f"{FRANCE}PRESS PUBLISH\nDATELINE Nowhere\nENDPRESS\n",
            "PRESS PUBLISH",
            "the press is empty: write its text on the lines after the PRESS line, then "
            "ENDPRESS alone on a line",
            "  | DATELINE Nowhere\n")  # fmt: skip
    assert releases(app) == []


def test_a_release_before_the_game_starts_is_refused(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, start=False)
    table.send("gm@example.org", MASTER + "POSTALPRESS\nSoon.\nENDPRESS\n", "2026-11-23 13:00")
    assert answer(table).body == (
        "Signed on as game master of test01.\n\n"
        "This press was not sent (POSTALPRESS); its text, for you to send again:\n\n"
        "  | Soon.\n\n"
        "> POSTALPRESS\n"
        "Test01 has not started yet: a press release is published with a phase's results; "
        "send it once the game has begun.\n\n"
        "TESTJUDGE\n"
    )
    assert releases(app) == []


def test_a_rollback_leaves_releases_as_they_are(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    held(table, "france@example.org", FRANCE + "PRESS PUBLISH\nFirst.\nENDPRESS\n",
         "  signed: France (white)\n", "2026-11-23 13:00")  # fmt: skip
    results(table)
    held(table, "france@example.org", FRANCE + "PRESS PUBLISH\nSecond.\nENDPRESS\n",
         "  signed: France (white)\n", "2026-11-26 13:00")  # fmt: skip
    table.send("gm@example.org", MASTER + "ROLLBACK S1901M\n", "2026-11-26 14:00")
    table.new_mail()
    assert table.phase() == "S1901M"
    # Published in the phase undone: stays published; held: still held for the next results.
    assert releases(app) == [
        ("France", "published", None, 1, None),
        ("France", "held", None, None, None),
    ]


def test_an_observers_release_in_a_game_of_broadcasts_for_observers(tmp_path: Path) -> None:
    _app, table = make_game(tmp_path, 'observer_press = "broadcast"\n')
    held(table, WATCHER,
         "OBSERVE test01\nPOSTALPRESS\nDATELINE Geneva\nA neutral view.\nENDPRESS\n",
         "  signed: Observer (white)\n  dateline: Geneva\n", "2026-11-23 13:00")  # fmt: skip
    table.send(WATCHER, "OBSERVE test01\nPOSTALPRESS\nDATELINE Rome\nForged.\nENDPRESS\n",
               "2026-11-23 13:05")  # fmt: skip
    assert answer(table).body == (
        "You watch test01 already; you are signed on as its observer.\n\n"
        "This press was not sent (POSTALPRESS); its text, for you to send again:\n\n"
        "  | DATELINE Rome\n  | Forged.\n\n"
        "> POSTALPRESS\n"
        "The dateline Rome is reserved for Italy; choose another dateline, or none.\n\n"
        "TESTJUDGE\n"
    )
    bodies = results(table)
    assert press_part(bodies["italy@example.org"]) == (
        "Press releases:\n\nRelease 1\nDateline: Geneva\nFrom: an observer\n\n"
        "    A neutral view.\n\n"
    )
    assert bodies[WATCHER] == bodies["italy@example.org"]
