"""The announcement of a house proposal to end the game (house rules 8.1-8.5): one mail,
the same for every reader, naming nobody (8.5)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game
from judge.services.audience import Audience, recipients
from judge.services.context import Judge
from judge.services.mailings.common import queue, render

__all__ = ["ProposalNews", "Silence", "send_proposal"]


class Silence(enum.Enum):
    """What not voting counts as, under the proposal's rules (see
    :func:`judge.engine.votes.tally`)."""

    #: 8.2, a first vote: not voting, abstaining or missing orders dissent.
    FIRST = "first"
    #: 8.2, the same terms defeated the season before: not voting, abstaining or sending
    #: no orders assent.
    REPEAT = "repeat"
    #: 8.3, the master's ABSTAIN = ASSENT: abstaining or orders without a vote assent; no
    #: orders at all still dissent.
    ASSENT = "assent"


@dataclass(frozen=True)
class ProposalNews:
    """A proposal as announced: its ``number``, the phase its vote runs in, its
    ``terms`` in words, the proposer's ``note``, what ``silence`` counts as, when the
    vote ``closes`` (the deadline in the game's zone; None: the phase has no deadline
    now) and whether the result will give the ``counts``."""

    number: int
    phase_code: str
    terms: str
    note: str
    silence: Silence
    closes: str | None
    counts: bool


def send_proposal(
    session: Session, judge: Judge, game: Game, news: ProposalNews, now: datetime
) -> None:
    """Announce ``news`` (``all/proposal.txt.j2``) to the players still in the game, the
    master and the observers: one mail for all, rendered once, so that the proposer's
    copy is no different from anyone else's."""
    mail = render(
        judge, "all/proposal.txt.j2", game,
        number=news.number,
        phase_code=news.phase_code,
        terms=news.terms,
        note_lines=news.note.split("\n") if news.note.strip() else [],
        silence=news.silence.value,
        closes=news.closes,
        counts=news.counts,
    )  # fmt: skip
    for reader in recipients(session, game, Audience.NEWS, judge):
        queue(session, judge, game, reader, mail, "proposal", now)
