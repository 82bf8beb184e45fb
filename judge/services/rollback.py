"""ROLLBACK: the game master takes a game back to the start of an earlier phase.

House rule 6: an error brought to the master's attention is corrected.  The game goes
back to the start of the phase chosen: its position, and the orders that were in force
for it when it was processed (its order rows are never touched, so they stand again).
Everything after that start is undone in one transaction: the phase's results, the
phases after it and their orders, the notices of those phases (so that reminders go out
again).  What was undone is kept in a :class:`~judge.db.models.Rollback` row, which
HISTORY shows (:mod:`judge.services.listings`).

Processing a phase changes each seat's missed count, civil disorder and WAIT; the phase's
results keep the seats as they stood (:func:`judge.services.games.seat_states`), and they
are put back from there; so are the orders sent ahead, as they stood at the target's
deadline (:func:`judge.services.future_orders.put_back`).  A resignation or a takeover
is a player's act, and an ejection the game master's, not the processing's: they stay
(a seat held by another address since, or whose player was ejected, is left alone).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import (
    Game,
    GameStatus,
    NoticeRecord,
    OrderRecord,
    PhaseRecord,
    Player,
    PlayerStatus,
    Rollback,
)
from judge.engine.board import standard_map
from judge.engine.document import position_from_document
from judge.engine.phases import Phase
from judge.engine.position import Position
from judge.presenters import phase_heading
from judge.services import future_orders, notices
from judge.services.context import Judge
from judge.services.deadlines import next_deadline
from judge.services.errors import ServiceError
from judge.services.game_settings import game_settings, game_zone
from judge.services.games import respect_absences, seat_states, set_deadline
from judge.services.mailings.rollback import OrdersInForce, RollbackNews, send_rollback

__all__ = ["MAX_REASON", "RolledBack", "roll_back", "target_phase"]

#: The longest reason a ROLLBACK takes, in characters: it goes into every player's mail.
MAX_REASON = 300

#: The endings the players' votes give a game (``games.ending``).
_AGREED = ("draw", "concession", "result")

# The seat statuses processing moves between; a resignation is not processing's.
_PROCESSING_STATUSES = (PlayerStatus.ACTIVE, PlayerStatus.CIVIL_DISORDER)


@dataclass(frozen=True)
class RolledBack:
    """What a rollback did, for the game master's reply."""

    from_phase: str
    to_phase: str
    #: The phases whose results were undone, first to last (``to_phase`` first).
    undone: tuple[str, ...]
    #: The order rows of the later phases, archived and removed.
    orders: int
    #: Each seat whose missed count, civil disorder or WAIT was put back, in words.
    restored: tuple[str, ...]
    #: False when ``to_phase`` was processed before its results kept the seats.
    seats_known: bool
    #: The game was finished (a win, TERMINATE) and goes on again.
    reopened: bool
    #: How many readers were mailed.
    told: int


def target_phase(session: Session, game: Game, code: str | None) -> PhaseRecord:
    """The record of the phase ``code`` of ``game`` (default: the one before the current
    one) that a rollback may go back to; a :class:`ServiceError` naming the input and
    the game's phases when there is none."""
    if game.status == GameStatus.FORMING or game.phase is None:
        raise ServiceError(f"cannot roll back {game.name}: it has not started")
    records = queries.phases_of(session, game.id)
    earlier = [record for record in records if record.seq < game.seq]
    played = _listed([record.phase for record in records])
    if not earlier:
        raise ServiceError(
            f"cannot roll back {game.name}: it is in its first phase, {game.phase}, "
            "and there is no earlier phase to go back to"
        )
    if code is None:
        return earlier[-1]
    try:
        wanted = Phase.parse(code)
    except ValueError as err:
        raise ServiceError(str(err)) from None
    choices = _listed([record.phase for record in earlier])
    if wanted.code == game.phase:
        raise ServiceError(
            f"cannot roll back to {wanted.code}: it is the phase {game.name} is in now; "
            f"ROLLBACK goes back to the start of an earlier phase: {choices}"
        )
    if Phase.parse(game.phase) < wanted:
        raise ServiceError(
            f"cannot roll back to {wanted.code}: it is later than {game.name}'s current "
            f"phase, {game.phase}; ROLLBACK goes back to an earlier phase: {choices}"
        )
    for record in earlier:
        if record.phase == wanted.code:
            return record
    raise ServiceError(
        f"cannot roll back to {wanted.code}: it was never played in {game.name}; "
        f"its phases so far: {played}"
    )


