"""Deadline notices: a private reminder before the deadline, late notices during grace.

House rules ask the judge to "remind all players once or twice before the deadline"
(NMRs ruin games), and players expect to hear when they are late and who is holding the
game up.  Two services, both run by the deadline loop with its clock's ``now``:

- :func:`send_reminders`: ``remind`` hours before the deadline (a per-phase deadline
  setting), each active player who still owes orders gets their current orders and what
  is missing;
- :func:`send_late_notices`: once the deadline has passed and the phase waits out its
  grace, each late player is told when the phase will go ahead without them, every
  other player who (or, in an anonymous game, how many) is late, and the game master
  who is, always; again at the start of each further day of grace.  A game under
  ``nmr = "wait"`` held up by a missed phase promises no time, and once its grace has
  run out everyone following it is told once that it waits, and for whom.

Every notice is recorded in ``notices`` in the same transaction as its mail, under a
unique key (game, phase, kind, player, day), so a second run at the same moment, a double
fire of the scheduler or a retry after a crash sends nothing twice.  A run that misses a
moment (the judge was down) sends only what is due now: no stale "day 0" notice on day 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game, GameStatus, NoticeKind, NoticeRecord
from judge.engine.board import standard_map
from judge.engine.obligations import Owed, owed
from judge.engine.orders import Order
from judge.engine.phases import PhaseKind
from judge.engine.position import Position
from judge.presenters import order_standing
from judge.services import mailings
from judge.services.audience import Audience, Recipient, recipients
from judge.services.context import Judge
from judge.services.game_settings import game_rules, game_settings, phase_deadline
from judge.services.games import current_phase, current_position, phase_orders, waiting_for

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
    standing = order_standing(position, due, given)
    # A power with no builds or removals to make is owed nothing: no line says so.
    owes = position.phase.kind is not PhaseKind.ADJUSTMENT or due.adjustment != 0
    missing = standing.missing_lines if owes else ()
    return Standing(due.power, standing.order_lines, missing, standing.complete)


# -- the services ---------------------------------------------------------------------


def send_reminders(
    session: Session, judge: Judge, now: datetime, games: Sequence[Game] | None = None
) -> int:
    """Queue the reminders due at ``now``; return how many were queued.  ``games``: look
    only at these (the deadline loop's games whose moment came), else at every game.

    Due: the current phase's deadline settings have ``remind`` hours > 0, and
    ``deadline - remind <= now < deadline``.  Each active player who still owes orders
    gets one, once per phase.  The caller holds the transaction.
    """
    queued = 0
    for game in _playing(session, games):
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


def send_late_notices(
    session: Session, judge: Judge, now: datetime, games: Sequence[Game] | None = None
) -> int:
    """Queue the late notices due at ``now``; return how many were queued (``games``: as
    for :func:`send_reminders`).

    Due while the deadline has passed but the phase waits out its grace
    (``deadline <= now < deadline + grace``): day 0 from the deadline, day 1 from a day
    later, and so on.  For each day, each late player (active, still owing orders) gets a
    late notice saying when the phase goes ahead without them, and each other active player
    a notice naming the late powers (only their number when the game's settings say
    ``anonymous``); the game master gets one naming them always.  Under ``nmr = "wait"``
    with a power missing the phase, no time is promised: the game waits for the missing
    orders or the game master.  Nothing when nobody is late.

    Once the grace has run out in a game that waits (:func:`~judge.services.games.waiting_for`),
    every reader still following it is told once that it waits, and for whom
    (:func:`_send_waiting`).  The caller holds the transaction.
    """
    queued = 0
    for game in _playing(session, games):
        assert game.deadline is not None  # _playing selects games with a deadline
        grace = timedelta(hours=phase_deadline(game).grace)
        if now >= game.deadline + grace:
            queued += _send_waiting(session, judge, game, now)
            continue
        if now < game.deadline:
            continue
        day = (now - game.deadline) // _DAY
        position = current_position(session, game)
        owing = standings(session, game)
        readers = recipients(session, game, Audience.ORDERING, judge)
        late_powers = [r.power for r in readers if r.power and not owing[r.power].complete]
        if not late_powers:
            continue
        anonymous = game_settings(game).anonymous
        # A game that waits for a missed phase promises no time (it may never come).
        process_at = None if waiting_for(session, game) else game.deadline + grace
        sent = 0
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
            sent += 1
        # The master's copy only with the players' (a second run at the same moment
        # claims none of theirs: the players' rows are what a race runs into).
        if sent and _claim_master(session, game, NoticeKind.LATE_OTHERS, day, now):
            missing = {power: owing[power].missing_lines for power in late_powers}
            mailings.send_late_master(
                session, judge, game, position.phase, missing, process_at, now,
                anonymous=anonymous,
            )  # fmt: skip
            sent += 1
        queued += sent
    return queued


#: The ``day`` under which the notice that a game waits (``nmr = "wait"``) is recorded:
#: once per phase, apart from the late notices of each day of grace (0, 1, ...).
WAITING_DAY = -1


def _send_waiting(session: Session, judge: Judge, game: Game, now: datetime) -> int:
    """Tell every reader still following ``game`` (:attr:`Audience.NEWS`), once per
    phase, that its deadline and grace have passed and it waits for the powers that
    missed the phase; how many were queued (none when it does not wait)."""
    waited = sorted(waiting_for(session, game), key=standard_map().powers.index)
    if not waited:
        return 0
    position = current_position(session, game)
    anonymous = game_settings(game).anonymous
    readers = recipients(session, game, Audience.NEWS, judge)
    claimed = []
    for reader in readers:
        if reader.player_id is None:
            continue
        kind = NoticeKind.LATE if reader.power in waited else NoticeKind.LATE_OTHERS
        if _claim(session, game, kind, reader, WAITING_DAY, now):
            claimed.append(reader)
    if not claimed:
        return 0
    # The master and the observers with the players' first notice (see above).
    others = [r for r in readers if r.player_id is None]
    if not _claim_master(session, game, NoticeKind.LATE_OTHERS, WAITING_DAY, now):
        others = [r for r in others if r.observer]
    for reader in [*claimed, *others]:
        mailings.send_waiting(
            session, judge, game, position.phase, reader, waited, now, anonymous=anonymous
        )
    return len(claimed) + len(others)


# -- helpers --------------------------------------------------------------------------


def _playing(session: Session, games: Sequence[Game] | None = None) -> list[Game]:
    """Active games with a deadline whose current phase is not processed yet (of
    ``games`` when given, else of all).

    A paused game waits for its master and is not nagged about.
    """
    if games is None:
        candidates = queries.games_with_deadlines(session)
    else:
        candidates = sorted(
            (
                g
                for g in games
                if g.status == GameStatus.ACTIVE and g.deadline is not None and g.phase
            ),
            key=lambda g: g.name,
        )
    playing = []
    for game in candidates:
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
    return _record(session, game, kind, reader.player_id, day, now)


def _claim_master(session: Session, game: Game, kind: NoticeKind, day: int, now: datetime) -> bool:
    """Record the game master's copy of a notice (no player: ``player_id`` NULL, which
    the unique key does not guard; the caller claims it only after a player's)."""
    return _record(session, game, kind, None, day, now)


def _record(
    session: Session,
    game: Game,
    kind: NoticeKind,
    player_id: int | None,
    day: int,
    now: datetime,
) -> bool:
    """Record a notice to ``player_id`` (None: the game master); False when it was."""
    if queries.notice_sent(session, game.id, game.seq, kind, player_id, day):
        return False
    try:
        with session.begin_nested():
            session.add(
                NoticeRecord(
                    game_id=game.id,
                    seq=game.seq,
                    kind=kind.value,
                    player_id=player_id,
                    day=day,
                    sent_at=now,
                )
            )
    except IntegrityError:
        return False
    return True
