"""A game ended without a winner: the game master's TERMINATE (the draw and the
concession, with their votes, come later and end a game here too); and how a finished
game's end is said (the refusal of its orders, the :class:`~judge.presenters.Ending` of
its final mail)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game, GameStatus
from judge.engine.position import Position
from judge.presenters import Ending
from judge.services import mailings
from judge.services.context import Judge
from judge.services.errors import ServiceError
from judge.services.games import current_position, set_deadline

__all__ = ["TERMINATED", "game_end", "terminate_game"]

#: ``games.ending`` of a game its master ended.
TERMINATED = "terminated"


def terminate_game(session: Session, judge: Judge, game: Game, now: datetime) -> Position:
    """End ``game`` with no winner: finished, ``ending`` :data:`TERMINATED`, no deadline;
    every reader of the game gets its final mail (:func:`mailings.send_game_over`).
    Returns the position the game ends in.  Raises ServiceError, changing nothing, for a
    game that has not started or is over."""
    if game.status == GameStatus.FORMING:
        raise ServiceError(f"game {game.name} has not started yet: there is nothing to end")
    if game.status == GameStatus.FINISHED:
        raise ServiceError(f"game {game.name} is already over")
    position = current_position(session, game)
    game.status = GameStatus.FINISHED
    game.ending = TERMINATED
    game.updated_at = now
    set_deadline(session, game, None)
    ending = Ending("terminated", position.phase.code, position.phase.describe())
    mailings.send_game_over(session, judge, game, ending, position, now)
    return position


def game_end(game: Game) -> str:
    """How a finished game ended, as a refusal of its orders says it."""
    if game.winner:
        return f"{game.winner} won it, and no more orders are taken"
    if game.ending == TERMINATED:
        return "the game master ended it, and no more orders are taken"
    return "no more orders are taken"
