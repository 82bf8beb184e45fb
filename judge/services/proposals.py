"""The house rules' proposals to end a game (seed 003, section 8; game option
``endgame = "house"``): putting one (``PROPOSE`` ... ``ENDPROPOSE``), announcing it
without its proposer (8.5), the players' ``VOTE <n> YES|NO|ABSTAIN``, and what LIST
shows of them.  Counting them at the deadline and the master's 8.4 decision are in
:mod:`judge.services.proposal_count`.

(To be built.)
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from judge.db.models import Game

__all__ = ["listing_lines"]


def listing_lines(session: Session, game: Game, *, for_master: bool) -> tuple[str, ...]:
    """What LIST shows of the proposals (never a proposer or a vote)."""
    return ()
