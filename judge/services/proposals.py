"""The house rules' proposals to end a game (seed 003, section 8; game option
``endgame = "house"``): ``PROPOSE`` ... ``ENDPROPOSE``, ``VOTE <n> YES|NO|ABSTAIN``,
and the master's ``ACCEPT <n>`` / ``DECLINE <n>`` (8.4).

(To be built: putting, announcing, voting, counting at the deadline.)
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game, PhaseRecord
from judge.services.context import Judge

__all__ = ["listing_lines", "settle"]


def settle(session: Session, judge: Judge, game: Game, record: PhaseRecord, now: datetime) -> bool:
    """Count the proposals whose vote closes with this phase; True if the game ended or
    waits for its master (8.4)."""
    return False


def listing_lines(session: Session, game: Game, *, for_master: bool) -> tuple[str, ...]:
    """What LIST shows of the proposals (never a proposer or a vote)."""
    return ()
