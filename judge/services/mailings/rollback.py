"""The news of a ROLLBACK (``all/rollback.txt.j2``): the game went back to the start of
an earlier phase, why, the position, the new deadline, and to each player the orders of
their own power now in force."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game
from judge.engine.position import Position
from judge.presenters import and_list, format_deadline, position_report
from judge.services.audience import Audience, recipients
from judge.services.context import Judge
from judge.services.game_settings import game_zone
from judge.services.mailings.common import own_zone, queue, render, signon_line

__all__ = ["OrdersInForce", "RollbackNews", "send_rollback"]


@dataclass(frozen=True)
class OrdersInForce:
    """One power's orders for the phase played again, as its confirmation shows them:
    the heading, a line per order, and what it still has to order."""

    heading: str
    order_lines: Sequence[str]
    missing_lines: Sequence[str]


@dataclass(frozen=True)
class RollbackNews:
    """What a rollback's mail tells: the phase the game was in (``from_phase``), the
    ``position`` at the start of the phase it went back to, the phases whose results
    were ``undone``, the master's ``reason`` (may be empty), whether the game stays
    ``paused``, and each power's ``orders`` in force."""

    from_phase: str
    position: Position
    undone: Sequence[str]
    reason: str
    paused: bool
    orders: Mapping[str, OrdersInForce]


def send_rollback(
    session: Session, judge: Judge, game: Game, news: RollbackNews, now: datetime
) -> int:
    """To every reader still following ``game`` (players, master, observers): it was
    rolled back to the start of its current phase.  A player also gets their own
    power's orders in force, never another's.  Returns how many mails were queued."""
    assert game.deadline is not None and game.phase is not None
    phase = news.position.phase
    shared: dict[str, object] = {
        "judge_address": judge.settings.address,
        "variant": "Standard",
        "from_phase": news.from_phase,
        "to_phase": phase.code,
        "phase_text": phase.describe(),
        "undone_text": and_list(list(news.undone)),
        "reason": news.reason,
        "paused": news.paused,
        "deadline_game": format_deadline(game.deadline, game_zone(game, judge)),
        "position_text": position_report(news.position),
    }
    readers = recipients(session, game, Audience.NEWS, judge)
    for reader in readers:
        mine = news.orders.get(reader.power) if reader.power is not None else None
        mail = render(
            judge, "all/rollback.txt.j2", game,
            **shared,
            deadline_player=own_zone(judge, game, reader, game.deadline),
            power=reader.power if mine is not None else None,
            heading=mine.heading if mine is not None else "",
            order_lines=list(mine.order_lines) if mine is not None else [],
            missing_lines=list(mine.missing_lines) if mine is not None else [],
            signon_line=signon_line(game, reader.power) if reader.power is not None else "",
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "rollback", now)
    return len(readers)
