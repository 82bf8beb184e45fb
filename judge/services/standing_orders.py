"""The standing orders of the phase being played: each player's active orders as one
transaction sees them, read from the database once per phase, changed in memory as
messages give and clear orders, and written together before the commit."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game, Player
from judge.engine.errors import OrderError


@dataclass
class NewOrder:
    """An order row given in this transaction, not written yet (``OrderRecord``'s
    columns); ``active`` turns False when a later order for the same unit replaces it."""

    game_id: int
    seq: int
    player_id: int
    unit: str | None
    raw: str
    canonical: str | None
    error_code: str | None
    error: str | None
    active: bool
    inbound_id: int | None
    created_at: datetime

    def columns(self) -> dict[str, object]:
        """The row's column values, for the one statement that writes a batch's rows."""
        return asdict(self)


@dataclass
class ActiveOrder:
    """An active order as a message's confirmation lists it: what it is for (see
    ``OrderRecord.unit``) and its canonical text; ``new``: the row while the transaction
    has not written it yet."""

    unit: str | None
    canonical: str | None
    new: NewOrder | None = None


@dataclass
class _Writes:
    """The order rows changed and not yet written: SQLite cannot insert many rows at once
    and tell the ORM each one's id, so the rows are written without the ORM, and retired
    by what they are for rather than by id."""

    #: The new rows, oldest first.
    new: list[NewOrder] = field(default_factory=list)
    #: The rows already stored to retire, by (game, seq, player, unit).
    retire: list[tuple[int, int, int, str]] = field(default_factory=list)
    #: The (game, seq, player) whose stored rows all retire (CLEAR).
    clear: list[tuple[int, int, int]] = field(default_factory=list)


class StandingOrders:
    """The active orders of each player in the phases one transaction touches.

    A phase's orders are read for all its players at once (the next message is likely
    another player's); every change in the transaction goes through these lists, and
    :meth:`write` writes the changes (the retirements first, so that they cannot touch
    the rows written after them) before anything reads orders from the database.
    """

    def __init__(self) -> None:
        self._lists: dict[tuple[int, int, int], list[ActiveOrder]] = {}
        self._phases: set[tuple[int, int]] = set()
        self._writes = _Writes()

    def of(self, session: Session, game: Game, player: Player) -> list[ActiveOrder]:
        """The player's active orders for the current phase, oldest first (the list
        itself: callers change it only through :meth:`retire` and :meth:`add`)."""
        key = (game.id, game.seq, player.id)
        rows = self._lists.get(key)
        if rows is None:
            phase = (game.id, game.seq)
            if phase not in self._phases:
                self._phases.add(phase)
                for player_id, unit, canonical in queries.active_order_rows(
                    session, game.id, game.seq
                ):
                    self._lists.setdefault((*phase, player_id), []).append(
                        ActiveOrder(unit, canonical)
                    )
            rows = self._lists.setdefault(key, [])
        return rows

    def retire(self, session: Session, game: Game, player: Player, key: str | None) -> None:
        """Retire the active order for unit ``key`` (all of them when ``key`` is None)."""
        rows = self.of(session, game, player)
        retired = [row for row in rows if key is None or row.unit == key]
        if not retired:
            return
        rows[:] = [row for row in rows if not (key is None or row.unit == key)]
        for order in retired:
            if order.new is not None:  # not written yet: it will be written retired
                order.new.active = False
        owner = (game.id, game.seq, player.id)
        if key is None:
            self._writes.clear.append(owner)
        else:
            self._writes.retire.append((*owner, key))

    def add(
        self,
        session: Session,
        game: Game,
        player: Player,
        key: str | None,
        text: str,
        canonical: str | None,
        error: OrderError | None,
        *,
        inbound_id: int | None,
        now: datetime,
    ) -> None:
        """Record an order line of ``player``: ``canonical`` (active, for unit ``key``)
        or, refused, ``error``; both are kept as the player wrote them (``text``)."""
        row = NewOrder(
            game_id=game.id,
            seq=game.seq,
            player_id=player.id,
            unit=key,
            raw=text,
            canonical=canonical,
            error_code=error.code if error else None,
            error=error.message if error else None,
            active=canonical is not None,
            inbound_id=inbound_id,
            created_at=now,
        )
        self._writes.new.append(row)
        if canonical is not None:
            self.of(session, game, player).append(ActiveOrder(key, canonical, row))

    def forget(self, game_id: int) -> None:
        """Drop what was read of ``game_id``'s orders, to be read again: a ROLLBACK
        changed which phases it has.  The changes must have been written first."""
        assert not any(row.game_id == game_id for row in self._writes.new)
        self._lists = {key: rows for key, rows in self._lists.items() if key[0] != game_id}
        self._phases = {phase for phase in self._phases if phase[0] != game_id}

    def write(self, session: Session) -> None:
        """Write the changes made so far."""
        writes, self._writes = self._writes, _Writes()
        queries.clear_orders(session, writes.clear)
        queries.retire_orders(session, writes.retire)
        queries.insert_orders(session, [row.columns() for row in writes.new])
