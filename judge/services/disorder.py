"""A power out of civil disorder: its player sent orders again (house rules 4.3-4.4).

Going into civil disorder is part of processing a phase
(:func:`judge.services.games.process_game`); coming back is part of taking orders, here.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game, Player, PlayerStatus
from judge.services import mailings
from judge.services.context import Judge

__all__ = ["back_from_disorder"]


def back_from_disorder(
    session: Session, judge: Judge, game: Game, player: Player, now: datetime
) -> bool:
    """If ``player``'s power is in civil disorder, bring it back (active, no missed phase)
    and tell every other reader; whether it came back.  Called for each order accepted
    from the player's own sign-on: the first of a message brings it back, the rest find
    it active."""
    if player.status != PlayerStatus.CIVIL_DISORDER:
        return False
    player.status = PlayerStatus.ACTIVE
    player.missed = 0
    mailings.send_back_from_disorder(session, judge, game, player, game.phase or "", now)
    return True
