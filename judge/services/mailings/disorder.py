"""The news of civil disorder and missing orders: a power into civil disorder and back
(house rules 4.3-4.4), a game that waits for missing orders (``nmr = "wait"``), and the
game master's copy of the late notices.  Every reader still following the game hears of
it (:attr:`~judge.services.audience.Audience.NEWS`)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game, Player
from judge.services.audience import Audience, Recipient, recipient_of, recipients
from judge.services.context import Judge
from judge.services.mailings.common import queue, render, signon_line

__all__ = ["send_back_from_disorder", "send_civil_disorder_news"]


def send_civil_disorder_news(
    session: Session, judge: Judge, game: Game, player: Player, phase_code: str, now: datetime
) -> None:
    """``player``'s power went into civil disorder after missing ``phase_code``: the
    player is told what it means and how to come back (``player/civil_disorder.txt.j2``),
    every other reader but the game master (who has its own notice,
    :func:`~judge.services.mailings.master.send_civil_disorder`) is told the news
    (``all/civil_disorder.txt.j2``)."""
    facts = {"power": player.power, "phase_code": phase_code}
    own = render(
        judge, "player/civil_disorder.txt.j2", game, **facts,
        signon_line=signon_line(game, player.power),
        master_address=game.master_address,
    )  # fmt: skip
    queue(session, judge, game, recipient_of(game, player, judge), own, "notice", now)
    news = render(judge, "all/civil_disorder.txt.j2", game, **facts)
    for reader in _others(session, judge, game, player):
        if reader.power is not None or reader.observer:  # the master has its own
            queue(session, judge, game, reader, news, "notice", now)


def send_back_from_disorder(
    session: Session, judge: Judge, game: Game, player: Player, phase_code: str, now: datetime
) -> None:
    """``player``'s power sent orders in ``phase_code`` and is out of civil disorder:
    every other reader is told (``all/back_from_disorder.txt.j2``; the player's own
    confirmation says so)."""
    mail = render(
        judge, "all/back_from_disorder.txt.j2", game, power=player.power, phase_code=phase_code
    )
    for reader in _others(session, judge, game, player):
        queue(session, judge, game, reader, mail, "notice", now)


def _others(session: Session, judge: Judge, game: Game, player: Player) -> Iterator[Recipient]:
    """The game's news readers but ``player`` (at any of its seats' addresses)."""
    for reader in recipients(session, game, Audience.NEWS, judge):
        if reader.player_id != player.id and reader.address != player.address:
            yield reader
