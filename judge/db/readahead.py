"""Rows read at once for a page of games, handed to each game's queries as they ask.

The deadline loop looks at a page of due games in one transaction
(:func:`judge.runtime.looks.look_page`).  Each look asks the same things of its game: its
players, and its phase's standing orders (besides the phase's record and what the game
holds none of, which :func:`judge.db.queries.read_ahead` reads with these).  Asked game
by game that is a statement each, with its round trip and its ORM work; :func:`keep`
holds what one statement for the whole page found, and :func:`players` and
:func:`orders` hand it out.

What is kept holds for the transaction that read it, and only while the transaction
cannot have changed the answer:

* a game's players, while no player row is added or deleted (a change to a player's
  values is a change to the very objects kept, as a query would hand them back);
* a phase's standing orders, while no order row is written.  A player's power, which
  the orders are given with, never changes once the seat exists.

A write through the session forgets the kind it touches: a flush of such a row, an
INSERT, UPDATE or DELETE statement on its table (a statement whose table cannot be told
forgets everything); a change waiting unflushed makes the kept rows no answer (the query
would flush it and see it).  Commit and rollback forget everything.  As with
:mod:`judge.db.absent`, what other transactions commit meanwhile is seen as if it had
come just after the page was read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session

from judge.db import memo
from judge.db.models import OrderRecord, Player

__all__ = ["keep", "orders", "players"]

#: Where the rows are kept: ``session.info[_KEY]`` is (the transaction, {kind: {key: rows}}).
_KEY = "judge.readahead"

#: Each kind, with the table whose writes forget it.
_TABLES = {"players": Player.__tablename__, "orders": OrderRecord.__tablename__}

#: A standing order as :func:`judge.db.queries.standing_orders` gives it: (power, what it
#: is for, the canonical order).
Standing = tuple[str, str | None, str]


def keep(
    session: Session,
    seats: dict[int, list[Player]],
    standing: dict[tuple[int, int], list[Standing]],
) -> None:
    """Keep, for the session's transaction, each game's players (``seats``, by game id, in
    the order of their ids) and each phase's standing orders (``standing``, by game id and
    phase number, oldest first)."""
    kept = _store(session, create=True)
    assert kept is not None
    kept["players"].update(seats)
    kept["orders"].update(standing)


def players(session: Session, game_id: int) -> list[Player] | None:
    """The game's players as kept (a new list each time), or None: not kept, or no longer
    an answer."""
    kept = _store(session)
    if kept is None or game_id not in kept["players"]:
        return None
    if any(isinstance(obj, Player) for obj in (*session.new, *session.deleted)):
        return None
    return list(kept["players"][game_id])


def orders(session: Session, game_id: int, seq: int) -> list[Standing] | None:
    """The standing orders of the game's phase number ``seq`` as kept, or None."""
    kept = _store(session)
    if kept is None or (game_id, seq) not in kept["orders"]:
        return None
    if any(
        isinstance(obj, OrderRecord) for obj in (*session.new, *session.dirty, *session.deleted)
    ):
        return None
    return list(kept["orders"][(game_id, seq)])


def _store(session: Session, *, create: bool = False) -> dict[str, dict[Any, Any]] | None:
    """What is kept for the session's current transaction (made when ``create``)."""
    transaction = session.get_transaction()
    kept = session.info.get(_KEY)
    if kept is None or kept[0] is not transaction:
        if not create or transaction is None:
            return None
        kept = (transaction, {kind: {} for kind in _TABLES})
        session.info[_KEY] = kept
    return cast(dict[str, dict[Any, Any]], kept[1])


def _forget(session: Session, tables: Iterable[str | None]) -> None:
    """Forget the kinds kept from ``tables`` (None among them: every kind)."""
    kept = session.info.get(_KEY)
    if kept is None:
        return
    touched = set(tables)
    for kind, table in _TABLES.items():
        if None in touched or table in touched:
            kept[1][kind].clear()


@event.listens_for(Session, "before_flush")
def _forget_flushed(session: Session, _context: object, _instances: object) -> None:
    if session.info.get(_KEY) is None:
        return
    # A player's changed values are the kept objects' own: only rows added or deleted.
    tables = {getattr(obj, "__tablename__", None) for obj in (*session.new, *session.deleted)}
    tables |= {OrderRecord.__tablename__ for obj in session.dirty if isinstance(obj, OrderRecord)}
    _forget(session, tables)


@event.listens_for(Session, "do_orm_execute")
def _forget_written(state: ORMExecuteState) -> None:
    if state.is_select or state.session.info.get(_KEY) is None:
        return
    _forget(state.session, [memo.written_table(state)])


def _clear(session: Session) -> None:
    session.info.pop(_KEY, None)


memo.forget_at_end(_clear)
