"""How a finished game's end is said: LIST (ended_how) and the refusal of its orders
(game_end) say the same ending in the same words, for every kind of ending."""

from __future__ import annotations

from typing import Any

import pytest

from judge.db.models import Game, GameStatus
from judge.services.endings import ended_how, game_end


def _finished(ending: str, winner: str | None, result: Any) -> Game:
    return Game(
        name="test01", status=GameStatus.FINISHED, ending=ending, winner=winner, result=result
    )


@pytest.mark.parametrize(
    ("ending", "winner", "result", "listed", "refused"),
    [
        ("solo", "France", [[1, ["France"]]], "won by France",
         "France won it, and no more orders are taken"),
        ("terminated", None, None, "ended by the game master with no winner",
         "the game master ended it, and no more orders are taken"),
        ("draw", None, [[1, ["Austria", "England", "France"]]],
         "drawn among Austria, England and France",
         "it ended in a draw among Austria, England and France, and no more orders are taken"),
        ("concession", "France", [[1, ["France"]]], "conceded to France",
         "it was conceded to France, and no more orders are taken"),
        ("result", None, [[1, ["France"]], [2, ["Austria", "England"]]],
         "ended on a result agreed by the players: 1. France; 2. Austria and England",
         "it ended on a result agreed by the players (1. France; 2. Austria and England), "
         "and no more orders are taken"),
    ],
)  # fmt: skip
def test_every_ending_is_said_alike_in_list_and_in_a_refusal(
    ending: str, winner: str | None, result: Any, listed: str, refused: str
) -> None:
    game = _finished(ending, winner, result)
    assert ended_how(game) == listed
    assert game_end(game) == refused


def test_a_game_still_running_has_not_ended() -> None:
    assert ended_how(Game(name="test01", status=GameStatus.ACTIVE)) is None
