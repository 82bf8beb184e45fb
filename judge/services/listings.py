"""What the information commands read that is not one game's state: the games on the
judge and a game's processed phases."""

from __future__ import annotations

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game, Rollback
from judge.presenters import format_deadline

__all__ = ["all_games", "phase_reports"]


def all_games(session: Session) -> list[Game]:
    """Every game on the judge, in the order of their names."""
    return queries.games_by_name(session)


def phase_reports(session: Session, game: Game, zone: str) -> list[str]:
    """The results report of each processed phase of ``game``, first to last; then each
    ROLLBACK of the game master, in order (its date in ``zone``), with the results it
    undid, as the players got them."""
    reports = [
        str((record.results or {}).get("report", "")).rstrip()
        for record in queries.processed_phases(session, game.id)
    ]
    for rollback in queries.rollbacks_of(session, game.id):
        reports += _rolled_back(rollback, zone)
    return reports


def _rolled_back(rollback: Rollback, zone: str) -> list[str]:
    """A rollback as HISTORY shows it: one line saying who went back where, when and why,
    then the reports it undid."""
    when = format_deadline(rollback.created_at, zone)
    undone = [
        str(phase["results"].get("report", "")).rstrip()
        for phase in rollback.undone.get("phases", [])
        if isinstance(phase.get("results"), dict)
    ]
    heading = (
        f"Rolled back from {rollback.from_phase} to {rollback.to_phase} by the game master on\n"
        f"{when}.\n"
        f"Reason: {rollback.reason or 'no reason given'}\n"
        f"{'These results were' if len(undone) != 1 else 'This result was'} undone by it:"
    )
    return [heading, *undone]
