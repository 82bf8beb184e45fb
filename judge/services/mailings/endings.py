"""The mail that says a game has ended other than by a win (the results mail says a
win): the game master's TERMINATE."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game
from judge.engine.position import Position
from judge.presenters import centre_report
from judge.services.audience import Audience, recipients
from judge.services.context import Judge
from judge.services.mailings.common import queue, render


def send_terminated(
    session: Session, judge: Judge, game: Game, position: Position, now: datetime
) -> None:
    """To every reader of the game (``all/terminated.txt.j2``): the game master ended it
    during ``position``'s phase, with no winner; the supply centres as it ends."""
    mail = render(
        judge, "all/terminated.txt.j2", game,
        variant="Standard",
        phase_code=position.phase.code,
        phase_text=position.phase.describe(),
        centres=centre_report(position),
    )  # fmt: skip
    for reader in recipients(session, game, Audience.EVERYONE, judge):
        queue(session, judge, game, reader, mail, "terminated", now)
