"""The news of a game's clock that the game master changes by mail: a pause, the
resumption, a new grace period (a moved deadline is ``send_new_deadline``, beside the
other deadline mail in :mod:`judge.services.mailings.players`).  Each goes to everyone
still following the game (:attr:`Audience.NEWS`), with every time in the game's zone and
the reader's own."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from judge.db.models import Game
from judge.engine.phases import Phase, PhaseKind
from judge.presenters import format_deadline
from judge.services.audience import Audience, Recipient, recipients
from judge.services.context import Judge
from judge.services.game_settings import game_zone
from judge.services.mailings.common import own_zone, queue, render

__all__ = ["send_grace", "send_paused", "send_resumed"]


def send_paused(session: Session, judge: Judge, game: Game, now: datetime) -> None:
    """The game master paused ``game`` (``all/paused.txt.j2``): no deadline runs; the
    deadline it had, which the resumption keeps unless it has passed by then."""
    for reader in recipients(session, game, Audience.NEWS, judge):
        mail = render(
            judge, "all/paused.txt.j2", game,
            **_reader(reader),
            phase_code=game.phase,
            **_times(judge, game, reader, "deadline", game.deadline),
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "deadline", now)


def send_resumed(session: Session, judge: Judge, game: Game, now: datetime, *, fresh: bool) -> None:
    """The game master resumed ``game`` (``all/resumed.txt.j2``), with its deadline
    (``fresh``: a new one, the old having passed during the pause)."""
    for reader in recipients(session, game, Audience.NEWS, judge):
        mail = render(
            judge, "all/resumed.txt.j2", game,
            **_reader(reader),
            phase_code=game.phase,
            fresh=fresh,
            **_times(judge, game, reader, "deadline", game.deadline),
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "deadline", now)


def send_grace(
    session: Session,
    judge: Judge,
    game: Game,
    now: datetime,
    *,
    kind: PhaseKind,
    grace: float,
    old_grace: float,
) -> None:
    """The game master set the grace of ``kind``'s phases to ``grace`` hours, from
    ``old_grace`` (``all/grace.txt.j2``); with the current phase's deadline and the time
    late orders are taken until, when the current phase is of ``kind``."""
    current = game.phase is not None and Phase.parse(game.phase).kind is kind
    deadline = game.deadline if current else None
    until = deadline + timedelta(hours=grace) if deadline is not None and grace else None
    for reader in recipients(session, game, Audience.NEWS, judge):
        mail = render(
            judge, "all/grace.txt.j2", game,
            **_reader(reader),
            phase_code=game.phase,
            phase_kind=kind.word.lower(),
            grace=f"{grace:g}",
            old_grace=f"{old_grace:g}",
            **_times(judge, game, reader, "deadline", deadline),
            **_times(judge, game, reader, "grace", until),
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "deadline", now)


def _reader(reader: Recipient) -> dict[str, object]:
    """Who the mail greets: a power, an observer, or the game master."""
    return {"power": reader.power, "observer": reader.observer}


def _times(
    judge: Judge, game: Game, reader: Recipient, name: str, when: datetime | None
) -> dict[str, object]:
    """``<name>_game`` and ``<name>_player``: ``when`` in the game's zone and in the
    reader's own (None when the same, or when there is no such time)."""
    return {
        f"{name}_game": format_deadline(when, game_zone(game, judge)) if when else None,
        f"{name}_player": own_zone(judge, game, reader, when),
    }
