"""The news that the game master changed a game's press (``SET PRESS`` and its njudge
forms): everyone still following the game is told what press is allowed from now on."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game
from judge.services.audience import Audience, recipients
from judge.services.context import Judge
from judge.services.mailings.common import queue, render

__all__ = ["send_press_settings"]


def send_press_settings(
    session: Session,
    judge: Judge,
    game: Game,
    now: datetime,
    *,
    kind: str,
    before: str,
    after: str,
) -> None:
    """The press of ``game`` changed to the kind ``kind`` (the subject says it), from
    ``before`` to ``after`` (each as
    :func:`judge.services.game_settings.press_text` says it), to :attr:`Audience.NEWS`
    (``all/press_settings.txt.j2``)."""
    for reader in recipients(session, game, Audience.NEWS, judge):
        mail = render(
            judge, "all/press_settings.txt.j2", game,
            power=reader.power, observer=reader.observer, before=before, after=after,
            press=kind,
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "notice", now)
