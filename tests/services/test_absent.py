"""What a transaction knows a game holds none of (``judge.db.absent``): learnt in one
statement, answered without one, and forgotten as soon as the transaction writes a row
of its kind, by the ORM or by a statement, and at the transaction's end."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import delete, insert, text, update
from support.servicekit import player, started_game
from test_process_statements import statements

from judge.db import absent, queries
from judge.db.models import FutureOrder, Observer, OrderRecord, VoteRecord


def test_what_is_learnt_is_answered_without_a_statement(tmp_path: Path, db_url: str) -> None:
    app, _table = started_game(tmp_path, db_url)
    with app.sessions() as session, session.begin():
        absent.learn(session, 1, 1)
        with statements(session) as seen:
            assert queries.votes_of(session, 1) == []
            assert queries.active_future_orders(session, 1) == []
            assert queries.active_future_orders(session, 1, phase="F1901M") == []
            assert queries.future_order_keepers(session, 1) == set()
            assert queries.held_releases(session, 1) == []
            assert queries.observers_of(session, 1) == []
            assert queries.last_order_at(session, 1, 2) is None
            # Of the phase it was learnt at: asked (its orders are not known).
            assert queries.last_order_at(session, 1, 1) is None
        assert seen == [("SELECT", "orders", False)]
        # Of another game: nothing known.
        assert not absent.known_none(session, "votes", 2)


def test_a_row_flushed_by_the_orm_forgets_its_kind_only(tmp_path: Path, db_url: str) -> None:
    app, _table = started_game(tmp_path, db_url)
    with app.sessions() as session, session.begin():
        absent.learn(session, 1, 1)
        session.add(VoteRecord(game_id=1, power="England", kind="draw"))
        session.flush()
        assert [vote.power for vote in queries.votes_of(session, 1)] == ["England"]
        # The flush's own inner transaction ended: the other kinds are still known.
        assert absent.known_none(session, "observers", 1)
        session.add(Observer(game_id=1, address="watcher@example.org"))
        # Asked before any flush: the query's own autoflush writes it, then it is read.
        assert [o.address for o in queries.observers_of(session, 1)] == ["watcher@example.org"]


def test_a_statement_writing_a_table_forgets_its_kind(tmp_path: Path, db_url: str) -> None:
    app, _table = started_game(tmp_path, db_url)
    england = player(app, "England").id
    with app.sessions() as session, session.begin():
        absent.learn(session, 1, 1)
        session.execute(
            insert(FutureOrder).values(
                game_id=1, player_id=england, phase="F1901M", lines=["A lvp-yor"]
            )
        )
        assert [row.lines for row in queries.active_future_orders(session, 1)] == [["A lvp-yor"]]
        assert queries.future_order_keepers(session, 1) == {england}
        assert absent.known_none(session, "votes", 1)
        # An UPDATE of the ORM's entity names its table too.
        session.execute(update(VoteRecord).where(VoteRecord.game_id == 1).values(powers=None))
        assert not absent.known_none(session, "votes", 1)
        assert absent.known_none(session, "observers", 1)
        # A statement whose table cannot be told forgets everything.
        session.execute(text("UPDATE observers SET timezone = NULL WHERE game_id = 1"))
        assert not absent.known_none(session, "observers", 1)
        assert not absent.known_none(session, "held_releases", 1)


def test_an_order_for_the_next_phase_forgets_that_there_is_none(
    tmp_path: Path, db_url: str
) -> None:
    app, _table = started_game(tmp_path, db_url)
    england = player(app, "England").id
    with app.sessions() as session, session.begin():
        absent.learn(session, 1, 1)
        assert absent.no_orders_after(session, 1, 1 + 1)
        session.add(
            OrderRecord(game_id=1, seq=2, player_id=england, raw="A lvp-yor", canonical="A LVP-YOR")
        )
        assert queries.last_order_at(session, 1, 2) is not None


def test_facts_end_with_their_transaction(tmp_path: Path, db_url: str) -> None:
    app, _table = started_game(tmp_path, db_url)
    with app.sessions() as session:
        with session.begin():
            absent.learn(session, 1, 1)
            assert absent.known_none(session, "votes", 1)
        assert not absent.known_none(session, "votes", 1)
        with session.begin():
            absent.learn(session, 1, 1)
            session.rollback()
        assert not absent.known_none(session, "votes", 1)
        with session.begin():
            absent.learn(session, 1, 1)
            with session.begin_nested() as savepoint:
                savepoint.rollback()
            # What the savepoint did is undone with it, and what it forgot cannot be told.
            assert not absent.known_none(session, "votes", 1)


def test_a_savepoint_released_keeps_what_is_known_and_one_rolled_back_forgets_it(
    tmp_path: Path, db_url: str
) -> None:
    app, _table = started_game(tmp_path, db_url)
    with app.sessions() as session, session.begin():
        session.add(VoteRecord(game_id=1, power="England", kind="draw"))
    with app.sessions() as session, session.begin():
        absent.learn(session, 1, 1)
        with session.begin_nested():
            session.add(Observer(game_id=1, address="watcher@example.org"))
        # Released: what it wrote forgot its own kind only.
        assert not absent.known_none(session, "observers", 1)
        assert absent.known_none(session, "ahead", 1)
        assert absent.known_none(session, "held_releases", 1)
        assert absent.no_orders_after(session, 1, 2)
        with session.begin_nested() as savepoint:
            session.execute(delete(VoteRecord).where(VoteRecord.game_id == 1))
            absent.learn_many(session, [1])  # learn() would not ask again at this phase
            assert absent.known_none(session, "votes", 1)
            savepoint.rollback()
        # The vote deleted in the savepoint is back: "no votes" is no longer known.
        assert not absent.known_none(session, "votes", 1)
        assert [vote.power for vote in queries.votes_of(session, 1)] == ["England"]
