"""Orders sent ahead: the ``PHASE`` blocks' orders for a later phase and, in a two-season
game, the season's retreats and adjustments, kept in ``future_orders`` (one row an order
line or one IF block) until their phase begins.

Stub of the lead's base commit: the intake half (``add``, ``clear``, ``pending``) and the
processing half (``due``, ``retire``) are filled in by their owners.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from judge.db.models import FutureOrder, Game, Player

__all__ = [
    "add", "clear", "drop", "due", "pending", "pending_in_game", "put_back", "retire",
]  # fmt: skip


def add(
    session: Session,
    game: Game,
    player: Player,
    phase: str,
    lines: Sequence[str],
    inbound_id: int | None,
    now: datetime,
) -> FutureOrder:
    """Keep ``lines`` (one order line, or one IF block's lines) for ``phase`` (a phase
    code), after the player's earlier ones for it."""
    row = FutureOrder(
        game_id=game.id, player_id=player.id, phase=phase, lines=list(lines),
        active=True, inbound_id=inbound_id, created_at=now,
    )  # fmt: skip
    session.add(row)
    return row


def clear(session: Session, game: Game, player: Player, phase: str) -> int:
    """Retire the player's pending orders for ``phase``; how many there were."""
    rows = session.scalars(
        select(FutureOrder).where(
            FutureOrder.game_id == game.id,
            FutureOrder.player_id == player.id,
            FutureOrder.phase == phase,
            FutureOrder.active.is_(True),
        )
    ).all()
    for row in rows:
        row.active = False
    return len(rows)


def drop(session: Session, game: Game, player: Player) -> int:
    """Retire the player's pending orders of every phase (the seat taken over by a new
    player, or its player ejected: the orders are the old player's, never the seat's);
    how many there were."""
    rows = pending(session, game, player)
    for row in rows:
        row.active = False
    return len(rows)


def pending(session: Session, game: Game, player: Player) -> list[FutureOrder]:
    """The player's pending rows of every phase, oldest first."""
    return list(
        session.scalars(
            select(FutureOrder)
            .where(
                FutureOrder.game_id == game.id,
                FutureOrder.player_id == player.id,
                FutureOrder.active.is_(True),
            )
            .order_by(FutureOrder.id)
        )
    )


def due(session: Session, game: Game, phase: str) -> list[FutureOrder]:
    """Every player's pending rows for ``phase``, oldest first."""
    return list(
        session.scalars(
            select(FutureOrder)
            .where(
                FutureOrder.game_id == game.id,
                FutureOrder.phase == phase,
                FutureOrder.active.is_(True),
            )
            .order_by(FutureOrder.id)
        )
    )


def retire(session: Session, game: Game, phases: Sequence[str]) -> None:
    """Retire every pending row of ``phases`` (applied, or the phases will not happen)."""
    if phases:
        session.execute(
            update(FutureOrder)
            .where(FutureOrder.game_id == game.id, FutureOrder.phase.in_(list(phases)))
            .values(active=False)
        )


def pending_in_game(session: Session, game: Game) -> list[FutureOrder]:
    """Every player's pending rows of every phase of ``game``, oldest first: what a phase
    beginning looks through for its own rows and for those of phases now past."""
    return list(
        session.scalars(
            select(FutureOrder)
            .where(FutureOrder.game_id == game.id, FutureOrder.active.is_(True))
            .order_by(FutureOrder.id)
        )
    )


def put_back(session: Session, game: Game, retired: Sequence[int], processed_at: datetime) -> None:
    """For a ROLLBACK to a phase processed at ``processed_at``: the rows as they stood
    then.  The rows processing retired since (``retired``, their ids, as each phase's
    results keep them) are pending again, and those sent after it (in phases now
    undone, like those phases' orders) retire.  A row a player CLEARed stays cleared."""
    again = set(retired)
    rows = session.scalars(select(FutureOrder).where(FutureOrder.game_id == game.id))
    for row in rows:
        if row.created_at > processed_at:
            row.active = False
        elif row.id in again:
            row.active = True
