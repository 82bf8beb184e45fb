"""Deadline notices: a private reminder before the deadline, late notices during grace.

House rules ask the judge to "remind all players once or twice before the deadline"
(NMRs ruin games), and players expect to hear when they are late and who is holding the
game up.  Two services, both run by the deadline loop with its clock's ``now``:

- :func:`send_reminders`: ``remind`` hours before the deadline (a per-phase deadline
  setting), each active player who still owes orders gets their current orders and what
  is missing;
- :func:`send_late_notices`: once the deadline has passed and the phase waits out its
  grace, each late player is told when the phase will go ahead without them, and every
  other player who (or, in an anonymous game, how many) is late; again at the start of
  each further day of grace.

Every notice is recorded in ``notices`` in the same transaction as its mail, under a
unique key (game, phase, kind, player, day), so a second run at the same moment, a double
fire of the scheduler or a retry after a crash sends nothing twice.  A run that misses a
moment (the judge was down) sends only what is due now: no stale "day 0" notice on day 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game, NoticeKind, NoticeRecord
from judge.engine.obligations import Owed, owed
from judge.engine.orders import Order
from judge.engine.phases import PhaseKind
from judge.engine.position import Position
from judge.presenters import (
    adjustment_status,
    echo_lines,
    missing_lines,
)
from judge.services import mailings
from judge.services.audience import Audience, Recipient, recipients
from judge.services.context import Judge
from judge.services.game_settings import game_rules, game_settings, phase_deadline
from judge.services.games import current_phase, current_position, phase_orders

__all__ = ["Standing", "send_late_notices", "send_reminders", "standings"]

#: Late notices repeat once a day during grace.
_DAY = timedelta(hours=24)


@dataclass(frozen=True)
class Standing:
    """Where one power stands with its orders for the phase being played."""

    power: str
    #: The power's current orders, ``France: Army Paris -> Burgundy.`` each.
    order_lines: tuple[str, ...]
    #: What it still has to order: unordered units, or its builds/removals count.
    missing_lines: tuple[str, ...]
    #: Whether it has ordered everything the phase needs from it (as ``orders_complete``).
    complete: bool


def standings(session: Session, game: Game) -> dict[str, Standing]:
    """Each power's orders and what it still owes in the game's current phase.

    "Owes" is :func:`judge.engine.obligations.owed`, which early processing
    (:func:`judge.services.games.orders_complete`) and the confirmation ask too, so a
    player is never told "late" while the judge considers the phase complete (or the
    reverse).
    """
    position = current_position(session, game)
    rules = game_rules(game)
    orders = phase_orders(session, game, position)
    found: dict[str, Standing] = {}
    for power in position.map.powers:
        given = orders.get(power, [])
        found[power] = _standing(position, owed(position, power, given, rules), given)
    return found


def _standing(position: Position, due: Owed, given: list[Order]) -> Standing:
    """Where ``due.power`` stands, having given ``given``."""
    power = due.power
    echoed = tuple(echo_lines(power, given, due.implied, position.map))
    if position.phase.kind is PhaseKind.ADJUSTMENT:
        status = adjustment_status(power, due.adjustment, due.ordered, due.places)
        return Standing(power, echoed, (status,) if due.adjustment else (), due.complete)
    missing = missing_lines(power, list(due.units), position.map, position.phase.kind)
    return Standing(power, echoed, tuple(missing), due.complete)


# -- the services ---------------------------------------------------------------------


def send_reminders(session: Session, judge: Judge, now: datetime) -> int:
    """Queue the reminders due at ``now``; return how many were queued.

    Due: the current phase's deadline settings have ``remind`` hours > 0, and
    ``deadline - remind <= now < deadline``.  Each active player who still owes orders
    gets one, once per phase.  The caller holds the transaction.
    """
    queued = 0
    for game in _playing(session):
        assert game.deadline is not None  # _playing selects games with a deadline
        remind = phase_deadline(game).remind
        if remind <= 0 or not game.deadline - timedelta(hours=remind) <= now < game.deadline:
            continue
        position = current_position(session, game)
        owing = standings(session, game)
        for reader in recipients(session, game, Audience.ORDERING, judge):
            standing = owing.get(reader.power or "")
            if standing is None or standing.complete:
                continue
            if not _claim(session, game, NoticeKind.REMINDER, reader, 0, now):
                continue
            due = mailings.OrdersDue(position, reader, standing.order_lines, standing.missing_lines)
            mailings.send_reminder(session, judge, game, due, now)
            queued += 1
    return queued


def send_late_notices(session: Session, judge: Judge, now: datetime) -> int:
    """Queue the late notices due at ``now``; return how many were queued.

    Due while the deadline has passed but the phase waits out its grace
    (``deadline <= now < deadline + grace``): day 0 from the deadline, day 1 from a day
    later, and so on.  For each day, each late player (active, still owing orders) gets a
    late notice saying when the phase goes ahead without them, and each other active player
    a notice naming the late powers (only their number when the game's settings say
    ``anonymous``).  Nothing when nobody is late.  The caller holds the transaction.
    """
    queued = 0
    for game in _playing(session):
        assert game.deadline is not None  # _playing selects games with a deadline
        grace = timedelta(hours=phase_deadline(game).grace)
        if not game.deadline <= now < game.deadline + grace:
            continue
        day = (now - game.deadline) // _DAY
        position = current_position(session, game)
        owing = standings(session, game)
        readers = recipients(session, game, Audience.ORDERING, judge)
        late_powers = [r.power for r in readers if r.power and not owing[r.power].complete]
        if not late_powers:
            continue
        anonymous = game_settings(game).anonymous
        process_at = game.deadline + grace
        for reader in readers:
            assert reader.power is not None  # a player, never the master
            is_late = reader.power in late_powers
            kind = NoticeKind.LATE if is_late else NoticeKind.LATE_OTHERS
            if not _claim(session, game, kind, reader, day, now):
                continue
            standing = owing[reader.power]
            due = mailings.OrdersDue(position, reader, standing.order_lines, standing.missing_lines)
            if is_late:
                mailings.send_late(session, judge, game, due, process_at, now)
            else:
                mailings.send_late_others(
                    session, judge, game, due, late_powers, process_at, now, anonymous=anonymous
                )
            queued += 1
    return queued


# -- helpers --------------------------------------------------------------------------


def _playing(session: Session) -> list[Game]:
    """Active games with a deadline whose current phase is not processed yet.

    A paused game waits for its master and is not nagged about.
    """
    playing = []
    for game in queries.games_with_deadlines(session):
        record = current_phase(session, game)
        if record is not None and record.processed_at is None:
            playing.append(game)
    return playing


def _claim(
    session: Session, game: Game, kind: NoticeKind, reader: Recipient, day: int, now: datetime
) -> bool:
    """Record that this notice is being sent; False when it already was.

    The look-up keeps the common case quiet; the unique key decides a race with another
    process, whose insert wins while ours fails inside a savepoint and changes nothing else.
    """
    assert reader.player_id is not None  # notices go to players
    if queries.notice_sent(session, game.id, game.seq, kind, reader.player_id, day):
        return False
    try:
        with session.begin_nested():
            session.add(
                NoticeRecord(
                    game_id=game.id,
                    seq=game.seq,
                    kind=kind.value,
                    player_id=reader.player_id,
                    day=day,
                    sent_at=now,
                )
            )
    except IntegrityError:
        return False
    return True
