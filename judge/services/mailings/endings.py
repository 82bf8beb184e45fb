"""The final mail of a game, whatever ended it: a solo, the game master's TERMINATE, and
(with their votes) a draw, a concession or an agreed result."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game, Player, PlayerStatus
from judge.engine.board import standard_map
from judge.engine.document import position_from_document
from judge.engine.position import Position
from judge.presenters import (
    Ending,
    and_list,
    centre_history,
    centre_history_report,
    centre_report,
    units_report,
)
from judge.services.audience import Audience, recipients
from judge.services.context import Judge
from judge.services.mailings.common import queue, render

__all__ = ["FinalSeat", "final_seats", "send_game_over"]


@dataclass(frozen=True)
class FinalSeat:
    """A player as the final mail unveils them: the power, the address, and how the
    seat stood at the end (``None``: still playing; else ``resigned``, ``ejected`` or
    ``in civil disorder``)."""

    power: str
    address: str
    status: str | None


def final_seats(players: list[Player]) -> list[FinalSeat]:
    """``players`` in the map's order of powers, as :class:`FinalSeat` values."""
    order = {power: index for index, power in enumerate(standard_map().powers)}
    seats = []
    for player in sorted(players, key=lambda p: (order.get(p.power, len(order)), p.power, p.id)):
        status: str | None = None
        if player.ejected_at is not None:
            status = "ejected"
        elif player.status == PlayerStatus.RESIGNED:
            status = "resigned"
        elif player.status == PlayerStatus.CIVIL_DISORDER:
            status = "in civil disorder"
        seats.append(FinalSeat(player.power, player.address, status))
    return seats


def send_game_over(
    session: Session, judge: Judge, game: Game, ending: Ending, position: Position, now: datetime
) -> None:
    """To every reader of the game, resigned players too (``all/game_over.txt.j2``): how
    it ended (``ending``), the final ``position`` with its supply-centre chart, each
    power's centres year by year from the game's phase records, the players with their
    addresses (unveiled even in an anonymous game: it is over), and how to read its
    history and press again."""
    session.flush()  # the phase record the game ends in, just added, is read back here
    game_map = standard_map()
    records = queries.phases_of(session, game.id)
    positions = [position_from_document(record.position, game_map) for record in records]
    mail = render(
        judge, "all/game_over.txt.j2", game,
        judge_address=judge.settings.address,
        variant="Standard",
        ending=ending,
        winner=ending.winner,
        powers_text=and_list(ending.powers),
        winner_centres=len(position.centres_of(ending.winner)) if ending.winner else None,
        units=units_report(position),
        centres=centre_report(position),
        history=centre_history_report(game_map.powers, centre_history(positions)),
        seats=final_seats(queries.players_of(session, game.id)),
    )  # fmt: skip
    for reader in recipients(session, game, Audience.EVERYONE, judge):
        queue(session, judge, game, reader, mail, "game_over", now)
