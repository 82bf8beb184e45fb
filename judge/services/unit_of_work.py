"""The unit of work of a batch of messages processed in one transaction: what its messages
look up again and again, and the rows they change, written together before the commit."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game, Player, SignonGuard
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.mail.decode import (
    IncomingMail,
)
from judge.services.outbox import insert_outbox
from judge.services.passwords import Verdicts
from judge.services.standing_orders import StandingOrders


@dataclass
class CopyLog:
    """The copies queued to one registered address in the last hour (see
    :data:`~judge.services.confirmation.MAX_COPIES_PER_HOUR`)."""

    times: list[datetime] = field(default_factory=list)
    held_notice: bool = False


@dataclass
class UnitOfWork:
    """The unit of work of one transaction of processing: what its messages look up again
    and again, and the rows they change, written by :func:`write_changes`.

    Only values that stay right for the whole transaction are kept: a position is filed
    under its game's phase counter, and the ORM objects are the session's own.
    """

    games: dict[str, Game | None] = field(default_factory=dict)
    #: The players of the games in ``player_games``, all read at once, by (game, power).
    players: dict[tuple[int, str], Player] = field(default_factory=dict)
    player_games: set[int] = field(default_factory=set)
    positions: dict[tuple[int, int], Position] = field(default_factory=dict)
    rules: dict[int, Rules] = field(default_factory=dict)
    #: The standing orders of the phases the transaction touches, and their changes.
    orders: StandingOrders = field(default_factory=StandingOrders)
    #: Replies queued (outbox rows, see ``queue_mail``'s ``into``), written with the
    #: order rows: one statement for a batch's replies too.
    outbox: list[dict[str, object]] = field(default_factory=list)
    #: Replies to an address in the last hour, by kind (the reply rations), once counted.
    replies: dict[str, dict[str, int]] = field(default_factory=dict)
    #: The messages of the transaction decoded before it began, by inbound id.
    decoded: dict[int, IncomingMail] = field(default_factory=dict)
    #: The sign-on guards of the games in ``guard_games``, by (game, seat, registered).
    guards: dict[tuple[int, str, bool], SignonGuard] = field(default_factory=dict)
    guard_games: set[int] = field(default_factory=set)
    #: Copies to a registered address in the last hour (the copy ration), once read: when
    #: each was queued, and whether the "held back" notice went.
    copies: dict[str, CopyLog] = field(default_factory=dict)
    #: By game, the players who keep orders sent ahead (``future_orders``), read once a
    #: transaction: a confirmation lists them, and most players keep none, so most
    #: confirmations need not ask.  A player who sends some is added as they are kept.
    ahead: dict[int, set[int]] = field(default_factory=dict)
    #: The passwords of the transaction's sign-ons checked before it began
    #: (:mod:`judge.services.preverify`), so that argon2 does not run while it writes.
    verdicts: Verdicts = field(default_factory=Verdicts)

    def forget_phases(self, game: Game) -> None:
        """Forget the positions and orders read of ``game``'s phases (a ROLLBACK removed
        some, and the same numbers will be played again); write the changes first."""
        self.positions = {key: pos for key, pos in self.positions.items() if key[0] != game.id}
        self.orders.forget(game.id)
        # A ROLLBACK puts orders sent ahead back: who keeps some is read again.
        self.ahead.pop(game.id, None)


def write_changes(session: Session, work: UnitOfWork) -> None:
    """Write the order rows the transaction changed so far, and the replies it queued
    (one statement each), before anything reads them from the database."""
    work.orders.write(session)
    outbox, work.outbox = work.outbox, []
    insert_outbox(session, outbox)
