"""What a transaction knows a game holds none of, asked in one statement.

Processing a phase asks the database for five kinds of rows that most games hold none of
at most deadlines: standing draw or concession votes, orders sent ahead, press releases
held for the results, observers, and orders for the phase about to begin.  Asked one by
one that is five statements a look at a due game, each with its round trip and, through
the ORM, more of the judge's CPU than the adjudication itself; a burst of thousands of
games is mostly that.  :func:`learn` asks all five at once, under the game's row lock,
and the queries that read those rows (:mod:`judge.db.queries`) answer "none" from it
without a statement.

A fact holds for the transaction that learnt it and only while the transaction writes
no row of its table: every flush of such a row, and every INSERT, UPDATE or DELETE
statement on the table run through the session, forgets it (and a statement whose table
cannot be told forgets them all), as commit and rollback forget everything.  So a fact
is never older than what the transaction itself did; what other transactions commit
meanwhile is seen as if it had come just after the fact was learnt, as any read under
READ COMMITTED sees a write that commits after it.

Only what goes through the session is seen: a statement run on ``session.connection()``
directly (as :func:`judge.db.queries.mark_sent` does, on the outbox) bypasses the
session's events, so a write to one of :data:`KINDS`' tables must not be made that way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import BindParameter, and_, bindparam, event, exists, select
from sqlalchemy.orm import ORMExecuteState, Session

from judge.db import memo
from judge.db.models import (
    FutureOrder,
    Game,
    Observer,
    OrderRecord,
    PressRecord,
    PressState,
    VoteRecord,
)

__all__ = ["KINDS", "forget", "known_none", "learn", "learn_many", "no_orders_after"]

#: The kinds of rows, each with the table whose writes forget it.
KINDS: dict[str, str] = {
    "votes": VoteRecord.__tablename__,
    "ahead": FutureOrder.__tablename__,
    "held_releases": PressRecord.__tablename__,
    "observers": Observer.__tablename__,
    "orders_after": OrderRecord.__tablename__,
}

#: Where the facts are kept: ``session.info[_KEY][(kind, game_id)]`` (for
#: ``"orders_after"`` the phase's number after which there is none; else True).
_KEY = "judge.absent"
#: The games the transaction asked about, and at which phase's number:
#: ``session.info[_LEARNT][game_id]``.  A fact forgotten since is only no answer (the
#: query is made): learning again would tell nothing the transaction's own writes did not.
_LEARNT = "judge.absent.learnt"

_GAME: BindParameter[int] = bindparam("game_id")
_LEARN = select(
    ~exists().where(VoteRecord.game_id == _GAME),
    ~exists().where(FutureOrder.game_id == _GAME, FutureOrder.active.is_(True)),
    ~exists().where(
        PressRecord.game_id == _GAME,
        PressRecord.release.is_(True),
        PressRecord.state == PressState.HELD,
    ),
    ~exists().where(Observer.game_id == _GAME),
    ~exists().where(and_(OrderRecord.game_id == _GAME, OrderRecord.seq > bindparam("seq"))),
)


_LEARN_MANY = select(
    Game.id,
    Game.seq,
    ~exists().where(VoteRecord.game_id == Game.id),
    ~exists().where(FutureOrder.game_id == Game.id, FutureOrder.active.is_(True)),
    ~exists().where(
        PressRecord.game_id == Game.id,
        PressRecord.release.is_(True),
        PressRecord.state == PressState.HELD,
    ),
    ~exists().where(Observer.game_id == Game.id),
    ~exists().where(and_(OrderRecord.game_id == Game.id, OrderRecord.seq > Game.seq)),
).where(Game.id.in_(bindparam("game_ids", expanding=True)))


def learn(session: Session, game_id: int, seq: int) -> None:
    """Learn which of :data:`KINDS` the game ``game_id`` holds none of, its phase being
    number ``seq`` (``"orders_after"``: no order for a later phase), in one statement;
    nothing when the transaction learnt it already (:func:`learn_many`).  The caller
    holds the game's row lock."""
    if session.info.get(_LEARNT, {}).get(game_id) == seq:
        return
    row = session.execute(_LEARN, {"game_id": game_id, "seq": seq}).one()
    _keep(session, game_id, seq, row)


def learn_many(session: Session, game_ids: Sequence[int]) -> None:
    """:func:`learn` for each of the games ``game_ids``, at the phase each is at, in one
    statement.  The caller holds the games' row locks (and read them in this
    transaction, so that their phases are the ones it has)."""
    for game_id, seq, *row in session.execute(_LEARN_MANY, {"game_ids": list(game_ids)}):
        _keep(session, game_id, seq, row)


def _keep(session: Session, game_id: int, seq: int, nones: Sequence[bool]) -> None:
    """Keep what the game holds none of at its phase ``seq`` (``nones``, one a kind)."""
    facts: dict[tuple[str, int], Any] = session.info.setdefault(_KEY, {})
    for kind, none in zip(KINDS, nones, strict=True):
        if none:
            facts[(kind, game_id)] = seq if kind == "orders_after" else True
    session.info.setdefault(_LEARNT, {})[game_id] = seq


def known_none(session: Session, kind: str, game_id: int) -> bool:
    """Whether the transaction knows the game holds no row of ``kind``."""
    facts = session.info.get(_KEY)
    if not facts or (kind, game_id) not in facts:
        return False
    return not _pending(session, KINDS[kind])


def no_orders_after(session: Session, game_id: int, seq: int) -> bool:
    """Whether the transaction knows the game holds no order for phase number ``seq``
    (it knows none for any phase after the one it learnt at)."""
    facts = session.info.get(_KEY)
    if not facts:
        return False
    after = facts.get(("orders_after", game_id))
    return after is not None and seq > after and not _pending(session, KINDS["orders_after"])


def _pending(session: Session, table: str) -> bool:
    """Whether the session holds a change to a row of ``table`` not yet flushed: the
    query the fact stands for would flush it and see it (its autoflush), so the fact is
    no answer (and is forgotten at that flush)."""
    return any(
        getattr(obj, "__tablename__", None) == table
        for obj in (*session.new, *session.dirty, *session.deleted)
    )


def forget(session: Session, table: str | None = None) -> None:
    """Forget what is known of ``table``'s rows (None: of everything)."""
    facts = session.info.get(_KEY)
    if not facts:
        return
    if table is None:
        facts.clear()
        return
    for key in [key for key in facts if KINDS[key[0]] == table]:
        del facts[key]


@event.listens_for(Session, "before_flush")
def _forget_flushed(session: Session, _context: object, _instances: object) -> None:
    if not session.info.get(_KEY):
        return
    for table in {
        getattr(obj, "__tablename__", None)
        for obj in (*session.new, *session.dirty, *session.deleted)
    }:
        forget(session, table)


@event.listens_for(Session, "do_orm_execute")
def _forget_written(state: ORMExecuteState) -> None:
    session = state.session
    if not session.info.get(_KEY) or state.is_select:
        return
    forget(session, memo.written_table(state))


def _clear(session: Session) -> None:
    facts = session.info.get(_KEY)
    if facts:
        facts.clear()
    learnt = session.info.get(_LEARNT)
    if learnt:
        learnt.clear()


memo.forget_at_end(_clear)
