"""Counting the house rules' proposals when their phase is processed (8.1-8.4), the
announcement of each result (8.5: passed or defeated, the counts only if the game says
so), and the game master's 8.4 decision (``ACCEPT <n>``, ``DECLINE <n>``).

(To be built.)
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game, PhaseRecord
from judge.services.context import Judge

__all__ = ["settle"]


def settle(session: Session, judge: Judge, game: Game, record: PhaseRecord, now: datetime) -> bool:
    """Count the proposals whose vote closes with this phase; True if the game ended or
    waits for its master (8.4)."""
    return False