def roll_back(
    session: Session, judge: Judge, game: Game, code: str | None, reason: str, now: datetime
) -> RolledBack:
    """Take ``game`` back to the start of phase ``code`` (default: the one before the
    current one), archive what is undone, give the phase a new deadline and mail
    everyone still following the game (:data:`~judge.services.audience.Audience.NEWS`).

    Raises :class:`ServiceError` before changing anything when it cannot be done.  The
    caller writes the transaction's pending order rows first (they are undone too).
    """
    target = target_phase(session, game, code)
    reason = " ".join(reason.split())
    if len(reason) > MAX_REASON:
        raise ServiceError(
            f"the reason is {len(reason)} characters long: keep it under {MAX_REASON + 1}"
        )
    from_phase = str(game.phase)
    records = queries.phases_of(session, game.id)
    later = [record for record in records if record.seq > target.seq]
    orders = queries.order_rows_after(session, game.id, target.seq)
    sent = queries.notices_from(session, game.id, target.seq)
    players = queries.players_of(session, game.id)
    session.add(
        Rollback(
            game_id=game.id,
            from_seq=game.seq,
            from_phase=from_phase,
            to_seq=target.seq,
            to_phase=target.phase,
            reason=reason,
            undone={
                "phases": [_phase_document(record) for record in [target, *later]],
                "orders": [_order_document(row, power) for row, power in orders],
                "notices": [_notice_document(notice) for notice in sent],
                "seats": seat_states(players),
                "game": {
                    "status": game.status,
                    "winner": game.winner,
                    "ending": game.ending,
                    "result": game.result,
                    "deadline": _iso(game.deadline),
                },
            },
            created_at=now,
        )
    )
    undone = tuple(r.phase for r in [target, *later] if r.results is not None)
    seats = (target.results or {}).get("seats")
    restored = _restore_seats(players, seats) if isinstance(seats, dict) else ()

    # The orders sent ahead as they stood at the target's deadline: processing retired
    # some since (applied, or their phase past), and some were sent in phases undone.
    # (Phases processed before the judge kept them have no list: nothing to put back.)
    retired = [
        row_id
        for record in [target, *later]
        for row_id in (record.results or {}).get("ahead_retired", [])
    ]
    if target.processed_at is not None:  # always, for a phase with results
        future_orders.put_back(session, game, retired, target.processed_at)
    queries.delete_orders_after(session, game.id, target.seq)
    queries.delete_notices_from(session, game.id, target.seq)
    # The pictures of the phases undone (a season's retreats and adjustments too): a
    # phase played again is drawn again, and MAP never shows what was undone.
    queries.delete_pictures(session, game.id, _phase_codes([target, *later]))
    for record in later:
        session.delete(record)
    # The later phases' rows go before the same numbers are played again.
    session.flush()
    target.results = None
    target.processed_at = None
    reopened = game.status == GameStatus.FINISHED
    if reopened:
        if game.ending in _AGREED:
            # The votes that ended it would end it again at the next vote or processing:
            # the players vote again, if they still agree.
            queries.delete_votes(session, game.id)
        game.status = GameStatus.ACTIVE
        game.winner = None
        game.ending = None
        game.result = None
    # A proposal still open, or awaiting the master (8.4), belongs to a phase undone: its
    # vote is void, and its decide-by time must end nothing.
    queries.void_unsettled_proposals(session, game.id, now)
    game.seq = target.seq
    game.phase = target.phase
    game.updated_at = now
    position = position_from_document(target.position, standard_map())
    zone = game_zone(game, judge)
    set_deadline(session, game, next_deadline(now, position.phase.kind, game_settings(game), zone))
    respect_absences(session, game)

    news = RollbackNews(
        from_phase=from_phase,
        position=position,
        undone=undone,
        reason=reason,
        paused=game.status == GameStatus.PAUSED,
        orders=_orders_in_force(session, game, position),
    )
    told = send_rollback(session, judge, game, news, now)
    return RolledBack(
        from_phase=from_phase,
        to_phase=target.phase,
        undone=undone,
        orders=len(orders),
        restored=restored,
        seats_known=isinstance(seats, dict),
        reopened=reopened,
        told=told,
    )


