"""Orders sent ahead: the ``PHASE`` blocks' orders for a later phase and, in a two-season
game, the season's retreats and adjustments, kept in ``future_orders`` (one row an order
line or one IF block) until their phase begins.

The intake keeps them (``add``, ``clear``; ``pending`` for the confirmation,
:mod:`judge.services.orders_ahead`); processing takes them when their phase begins
(``due`` for a two-season season, :mod:`judge.services.seasons`; ``pending_in_game`` for
a standard game's next phase, :mod:`judge.services.ahead`) and ``retire``s them, used or
not.  A retired row stays in the table (``active`` false), never deleted.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import FutureOrder, Game, Player

__all__ = [
    "MAX_KEPT_LINES",
    "add",
    "clear",
    "drop",
    "due",
    "keepers",
    "keeps",
    "kept_lines",
    "pending",
    "pending_in_game",
    "put_back",
    "retire",
    "room_refusal",
]

#: The most lines of orders (an order line one, an IF block its lines) a player may keep
#: sent ahead in one game: every order of five years' phases for a large power fits, and
#: every confirmation, which lists them all, stays bounded.
MAX_KEPT_LINES = 400


def add(
    session: Session,
    game: Game,
    player: Player,
    phase: str,
    lines: Sequence[str],
    inbound_id: int | None,
    now: datetime,
    *,
    cache: dict[int, set[int]] | None = None,
) -> FutureOrder:
    """Keep ``lines`` (one order line, or one IF block's lines) for ``phase`` (a phase
    code), after the player's earlier ones for it."""
    row = FutureOrder(
        game_id=game.id, player_id=player.id, phase=phase, lines=list(lines),
        active=True, inbound_id=inbound_id, created_at=now,
    )  # fmt: skip
    session.add(row)
    if cache is not None:
        keeps(cache, session, game, player)
        cache[game.id].add(player.id)
    return row


def clear(session: Session, game: Game, player: Player, phase: str) -> int:
    """Retire the player's pending orders for ``phase``; how many there were."""
    rows = queries.active_future_orders(session, game.id, player_id=player.id, phase=phase)
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


def keepers(session: Session, game: Game) -> set[int]:
    """The players (``Player.id``) who keep orders sent ahead in ``game``.  Read without
    flushing the session first: the rows a transaction adds, its callers note
    themselves (:attr:`~judge.services.unit_of_work.UnitOfWork.ahead`)."""
    with session.no_autoflush:
        return queries.future_order_keepers(session, game.id)


def keeps(cache: dict[int, set[int]], session: Session, game: Game, player: Player) -> bool:
    """Whether ``player`` keeps orders sent ahead in ``game``, by ``cache`` (a
    transaction's :attr:`~judge.services.unit_of_work.UnitOfWork.ahead`, filled from
    :func:`keepers` once per game): False means none for certain, True maybe some."""
    if game.id not in cache:
        cache[game.id] = keepers(session, game)
    return player.id in cache[game.id]


def pending(session: Session, game: Game, player: Player) -> list[FutureOrder]:
    """The player's pending rows of every phase, oldest first."""
    return queries.active_future_orders(session, game.id, player_id=player.id)


def due(session: Session, game: Game, phase: str) -> list[FutureOrder]:
    """Every player's pending rows for ``phase``, oldest first."""
    return queries.active_future_orders(session, game.id, phase=phase)


def retire(session: Session, game: Game, phases: Sequence[str]) -> None:
    """Retire every pending row of ``phases`` (applied, or the phases will not happen)."""
    if phases:
        queries.retire_future_orders(session, game.id, phases)


def pending_in_game(session: Session, game: Game) -> list[FutureOrder]:
    """Every player's pending rows of every phase of ``game``, oldest first: what a phase
    beginning looks through for its own rows and for those of phases now past."""
    return queries.active_future_orders(session, game.id)


def kept_lines(session: Session, game: Game, player: Player) -> int:
    """How many lines of orders the player keeps sent ahead in ``game`` (pending rows)."""
    return sum(len(row.lines) for row in pending(session, game, player))


def room_refusal(game: Game, kept: int, adding: int) -> str | None:
    """Why ``adding`` more lines may not be kept when the player keeps ``kept`` lines
    in ``game`` (None: there is room, see :data:`MAX_KEPT_LINES`)."""
    if kept + adding <= MAX_KEPT_LINES:
        return None
    return (
        f"you keep {kept} lines of orders sent ahead in game {game.name}; at most "
        f"{MAX_KEPT_LINES} are kept, so this was not: send CLEAR after a PHASE line to "
        "drop that phase's and make room"
    )


def put_back(session: Session, game: Game, retired: Sequence[int], processed_at: datetime) -> None:
    """For a ROLLBACK to a phase processed at ``processed_at``: the rows as they stood
    then.  The rows processing retired since (``retired``, their ids, as each phase's
    results keep them) are pending again, and those sent after it (in phases now
    undone, like those phases' orders) retire.  A row a player CLEARed stays cleared."""
    again = set(retired)
    for row in queries.future_orders_of(session, game.id):
        if row.created_at > processed_at:
            row.active = False
        elif row.id in again:
            row.active = True
