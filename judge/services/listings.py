"""What the information commands read that is not one game's state: the games on the
judge and a game's processed phases."""

from __future__ import annotations

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game

__all__ = ["all_games", "phase_reports"]


def all_games(session: Session) -> list[Game]:
    """Every game on the judge, in the order of their names."""
    return queries.games_by_name(session)


def phase_reports(session: Session, game: Game) -> list[str]:
    """The results report of each processed phase of ``game``, first to last."""
    return [
        str((record.results or {}).get("report", "")).rstrip()
        for record in queries.processed_phases(session, game.id)
    ]
