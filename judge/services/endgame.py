"""Where ending a game by agreement meets the phase's processing and its listing.

The game's ``endgame`` setting says how its players may end it: the njudge's standing
votes (:mod:`judge.services.draw_votes`), the house rules' proposals
(:mod:`judge.services.proposals`, counted by :mod:`judge.services.proposal_count`), or
neither.  Processing a phase asks :func:`at_deadline` first: the game may end there (a
draw, a concession, an agreed result), or wait for its master (house rule 8.4), instead
of being adjudicated.  Processing it early, every order in, asks :func:`held_for_votes`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.config import Endgame
from judge.db import queries
from judge.db.models import Game, GameStatus, PhaseRecord
from judge.services import draw_votes, proposal_count, proposals
from judge.services.context import Judge
from judge.services.endings import ended_how
from judge.services.game_settings import game_settings

__all__ = ["at_deadline", "drop_votes", "held_for_votes", "listing_lines", "not_processed_why"]


def at_deadline(
    session: Session, judge: Judge, game: Game, record: PhaseRecord, now: datetime
) -> bool:
    """Settle the game's votes as its current phase (``record``) is processed.

    Returns True when the phase must not be adjudicated: the game ended by agreement
    (its final mail is queued), or it waits for its master's decision (8.4).
    """
    endgame = game_settings(game).endgame
    if endgame is Endgame.NJUDGE:
        return draw_votes.settle(session, judge, game, now)
    if endgame is Endgame.HOUSE:
        return proposal_count.settle(session, judge, game, record, now)
    return False


def held_for_votes(session: Session, game: Game) -> bool:
    """Whether ``game``'s phase must wait for its deadline, every order in though it is:
    a proposal awaits its master's decision (house rule 8.4), or the votes on a proposal
    put in it are not all in (:func:`proposal_count.holds_early_processing`).  Only a
    game with the house rules' proposals pays a query for it."""
    if game_settings(game).endgame is not Endgame.HOUSE:
        return False
    return proposal_count.holds_early_processing(session, game)


def listing_lines(session: Session, game: Game, *, for_master: bool) -> tuple[str, ...]:
    """The lines LIST shows about votes and proposals under the game's endgame line: a
    pending draw (without names, when the game says so), the open proposals; for the
    master, who voted how in a njudge game.  Never a proposer or a house vote (8.5)."""
    endgame = game_settings(game).endgame
    if endgame is Endgame.NJUDGE:
        return draw_votes.listing_lines(session, game, for_master=for_master)
    if endgame is Endgame.HOUSE:
        return proposals.listing_lines(session, game, for_master=for_master)
    return ()


def drop_votes(session: Session, game: Game, power: str) -> None:
    """Delete ``power``'s standing votes (SET DRAW, SET CONCEDE) and its ballots on the
    proposals still open: its seat is taken over, and the new player never cast them
    (nor can see them: they are secret), as the previous player's orders are dropped."""
    queries.delete_votes(session, game.id, power)
    queries.delete_open_ballots(session, game.id, power)


def not_processed_why(session: Session, game: Game) -> str | None:
    """Why ``game``'s due phase was not adjudicated, for the keeper's log and ``judge
    process``: the players' votes ended the game, or a passed proposal awaits the game
    master (8.4); None when neither (nothing was due)."""
    if game.status == GameStatus.FINISHED:
        return f"the game is over: {ended_how(game)}"
    if game_settings(game).endgame is Endgame.HOUSE and proposal_count.awaiting_proposal(
        session, game
    ):
        return (
            "the votes were counted; a proposal that passed awaits the game master's ACCEPT "
            "or DECLINE (house rule 8.4), and the phase waits for it"
        )
    return None