def _orders_in_force(
    session: Session, game: Game, position: Position
) -> Mapping[str, OrdersInForce]:
    """Each power's orders in force for the game's (new) current phase, whose start is
    ``position``, as its confirmation would show them."""
    heading = phase_heading(position.phase.kind.word, position.phase, game.name, game.seq)
    return {
        power: OrdersInForce(heading, standing.order_lines, standing.missing_lines)
        for power, standing in notices.standings(session, game).items()
    }


def _listed(codes: Sequence[str], most: int = 24) -> str:
    """Phase codes for an error, the first two and the last ones when there are many
    (an error is cut at 500 characters)."""
    if len(codes) <= most:
        return ", ".join(codes)
    return f"{', '.join(codes[:2])}, ... {', '.join(codes[-(most - 2) :])}"


def _restore_seats(players: Sequence[Player], seats: Mapping[str, Any]) -> tuple[str, ...]:
    """Put back each seat's missed count, civil disorder and WAIT as they stood when
    the phase was processed; what changed, in words."""
    restored: list[str] = []
    for player in players:
        before = seats.get(player.power)
        if not isinstance(before, dict) or player.status not in _PROCESSING_STATUSES:
            continue
        if player.ejected_at is not None:
            continue  # ejected: the seat stays open (in civil disorder) until taken over
        if before.get("address", player.address) != player.address:
            continue  # taken over since: the new player's seat is their own
        changes: list[str] = []
        missed = int(before.get("missed", player.missed))
        if missed != player.missed:
            changes.append(f"missed phases {player.missed} -> {missed}")
            player.missed = missed
        status = str(before.get("status", player.status))
        if status != player.status and status in _PROCESSING_STATUSES:
            changes.append(f"{_status_words(player.status)} -> {_status_words(status)}")
            player.status = status
        wait = bool(before.get("wait", player.wait))
        if wait != player.wait:
            changes.append("WAIT set again" if wait else "WAIT cleared")
            player.wait = wait
        if changes:
            restored.append(f"{player.power}: {', '.join(changes)}")
    return tuple(restored)


def _status_words(status: str) -> str:
    return "civil disorder" if status == PlayerStatus.CIVIL_DISORDER else str(status)


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when is not None else None


def _phase_document(record: PhaseRecord) -> dict[str, Any]:
    return {
        "seq": record.seq,
        "phase": record.phase,
        "position": record.position,
        "results": record.results,
        "processed_at": _iso(record.processed_at),
        "deadline": _iso(record.deadline),
    }


def _order_document(row: OrderRecord, power: str) -> dict[str, Any]:
    return {
        "id": row.id,
        "seq": row.seq,
        "player_id": row.player_id,
        "power": power,
        "unit": row.unit,
        "raw": row.raw,
        "canonical": row.canonical,
        "error_code": row.error_code,
        "error": row.error,
        "active": row.active,
        "inbound_id": row.inbound_id,
        "created_at": _iso(row.created_at),
    }


def _notice_document(notice: NoticeRecord) -> dict[str, Any]:
    return {
        "seq": notice.seq,
        "kind": notice.kind,
        "player_id": notice.player_id,
        "day": notice.day,
        "sent_at": _iso(notice.sent_at),
    }


def _phase_codes(records: Sequence[PhaseRecord]) -> list[str]:
    """The codes of the phases ``records`` hold: each record's, and the phases a
    two-season game's season played after its moves (its steps lead to them)."""
    codes = {record.phase for record in records}
    for record in records:
        for step in (record.results or {}).get("steps") or ():
            if isinstance(step, dict) and isinstance(step.get("phase"), str):
                codes.add(step["phase"])
    return sorted(codes)
