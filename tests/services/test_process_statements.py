"""Processing a game's phase asks the database a fixed, small number of things: the
players are loaded once and handed down, the results go to the outbox in one statement,
and nothing is flushed early only to be written again (issue 18, part 2)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.orm import Session
from support.servicekit import GAME_FILE, at, make_app

from judge.db import queries
from judge.runtime.bootstrap import App
from judge.services.game_files import load_game
from judge.services.games import process_game, start_game

#: Every statement of processing test01 (without the map pictures, whose drawing is not
#: this test's business) in Spring 1901 at its deadline, no orders in, and of its commit,
#: as (verb, table); the eight results mails (seven players and the master) are one INSERT.
EXPECTED = [
    ("SELECT", "games"),
    ("SELECT", "phases"),  # once: the endgame's look at the votes has it remembered
    # What the game holds none of, in one statement (judge.db.absent): no votes, no
    # orders sent ahead, no release held, no observer, no order for the next phase.
    ("SELECT", "absent"),
    ("SELECT", "orders"),
    ("SELECT", "players"),  # once, for the whole processing and its mail
    ("INSERT", "outbox"),
    # No query on the way needed what processing changed: one flush, at the commit.
    ("UPDATE", "games"),
    ("UPDATE", "phases"),  # the results written once, not twice
    ("INSERT", "phases"),
    ("UPDATE", "players"),  # missed phases, one executemany
]


def _what(statement: str) -> tuple[str, str]:
    words = statement.split()
    verb = words[0].upper()
    if statement.startswith("SELECT NOT (EXISTS"):
        return verb, "absent"
    if verb == "SELECT":
        table = words[words.index("FROM") + 1]
    elif verb == "INSERT":
        table = words[2]
    else:
        table = words[1]
    return verb, table.strip('"')


def started_without_maps(tmp_path: Path) -> App:
    """test01 started, with ``maps = false``."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(
        GAME_FILE.replace(
            'timezone = "Europe/London"\n', 'timezone = "Europe/London"\nmaps = false\n'
        )
    )
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    return app


@contextmanager
def statements(session: Session) -> Iterator[list[tuple[str, str, bool]]]:
    """Every statement the session's engine executes meanwhile: verb, table, and whether
    it was one executemany."""
    seen: list[tuple[str, str, bool]] = []
    engine = session.get_bind()

    def listen(_conn: object, _cursor: object, statement: str, _params: object,
               _context: object, executemany: bool) -> None:  # fmt: skip
        seen.append((*_what(statement), executemany))

    event.listen(engine, "before_cursor_execute", listen)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", listen)


def test_processing_a_phase_issues_a_fixed_set_of_statements(tmp_path: Path) -> None:
    app = started_without_maps(tmp_path)
    with app.sessions() as session, statements(session) as seen, session.begin():
        outcome = process_game(session, app.judge, "test01", at("2026-11-25 21:00"))
    assert outcome is not None
    assert [(verb, table) for verb, table, _many in seen] == EXPECTED
    assert len(seen) == 10
    # The results to the seven players and the master: one executemany.
    assert [many for verb, table, many in seen if table == "outbox"] == [True]


def test_a_remembered_phase_record_is_never_one_deleted_or_of_another_transaction(
    tmp_path: Path,
) -> None:
    """The current record is remembered for the transaction only, and not once deleted."""
    app = started_without_maps(tmp_path)
    with app.sessions() as session:
        session.begin()
        record = queries.phase_record(session, 1, 1)
        assert record is not None
        with statements(session) as seen:
            assert queries.phase_record(session, 1, 1) is record
        assert seen == []
        session.delete(record)
        assert queries.phase_record(session, 1, 1) is None  # flushed, then asked
        session.rollback()
        with session.begin(), statements(session) as seen:
            assert queries.phase_record(session, 1, 1) is not None
        assert [(verb, table) for verb, table, _many in seen] == [("SELECT", "phases")]
    with app.sessions() as session, session.begin():
        record = queries.phase_record(session, 1, 1)
        assert record is not None
        savepoint = session.begin_nested()
        session.delete(record)
        assert queries.phase_record(session, 1, 1) is None
        savepoint.rollback()
        assert queries.phase_record(session, 1, 1) is record


def test_a_game_locked_by_the_caller_is_not_read_again(tmp_path: Path) -> None:
    """The deadline loop's look has the game's row locked and read afresh already: it
    hands the game down, and processing does not ask for it a second time."""
    app = started_without_maps(tmp_path)
    with app.sessions() as session, statements(session) as seen, session.begin():
        game = queries.locked_game(session, 1)
        assert game is not None
        outcome = process_game(
            session, app.judge, "test01", at("2026-11-25 21:00"), phase=game.phase,
            locked=game,
        )  # fmt: skip
    assert outcome is not None
    assert [(verb, table) for verb, table, _many in seen] == EXPECTED
    assert game.seq == 2  # the game handed down is the one processed


def test_a_phase_without_orders_is_found_not_due_early_in_one_statement(tmp_path: Path) -> None:
    """A phase just begun (every game of a deadline burst, as its look settles its next
    moment) has no order and a deadline: it is not due early, whoever waits or votes,
    and one read says so."""
    from judge.services.games import early_moment

    app = started_without_maps(tmp_path)
    with app.sessions() as session, session.begin(), statements(session) as seen:
        game = queries.locked_game(session, 1)
        assert game is not None
        assert early_moment(session, game) is None
    assert [(verb, table) for verb, table, _many in seen] == [
        ("SELECT", "games"),
        ("SELECT", "orders"),
    ]
