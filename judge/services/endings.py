"""How a game ends other than by a solo on the board, and how a finished game's end is
said.

* :func:`end_game` finishes a game on an :class:`~judge.presenters.Ending` (a draw, a
  concession or an agreed result voted by the players, or the master's TERMINATE) and
  sends every reader its final mail.
* :func:`terminate_game` is the master's TERMINATE.
* :func:`ended_how` and :func:`game_end` say how a finished game ended (LIST; the
  refusal of its orders).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game, GameStatus
from judge.engine.position import Position
from judge.presenters import Ending, and_list
from judge.services import mailings
from judge.services.context import Judge
from judge.services.errors import ServiceError
from judge.services.games import current_position, set_deadline
from judge.services.proposal_terms import places_text

__all__ = [
    "TERMINATED",
    "end_game",
    "ended_how",
    "game_end",
    "over_refusal",
    "result_places",
    "terminate_game",
]

#: ``games.ending`` of a game its master ended.
TERMINATED = "terminated"


def end_game(
    session: Session, judge: Judge, game: Game, ending: Ending, position: Position, now: datetime
) -> None:
    """Finish ``game`` as ``ending`` says, in ``position`` (the position it ends in):
    status finished, ``ending`` its kind, the winner of a concession, the places in
    ``result``, no deadline; proposals still open or awaiting the master are void; every
    reader of the game gets its final mail (:func:`mailings.send_game_over`)."""
    game.status = GameStatus.FINISHED
    game.ending = ending.kind
    game.winner = ending.winner
    game.result = [[place, list(powers)] for place, powers in ending.places] or None
    game.updated_at = now
    set_deadline(session, game, None)
    queries.void_unsettled_proposals(session, game.id, now)
    mailings.send_game_over(session, judge, game, ending, position, now)


def terminate_game(session: Session, judge: Judge, game: Game, now: datetime) -> Position:
    """End ``game`` with no winner (:data:`TERMINATED`; see :func:`end_game`).  Returns
    the position the game ends in.  Raises ServiceError, changing nothing, for a game
    that has not started or is over."""
    if game.status == GameStatus.FORMING:
        raise ServiceError(f"game {game.name} has not started yet: there is nothing to end")
    if game.status == GameStatus.FINISHED:
        raise ServiceError(over_refusal(game))
    position = current_position(session, game)
    ending = Ending("terminated", position.phase.code, position.phase.describe())
    end_game(session, judge, game, ending, position, now)
    return position


def result_places(game: Game) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """The places a finished game's ``result`` keeps, as :class:`Ending` holds them (none
    for a game without)."""
    stored: list[Any] = game.result or []
    return tuple((int(place), tuple(str(p) for p in powers)) for place, powers in stored)


def ended_how(game: Game) -> str | None:
    """How a finished game ended, as LIST says it after the status ("won by France",
    "drawn among Austria, England and France"), or None for a game that has not.

    A game finished by a judge older than the ``result`` column says what it kept."""
    if game.status != GameStatus.FINISHED:
        return None
    places = result_places(game)
    if game.ending == "concession" and game.winner:
        return f"conceded to {game.winner}"
    if game.winner:
        return f"won by {game.winner}"
    if game.ending == TERMINATED:
        return "ended by the game master with no winner"
    if game.ending == "draw" and places:
        return f"drawn among {and_list(list(places[0][1]))}"
    if game.ending == "result" and places:
        return f"ended on a result agreed by the players: {places_text(places)}"
    return game.ending


def game_end(game: Game) -> str:
    """How a finished game ended, as a refusal of its orders says it."""
    places = result_places(game)
    if game.ending == "concession" and game.winner:
        return f"it was conceded to {game.winner}, and no more orders are taken"
    if game.winner:
        return f"{game.winner} won it, and no more orders are taken"
    if game.ending == TERMINATED:
        return "the game master ended it, and no more orders are taken"
    if game.ending == "draw" and places:
        drawn = and_list(list(places[0][1]))
        return f"it ended in a draw among {drawn}, and no more orders are taken"
    if game.ending == "result" and places:
        return (
            f"it ended on a result agreed by the players ({places_text(places)}), and no "
            "more orders are taken"
        )
    return "no more orders are taken"


def over_refusal(game: Game) -> str:
    """Why a finished game refuses what was sent to it (orders, BECOME, a vote, a
    proposal, TERMINATE): one wording for every command."""
    return f"game {game.name} is over: {game_end(game)}"
