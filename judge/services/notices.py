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
from judge.db.models import Game, NoticeKind, NoticeRecord, Player, PlayerStatus
from judge.engine.obligations import Owed, owed
from judge.engine.orders import Order
from judge.engine.phases import PhaseKind
from judge.engine.position import Position
from judge.presenters import (
    adjustment_status,
    echo_lines,
    format_deadline,
    missing_lines,
    phase_heading,
)
from judge.services.context import Judge
from judge.services.game_settings import (
    game_rules,
    game_settings,
    game_zone,
    phase_deadline,
    player_zone,
)
from judge.services.games import current_phase, current_position, phase_orders
from judge.services.outbox import queue_mail

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
        for player in _active_players(session, game, position):
            standing = owing.get(player.power)
            if standing is None or standing.complete:
                continue
            if not _claim(session, game, NoticeKind.REMINDER, player, 0, now):
                continue
            mail = judge.renderer.render(
                "player/reminder.txt.j2",
                **_common(judge, game, position, player),
                heading=_heading(game, position),
                order_lines=list(standing.order_lines),
                missing_lines=list(standing.missing_lines),
                signon_line=(
                    f"SIGNON {position.map.power_letter[player.power]}{game.name} <password>"
                ),
            )
            queue_mail(
                session,
                judge,
                to=player.address,
                mail=mail,
                kind="reminder",
                now=now,
                game_id=game.id,
            )
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
        players = _active_players(session, game, position)
        late_powers = [p.power for p in players if not owing[p.power].complete]
        if not late_powers:
            continue
        anonymous = game_settings(game).anonymous
        process_at = game.deadline + grace
        for player in players:
            is_late = player.power in late_powers
            kind = NoticeKind.LATE if is_late else NoticeKind.LATE_OTHERS
            if not _claim(session, game, kind, player, day, now):
                continue
            standing = owing[player.power]
            common = {
                **_common(judge, game, position, player),
                "process_game": format_deadline(process_at, game_zone(game, judge)),
                "process_player": _own_zone(judge, game, player, process_at),
            }
            if is_late:
                mail = judge.renderer.render(
                    "player/late.txt.j2",
                    **common,
                    heading=_heading(game, position),
                    order_lines=list(standing.order_lines),
                    missing_lines=list(standing.missing_lines),
                )
            else:
                mail = judge.renderer.render(
                    "all/late.txt.j2",
                    **common,
                    nothing_needed=not standing.order_lines and not standing.missing_lines,
                    late_count=len(late_powers),
                    late_powers=None if anonymous else _and_list(late_powers),
                )
            queue_mail(
                session, judge, to=player.address, mail=mail, kind="late", now=now, game_id=game.id
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


def _active_players(session: Session, game: Game, position: Position) -> list[Player]:
    """The players still playing, in the map's power order (so late powers are listed so).

    Resigned players and powers in civil disorder are not expected to order, so they get
    no notices and are never named as late.
    """
    powers = position.map.powers
    players = queries.players_of(session, game.id, status=PlayerStatus.ACTIVE)
    return sorted(players, key=lambda p: powers.index(p.power) if p.power in powers else 99)


def _claim(
    session: Session, game: Game, kind: NoticeKind, player: Player, day: int, now: datetime
) -> bool:
    """Record that this notice is being sent; False when it already was.

    The look-up keeps the common case quiet; the unique key decides a race with another
    process, whose insert wins while ours fails inside a savepoint and changes nothing else.
    """
    if queries.notice_sent(session, game.id, game.seq, kind, player.id, day):
        return False
    try:
        with session.begin_nested():
            session.add(
                NoticeRecord(
                    game_id=game.id,
                    seq=game.seq,
                    kind=kind.value,
                    player_id=player.id,
                    day=day,
                    sent_at=now,
                )
            )
    except IntegrityError:
        return False
    return True


def _common(judge: Judge, game: Game, position: Position, player: Player) -> dict[str, object]:
    """Context every notice template uses."""
    assert game.deadline is not None
    return {
        "judge_name": judge.settings.name,
        "judge_address": judge.settings.address,
        "game_name": game.name,
        "variant": "Standard",
        "phase_code": position.phase.code,
        "phase_text": position.phase.describe(),
        "phase_kind": position.phase.kind.value,
        "power": player.power,
        "deadline_game": format_deadline(game.deadline, game_zone(game, judge)),
        "deadline_player": _own_zone(judge, game, player, game.deadline),
    }


def _heading(game: Game, position: Position) -> str:
    word = position.phase.kind.word
    return phase_heading(word, position.phase, game.name, game.seq)


def _own_zone(judge: Judge, game: Game, player: Player, when: datetime) -> str | None:
    """``when`` in the player's own zone, or None when that is the game's zone anyway."""
    zone = player_zone(game, player, judge)
    return None if zone == game_zone(game, judge) else format_deadline(when, zone)


def _and_list(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``.

    >>> _and_list(["France"]), _and_list(["France", "Italy", "Turkey"])
    ('France', 'France, Italy and Turkey')
    """
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"
