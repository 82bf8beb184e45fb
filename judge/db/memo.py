"""When what a transaction remembers of its own reads must be forgotten: the shared rules
of :mod:`judge.db.absent` (what a game holds none of) and :mod:`judge.db.readahead`
(rows read for a page of games).

A memo holds for the transaction that made it.  A statement that writes a table forgets
what was kept from that table (:func:`written_table` tells which); the transaction's own
end forgets everything, and so does any rollback, a savepoint's too, which may bring back
rows deleted since it began.  A savepoint released, or a flush's inner transaction ending,
forgets nothing: what they wrote forgot its tables as it was written.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Table, event
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction

__all__ = ["UNKNOWN", "forget_at_end", "written_table"]

#: :func:`written_table`'s answer for a statement whose table cannot be told.
UNKNOWN = None


def written_table(state: ORMExecuteState) -> str | None:
    """The table an INSERT, UPDATE or DELETE run through the session writes, or
    :data:`UNKNOWN` (a text statement: it may write any)."""
    table = getattr(state.statement, "table", None)
    return table.name if isinstance(table, Table) else UNKNOWN


def forget_at_end(clear: Callable[[Session], None]) -> None:
    """Have ``clear`` called at the end of every session transaction of its own and at
    every rollback (see the module's rules)."""

    @event.listens_for(Session, "after_transaction_end")
    def _at_end(session: Session, transaction: SessionTransaction) -> None:
        if transaction.parent is None:
            clear(session)

    @event.listens_for(Session, "after_soft_rollback")
    def _at_rollback(session: Session, _previous: SessionTransaction) -> None:
        clear(session)
