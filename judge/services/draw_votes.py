"""The njudge's standing votes: ``SET DRAW`` / ``SET NODRAW`` and ``SET CONCEDE`` /
``SET NOCONCEDE`` (game option ``endgame = "njudge"``, the default).

(To be built: storing and withdrawing votes, checking them when the last vote arrives
and when the phase is processed.)
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game
from judge.services.context import Judge

__all__ = ["listing_lines", "settle"]


def settle(session: Session, judge: Judge, game: Game, now: datetime) -> bool:
    """End the game if its standing votes pass a draw or a concession; True if it ended."""
    return False


def listing_lines(session: Session, game: Game, *, for_master: bool) -> tuple[str, ...]:
    """What LIST shows of the standing votes."""
    return ()
